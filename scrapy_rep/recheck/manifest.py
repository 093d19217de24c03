"""The manifest of a folder of a recheck's outputs (pure; docs/recheck.md, "Several
files: shards"): the files a run wrote there, each as it was then (:func:`stamp`), so
that the next run removes only those of them it does not write again, unchanged
(:func:`scrapy_rep.recheck.files.previous_outputs`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final, NamedTuple

from scrapy_rep.audit.fileaccess import replacing

#: The manifest of a folder of outputs: the files a recheck wrote there (hidden, so that
#: a folder read as a collection does not read it).
MANIFEST: Final = ".recheck-outputs.json"


class Stale(NamedTuple):
    """A previous recheck's file in a folder of outputs, to remove once this run's are in
    place."""

    path: Path
    #: What its manifest said of it, and it was when checked (:func:`stamp`): a file
    #: that is no longer so is left.
    stamp: list[int]


def stamp(path: Path) -> list[int]:
    """What tells a file as a recheck wrote it from one changed or replaced since: size,
    time, and its inode and change time (which no copy keeps: ``cp -p``, ``rsync -t``
    and ``touch -d`` give the time, not these)."""
    status = path.stat()
    return [status.st_size, status.st_mtime_ns, status.st_ino, status.st_ctime_ns]


def stamp_of(path: Path) -> list[int] | None:
    """:func:`stamp` of ``path`` (``None``: gone, or not a regular file)."""
    try:
        return stamp(path) if path.is_file() else None
    except OSError:
        return None


def odd(folder: Path, writing: Iterable[str]) -> str | None:
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


def unnamed(folder: Path, writing: Iterable[str], recorded: dict[str, Any]) -> list[str]:
    """The names this run writes in ``folder`` (``writing``) that are taken there by a
    file its manifest (``recorded``) does not name as it is now (:func:`stamp`): yours,
    one a run wrote before manifests, or a recheck's output replaced or edited since,
    which the shard's output would overwrite (none: an empty list)."""
    return [
        name
        for name in sorted(writing)
        if os.path.lexists(folder / name) and recorded.get(name) != stamp_of(folder / name)
    ]


def recorded(folder: Path) -> dict[str, Any]:
    """The files a previous recheck wrote in ``folder``, by name (none: no manifest, or
    not one a recheck writes)."""
    try:
        files = json.loads((folder / MANIFEST).read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        return {}
    return files if isinstance(files, dict) else {}


def write(folder: Path, written: Iterable[Path]) -> None:
    """``folder``'s manifest naming the files ``written`` there, replaced whole."""
    files = {path.name: stamp(path) for path in written}
    text = json.dumps({"written_by": "scrapy_rep recheck", "files": files}, indent=1)
    with replacing(folder / MANIFEST) as file:  # made new: no planted symlink followed
        file.write((text + "\n").encode())
