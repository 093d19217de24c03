"""The audit trail's file (docs/audit-trail.md): JSON Lines chained by SHA-256, plain or
gzip-compressed, and the snapshots beside it. Standard library only, no Scrapy.

- Each line carries ``prev``, the SHA-256 of the previous line's exact bytes (its ``\\n``
  included, uncompressed); ``""`` on the first line of the file. A second run appending
  to the file chains on from its last line, read back at open.
- A name ending in ``.gz`` is written as one gzip member per line, each written at once:
  a crash loses at most the line being written.
- Snapshots: ``<trail>.d/<sha256>``, the body as the parser read it, written once.
- One writer at a time: a crawl holds an exclusive ``flock`` on the trail while it
  writes; a second crawl on the same file is refused at its start (two chains written
  into one file would read as tampering).
- Only a trail is chained on: an existing file whose first line is not a trail's (an
  items feed, another collection) is refused, not appended to (:func:`check_trail`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any, Final

# Its readers' names, where they have always been.
from scrapy_rep.audit.fileaccess import HELD, check_unlocked, lock
from scrapy_rep.audit.fileaccess import TrailFileError as TrailFileError
from scrapy_rep.audit.fileaccess import being_written as being_written
from scrapy_rep.audit.fileaccess import check_folder as check_folder
from scrapy_rep.audit.fileaccess import check_writable as check_writable
from scrapy_rep.audit.fileaccess import same_file as same_file

#: The version of the trail's schema (the ``schema`` field of each ``run`` line).
SCHEMA: Final = 2
#: The schemas the reader knows (docs/audit-trail.md, "Schema versions").
SCHEMAS: Final = (1, 2)
#: The SHA-256 of an empty body: the snapshot of "no robots.txt", "unreachable".
EMPTY_SHA256: Final = hashlib.sha256(b"").hexdigest()
_TAIL_CHUNK: Final = 65_536
#: Compact JSON, one encoder for every line (``json.dumps`` makes one per call).
_JSON: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _ENCODE(record: dict[str, Any]) -> str:
    """``record`` as one JSON line's text. A lone surrogate (a failure's message naming a
    file ``os.fsdecode`` read) has no UTF-8: it is written as its JSON escape
    (``\\udce9``), which reads back as the same string, never an error at the write."""
    line = _JSON(record)
    return line if line.isascii() or _encodable(line) else _escaped(line)


def _encodable(line: str) -> bool:
    try:
        line.encode()
    except UnicodeEncodeError:
        return False
    return True


def _escaped(line: str) -> str:
    return line.encode("utf-8", "backslashreplace").decode("utf-8")


def is_gzip(path: Path) -> bool:
    return path.name.endswith(".gz")


def snapshot_dir(path: Path) -> Path:
    """``trail.jsonl`` -> ``trail.jsonl.d`` (``trail.jsonl.gz`` -> ``trail.jsonl.gz.d``)."""
    return path.with_name(path.name + ".d")


#: The types a trail's first line can have: the ``run`` header of its first run (or the
#: ``repair`` of a first line cut, which ``audit verify`` reports).
FIRST_TYPES: Final = ("run", "repair")
#: A first line at least this long is no trail's (a run line is a few KiB): it is not
#: read further.
_FIRST_LINE_MAX: Final = 1 << 24


def check_trail(path: Path) -> None:
    """Raise :class:`TrailFileError` unless a run can chain on the file at ``path`` (if it
    exists): no other crawl is writing it (:func:`check_unlocked`), it is a trail
    (:func:`check_is_trail`), and it does not end with a cut line
    (:func:`last_line_hash`). The one check of the crawl's start, of ``recheck
    --trail`` and of :class:`TrailFile`, in that order."""
    check_unlocked(path)
    check_is_trail(path)
    last_line_hash(path)


def check_is_trail(path: Path) -> None:
    """Raise :class:`TrailFileError` when the existing file at ``path`` is not an audit
    trail: its first line is whole and is not a trail's first line (a JSON object of a
    type of :data:`FIRST_TYPES`, with its ``prev``), or a ``.gz`` name holds no gzip
    data. The trail is appended to: chained onto an items feed, its lines would be
    mixed into the collection. A new or empty file and a device (``/dev/null``) pass; a
    first line cut, or a gzip member cut, is said by :func:`last_line_hash`."""
    try:
        if not path.exists() or not stat.S_ISREG(path.stat().st_mode):
            return
        first = _first_gzip_line(path) if is_gzip(path) else _first_plain_line(path)
    except OSError as error:
        raise TrailFileError(f"{path} cannot be read back ({error.strerror})") from None
    if first is None:
        return
    if first.endswith(b"\n"):
        try:
            record = json.loads(first)
        except ValueError:  # UnicodeDecodeError too
            record = None
        if (
            isinstance(record, dict)
            and record.get("type") in FIRST_TYPES
            and isinstance(record.get("prev"), str)
        ):
            return
    elif len(first) < _FIRST_LINE_MAX:
        return  # the file is its first line, cut: said by last_line_hash
    raise _not_a_trail(path)


def _not_a_trail(path: Path) -> TrailFileError:
    return TrailFileError(
        f"{path} is not an audit trail (its first line is not the run line a trail starts "
        "with): the trail would be appended to it; name another file"
    )


def _first_plain_line(path: Path) -> bytes | None:
    with path.open("rb") as file:
        return file.readline(_FIRST_LINE_MAX) or None


#: The first bytes of gzip data.
_GZIP_MAGIC: Final = b"\x1f\x8b"


def _first_gzip_line(path: Path) -> bytes | None:
    with path.open("rb") as file:
        start = file.read(len(_GZIP_MAGIC))
    if not start:
        return None
    if start != _GZIP_MAGIC:  # no gzip data: not a trail, whatever its name says
        raise _not_a_trail(path)
    try:
        with gzip.open(path, "rb") as file:  # a member is read only when reached
            return file.readline(_FIRST_LINE_MAX) or None
    except (EOFError, gzip.BadGzipFile, zlib.error):
        return None  # cut or damaged in its first line: said by last_line_hash


def last_line_hash(path: Path) -> str:
    """The SHA-256 of the last line of an existing trail (``""`` when there is none),
    for the next line's ``prev``. Raises :class:`TrailFileError` when the file does not
    end with a whole line: a chain cannot go on from a cut line."""
    last = last_line(path)
    if last is None:
        return ""
    if not last.endswith(b"\n"):
        raise TrailFileError(
            f"{path} ends with a cut line; repair it (python -m scrapy_rep audit repair "
            f"{path}) or move it away"
        )
    return hashlib.sha256(last).hexdigest()


def last_line(path: Path) -> bytes | None:
    """The last line of an existing trail, as stored (``None``: none, a new file or a
    device). Raises :class:`TrailFileError` when it cannot be read."""
    try:
        if not path.exists() or not stat.S_ISREG(path.stat().st_mode):
            return None  # new, or a device (/dev/null, /dev/full)
        return _last_gzip_line(path) if is_gzip(path) else _last_plain_line(path)
    except OSError as error:
        raise TrailFileError(f"{path} cannot be read back ({error.strerror})") from None


def _last_plain_line(path: Path) -> bytes | None:
    with path.open("rb") as file:
        end = file.seek(0, os.SEEK_END)
        if end == 0:
            return None
        data = b""
        position = end
        while position > 0:
            step = min(_TAIL_CHUNK, position)
            position -= step
            file.seek(position)
            data = file.read(step) + data
            cut = data.rfind(b"\n", 0, len(data) - 1)
            if cut >= 0:
                return data[cut + 1 :]
        return data


def _last_gzip_line(path: Path) -> bytes | None:
    last: bytes | None = None
    try:
        with gzip.open(path, "rb") as file:
            for line in file:
                last = line
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise TrailFileError(
            f"{path} is not a whole gzip file ({error}); repair it (python -m scrapy_rep "
            f"audit repair {path}) or move it away"
        ) from None
    return last


def _gzip_member(data: bytes) -> bytes:
    """``data`` as one whole gzip member. A 1 KiB window and small hash tables: a line is
    a few hundred bytes, and a full-size compressor's set-up cost 4x the compression."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + 10, 4)
    return compressor.compress(data) + compressor.flush()


def encode_line(record: dict[str, Any], compressed: bool) -> tuple[bytes, bytes]:
    """``record`` (its ``prev`` set) as a line, and as stored (one gzip member or not)."""
    line = (_ENCODE(record) + "\n").encode()
    return line, _gzip_member(line) if compressed else line


class TrailFile:
    """Appends chained lines to the trail and stores snapshots beside it. Every method
    may raise ``OSError`` (a full disk): the caller decides what that means."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.exists():
            check_trail(path)  # said before anything is created or read
        path.parent.mkdir(parents=True, exist_ok=True)
        self._gzip = is_gzip(path)
        # Unbuffered: each line is one write() of whole bytes.
        self._file = path.open("ab", buffering=0)
        try:
            lock(self._file, path)  # held until close(): no other crawl appends
            self.prev = last_line_hash(path)  # read under the lock
        except BaseException:
            self._file.close()
            raise
        status = os.fstat(self._file.fileno())
        self._key = (status.st_dev, status.st_ino)
        HELD.add(self._key)
        #: The file had lines already: this run chains on from them.
        self.chained = bool(self.prev)
        self.snapshots = snapshot_dir(path)
        #: Lines written, and their bytes before compression.
        self.lines = 0
        self.bytes = 0

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` (its ``prev`` set here) as one line."""
        record["prev"] = self.prev
        line = (_ENCODE(record) + "\n").encode()
        data = _gzip_member(line) if self._gzip else line
        view = memoryview(data)
        while view:
            written = self._file.write(view)
            if not written:
                raise OSError("no bytes written")
            view = view[written:]
        self.prev = hashlib.sha256(line).hexdigest()
        self.lines += 1
        self.bytes += len(line)

    def next_hash(self, record: dict[str, Any]) -> str:
        """The SHA-256 the line of ``record`` will have if it is the next one written
        (:meth:`write` sets its ``prev`` to the same value): what a paused run keeps in
        ``JOBDIR`` of its end line before writing it, for the run that resumes it."""
        return hashlib.sha256((_ENCODE({**record, "prev": self.prev}) + "\n").encode()).hexdigest()

    def has_snapshot(self, sha256: str) -> bool:
        return (self.snapshots / sha256).exists()

    def write_snapshot(self, sha256: str, body: bytes) -> None:
        """Store ``body`` as ``<trail>.d/<sha256>`` (whole or not at all; once)."""
        target = self.snapshots / sha256
        if target.exists():
            return
        self.snapshots.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{sha256}.tmp")
        temporary.write_bytes(body)
        temporary.replace(target)

    def close(self) -> None:
        HELD.discard(self._key)
        self._file.close()
