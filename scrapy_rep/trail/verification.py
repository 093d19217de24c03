"""``audit verify``: the whole check of a trail, in one pass (pure).

1. The hash chain (:class:`scrapy_rep.trail.read.Trail`): every line's ``prev`` is the
   SHA-256 of the line before; a cut file or gzip stream shows.
2. Each run is whole: it starts with a ``run`` line, ends with an ``end`` line whose
   counts match its ``url`` lines, and has no line after its ``end`` line; a crawl (a
   run and the runs that resume it, named by their ``resumes``) has one final record
   per request id.
3. Every snapshot a ``snapshot`` line announces is present and its bytes hash to its name.
4. Every decision is re-derived from its snapshots with today's engine
   (:class:`scrapy_rep.trail.verify.Rederiver`).

Problems are :class:`Finding` (line number, URL, sentence), in file order, handed to the
caller's ``sink`` as they are found (the command line prints each at once); the result
keeps their count and the first :data:`KEEP_FINDINGS`, so memory does not grow with them.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from scrapy_rep.trail.file import SCHEMAS
from scrapy_rep.trail.read import FATES, TYPES, Line, Trail, text
from scrapy_rep.trail.verify import Rederiver, RunContext

#: The end line's counts that are checked against the run's ``url`` lines.
COUNTED: Final = ("url", *FATES, "files")
#: Findings kept in :attr:`Verification.findings` (all are counted and streamed).
KEEP_FINDINGS: Final = 1000


@dataclass(frozen=True)
class Finding:
    """One problem: where (line, URL; 0 and "" for the file as a whole) and what."""

    line: int
    url: str
    what: str
    #: Not a problem: something that happened to the trail and is recorded in it (a
    #: repair after a cut), listed for the reader.
    event: bool = False

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        where += ": event" if self.event else ""
        return f"{where}: {self.url}: {self.what}" if self.url else f"{where}: {self.what}"


@dataclass
class Verification:
    """The result of :func:`verify`."""

    path: Path
    lines: int = 0
    runs: int = 0
    records: int = 0
    snapshots: int = 0
    #: SHA-256 of the last line: write it down to detect a later change of that line.
    head: str = ""
    #: The first findings (at most the ``keep`` of :func:`verify`), in file order.
    findings: list[Finding] = field(default_factory=list)
    #: How many findings there were in all.
    problems: int = 0
    #: The events (:attr:`Finding.event`: a repair), the first ``KEEP_FINDINGS``; they do
    #: not make the trail unclean.
    events: list[Finding] = field(default_factory=list)
    event_count: int = 0

    @property
    def clean(self) -> bool:
        return not self.problems


@dataclass
class _Run:
    context: RunContext
    start: int
    #: The first run of the crawl this run resumes (itself when it is not a resume).
    story: str = ""
    counts: Counter[str] = field(default_factory=Counter)
    ended: bool = False
    #: The line number of its end line (0: none yet).
    end: int = 0
    #: The line of the ``repair`` that cut it short (0: none).
    cut: int = 0


class _Verifier:
    def __init__(self, trail: Trail, sink: Callable[[Finding], object] | None, keep: int) -> None:
        self.trail = trail
        self.result = Verification(trail.path)
        self.sink = sink
        self.keep = keep
        #: Findings held back until a line shows the file is a trail (a file that is not
        #: one is an error, not a list of findings), at most ``KEEP_FINDINGS``.
        self.pending: list[Finding] | None = []
        self.rederiver = Rederiver(trail.snapshots)
        self.runs: dict[str, _Run] = {}
        #: The first 8 bytes of the SHA-256 of (crawl, request id) of each final record: a
        #: crawl and its JOBDIR resumes write one final record per request (~80 bytes each).
        self.final: set[bytes] = set()

    def add(self, line: int, url: str, what: str, event: bool = False) -> None:
        finding = Finding(line, url, what, event)
        result = self.result
        if event:
            result.event_count += 1
            if len(result.events) < KEEP_FINDINGS:
                result.events.append(finding)
        else:
            result.problems += 1
            if len(result.findings) < self.keep:
                result.findings.append(finding)
        if self.sink is None:
            return
        if self.pending is None:
            self.sink(finding)
            return
        self.pending.append(finding)
        if len(self.pending) >= KEEP_FINDINGS:
            self.flush()

    def flush(self) -> None:
        """Hand the findings held back to the sink; the next ones go at once."""
        pending, self.pending = self.pending or [], None
        if self.sink is not None:
            for finding in pending:
                self.sink(finding)

    def feed(self, line: Line) -> None:
        record = line.record
        if self.pending is not None and record is not None and line.type in TYPES:
            self.flush()
        if line.problem:
            self.add(line.number, "", line.problem)
        if record is None:
            return
        kind = line.type
        if kind == "repair":
            self._repair(line.number, record)
            return
        run_id = str(record.get("run", ""))
        if kind == "run":
            self.result.runs += 1
            resumed = self.runs.get(str(record.get("resumes")))
            story = resumed.story if resumed is not None else run_id
            self.runs[run_id] = _Run(RunContext.of(record), line.number, story)
            if record.get("schema") not in SCHEMAS:
                known = " and ".join(map(str, SCHEMAS))
                self.add(line.number, "", f"run {run_id[:8]}: schema {record.get('schema')!r}; "
                         f"this reader knows schemas {known}")  # fmt: skip
            profile = record.get("profile")
            if profile != self.runs[run_id].context.profile:
                self.add(
                    line.number,
                    "",
                    f"run {run_id[:8]}: unknown profile {profile!r}: "
                    "its decisions are re-derived with the google profile",
                )
            return
        run = self.runs.get(run_id)
        if run is None:
            self.add(line.number, "", f"{kind} line of run {run_id[:8]!r}, which has no run line")
            run = self.runs[run_id] = _Run(RunContext(run=run_id), line.number)
        elif run.ended:
            # Nothing of a run comes after its end line: a line appended later (not by a
            # following run, which has its own run line and id) is not the run's.
            self.add(line.number, str(record.get("url", "")),
                     f"{kind} line of run {run_id[:8]} after its end line (line {run.end}): "
                     "appended after the run ended")  # fmt: skip
            return
        if kind == "snapshot":
            self._snapshot(line.number, record)
        elif kind == "url":
            self._url(line.number, record, run)
        elif kind == "file":
            # A media file's own statements are in its bytes, which the trail does not
            # keep: its decision is taken as recorded (docs/audit-trail.md).
            run.counts["files"] += 1
        elif kind == "end":
            self._end(line.number, record, run)
        else:
            self.add(line.number, "", f"unknown line type {kind!r}")

    def _repair(self, number: int, record: dict[str, Any]) -> None:
        """``audit repair`` dropped a cut line here: an event; the runs then open were
        cut short, and miss their end line for that reason."""
        cut = [run for run in self.runs.values() if not run.ended and not run.cut]
        for run in cut:
            run.cut = number
        names = ", ".join(run.context.run[:8] for run in cut[:5]) + (", …" if len(cut) > 5 else "")
        self.add(
            number,
            "",
            f"repaired on {record.get('time')}: {record.get('dropped_bytes')} byte(s) of a cut "
            "line dropped" + (f"; run(s) {names} end here, without their end line" if cut else ""),
            event=True,
        )

    def _snapshot(self, number: int, record: dict[str, Any]) -> None:
        self.result.snapshots += 1
        self.rederiver.saw_snapshot(record)
        sha = str(record.get("sha256", ""))
        store = self.trail.snapshots
        if not store.sound(sha):
            self.add(
                number, str(record.get("url", "")), f"snapshot {sha[:12]}… {store.checked[sha]}"
            )

    def _url(self, number: int, record: dict[str, Any], run: _Run) -> None:
        self.result.records += 1
        url = str(record.get("url", ""))
        run.counts["url"] += 1
        run.counts[str(record.get("fate"))] += 1
        request = f"{run.story}\n{record.get('id') or url}"
        key = hashlib.sha256(request.encode()).digest()[:8]
        if key in self.final:
            self.add(number, url, "a second final record for the same request id")
        self.final.add(key)
        if text(record.get("fate")) not in FATES:
            self.add(number, url, f"unknown fate {record.get('fate')!r}")
        for what in self.rederiver.differences(record, run.context):
            self.add(number, url, what)

    def _end(self, number: int, record: dict[str, Any], run: _Run) -> None:
        run.ended, run.end = True, number
        counts = record.get("counts")
        counts = counts if isinstance(counts, dict) else {}
        for name in COUNTED:
            said, seen = counts.get(name, 0), run.counts[name]
            if said != seen:
                self.add(
                    number,
                    "",
                    f"run {run.context.run[:8]}: the end line counts {said} "
                    f"{name} record(s), the trail holds {seen} (lines deleted or added)",
                )

    def finish(self) -> Verification:
        result = self.result
        chain = self.trail.chain
        result.lines, result.head = chain.lines, chain.head
        for problem in chain.problems:
            self.add(0, "", problem)
        for run in self.runs.values():
            if not run.ended and not run.cut:
                self.add(
                    run.start,
                    "",
                    f"run {run.context.run[:8]} has no end line: the crawl "
                    "was killed, or the trail was cut after it",
                )
        return result


def verify(
    path: str | Path,
    heads: Iterable[str] = (),
    sink: Callable[[Finding], object] | None = None,
    keep: int = KEEP_FINDINGS,
    also: Sequence[str | Path] = (),
) -> Verification:
    """Check the trail at ``path`` (raises :class:`scrapy_rep.trail.read.TrailError` when
    it is not a trail at all). ``heads``: hashes of lines written down earlier (a former
    :attr:`Verification.head`); each must still be the hash of a line of the chain, so a
    change of what was then the last line, or a cut at a line boundary, shows too.
    ``sink`` is called with each finding and event as it is found (in file order; those
    of the file as a whole last); the result keeps the first ``keep`` findings and counts
    them all. ``also``: the other trails checked with this one (several workers'): a
    snapshot is looked for in their folders too."""
    trail = Trail(path, also)
    verifier = _Verifier(trail, sink, keep)
    wanted = {head.strip().lower() for head in heads}
    for line in trail.lines():
        verifier.feed(line)
        wanted.discard(trail.chain.head)
    result = verifier.finish()
    for head in sorted(wanted):
        what = f"no line hashes to the head {head} written down earlier: that line or one "
        verifier.add(0, "", what + "before it was changed or cut")
    verifier.flush()
    return result


@dataclass(frozen=True)
class _Final:
    """A final record of a URL, in one of several trails."""

    trail: int
    line: int
    time: str
    id: str
    again: str
    run: str
    fate: str


def across(
    paths: Sequence[str | Path], sink: Callable[[Path, Finding], object] | None = None
) -> tuple[int, int]:
    """Several trails checked as one (workers sharing a queue, such as scrapy-redis, each
    writing its own trail): a URL with final records in two trails must have the later
    one tied to the earlier by ``again``, unless it is a re-queue after a crash: the
    earlier record was left open (``unfinished``, or its run has no end line) in one
    worker's trail and the URL was finished in another's (an event). Each problem and
    event goes to ``sink`` with the trail it is in (the later record's); the counts of
    problems and events. Keeps the URLs' final records in memory (one small tuple each)."""
    finals: dict[str, list[_Final]] = {}
    ended: set[tuple[int, str]] = set()
    for number, path in enumerate(paths):
        for line in Trail(path).lines():
            record = line.record
            if record is None:
                continue
            if line.type == "end":
                ended.add((number, str(record.get("run", ""))))
            elif line.type == "url":
                finals.setdefault(str(record.get("url", "")), []).append(
                    _Final(number, line.number, str(record.get("time", "")),
                           str(record.get("id", "")), str(record.get("again") or ""),
                           str(record.get("run", "")), str(record.get("fate", "")))
                )  # fmt: skip
    problems = events = 0
    names = [Path(path).name for path in paths]
    for url, records in finals.items():
        if len({r.trail for r in records}) < 2:
            continue
        records.sort(key=lambda r: (r.time, r.trail, r.line))
        for place, final in enumerate(records):
            before = [r for r in records[:place] if r.trail != final.trail]
            if not before or final.again in {r.id for r in records[:place]}:
                continue
            left = [r for r in before if r.fate == "unfinished" or (r.trail, r.run) not in ended]
            if left:
                first = left[-1]
                how = "unfinished" if first.fate == "unfinished" else "open (no end line)"
                what = (
                    f"re-queued after a crash: left {how} in {names[first.trail]} line "
                    f"{first.line}, finished here"
                )
                events += 1
                finding = Finding(final.line, url, what, event=True)
            else:
                first = before[-1]
                problems += 1
                finding = Finding(
                    final.line,
                    url,
                    f"a second final record of this URL (the first: {names[first.trail]} line "
                    f"{first.line}, {first.fate}), not tied to it by `again`",
                )
            if sink is not None:
                sink(Path(paths[final.trail]), finding)
    return problems, events
