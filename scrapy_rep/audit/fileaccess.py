"""Whether a file may be used for a trail (pure, standard library only): an existing
file is one only if its first line is a trail's (:func:`check_is_trail`: an items feed
or another collection is refused, not appended to), and an output path must be one that
can be written or created before the crawl starts. :mod:`scrapy_rep.audit.file` writes
the trail, one writer at a time."""

from __future__ import annotations

import gzip
import json
import os
import stat
import zlib
from pathlib import Path
from typing import Final


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
