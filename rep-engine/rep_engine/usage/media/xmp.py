"""XMP packets found in a file's bytes, bounded (pure).

Where each format keeps its packet (Adobe XMP Specification Part 3, "Storage in files"):
JPEG APP1 with the ``http://ns.adobe.com/xap/1.0/`` signature, PNG ``iTXt`` keyword
``XML:com.adobe.xmp``, WebP (RIFF) ``XMP `` chunk, TIFF tag 700 in IFD0, GIF89a
application extension ``XMP DataXMP``, ISO BMFF (MP4, MOV) ``uuid`` box
BE7ACFCB-97A9-42E8-9C71-999491E3AFAC or ``XMP_`` box in ``moov/udta``, HEIF / AVIF
``meta`` item of content type ``application/rdf+xml``. PDF and any other
format: packet scanning for ``<?xpacket begin=`` ... ``<?xpacket end=...?>`` (Part 1 §7.3),
in UTF-8, UTF-16 and UTF-32. And where ExifTool reads XMP besides: tag 700 in every IFD
of a TIFF structure (a TIFF's chain, Exif IFD and SubIFDs; a JPEG's, PNG's or WebP's
Exif block), Photoshop image resource 0x0424, PNG ``tEXt`` / ``zTXt`` chunks and
ImageMagick's raw profiles (:mod:`rep_engine.usage.media._xmp_tiff`,
:mod:`rep_engine.usage.media._xmp_png`).

Never raises on content: each walker (here and there) stops at a cut or broken
structure, naming it in :attr:`XmpScan.problems`, and spends one step of the budget per
segment, chunk, box or block; the bytes of a file not read wholly are kept in
:attr:`XmpScan.raw`, searched only for a prohibiting value (a broken packet keeps its
"no", docs/media.md "Hostile files"). XMP found whose text cannot be got at (a chunk
that does not inflate, a raw profile that is not hexadecimal) is named in
:attr:`XmpScan.unseen`: it fails closed, and so does XMP that a limit kept out of reach.
Bounded: bytes scanned, structure steps, container nesting, packet size and packet
count (:class:`Limits`).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from typing import Final

from rep_engine.usage.media._xmp_mp4 import walk_mp4
from rep_engine.usage.media._xmp_png import JPEG_XMP, walk_png
from rep_engine.usage.media._xmp_scan import (
    PACKET_END,
    PIECE,
    Limits,
    Steps,
    XmpScan,
    scan_packets,
    truncated,
    walk,
)
from rep_engine.usage.media._xmp_tiff import (
    EXIF_HEADER,
    exif_structure,
    image_resources,
    tiff_structure,
)

#: Extended XMP (XMP Part 3 §1.1.3.1): the rest of a packet too big for one segment,
#: in APP1 segments of GUID (32), full length (4), offset (4), then a piece.
JPEG_XMP_EXTENSION: Final = b"http://ns.adobe.com/xmp/extension/\x00"
#: Photoshop image resources (APP13), where resource 0x0424 is XMP (ExifTool reads it).
JPEG_PHOTOSHOP: Final = b"Photoshop 3.0\x00"
GIF_XMP: Final = b"XMP DataXMP"
#: The start of the 258-byte "magic trailer" after a GIF's raw XMP (XMP Part 3 §1.1.2).
GIF_MAGIC_TRAILER: Final = b"\x01\xff\xfe\xfd"


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
                if not exif_structure(data[pos + 4 : stop], scan, limits, steps, "JPEG Exif"):
                    return
            elif marker == 0xED and data.startswith(JPEG_PHOTOSHOP, pos + 4):
                body = data[pos + 4 + len(JPEG_PHOTOSHOP) : stop]
                if not image_resources(body, scan, limits, steps, "JPEG APP13"):
                    return
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
        if kind == b"EXIF" and not exif_structure(
            data[pos + 8 : stop], scan, limits, steps, "WebP EXIF"
        ):
            return
        pos = stop + (length & 1)


@walk
def _tiff(data: bytes, scan: XmpScan, limits: Limits, steps: Steps) -> None:
    """Tag 700 in every IFD of the file (:mod:`rep_engine.usage.media._xmp_tiff`)."""
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
    pieces = (data[at : min(at + PIECE, end)] for at in range(start, end, PIECE))
    scan.search(pieces, "GIF XMP packet")
    return True


def _skip_sub_blocks(data: bytes, pos: int, steps: Steps) -> int:
    while True:
        steps.step()
        size = data[pos]
        pos += 1 + size
        if size == 0:
            return pos


WALKERS: Final[dict[str, Callable[[bytes, XmpScan, Limits], None]]] = {
    "jpeg": _jpeg,
    "png": walk_png,
    "webp": _webp,
    "tiff": _tiff,
    "gif": _gif,
    "mp4": walk_mp4,
    "pdf": scan_packets,
}
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
    """Every XMP packet of ``data``, walked by its format (see the module docstring): a
    format's structure by its offsets and sizes wherever they lead in the file (a TIFF's
    IFD after its image data, an MP4's ``moov`` after its ``mdat``); packet scanning (PDF,
    any other format) and the byte search of a file not read wholly look at its first
    :attr:`Limits.max_scan` bytes. What a limit kept from being read (bytes past that
    limit there, the step budget, the nesting) fails closed (:meth:`XmpScan.out_of_reach`)."""
    kind = sniff(data)
    scan = XmpScan(kind)
    scanned = data[: limits.max_scan]  # (the same object when the file is shorter)
    walker = WALKERS.get(kind, scan_packets)
    packet_scanning = walker is scan_packets
    try:
        walker(scanned if packet_scanning else data, scan, limits)
    except (struct.error, IndexError, ValueError, zlib.error, RecursionError) as error:
        scan.problems.append(f"broken {kind} structure ({error})")
    not_whole = bool(scan.problems)
    if not_whole:  # something was not read wholly: its bytes keep their "no"
        scan.raw.append(scanned)
    if len(data) > limits.max_scan and (packet_scanning or not_whole):
        what = "scanned for XMP" if packet_scanning else "searched (a file not read wholly)"
        scan.out_of_reach(f"bytes past the first {limits.max_scan} not {what}")
    return scan
