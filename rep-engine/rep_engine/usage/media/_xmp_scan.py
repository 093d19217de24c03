"""The bounds of an XMP search and what it found (pure; see :mod:`rep_engine.usage.media.xmp`).

:class:`Limits` (settings ``REP_MEDIA_MAX_*``), :class:`XmpScan`, the step budget of a
structure walk, and packet scanning (XMP Part 1 §7.3), the one search that needs no
knowledge of the format, in each encoding a packet may have (UTF-8, UTF-16 and UTF-32,
big- and little-endian: ISO 16684-1 §7.3.2, the ``begin`` attribute's U+FEFF).

And the text of one packet, its encoding found and decoded (:func:`packet_text`): a
packet is UTF-8, UTF-16 or UTF-32 (the ``begin`` attribute of the packet header holds
U+FEFF "in the encoding of the packet"); the encoding shows in its first bytes, a
byte-order mark or the pattern of zero bytes around the first character (XML 1.0
Appendix F, as ExifTool's ``ProcessXMP`` reads it: both byte orders, with or without a
byte-order mark). A wide packet is decoded and given to the parser as UTF-8; a UTF-8
packet is given as it is (zero bytes padding its end dropped). A packet whose text cannot
be got at raises :class:`Undecodable`: a wide packet that does not decode, a declared
encoding that is not ASCII-compatible or not known, bytes with no XML in them (another
encoding). Its statements cannot be seen, not even by a byte search: the caller fails
closed (docs/media.md, "Hostile files").
"""

from __future__ import annotations

import codecs
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

#: A prohibiting DMI value in bytes not parsed (a packet over the limit or broken, the
#: bytes of a file not read wholly): the reading that loses no "no" (docs/media.md).
DMI_PROHIBITED: Final = re.compile(rb"DMI-PROHIBITED[A-Z-]{0,40}")
#: The longest match of :data:`DMI_PROHIBITED`.
_LONGEST_VALUE: Final = len(b"DMI-PROHIBITED") + 40
#: Distinct values taken from bytes not parsed.
MAX_BYTE_VALUES: Final = 8
#: Packets searched as bytes (past :attr:`Limits.max_packets`) per packet parsed: each
#: costs a few steps of Python, and a 32 MB PDF holds 800,000 empty packets.
SEARCHED_PER_PARSED: Final = 64
#: Prohibiting values looked at per file in bytes not parsed (each match costs a step
#: of Python, and a file can hold millions): past it, the rest is out of reach.
MAX_MATCHES: Final = 256
#: Bytes of a text too long to hold searched (or inflated) at a time.
PIECE: Final = 64 * 1024
PACKET_BEGIN: Final = b"<?xpacket begin="
PACKET_END: Final = b"<?xpacket end="
#: The wide encodings of a packet by width, each width with a few bytes that a packet
#: header holds in both byte orders (shifted by a byte in big-endian), looked for first:
#: a file without a wide packet costs one search per width.
WIDE_ENCODINGS: Final = (
    ("acket".encode("utf-16-le"), ("utf-16-be", "utf-16-le")),
    ("acket".encode("utf-32-le"), ("utf-32-be", "utf-32-le")),
)


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of a file is looked at (settings ``REP_MEDIA_MAX_*``)."""

    #: Bytes of the file scanned for packets (formats without a structure we walk:
    #: PDF, HEIF, any other) or searched as raw bytes, and bytes of compressed text
    #: inflated per file; a statement that could lie past it fails closed. Structures
    #: are walked by their offsets, wherever in the file they are.
    max_scan: int = 32 * 1024 * 1024
    #: Longest packet read; a longer one is named as a problem (and not parsed).
    max_packet: int = 1024 * 1024
    #: Packets kept per file.
    max_packets: int = 16
    #: Segments, chunks, boxes or blocks walked per file, and one more per
    #: :data:`BYTES_PER_STEP` bytes of it (a GIF has a sub-block per 256 bytes).
    max_steps: int = 100_000


#: The step budget of a walk grows by one per this many bytes of the file: the walk is
#: linear in the file's size and a file whose structures are no denser than this (every
#: format's, but a hostile one's) never runs out.
BYTES_PER_STEP: Final = 256


@dataclass(slots=True)
class XmpScan:
    """The packets found in one file, and what stopped the walk early."""

    format: str
    packets: list[bytes] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: Packets over :attr:`Limits.max_packet`: kept only for a plain byte search.
    oversized: list[bytes] = field(default_factory=list)
    #: Bytes not wholly read as packets (a file whose walk met a problem: a cut or
    #: unterminated packet, a broken structure, a limit): searched only for a
    #: prohibiting value, so a broken packet keeps its "no" (docs/media.md).
    raw: list[bytes] = field(default_factory=list)
    #: XMP found whose text cannot be got at (a chunk that does not inflate, a raw
    #: profile that is not hex, a packet in an encoding not read): no byte search can
    #: see a "no" in it, so the file is refused for the AI purposes (docs/media.md,
    #: "Hostile files"). Each is named in :attr:`problems` too.
    unseen: list[str] = field(default_factory=list)
    #: Packets past :attr:`Limits.max_packets`: kept only for a plain byte search.
    unparsed: list[bytes] = field(default_factory=list)
    #: Prohibiting values found in XMP text too long to hold (a compressed PNG chunk
    #: over :attr:`Limits.max_packet`, a GIF packet going on past it), searched piece
    #: by piece (:meth:`search`).
    mentions: list[str] = field(default_factory=list)
    #: Bytes of compressed text inflated so far (at most :attr:`Limits.max_scan`).
    inflated: int = 0
    #: Bytes of packets taken so far, and searched past the packet limit (at most
    #: :attr:`Limits.max_scan`: hostile files name the same bytes as packets over and over).
    taken: int = 0
    #: Prohibiting values looked at in bytes not parsed (at most :data:`MAX_MATCHES`).
    matches: int = 0

    def cannot_see(self, what: str) -> None:
        """XMP is there but its text cannot be read (see :attr:`unseen`)."""
        self.unseen.append(what)
        self.problems.append(f"unreadable XMP: {what}")

    def out_of_reach(self, what: str) -> None:
        """A limit stopped the walk or the search before the end of the file (``what``):
        XMP past it cannot be seen, so it fails closed as :attr:`unseen` XMP does."""
        self.unseen.append(what)
        self.problems.append(what)

    def add(self, packet: bytes, limits: Limits) -> bool:
        """Keep one packet (past :attr:`Limits.max_packets`, for the byte search only);
        ``False`` when the file's packets are over :attr:`Limits.max_scan` bytes, or
        :data:`SEARCHED_PER_PARSED` times more than the packets parsed (the walk stops,
        and what is left fails closed)."""
        if not self.take(len(packet), limits):
            return False
        if len(self.packets) + len(self.oversized) >= limits.max_packets:
            if not self.unparsed:
                self.problems.append(f"more than {limits.max_packets} XMP packets")
            if len(self.unparsed) == limits.max_packets * SEARCHED_PER_PARSED:
                total = limits.max_packets * (SEARCHED_PER_PARSED + 1)
                self.out_of_reach(f"more than {total} XMP packets")
                return False
            self.unparsed.append(packet)
        elif len(packet) > limits.max_packet:
            self.problems.append(f"XMP packet of {len(packet)} bytes (limit {limits.max_packet})")
            self.oversized.append(packet)
        else:
            self.packets.append(packet)
        return True

    def take(self, size: int, limits: Limits) -> bool:
        """Count ``size`` more bytes of packets; ``False`` (out of reach) past the limit."""
        self.taken += size
        if self.taken <= limits.max_scan:
            return True
        self.out_of_reach(f"XMP packets of more than {limits.max_scan} bytes in the file")
        return False

    def match(self) -> bool:
        """Count one more value looked at in bytes not parsed; ``False`` (out of reach,
        named once) past :data:`MAX_MATCHES`."""
        self.matches += 1
        if self.matches == MAX_MATCHES + 1:
            self.out_of_reach(f"more than {MAX_MATCHES} DMI-PROHIBITED values in bytes not parsed")
        return self.matches <= MAX_MATCHES

    def values_in(self, data: bytes) -> list[str]:
        """The prohibiting values in bytes not parsed (an oversized or broken packet:
        any counts), each once, at most :data:`MAX_BYTE_VALUES`."""
        found: dict[str, None] = {}
        for match in DMI_PROHIBITED.finditer(data):
            if not self.match():
                break
            found[match.group().decode("ascii")] = None
        return list(found)[:MAX_BYTE_VALUES]

    def search(self, pieces: Iterable[bytes], where: str, *, text: bool = True) -> None:
        """The prohibiting values of a packet too long to hold, given piece by piece
        (``text``: its encoding found and decoded as it comes), in :attr:`mentions`; a
        text that does not decode is unseen."""
        search = ValueSearch(self)
        try:
            for piece in text_pieces(pieces) if text else pieces:
                if not search.feed(piece):
                    break
        except Undecodable as error:
            self.cannot_see(f"{where}: {error}")
        self.mentions.extend(search.values())


class ValueSearch:
    """The prohibiting DMI values of a text given piece by piece, never held whole:
    each piece is searched after the last bytes of the one before (as many as the
    longest value, so a value cut between two pieces is found whole), and a value
    counts only once the byte after it has been seen. Each match spends the budget of
    ``scan`` (:meth:`XmpScan.match`)."""

    def __init__(self, scan: XmpScan | None = None) -> None:
        self._scan = XmpScan("") if scan is None else scan
        self._tail = b""
        self._found: dict[str, None] = {}

    def feed(self, piece: bytes) -> bool:
        """Search one more piece; ``False`` once :data:`MAX_BYTE_VALUES` are found or the
        budget is spent."""
        buffer = self._tail + piece
        settled = len(buffer) - _LONGEST_VALUE
        for match in DMI_PROHIBITED.finditer(buffer):
            if match.start() >= settled:  # it may go on in the next piece: searched again
                break
            if not self._scan.match():
                return False
            self._found[match.group().decode("ascii")] = None
        self._tail = buffer[max(settled, 0) :]
        return len(self._found) < MAX_BYTE_VALUES

    def values(self) -> list[str]:
        """The values found, the last piece's too (the text ended)."""
        self._found.update(dict.fromkeys(self._scan.values_in(self._tail)))
        self._tail = b""
        return list(self._found)[:MAX_BYTE_VALUES]


class Stop(Exception):
    """The step budget is spent."""


class Steps:
    """The step budget of one walk: :attr:`Limits.max_steps`, and one step per
    :data:`BYTES_PER_STEP` bytes of the file."""

    def __init__(self, limits: Limits, size: int = 0) -> None:
        self.budget = limits.max_steps + size // BYTES_PER_STEP
        self.left = self.budget

    def step(self) -> None:
        self.spend(1)

    def spend(self, count: int) -> None:
        """Spend ``count`` steps (raises :class:`Stop` when the budget is spent)."""
        self.left -= count
        if self.left < 0:
            raise Stop


def walk(
    walker: Callable[[bytes, XmpScan, Limits, Steps], None],
) -> Callable[[bytes, XmpScan, Limits], None]:
    def run(data: bytes, scan: XmpScan, limits: Limits) -> None:
        steps = Steps(limits, len(data))
        try:
            walker(data, scan, limits, steps)
        except Stop:
            scan.out_of_reach(f"more than {steps.budget} structure steps")

    return run


def truncated(scan: XmpScan, what: str) -> None:
    scan.problems.append(f"file truncated in a {what}")


def scan_packets(data: bytes, scan: XmpScan, limits: Limits) -> None:
    """Packet scanning (XMP Part 1 §7.3): each ``<?xpacket begin=`` to its end PI, in
    UTF-8 and in the wide encodings (XMP Part 3 §1.1, "Scanning files for XMP packets")."""
    taken: list[tuple[int, int]] = []  # the packets found, (start, stop), in order
    if not _scan(data, scan, limits, (PACKET_BEGIN, PACKET_END, b"?>"), taken):
        return
    for probe, names in WIDE_ENCODINGS:
        if probe not in data:
            continue
        for codec in names:
            marks = tuple(mark.decode().encode(codec) for mark in (PACKET_BEGIN, PACKET_END, b"?>"))
            if not _scan(data, scan, limits, marks, taken):
                return


def _scan(
    data: bytes,
    scan: XmpScan,
    limits: Limits,
    marks: tuple[bytes, ...],
    taken: list[tuple[int, int]],
) -> bool:
    """The packets of one encoding (``marks``: its begin, end and ``?>``), but where a
    packet already found is (a wide packet read again a byte or three further on, in
    the other byte order: looked up in ``taken``, kept in order); ``False`` when the
    scan must stop."""
    begin_mark, end_mark, close = marks
    before = list(taken)  # the packets of the encodings scanned already
    pos = 0
    while True:
        begin = data.find(begin_mark, pos)
        if begin < 0:
            taken.sort()
            return True
        at = bisect_right(before, (begin, len(data))) - 1
        if at >= 0 and begin < before[at][1]:
            pos = begin + 1
            continue
        end = data.find(end_mark, begin, begin + limits.max_packet + len(end_mark))
        if end < 0:
            scan.problems.append(f"XMP packet at byte {begin} unterminated within the limit")
            return False
        stop = data.find(close, end)
        stop = len(data) if stop < 0 else stop + len(close)
        taken.append((begin, stop))
        if not scan.add(data[begin:stop], limits):
            return False
        pos = stop


#: Byte-order marks, longest first (UTF-32LE's begins with UTF-16LE's).
_BOMS: Final = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xef\xbb\xbf", "utf-8"),
)
_UNITS: Final = {"utf-16-be": 2, "utf-16-le": 2, "utf-32-be": 4, "utf-32-le": 4}
#: The encoding an XML declaration names, in the first bytes of a packet.
_DECLARED: Final = re.compile(
    rb"\A\s{0,64}<\?xml[^>]{0,80}?\bencoding\s{0,8}=\s{0,8}[\"']([A-Za-z][A-Za-z0-9._:-]{0,39})[\"']"
)
#: Declared names of the wide encodings: a packet that says so but is 8-bit was
#: transcoded without its declaration (read as UTF-8).
_WIDE_NAMES: Final = frozenset({"utf-16", "utf-16-be", "utf-16-le", "utf-32", "utf-32-be",
                                "utf-32-le", "utf16", "utf32", "ucs-2", "ucs-4", "iso-10646-ucs-2",
                                "iso-10646-ucs-4"})  # fmt: skip


class Undecodable(ValueError):
    """A packet whose text cannot be got at (the message says why)."""


@dataclass(frozen=True, slots=True)
class PacketText:
    """A packet's bytes for the parser and the encoding they were read in."""

    #: UTF-8 when :attr:`override` (the parser ignores any declared encoding), else the
    #: packet's own 8-bit bytes (the parser follows its XML declaration).
    data: bytes
    #: ``"UTF-8"``, ``"UTF-16BE"``, … (as found).
    encoding: str
    override: bool


def packet_text(packet: bytes) -> PacketText:
    """The text of ``packet`` (raises :class:`Undecodable`, see the module docstring)."""
    codec, start = _encoding(packet)
    if codec == "utf-8":
        return _eight_bit(packet[start:])
    name = codec.upper().replace("-", "").replace("UTF", "UTF-", 1)
    unit = _UNITS[codec]
    body = packet[start:]
    body = body[: len(body) - len(body) % unit]  # a byte left over after the last unit
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as error:
        raise Undecodable(
            f"a {name} packet that does not decode (byte {start + error.start})"
        ) from None
    return PacketText(text.rstrip("\x00").encode("utf-8"), name, True)


def text_pieces(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """The text of a packet too long to hold, given piece by piece, as UTF-8 pieces:
    its encoding found in the first piece, as :func:`packet_text` finds it, a wide
    encoding decoded as it comes; raises :class:`Undecodable` as :func:`packet_text`
    does (a byte left over after the last unit is dropped, as there)."""
    rest = iter(pieces)
    first = next(rest, b"")
    codec, start = _encoding(first)
    if codec == "utf-8":
        _eight_bit(first[start:])  # raises for an encoding not read
        yield first[start:]
        yield from rest
        return
    name = codec.upper().replace("-", "").replace("UTF", "UTF-", 1)
    decoder = codecs.getincrementaldecoder(codec)()
    try:
        yield decoder.decode(first[start:]).encode("utf-8")
        for piece in rest:
            yield decoder.decode(piece).encode("utf-8")
    except UnicodeDecodeError:
        raise Undecodable(f"a {name} packet that does not decode") from None


def _encoding(packet: bytes) -> tuple[str, int]:
    """The packet's encoding and where its text starts (after a byte-order mark)."""
    for bom, codec in _BOMS:
        if packet.startswith(bom):
            return codec, len(bom)
    return _BY_ZEROS.get(tuple(byte == 0 for byte in packet[:4]), "utf-8"), 0


#: Without a byte-order mark, the wide encodings by which of the first 4 bytes are zero.
_BY_ZEROS: Final[dict[tuple[bool, ...], str]] = {
    (True, True, True, False): "utf-32-be",
    (False, True, True, True): "utf-32-le",
    (True, False, True, False): "utf-16-be",
    (False, True, False, True): "utf-16-le",
}


def _eight_bit(data: bytes) -> PacketText:
    """An 8-bit packet: UTF-8 by XMP, or what its XML declaration names if that is an
    encoding whose ASCII characters are ASCII bytes (the parser reads it)."""
    data = data.rstrip(b"\x00")
    declared = _DECLARED.match(data)
    if declared is not None:
        name = declared[1].decode("ascii").lower()
        if name in _WIDE_NAMES:
            return PacketText(data, "UTF-8", True)
        if not _ascii_compatible(name):
            raise Undecodable(f"a packet in an encoding not read ({declared[1].decode()})")
    if b"<" not in data and data.strip():  # (an empty packet holds nothing to read)
        raise Undecodable("a packet with no XML in it (an encoding not read)")
    return PacketText(data, "UTF-8", False)


def _ascii_compatible(name: str) -> bool:
    """Whether ``name`` is an encoding Python knows whose ASCII is plain ASCII bytes."""
    try:
        codec = codecs.lookup(name)
    except LookupError:
        return False
    if codec.name == "utf-8-sig":
        return True
    if codec.name == "utf-7":  # "+" starts a base64 run: its ASCII is not all ASCII
        return False
    try:
        return "<?xml a-z:=\"'/>".encode(codec.name) == b"<?xml a-z:=\"'/>"
    except (UnicodeError, LookupError, TypeError):
        return False
