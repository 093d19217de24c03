"""What ``audit verify`` finds (:class:`Finding`), its result (:class:`Verification`), the
runs of a datatrove pipeline's tasks it read (:class:`TaskRun`), and the collector that
counts the findings, keeps the first ones and streams each to the caller's ``sink``
(:class:`Findings`) (pure)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

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


#: The counts of a task's ``end`` line that a pipeline run's are the sums of.
ITEM_COUNTS: Final = ("items", "items_kept", "items_refused", "items_unknown", "unreadable")


@dataclass
class TaskRun:
    """A run of one task of a datatrove pipeline run (the recheck's step: its header's
    ``recheck.pipeline``, docs/audit-trail.md, "Several tasks"), as verify read it."""

    #: The pipeline run's id, this task's number (its rank) and how many tasks it has.
    pipeline: str
    task: int
    tasks: int
    #: Its run's id, and the line of its ``run`` line.
    run: str
    line: int
    #: Its ``end`` line's ``reason`` (``""``: it has none).
    ended: str = ""
    #: Its ``end`` line's counts of items (:data:`ITEM_COUNTS`).
    counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, run: str, line: int, said: Any) -> TaskRun | None:
        """The task a run header's ``recheck.pipeline`` (``said``) names (``None``: it
        names none, being no object of a 32-hex-digit ``id``, a ``task`` of 0 or more
        and ``tasks`` above it)."""
        if not isinstance(said, dict):
            return None
        pipeline, task, tasks = said.get("id"), said.get("task"), said.get("tasks")
        if (
            not isinstance(pipeline, str)
            or len(pipeline) != 32
            or pipeline.strip("0123456789abcdef")
        ):
            return None
        if type(task) is not int or type(tasks) is not int or not 0 <= task < tasks:
            return None
        return cls(pipeline, task, tasks, run, line)


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
    #: What the trail's tree heads come to (:mod:`rep_audit.treeheads`), in a sentence.
    tree: str = ""
    #: The first findings (at most the ``keep`` of :func:`verify`), in file order.
    findings: list[Finding] = field(default_factory=list)
    #: How many findings there were in all.
    problems: int = 0
    #: The events (:attr:`Finding.event`: a repair), the first ``KEEP_FINDINGS``; they do
    #: not make the trail unclean.
    events: list[Finding] = field(default_factory=list)
    event_count: int = 0
    #: How several trails were read (as separate crawls, each checked on its own:
    #: :func:`rep_audit.across.crawls`), for the reader.
    notes: list[str] = field(default_factory=list)
    #: The runs of a datatrove pipeline's tasks the trail holds, in file order (read as
    #: one run with the other tasks': :func:`rep_audit.across.pipelines`).
    tasks: list[TaskRun] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.problems


class Findings:
    """The findings of one trail as they are found: counted, the first kept, each handed
    to ``sink`` (held back until a line shows the file is a trail)."""

    def __init__(self, path: Path, sink: Callable[[Finding], object] | None, keep: int) -> None:
        self.result = Verification(path)
        self.sink = sink
        self.keep = keep
        #: Findings held back until a line shows the file is a trail (a file that is not
        #: one is an error, not a list of findings), at most ``KEEP_FINDINGS``.
        self.pending: list[Finding] | None = []

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
