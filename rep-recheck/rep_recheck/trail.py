"""The recheck's own audit trail (docs/audit-trail.md, ``item``), in the trail's format
and chain (:mod:`rep_engine.trail.file`), so that ``audit verify`` checks it as it
checks a crawl's (pure).

One run: its ``run`` line (the settings the items were decided under, ``spider``
``"recheck"``, and what was re-checked) and its ``setting`` lines, a ``snapshot`` line
and the stored body of each document version that decided (a WARC capture's line names
its ``warc_record``), one ``item`` line per item decided, and the ``end`` line with their
counts (then the file's ``site`` lines and tree head, signed with
``REP_AUDIT_SIGNING_KEY``). An ``item`` line
holds the parts of a crawl's ``url`` record that its decision is re-derived from
(``robots``, ``usage``, ``tdmrep``, ``rsl``, and with ``--pages`` the page's ``page``),
with its ``status`` now (``kept``, ``refused``, ``unknown``), ``refused_by`` and ``why``
(``page`` and ``item_reason`` for a refusal after the fetch), and with a trail or export
as input its status ``then`` and whether it ``changed``; the item's ``line`` in the
dataset, and its ``shard`` (the file it is in) when the collection is several files.
A run stopped half-way (a shard that fails after its first items) ends with an ``end``
line whose ``reason`` is ``failed`` and whose ``error`` says why (:meth:`RecheckTrail.fail`).
"""

from __future__ import annotations

import uuid
import zlib
from collections import Counter
from collections.abc import Hashable
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any, Final

from rep_audit.treeheads import head_options
from rep_engine.directives import product_token
from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import DocumentKind
from rep_engine.records import REFUSED_BY, EndReason, ItemStatus, RefusedBy, RobotsPart, iso_time
from rep_engine.robotstxt import Decision
from rep_engine.trail import lines
from rep_engine.trail.file import EMPTY_SHA256, TrailFile
from rep_engine.trail.read import tail_of
from rep_engine.verdict.decide import LICENSE, TDM, Allowed, Obey, Refused, Verdict, Wait
from rep_engine.verdict.page import PageStatements
from rep_engine.verdict.policy import NOTHING_BEFORE
from rep_recheck.datasets import Item, changed_since
from rep_recheck.documents import OriginDocuments
from rep_recheck.names import Numbered, names_held
from rep_recheck.rechecker import Outcome, Rechecker
from rep_recheck.stopping import Held

#: The ``spider`` of a recheck's run line.
SPIDER: Final = "recheck"


class _Settings:
    """The crawl settings :func:`rep_engine.trail.lines.run_line` reads, for a recheck."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def getbool(self, name: str) -> bool:
        return bool(self.values.get(name))


class _WholeLines(TrailFile):
    """The trail's file, each line (with what an end line brings) and snapshot written
    whole whenever a signal comes (:class:`~rep_recheck.stopping.Held`): a stop never
    cuts one, nor leaves the chain behind the file."""

    def write(self, record: dict[str, Any]) -> None:
        with Held():
            super().write(record)

    def write_snapshot(self, sha256: str, body: bytes) -> None:
        with Held():
            super().write_snapshot(sha256, body)


class RecheckTrail:
    """Writes one recheck's run to the trail at ``path`` (appended to, chained on)."""

    def __init__(
        self,
        path: Path,
        rechecker: Rechecker,
        about: dict[str, Any],
        user_agent: str,
        purpose_agents: Any = None,
    ) -> None:
        """``purpose_agents``: ``REP_PURPOSE_AGENTS`` as given, its presets named in the
        header (the config holds their names only)."""
        #: The trail's highest request number: its end line says it on (a recheck sends
        #: no request of its own).
        self.last_request = tail_of(path).last_request if path.exists() else 0
        self.file = _WholeLines(path, head_options(rechecker.config, path))
        self.run = uuid.uuid4().hex
        self.rechecker = rechecker
        identity = rechecker.identity
        settings = _Settings({
            "USER_AGENT": user_agent,
            "ROBOTSTXT_USER_AGENT": identity.declared if identity.declared != user_agent else None,
            "ROBOTSTXT_OBEY": identity.obey_robots,
            # its crawl (toolcrawl.WRITES_NOTHING) and a WARC recheck run none
            "REMOTE_CONTROL_ENABLED": False,
            "REP_PURPOSE_AGENTS": purpose_agents,
        })  # fmt: skip
        header = lines.run_line(self.run, rechecker.config, settings, SPIDER, None, None)
        header["recheck"] = about
        self.file.write(header)
        for line in lines.setting_lines(self.run, rechecker.config):
            self.file.write(line)
        #: ``sha256 URL`` of the snapshot lines written (a million origins' at most
        #: ``REP_RECHECK_PARSED_ORIGINS`` in memory, the others in an SQLite file).
        self._snapshots = Numbered(names_held(rechecker.config.recheck_parsed_origins))
        self.counts: Counter[str] = Counter()
        #: While a recheck decides its items grouped by origin
        #: (:mod:`~rep_recheck.grouping`): what the item being decided writes (the names
        #: of the snapshots it names, ``sha256 URL``, and its ``item`` line), for
        #: :meth:`replay` in the dataset's order (``None``: written at once).
        self.recording: list[Any] | None = None
        #: The snapshot lines of the group being decided, by name.
        self._group_lines: dict[str, dict[str, Any]] = {}

    def snapshot(
        self,
        kind: DocumentKind[Any],
        key: Hashable,
        entry: CacheEntry[Any],
        documents: OriginDocuments,
    ) -> str:
        """The snapshot name of ``entry``'s body, stored and announced once (``""``: a
        document given up on, nothing read)."""
        if entry.unreachable:
            return ""
        url = kind.url(key)
        sha = entry.sha256 or EMPTY_SHA256
        name = f"{sha} {url}"
        if self.recording is not None:
            self.recording.append(name)
            if name in self._group_lines:
                return sha
        elif self._is_written(name):
            return sha
        body = zlib.decompress(entry.body_zlib) if entry.body_zlib else b""
        self.file.write_snapshot(sha, body)
        line = lines.snapshot_line(
            self.run, entry.sha256, kind.name, url, entry.final_url, entry.status,
            entry.outcome, entry.fetched_at, len(body),
        )  # fmt: skip
        record = documents.records.get((kind.name, key))
        if record:
            line["warc_record"] = record
        if self.recording is not None:
            self._group_lines[name] = line
        else:
            self.file.write(line)
        return sha

    def _is_written(self, name: str) -> bool:
        """Whether the snapshot line ``name`` (``sha256 URL``) was written; it is from now."""
        written = len(self._snapshots)
        return self._snapshots.number(name) < written

    def settle(self, writes: list[list[Any] | None]) -> None:
        """A group's recorded writes, in the dataset's order (one list per item): each
        snapshot line kept with the first item of the group that names it, the others'
        names dropped. An origin's robots.txt and tdmrep.json are in its group alone, so
        their first item in the group is their first in the dataset; a license that
        items of several groups name is written once by :meth:`replay`, before the first
        of them."""
        seen: set[str] = set()
        lines = self._group_lines
        for item in writes:
            if not item:
                continue
            kept: list[Any] = []
            for write in item:
                if type(write) is not str:
                    kept.append(write)
                elif write not in seen:
                    seen.add(write)
                    kept.append((write, lines[write]))
            item[:] = kept
        lines.clear()

    def replay(self, writes: list[Any]) -> None:
        """An item's recorded writes (:meth:`settle`), in the dataset's order: its
        snapshot lines not written yet, its ``item`` line."""
        for write in writes:
            if type(write) is tuple:
                name, line = write
                if self._is_written(name):
                    continue
                self.file.write(line)
            else:
                self._write_item(write)

    def item(
        self,
        item: Item,
        outcome: Outcome,
        statements: PageStatements | None = None,
        decided: float = 0.0,
        shard: str = "",
    ) -> None:
        """The ``item`` line of a decided item; ``decided``: when its page was decided
        (POSIX seconds, ``--pages``), which ``audit verify`` decides it at again;
        ``shard``: the file it is in, when the collection is several (its ``line`` is
        that file's)."""
        record: dict[str, Any] = {"type": "item", "run": self.run, "time": iso_time()}
        if shard:
            record["shard"] = shard
        record |= {"line": item.number, "url": item.url, "status": str(outcome.status)}
        if item.then is not None:
            record["then"] = item.then
            if (changed := changed_since(item.then, str(outcome.status))) is not None:
                record["changed"] = changed
        refusal = outcome.refusal
        if outcome.page_refusal is not None:
            record["refused_by"] = RefusedBy.PAGE
            record["item_reason"] = str(outcome.page_refusal.reason)
            record["why"] = outcome.page_refusal.message
        elif refusal is not None:
            record["refused_by"] = str(REFUSED_BY.get(refusal.reason, refusal.reason))
            record["why"] = refusal.message
        elif outcome.status is ItemStatus.UNKNOWN:
            record["refused_by"] = RefusedBy.UNREACHABLE
            record["why"] = outcome.why
        self._documents(record, outcome)
        if self.rechecker.not_consulted:  # --consult: what it was decided without
            record["not_consulted"] = list(self.rechecker.not_consulted)
        if outcome.payment:  # its page answered 402: what it said of its price
            record["payment"] = outcome.payment
        if outcome.page is not None and statements is not None:
            when = datetime.fromtimestamp(decided, timezone.utc) if decided else None
            record["page"] = lines.page_part(
                self.rechecker.tokens, statements.headers, statements.meta, decided=when
            )
        if self.recording is not None:
            self.recording.append(record)  # counted when written (replay)
        else:
            self._write_item(record)

    def _write_item(self, record: dict[str, Any]) -> None:
        """An ``item`` line written and counted: the end line counts the items the trail
        holds, those of a run that failed half-way too (a grouped item decided but not
        written back is not one of them)."""
        self.counts["items"] += 1
        self.counts[f"items_{record['status']}"] += 1
        self.file.write(record)

    def _documents(self, record: dict[str, Any], outcome: Outcome) -> None:
        """The document versions the item was decided with: its ``robots`` part, the
        ``tdmrep`` and ``rsl`` it names and its ``usage`` decision, as a crawl's record
        (:func:`~rep_engine.trail.lines.documents_of`,
        :func:`~rep_engine.trail.lines.robots_part_of`)."""
        verdict, documents = outcome.verdict, outcome.documents
        if verdict is None or documents is None or not verdict.used:
            return
        named = lines.documents_of(
            verdict.used, partial(self.snapshot, documents=documents), documents.not_consulted
        )
        record |= named.fields
        robots = verdict.used[0][2]
        decision = getattr(verdict, "robots", None)
        if isinstance(verdict, Wait):
            # Unknown: a document it needs was not had. Said as a crawl says a document
            # given up on (``""``), with robots.txt's line, so that `audit verify` holds
            # the item against what was had (an item its snapshots decide is not unknown).
            if verdict.document == TDM:
                record["tdmrep"] = ""
            elif verdict.document == LICENSE:
                licenses = dict.fromkeys(map(str, (verdict.key, *verdict.also)), "")
                record["rsl"] = record.get("rsl", {}) | licenses
            if not robots.unreachable:
                decision = robots.rules.decide(record["url"], self.rechecker.agent)
        if (part := self._robots(verdict, decision, robots, named.robots)) is not None:
            record["robots"] = part.part()
        before = getattr(verdict, "before", NOTHING_BEFORE)
        decision_now = outcome.page.usage if outcome.page is not None else None
        if decision_now is None and before is not NOTHING_BEFORE:
            decision_now = before.decision()
        if decision_now is not None and decision_now.signals:
            record["usage"] = lines.usage_part(
                decision_now, named.robots, named.fields.get("tdmrep", ""), record.get("rsl", {})
            )

    def _robots(
        self,
        verdict: Verdict,
        decision: Decision | None,
        robots: CacheEntry[Any],
        robots_sha: str,
    ) -> RobotsPart | None:
        """The item's ``robots`` part: the agent whose group decided it, the line and why
        (robots.txt not obeyed, given up on, or an override that held or expired)."""
        rechecker = self.rechecker
        agent = rechecker.agent
        if isinstance(verdict, Refused):
            agent = verdict.robots_agent or verdict.agent
        elif isinstance(verdict, Allowed):
            agent = verdict.robots_agent or agent
        agent = product_token(agent) or agent
        not_obeyed = "" if rechecker.obey is Obey.ALL else "ROBOTSTXT_OBEY"
        return lines.robots_part_of(verdict, decision, robots, robots_sha, agent,
                                    rechecker.names, not_obeyed)  # fmt: skip

    def fail(self, why: str, unreadable: int = 0) -> bool:
        """The ``end`` line of a run stopped before every item was decided (a shard that
        failed half-way): ``reason`` ``failed``, the ``error``, and the counts of the
        items written before it. ``False``: it could not be written (the trail's own
        error), the run is left without it."""
        counts = dict(self.counts)
        if unreadable:
            counts["unreadable"] = unreadable
        line = lines.end_line(self.run, EndReason.FAILED, counts, self.last_request)
        line["error"] = why
        try:
            self.file.write(line)
            self.file.close()
        except Exception:  # the error that stopped the run is the one said
            return False
        return True

    def close(self, unreadable: int = 0, reason: EndReason = EndReason.FINISHED) -> str:
        """The ``end`` line (``reason``: ``finished``, or ``interrupted``: the fetch was
        stopped before every document was had); the SHA-256 of the trail's last line."""
        counts = dict(self.counts)
        if unreadable:
            counts["unreadable"] = unreadable
        self.file.write(lines.end_line(self.run, reason, counts, self.last_request))
        head = self.file.prev
        self.file.close()
        return head
