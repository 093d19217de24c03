"""Who may write a trail file, and where (pure, standard library only): one writer at a
time, which holds an exclusive ``flock`` on the trail while it writes (:func:`lock`; a
second crawl on the same file is refused at its start: two chains written into one file
would read as tampering), and whether an output path can be written or created before
the crawl starts. :mod:`scrapy_rep.audit.file` writes the trail."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import IO, Final

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock
    fcntl = None  # type: ignore[assignment]


class TrailFileError(Exception):
    """The file cannot be used; the message says why, in a few words."""


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


#: Why a locked trail cannot be written.
LOCKED: Final = "is being written by another crawl (it is locked): a trail has one writer at a time"


#: (device, inode) of the trails this process's writers hold locked.
HELD: Final[set[tuple[int, int]]] = set()


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
        if (status.st_dev, status.st_ino) not in HELD:
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
    return (status.st_dev, status.st_ino) in HELD


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
