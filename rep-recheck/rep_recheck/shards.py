"""A collection in several files (shards), as the DATASET arguments of ``recheck`` name
it (pure; docs/recheck.md, "Several files: shards").

Each argument is a file (``-`` for standard input, read alone), a folder (its files
whose name ends with a dataset format's suffix, :data:`SUFFIXES`, sorted by name; not
its subfolders), or a pattern (``'shards/*.parquet'``, quoted so that the shell leaves
it: expanded here, ``**`` too, sorted; the files it matches). A file named twice (by two
arguments, or a pattern and a path) is refused, as it would be counted twice.

Named as several (more than one argument, a folder, a pattern), the collection's items
kept and removed (``--out``, ``--removed``) are written to a folder, one file per shard
with the shard's own name and format (:func:`output_of`): the shards' names must then
differ.
"""

from __future__ import annotations

import glob
import json
import os
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from rep_recheck import manifest
from rep_recheck.datasets import STDIN

#: The names of a folder's files read as its shards (a ``.gz`` is read as a compressed
#: trail, so a folder's are not: name them, or a pattern).
SUFFIXES: Final = (".jsonl", ".ndjson", ".csv", ".parquet")
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


def _is_pattern(argument: str) -> bool:
    return bool(_MAGIC.intersection(argument)) and not os.path.lexists(argument)


def _is_report(path: str, manifests: dict[Path, dict[str, list[Any]]]) -> bool:
    """Whether ``path`` is a JSON Lines file a recheck wrote as its ``--report``: its
    folder's manifest names it as it is now, or a copy of it
    (:func:`~rep_recheck.manifest.names`), and it starts as a report does. A user's
    shard whose records begin ``line,url,status`` is read. ``manifests``: each folder's
    read so far (read once: a folder of 50,000 outputs has a manifest naming them
    all)."""
    if not path.lower().endswith((".jsonl", ".ndjson")):
        return False
    where = Path(path)
    if where.parent not in manifests:
        manifests[where.parent] = manifest.recorded(where.parent)
    if not manifest.names(manifests[where.parent], where.name, manifest.stamp_of(where)):
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


def _folder(folder: str, skipped: list[str]) -> list[str]:
    """The shards of ``folder``: its files of a dataset format, by name."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as error:
        raise ShardError(f"{folder}: cannot list: {error.strerror or error}") from None
    found = []
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith(".") or os.path.isdir(path):
            continue  # hidden (a recheck's own .NAME.PID.partial), a subfolder
        if name.lower().endswith(SUFFIXES):
            found.append(path)
        else:
            skipped.append(path)
    if not found:
        raise ShardError(f"{folder} holds no file of a dataset format ({', '.join(SUFFIXES)}): "
                         "name its files, or a pattern")  # fmt: skip
    return found


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
    reached: list[Path] = []
    named = set(arguments)  # a file named is read, whatever it holds
    several = len(arguments) > 1
    for argument in arguments:
        if argument != STDIN and os.path.isdir(argument):
            several = True
            paths += _folder(argument, skipped)
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
    return Shards(paths, several, label, skipped, reports, reached)


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
