"""XMP packets found in a file's bytes, bounded (pure).

Where each format keeps its packet (Adobe XMP Specification Part 3, "Storage in files"):
JPEG APP1 with the ``http://ns.adobe.com/xap/1.0/`` signature, PNG ``iTXt`` keyword
``XML:com.adobe.xmp``, WebP (RIFF) ``XMP `` chunk, TIFF tag 700 in IFD0, GIF89a
application extension ``XMP DataXMP``, ISO BMFF (MP4, MOV) ``uuid`` box
BE7ACFCB-97A9-42E8-9C71-999491E3AFAC or ``XMP_`` box in ``moov/udta``. PDF and any other
format: packet scanning for ``<?xpacket begin=`` ... ``<?xpacket end=...?>`` (Part 1 §7.3).

Never raises on content: a cut or broken structure ends the walk and is named in
:attr:`XmpScan.problems`. Bounded: bytes looked at, structure steps, packet size and
packet count (:class:`Limits`).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

JPEG_XMP: Final = b"http://ns.adobe.com/xap/1.0/\x00"
#: Extended XMP (XMP Part 3 §1.1.3.1): the rest of a packet too big for one segment,
#: in APP1 segments of GUID (32), full length (4), offset (4), then a piece.
JPEG_XMP_EXTENSION: Final = b"http://ns.adobe.com/xmp/extension/\x00"
PNG_XMP: Final = b"XML:com.adobe.xmp"
MP4_XMP_UUID: Final = bytes.fromhex("BE7ACFCB97A942E89C71999491E3AFAC")
GIF_XMP: Final = b"XMP DataXMP"
TIFF_XMP_TAG: Final = 700
PACKET_BEGIN: Final = b"<?xpacket begin="
PACKET_END: Final = b"<?xpacket end="
#: HEIF / AVIF brands: XMP is an item of the ``meta`` box (ISO/IEC 23008-12), not walked
#: here: such files are scanned for packets when no ``uuid`` / ``XMP_`` box held one.
HEIF_BRANDS: Final = frozenset(
    {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis"}
)
#: ISO BMFF boxes that hold other boxes on the way to ``XMP_`` / ``uuid``.
MP4_CONTAINERS: Final = frozenset({b"moov", b"udta", b"meta", b"trak"})


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of a file is looked at (settings ``REP_MEDIA_MAX_*``)."""

    #: Bytes of the file looked at: structures past it are not walked, not scanned.
    max_scan: int = 32 * 1024 * 1024
    #: Longest packet read; a longer one is named as a problem (and not parsed).
    max_packet: int = 1024 * 1024
    #: Packets kept per file.
    max_packets: int = 16
    #: Segments, chunks, boxes or blocks walked per file.
    max_steps: int = 100_000


@dataclass(slots=True)
class XmpScan:
    """The packets found in one file, and what stopped the walk early."""

    format: str
    packets: list[bytes] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: Packets over :attr:`Limits.max_packet`: kept only for a plain byte search.
    oversized: list[bytes] = field(default_factory=list)

    def add(self, packet: bytes, limits: Limits) -> bool:
        """Keep one packet; ``False`` when no more may be kept (the walk stops)."""
        if len(self.packets) + len(self.oversized) >= limits.max_packets:
            self.problems.append(f"more than {limits.max_packets} XMP packets")
            return False
        if len(packet) > limits.max_packet:
            self.problems.append(f"XMP packet of {len(packet)} bytes (limit {limits.max_packet})")
            self.oversized.append(packet)
        else:
            self.packets.append(packet)
        return True


DEFAULT_LIMITS: Final = Limits()


def sniff(data: bytes) -> str:
    """The format of a file from its first bytes (``"unknown"`` if none we walk)."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if data[:6] in (b"GIF89a", b"GIF87a"):
        return "gif"
    if data[4:8] in (b"ftyp", b"moov", b"wide", b"mdat", b"free", b"uuid"):
        return "mp4"
    if data[:5] == b"%PDF-":
        return "pdf"
    return "unknown"


def find_packets(data: bytes, limits: Limits = DEFAULT_LIMITS) -> XmpScan:
    """Every XMP packet of ``data``, walked by its format (see the module docstring)."""
    kind = sniff(data)
    scan = XmpScan(kind)
    view = data[: limits.max_scan] if len(data) > limits.max_scan else data
    if len(data) > limits.max_scan:
        scan.problems.append(f"only the first {limits.max_scan} bytes were looked at")
    walker = _WALKERS.get(kind, _scan_packets)
    try:
        walker(view, scan, limits)
    except (struct.error, IndexError, ValueError, zlib.error) as error:
        scan.problems.append(f"broken {kind} structure ({error})")
    if kind == "mp4" and view[8:12] in HEIF_BRANDS and not (scan.packets or scan.oversized):
        _scan_packets(view, scan, limits)
    return scan


class _Stop(Exception):
    """The step budget is spent."""


class _Steps:
    def __init__(self, limits: Limits) -> None:
        self.left = limits.max_steps

    def step(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise _Stop


def _walk(
    walker: Callable[[bytes, XmpScan, Limits, _Steps], None],
) -> Callable[[bytes, XmpScan, Limits], None]:
    def run(data: bytes, scan: XmpScan, limits: Limits) -> None:
        try:
            walker(data, scan, limits, _Steps(limits))
        except _Stop:
            scan.problems.append(f"more than {limits.max_steps} structure steps")

    return run


def _truncated(scan: XmpScan, what: str) -> None:
    scan.problems.append(f"file truncated in a {what}")


@_walk
def _jpeg(data: bytes, scan: XmpScan, limits: Limits, steps: _Steps) -> None:
    """JPEG markers up to the first scan (SOS) or EOI; XMP is an APP1 segment, and its
    extended part further APP1 segments, put together by GUID and offset."""
    pos, end = 2, len(data)
    extended: dict[bytes, tuple[int, dict[int, bytes]]] = {}
    try:
        while pos + 4 <= end:
            steps.step()
            if data[pos] != 0xFF:
                scan.problems.append(f"no JPEG marker at byte {pos}")
                return
            marker = data[pos + 1]
            if marker == 0xFF:  # fill byte
                pos += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                pos += 2
                continue
            if marker in (0xDA, 0xD9):  # start of scan / end of image: metadata is before
                return
            (length,) = struct.unpack_from(">H", data, pos + 2)
            stop = pos + 2 + length
            if length < 2 or stop > end:
                return _truncated(scan, "JPEG segment")
            if marker == 0xE1 and data.startswith(JPEG_XMP, pos + 4):
                if not scan.add(data[pos + 4 + len(JPEG_XMP) : stop], limits):
                    return
            elif marker == 0xE1 and data.startswith(JPEG_XMP_EXTENSION, pos + 4):
                _extension_piece(data[pos + 4 + len(JPEG_XMP_EXTENSION) : stop], extended)
            pos = stop
    finally:
        _extended_packets(extended, scan, limits)


def _extension_piece(body: bytes, extended: dict[bytes, tuple[int, dict[int, bytes]]]) -> None:
    guid = body[:32]
    total, offset = struct.unpack_from(">II", body, 32)
    known = extended.setdefault(guid, (total, {}))
    known[1][offset] = body[40:]


def _extended_packets(
    extended: dict[bytes, tuple[int, dict[int, bytes]]], scan: XmpScan, limits: Limits
) -> None:
    """Each extended packet whose pieces cover it, as one more packet."""
    for total, pieces in extended.values():
        joined = b"".join(pieces[offset] for offset in sorted(pieces))
        if len(joined) != total:
            scan.problems.append("extended XMP incomplete")
        if not scan.add(joined, limits):
            return


@_walk
def _png(data: bytes, scan: XmpScan, limits: Limits, steps: _Steps) -> None:
    """PNG chunks up to IEND; XMP is the ``iTXt`` chunk with keyword ``XML:com.adobe.xmp``."""
    pos, end = 8, len(data)
    while pos + 8 <= end:
        steps.step()
        length, kind = struct.unpack_from(">I4s", data, pos)
        stop = pos + 8 + length
        if stop > end:
            return _truncated(scan, "PNG chunk")
        if kind == b"IEND":
            return
        if kind == b"iTXt" and data.startswith(PNG_XMP + b"\x00", pos + 8):
            packet = _itxt_text(data[pos + 8 + len(PNG_XMP) + 1 : stop], limits)
            if packet is None:
                scan.problems.append("unreadable compressed iTXt XMP")
            elif not scan.add(packet, limits):
                return
        pos = stop + 4  # CRC


def _itxt_text(body: bytes, limits: Limits) -> bytes | None:
    """The text of an iTXt chunk after its keyword: flag, method, language, translated
    keyword, text (PNG §11.3.4.5); compressed text is inflated up to the packet limit + 1."""
    compressed = body[0]
    rest = body[2:]
    language_end = rest.index(b"\x00")
    translated_end = rest.index(b"\x00", language_end + 1)
    text = rest[translated_end + 1 :]
    if not compressed:
        return text
    inflater = zlib.decompressobj()
    try:
        return inflater.decompress(text, limits.max_packet + 1)
    except zlib.error:
        return None


@_walk
def _webp(data: bytes, scan: XmpScan, limits: Limits, steps: _Steps) -> None:
    """RIFF chunks of a WebP file; XMP is the ``XMP `` chunk (WebP container §Extended)."""
    pos, end = 12, len(data)
    while pos + 8 <= end:
        steps.step()
        kind, length = struct.unpack_from("<4sI", data, pos)
        stop = pos + 8 + length
        if stop > end:
            return _truncated(scan, "RIFF chunk")
        if kind == b"XMP " and not scan.add(data[pos + 8 : stop], limits):
            return
        pos = stop + (length & 1)


def _tiff(data: bytes, scan: XmpScan, limits: Limits) -> None:
    """Tag 700 (XMP, BYTE or UNDEFINED) of the first IFD (TIFF/EP; XMP Part 3 §1.1.5)."""
    order = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack_from(order + "I", data, 4)
    (count,) = struct.unpack_from(order + "H", data, ifd)
    for index in range(min(count, limits.max_steps)):
        tag, kind, length, value = struct.unpack_from(order + "HHII", data, ifd + 2 + 12 * index)
        if tag == TIFF_XMP_TAG and kind in (1, 7):
            start = ifd + 2 + 12 * index + 8 if length <= 4 else value
            if start + length > len(data):
                return _truncated(scan, "TIFF XMP tag")
            scan.add(data[start : start + length], limits)
            return


@_walk
def _gif(data: bytes, scan: XmpScan, limits: Limits, steps: _Steps) -> None:
    """GIF blocks to the trailer; XMP is the application extension ``XMP DataXMP``, raw
    bytes followed by the 258-byte "magic trailer" (XMP Part 3 §1.1.2)."""
    flags = data[10]
    pos = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    while pos < len(data):
        steps.step()
        block = data[pos]
        if block == 0x3B:  # trailer
            return
        if block == 0x21:
            label = data[pos + 1]
            pos += 2
            if label == 0xFF and data[pos] == 11 and data.startswith(GIF_XMP, pos + 1):
                start = pos + 12
                packet_end = _gif_packet_end(data, start, limits)
                if not scan.add(data[start:packet_end], limits):
                    return
            pos = _skip_sub_blocks(data, pos, steps)
        elif block == 0x2C:
            local = data[pos + 9]
            pos += 10 + (3 << ((local & 7) + 1) if local & 0x80 else 0) + 1
            pos = _skip_sub_blocks(data, pos, steps)
        else:
            scan.problems.append(f"unknown GIF block 0x{block:02x} at byte {pos}")
            return
    _truncated(scan, "GIF block")


def _gif_packet_end(data: bytes, start: int, limits: Limits) -> int:
    """Where the raw XMP of a GIF ends: its ``<?xpacket end=...?>``, else the magic trailer."""
    window = start + limits.max_packet + 1
    end = data.find(PACKET_END, start, window)
    if end >= 0:
        close = data.find(b"?>", end, window)
        return close + 2 if close >= 0 else end
    trailer = data.find(b"\x01\xff\xfe\xfd", start)
    return trailer if trailer >= 0 else len(data)


def _skip_sub_blocks(data: bytes, pos: int, steps: _Steps) -> int:
    while True:
        steps.step()
        size = data[pos]
        pos += 1 + size
        if size == 0:
            return pos


@_walk
def _mp4(data: bytes, scan: XmpScan, limits: Limits, steps: _Steps) -> None:
    """ISO BMFF boxes (ISO/IEC 14496-12 §4.2), into ``moov``/``udta``/``meta``/``trak``."""
    _boxes(data, 0, len(data), scan, limits, steps)


def _boxes(data: bytes, pos: int, end: int, scan: XmpScan, limits: Limits, steps: _Steps) -> bool:
    """Walk the boxes in ``data[pos:end]``; ``False`` when the walk must stop."""
    while pos + 8 <= end:
        steps.step()
        size, kind = struct.unpack_from(">I4s", data, pos)
        header = 8
        if size == 1:
            (size,) = struct.unpack_from(">Q", data, pos + 8)
            header = 16
        elif size == 0:
            size = end - pos
        stop = pos + size
        if size < header or stop > end:
            _truncated(scan, f"{kind!r} box")
            return False
        body = pos + header
        if kind == b"uuid" and data[body : body + 16] == MP4_XMP_UUID:
            if not scan.add(data[body + 16 : stop], limits):
                return False
        elif kind == b"XMP_":
            if not scan.add(data[body:stop], limits):
                return False
        elif kind in MP4_CONTAINERS:
            # ``meta`` is a full box in ISO BMFF (4 bytes of version and flags), a plain
            # container in QuickTime: its first child's type tells which.
            if kind == b"meta" and data[body + 4 : body + 8] not in (b"hdlr", b"XMP_", b"ilst"):
                body += 4
            if not _boxes(data, body, stop, scan, limits, steps):
                return False
        pos = stop
    return True


def _scan_packets(data: bytes, scan: XmpScan, limits: Limits) -> None:
    """Packet scanning (XMP Part 1 §7.3): each ``<?xpacket begin=`` to its end PI."""
    pos = 0
    while True:
        begin = data.find(PACKET_BEGIN, pos)
        if begin < 0:
            return
        end = data.find(PACKET_END, begin, begin + limits.max_packet + len(PACKET_END))
        if end < 0:
            scan.problems.append(f"XMP packet at byte {begin} unterminated within the limit")
            return
        close = data.find(b"?>", end)
        stop = len(data) if close < 0 else close + 2
        if not scan.add(data[begin:stop], limits):
            return
        pos = stop


_WALKERS: Final[dict[str, Callable[[bytes, XmpScan, Limits], None]]] = {
    "jpeg": _jpeg,
    "png": _png,
    "webp": _webp,
    "tiff": _tiff,
    "gif": _gif,
    "mp4": _mp4,
    "pdf": _scan_packets,
}
