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
from collections.abc import Callable, Iterator
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
#: Bytes of a GIF packet over the limit searched at a time.
_PIECE: Final = 64 * 1024
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
            xmp = label == 0xFF and data[pos] == 11 and data.startswith(GIF_XMP, pos + 1)
            if xmp and not _gif_packet(data, pos + 12, scan, limits):
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


def _gif_packet(data: bytes, start: int, scan: XmpScan, limits: Limits) -> bool:
    """The raw XMP of a GIF from ``start``: to its ``<?xpacket end=...?>``, else its
    magic trailer, each looked for within the packet limit. A packet with neither there
    is over the limit: kept cut at it (+ 1 byte: an oversized packet, not the rest of
    the file: 16 extensions without an end each copied the rest of a 16 MB GIF, 256
    MiB), and searched in place, a piece at a time, to its end (the next end PI, a
    trailer before it, or the end of the file), the bytes looked through counted in the
    file's budget (:meth:`XmpScan.take`); ``False``: stop the walk."""
    window = min(start + limits.max_packet + 1, len(data))
    end = data.find(PACKET_END, start, window)
    if end >= 0:
        close = data.find(b"?>", end, window)
        return scan.add(data[start : close + 2 if close >= 0 else end], limits)
    trailer = data.find(GIF_MAGIC_TRAILER, start, window + len(GIF_MAGIC_TRAILER))
    if trailer >= 0 or window == len(data):
        return scan.add(data[start : trailer if trailer >= 0 else window], limits)
    if not scan.add(data[start:window], limits):
        return False
    looked = data.find(PACKET_END, window - len(PACKET_END))
    looked = len(data) if looked < 0 else looked
    trailer = data.find(GIF_MAGIC_TRAILER, window, looked)
    end = looked if trailer < 0 else trailer
    if not scan.take(looked - window, limits):
        return False
    pieces = (data[at : min(at + _PIECE, end)] for at in range(start, end, _PIECE))
    scan.search(pieces, "GIF XMP packet")
    return True


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
        kind, body, stop = _box(data, pos, end)
        if stop > end:
            truncated(scan, f"{kind!r} box")
            return False
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
            if kind == b"meta" and not _items(data, body, stop, scan, limits, steps):
                return False
            if not _boxes(data, body, stop, scan, limits, steps, depth + 1):
                return False
        pos = stop
    return True


def _box(data: bytes, pos: int, end: int) -> tuple[bytes, int, int]:
    """The box at ``pos`` of the boxes in ``data[:end]`` (ISO/IEC 14496-12 §4.2): its
    type, where its body starts and where it stops (past ``end`` when cut there)."""
    size, kind = struct.unpack_from(">I4s", data, pos)
    header = 8
    if size == 1:
        (size,) = struct.unpack_from(">Q", data, pos + 8)
        header = 16
    elif size == 0:
        size = end - pos
    return kind, pos + header, pos + size if size >= header else end + 1


def _items(data: bytes, pos: int, end: int, scan: XmpScan, limits: Limits, steps: Steps) -> bool:
    """The XMP items of a ``meta`` box (HEIF, AVIF: ISO/IEC 14496-12 §8.11, ISO/IEC
    23008-12 §9.3), whatever the file's brand: ``iinf`` gives each item's type (XMP is
    a ``mime`` item of content type ``application/rdf+xml``), ``iloc`` where its bytes
    are (extents in the file, or in ``idat``); ``False``: stop the walk. An item we
    cannot get at (another construction method, a content encoding) is unseen."""
    children: dict[bytes, tuple[int, int]] = {}
    while pos + 8 <= end:
        steps.step()
        kind, body, pos = _box(data, pos, end)
        if pos > end:
            break  # (named by the walk of the children)
        children.setdefault(kind, (body, pos))
    if b"iinf" not in children or b"iloc" not in children:
        return True
    xmp = _xmp_items(data, *children[b"iinf"], steps)
    for item, method, extents in _locations(data, *children[b"iloc"], steps) if xmp else ():
        if item not in xmp:
            continue
        where = f"HEIF XMP item {item}"
        if xmp[item]:
            scan.cannot_see(f"{where}: content encoding {xmp[item]!r}")
            continue
        base, limit = (0, len(data)) if method == 0 else children.get(b"idat", (-1, -1))
        if method not in (0, 1) or base < 0:
            scan.cannot_see(f"{where}: construction method {method}")
            continue
        spans = [(base + at, limit if size == 0 else base + at + size) for at, size in extents]
        if any(stop > limit for _, stop in spans):
            truncated(scan, where)
            continue
        size = sum(stop - start for start, stop in spans)
        if scan.taken + size > limits.max_scan:  # (counted before the bytes are joined)
            return scan.take(size, limits)
        if not scan.add(b"".join(data[start:stop] for start, stop in spans), limits):
            return False
    return True


def _xmp_items(data: bytes, pos: int, end: int, steps: Steps) -> dict[int, str]:
    """The XMP items an ``iinf`` box names (item ID -> content encoding, ``""``: none):
    ``infe`` boxes of version 0 and 1 (name, content type, encoding) and, of version 2
    and 3, of item type ``mime`` (then the same strings)."""
    pos += 4 + (2 if data[pos] == 0 else 4)  # version, flags, entry count
    found: dict[int, str] = {}
    while pos + 8 <= end:
        steps.step()
        kind, entry, pos = _box(data, pos, end)
        if kind != b"infe" or pos > end:
            continue
        version, strings = data[entry], entry + 8
        if version >= 2:
            wide = version > 2
            strings += 6 if wide else 4
            if data[strings - 4 : strings] != b"mime":
                continue
        item = int.from_bytes(data[entry + 4 : entry + (8 if version > 2 else 6)], "big")
        name_type_encoding = data[strings:pos].split(b"\x00")
        if name_type_encoding[1:2] == [b"application/rdf+xml"]:
            encoding = name_type_encoding[2] if len(name_type_encoding) > 2 else b""
            found[item] = encoding.decode("latin-1")[:40]
    return found


def _locations(
    data: bytes, pos: int, end: int, steps: Steps
) -> Iterator[tuple[int, int, list[tuple[int, int]]]]:
    """Each item of an ``iloc`` box: its ID, construction method and extents (offset
    with the base offset added, length: 0 is all the rest)."""
    version = data[pos]
    sizes = data[pos + 4 : pos + 6]
    offset_size, length_size, base_size = sizes[0] >> 4, sizes[0] & 15, sizes[1] >> 4
    index_size = sizes[1] & 15 if version in (1, 2) else 0
    id_size = 2 if version < 2 else 4
    reader = _Fields(data, pos + 6, end)
    for _ in range(reader.uint(id_size)):
        steps.step()
        item = reader.uint(id_size)
        method = reader.uint(2) & 15 if version in (1, 2) else 0
        reader.uint(2)  # data_reference_index: this file
        base = reader.uint(base_size)
        extents = []
        for _ in range(reader.uint(2)):
            steps.step()
            reader.uint(index_size)
            extents.append((base + reader.uint(offset_size), reader.uint(length_size)))
        yield item, method, extents


class _Fields:
    """Big-endian unsigned fields read one after another, within a box."""

    def __init__(self, data: bytes, pos: int, end: int) -> None:
        self.data, self.pos, self.end = data, pos, end

    def uint(self, size: int) -> int:
        stop = self.pos + size
        if stop > self.end:
            raise ValueError("a cut iloc box")
        value = int.from_bytes(self.data[self.pos : stop], "big")
        self.pos = stop
        return value


WALKERS: Final[dict[str, Callable[[bytes, XmpScan, Limits], None]]] = {
    "jpeg": _jpeg,
    "png": walk_png,
    "webp": _webp,
    "tiff": _tiff,
    "gif": _gif,
    "mp4": _mp4,
    "pdf": scan_packets,
}
