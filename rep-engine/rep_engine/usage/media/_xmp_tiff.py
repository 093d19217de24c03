"""XMP inside a TIFF structure or a Photoshop image resource block (pure; see
:mod:`rep_engine.usage.media.xmp`).

A TIFF structure is a TIFF file, and the Exif block of a JPEG (APP1 ``Exif``), a PNG
(``eXIf``, ImageMagick's ``Raw profile type exif`` / ``APP1``) or a WebP (``EXIF``). XMP
is tag 700 (XMP Part 3 §1.1.5); TIFF/EP puts it in IFD0, ExifTool reads it in any IFD it
walks: the IFD chain (IFD0, IFD1, … of a multi-page file), the Exif IFD (tag 34665) and
the SubIFDs (tag 330), and in the Photoshop image resources of tag 34377. Photoshop
image resources (JPEG APP13 ``Photoshop 3.0``, TIFF tag 34377, PNG ``Raw profile type
8bim``) hold XMP as resource 0x0424 (Photoshop File Formats Specification, "Image
resource blocks"; ExifTool reads it).

Every offset is checked against the block; an IFD offset is queued once (a loop of
offsets ends, and the queue never holds more offsets than the block has distinct
ones), so the walk is linear in the entries read; each IFD, entry, further IFD offset
and resource spends a step of the budget.
"""

from __future__ import annotations

import struct
from collections import deque
from typing import Final

from rep_engine.usage.media._xmp_scan import Limits, Steps, XmpScan, truncated

TIFF_HEADERS: Final = (b"II*\x00", b"MM\x00*")
#: What may come before the TIFF structure of an Exif block.
EXIF_HEADER: Final = b"Exif\x00\x00"
TIFF_XMP_TAG: Final = 700
#: Tags whose values are offsets of further IFDs walked for tag 700.
_EXIF_IFD: Final = 34665
_SUB_IFDS: Final = 330
_PHOTOSHOP: Final = 34377
#: Bytes per value of each TIFF field type (TIFF 6.0 §2, and 13: IFD, TIFF Technical
#: Note 1); an entry of another type is skipped.
_TYPE_SIZES: Final = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4,
                      12: 8, 13: 4}  # fmt: skip
PHOTOSHOP_SIGNATURES: Final = (b"8BIM", b"PHUT", b"DCSR", b"AgHg", b"MeSa")
IRB_XMP: Final = 0x0424


def exif_structure(block: bytes, scan: XmpScan, limits: Limits, steps: Steps, where: str) -> bool:
    """An Exif block (``Exif\\0\\0`` and a TIFF structure, or the structure alone)."""
    return tiff_structure(block.removeprefix(EXIF_HEADER), scan, limits, steps, where)


def tiff_structure(block: bytes, scan: XmpScan, limits: Limits, steps: Steps, where: str) -> bool:
    """The XMP of every IFD of the TIFF structure ``block`` (offsets from its start);
    ``False`` when the walk of the whole file must stop (the packet count)."""
    if block[:4] not in TIFF_HEADERS or len(block) < 8:
        scan.problems.append(f"{where}: not a TIFF structure")
        return True
    order = "<" if block[:2] == b"II" else ">"
    ifds = _IfdQueue(_u32(block, 4, order))
    while ifds.waiting:
        ifd = ifds.waiting.popleft()
        steps.step()
        if ifd + 2 > len(block):
            truncated(scan, f"{where} IFD")
            continue
        (count,) = struct.unpack_from(order + "H", block, ifd)
        for index in range(count):
            steps.step()
            entry = ifd + 2 + 12 * index
            if entry + 12 > len(block):
                truncated(scan, f"{where} IFD")
                break
            if not _entry(block, entry, order, ifds, scan, limits, steps, where):
                return False
        else:
            after = ifd + 2 + 12 * count
            if after + 4 <= len(block):
                ifds.add(_u32(block, after, order))
    return True


class _IfdQueue:
    """The IFDs of a TIFF structure still to walk, by offset (TIFF 6.0 §2), each offset
    queued once: a loop of offsets ends, and offsets named again cost one set look-up
    (a list popped from the front, with every repeat queued, was quadratic)."""

    def __init__(self, first: int) -> None:
        self.waiting: deque[int] = deque()
        self._queued: set[int] = set()
        #: The values read (offset, length) of tags 700 and 34377: an entry naming one
        #: again is skipped (thousands of entries naming the whole file were each
        #: copied and walked: time quadratic in the file's size).
        self.values_read: set[tuple[int, int]] = set()
        self.add(first)

    def add(self, offset: int) -> None:
        if offset != 0 and offset not in self._queued:
            self._queued.add(offset)
            self.waiting.append(offset)


def _entry(
    block: bytes,
    entry: int,
    order: str,
    ifds: _IfdQueue,
    scan: XmpScan,
    limits: Limits,
    steps: Steps,
    where: str,
) -> bool:
    """One IFD entry: XMP kept, further IFDs queued; ``False``: stop the walk."""
    tag, kind, count = struct.unpack_from(order + "HHI", block, entry)
    if tag not in (TIFF_XMP_TAG, _EXIF_IFD, _SUB_IFDS, _PHOTOSHOP) or kind not in _TYPE_SIZES:
        return True
    length = _TYPE_SIZES[kind] * count
    start = entry + 8 if length <= 4 else _u32(block, entry + 8, order)
    if start + length > len(block):
        truncated(scan, f"{where} tag {tag}")
        return True
    if tag in (TIFF_XMP_TAG, _PHOTOSHOP):
        if (start, length) in ifds.values_read:
            return True
        ifds.values_read.add((start, length))
    if tag == TIFF_XMP_TAG:
        return scan.add(block[start : start + length], limits)
    if tag == _PHOTOSHOP:  # walked in place, not copied
        value = memoryview(block)[start : start + length]
        return image_resources(value, scan, limits, steps, where)
    if kind in (4, 13):  # LONG or IFD: the offsets of the Exif IFD or the SubIFDs, all
        steps.spend(count)
        for offset in struct.unpack_from(f"{order}{count}I", block, start):
            ifds.add(offset)
    return True


def image_resources(
    block: bytes | memoryview, scan: XmpScan, limits: Limits, steps: Steps, where: str
) -> bool:
    """Resource 0x0424 (XMP) of Photoshop image resource blocks: signature, id, Pascal
    name padded to even, size, data padded to even; ``False``: stop the walk."""
    pos = 0
    while pos + 12 <= len(block) and block[pos : pos + 4] in PHOTOSHOP_SIGNATURES:
        steps.step()
        (resource,) = struct.unpack_from(">H", block, pos + 4)
        name = block[pos + 6]
        size_at = pos + 6 + name + 1 + ((name + 1) & 1)
        if size_at + 4 > len(block):
            break
        (size,) = struct.unpack_from(">I", block, size_at)
        data = size_at + 4
        if data + size > len(block):
            truncated(scan, f"{where} image resource")
            return True
        if resource == IRB_XMP and not scan.add(bytes(block[data : data + size]), limits):
            return False
        pos = data + size + (size & 1)
    return True


def _u32(block: bytes, at: int, order: str) -> int:
    """An offset, or one past the block when it is cut there (checked by the caller)."""
    if at + 4 > len(block):
        return len(block) + 1
    (value,) = struct.unpack_from(order + "I", block, at)
    return int(value)
