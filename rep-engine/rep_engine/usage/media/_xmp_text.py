"""The text of one XMP packet: its encoding found and decoded (pure).

A packet is UTF-8, UTF-16 or UTF-32 (ISO 16684-1 §7.3.2: the ``begin`` attribute of the
packet header holds U+FEFF "in the encoding of the packet"); the encoding shows in its
first bytes, a byte-order mark or the pattern of zero bytes around the first character
(XML 1.0 Appendix F, as ExifTool's ``ProcessXMP`` reads it: both byte orders, with or
without a byte-order mark). A wide packet is decoded and given to the parser as UTF-8;
a UTF-8 packet is given as it is (zero bytes padding its end dropped).

A packet whose text cannot be got at raises :class:`Undecodable`: a wide packet that
does not decode, a declared encoding that is not ASCII-compatible or not known, bytes
with no XML in them (another encoding). Its statements cannot be seen, not even by a
byte search: the caller fails closed (docs/media.md, "Hostile files").
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

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
