"""Whether a file may be used for a trail (pure, standard library only): an existing one
only if it is a trail (:func:`check_is_trail`), an output path only if it can be written
or created before the crawl starts. :mod:`rep_engine.trail.file` writes the trail.

A file written under a temporary name and renamed over its path when whole (a recheck's
outputs and manifest, a trail's snapshots, a crawl's state in ``JOBDIR``) is made new
there (:func:`create_new`, :func:`replacing`): a path already at that name, such as a
symlink planted at a name guessed or a leftover, is never followed, truncated or
replaced; another name is drawn."""

from __future__ import annotations

import gzip
import json
import os
import secrets
import stat
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Final, TypeVar

_T = TypeVar("_T")
#: How a new file is opened: made, never one already there (:func:`create_new`).
_NEW: Final = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))  # fmt: skip
#: Names drawn before a folder is taken to make no new file (each is 48 random bits).
_DRAWS: Final = 100


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


def open_beside(final: Path, suffix: str = ".partial") -> tuple[IO[bytes], Path]:
    """A file made new beside ``final`` (``.NAME.<random>.partial``, hidden), open for
    writing ``final``'s content into until it is renamed over it: (the file, its path)."""
    descriptor, path = create_new(final.parent, f".{final.name}.", suffix)
    return os.fdopen(descriptor, "wb"), path


@contextmanager
def replacing(target: Path, suffix: str = ".partial") -> Iterator[IO[bytes]]:
    """A file open for writing that replaces ``target`` whole when the block ends: made
    new beside it (:func:`create_new`), renamed over it; removed if the block raises."""
    descriptor, temporary = create_new(target.parent, f".{target.name}.", suffix)
    try:
        with os.fdopen(descriptor, "wb") as file:
            yield file
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
