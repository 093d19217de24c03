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
- Each run's end line is followed by its ``site`` lines and its tree head
  (:mod:`rep_engine.trail.heads`): the file keeps the Merkle tree's frontier over every
  line, read back at open (from the last head, or from every line when the trail does not
  end with one: then also the records no ``site`` line counts yet, whose ``site`` lines
  the run writes before its own), and each record's ``site_prev``.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import os
import stat
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Final

# Its readers' names, where they have always been.
from rep_engine.trail.fileaccess import TrailFileError as TrailFileError
from rep_engine.trail.fileaccess import check_folder as check_folder
from rep_engine.trail.fileaccess import check_is_trail as check_is_trail
from rep_engine.trail.fileaccess import check_writable as check_writable
from rep_engine.trail.fileaccess import first_line, replacing
from rep_engine.trail.fileaccess import is_gzip as is_gzip
from rep_engine.trail.fileaccess import same_file as same_file
from rep_engine.trail.heads import (
    SITE_RECORDS,
    HeadOptions,
    Uncounted,
    append_head,
    count_records,
    head_line,
    resumed,
    site_of,
)
from rep_engine.trail.merkle import Frontier, leaf_hash

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock
    fcntl = None  # type: ignore[assignment]

#: The version of the trail's schema (the ``schema`` field of each ``run`` line).
SCHEMA: Final = 3
#: The schemas the reader knows (docs/audit-trail.md, "Schema versions").
SCHEMAS: Final = (1, 2, 3)
#: The SHA-256 of an empty body: the snapshot of "no robots.txt", "unreachable".
EMPTY_SHA256: Final = hashlib.sha256(b"").hexdigest()
_TAIL_CHUNK: Final = 65_536
#: A run's count of a site's records and the line of its last, as one number
#: (:attr:`TrailFile._sites`): ``count * _PLACES + last`` (a trail of up to 2**40 lines).
_PLACES: Final = 1 << 40
#: Compact JSON, one encoder for every line (``json.dumps`` makes one per call).
_JSON: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _ENCODE(record: dict[str, Any]) -> str:
    """``record`` as one JSON line's text. A lone surrogate (a failure's message naming a
    file ``os.fsdecode`` read) has no UTF-8: it is written as its JSON escape
    (``\\udce9``), which reads back as the same string, never an error at the write."""
    line = _JSON(record)
    if not line.isascii():
        try:
            line.encode()
        except UnicodeEncodeError:
            return line.encode("utf-8", "backslashreplace").decode("utf-8")
    return line


def snapshot_dir(path: Path) -> Path:
    """``trail.jsonl`` -> ``trail.jsonl.d`` (``trail.jsonl.gz`` -> ``trail.jsonl.gz.d``)."""
    return path.with_name(path.name + ".d")


def check_trail(path: Path) -> None:
    """Raise :class:`TrailFileError` unless a run can chain on the file at ``path`` (if it
    exists): the one check of the crawl's start, of ``recheck --trail`` and of
    :class:`TrailFile`."""
    check_unlocked(path)
    check_is_trail(path)
    last_line_hash(path)


#: Why a locked trail cannot be written.
LOCKED: Final = "is being written by another crawl (it is locked): a trail has one writer at a time"


#: (device, inode) of the trails this process's writers hold locked.
_HELD: Final[set[tuple[int, int]]] = set()


#: Tries at a lock held by another process, and the pause between them: another crawl's
#: start-up check (:func:`check_unlocked`) holds it for the time of one ``flock`` call,
#: which must not refuse a crawl that took the trail first; a writer holds it for its
#: whole crawl.
LOCK_TRIES: Final = 5
LOCK_PAUSE: Final = 0.02
_pause = time.sleep


def lock(file: IO[bytes], path: Path) -> None:
    """Take the exclusive lock of the trail open as ``file`` (a regular file; held until
    it is closed), or raise :class:`TrailFileError` when another process still holds it
    after :data:`LOCK_TRIES` tries. Devices (``/dev/null``) and platforms without
    ``fcntl`` are not locked."""
    if fcntl is None or not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
        return
    for tried in range(1, LOCK_TRIES + 1):
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if tried == LOCK_TRIES:
                raise TrailFileError(f"{path} {LOCKED}") from None
            _pause(LOCK_PAUSE)
        except OSError:  # a file system without locks: written as before
            return


def check_unlocked(path: Path) -> None:
    """Raise :class:`TrailFileError` when another crawl holds the lock of the trail at
    ``path`` (:func:`lock`); takes it only for the time of the check. A lock this
    process's own :class:`TrailFile` holds is not in the way (the settings are checked
    again while the crawl runs); a second :class:`TrailFile` is still refused."""
    try:
        file = path.open("rb")
    except OSError:
        return  # new, or unreadable: said by the other checks
    with file:
        status = os.fstat(file.fileno())
        if (status.st_dev, status.st_ino) not in _HELD:
            lock(file, path)


def being_written(path: Path) -> bool:
    """Whether a crawl holds the lock of the trail at ``path`` now (:func:`lock`): this
    process's writer, or another process's."""
    try:
        check_unlocked(path)
    except TrailFileError:
        return True
    try:
        status = path.stat()
    except OSError:
        return False
    return (status.st_dev, status.st_ino) in _HELD


def last_line_hash(path: Path, last: bytes | None = None) -> str:
    """The SHA-256 of the last line of an existing trail (``""`` when there is none),
    for the next line's ``prev`` (``last``: that line, read already). Raises
    :class:`TrailFileError` when the file does not end with a whole line: a chain cannot
    go on from a cut line."""
    last = last if last is not None else last_line(path)
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
        size = file.seek(0, os.SEEK_END)
        end, last = plain_end(file, size)
        if end < size:  # a cut line: what follows the last newline
            file.seek(end)
            return file.read()
        return last or None


def plain_end(file: IO[bytes], size: int) -> tuple[int, bytes]:
    """Where the whole lines of a plain trail of ``size`` bytes end (after its last
    newline), and the last of them (``(0, b"")``: no whole line)."""
    position, tail = size, b""
    while position > 0:
        step = min(_TAIL_CHUNK, position)
        position -= step
        file.seek(position)
        tail = file.read(step) + tail
        cut = tail.rfind(b"\n")
        if cut < 0:
            continue
        start = tail.rfind(b"\n", 0, cut)
        if start >= 0 or position == 0:
            return position + cut + 1, tail[start + 1 : cut + 1]
    return 0, b""


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


def _whole_lines(path: Path) -> Iterator[bytes]:
    """Each line of an existing trail (``path`` that of a regular file), uncompressed."""
    with gzip.open(path, "rb") if is_gzip(path) else path.open("rb") as file:
        yield from file


def _tree(path: Path, last: bytes | None) -> tuple[Frontier, Uncounted]:
    """The Merkle tree's frontier over the lines of the trail at ``path``, whose last line
    is ``last`` (none: a new file, or a device), and its records that no ``site`` line
    counts: from that line when it is a head (:func:`rep_engine.trail.heads.resumed`: the
    head's run counted every record before it), else from every line."""
    if last is None:
        return Frontier(), {}
    try:
        head = json.loads(last)
    except (ValueError, RecursionError):
        head = None
    tree = resumed(head if isinstance(head, dict) else None)
    if tree is not None:
        tree.add(leaf_hash(last))
        return tree, {}
    tree, uncounted = Frontier(), Uncounted()
    for line in _whole_lines(path):
        tree.add(leaf_hash(line))
        count_records(uncounted, line, tree.size)
    return tree, uncounted


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
    """Appends chained lines to the trail and stores snapshots beside it; after each end
    line, the run's ``site`` lines and its tree head. Every method may raise ``OSError``
    (a full disk): the caller decides what that means."""

    def __init__(self, path: Path, heads: HeadOptions | None = None) -> None:
        """``heads``: how its tree heads are signed and where else they go (none: unsigned,
        in the trail alone)."""
        self.path = path
        self.heads = heads or HeadOptions()
        if path.exists():
            check_trail(path)  # said before anything is created or read
        path.parent.mkdir(parents=True, exist_ok=True)
        self._gzip = is_gzip(path)
        # Unbuffered: each line is one write() of whole bytes.
        self._file = path.open("ab", buffering=0)
        try:
            lock(self._file, path)  # held until close(): no other crawl appends
            last = last_line(path)  # read under the lock
            self.prev = last_line_hash(path, last)
            #: The Merkle tree over every line of the file (its size: the lines), and the
            #: records of earlier runs no ``site`` line counts (written at the run's end).
            self.tree, self._uncounted = _tree(path, last)
            #: The SHA-256 of the file's first line (``""``: none yet): its checkpoints'
            #: origin is named after it (:func:`rep_engine.trail.heads.origin_of_trail`).
            self.first = hashlib.sha256(first_line(path) or b"").hexdigest() if last else ""
        except BaseException:
            self._file.close()
            raise
        status = os.fstat(self._file.fileno())
        self._key = (status.st_dev, status.st_ino)
        _HELD.add(self._key)
        self.snapshots = snapshot_dir(path)
        #: Lines written (by this writer: a file appended to holds its earlier runs' too).
        self.lines = 0
        #: The file held lines before this writer's: its lines are appended to them.
        self.appended = bool(self.prev)
        #: The run's records by site: how many, and the line of the last, as one number
        #: (``count * _PLACES + last``: one object a site, not three; a recheck of a
        #: million origins holds a million).
        self._sites: dict[str, int] = {}
        #: The last tree head written (``None``: none yet): its ``root`` is what the head
        #: file and a site's bundle hold, and what the crawl logs as it closes.
        self.last_head: dict[str, Any] | None = None

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` (its ``prev`` set here, and a record's ``site_prev``) as one
        line; after an ``end`` line, the run's ``site`` lines and its head."""
        kind = record.get("type")
        if kind in SITE_RECORDS:
            site = site_of(record.get("url"))
            counted = self._sites.get(site, 0)
            record["site_prev"] = counted % _PLACES
            self._sites[site] = counted - counted % _PLACES + _PLACES + self.tree.size + 1
        elif kind == "run":
            self._sites = {}
        self._append(record)
        if kind == "end":
            self._close_run(record)

    def _close_run(self, end: dict[str, Any]) -> None:
        """The ``site`` lines and the head of the run ``end`` ends (the head appended to
        ``REP_AUDIT_HEAD_FILE`` too); first, those of the records of earlier runs that no
        ``site`` line counts (a run of an earlier release, or killed before its end)."""
        run = end.get("run")
        sites = itertools.chain(
            ((of, site, count, last) for (of, site), (count, last) in self._uncounted.items()),
            ((run, site, *divmod(counted, _PLACES)) for site, counted in self._sites.items()),
        )  # read as written, never listed: a million sites are a million lines
        for of, site, count, last in sites:
            self._append({"type": "site", "run": of, "time": end.get("time"), "site": site,
                          "records": count, "last": last})  # fmt: skip
        self._sites, self._uncounted = {}, {}
        head = self.last_head = head_line(
            run, self.tree, self.heads, end.get("last_request"), self.first
        )
        self._append(head)
        if self.heads.file is not None:
            append_head(self.heads.file, self.path, head)

    def _append(self, record: dict[str, Any]) -> None:
        record["prev"] = self.prev
        line = (_ENCODE(record) + "\n").encode()  # encode_line's, inline: once per record
        data = _gzip_member(line) if self._gzip else line
        view = memoryview(data)
        while view:
            written = self._file.write(view)
            if not written:
                raise OSError("no bytes written")
            view = view[written:]
        self.prev = hashlib.sha256(line).hexdigest()
        self.first = self.first or self.prev
        self.tree.add(leaf_hash(line))
        self.lines += 1

    def next_hash(self, record: dict[str, Any]) -> str:
        """The SHA-256 the line of ``record`` will have if it is the next one written
        (:meth:`write` sets its ``prev`` to the same value): what a paused run keeps in
        ``JOBDIR`` of its end line before writing it, for the run that resumes it."""
        return hashlib.sha256((_ENCODE({**record, "prev": self.prev}) + "\n").encode()).hexdigest()

    def write_snapshot(self, sha256: str, body: bytes) -> None:
        """Store ``body`` as ``<trail>.d/<sha256>`` (whole or not at all; once)."""
        target = self.snapshots / sha256
        if target.exists():
            return
        self.snapshots.mkdir(parents=True, exist_ok=True)
        with replacing(target, ".tmp") as file:  # made new: no planted symlink followed
            file.write(body)

    def close(self) -> None:
        _HELD.discard(self._key)
        self._file.close()
