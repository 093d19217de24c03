"""The audit trail's file (docs/audit-trail.md): JSON Lines chained by SHA-256, plain or
gzip-compressed, the snapshots beside it, and its tree heads. Standard library only, no
Scrapy.

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
  items feed, another collection) is refused, not appended to (:func:`check_trail`,
  :func:`check_is_trail`); an output path is used only if it can be written or created
  before the crawl starts (:func:`check_writable`, :func:`check_folder`).
- A file written under a temporary name and renamed over its path when whole (a
  recheck's outputs and manifest, a trail's snapshots, a crawl's state in ``JOBDIR``) is
  made new there (:func:`create_new`, :func:`replacing`): a path already at that name,
  such as a symlink planted at a name guessed or a leftover, is never followed,
  truncated or replaced; another name is drawn.

The tree heads and the sites' chains (docs/audit-trail.md, "Tree heads"). The trail is a
log in Certificate Transparency's sense (RFC 9162 §2.1): every line of the file, in
order, is a leaf of a Merkle tree (:mod:`rep_engine.trail.merkle`); the file keeps the
tree's frontier over every line, read back at open (from the last head, or from every
line when the trail does not end with one). Each run's end line is followed by

- a ``site`` line per origin whose records it wrote (``url``, ``file``, ``item``): how
  many, and the line of the last; each record names the line of its site's record before
  it in its run (``site_prev``, ``0``: its first). A site's records of a run are thus a
  chain that a bundle of that site (``audit bundle``) cannot leave a record out of
  unseen: one left out in the middle is named by the record after it, one at the end by
  the ``site`` line. The records of the trail that no ``site`` line counts yet (a run of
  an earlier release, which wrote none, or one killed before its end line) get theirs
  from the next run to end, before its own (:func:`count_records`): every record a head
  covers is counted by a ``site`` line before it;
- its ``head`` line: the number of lines before it (``size``), the Merkle root over them
  (``root``), the time, the roots of the tree's perfect subtrees (``frontier``: the
  next run goes on from them without reading the trail), and, when the operator gives
  ``REP_AUDIT_SIGNING_KEY``, the key's RFC 7638 thumbprint (``key``) and the head as a
  C2SP checkpoint signed with it (``checkpoint``: :mod:`rep_engine.trail.notes`), whose
  origin names the trail (:func:`origin_of_trail`). Heads written before checkpoints
  carry the Ed25519 signature (RFC 8032) of :func:`signed_message` instead
  (``signature``), still read.

The key is read by the writers (:mod:`rep_engine.keys`, above this floor): the file is
given its signing function (:class:`HeadOptions`).
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import os
import secrets
import stat
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final, TypeVar

from rep_engine.records import iso_time
from rep_engine.trail import notes
from rep_engine.trail.merkle import Frontier, leaf_hash
from rep_engine.urls.origins import OriginMemo

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


def lock(file: IO[bytes], path: Path, tries: int = LOCK_TRIES) -> None:
    """Take the exclusive lock of the trail open as ``file`` (a regular file; held until
    it is closed), or raise :class:`TrailFileError` when another process still holds it
    after ``tries`` tries (:data:`LOCK_PAUSE` apart). Devices (``/dev/null``) and
    platforms without ``fcntl`` are not locked."""
    if fcntl is None or not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
        return
    for tried in range(1, tries + 1):
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if tried == tries:
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
    counts: from that line when it is a head (:func:`resumed`: the
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
            #: origin is named after it (:func:`origin_of_trail`).
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


_T = TypeVar("_T")
#: How a new file is opened: made, never one already there (:func:`create_new`).
_NEW: Final = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))  # fmt: skip
#: Names drawn before a folder is taken to make no new file (each is 48 random bits).
_DRAWS: Final = 100


# Whether a file may be used for a trail, and files made new.


class TrailFileError(Exception):
    """The file cannot be used; the message says why, in a few words."""


def is_gzip(path: Path) -> bool:
    return path.name.endswith(".gz")


#: The types a trail's first line can have: the ``run`` header of its first run (or the
#: ``repair`` of a first line cut, which ``audit verify`` reports).
FIRST_TYPES: Final = ("run", "repair")
#: A first line at least this long is no trail's (a run line is a few KiB): it is not
#: read further.
_FIRST_LINE_MAX: Final = 1 << 24


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
        first = first_line(path)
    except OSError as error:
        raise TrailFileError(f"{path} cannot be read back ({error.strerror})") from None
    if first is None:
        return
    if first.endswith(b"\n"):
        try:
            record = json.loads(first)
        except (ValueError, RecursionError):  # UnicodeDecodeError too
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


def first_line(path: Path) -> bytes | None:
    """The first line of the trail at ``path`` (``None``: empty, or its first gzip member
    cut); raises ``OSError``, and :class:`TrailFileError` for a ``.gz`` of no gzip data."""
    return _first_gzip_line(path) if is_gzip(path) else _first_plain_line(path)


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


def same_file(one: Path, other: Path) -> bool:
    """Whether ``one`` and ``other`` name the same file: the same device and inode where
    both exist (symlinks followed, hard links), else the same resolved path."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return one.resolve() == other.resolve()


def check_writable(path: Path) -> None:
    """Raise :class:`TrailFileError` unless ``path`` can be appended to, or created (with
    its missing folders). Creates nothing. A file without any write permission bit counts
    as read-only even for root."""
    if path.is_dir():
        raise TrailFileError(f"{path} is a directory")
    if path.exists():
        mode = path.stat().st_mode
        if stat.S_ISREG(mode) and not mode & 0o222:
            raise TrailFileError(f"{path} is read-only")
        try:
            with path.open("ab"):
                pass
        except OSError as error:
            raise TrailFileError(f"{path} cannot be written ({error.strerror})") from None
        return
    _check_creatable(path)


def check_folder(path: Path) -> None:
    """Raise :class:`TrailFileError` unless files can be written in the folder ``path``
    (made with its missing parents if need be). Creates nothing."""
    if path.exists():
        if not path.is_dir():
            raise TrailFileError(f"{path} is not a folder")
        if not _writable(path):
            raise TrailFileError(f"{path} is not writable")
        return
    _check_creatable(path)


def _check_creatable(path: Path) -> None:
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise TrailFileError(f"{path} is under {parent}, which is not a folder")
    if not _writable(parent):
        raise TrailFileError(f"{path} cannot be created: {parent} is not writable")


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK) and bool(folder.stat().st_mode & 0o222)


def made_new(folder: Path, prefix: str, suffix: str, make: Callable[[Path], _T]) -> _T:
    """What ``make`` gives for a new name in ``folder`` (``prefix``, 12 random hex digits,
    ``suffix``), drawn again while ``make`` finds that name taken (``FileExistsError``):
    ``make`` must create the path exclusively (``O_EXCL``, :func:`os.link`)."""
    for _ in range(_DRAWS):
        try:
            return make(folder / f"{prefix}{secrets.token_hex(6)}{suffix}")
        except FileExistsError:
            continue
    raise FileExistsError(f"{folder}: no new file {prefix}…{suffix} could be made there")


def create_new(folder: Path, prefix: str, suffix: str) -> tuple[int, Path]:
    """A file made new in ``folder`` (:func:`made_new`), open for writing: (its
    descriptor, its path). A path already there (a symlink, even one to nowhere) is
    never opened. Its mode is ``0o666`` less the umask, as any file ``open`` makes."""
    return made_new(folder, prefix, suffix, lambda path: (os.open(path, _NEW, 0o666), path))


def link_new(source: Path, prefix: str, suffix: str) -> Path:
    """A hard link to ``source`` made new beside it (:func:`made_new`): its path."""

    def link(path: Path) -> Path:
        os.link(source, path)
        return path

    return made_new(source.parent, prefix, suffix, link)


def link_beside(final: Path) -> Path | None:
    """A hard link to the file ``final``, made new beside it (``.NAME.<random>.previous``)
    to put it back with (``None``: not a regular file, or no hard link can be made
    there: it cannot be put back)."""
    try:
        if not stat.S_ISREG(final.stat().st_mode):
            return None
        return link_new(final, f".{final.name}.", ".previous")
    except OSError:
        return None


def open_beside(final: Path) -> tuple[IO[bytes], Path]:
    """A file made new beside ``final`` (``.NAME.<random>.partial``, hidden), open for
    writing ``final``'s content into until it is renamed over it: (the file, its path)."""
    descriptor, path = create_new(final.parent, f".{final.name}.", ".partial")
    return os.fdopen(descriptor, "wb"), path


@contextmanager
def replacing(target: Path, suffix: str = ".partial", synced: bool = False) -> Iterator[IO[bytes]]:
    """A file open for writing that replaces ``target`` whole when the block ends: made
    new beside it (:func:`create_new`), renamed over it; removed if the block raises.
    ``synced``: on disk when the block ends, the file before it is renamed, then the
    folder that names it (:func:`sync_folder`): a crash loses neither."""
    descriptor, temporary = create_new(target.parent, f".{target.name}.", suffix)
    try:
        with os.fdopen(descriptor, "wb") as file:
            yield file
            if synced:
                file.flush()
                os.fsync(file.fileno())
        os.replace(temporary, target)
        if synced:
            sync_folder(target.parent)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def sync_folder(folder: Path) -> None:
    """The names of ``folder`` on disk (``fsync`` of the folder: POSIX makes a rename
    durable only so). Windows opens no folder, and its file systems keep names otherwise."""
    if os.name == "nt":
        return
    descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


# The tree heads and the sites' chains.

#: What a head's signature was over, before its size, root and time, before checkpoints.
SIGNED_PREFIX: Final = b"scrapy_rep tree head v1\n"
#: The records of a site, chained by ``site_prev`` and counted by its ``site`` line.
SITE_RECORDS: Final = frozenset({"url", "file", "item"})
_ORIGINS: Final = OriginMemo()


def signed_message(size: int, root: str, time: str) -> bytes:
    """The bytes a head's signature was over before checkpoints: the prefix, then its
    ``size``, ``root`` (hex) and ``time``, each on a line of its own."""
    return SIGNED_PREFIX + f"{size}\n{root}\n{time}\n".encode()


def site_of(url: Any) -> str:
    """The site (origin, ``https://example.com``) a record of ``url`` belongs to; ``""``
    for a URL of no origin (a ``data:`` URL, none)."""
    origin = _ORIGINS.get(url) if isinstance(url, str) else None
    return str(origin) if origin is not None else ""


@dataclass(frozen=True)
class HeadOptions:
    """How the heads are written: signed by ``sign`` (``None``: unsigned) with the key
    named ``key`` (its thumbprint) whose raw public key is ``public``, as checkpoints of
    the log ``origin`` (``""``: :func:`origin_of_trail`'s), and appended to ``file``
    too (``None``: not)."""

    sign: Callable[[bytes], bytes] | None = None
    key: str | None = None
    file: Path | None = None
    public: bytes = b""
    origin: str = ""


def origin_of_trail(key: str, first_line: str) -> str:
    """The origin of a trail's checkpoints when ``REP_AUDIT_LOG_ORIGIN`` names none: the
    signing key's thumbprint and the start of the SHA-256 of the trail's first line
    (``first_line``, hex: the ``prev`` of its second), so that two trails of one key are
    two logs to a witness, and a copy of a trail is the same log."""
    return f"rep-audit/{key}/{first_line[:16]}"


#: The records of each run and site that no ``site`` line has counted yet: how many, and
#: the line of the last.
Uncounted = dict[tuple[str, str], tuple[int, int]]


def count_records(uncounted: Uncounted, line: bytes, number: int) -> None:
    """The trail's line ``number`` (``line``, as read) counted in ``uncounted``: a record
    added to its run and site, a ``site`` line taking its run and site out. A line that is
    no JSON object is passed over (``audit verify`` names it)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return
    if not isinstance(record, dict):
        return
    kind, run = record.get("type"), str(record.get("run", ""))
    if kind in SITE_RECORDS:
        key = (run, site_of(record.get("url")))
        uncounted[key] = (uncounted.get(key, (0, 0))[0] + 1, number)
    elif kind == "site":
        uncounted.pop((run, str(record.get("site", ""))), None)


def head_line(
    run: Any, tree: Frontier, options: HeadOptions, last_request: Any, first_line: str
) -> dict[str, Any]:
    """The ``head`` line over the lines of ``tree``; ``last_request``: the end line's, said
    again so that a crawl appending to the trail reads it from its last line;
    ``first_line``: the SHA-256 of the trail's first line (its origin's, by default)."""
    time, root = iso_time(), tree.root()
    checkpoint = None
    if options.sign is not None:
        origin = options.origin or origin_of_trail(str(options.key), first_line)
        text = notes.checkpoint_text(origin, tree.size, root)
        signature = options.sign(text.encode())
        key = notes.key_id(origin, notes.ED25519, options.public)
        checkpoint = f"{text}\n{notes.signature_line(origin, key, signature)}"
    return {"type": "head", "run": run, "time": time, "size": tree.size, "root": root.hex(),
            "frontier": [node.hex() for node in tree.roots()], "key": options.key,
            "checkpoint": checkpoint, "last_request": last_request}  # fmt: skip


def append_head(file: Path, trail: Path, head: dict[str, Any]) -> None:
    """``head`` appended to the head file as one JSON line naming the trail (its absolute
    path), without its ``frontier`` and ``prev``. Raises ``OSError`` naming the setting."""
    kept = {k: v for k, v in head.items() if k not in ("frontier", "prev", "last_request")}
    line = json.dumps({"trail": str(trail.absolute()), **kept}) + "\n"
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        with file.open("a", encoding="utf-8") as out:
            out.write(line)
    except OSError as error:
        raise OSError(f"REP_AUDIT_HEAD_FILE {file}: {error.strerror or error}") from None


def resumed(last: dict[str, Any] | None) -> Frontier | None:
    """The tree of the lines before ``last``, a trail's last line, from its ``frontier``
    when it is a head whose frontier gives its root (``None``: it is not; the trail is
    read again)."""
    if last is None or last.get("type") != "head":
        return None
    size, roots = last.get("size"), last.get("frontier")
    if type(size) is not int or size < 0 or not isinstance(roots, list):
        return None
    try:
        tree = Frontier.resumed(size, [bytes.fromhex(root) for root in roots])
    except (TypeError, ValueError):
        return None
    return tree if tree is not None and tree.root().hex() == last.get("root") else None
