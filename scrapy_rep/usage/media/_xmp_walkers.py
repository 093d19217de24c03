"""The walk of each format to its XMP packets (pure; see :mod:`scrapy_rep.usage.media.xmp`).

Where each format keeps its packet: Adobe XMP Specification Part 3, "Storage in files",
and where ExifTool reads one besides: the TIFF structure of a JPEG's, a PNG's or a
WebP's Exif block (tag 700, :mod:`scrapy_rep.usage.media._xmp_tiff`), the Photoshop image
resources of a JPEG (APP13), the PNG text chunks (:mod:`scrapy_rep.usage.media._xmp_png`).
Each walker stops at a cut or broken structure, naming it in the scan's problems, and
spends one step of the budget per segment, chunk, box or block.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Final

from scrapy_rep.usage.media._xmp_png import EXIF_HEADER, walk_png
from scrapy_rep.usage.media._xmp_scan import (
    PACKET_END,
    Limits,
    Steps,
    XmpScan,
    scan_packets,
    truncated,
    walk,
)
from scrapy_rep.usage.media._xmp_tiff import image_resources, tiff_structure

JPEG_XMP: Final = b"http://ns.adobe.com/xap/1.0/\x00"
#: Extended XMP (XMP Part 3 §1.1.3.1): the rest of a packet too big for one segment,
#: in APP1 segments of GUID (32), full length (4), offset (4), then a piece.
JPEG_XMP_EXTENSION: Final = b"http://ns.adobe.com/xmp/extension/\x00"
#: Photoshop image resources (APP13), where resource 0x0424 is XMP (ExifTool reads it).
JPEG_PHOTOSHOP: Final = b"Photoshop 3.0\x00"
MP4_XMP_UUID: Final = bytes.fromhex("BE7ACFCB97A942E89C71999491E3AFAC")
GIF_XMP: Final = b"XMP DataXMP"
#: The start of the 258-byte "magic trailer" after a GIF's raw XMP (XMP Part 3 §1.1.2).
GIF_MAGIC_TRAILER: Final = b"\x01\xff\xfe\xfd"
#: HEIF / AVIF brands: XMP is an item of the ``meta`` box (ISO/IEC 23008-12), not walked
#: here: such files are scanned for packets when no ``uuid`` / ``XMP_`` box held one.
HEIF_BRANDS: Final = frozenset(
    {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis"}
)
#: ISO BMFF boxes that hold other boxes on the way to ``XMP_`` / ``uuid``.
MP4_CONTAINERS: Final = frozenset({b"moov", b"udta", b"meta", b"trak"})
#: How deep those containers are walked (``moov/trak/meta`` is three): deeper nesting is
#: hostile, named as a problem, the walk stops and the file fails closed (the count of
#: boxes is bounded by :attr:`Limits.max_steps`).
MP4_MAX_DEPTH: Final = 16


@walk
def _jpeg(data: bytes, scan: XmpScan, limits: Limits, steps: Steps) -> None:
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
                return truncated(scan, "JPEG segment")
            if marker == 0xE1 and data.startswith(JPEG_XMP, pos + 4):
                if not scan.add(data[pos + 4 + len(JPEG_XMP) : stop], limits):
                    return
            elif marker == 0xE1 and data.startswith(JPEG_XMP_EXTENSION, pos + 4):
                _extension_piece(data[pos + 4 + len(JPEG_XMP_EXTENSION) : stop], extended)
            elif marker == 0xE1 and data.startswith(EXIF_HEADER, pos + 4):
                if not _exif(data[pos + 4 : stop], scan, limits, steps, "JPEG Exif"):
                    return
            elif marker == 0xED and data.startswith(JPEG_PHOTOSHOP, pos + 4):
                body = data[pos + 4 + len(JPEG_PHOTOSHOP) : stop]
                if not image_resources(body, scan, limits, steps, "JPEG APP13"):
                    return
            pos = stop
    finally:
        _extended_packets(extended, scan, limits)


def _exif(block: bytes, scan: XmpScan, limits: Limits, steps: Steps, where: str) -> bool:
    """An Exif block (``Exif\\0\\0`` and a TIFF structure, or the structure alone)."""
    if block.startswith(EXIF_HEADER):
        block = block[len(EXIF_HEADER) :]
    return tiff_structure(block, scan, limits, steps, where)


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


@walk
def _webp(data: bytes, scan: XmpScan, limits: Limits, steps: Steps) -> None:
    """RIFF chunks of a WebP file; XMP is the ``XMP `` chunk (WebP container §Extended)."""
    pos, end = 12, len(data)
    while pos + 8 <= end:
        steps.step()
        kind, length = struct.unpack_from("<4sI", data, pos)
        stop = pos + 8 + length
        if stop > end:
            return truncated(scan, "RIFF chunk")
        if kind == b"XMP " and not scan.add(data[pos + 8 : stop], limits):
            return
        if kind == b"EXIF" and not _exif(data[pos + 8 : stop], scan, limits, steps, "WebP EXIF"):
            return
        pos = stop + (length & 1)


@walk
def _tiff(data: bytes, scan: XmpScan, limits: Limits, steps: Steps) -> None:
    """Tag 700 in every IFD of the file (:mod:`scrapy_rep.usage.media._xmp_tiff`)."""
    tiff_structure(data, scan, limits, steps, "TIFF")


@walk
def _gif(data: bytes, scan: XmpScan, limits: Limits, steps: Steps) -> None:
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
    truncated(scan, "GIF block")


def _gif_packet_end(data: bytes, start: int, limits: Limits) -> int:
    """Where the raw XMP of a GIF ends: its ``<?xpacket end=...?>``, else the magic
    trailer, each looked for only within the packet limit; else the limit (+ 1 byte: an
    oversized packet, searched as bytes), not the end of the file (16 extensions
    without an end each copied the rest of a file: 256 MiB for a 16 MB GIF)."""
    window = start + limits.max_packet + 1
    end = data.find(PACKET_END, start, window)
    if end >= 0:
        close = data.find(b"?>", end, window)
        return close + 2 if close >= 0 else end
    trailer = data.find(GIF_MAGIC_TRAILER, start, window + len(GIF_MAGIC_TRAILER))
    return trailer if trailer >= 0 else min(window, len(data))


def _skip_sub_blocks(data: bytes, pos: int, steps: Steps) -> int:
    while True:
        steps.step()
        size = data[pos]
        pos += 1 + size
        if size == 0:
            return pos


@walk
def _mp4(data: bytes, scan: XmpScan, limits: Limits, steps: Steps) -> None:
    """ISO BMFF boxes (ISO/IEC 14496-12 §4.2), into ``moov``/``udta``/``meta``/``trak``."""
    _boxes(data, 0, len(data), scan, limits, steps)


def _boxes(
    data: bytes, pos: int, end: int, scan: XmpScan, limits: Limits, steps: Steps, depth: int = 0
) -> bool:
    """Walk the boxes in ``data[pos:end]``; ``False`` when the walk must stop."""
    if depth > MP4_MAX_DEPTH:
        scan.out_of_reach(f"ISO BMFF boxes nested more than {MP4_MAX_DEPTH} deep")
        return False
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
            truncated(scan, f"{kind!r} box")
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
            if not _boxes(data, body, stop, scan, limits, steps, depth + 1):
                return False
        pos = stop
    return True


WALKERS: Final[dict[str, Callable[[bytes, XmpScan, Limits], None]]] = {
    "jpeg": _jpeg,
    "png": walk_png,
    "webp": _webp,
    "tiff": _tiff,
    "gif": _gif,
    "mp4": _mp4,
    "pdf": scan_packets,
}
