"""What ``audit verify`` finds (:class:`Finding`), its result (:class:`Verification`), and
the collector that counts them, keeps the first ones and streams each to the caller's
``sink`` (:class:`Findings`) (pure)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

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
