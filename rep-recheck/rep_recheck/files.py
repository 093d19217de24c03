"""The files a recheck reads and writes, kept apart (pure; docs/recheck.md, "What it
writes", "Several files: shards").

The DATASET arguments are the collection's files (:func:`expand`): each argument a file
(``-`` for standard input, read alone), a folder (its files whose name ends with a
dataset format's suffix, :data:`SUFFIXES`, sorted by name; not its subfolders), or a
pattern (``'shards/*.parquet'``, quoted so that the shell leaves it: expanded here,
``**`` too, sorted; the files it matches). A file named twice (by two arguments, or a
pattern and a path) is refused, as it would be counted twice. Named as several (more than
one argument, a folder, a pattern), the collection's items kept and removed (``--out``,
``--removed``) are written to a folder, one file per shard with the shard's own name and
format (:func:`output_of`): the shards' names must then differ. The WARCs of
``--documents`` are read alike (:func:`warc_files`): each a file, or a folder of them
(its ``.warc`` and ``.warc.gz`` files, sorted by name), each once.

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
(:data:`MANIFEST`) naming the files the run wrote there, each as it was then
(:func:`file_stamp`), so that the next run removes only those of them it does not write
again, unchanged. A file of a
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

import glob
import json
import os
import stat
import tempfile
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, NamedTuple

from rep_engine.trail.file import (
    TrailFileError,
    check_writable,
    link_beside,
    open_beside,
    replacing,
    same_file,
)
from rep_recheck.captures import WarcError
from rep_recheck.datasets import COMPRESSIONS, STDIN

#: The manifest of a folder of outputs: the files a recheck wrote there (hidden, so that
#: a folder read as a collection does not read it).
MANIFEST: Final = ".recheck-outputs.json"
#: What a manifest says wrote it.
WRITTEN_BY: Final = "scrapy_rep recheck"
#: The files a refusal of a folder names, at most (:func:`listed_names`).
NAMED: Final = 5


class Stale(NamedTuple):
    """A previous recheck's file in a folder of outputs, to remove once this run's are in
    place."""

    path: Path
    #: What its manifest said of it, and it was when checked (:func:`file_stamp`): a file
    #: that is no longer so is left.
    stamp: list[int]


def file_stamp(path: Path) -> list[int]:
    """What tells a file as a recheck wrote it from one changed or replaced since: size,
    time, and its inode and change time (which no copy keeps: ``cp -p``, ``rsync -t``
    and ``touch -d`` give the time, not these)."""
    status = path.stat()
    return [status.st_size, status.st_mtime_ns, status.st_ino, status.st_ctime_ns]


def stamp_of(path: Path) -> list[int] | None:
    """:func:`file_stamp` of ``path`` (``None``: gone, or not a regular file)."""
    try:
        return file_stamp(path) if path.is_file() else None
    except OSError:
        return None


def odd_folder(folder: Path, writing: Iterable[str]) -> str | None:
    """What makes ``folder`` no place for this run's outputs (``writing``: the names it
    writes there), said for a one-line error (``None``: nothing): a manifest that is not
    a regular file (a symlink, whose list would be made elsewhere; a folder, which the
    manifest cannot replace), or a file it writes that is a symlink (its target, outside
    the folder and no recheck's, would be replaced)."""
    where = folder / MANIFEST
    if os.path.lexists(where) and (where.is_symlink() or not where.is_file()):
        return f"its {MANIFEST} is not a file a recheck writes (a folder, a link)"
    for name in sorted(writing):
        if (folder / name).is_symlink():
            return (f"its {name} is a symlink (to {os.readlink(folder / name)}): this run "
                    "would replace that file")  # fmt: skip
    return None


def unnamed_outputs(
    folder: Path, writing: Iterable[str], recorded: dict[str, list[Any]]
) -> list[str]:
    """The names this run writes in ``folder`` (``writing``) that are taken there by a
    file its manifest (``recorded``) does not name as it is now (:func:`known_output`, but for
    its change time: a rename that failed puts the previous file back from its hard
    link, which gives it a new one): yours, one a run wrote before manifests, or a
    recheck's output replaced or edited since, which the shard's output would overwrite
    (none: an empty list)."""
    return [
        name
        for name in sorted(writing)
        if os.path.lexists(folder / name)
        and not known_output(recorded, name, stamp_of(folder / name), loose=True)
    ]


def listed_names(names: list[str]) -> str:
    """``names`` as a refusal says them: the first :data:`NAMED`, the others counted."""
    more = len(names) - NAMED
    return ", ".join(names[:NAMED]) + (f" and {more} more" if more > 0 else "")


def recorded_outputs(folder: Path) -> dict[str, list[Any]]:
    """The files a previous recheck wrote in ``folder``, by name: each stamp the
    manifest gives it (none: no manifest, or not one a recheck writes). Its ``files``
    are as the run wrote them (:func:`file_stamp`); its ``pending``, the files a run was
    putting in place (:func:`announce_outputs`) when it stopped before its manifest was whole."""
    found: dict[str, list[Any]] = {}
    for entries in _manifest_parts(folder):
        for name, stamp in entries.items():
            found.setdefault(name, []).append(stamp)
    return found


def _manifest_parts(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """``folder``'s manifest's ``files`` and ``pending`` (each empty where the manifest is
    missing, unreadable, or not one a recheck writes)."""
    try:
        said = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        said = None
    said = said if isinstance(said, dict) else {}
    files, pending = (part if isinstance(part := said.get(name), dict) else {}
                      for name in ("files", "pending"))  # fmt: skip
    return files, pending


def known_output(
    recorded: dict[str, list[Any]], name: str, stamp: list[int] | None, loose: bool = False
) -> bool:
    """Whether the file ``name`` with ``stamp`` (:func:`stamp_of`) is as a previous
    recheck left it (``recorded``): its stamp in ``files``, or, ``pending``, all of it but
    the change time, which the rename into place set (``loose``: ``files``' too)."""
    if stamp is None:
        return False
    return any(
        said == stamp or said == [*stamp[:3], None] or (loose and said[:3] == stamp[:3])
        for said in recorded.get(name, ())
        if isinstance(said, list)
    )


def named_as_copied(recorded: dict[str, list[Any]], name: str, stamp: list[int] | None) -> bool:
    """Whether ``recorded`` names the file ``name`` with ``stamp`` as a copy keeps it:
    its size and time (``cp -a``, ``rsync -a``, a move to another disk give it a new
    inode). Enough to know a file for a recheck's report, never to remove it
    (:func:`known_output`)."""
    if stamp is None:
        return False
    return any(
        isinstance(said, list) and said[:2] == stamp[:2] for said in recorded.get(name, ())
    )  # fmt: skip


def announce_outputs(folder: Path, putting: Iterable[tuple[str, Path]]) -> None:
    """``folder``'s manifest naming, besides what it named, the files this run is about to
    rename into place (``putting``: each name, and the temporary file renamed to it) as
    ``pending``: its size, time and inode, which the rename keeps (its change time, which
    the rename sets, ``null``). Written before the renames, it lets the next run know
    them as a recheck's when this one stops before its manifest is whole (a crash or a
    kill between two renames, a manifest that could not be written)."""
    files, pending = _manifest_parts(folder)
    pending = {
        **pending,
        **{name: [*file_stamp(temporary)[:3], None] for name, temporary in putting},
    }
    _replace_manifest(folder, {"written_by": WRITTEN_BY, "files": files, "pending": pending})


def write_manifest(folder: Path, written: Iterable[Path]) -> None:
    """``folder``'s manifest naming the files ``written`` there, replaced whole."""
    _replace_manifest(
        folder,
        {"written_by": WRITTEN_BY, "files": {path.name: file_stamp(path) for path in written}},
    )


def add_to_manifest(folder: Path, written: Iterable[Path]) -> None:
    """``folder``'s manifest naming the files ``written`` there beside those it named (a
    recheck's report written in a folder that is no folder of its outputs), its
    ``pending`` too (a stopped run's outputs, which the next run into the folder must
    know: :func:`announce_outputs`)."""
    files, pending = _manifest_parts(folder)
    files = {**files, **{path.name: file_stamp(path) for path in written}}
    _replace_manifest(folder, {"written_by": WRITTEN_BY, "files": files,
                      **({"pending": pending} if pending else {})})  # fmt: skip


def _replace_manifest(folder: Path, said: dict[str, Any]) -> None:
    with replacing(folder / MANIFEST) as file:  # made new: no planted symlink followed
        file.write((json.dumps(said, indent=1) + "\n").encode())


#: The names of a folder's files read as its shards: the line-based formats' (JSON Lines,
#: CSV), as they are or compressed whole (:data:`~rep_recheck.datasets.COMPRESSIONS`:
#: ``00000.jsonl.gz``, as datatrove's ``JsonlWriter`` writes its shards), and Parquet's.
_LINE_SUFFIXES: Final = (".jsonl", ".ndjson", ".csv")
SUFFIXES: Final = (
    *_LINE_SUFFIXES,
    ".parquet",
    *(f"{suffix}{compressed}" for compressed in COMPRESSIONS for suffix in _LINE_SUFFIXES),
)
#: :data:`SUFFIXES` as a message says them.
_SUFFIXES_SAID: Final = (f"{', '.join(_LINE_SUFFIXES)} (each {' or '.join(COMPRESSIONS)} too), "
                         ".parquet")  # fmt: skip
#: The names of a folder's files read as WARCs (``--documents FOLDER``): a WARC, and a
#: WARC compressed record by record (WARC 1.1, Annex D), as Common Crawl's are.
WARC_SUFFIXES: Final = (".warc", ".warc.gz")
#: How the first line of a recheck's ``--report`` starts (its keys, in order; with
#: several shards, ``shard`` first): a folder's or a pattern's file that starts so, and
#: that its folder's manifest names, is a report a run wrote there, not a shard (its
#: lines name a ``url`` each).
_REPORT_KEYS: Final = (("line", "url", "status"), ("shard", "line", "url", "status"))
#: What makes an argument a pattern (when no file has that name).
_MAGIC: Final = frozenset("*?[")


class ShardError(Exception):
    """The DATASET arguments name no collection that can be read: one line."""


@dataclass(frozen=True)
class Shards:
    """The files of a collection, in the order they are read."""

    #: Each shard's path as named (a folder's file: ``folder/name``; ``-``).
    paths: list[str]
    #: Named as several (more than one argument, a folder, a pattern): ``--out`` and
    #: ``--removed`` name folders, and the report and trail name each item's shard.
    several: bool
    #: The collection as named, for messages and the summary's title.
    label: str
    #: A folder's files that are not of a dataset format (not read).
    skipped: list[str] = field(default_factory=list)
    #: A folder's or a pattern's files that are a recheck's ``--report`` (not read).
    reports: list[str] = field(default_factory=list)
    #: The folder each pattern's matches are under (its parts before the first with a
    #: magic character), resolved: a later run of the pattern may read a file written
    #: there or below it (``'data/**/*.jsonl'`` a report in ``data/``).
    reached: list[Path] = field(default_factory=list)
    #: A folder's subfolders (not read: a pattern with ``**`` reads them).
    subfolders: list[str] = field(default_factory=list)


def _is_pattern(argument: str) -> bool:
    return bool(_MAGIC.intersection(argument)) and not os.path.lexists(argument)


def _is_report(path: str, manifests: dict[Path, dict[str, list[Any]]]) -> bool:
    """Whether ``path`` is a JSON Lines file a recheck wrote as its ``--report``: its
    folder's manifest names it as it is now, or a copy of it
    (:func:`named_as_copied`), and it starts as a report does. A user's
    shard whose records begin ``line,url,status`` is read. ``manifests``: each folder's
    read so far (read once: a folder of 50,000 outputs has a manifest naming them
    all)."""
    if not path.lower().endswith((".jsonl", ".ndjson")):
        return False
    where = Path(path)
    if where.parent not in manifests:
        manifests[where.parent] = recorded_outputs(where.parent)
    if not named_as_copied(manifests[where.parent], where.name, stamp_of(where)):
        return False
    try:
        with open(path, "rb") as file:
            first = json.loads(file.readline(1 << 16))
    except (OSError, ValueError):
        return False
    if not isinstance(first, dict):
        return False
    keys = tuple(first)
    return any(keys[: len(start)] == start for start in _REPORT_KEYS)


def _folder(folder: str, skipped: list[str], subfolders: list[str]) -> list[str]:
    """The shards of ``folder``: its files of a dataset format, by name (its other files
    added to ``skipped``, its subfolders to ``subfolders``)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as error:
        raise ShardError(f"{folder}: cannot list: {error.strerror or error}") from None
    found = []
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith("."):
            continue  # hidden (a recheck's own .NAME.PID.partial, its manifest)
        if os.path.isdir(path):
            subfolders.append(path)
            continue
        if name.lower().endswith(SUFFIXES):
            found.append(path)
        else:
            skipped.append(path)
    if not found:
        raise ShardError(f"{folder} holds no file of a dataset format ({_SUFFIXES_SAID}): "
                         "name its files, or a pattern")  # fmt: skip
    return found


@dataclass(frozen=True)
class Warcs:
    """The WARC files of ``--documents``, in the order they are read."""

    paths: list[str]
    #: A folder's files that are not WARCs (not read).
    skipped: list[str] = field(default_factory=list)
    #: A folder's subfolders (not read: a crawl's WARCs there, a newer crawl's
    #: captures, would not be read).
    subfolders: list[str] = field(default_factory=list)

    def not_read(self) -> list[str]:
        """What a run says of :attr:`skipped` and of :attr:`subfolders` (a line each, none
        when there are none), as of a dataset folder's."""
        said = []
        if self.skipped:
            suffixes = ", ".join(WARC_SUFFIXES)
            said.append(f"{len(self.skipped):,} file(s) of a folder of WARCs not read, not "
                        f"named as WARCs ({suffixes}): {shown(self.skipped)}")  # fmt: skip
        if self.subfolders:
            said.append(subfolders_not_read(self.subfolders, "WARCs"))
        return said


def shown(paths: Sequence[str]) -> str:
    """The first :data:`NAMED` of ``paths``, and ``…`` for the others."""
    return ", ".join(paths[:NAMED]) + (", …" if len(paths) > NAMED else "")


def subfolders_not_read(subfolders: Sequence[str], what: str) -> str:
    """What a run says of a folder's subfolders, which it does not read: ``what`` they
    may hold (a dataset's shards, a newer crawl's WARCs) is not decided, or not decided
    with."""
    return (f"{len(subfolders):,} subfolder(s) not read (only a folder's own {what} are: "
            f"name each subfolder too): {shown(subfolders)}")  # fmt: skip


def warc_files(named: str | Path | Sequence[str | Path]) -> Warcs:
    """The WARC files ``named`` (``--documents``, each given; the datatrove step's
    ``documents``): each a file, or a folder (its files named as WARCs,
    :data:`WARC_SUFFIXES`, sorted by name; not its subfolders nor its hidden files), each
    file once. Raises :class:`~rep_recheck.captures.WarcError` for a folder that holds
    none, and a file named twice (its captures would be read twice)."""
    given = [named] if isinstance(named, (str, Path)) else list(named)
    paths: list[str] = []
    skipped: list[str] = []
    subfolders: list[str] = []
    for argument in map(str, given):
        if not os.path.isdir(argument):
            paths.append(argument)
            continue
        try:
            names = sorted(os.listdir(argument))
        except OSError as error:
            raise WarcError(f"{argument}: cannot list: {error.strerror or error}") from None
        found: list[str] = []
        for name in names:
            path = os.path.join(argument, name)
            if name.startswith("."):
                continue
            if os.path.isdir(path):
                subfolders.append(path)
                continue
            (found if name.lower().endswith(WARC_SUFFIXES) else skipped).append(path)
        if not found:
            raise WarcError(f"{argument} holds no WARC file ({', '.join(WARC_SUFFIXES)}): "
                            "name its files")  # fmt: skip
        paths += found
    seen: dict[object, str] = {}
    for path in paths:
        key = _identity(path)
        if key in seen:
            raise WarcError(f"{path} is named twice (as {seen[key]}): each WARC is read once")
        seen[key] = path
    return Warcs(paths, skipped, subfolders)


def _identity(path: str) -> object:
    """What tells two names of one file apart from two files: (device, inode) where it
    exists (a symlink, a hard link, ``./``), else its resolved path."""
    try:
        status = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return status.st_dev, status.st_ino


def expand(arguments: Sequence[str]) -> Shards:
    """The shards the DATASET ``arguments`` name. Raises :class:`ShardError`."""
    arguments = list(arguments)
    if not arguments:
        raise ShardError("give a DATASET: a file, several, a folder or a quoted pattern")
    if STDIN in arguments and len(arguments) > 1:
        raise ShardError(f"{STDIN} (standard input) is read alone: name the files instead")
    paths: list[str] = []
    skipped: list[str] = []
    subfolders: list[str] = []
    reached: list[Path] = []
    named = set(arguments)  # a file named is read, whatever it holds
    several = len(arguments) > 1
    for argument in arguments:
        if argument != STDIN and os.path.isdir(argument):
            several = True
            paths += _folder(argument, skipped, subfolders)
        elif _is_pattern(argument):
            several = True
            reached.append(_literal_folder(argument))
            matched = sorted(
                path for path in glob.glob(argument, recursive=True) if not os.path.isdir(path)
            )
            if not matched:
                raise ShardError(f"{argument} matches no file")
            paths += matched
        else:
            paths.append(argument)
    manifests: dict[Path, dict[str, list[Any]]] = {}
    reports = [path for path in paths if path not in named and _is_report(path, manifests)]
    paths = [path for path in paths if path not in reports]
    if not paths:
        raise ShardError(f"{' '.join(arguments)} names only a recheck's reports "
                         f"({', '.join(reports)}): name the collection's files")  # fmt: skip
    seen: dict[object, str] = {}
    for path in paths:
        key = _identity(path)
        if key in seen:
            raise ShardError(f"{path} is named twice (as {seen[key]}): each shard is read once")
        seen[key] = path
    label = " ".join(arguments)
    return Shards(paths, several, label, skipped, reports, reached, subfolders=subfolders)


def _literal_folder(pattern: str) -> Path:
    """The folder under which ``pattern`` matches files: its parts before the first
    with a magic character, resolved."""
    parts = Path(pattern).parts
    literal = next((n for n, part in enumerate(parts) if _MAGIC.intersection(part)), len(parts))
    return Path(*parts[:literal]).resolve() if literal else Path.cwd()


def output_of(folder: str | Path, shard: str) -> Path:
    """Where a shard's kept (or removed) items are written under ``folder``: its name."""
    return Path(folder) / Path(shard).name


def check_folders(shards: Shards, outputs: Sequence[tuple[str, str]]) -> None:
    """With several shards, each of ``outputs`` (``(option, path)``: ``--out``,
    ``--removed``) must be a folder (or none yet), and no two shards may share a name
    there, case and Unicode normalization aside (one file on macOS and Windows). Raises
    :class:`ShardError`."""
    if not shards.several:
        return
    for option, folder in outputs:
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise ShardError(f"--{option} {folder}: with several shards --{option} names a "
                             "folder (one file per shard, named as the shard)")  # fmt: skip
        seen: dict[str, str] = {}
        for path in shards.paths:
            # one file where case or the Unicode normalization is ignored (macOS, Windows)
            name = unicodedata.normalize("NFC", Path(path).name).casefold()
            if name in seen:
                raise ShardError(f"--{option} {folder}: the shards {seen[name]} and {path} "
                                 f"would both be written to {output_of(folder, path)}: "
                                 "rename one")  # fmt: skip
            seen[name] = path


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
        a recheck's report, not a shard (:func:`expand`)."""
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
                    announce_outputs(folder, putting)
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
                add_to_manifest(folder, mine)
                continue
            write_manifest(folder, mine)
            for path, stamp in stale:
                if path.resolve() not in this_run and stamp_of(path) == stamp:
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
    manifest says it (:func:`file_stamp`), to be removed once
    this run's outputs are in place. Raises :class:`PathError` for any other (a later
    reader would take it for this run's output, and it is no recheck's to remove), for
    one of ``inputs`` (what it is, path: a shard read through a link to it), for an
    odd folder (:func:`odd_folder`), and for a file this run
    would write over that the manifest does not name as it is now
    (:func:`unnamed_outputs`: no recheck's to replace; all named)."""
    if not folder.is_dir():
        return []
    recorded, writing = recorded_outputs(folder), set(writing)
    if (odd := odd_folder(folder, writing)) is not None:
        raise PathError(f"--{option} {folder}: {odd}; move it, or name another folder")
    if taken := unnamed_outputs(folder, writing, recorded):
        them = "it" if len(taken) == 1 else "them"
        raise PathError(f"--{option} {folder}: holds {listed_names(taken)}, which this run "
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
        stamp = file_stamp(path)
        if not known_output(recorded, name, stamp):
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
