"""``audit repair TRAIL``: a trail cut in the middle of a line (a full disk, a power cut,
a crash while a line was written) made whole again, so that the next crawl can chain on
and ``verify`` reads the cut as an event, not as tampering (pure: standard library and
the trail's own modules).

The whole lines are kept as they are (their chain untouched); the bytes of the cut line
are dropped from the end of the file, and a ``repair`` line is appended in their place,
chained on the last whole line: when it was written, how many bytes were dropped and their
SHA-256 (a copy kept elsewhere can be matched against it). A ``.gz`` trail keeps its whole
members (one per line) and drops the cut one. The trail's lock is held while it is done:
a trail a crawl is writing is not repaired.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from scrapy_rep.trail.file import TrailFileError, encode_line, is_gzip, lock
from scrapy_rep.trail.read import TYPES, TrailError
from scrapy_rep.trail.records import iso_time, package_version

#: The type of the line that records a repair.
REPAIR: Final = "repair"
_CHUNK: Final = 1 << 20


@dataclass(frozen=True)
class Repaired:
    """What :func:`repair` did."""

    #: Bytes dropped from the end of the file (0: nothing was cut, nothing written).
    dropped: int
    #: The ``repair`` line appended (``None`` when nothing was cut).
    record: dict[str, Any] | None


@dataclass
class _Whole:
    """Where the whole lines of a trail end, and the last of them."""

    end: int = 0
    last: bytes = b""


def repair(path: str | Path, now: float | None = None) -> Repaired:
    """Drop the cut line at the end of the trail at ``path`` and append a ``repair`` line.
    Raises :class:`scrapy_rep.trail.read.TrailError` when ``path`` is not a trail, cannot
    be written, or a crawl is writing it."""
    path = Path(path)
    if not path.is_file():
        raise TrailError(f"{path}: {'no such file' if not path.exists() else 'not a file'}")
    try:
        with path.open("r+b") as file:
            lock(file, path)
            return _repair(path, file, now)
    except TrailFileError as error:
        raise TrailError(str(error)) from None
    except OSError as error:
        raise TrailError(f"{path}: cannot repair: {error.strerror or error}") from None


def _repair(path: Path, file: IO[bytes], now: float | None) -> Repaired:
    size = file.seek(0, os.SEEK_END)
    whole = _gzip_whole(file) if is_gzip(path) else _plain_whole(file, size)
    if whole.end == size:
        return Repaired(0, None)
    file.seek(whole.end)
    dropped = file.read()
    if not _is_trail_line(whole.last) and not (whole.end == 0 and _looks_like_a_line(dropped)):
        raise TrailError(f"{path}: not an audit trail")
    record: dict[str, Any] = {
        "type": REPAIR,
        "time": iso_time(now),
        "version": package_version(),
        "dropped_bytes": len(dropped),
        "dropped_sha256": hashlib.sha256(dropped).hexdigest(),
        "prev": hashlib.sha256(whole.last).hexdigest() if whole.last else "",
    }
    _, stored = encode_line(record, is_gzip(path))
    file.truncate(whole.end)
    file.seek(whole.end)
    file.write(stored)
    file.flush()
    os.fsync(file.fileno())
    return Repaired(len(dropped), record)


def _is_trail_line(raw: bytes) -> bool:
    try:
        record = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(record, dict) and record.get("type") in TYPES


def _looks_like_a_line(raw: bytes) -> bool:
    """A cut first line: the start of a JSON object of the trail (``{"type":…``)."""
    return raw.startswith(b'{"') and b"\n" not in raw


def _plain_whole(file: IO[bytes], size: int) -> _Whole:
    """The whole lines of a plain trail end after its last newline."""
    if size == 0:
        return _Whole()
    file.seek(size - 1)
    if file.read(1) == b"\n":
        return _Whole(size)  # nothing cut
    position, tail = size, b""
    while position > 0:
        step = min(_CHUNK, position)
        position -= step
        file.seek(position)
        tail = file.read(step) + tail
        cut = tail.rfind(b"\n")
        if cut < 0:
            continue
        start = tail.rfind(b"\n", 0, cut)
        if start >= 0 or position == 0:
            return _Whole(position + cut + 1, tail[start + 1 : cut + 1])
    return _Whole()


def _gzip_whole(file: IO[bytes]) -> _Whole:
    """The whole members of a gzip trail (one per line, each ending with a newline, as
    the writer writes them) end where the last member that ends a line ends; a member
    cut or damaged, and anything after it, is the cut."""
    file.seek(0)
    whole, offset = _Whole(), 0
    pending = b""  # the decompressed text since the last newline
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    data = b""
    while True:
        if not data:
            data = file.read(_CHUNK)
            if not data:
                return whole
        try:
            pending += decompressor.decompress(data)
        except zlib.error:
            return whole
        if not decompressor.eof:
            offset += len(data)
            data = b""
            continue
        unused = decompressor.unused_data
        offset += len(data) - len(unused)
        data = unused
        if pending.endswith(b"\n"):
            lines = pending.splitlines(keepends=True)
            whole = _Whole(offset, lines[-1])
            pending = b""
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
