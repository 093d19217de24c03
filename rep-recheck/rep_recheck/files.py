"""The files a recheck reads and writes, kept apart (pure; docs/recheck.md, "What it
writes").

Before anything is read or fetched, every output (``--out``, ``--removed``,
``--report``, ``--summary``, ``--trail``) is checked against every input (the dataset,
the WARC) and against the other outputs: the same file, by its resolved path or, where
it exists, by device and inode (a symlink, a hard link, ``./`` or ``..`` in the path),
is refused, as is an output that cannot be written. A dataset read from standard input
(``-``) is the file standard input reads (``recheck - < items.jsonl``): an output naming
that file, or naming standard input itself (``/dev/stdin``, ``/proc/self/fd/0``), is
refused too. A careless path can then never empty the collection it was to filter,
overwrite the WARC, or make the trail read its own lines back.

The outputs are written under a temporary name made new beside the file they become
(:class:`Staged`; a symlink planted at a name is never followed) and renamed over it
once all are whole: a run that stops half-way (an error, Ctrl-C) leaves no output that
looks whole, and the file it would have replaced as it was. The renames are one by one:
one that fails puts back the files renamed before it and the manifest (each kept as a
hard link until all are in place); only a crash between two renames leaves some new and
some old, which the folder's manifest, written last, tells apart (and, before, ``pending``).
The trail is the exception: it is appended to in place, as a hash chain is.

A folder of outputs (``--out`` and ``--removed`` of several shards) gets a manifest
(:mod:`~rep_recheck.manifest`) naming the files the run wrote there. A file of a
dataset format in it that the run does not write (a shard of the previous run that this
one lacks) would be taken for this run's: it is removed once this run's are in place
when a previous recheck's manifest names it as it is now (size, time, inode and change
time: a copy given the same size and time is another file) and it is still so then,
and otherwise the run stops before work (:func:`previous_outputs`): a file no recheck wrote is never
removed, nor one this run reads (a shard through a link) or writes (its report, trail).
Nor is one written over: a file of a shard's output name there that the manifest does
not name as it is now (none: a folder of yours; an output edited since) stops the run too.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Final

from rep_engine.trail.file import (
    TrailFileError,
    check_writable,
    link_beside,
    open_beside,
    same_file,
)
from rep_recheck import manifest
from rep_recheck.manifest import MANIFEST as MANIFEST  # read from here too
from rep_recheck.manifest import Stale as Stale

#: The options that name an output, in the order they are checked.
OUTPUTS: Final = ("out", "removed", "report", "summary", "trail")
#: Names of the process's standard input (Linux, the BSDs, macOS): an output so named,
#: the dataset read from standard input, is the dataset, whatever standard input is.
STDIN_NAMES: Final = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0",
                                "/proc/thread-self/fd/0"})  # fmt: skip


class PathError(Exception):
    """An output that would destroy an input, or cannot be written: one line."""


def stdin_file(descriptor: int) -> tuple[int, int] | None:
    """(device, inode) of the file open as ``descriptor`` (standard input: 0) when an
    output could name it and so replace it: a regular file (``< items.jsonl``) or a FIFO.
    ``None`` for a terminal (often the standard output as well, which may be written)
    or a closed descriptor."""
    try:
        status = os.fstat(descriptor)
    except OSError:
        return None
    if stat.S_ISREG(status.st_mode) or stat.S_ISFIFO(status.st_mode):
        return status.st_dev, status.st_ino
    return None


def names_stdin(path: Path, stdin: tuple[int, int] | None) -> bool:
    """Whether the output ``path`` is standard input: one of its names
    (:data:`STDIN_NAMES`, ``/proc/PID/fd/0``), or the file it reads (``stdin``, from
    :func:`stdin_file`), by device and inode, whatever the path (a symlink, a hard
    link, ``/proc/self/fd/0``)."""
    if os.path.abspath(path) in STDIN_NAMES | {f"/proc/{os.getpid()}/fd/0"}:
        return True
    if stdin is None:
        return False
    try:
        status = path.stat()
    except OSError:
        return False  # new: not the file standard input reads
    return (status.st_dev, status.st_ino) == stdin


def _writable(option: str, path: Path) -> None:
    """Raise :class:`PathError` unless ``path`` can be written (or created, with its
    missing folders). Opens nothing that is not a regular file (a FIFO would block)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = 0
    if mode and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        if not os.access(path, os.W_OK):
            raise PathError(f"--{option} {path}: cannot be written")
        return
    try:
        check_writable(path)
    except TrailFileError as error:
        raise PathError(f"--{option} {error}") from None
    if mode and stat.S_ISREG(mode) and option != "trail":
        _folder_writable(option, path)


def _folder_writable(option: str, path: Path) -> None:
    """Raise :class:`PathError` unless a file can be made beside the existing ``path``
    (its output is written under a temporary name there, then renamed over it): its
    folder has a write bit (read, as root ignores it for ``os.access``), and a file is
    made there and removed (a read-only file system, an ACL)."""
    folder = path.resolve().parent
    refused = PathError(f"--{option} {path}: its folder {folder} is not writable")
    try:
        if not folder.stat().st_mode & 0o222 or not os.access(folder, os.W_OK | os.X_OK):
            raise refused
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{path.name}.", suffix=".probe"):
            pass
    except OSError:
        raise refused from None


def check_paths(
    inputs: Iterable[tuple[str, Path]],
    outputs: Iterable[tuple[str, Path]],
    stdin: int | None = None,
) -> None:
    """Every output against every input and every other output, and writable. ``inputs``:
    (what it is, path), such as ``("the dataset", Path("items.jsonl"))``; ``outputs``:
    (option, path); ``stdin``: the descriptor the dataset is read from when it is
    standard input (``-``: 0), an input too (:func:`names_stdin`). Raises
    :class:`PathError` naming the option and both paths."""
    inputs, outputs = list(inputs), list(outputs)
    read = stdin_file(stdin) if stdin is not None else None
    for number, (option, path) in enumerate(outputs):
        if stdin is not None and names_stdin(path, read):
            raise PathError(
                f"--{option} {path} is the dataset (standard input): writing it would "
                "destroy what the recheck reads; name another file"
            )
        for what, source in inputs:
            if same_file(path, source):
                raise PathError(
                    f"--{option} {path} is {what} ({source}): writing it would destroy "
                    f"what the recheck reads; name another file"
                )
        for other, earlier in outputs[:number]:
            if same_file(path, earlier):
                raise PathError(f"--{option} {path} is also --{other} ({earlier}): name "
                                "another file")  # fmt: skip
        _writable(option, path)


class Staged:
    """Outputs written under a temporary name and renamed over their path when all are
    whole (:meth:`commit`); :meth:`discard` removes what was written. A path that is not
    a regular file (``/dev/stdout``, a FIFO) is written as it is."""

    def __init__(self) -> None:
        #: (temporary path, final path) of each output.
        self._files: list[tuple[Path, Path]] = []
        #: Each folder of outputs that gets a manifest, and the previous run's files in
        #: it to remove (:func:`previous_outputs`); ``None``: a folder the run writes
        #: its report in, whose manifest names it beside what it named.
        self._folders: dict[Path, list[Stale] | None] = {}

    def folder(self, folder: str | Path, stale: Sequence[Stale] = ()) -> None:
        """``folder`` holds outputs: once they are in place, a manifest names them and
        ``stale`` is removed (nothing, when none of this run's outputs is written there)."""
        self._folders[Path(folder).resolve()] = list(stale)

    def report(self, path: str | Path) -> None:
        """The report at ``path`` named by its folder's manifest once in place, beside
        what the manifest named (a folder of outputs' manifest names it with them): the
        one sign by which a later run that reads the folder as a collection knows it for
        a recheck's report, not a shard (:func:`rep_recheck.shards.expand`)."""
        final = Path(path)
        if final.exists() and not final.is_file():
            return  # a device or a FIFO: written as it is, in no folder of outputs
        self._folders.setdefault(final.resolve().parent, None)

    def open(self, path: str | Path) -> IO[bytes]:
        """The output for ``path`` open for writing until it is whole: made new beside it
        (:func:`~rep_engine.trail.file.open_beside`), never opened again by name (a
        co-user who can write the folder could swap it)."""
        final = Path(path)
        if final.exists() and not final.is_file():
            return final.open("wb")  # a device or a FIFO: never renamed over
        final = final.resolve()  # a symlink's target is replaced, not the link
        final.parent.mkdir(parents=True, exist_ok=True)
        file, temporary = open_beside(final)  # never a path already there (a planted symlink)
        self._files.append((temporary, final))
        return file

    def commit(self) -> None:
        """Every output renamed over its path, or none: a rename that fails puts back the
        files renamed before it and removes the rest (and raises). Then each folder's
        manifest (named ``pending`` there before), and its previous run's files removed."""
        done: list[tuple[Path, Path | None, bool]] = []  # (final, its backup, it existed)
        try:
            for folder in self._folders:  # named before the renames: a stop between is known
                putting = [(final.name, temporary) for temporary, final in self._files
                           if final.parent == folder and temporary.exists()]  # fmt: skip
                if putting:
                    done.append(_kept(folder / MANIFEST))  # put back as it was on failure
                    manifest.announce(folder, putting)
            for temporary, final in self._files:
                if temporary.exists():
                    kept = _kept(final)
                    try:
                        os.replace(temporary, final)
                    except BaseException:
                        if kept[1] is not None:
                            kept[1].unlink(missing_ok=True)
                        raise
                    done.append(kept)
        except BaseException:
            for final, backup, existed in reversed(done):
                if backup is not None:
                    os.replace(backup, final)
                elif not existed:
                    final.unlink(missing_ok=True)
            self.discard()
            raise
        for _, backup, _ in done:
            if backup is not None:
                backup.unlink(missing_ok=True)
        self._files.clear()
        self._close_folders([final for final, _, _ in done if final.name != MANIFEST])

    def _close_folders(self, written: list[Path]) -> None:
        """Each folder's manifest of the outputs ``written`` in it, then its previous
        run's files removed (a folder none was written in is left as it was): never one
        this run wrote, nor one changed since it was checked."""
        this_run = {path.resolve() for path in written}
        for folder, stale in self._folders.items():
            mine = [path for path in written if path.parent == folder]
            if not mine:
                continue
            if stale is None:
                manifest.add(folder, mine)
                continue
            manifest.write(folder, mine)
            for path, stamp in stale:
                if path.resolve() not in this_run and manifest.stamp_of(path) == stamp:
                    path.unlink(missing_ok=True)
        self._folders.clear()

    def discard(self) -> None:
        """Every output not committed removed."""
        for temporary, _ in self._files:
            temporary.unlink(missing_ok=True)
        self._files.clear()


def previous_outputs(
    option: str,
    folder: Path,
    writing: Iterable[str],
    suffixes: Sequence[str],
    inputs: Sequence[tuple[str, Path]] = (),
    outputs: Sequence[Path] = (),
) -> list[Stale]:
    """The files of a dataset format (``suffixes``) in the output ``folder`` that this run
    does not write (``writing``: the names it writes; ``outputs``: its other outputs, a
    report or trail there): each must be one a previous recheck wrote there, as its
    manifest says it (:func:`~rep_recheck.manifest.stamp`), to be removed once
    this run's outputs are in place. Raises :class:`PathError` for any other (a later
    reader would take it for this run's output, and it is no recheck's to remove), for
    one of ``inputs`` (what it is, path: a shard read through a link to it), for an
    odd folder (:func:`~rep_recheck.manifest.odd`), and for a file this run
    would write over that the manifest does not name as it is now
    (:func:`~rep_recheck.manifest.unnamed`: no recheck's to replace; all named)."""
    if not folder.is_dir():
        return []
    recorded, writing = manifest.recorded(folder), set(writing)
    if (odd := manifest.odd(folder, writing)) is not None:
        raise PathError(f"--{option} {folder}: {odd}; move it, or name another folder")
    if taken := manifest.unnamed(folder, writing, recorded):
        them = "it" if len(taken) == 1 else "them"
        raise PathError(f"--{option} {folder}: holds {manifest.listed(taken)}, which this run "
                        f"would write and no {MANIFEST} there names as a recheck's as it is "
                        f"now: remove {them}, or name another folder")  # fmt: skip
    stale = []
    for name in sorted(os.listdir(folder)):
        path = folder / name
        if name.startswith(".") or name in writing or not name.lower().endswith(tuple(suffixes)):
            continue
        if not path.is_file() or any(same_file(path, output) for output in outputs):
            continue
        for what, source in inputs:
            if same_file(path, source):
                raise PathError(f"--{option} {folder}: holds {name}, which this run does not "
                                f"write and reads ({what}, {source}): name another "
                                "folder")  # fmt: skip
        stamp = manifest.stamp(path)
        if not manifest.known(recorded, name, stamp):
            raise PathError(f"--{option} {folder}: holds {name}, which this run does not "
                            "write and no recheck wrote there as it is now: it would be taken "
                            "for this run's output; move it, or name another folder")  # fmt: skip
        stale.append(Stale(path, stamp))
    return stale


def _kept(final: Path) -> tuple[Path, Path | None, bool]:
    """``final``, a hard link to it to put it back with (``None``: none, or not a regular
    file: :func:`~rep_engine.trail.file.link_beside`), and whether it existed."""
    existed = final.exists()
    return final, link_beside(final) if existed else None, existed
