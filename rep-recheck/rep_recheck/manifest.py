"""The manifest of a folder of a recheck's outputs (pure; docs/recheck.md, "Several
files: shards"): the files a run wrote there, each as it was then (:func:`stamp`), so
that the next run removes only those of them it does not write again, unchanged
(:func:`rep_recheck.files.previous_outputs`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final, NamedTuple

from rep_engine.trail.file import replacing

#: The manifest of a folder of outputs: the files a recheck wrote there (hidden, so that
#: a folder read as a collection does not read it).
MANIFEST: Final = ".recheck-outputs.json"
#: What a manifest says wrote it.
WRITTEN_BY: Final = "scrapy_rep recheck"
#: The files a refusal of a folder names, at most (:func:`listed`).
NAMED: Final = 5


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


def unnamed(folder: Path, writing: Iterable[str], recorded: dict[str, list[Any]]) -> list[str]:
    """The names this run writes in ``folder`` (``writing``) that are taken there by a
    file its manifest (``recorded``) does not name as it is now (:func:`known`, but for
    its change time: a rename that failed puts the previous file back from its hard
    link, which gives it a new one): yours, one a run wrote before manifests, or a
    recheck's output replaced or edited since, which the shard's output would overwrite
    (none: an empty list)."""
    return [
        name
        for name in sorted(writing)
        if os.path.lexists(folder / name)
        and not known(recorded, name, stamp_of(folder / name), loose=True)
    ]


def listed(names: list[str]) -> str:
    """``names`` as a refusal says them: the first :data:`NAMED`, the others counted."""
    more = len(names) - NAMED
    return ", ".join(names[:NAMED]) + (f" and {more} more" if more > 0 else "")


def recorded(folder: Path) -> dict[str, list[Any]]:
    """The files a previous recheck wrote in ``folder``, by name: each stamp the
    manifest gives it (none: no manifest, or not one a recheck writes). Its ``files``
    are as the run wrote them (:func:`stamp`); its ``pending``, the files a run was
    putting in place (:func:`announce`) when it stopped before its manifest was whole."""
    found: dict[str, list[Any]] = {}
    for entries in _parts(folder):
        for name, stamp in entries.items():
            found.setdefault(name, []).append(stamp)
    return found


def _parts(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
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


def known(
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


def names(recorded: dict[str, list[Any]], name: str, stamp: list[int] | None) -> bool:
    """Whether ``recorded`` names the file ``name`` with ``stamp`` as a copy keeps it:
    its size and time (``cp -a``, ``rsync -a``, a move to another disk give it a new
    inode). Enough to know a file for a recheck's report, never to remove it
    (:func:`known`)."""
    if stamp is None:
        return False
    return any(
        isinstance(said, list) and said[:2] == stamp[:2] for said in recorded.get(name, ())
    )  # fmt: skip


def announce(folder: Path, putting: Iterable[tuple[str, Path]]) -> None:
    """``folder``'s manifest naming, besides what it named, the files this run is about to
    rename into place (``putting``: each name, and the temporary file renamed to it) as
    ``pending``: its size, time and inode, which the rename keeps (its change time, which
    the rename sets, ``null``). Written before the renames, it lets the next run know
    them as a recheck's when this one stops before its manifest is whole (a crash or a
    kill between two renames, a manifest that could not be written)."""
    files, pending = _parts(folder)
    pending = {**pending, **{name: [*stamp(temporary)[:3], None] for name, temporary in putting}}
    _replace(folder, {"written_by": WRITTEN_BY, "files": files, "pending": pending})


def write(folder: Path, written: Iterable[Path]) -> None:
    """``folder``'s manifest naming the files ``written`` there, replaced whole."""
    _replace(
        folder, {"written_by": WRITTEN_BY, "files": {path.name: stamp(path) for path in written}}
    )


def add(folder: Path, written: Iterable[Path]) -> None:
    """``folder``'s manifest naming the files ``written`` there beside those it named (a
    recheck's report written in a folder that is no folder of its outputs), its
    ``pending`` too (a stopped run's outputs, which the next run into the folder must
    know: :func:`announce`)."""
    files, pending = _parts(folder)
    files = {**files, **{path.name: stamp(path) for path in written}}
    _replace(folder, {"written_by": WRITTEN_BY, "files": files,
                      **({"pending": pending} if pending else {})})  # fmt: skip


def _replace(folder: Path, said: dict[str, Any]) -> None:
    with replacing(folder / MANIFEST) as file:  # made new: no planted symlink followed
        file.write((json.dumps(said, indent=1) + "\n").encode())
