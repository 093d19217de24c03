"""The run-level checks of ``audit verify`` (pure): each run whole, each ``repair`` line
where a cut took a run's next line, each resumed run found ended (point 2 of the module
docstring of :mod:`rep_audit.verify`; docs/audit-trail.md, ``audit verify``)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from rep_audit.across import runs_in
from rep_audit.findings import Finding, Findings
from rep_audit.runcontext import RunContext
from rep_engine.records import FATES, mapping, text, whole
from rep_engine.trail.file import being_written
from rep_engine.trail.lines import SITE_SETTINGS
from rep_engine.trail.read import Line, is_sha256, unknown_schema

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
        self.crawls[run_id] = story
        if problem := context.page.problem(context.purposes):
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
            self.add(run.start, "", f"run {run.context.run[:8]} has no end line: it was "
                     f"open when the repair at line {number} dropped a cut line (the crawl "
                     "was killed, or lines were cut from the trail's end before the "
                     f"repair): nothing of it after line {run.last} is in the trail")  # fmt: skip

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
        if record.get("reason") == "interrupted":  # a recheck whose fetch was stopped
            self.add(number, "", f"run {run.context.run[:8]} was interrupted: its fetch "
                     "stopped before every document was had (the items of the origins "
                     "not fetched are unknown); not a whole recheck", event=True)  # fmt: skip
        elif record.get("reason") == "failed":  # a recheck stopped half-way (a shard failed)
            counted = whole(mapping(record.get("counts")).get("items")) or 0
            self.add(number, "", f"run {run.context.run[:8]} failed: "
                     f"{text(record.get('error')) or 'no error said'}: it stopped with "
                     f"{counted:,} item(s) decided, the others not; not a whole recheck "
                     "(its --out, --removed and --report were not written)",
                     event=True)  # fmt: skip
        run.end_hash = hashlib.sha256(line.raw).hexdigest()
        counts = mapping(record.get("counts"))
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
        for run in unended:
            if writing and run is unended[-1]:  # the run of the crawl that holds the lock
                self.add(run.start, "", f"run {run.context.run[:8]} has no end line yet: a "
                         "crawl is writing the trail now (it holds its lock); verify it "
                         "again once that crawl has closed")  # fmt: skip
            else:
                self.add(run.start, "", f"run {run.context.run[:8]} has no end line: the crawl "
                         "was killed, or the trail was cut after it")  # fmt: skip
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
