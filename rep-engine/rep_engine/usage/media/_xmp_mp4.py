"""Where an ISO BMFF file (MP4, MOV, HEIF, AVIF) keeps its XMP packet (Adobe XMP
Specification Part 3, "Storage in files"): a ``uuid`` box of :data:`MP4_XMP_UUID`, an
``XMP_`` box, or an ``mime`` item of the ``meta`` box read through its ``iloc``
locations, walked into ``moov``/``udta``/``meta``/``trak``, as the other walkers are
(:mod:`rep_engine.usage.media.xmp`)."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Final

from rep_engine.usage.media._xmp_scan import (
    Limits,
    Steps,
    XmpScan,
    truncated,
    walk,
)

MP4_XMP_UUID: Final = bytes.fromhex("BE7ACFCB97A942E89C71999491E3AFAC")
#: ISO BMFF boxes that hold other boxes on the way to ``XMP_`` / ``uuid``.
MP4_CONTAINERS: Final = frozenset({b"moov", b"udta", b"meta", b"trak"})
#: How deep those containers are walked (``moov/trak/meta`` is three): deeper nesting is
#: hostile, named as a problem, the walk stops and the file fails closed (the count of
#: boxes is bounded by :attr:`Limits.max_steps`).
MP4_MAX_DEPTH: Final = 16


@walk
def walk_mp4(data: bytes, scan: XmpScan, limits: Limits, steps: Steps) -> None:
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
