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
ImageMagick's raw profiles (:mod:`scrapy_rep.usage.media._xmp_tiff`,
:mod:`scrapy_rep.usage.media._xmp_png`).

Never raises on content: a cut or broken structure ends the walk and is named in
:attr:`XmpScan.problems`; the bytes of a file not read wholly are kept in
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
from typing import Final

# Re-exported (``X as X``): this module is the import path of the XMP search.
from scrapy_rep.usage.media._xmp_scan import Limits as Limits
from scrapy_rep.usage.media._xmp_scan import XmpScan as XmpScan
from scrapy_rep.usage.media._xmp_scan import scan_packets
from scrapy_rep.usage.media._xmp_walkers import WALKERS

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
    """Every XMP packet of ``data``, walked by its format (see the module docstring).

    A format's structure is walked by its offsets and sizes wherever they lead in the
    file (a TIFF's IFD after its image data, an MP4's ``moov`` after its ``mdat``);
    packet scanning (PDF, any other format) and the byte search of a file not
    read wholly look at its first :attr:`Limits.max_scan` bytes. What a limit kept from
    being read (bytes past that limit there, the step budget, the nesting) fails closed
    (:meth:`XmpScan.out_of_reach`)."""
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
