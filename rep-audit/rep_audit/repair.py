"""``audit repair TRAIL``: a trail cut in the middle of a line (a full disk, a power cut,
a crash while a line was written) made usable again, so that the next crawl can chain
on, without making it look whole (pure: standard library and the trail's own modules).

The whole lines are kept as they are (their chain untouched); the bytes of the cut line
are dropped from the end of the file, and a ``repair`` line is appended in their place,
chained on the last whole line. A ``.gz`` trail keeps its whole members (one per line)
and drops the cut one. The trail's lock is held while it is done: a trail a crawl is
writing is not repaired.

What the repair line may claim is only what the repair saw (docs/audit-trail.md,
"``repair``: a cut made whole"): when it was written, how many bytes it dropped and
their SHA-256 (a copy kept elsewhere can be matched against them), how many whole lines
it kept (its ``prev`` is the hash of the last), and the runs then still open, without
their ``end`` line. It cannot know what the dropped bytes held, nor whether whole lines
went before them (lines cut at a line boundary leave no trace in the chain): the open
runs are what it cannot account for, and ``verify`` keeps reporting them as problems.
A repair that follows no run left open (junk after whole runs, the cut first line of a
run) accounts for no line of a run: ``verify`` reports the repair itself.

Refused (:func:`repair`), the file left as it was, byte for byte: a file that is not a
trail, a ``.gz`` trail damaged inside rather than cut at its end, a locked trail.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

from rep_engine.records import iso_time
from rep_engine.trail.file import TrailFileError, encode_line, is_gzip, lock, plain_end
from rep_engine.trail.lines import package_version
from rep_engine.trail.read import TYPES, GzipEnd, TrailError, gzip_members, json_object

#: The type of the line that records a repair.
REPAIR: Final = "repair"
_CHUNK: Final = 1 << 20
#: The first bytes of a gzip member (magic, deflate).
_GZIP_MAGIC: Final = b"\x1f\x8b\x08"


@dataclass(frozen=True)
class Repaired:
    """What :func:`repair` did."""

    #: Bytes dropped from the end of the file (0: nothing was cut, nothing written).
    dropped: int
    #: The ``repair`` line appended (``None`` when nothing was cut).
    record: dict[str, Any] | None
    #: The runs without their ``end`` line when the cut was dropped (what the repair
    #: cannot account for; ``verify`` reports each).
    open_runs: tuple[str, ...] = ()
    #: Whether the last whole line is of a run left open, the one place a repair line is
    #: valid (else ``verify`` reports it: it accounts for no line of a run).
    after_open_run: bool = False


@dataclass
class _Kept:
    """The whole lines of a trail, read in order: where they end, how many, the first
    and the last, and the runs they leave open (read as ``verify`` reads them)."""

    end: int = 0
    lines: int = 0
    first: bytes = b""
    last: bytes = b""
    #: Run id -> still open (``True``) or ended (``False``), in order of appearance.
    runs: dict[str, bool] = field(default_factory=dict)
    #: The run of the last line (``""``: a repair line, or no trail line).
    last_run: str = ""

    def feed(self, raw: bytes) -> None:
        self.lines += 1
        if self.lines == 1:
            self.first = raw
        self.last = raw
        self.last_run = ""
        record = json_object(raw)
        if record is None:
            return
        kind = record.get("type")
        if kind == REPAIR:  # an earlier repair ended every run then open
            self.runs = dict.fromkeys(self.runs, False)
            return
        run = self.last_run = str(record.get("run", ""))
        if kind == "run" or run not in self.runs:
            self.runs[run] = True
        if kind == "end":
            self.runs[run] = False

    @property
    def open_runs(self) -> tuple[str, ...]:
        return tuple(run for run, is_open in self.runs.items() if is_open)

    @property
    def after_open_run(self) -> bool:
        """Whether the last line is of a run still open (``verify``'s reading)."""
        return self.runs.get(self.last_run, False)


def repair(path: str | Path) -> Repaired:
    """Drop the cut line at the end of the trail at ``path`` and append a ``repair`` line.
    Raises :class:`rep_engine.trail.read.TrailError` (the file untouched) when ``path`` is
    not a trail, is damaged otherwise than by a cut at its end, cannot be written, or a
    crawl is writing it."""
    path = Path(path)
    if not path.is_file():
        raise TrailError(f"{path}: {'no such file' if not path.exists() else 'not a file'}")
    try:
        with path.open("r+b") as file:
            lock(file, path)
            return _repair(path, file)
    except TrailFileError as error:
        raise TrailError(str(error)) from None
    except OSError as error:
        raise TrailError(f"{path}: cannot repair: {error.strerror or error}") from None


def _repair(path: Path, file: IO[bytes]) -> Repaired:
    size = file.seek(0, os.SEEK_END)
    if size == 0:
        raise TrailError(f"{path}: not repaired: empty, not an audit trail")
    if is_gzip(path):
        kept, how = _gzip_kept(file)
        if how == "damaged":
            _refuse_damage_inside(path, file, kept.end)
    else:
        kept = _plain_kept(file, size)
    if kept.lines == 0:
        raise TrailError(
            f"{path}: not repaired: no whole line in it (not an audit trail, or one cut in "
            "its first line: nothing to keep); move it away"
        )
    for which, number, raw in (("first", 1, kept.first), ("last", kept.lines, kept.last)):
        if (json_object(raw) or {}).get("type") not in TYPES:
            raise TrailError(
                f"{path}: not repaired: not an audit trail (its {which} whole line, line "
                f"{number}, is not a trail line)"
            )
    if kept.end == size:
        return Repaired(0, None)
    file.seek(kept.end)
    dropped = file.read()
    record: dict[str, Any] = {
        "type": REPAIR,
        "time": iso_time(),
        "version": package_version(),
        "dropped_bytes": len(dropped),
        "dropped_sha256": hashlib.sha256(dropped).hexdigest(),
        "kept_lines": kept.lines,
        "open_runs": list(kept.open_runs),
        "prev": hashlib.sha256(kept.last).hexdigest(),
    }
    _, stored = encode_line(record, is_gzip(path))
    file.truncate(kept.end)
    file.seek(kept.end)
    file.write(stored)
    file.flush()
    os.fsync(file.fileno())
    return Repaired(len(dropped), record, kept.open_runs, kept.after_open_run)


def _plain_kept(file: IO[bytes], size: int) -> _Kept:
    """The whole lines of a plain trail end after its last newline. When something is cut
    they are all read (the runs they leave open); else only the first and the last."""
    end, last = plain_end(file, size)
    kept = _Kept(end=end)
    if end == 0:
        return kept
    file.seek(0)
    if end == size:  # nothing cut: the first line and the last are all it needs
        kept.first, kept.last = file.readline(), last
        file.seek(0)
        while chunk := file.read(_CHUNK):
            kept.lines += chunk.count(b"\n")
        return kept
    position = 0
    for raw in file:
        kept.feed(raw)
        position += len(raw)
        if position >= end:
            break
    return kept


def _gzip_kept(file: IO[bytes]) -> tuple[_Kept, str]:
    """The whole members of a gzip trail (one per line, each ending with a newline, as
    the writer writes them) end where the last member that ends a line ends; a member
    cut or damaged, and anything after it, is the cut. Also how the file ends
    (:class:`rep_engine.trail.read.GzipEnd`)."""
    file.seek(0)
    kept, end = _Kept(), GzipEnd()
    pending = b""  # the text since the last newline
    for text in gzip_members(file, end):
        pending += text
        if pending.endswith(b"\n"):
            start = 0
            while (newline := pending.find(b"\n", start)) >= 0:
                kept.feed(pending[start : newline + 1])
                start = newline + 1
            kept.end, pending = end.end, b""
    return kept, end.how


def _refuse_damage_inside(path: Path, file: IO[bytes], end: int) -> None:
    """Raise :class:`TrailError` when a whole gzip member holding a whole line follows the
    damage at ``end``: that is damage inside the trail, not a cut at its end, and
    dropping everything after it would drop whole lines."""
    position = end + 1  # the damaged member itself is not whole
    while True:
        file.seek(position)
        data = file.read(_CHUNK)
        if len(data) < len(_GZIP_MAGIC):
            return
        start = data.find(_GZIP_MAGIC)
        while start >= 0:
            if _whole_member_at(file, position + start):
                raise TrailError(
                    f"{path}: not repaired: damaged inside, not cut at its end (whole lines "
                    f"follow the damaged gzip data at byte {end}); `audit verify` says where"
                )
            start = data.find(_GZIP_MAGIC, start + 1)
        position += len(data) - len(_GZIP_MAGIC) + 1


def _whole_member_at(file: IO[bytes], offset: int) -> bool:
    """Whether a whole gzip member that ends a line starts at ``offset``."""
    file.seek(offset)
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    text = b""
    try:
        while not decompressor.eof:
            data = file.read(4096)
            if not data:
                return False
            text += decompressor.decompress(data)
            if len(text) > _CHUNK:  # no line of a trail is that long
                return False
    except zlib.error:
        return False
    return text.endswith(b"\n")
