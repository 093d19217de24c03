"""``audit verify``: the whole check of a trail, in one pass (pure).

1. The hash chain (:class:`rep_engine.trail.read.Trail`): every line's ``prev`` is the
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
   (``resumes_head``). These run-level checks are :class:`RunChecks`'s. A run of a
   datatrove pipeline's task (its header's ``recheck.pipeline``) is kept for the check
   of the pipeline run as one (:func:`rep_audit.across.pipelines`); one left without
   its end line whose task was run again later in the trail is an event.
3. Every snapshot a ``snapshot`` line announces is present and its bytes hash to its name
   (no snapshot folder at all, a trail copied without it: one finding for the file).
4. Every decision is re-derived from its snapshots with today's engine
   (:class:`rep_audit.rederive.Rederiver`).
5. The tree heads and the sites' chains (:class:`rep_audit.treeheads.TreeChecks`): each
   head's size, root, frontier and signature (``key``: the operator's public key), each
   record's ``site_prev`` and each ``site`` line; and the heads of a head file given.
6. What a record says of its page's output, and of a 402 answer's price, is as the
   crawl writes it (:func:`output_problems`, :func:`payment_problems`), and the items
   its page pass let through add up to its run's end line's ``items_passed``
   (:func:`passed_problems`): no record says more (a later component drops only items
   the page pass let through); the items the errbacks of its failed and refused
   requests yielded, to its ``errback_items``.
7. When a record's request was sent is held to what bounds it (:func:`sent_after_expiry`,
   :func:`when_sent`): its ``sent_at`` against its ``expires`` and the end of the
   override it went past, its crawl's start and its record's ``time``; its ``expires``
   against the longest a crawl uses a document version.

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
from pathlib import Path
from typing import Any, Final

from rep_audit.across import runs_in
from rep_audit.findings import ITEM_COUNTS, KEEP_FINDINGS, Finding, Findings, TaskRun, Verification
from rep_audit.items import ItemOrder, item_differences
from rep_audit.rederive import Rederiver
from rep_audit.runcontext import RunContext, agents_problem, fold_setting
from rep_audit.treeheads import TreeChecks, head_file_entries, key_file
from rep_engine.records import (
    FATES,
    PAYMENT_REQUIRED_STATUS,
    RESPONSE_FATES,
    SENT_FATES,
    EndReason,
    Fate,
    FateRecord,
    ItemRecord,
    item_of,
    mapping,
    seconds_of,
    text,
    whole,
)
from rep_engine.trail.file import being_written
from rep_engine.trail.lines import (
    PAYMENT_FIELDS,
    PAYMENT_VALUE_KEPT,
    SITE_SETTINGS,
    is_payment_part,
)
from rep_engine.trail.read import TYPES, Line, Trail, is_sha256, unknown_schema
from rep_engine.urls.origins import origin_of
from rep_engine.verdict.decide import Override


def sent_after_expiry(record: dict[str, Any], overrides: Sequence[Override] = ()) -> list[str]:
    """A request sent after what its verdict rests on stopped holding: its ``sent_at``
    past its ``expires`` (the freshness of the document versions it was decided with, or
    an override's expiry), or past the expiry of the override it went past
    (:func:`override_end`), whatever ``expires`` says. Times are read to the millisecond
    written: one in the same millisecond as its expiry is not after it."""
    sent = seconds_of(record.get("sent_at"))
    if sent is None:
        return []
    found = []
    expires = text(record.get("expires"))
    if (until := seconds_of(expires)) is not None and sent > until:
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


def when_sent(
    record: dict[str, Any], start: str = "", overrides: Sequence[Override] = (),
    longest_use: float | None = None,
) -> list[str]:  # fmt: skip
    """What bounds a record's ``sent_at`` and ``expires`` (docs/audit-trail.md, ``audit
    verify``): ``sent_at`` not before its crawl started (``start``, the first run's
    header ``time``) nor after its record was written (``time``); without one, a request
    sent past robots.txt by an override, recorded after that override ended, cannot be
    checked (:func:`_not_sent_past_override`; a page Scrapy's HTTP cache replayed was not
    sent); and
    ``expires`` no later than the crawl could write it: the freshness of a document
    version fetched no later than the request was sent, at most ``REP_CACHE_MAX_TTL``,
    then its use while stale, at most ``REP_CACHE_STALE_MAX`` (``longest_use``: their
    sum in the run's settings, ``None``: not known), counted from ``sent_at``, else
    from the record's ``time`` (no request is sent after its record is written)."""
    written = text(record.get("sent_at"))
    if not written:  # sent, if at all, before its record was written
        written_at = text(record.get("time"))
        at = seconds_of(written_at)
        unsent = _not_sent_past_override(record, overrides)
        if at is not None:
            unsent += _expires_bound(record, at, f"recorded at {written_at}", longest_use)
        return unsent
    sent = seconds_of(written)
    if sent is None:
        return [f"its sent_at {record.get('sent_at')!r} is no time"]
    found = []
    begun, recorded = seconds_of(start), seconds_of(record.get("time"))
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
    until = seconds_of(expires)
    if until is not None and longest_use is not None and until > sent + longest_use + 0.001:
        return [f"its expires ({expires}) is later than any the crawl could write for a "
                f"request {when}: a document version is used {longest_use:g} s at most "
                "(REP_CACHE_MAX_TTL + REP_CACHE_STALE_MAX)"]  # fmt: skip
    return []


def _not_sent_past_override(record: dict[str, Any], overrides: Sequence[Override]) -> list[str]:
    """A record of a request sent past robots.txt by an override, with no ``sent_at``,
    written after that override ended: when it was sent cannot be checked."""
    robots = record.get("robots")
    if text(record.get("fate")) not in SENT_FATES or not isinstance(robots, dict):
        return []
    if not text(robots.get("overridden")):
        return []
    page = record.get("page")
    if isinstance(page, dict) and page.get("cached") is not None:
        return []  # replayed by Scrapy's HTTP cache: never sent
    ends, _ = override_end(record, overrides)
    recorded = seconds_of(record.get("time"))
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
    robots = mapping(record.get("robots"))
    if "override_ends" in robots:
        written = text(robots.get("override_ends"))
        ends = seconds_of(written)
        return (ends, written) if ends is not None else (None, f"override_ends {written!r}"
                                                             " is no time")  # fmt: skip
    origin = origin_of(str(record.get("url", "")))
    host = origin.host if origin is not None else ""
    for override in overrides:
        if host and override.host == host:
            return override.ends, f"{override.expires}, as the run's REP_OVERRIDES says"
    legacy = _LEGACY_UNTIL.fullmatch(text(robots.get("overridden")))
    if legacy is not None and (ends := seconds_of(legacy.group(1))) is not None:
        return ends, legacy.group(1)
    return None, ("the record has no override_ends, and the run's REP_OVERRIDES has no "
                  f"override of {host or 'its host'}")  # fmt: skip


#: The end line's counts that are checked against the run's ``url`` lines.
COUNTED: Final = ("url", *FATES, "files", "items")


@dataclass
class RunState:
    """One run of the trail, as far as its lines have been read."""

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
    #: What its fetched pages' records say their page pass let through (``items_kept``
    #: and ``items_not_kept``), and the record that says the most: (line, URL, kept, not
    #: kept), checked against its end line's ``items_passed``.
    passed: int = 0
    most: tuple[int, str, int, int] | None = None
    #: What its failed and refused records say their errbacks yielded (``items_kept``),
    #: checked against its end line's ``errback_items``.
    errback: int = 0
    #: When the first run of its crawl started (its header's ``time``; ``""``: not known,
    #: a resume whose paused run is not read before it): none of its requests was sent
    #: before.
    first_start: str = ""
    #: Its ``run`` line, with the entries of its ``setting`` lines put back in
    #: (:func:`rep_audit.runcontext.fold_setting`), and how many of each its header says.
    header: dict[str, Any] = field(default_factory=dict)
    entries: dict[str, int] = field(default_factory=dict)
    #: The task of a datatrove pipeline run it is (``None``: it is none).
    task: TaskRun | None = None


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


class RunChecks(Findings):
    """The runs of one trail, fed its lines in order (:meth:`run_of`), checked whole."""

    def __init__(
        self, path: Path, sink: Callable[[Finding], object] | None, keep: int,
        crawls: dict[str, str],
    ) -> None:  # fmt: skip
        super().__init__(path, sink, keep)
        #: run id -> the first run of its crawl (filled for the re-derivation).
        self.crawls = crawls
        self.runs: dict[str, RunState] = {}
        #: The runs resumed by a run of this trail but not found before it.
        self.unresolved: list[_Resume] = []
        #: The other trails given with this one (where a resumed run may be).
        self.others: list[Path] = []
        #: The line read last: its type and its run (``None``: a repair line, or no
        #: trail line), what a repair line is checked against.
        self.previous: tuple[str, RunState | None] = ("", None)
        #: The runs of a pipeline's tasks a repair ended, with what is said of them once
        #: the trail is read (whether the task was run again after).
        self.cut_tasks: list[tuple[RunState, str]] = []

    def run_of(self, line: Line) -> RunState | None:
        """The run whose record ``line`` is, to be checked (``None``: none, or a line of
        the runs themselves: a run, repair or unreadable line, or one after its run's end)."""
        record, kind = line.record, line.type
        if record is None or kind == "repair":
            if record is not None:  # a repair line (it reads the line before: previous)
                self._repair(line.number, record)
            self.previous = (kind, None)
            return None
        run_id = str(record.get("run", ""))
        if kind == "run":
            self._run(line.number, record, run_id)
            self.previous = (kind, self.runs[run_id])
            return None
        run = self.runs.get(run_id)
        if run is None:
            self.add(line.number, "", f"{kind} line of run {run_id[:8]!r}, which has no run line")
            run = self.runs[run_id] = RunState(RunContext(run=run_id), line.number)
        self.previous = (kind, run)
        if run.ended:
            # Nothing of a run comes after its end line, or after the repair that ended
            # it: a line appended later (not by a following run, which has its own run
            # line and id) is not the run's.
            after = (f"after the repair at line {run.cut} that ended it: appended after the "
                     "repair" if run.cut else f"after its end line (line {run.end}): appended "
                     "after the run ended")  # fmt: skip
            self.add(line.number, str(record.get("url", "")),
                     f"{kind} line of run {run_id[:8]} {after}")  # fmt: skip
            return None
        run.last = line.number
        return run

    def _run(self, number: int, record: dict[str, Any], run_id: str) -> None:
        self.result.runs += 1
        earlier = self.runs.get(run_id)
        if earlier is not None:
            self.add(number, "", f"run {run_id[:8]}: a second run line for this id (the "
                     f"first: line {earlier.start}): a run's id is its own")  # fmt: skip
        resumes = text(record.get("resumes"))
        resumed = self.runs.get(resumes) if resumes else None
        story = resumed.story if resumed is not None else run_id
        context = RunContext.of(record)
        if resumed is not None:
            first_start = resumed.first_start
        else:
            first_start = "" if resumes else text(record.get("time"))
        said = mapping(record.get("settings"))
        entries = {name: said[name] for name in SITE_SETTINGS if type(said.get(name)) is int}
        self.runs[run_id] = RunState(context, number, story, last=number, first_start=first_start,
                                     header=record, entries=entries)  # fmt: skip
        self._task(number, record, run_id)
        self.crawls[run_id] = story
        if problem := context.page.problem(context.purposes):
            self.add(number, "", f"run {run_id[:8]}: {problem}")
        if problem := agents_problem(record):
            self.add(number, "", f"run {run_id[:8]}: {problem}")
        if resumes:
            resume = _Resume(number, run_id, resumes, text(record.get("resumes_trail")),
                             text(record.get("resumes_head")))  # fmt: skip
            if resumed is None:
                self.unresolved.append(resume)
            else:
                self._resumed_here(resume, resumed)
        if unknown := unknown_schema(record):
            self.add(number, "", unknown)
        profile = record.get("profile")
        if profile != self.runs[run_id].context.profile:
            self.add(number, "", f"run {run_id[:8]}: unknown profile {profile!r}: its "
                     "decisions are re-derived with the google profile")  # fmt: skip

    def _task(self, number: int, record: dict[str, Any], run_id: str) -> None:
        """The task of a pipeline run the run line ``record`` names (its ``recheck``'s
        ``pipeline``), kept for the check of the pipeline run as one; one it names
        wrong is reported."""
        said = mapping(record.get("recheck")).get("pipeline")
        if said is None:
            return
        task = TaskRun.of(run_id, number, said)
        if task is None:
            self.add(number, "", f"run {run_id[:8]}: its header's recheck.pipeline {said!r} "
                     "names no task of a pipeline run (an id of 32 hex digits, a task of 0 "
                     "or more, fewer than its tasks)")  # fmt: skip
            return
        self.runs[run_id].task = task
        self.result.tasks.append(task)

    def _run_again(self, run: RunState) -> RunState | None:
        """The run of ``run``'s pipeline task started after it in this trail (``None``:
        none, or ``run`` is no task's)."""
        task = run.task
        if task is None:
            return None
        return next((other for other in self.runs.values() if other.task is not None
                     and other.start > run.start and other.task.pipeline == task.pipeline
                     and other.task.task == task.task), None)  # fmt: skip

    def _resumed_here(self, resume: _Resume, resumed: RunState) -> None:
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
        """``audit repair`` dropped a cut line here: an event, which ends each run then
        open; such a run has no end line (the crawl was killed, or lines went before the
        cut), a problem (verify's point 2). What the line claims (the lines it kept, the
        runs it left open) must be what the trail holds."""
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
            what = (f"run {run.context.run[:8]} has no end line: it was open when the repair "
                    f"at line {number} dropped a cut line (the crawl was killed, or lines "
                    "were cut from the trail's end before the repair): nothing of it after "
                    f"line {run.last} is in the trail")  # fmt: skip
            if run.task is not None:  # said once the trail is read: was it run again?
                self.cut_tasks.append((run, what))
            else:
                self.add(run.start, "", what)

    def _repair_place(self, number: int) -> None:
        """A repair comes right after a line of the run left open whose cut line it
        dropped (docs/audit-trail.md, "``repair``: a cut made whole"); elsewhere it is
        reported (verify's point 2)."""
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

    def end(self, line: Line, record: dict[str, Any], run: RunState) -> dict[str, Any]:
        """Check ``run``'s end line; its counts, as read (verify checks them further)."""
        number = line.number
        run.ended, run.end = True, number
        # a recheck whose fetch was stopped, or one stopped half-way (a shard failed)
        if (reason := EndReason.of(record.get("reason"))) is EndReason.INTERRUPTED:
            self.add(number, "", f"run {run.context.run[:8]} was interrupted: its fetch "
                     "stopped before every document was had (the items of the origins "
                     "not fetched are unknown); not a whole recheck", event=True)  # fmt: skip
        elif reason is EndReason.FAILED:
            counted = whole(mapping(record.get("counts")).get("items")) or 0
            outputs = (
                "(its --out, --removed and --report were not written)"
                if run.task is None
                else f"(task {run.task.task} of pipeline run {run.task.pipeline[:8]})"
            )
            self.add(number, "", f"run {run.context.run[:8]} failed: "
                     f"{text(record.get('error')) or 'no error said'}: it stopped with "
                     f"{counted:,} item(s) decided, the others not; not a whole recheck "
                     f"{outputs}", event=True)  # fmt: skip
        run.end_hash = hashlib.sha256(line.raw).hexdigest()
        counts = mapping(record.get("counts"))
        if run.task is not None:
            run.task.ended = text(record.get("reason")) or repr(record.get("reason"))
            # the items its records hold, by status (a pipeline run counts them); the
            # unreadable ones, which have none, as its end line counts them
            run.task.counts = {name: run.counts[name] for name in ITEM_COUNTS}
            run.task.counts["unreadable"] = whole(counts.get("unreadable")) or 0
        for name, said in run.entries.items():
            if said != run.counts[f"setting {name}"]:
                self.add(number, "", f"run {run.context.run[:8]}: its header counts {said} "
                         f"{name} entries, the trail holds {run.counts[f'setting {name}']} "
                         "setting line(s) of it (lines deleted or added)")  # fmt: skip
        for name in COUNTED:
            said, seen = counts.get(name, 0), run.counts[name]
            if said != seen:
                self.add(number, "", f"run {run.context.run[:8]}: the end line counts {said} "
                         f"{name} record(s), the trail holds {seen} (lines deleted or "
                         "added)")  # fmt: skip
        return counts

    def finish_runs(self) -> None:
        """The runs left without an end line, and the resumed runs not found before."""
        unended = [run for run in self.runs.values() if not run.ended]
        writing = bool(unended) and unended[-1] is list(self.runs.values())[-1]
        writing = writing and being_written(self.result.path)
        said = [(run, f"run {run.context.run[:8]} has no end line: the crawl was killed, or "
                 "the trail was cut after it") for run in unended]  # fmt: skip
        for run, what in sorted([*said, *self.cut_tasks], key=lambda each: each[0].start):
            again = self._run_again(run)
            if writing and run is unended[-1]:  # the run of the crawl that holds the lock
                self.add(run.start, "", f"run {run.context.run[:8]} has no end line yet: a "
                         "crawl is writing the trail now (it holds its lock); verify it "
                         "again once that crawl has closed")  # fmt: skip
            elif again is not None and run.task is not None:
                self.add(run.start, "", f"{what}; its task ({run.task.task} of pipeline run "
                         f"{run.task.pipeline[:8]}) was run again after it (run "
                         f"{again.context.run[:8]}, line {again.start})", event=True)  # fmt: skip
            else:
                self.add(run.start, "", what)
        self._resumed_elsewhere()

    def _resumed_elsewhere(self) -> None:
        """The runs resumed by a run of this trail and not found before it: in the other
        trails given (read once each, only when needed), else a problem naming them."""
        later = [r for r in self.unresolved if r.resumes in self.runs]
        for resume in later:
            self.add(resume.line, "", f"run {resume.run[:8]} resumes run {resume.resumes}, "
                     f"which starts after it (line {self.runs[resume.resumes].start})")  # fmt: skip
        wanted = {r.resumes for r in self.unresolved if r.resumes not in self.runs}
        found = runs_in(self.others, wanted) if wanted else {}
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


def _count(value: Any) -> bool:
    """A count of one or more (not a boolean)."""
    return (whole(value) or 0) > 0


def _ids(runs: Any) -> str:
    """Run ids, each shortened to 8 characters, for a sentence."""
    if not isinstance(runs, list):
        return repr(runs)
    return ", ".join(str(run)[:8] for run in runs)


#: The counts a fetched page's record gives of its output (docs/audit-trail.md, "url
#: records"): the page pass's items kept and dropped, those a later component dropped, the
#: links not followed.
OUTPUT_COUNTS: Final = ("items_kept", "items_dropped", "items_not_kept", "links_not_followed")
#: What the record of a download failed or refused may say of its errback's items: those
#: kept (a count), and none dropped (no page pass read them).
ERRBACK_COUNTS: Final[dict[str, Callable[[Any], bool]]] = {
    "items_kept": lambda value: type(value) is int and value >= 0,
    "items_dropped": lambda value: type(value) is int and value == 0,
}
#: A line's hash as ``--head`` gives it (anything else names a head file).
_SHA256: Final = re.compile(r"[0-9a-fA-F]{64}")
#: The other fields only a fetched page's record has: why its items were dropped, and the
#: links not followed.
OUTPUT_WORDS: Final = ("item_reason", "item_why", "not_followed")


def count_passed(number: int, read: FateRecord, run: RunState) -> None:
    """The items a fetched page's record says its page pass let through (``items_kept``
    and ``items_not_kept``, each a count as written), added to its run's
    (:attr:`RunState.passed`); a failed or refused one's, its errback's
    (:attr:`RunState.errback`)."""
    record, output = read.record, read.entry.output
    if read.fate in (Fate.FAILED, Fate.REFUSED):
        run.errback += output.kept if output is not None else 0
        return
    if read.fate not in RESPONSE_FATES:
        return
    counts = [record.get("items_kept", 0), record.get("items_not_kept", 0)]
    if any(type(value) is not int or value < 0 for value in counts):
        return  # not a count: said by output_problems
    kept, not_kept = counts
    run.passed += kept + not_kept
    if run.most is None or kept + not_kept > run.most[2] + run.most[3]:
        run.most = (number, read.entry.url, kept, not_kept)


def passed_problems(end: int, counts: dict[str, Any], run: RunState) -> list[tuple[int, str, str]]:
    """Where ``run``'s records of fetched pages say more items passed than its end line
    (line ``end``, its ``counts``) counts as let through by its page pass
    (``items_passed``): (line, URL, sentence). None for a run whose end line has no
    ``items_passed`` (a crawl of an earlier release, a recheck)."""
    said = counts.get("items_passed")
    if said is None:
        return []
    if type(said) is not int or said < 0:
        return [(end, "", f"the end line's items_passed {said!r} is not a count (a whole "
                 "number, 0 or more)")]  # fmt: skip
    found = []
    if run.most is not None and run.most[2] + run.most[3] > said:
        number, url, kept, not_kept = run.most
        claim = (f"items_not_kept {not_kept} is" if not_kept > said else
                 f"items_kept {kept} and items_not_kept {not_kept} are")  # fmt: skip
        found.append((number, url, f"{claim} more than the {said} item(s) its page pass let "
                      f"through in its whole run (the end line's items_passed, line {end}): "
                      "a component of the crawl drops only items the page pass let "
                      "through"))  # fmt: skip
    if run.passed != said:
        found.append((end, "", f"run {run.context.run[:8]}: the end line counts {said} "
                      f"item(s) its page pass let through (items_passed), the run's page "
                      f"records {run.passed} (their items_kept and items_not_kept: a "
                      "record changed, added or deleted)"))  # fmt: skip
    errback = counts.get("errback_items", 0)
    if run.errback != errback:
        found.append((end, "", f"run {run.context.run[:8]}: the end line counts {errback!r} "
                      "item(s) the errbacks of failed or refused requests yielded "
                      f"(errback_items), the run's records {run.errback} (their items_kept: "
                      "a record changed, added or deleted)"))  # fmt: skip
    return found


def output_problems(read: FateRecord) -> list[str]:
    """What a ``url`` record (``read``) says of its page's output, as written, that the
    crawl never writes: a count that is not a whole number of 0 or more (a string, a bool,
    a negative number), or any of it on the record of a request that was not fetched
    (only a page whose callback ran has items and links; a record of an unknown fate is
    said already), but the ``items_kept`` of a failed or refused one (its errback's items, no
    page's) and its ``items_dropped`` 0."""
    found, record, fate = [], read.record, read.fate
    if fate is not None and fate not in RESPONSE_FATES:
        errback = ERRBACK_COUNTS if fate in (Fate.FAILED, Fate.REFUSED) else {}
        for name in (*OUTPUT_COUNTS, *OUTPUT_WORDS):
            if name in record and not (name in errback and errback[name](record[name])):
                found.append(f"a {fate} record says {name} {record[name]!r}: only a fetched "
                             "page's record says what its output was (a failed or refused "
                             "one, the items its errback yielded)")  # fmt: skip
        return found
    for name in OUTPUT_COUNTS:
        value = record.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            found.append(f"{name} {value!r} is not a count (a whole number, 0 or more)")
    return found


def payment_problems(read: FateRecord) -> list[str]:
    """What a ``url`` record says of a 402 answer, as written, that the crawl never writes:
    a ``payment_required`` record of another status, a ``payment`` part on another fate's
    record, or one that is no object of the two fields' words each cut at
    :data:`~rep_engine.trail.lines.PAYMENT_VALUE_KEPT` characters
    (:func:`~rep_engine.trail.lines.payment_part`)."""
    record, fate = read.record, read.fate
    found = []
    status = record.get("status")
    if fate is Fate.PAYMENT_REQUIRED and (
        type(status) is not int or status != PAYMENT_REQUIRED_STATUS
    ):
        found.append(f"a {fate} record whose status is {status!r}: only a 402 answer is")
    if "payment" not in record:
        return found
    part = record["payment"]
    if fate is not Fate.PAYMENT_REQUIRED:
        found.append(f"a {read.written} record says payment {part!r}: only a 402 answer's "
                     f"record ({Fate.PAYMENT_REQUIRED}) says what it asked")  # fmt: skip
    elif not is_payment_part(part):
        found.append(f"payment {part!r} is not as the crawl writes it: "
                     f"{' or '.join(PAYMENT_FIELDS)}, each a string of at most "
                     f"{PAYMENT_VALUE_KEPT} characters (and … when cut)")  # fmt: skip
    return found


class Verifier(RunChecks):
    """One trail's checks, fed its lines in order: its runs (:class:`RunChecks`), and
    each record's snapshots and decision."""

    def __init__(
        self, trail: Trail, sink: Callable[[Finding], object] | None, keep: int,
        key: str | None = None, anchors: list[dict[str, Any]] | None = None, tree: bool = True,
    ) -> None:  # fmt: skip
        """``tree``: the tree heads and sites' chains checked (not in a site's bundle,
        which holds some of the lines: :mod:`rep_audit.bundlecheck`)."""
        self.rederiver = Rederiver(trail.snapshots)
        super().__init__(trail.path, sink, keep, self.rederiver.crawls)
        self.trail = trail
        self.tree = TreeChecks(self.add, key_file(key), str(key), anchors) if tree else None
        #: The first 8 bytes of the SHA-256 of (crawl, request id) of each final record: a
        #: crawl and its JOBDIR resumes write one final record per request (~80 bytes each).
        self.final: set[bytes] = set()
        #: Without a snapshot folder: the snapshots it lacks, and the records that could
        #: not be re-derived for it (one finding for them all, at the end).
        self.unfoldered = Counter[str]()
        #: Each run's place in its dataset: one ``item`` record per line.
        self.item_order = ItemOrder()

    def feed(self, line: Line) -> None:
        record = line.record
        if self.pending is not None and record is not None and line.type in TYPES:
            self.flush()
        if line.problem:
            self.add(line.number, "", line.problem)
        if self.tree is not None:
            self.tree.feed(line)
        kind = line.type
        if kind in ("site", "head"):  # after the run's end line: the tree's checks
            self.previous = (kind, self.runs.get(text((record or {}).get("run"))))
            return
        run = self.run_of(line)
        if run is None or record is None:
            return
        if kind == "setting":
            fold_setting(run.header, record)
            run.context = RunContext.of(run.header)
            run.counts[f"setting {record.get('name')}"] += 1
        elif kind == "snapshot":
            self._snapshot(line.number, record)
        elif kind == "url":
            self._url(line.number, record, run)
        elif (item := item_of(line)) is not None:
            self._item(item, run)
        elif kind == "file":
            # A media file's own statements are in its bytes, which the trail does not
            # keep: its decision is taken as recorded (docs/audit-trail.md).
            run.counts["files"] += 1
        elif kind == "end":
            counts = self.end(line, record, run)
            for number, url, what in passed_problems(line.number, counts, run):
                self.add(number, url, what)
        else:
            self.add(line.number, "", f"unknown line type {kind!r}")

    def _snapshot(self, number: int, record: dict[str, Any]) -> None:
        self.result.snapshots += 1
        self.rederiver.saw_snapshot(record)
        sha = str(record.get("sha256", ""))
        store = self.trail.snapshots
        if not store.sound(sha) and store.checked[sha] == store.no_folder:
            self.unfoldered["snapshots"] += 1
        elif not store.sound(sha):
            self.add(number, str(record.get("url", "")),
                     f"snapshot {sha[:12]}… {store.checked[sha]}")  # fmt: skip

    def _url(self, number: int, record: dict[str, Any], run: RunState) -> None:
        self.result.records += 1
        read = FateRecord.of(record)
        url = read.entry.url
        run.counts["url"] += 1
        run.counts[read.word] += 1  # as written: the end line counts each fate's
        key = hashlib.sha256(f"{run.story}\n{read.id or url}".encode()).digest()[:8]
        if key in self.final:
            self.add(number, url, "a second final record for the same request id")
        self.final.add(key)
        if read.fate is None:
            self.add(number, url, f"unknown fate {record.get('fate')!r}")  # as written
        context = run.context
        count_passed(number, read, run)
        self._add_all(number, url, [
            *output_problems(read),
            *payment_problems(read),
            *self._folder(self.rederiver.differences(read, context)),
            *sent_after_expiry(record, context.overrides),
            *when_sent(record, run.first_start, context.overrides, context.longest_use),
        ])  # fmt: skip
        for what in self.rederiver.events:
            self.add(number, url, what, event=True)

    def _item(self, item: ItemRecord, run: RunState) -> None:
        """A recheck's stored item (``item``), decided again from its snapshots."""
        self.result.records += 1
        run.counts["items"] += 1
        run.counts[f"items_{item.status}"] += 1
        differences = item_differences(item, run.context, self.rederiver)
        if misplaced := self.item_order.place(run.context, item):
            differences.append(misplaced)
        self._add_all(item.number, item.url, self._folder(differences))

    def _folder(self, differences: list[str]) -> list[str]:
        """``differences`` but those for the want of a snapshot folder (counted, said
        once for all in :meth:`finish`)."""
        no_folder = self.trail.snapshots.no_folder
        if no_folder and any(what.endswith(no_folder) for what in differences):
            self.unfoldered["records"] += 1
            differences = [what for what in differences if not what.endswith(no_folder)]
        return differences

    def _add_all(self, number: int, url: str, found: list[str]) -> None:
        for what in found:
            self.add(number, url, what)

    def finish(self) -> Verification:
        result = self.result
        chain = self.trail.chain
        result.lines, result.head = chain.lines, chain.head
        result.tree = self.tree.finish() if self.tree is not None else ""
        for problem in chain.problems:
            self.add(0, "", problem)
        if self.unfoldered:
            folder = self.trail.snapshots.directory
            self.add(0, "", f"there is no snapshot folder {folder} (a trail copied without "
                     f"it?): {self.unfoldered['snapshots']} snapshot(s) cannot be checked, "
                     f"nor {self.unfoldered['records']} record(s) re-derived from "
                     "them")  # fmt: skip
        self.finish_runs()
        return result


def verify(
    path: str | Path, heads: Iterable[str] = (), sink: Callable[[Finding], object] | None = None,
    keep: int = KEEP_FINDINGS, also: Sequence[str | Path] = (), key: str | None = None,
) -> Verification:  # fmt: skip
    """Check the trail at ``path`` (raises :class:`rep_engine.trail.read.TrailError` when
    it is not a trail at all, or ``key`` or a head file cannot be read). ``heads``: hashes
    of lines written down earlier (a former :attr:`Verification.head`), or the root of a
    tree head the crawl logged; each must still be the hash of a line of the chain (or the
    root of the lines before one of its tree heads), so a change of what was then the
    last line, or a cut at a line boundary, shows too; or a head file
    (``REP_AUDIT_HEAD_FILE``), each of its heads of this trail held to the lines it covers.
    ``key``: the operator's public key file, each tree head's signature checked with it.
    ``sink`` is called with each finding and event as it is found (in file order; those
    of the file as a whole last); the result keeps the first ``keep`` findings and counts
    them all. ``also``: the other trails checked with this one (several workers'): a
    snapshot is looked for in their folders too."""
    trail = Trail(path, also, any_schema=True)  # its runs' schemas are findings
    heads = [head.strip() for head in heads]
    files = [head for head in heads if not _SHA256.fullmatch(head)]
    anchors = [entry for name in files for entry in head_file_entries(name, trail.path)]
    verifier = Verifier(trail, sink, keep, key, anchors if files else None)
    verifier.others = [Path(other) for other in also if Path(other) != trail.path]
    wanted = {head.lower() for head in heads if head not in files}
    for line in trail.lines():
        if wanted and line.type == "head" and verifier.tree is not None:  # as the crawl logs it
            wanted.discard(verifier.tree.tree.root().hex())  # the root of the lines before
        verifier.feed(line)
        wanted.discard(trail.chain.head)
    result = verifier.finish()
    for head in sorted(wanted):
        what = (
            f"no line hashes to the head {head} written down earlier, nor is it a tree "
            "head's root of the lines before it: a line up to it was changed or cut"
        )
        verifier.add(0, "", what)
    verifier.flush()
    return result
