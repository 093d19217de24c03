"""Several trails checked as one (``audit verify`` of several workers' trails, pure):
each request's final records in different trails tied by ``again``, or a re-queue
after a crash (docs/audit-trail.md); and where runs a trail resumes are among the others.
Trails of separate crawls given together are told apart by their runs' headers
(:func:`crawls`): only the trails of one crawl are checked against each other. The
trails of a datatrove pipeline's tasks (the recheck's step) are one run each pipeline
run (:func:`pipelines`): every task's, once, ended whole."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Final

from rep_audit.findings import ITEM_COUNTS, Finding, TaskRun, Verification
from rep_engine.records import EndReason, Fate, RunHeader, items, mapping, text
from rep_engine.trail.read import Trail, TrailError

#: A record's fields that say what a callback of the crawl gave for its page (items kept
#: or dropped, links not followed): the crawl writes none of them on the record of a
#: request downloaded without the scheduler.
_OUTPUT_FIELDS: Final = ("items_kept", "items_dropped", "item_reason", "links_not_followed")


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


#: Scrapy's own scheduler: its queue is one process's (``JOBDIR``: one process at a time),
#: shared with no other worker.
SCRAPY_SCHEDULER: Final = "scrapy.core.scheduler.Scheduler"


def _one_crawl(first: RunHeader, second: RunHeader) -> bool:
    """Whether two runs may be of one crawl: one resumes the other (``JOBDIR``), or both
    ran the same spider for the same purposes and agents, with a scheduler that may share
    its queue (not Scrapy's own; a header that does not say which: it may) or with one
    robots.txt store (the same Redis: workers given their URLs by hand)."""
    if first.run in (second.resumes, second.run) or second.run == first.resumes:
        return True
    same = (first.spider, first.purposes, first.agents)
    if same != (second.spider, second.purposes, second.agents):
        return False
    shared_store = bool(first.store) and first.store == second.store
    return shared_store or SCRAPY_SCHEDULER not in (first.scheduler, second.scheduler)


def crawls(
    heads: Sequence[Sequence[RunHeader]], names: Sequence[str], workers: bool | None = None
) -> tuple[list[int], list[str]]:
    """Which crawl each trail is of (a number per trail, the first trail's crawl ``0``),
    by its runs' ``heads``, and what the reader is told of it. Two trails are of one crawl
    (workers sharing a queue, such as scrapy-redis's, checked against each other) when a
    run of one may be of the crawl of a run of the other (:func:`_one_crawl`), or a trail
    has no run header to tell (in doubt, they are compared); else they are separate crawls
    (one for search, one for ai-train; two runs of Scrapy's own scheduler), each checked on
    its own. ``workers``: ``True`` compares them all as one crawl, ``False`` none,
    whatever their headers say (``--workers``, ``--separate``)."""
    count = len(heads)
    group = list(range(count))

    def root(index: int) -> int:
        while group[index] != index:
            index = group[index]
        return index

    pairs = [] if workers is False else combinations(range(count), 2)
    for first, second in pairs:
        if (
            workers
            or not heads[first]
            or not heads[second]
            or any(_one_crawl(a, b) for a in heads[first] for b in heads[second])
        ):
            group[root(second)] = root(first)
    numbers: dict[int, int] = {}
    crawl = [numbers.setdefault(root(index), len(numbers)) for index in range(count)]
    if len(numbers) < 2:
        return crawl, []
    how = "as --separate asks" if workers is False else "by their runs' headers"
    notes = [
        f"read as {len(numbers)} separate crawls, {how} (workers of one crawl share its "
        "spider, purposes and agents, and a queue (not Scrapy's own scheduler) or a "
        "robots.txt store); only the trails of one crawl are checked against each other "
        "(--workers: all of them):"
    ]
    for number in range(len(numbers)):
        trails = [index for index in range(count) if crawl[index] == number]
        said = "; ".join(dict.fromkeys(head.said() for i in trails for head in heads[i]))
        notes.append(f"  crawl {number + 1}: {', '.join(names[i] for i in trails)} "
                     f"({said or 'no run header'})")  # fmt: skip
    return crawl, notes


def across(
    paths: Sequence[str | Path],
    sink: Callable[[Path, Finding], object] | None = None,
    workers: bool | None = None,
) -> tuple[int, int, list[str]]:
    """Several trails checked as one (workers sharing a queue, such as scrapy-redis, each
    writing its own trail; trails of separate crawls given together are read apart,
    :func:`crawls`): a request with final records in two trails of one crawl (the same URL key,
    the request fingerprint before the ``-`` of each record's ``id``) must have them tied
    by ``again`` (either one naming the other: a record is written when its fate is
    final, so the one sent again may be written first), unless it is a re-queue after a
    crash: the earlier record was left open (``unfinished``, or its run has no end line)
    in one worker's trail and the request was finished in another's (an event). Each
    problem and event goes to ``sink`` with the trail it is in (the later record's); the
    counts of problems and events. A record of a request downloaded without the
    scheduler (``unscheduled``: a media pipeline's file, a callback's ``download_async``;
    no shared dupefilter let it through, so another worker's record of its URL is another
    request) is not compared when it is accounted for (named by a page's ``fetched`` part
    or by a ``file`` line of its run) or has no output of its own (no callback of the
    crawl ran for it); any other is. Keeps each request's final record in memory as one
    small tuple. The counts of problems and events, and what the reader is told of how
    the trails were read (:func:`crawls`)."""
    finals, ended, heads = _finals(paths)
    problems = events = 0
    names = [Path(path).name for path in paths]
    crawl, notes = crawls(heads, names, workers)
    for records in finals.values():
        if len({r.trail for r in records}) < 2:
            continue
        for number in dict.fromkeys(crawl[r.trail] for r in records):
            ones = [r for r in records if crawl[r.trail] == number]
            if len({r.trail for r in ones}) < 2:
                continue
            ones.sort(key=lambda r: (r.time, r.trail, r.line))
            for final, finding in _unpaired(ones, ended, names):
                events += finding.event
                problems += not finding.event
                if sink is not None:
                    sink(Path(paths[final.trail]), finding)
    return problems, events, notes


def _finals(
    paths: Sequence[str | Path],
) -> tuple[dict[str, list[_Final]], set[tuple[int, str]], list[list[RunHeader]]]:
    """The final records of the trails at ``paths`` by URL key (those of requests
    downloaded without the scheduler only when compared: :func:`across`), the runs
    (trail, run id) that have an end line, and each trail's run headers."""
    finals: dict[str, list[_Final]] = {}
    ended: set[tuple[int, str]] = set()
    heads: list[list[RunHeader]] = [[] for _ in paths]
    accounted: set[tuple[int, str, str]] = set()
    unscheduled: list[tuple[str, str, _Final]] = []
    for number, path in enumerate(paths):
        for line in Trail(path, any_schema=True).lines():  # verify's: schemas its findings
            record = line.record
            if record is None:
                continue
            run = str(record.get("run", ""))
            if line.type == "run":
                heads[number].append(RunHeader.of(record))
            elif line.type == "end":
                ended.add((number, run))
            elif line.type == "file":
                accounted.add((number, run, str(record.get("url", ""))))
            elif line.type == "url":
                url = str(record.get("url", ""))
                final = _Final(number, line.number, str(record.get("time", "")),
                               str(record.get("id", "")), str(record.get("again") or ""),
                               run, str(record.get("fate", "")), url)  # fmt: skip
                # the URL key (docs/audit-trail.md, ``id``: the request fingerprint, before
                # the ``-`` of its number; schema 1: the whole ``id``), else its URL
                key = final.id.partition("-")[0] or f"url {url}"
                for sub in items(mapping(record.get("page")).get("fetched")):
                    if isinstance(sub, dict):
                        accounted.add((number, run, text(sub.get("url"))))
                if not record.get("unscheduled"):
                    finals.setdefault(key, []).append(final)
                elif any(field in record for field in _OUTPUT_FIELDS):  # a callback's output:
                    # compared unless what fetched it names it
                    unscheduled.append((key, url, final))
    for key, url, final in unscheduled:
        if (final.trail, final.run, url) not in accounted:
            finals.setdefault(key, []).append(final)
    return finals, ended, heads


def _unpaired(
    records: list[_Final], ended: set[tuple[int, str]], names: list[str]
) -> Iterator[tuple[_Final, Finding]]:
    """Each of a request's final ``records`` (in the order written) that one in another
    trail before it is not tied to by ``again``: a problem, or an event when it finished
    a request left open there (a re-queue after a crash)."""
    for place, final in enumerate(records):
        before = [r for r in records[:place] if r.trail != final.trail]
        if (
            not before
            or any(  # tied by again, either naming the other
                (final.again and final.again == r.id) or (r.again and r.again == final.id)
                for r in records[:place]
            )
        ):
            continue
        left = [r for r in before if r.fate == Fate.UNFINISHED or (r.trail, r.run) not in ended]
        if left:
            first = left[-1]
            how = Fate.UNFINISHED if first.fate == Fate.UNFINISHED else "open (no end line)"
            yield final, Finding(final.line, final.url, f"re-queued after a crash: left {how} "
                                 f"in {names[first.trail]} line {first.line}, finished here",
                                 event=True)  # fmt: skip
        else:
            first = before[-1]
            yield final, Finding(final.line, final.url, "a second final record of this URL (the "
                                 f"first: {names[first.trail]} line {first.line}, {first.fate}), "
                                 "not tied to it by `again`")  # fmt: skip


def runs_in(paths: Sequence[Path], wanted: set[str]) -> dict[str, tuple[Path, set[str]]]:
    """Where each run of ``wanted`` is among the trails at ``paths`` (the first that has
    its run line), with the SHA-256 of each of its end lines there."""
    found: dict[str, tuple[Path, set[str]]] = {}
    for path in paths:
        try:
            for line in Trail(path, any_schema=True).lines():
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


def pipelines(
    results: Sequence[Verification],
) -> tuple[list[tuple[Path | None, Finding]], list[str]]:
    """The runs of the tasks of each datatrove pipeline run in the trails verified
    (``results``: each trail's :attr:`~rep_audit.findings.Verification.tasks`) read as
    one run (docs/audit-trail.md, "Several tasks"): every task its header's ``tasks``
    counts has a run in them, in one trail, and the last run of each (a task run again
    after it failed appends its run) ended ``finished``; a run given twice (a trail
    copied, or given twice) is reported. Each finding with the trail it is of (``None``:
    of the pipeline run, a task missing), and one line per pipeline run: its tasks
    given and its items, counted from each task's last run."""
    by_pipeline: dict[str, list[tuple[Path, TaskRun]]] = {}
    for result in results:
        for task in result.tasks:
            by_pipeline.setdefault(task.pipeline, []).append((result.path, task))
    found: list[tuple[Path | None, Finding]] = []
    said = []
    for pipeline, runs in by_pipeline.items():
        tasks = max(task.tasks for _, task in runs)
        named = f"pipeline run {pipeline[:8]}"
        by_task: dict[int, list[tuple[Path, TaskRun]]] = {}
        seen: dict[str, Path] = {}
        for path, task in runs:
            if task.run in seen:
                found.append((path, Finding(task.line, "", f"{named}: run {task.run[:8]} (task "
                              f"{task.task}) is in {seen[task.run]} too: a task's trail given "
                              "twice, or copied")))  # fmt: skip
                continue
            seen[task.run] = path
            by_task.setdefault(task.task, []).append((path, task))
            if task.tasks != tasks:
                found.append((path, Finding(task.line, "", f"{named}: run {task.run[:8]} says "
                              f"it has {task.tasks} task(s), another of its tasks {tasks}: "
                              "they are not one run's")))  # fmt: skip
        if missing := [number for number in range(tasks) if number not in by_task]:
            shown = ", ".join(map(str, missing[:20])) + (", …" if len(missing) > 20 else "")
            found.append((None, Finding(0, "", f"{named} has {tasks} task(s); no trail given "
                          f"holds a run of {len(missing)} of them (task {shown}): their "
                          "documents' decisions are missing (give every task's trail, "
                          "audit verify FOLDER/*.jsonl)")))  # fmt: skip
        totals = dict.fromkeys(ITEM_COUNTS, 0)
        for number in sorted(by_task):
            attempts = by_task[number]
            found += _task_problems(named, number, attempts)
            path, last = attempts[-1]
            if last.ended == EndReason.FINISHED:
                for name in ITEM_COUNTS:
                    totals[name] += last.counts.get(name, 0)
        unreadable = f", {totals['unreadable']:,} unreadable" if totals["unreadable"] else ""
        said.append(f"{named}{pipeline[8:]}: the trails of {len(by_task):,} of its {tasks:,} "
                    f"task(s), {totals['items']:,} item(s): {totals['items_kept']:,} kept, "
                    f"{totals['items_refused']:,} refused, {totals['items_unknown']:,} "
                    f"unknown{unreadable}")  # fmt: skip
    return found, said


def _task_problems(
    named: str, number: int, attempts: list[tuple[Path, TaskRun]]
) -> list[tuple[Path | None, Finding]]:
    """What is wrong with the runs of one task (``attempts``, in the order read), and the
    events of it run again: its runs in several trails, its last not ended
    ``finished``, an earlier one that ended and was run again all the same."""
    found: list[tuple[Path | None, Finding]] = []
    path, last = attempts[-1]
    trails = list(dict.fromkeys(str(where) for where, _ in attempts))
    if len(trails) > 1:
        found.append((path, Finding(last.line, "", f"{named}: task {number} has runs in "
                      f"{len(trails)} trails ({', '.join(trails)}): a task writes one "
                      "trail")))  # fmt: skip
    if last.ended != EndReason.FINISHED:
        how = f"ended {last.ended}" if last.ended else "has no end line"
        found.append((path, Finding(last.line, "", f"{named}: the last run of task {number} "
                      f"(run {last.run[:8]}) {how}: the pipeline run is not whole (its "
                      "task's documents were not all decided)")))  # fmt: skip
    for where, task in attempts[:-1]:
        if task.ended == EndReason.FINISHED:
            found.append((where, Finding(task.line, "", f"{named}: task {number}'s run "
                          f"{task.run[:8]} ended, and the task was run again (run "
                          f"{last.run[:8]}, line {last.line}: datatrove runs again a task "
                          "that failed after this step ended): the later run's items are "
                          "the task's", event=True)))  # fmt: skip
    return found
