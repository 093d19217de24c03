"""The bounds of an XMP search and what it found (pure; see :mod:`rep_engine.usage.media.xmp`).

:class:`Limits` (settings ``REP_MEDIA_MAX_*``), :class:`XmpScan`, the step budget of a
structure walk, and packet scanning (XMP Part 1 §7.3), the one search that needs no
knowledge of the format, in each encoding a packet may have (UTF-8, UTF-16 and UTF-32,
big- and little-endian: ISO 16684-1 §7.3.2, the ``begin`` attribute's U+FEFF).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from rep_engine.usage.media._xmp_text import Undecodable, text_pieces

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
    for probe, codecs in WIDE_ENCODINGS:
        if probe not in data:
            continue
        for codec in codecs:
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
