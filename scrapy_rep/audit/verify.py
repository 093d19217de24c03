"""``audit verify``: the whole check of a trail, in one pass (pure).

1. The hash chain (:class:`scrapy_rep.audit.read.Trail`): every line's ``prev`` is the
   SHA-256 of the line before; a cut file or gzip stream shows.
2. Each run is whole: it starts with a ``run`` line (its id used by no other run line),
   ends with an ``end`` line whose counts match its ``url`` lines, and has no line after
   its ``end`` line, nor after a ``repair`` line that ended it: a repair records a cut,
   it does not account for what the cut took, so a run still open at a repair is
   reported as having no end line. A repair line is valid only right after a line of a
   run left open (the cut took that run's next line); anywhere else (after whole runs,
   after another repair) it accounts for no line of a run and is reported. A crawl (a
   run and the runs that resume it, named by their ``resumes``) has one final record
   per request id, and a run that resumes another (``JOBDIR``) finds it before it in
   this trail, or in another one given with it, ending in the line its header names
   (``resumes_head``).
3. Every snapshot a ``snapshot`` line announces is present and its bytes hash to its name
   (no snapshot folder at all, a trail copied without it: one finding for the file).
4. Every decision is re-derived from its snapshots with today's engine
   (:class:`scrapy_rep.audit.rederive.Rederiver`).

Problems are :class:`Finding` (line number, URL, sentence), in file order, handed to the
caller's ``sink`` as they are found (the command line prints each at once); the result
keeps their count and the first :data:`KEEP_FINDINGS`, so memory does not grow with them.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from scrapy_rep.audit.file import SCHEMAS, being_written
from scrapy_rep.audit.items import item_differences
from scrapy_rep.audit.read import FATES, TYPES, Line, Trail, TrailError, is_sha256, items, text
from scrapy_rep.audit.rederive import Rederiver, RunContext
from scrapy_rep.urls.origins import origin_of
from scrapy_rep.verdict import Override

#: The end line's counts that are checked against the run's ``url`` lines.
COUNTED: Final = ("url", *FATES, "files", "items")
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
    #: The number of its last line so far.
    last: int = 0
    #: The SHA-256 of its end line (``""``: none yet).
    end_hash: str = ""
    #: When the first run of its crawl started (its header's ``time``; ``""``: not known,
    #: a resume whose paused run is not read before it): none of its requests was sent
    #: before.
    first_start: str = ""


@dataclass(frozen=True)
class _Resume:
    """A run line that resumes a run (``resumes``) not found before it in the trail."""

    line: int
    run: str
    resumes: str
    #: The trail the paused run was written to, and the hash of its end line, as the
    #: resumed run's header names them (``""``: not named).
    trail: str
    head: str


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
        #: The runs resumed by a run of this trail but not found before it.
        self.unresolved: list[_Resume] = []
        #: The other trails given with this one (where a resumed run may be).
        self.others: list[Path] = []
        #: Without a snapshot folder: the snapshots it lacks, and the records that could
        #: not be re-derived for it (one finding for them all, at the end).
        self.unfoldered = Counter[str]()
        #: The line read last: its type and its run (``None``: a repair line, or no
        #: trail line), what a repair line is checked against.
        self.previous: tuple[str, _Run | None] = ("", None)

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
            self.previous = ("", None)
            return
        kind = line.type
        if kind == "repair":
            self._repair(line.number, record)
            self.previous = (kind, None)
            return
        run_id = str(record.get("run", ""))
        if kind == "run":
            self._run(line.number, record, run_id)
            self.previous = (kind, self.runs[run_id])
            return
        run = self.runs.get(run_id)
        if run is None:
            self.add(line.number, "", f"{kind} line of run {run_id[:8]!r}, which has no run line")
            run = self.runs[run_id] = _Run(RunContext(run=run_id), line.number)
        self.previous = (kind, run)
        if run.ended:
            # Nothing of a run comes after its end line, or after the repair that ended
            # it: a line appended later (not by a following run, which has its own run
            # line and id) is not the run's.
            after = (
                f"after the repair at line {run.cut} that ended it: appended after the repair"
                if run.cut
                else f"after its end line (line {run.end}): appended after the run ended"
            )
            self.add(line.number, str(record.get("url", "")),
                     f"{kind} line of run {run_id[:8]} {after}")  # fmt: skip
            return
        run.last = line.number
        if kind == "snapshot":
            self._snapshot(line.number, record)
        elif kind == "url":
            self._url(line.number, record, run)
        elif kind == "item":
            self._item(line.number, record, run)
        elif kind == "file":
            # A media file's own statements are in its bytes, which the trail does not
            # keep: its decision is taken as recorded (docs/audit-trail.md).
            run.counts["files"] += 1
        elif kind == "end":
            self._end(line, record, run)
        else:
            self.add(line.number, "", f"unknown line type {kind!r}")

    def _run(self, number: int, record: dict[str, Any], run_id: str) -> None:
        self.result.runs += 1
        earlier = self.runs.get(run_id)
        if earlier is not None:
            self.add(number, "", f"run {run_id[:8]}: a second run line for this id (the "
                     f"first: line {earlier.start}): a run's id is its own")  # fmt: skip
        resumes = record.get("resumes")
        resumed = self.runs.get(resumes) if isinstance(resumes, str) and resumes else None
        story = resumed.story if resumed is not None else run_id
        context = RunContext.of(record)
        if resumed is not None:
            first_start = resumed.first_start
        else:
            first_start = "" if isinstance(resumes, str) and resumes else text(record.get("time"))
        self.runs[run_id] = _Run(context, number, story, last=number, first_start=first_start)
        self.rederiver.crawls[run_id] = story
        if problem := context.page.problem(context.purposes):
            self.add(number, "", f"run {run_id[:8]}: {problem}")
        if isinstance(resumes, str) and resumes:
            resume = _Resume(number, run_id, resumes, text(record.get("resumes_trail")),
                             text(record.get("resumes_head")))  # fmt: skip
            if resumed is None:
                self.unresolved.append(resume)
            else:
                self._resumed_here(resume, resumed)
        if record.get("schema") not in SCHEMAS:
            known = " and ".join(map(str, SCHEMAS))
            self.add(number, "", f"run {run_id[:8]}: schema {record.get('schema')!r}; "
                     f"this reader knows schemas {known}")  # fmt: skip
        profile = record.get("profile")
        if profile != self.runs[run_id].context.profile:
            self.add(
                number,
                "",
                f"run {run_id[:8]}: unknown profile {profile!r}: "
                "its decisions are re-derived with the google profile",
            )

    def _resumed_here(self, resume: _Resume, resumed: _Run) -> None:
        """``resume`` names a run read before it in this trail: that run paused (its end
        line) before, and the end line is the one the resumed run's header names."""
        what = f"run {resume.run[:8]} resumes run {resume.resumes[:8]}"
        if not resumed.ended:
            self.add(resume.line, "", f"{what}, which has no end line before it: "
                     "a run resumes a paused run, ended")  # fmt: skip
        elif resume.head and resumed.end_hash and resume.head != resumed.end_hash:
            self.add(resume.line, "", f"{what} from its end line hashing to "
                     f"{resume.head[:16]}…, but that run's end line (line {resumed.end}) "
                     f"hashes to {resumed.end_hash[:16]}…: it was changed")  # fmt: skip

    def _repair(self, number: int, record: dict[str, Any]) -> None:
        """``audit repair`` dropped a cut line here: an event. It accounts for the cut
        bytes, nothing more: each run then open has no end line (the crawl was killed, or
        lines went before the cut) and is a problem, and the repair ends it. What the
        line claims (the lines it kept, the runs it left open) must be what the trail
        holds."""
        cut = [run for run in self.runs.values() if not run.ended]
        dropped, dropped_sha = record.get("dropped_bytes"), record.get("dropped_sha256")
        self.add(number, "", f"repaired on {record.get('time')}: {dropped} byte(s) of a cut "
                 "line dropped", event=True)  # fmt: skip
        if number == 1:
            self.add(number, "", "the trail starts with a repair: its first line was cut, "
                     "and nothing of what it held can be checked")  # fmt: skip
        else:
            self._repair_place(number)
        if not _count(dropped) or not is_sha256(dropped_sha):
            self.add(number, "", "the repair line does not say what it dropped "
                     "(dropped_bytes, dropped_sha256)")  # fmt: skip
        kept = record.get("kept_lines")
        if kept is not None and kept != number - 1:
            self.add(number, "", f"the repair line says it kept {kept!r} whole line(s), "
                     f"{number - 1} come before it: lines were added or deleted")  # fmt: skip
        claimed = record.get("open_runs")
        found = [run.context.run for run in cut]
        if claimed is not None and claimed != found:
            self.add(number, "", f"the repair line names the open run(s) {_ids(claimed)}, "
                     f"the trail has {_ids(found) or 'none'} open there")  # fmt: skip
        for run in cut:
            run.ended, run.end, run.cut = True, number, number
            self.add(run.start, "", f"run {run.context.run[:8]} has no end line: it was "
                     f"open when the repair at line {number} dropped a cut line (the crawl "
                     "was killed, or lines were cut from the trail's end before the "
                     f"repair): nothing of it after line {run.last} is in the trail")  # fmt: skip

    def _repair_place(self, number: int) -> None:
        """A repair drops the cut line of a run left open, so it comes right after a line
        of that run (docs/audit-trail.md, "``repair``: a cut made whole"). After whole
        runs, or after another repair, what it dropped was no line of a run the trail
        holds: junk, the cut first line of a run (a crawl whose records are all lost), or
        nothing at all (a line written by hand); it is reported."""
        kind, run = self.previous
        if run is not None and not run.ended:
            return
        if run is None:
            before = "a repair line" if kind == "repair" else "no trail line"
        elif kind == "end" and run.end == number - 1:
            before = f"the end line of run {run.context.run[:8]}"
        else:
            before = f"a {kind} line of run {run.context.run[:8]}, which had ended"
        self.add(number, "", f"the repair line does not follow a run left open (line "
                 f"{number - 1} is {before}): a repair is valid only right after a run left "
                 "without its end line; here it accounts for no line of a run (junk after "
                 "whole runs, the cut first line of a run, or a line written by hand)")  # fmt: skip

    def _snapshot(self, number: int, record: dict[str, Any]) -> None:
        self.result.snapshots += 1
        self.rederiver.saw_snapshot(record)
        sha = str(record.get("sha256", ""))
        store = self.trail.snapshots
        if not store.sound(sha) and store.checked[sha] == store.no_folder:
            self.unfoldered["snapshots"] += 1
        elif not store.sound(sha):
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
        differences = self.rederiver.differences(record, run.context)
        no_folder = self.trail.snapshots.no_folder
        if no_folder and any(what.endswith(no_folder) for what in differences):
            self.unfoldered["records"] += 1  # said once for all, in finish()
            differences = [what for what in differences if not what.endswith(no_folder)]
        context = run.context
        for what in (
            *differences,
            *sent_after_expiry(record, context.overrides),
            *when_sent(record, run.first_start, context.overrides, context.longest_use),
        ):
            self.add(number, url, what)

    def _item(self, number: int, record: dict[str, Any], run: _Run) -> None:
        """A recheck's stored item (``item``), decided again from its snapshots."""
        self.result.records += 1
        run.counts["items"] += 1
        url = str(record.get("url", ""))
        differences = item_differences(record, run.context, self.rederiver)
        no_folder = self.trail.snapshots.no_folder
        if no_folder and any(what.endswith(no_folder) for what in differences):
            self.unfoldered["records"] += 1
            differences = [what for what in differences if not what.endswith(no_folder)]
        for what in differences:
            self.add(number, url, what)

    def _end(self, line: Line, record: dict[str, Any], run: _Run) -> None:
        number = line.number
        run.ended, run.end = True, number
        if record.get("reason") == "interrupted":  # a recheck whose fetch was stopped
            self.add(number, "", f"run {run.context.run[:8]} was interrupted: its fetch "
                     "stopped before every document was had (the items of the origins "
                     "not fetched are unknown); not a whole recheck", event=True)  # fmt: skip
        run.end_hash = hashlib.sha256(line.raw).hexdigest()
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
        if self.unfoldered:
            folder = self.trail.snapshots.directory
            self.add(0, "", f"there is no snapshot folder {folder} (a trail copied without "
                     f"it?): {self.unfoldered['snapshots']} snapshot(s) cannot be checked, "
                     f"nor {self.unfoldered['records']} record(s) re-derived from "
                     "them")  # fmt: skip
        unended = [run for run in self.runs.values() if not run.ended]
        writing = bool(unended) and unended[-1] is list(self.runs.values())[-1]
        writing = writing and being_written(self.trail.path)
        for run in unended:
            if writing and run is unended[-1]:  # the run of the crawl that holds the lock
                self.add(run.start, "", f"run {run.context.run[:8]} has no end line yet: a "
                         "crawl is writing the trail now (it holds its lock); verify it "
                         "again once that crawl has closed")  # fmt: skip
            else:
                self.add(
                    run.start,
                    "",
                    f"run {run.context.run[:8]} has no end line: the crawl "
                    "was killed, or the trail was cut after it",
                )
        self._resumed_elsewhere()
        return result

    def _resumed_elsewhere(self) -> None:
        """The runs resumed by a run of this trail and not found before it: in the other
        trails given (read once each, only when needed), else a problem naming them."""
        later = [r for r in self.unresolved if r.resumes in self.runs]
        for resume in later:
            self.add(resume.line, "", f"run {resume.run[:8]} resumes run {resume.resumes}, "
                     f"which starts after it (line {self.runs[resume.resumes].start})")  # fmt: skip
        wanted = {r.resumes for r in self.unresolved if r.resumes not in self.runs}
        found = _runs_in(self.others, wanted) if wanted else {}
        for resume in self.unresolved:
            if resume.resumes in self.runs:
                continue
            where = found.get(resume.resumes)
            what = f"run {resume.run[:8]} resumes run {resume.resumes}"
            if where is None:
                written = (
                    f" (paused with JOBDIR; its trail: {resume.trail})" if resume.trail else ""
                )
                elsewhere = " nor in the other trails given" if self.others else ""
                self.add(resume.line, "", f"{what}{written}, which is not in this trail"
                         f"{elsewhere}: the crawl's records before the pause are missing; "
                         "verify the trails together (audit verify EARLIER THIS)")  # fmt: skip
            elif resume.head and resume.head not in where[1]:
                self.add(resume.line, "", f"{what} (in {where[0].name}) from its end line "
                         f"hashing to {resume.head[:16]}…, which is no end line of that "
                         "run there: it was changed or cut")  # fmt: skip


def sent_after_expiry(record: dict[str, Any], overrides: Sequence[Override] = ()) -> list[str]:
    """A request sent after what its verdict rests on stopped holding: its ``sent_at``
    past its ``expires`` (the freshness of the document versions it was decided with, or
    an override's expiry), or past the expiry of the override it went past, whatever
    ``expires`` says. That expiry is read as a value, never from the words of
    ``overridden`` (:func:`override_end`). Times are read to the millisecond written: one
    in the same millisecond as its expiry is not said to be after it. ``overrides``: the
    run's ``REP_OVERRIDES``."""
    sent = _instant(text(record.get("sent_at")))
    if sent is None:
        return []
    found = []
    expires = text(record.get("expires"))
    if (until := _instant(expires)) is not None and sent > until:
        found.append(f"sent at {record['sent_at']}, after what its verdict rests on had "
                     f"stopped holding ({expires})")  # fmt: skip
    robots = record.get("robots")
    if not isinstance(robots, dict) or not text(robots.get("overridden")):
        return found
    ends, written = override_end(record, overrides)
    if ends is None:
        found.append(f"sent at {record['sent_at']} past robots.txt by an override "
                     f"({text(robots.get('overridden'))}) whose expiry is given as no value: "
                     f"{written}; whether it had expired cannot be checked")  # fmt: skip
    elif sent > ends:
        found.append(f"sent at {record['sent_at']}, after the override it went past had "
                     f"expired ({written})")  # fmt: skip
    return found


#: Fates of a request that left for the network (a request never sent has no ``sent_at``).
_SENT_FATES: Final = frozenset({"fetched", "redirected", "failed"})


def when_sent(
    record: dict[str, Any],
    start: str = "",
    overrides: Sequence[Override] = (),
    longest_use: float | None = None,
) -> list[str]:
    """What bounds a record's ``sent_at`` and ``expires`` (docs/audit-trail.md, ``audit
    verify``): ``sent_at`` not before its crawl started (``start``, the first run's
    header ``time``) nor after its record was written (``time``); a request sent past
    robots.txt by an override, recorded after that override ended, with no ``sent_at``,
    cannot be checked (a page Scrapy's HTTP cache replayed was not sent); and
    ``expires`` no later than the crawl could write it: the freshness of a document
    version fetched no later than the request was sent, at most ``REP_CACHE_MAX_TTL``,
    then its use while stale, at most ``REP_CACHE_STALE_MAX`` (``longest_use``: their
    sum in the run's settings, ``None``: not known), counted from ``sent_at``, else
    from the record's ``time`` (no request is sent after its record is written)."""
    written = text(record.get("sent_at"))
    if not written:  # sent, if at all, before its record was written
        written_at = text(record.get("time"))
        at = _instant(written_at)
        unsent = _not_sent_past_override(record, overrides)
        if at is not None:
            unsent += _expires_bound(record, at, f"recorded at {written_at}", longest_use)
        return unsent
    sent = _instant(written)
    if sent is None:
        return [f"its sent_at {record.get('sent_at')!r} is no time"]
    found = []
    begun, recorded = _instant(start), _instant(text(record.get("time")))
    if begun is not None and sent < begun:
        found.append(f"sent at {written}, before its crawl started ({start})")
    if recorded is not None and sent > recorded:
        found.append(f"sent at {written}, after its record was written ({record['time']})")
    return found + _expires_bound(record, sent, f"sent at {written}", longest_use)


def _expires_bound(
    record: dict[str, Any], sent: float, when: str, longest_use: float | None
) -> list[str]:
    """A record's ``expires`` no later than ``longest_use`` after ``sent`` (when the
    request was sent, or at the latest, with no ``sent_at``, its record's ``time``)."""
    expires = text(record.get("expires"))
    until = _instant(expires)
    if until is not None and longest_use is not None and until > sent + longest_use + 0.001:
        return [f"its expires ({expires}) is later than any the crawl could write for a "
                f"request {when}: a document version is used {longest_use:g} s at most "
                "(REP_CACHE_MAX_TTL + REP_CACHE_STALE_MAX)"]  # fmt: skip
    return []


def _not_sent_past_override(record: dict[str, Any], overrides: Sequence[Override]) -> list[str]:
    """A record of a request sent past robots.txt by an override, with no ``sent_at``,
    written after that override ended: when it was sent cannot be checked."""
    robots = record.get("robots")
    if text(record.get("fate")) not in _SENT_FATES or not isinstance(robots, dict):
        return []
    if not text(robots.get("overridden")):
        return []
    page = record.get("page")
    if isinstance(page, dict) and page.get("cached") is not None:
        return []  # replayed by Scrapy's HTTP cache: never sent
    ends, _ = override_end(record, overrides)
    recorded = _instant(text(record.get("time")))
    if ends is None or recorded is None or recorded <= ends:
        return []  # no end known: said by sent_after_expiry; recorded in time: sent in time
    return [f"sent past robots.txt by an override ({text(robots.get('overridden'))}) that "
            f"ended before its record was written ({record['time']}), and it has no "
            "sent_at: whether it was sent before the override ended cannot be checked"]  # fmt: skip


#: How an earlier release wrote an override's expiry, within ``overridden``:
#: ``… (until 2027-07-01T00:00:00+00:00)``. Read only for its records, which have no
#: ``override_ends``; a crawl writes that value beside the words.
_LEGACY_UNTIL: Final = re.compile(r".*\(until ([^()]+)\)", re.ASCII)


def override_end(
    record: dict[str, Any], overrides: Sequence[Override] = ()
) -> tuple[float | None, str]:
    """When the override a record went past stopped covering a request (POSIX seconds;
    ``None``: no value says it), and that instant as written, or why none is known.
    docs/audit-trail.md, ``override_ends``: first the record's ``override_ends``; for a
    record written without it, the expiry the run's ``REP_OVERRIDES`` (``overrides``)
    gives the record's host, else an earlier release's ``(until …)`` at the end of its
    ``overridden``. The words of this release (``…, until DATE``, ``…, through DATE,
    UTC``) are never read: they are for people, and a record that has only them, in a run
    whose overrides do not name its host, is reported."""
    robots = record.get("robots")
    robots = robots if isinstance(robots, dict) else {}
    if "override_ends" in robots:
        written = text(robots.get("override_ends"))
        ends = _instant(written)
        return (ends, written) if ends is not None else (None, f"override_ends {written!r}"
                                                             " is no time")  # fmt: skip
    origin = origin_of(str(record.get("url", "")))
    host = origin.host if origin is not None else ""
    for override in overrides:
        if host and override.host == host:
            return override.ends, f"{override.expires}, as the run's REP_OVERRIDES says"
    legacy = _LEGACY_UNTIL.fullmatch(text(robots.get("overridden")))
    if legacy is not None and (ends := _instant(legacy.group(1))) is not None:
        return ends, legacy.group(1)
    return None, ("the record has no override_ends, and the run's REP_OVERRIDES has no "
                  f"override of {host or 'its host'}")  # fmt: skip


def _instant(written: str) -> float | None:
    """An ISO 8601 time with its zone as POSIX seconds (``None``: not one)."""
    if not written:
        return None
    try:
        moment = datetime.fromisoformat(written.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.timestamp() if moment.tzinfo is not None else None


def _count(value: Any) -> bool:
    """A count of one or more (not a boolean)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _ids(runs: Any) -> str:
    """Run ids, each shortened to 8 characters, for a sentence."""
    if not isinstance(runs, list):
        return repr(runs)
    return ", ".join(str(run)[:8] for run in runs)


def _runs_in(paths: Sequence[Path], wanted: set[str]) -> dict[str, tuple[Path, set[str]]]:
    """Where each run of ``wanted`` is among the trails at ``paths`` (the first that has
    its run line), with the SHA-256 of each of its end lines there."""
    found: dict[str, tuple[Path, set[str]]] = {}
    for path in paths:
        try:
            for line in Trail(path).lines():
                record = line.record
                run = str(record.get("run", "")) if record is not None else ""
                if run not in wanted:
                    continue
                if line.type == "run" and run not in found:
                    found[run] = (path, set())
                elif line.type == "end" and run in found and found[run][0] == path:
                    found[run][1].add(hashlib.sha256(line.raw).hexdigest())
        except TrailError:
            continue  # not a trail: said when it is verified itself
    return found


def verify(
    path: str | Path,
    heads: Iterable[str] = (),
    sink: Callable[[Finding], object] | None = None,
    keep: int = KEEP_FINDINGS,
    also: Sequence[str | Path] = (),
) -> Verification:
    """Check the trail at ``path`` (raises :class:`scrapy_rep.audit.read.TrailError` when
    it is not a trail at all). ``heads``: hashes of lines written down earlier (a former
    :attr:`Verification.head`); each must still be the hash of a line of the chain, so a
    change of what was then the last line, or a cut at a line boundary, shows too.
    ``sink`` is called with each finding and event as it is found (in file order; those
    of the file as a whole last); the result keeps the first ``keep`` findings and counts
    them all. ``also``: the other trails checked with this one (several workers'): a
    snapshot is looked for in their folders too."""
    trail = Trail(path, also)
    verifier = _Verifier(trail, sink, keep)
    verifier.others = [Path(other) for other in also if Path(other) != trail.path]
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
    url: str


def across(
    paths: Sequence[str | Path], sink: Callable[[Path, Finding], object] | None = None
) -> tuple[int, int]:
    """Several trails checked as one (workers sharing a queue, such as scrapy-redis, each
    writing its own trail): a request with final records in two trails (the same URL key,
    the request fingerprint before the ``-`` of each record's ``id``) must have them tied
    by ``again`` (either one naming the other: a record is written when its fate is
    final, so the one sent again may be written first), unless it is a re-queue after a
    crash: the earlier record was left open (``unfinished``, or its run has no end line)
    in one worker's trail and the request was finished in another's (an event). Each
    problem and event goes to ``sink`` with the trail it is in (the later record's); the
    counts of problems and events. A record of a request downloaded without the
    scheduler (``unscheduled``) is not compared when it is accounted for (named by a
    page's ``fetched`` part or by a ``file`` line of its run) or has no output of its
    own (no callback of the crawl ran for it); any other is. Keeps the requests' final
    records in memory (one small tuple each)."""
    finals: dict[str, list[_Final]] = {}
    ended: set[tuple[int, str]] = set()
    accounted: set[tuple[int, str, str]] = set()
    unscheduled: list[tuple[str, str, _Final]] = []
    for number, path in enumerate(paths):
        for line in Trail(path).lines():
            record = line.record
            if record is None:
                continue
            run = str(record.get("run", ""))
            if line.type == "end":
                ended.add((number, run))
            elif line.type == "file":
                accounted.add((number, run, str(record.get("url", ""))))
            elif line.type == "url":
                url = str(record.get("url", ""))
                final = _Final(number, line.number, str(record.get("time", "")),
                               str(record.get("id", "")), str(record.get("again") or ""),
                               run, str(record.get("fate", "")), url)  # fmt: skip
                key = _request_key(final.id, url)
                page = record.get("page")
                for sub in items(page.get("fetched")) if isinstance(page, dict) else ():
                    if isinstance(sub, dict):
                        accounted.add((number, run, text(sub.get("url"))))
                if not record.get("unscheduled"):
                    finals.setdefault(key, []).append(final)
                elif _has_output(record):
                    # a request the engine downloaded without the scheduler (a media
                    # pipeline's file, a callback's ``download_async``): no shared
                    # dupefilter let it through, so another worker's record of its URL is
                    # another request; but no callback of the crawl ran for it, and it is
                    # named by what fetched it, else it is compared as any record
                    unscheduled.append((key, url, final))
    for key, url, final in unscheduled:
        if (final.trail, final.run, url) not in accounted:
            finals.setdefault(key, []).append(final)
    problems = events = 0
    names = [Path(path).name for path in paths]
    for records in finals.values():
        if len({r.trail for r in records}) < 2:
            continue
        records.sort(key=lambda r: (r.time, r.trail, r.line))
        for place, final in enumerate(records):
            before = [r for r in records[:place] if r.trail != final.trail]
            if not before or _tied(final, records[:place]):
                continue
            url = final.url
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


def _request_key(record_id: str, url: str) -> str:
    """The URL key of a record (docs/audit-trail.md, ``id``: the request fingerprint,
    before the ``-`` of its number; schema 1: the whole ``id``); its URL when it has no
    ``id``."""
    return record_id.partition("-")[0] or f"url {url}"


def _tied(final: _Final, earlier: Sequence[_Final]) -> bool:
    """Whether ``final`` and one of the records written before it are tied by ``again``,
    either naming the other."""
    return any(
        (final.again and final.again == r.id) or (r.again and r.again == final.id) for r in earlier
    )


def _has_output(record: dict[str, Any]) -> bool:
    """Whether a ``url`` record says what a callback of the crawl gave for it (items kept
    or dropped, links not followed): the crawl writes none of it on the record of a
    request downloaded without the scheduler."""
    return any(field in record for field in _OUTPUT_FIELDS)


#: A record's fields that say what the spider's output for its page was.
_OUTPUT_FIELDS: Final = ("items_kept", "items_dropped", "item_reason", "links_not_followed")
