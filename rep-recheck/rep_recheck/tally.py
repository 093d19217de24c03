"""The counts of a recheck, for its summary and its exit status (pure): per status, per
origin (:mod:`~rep_recheck.perorigin`: arrays, about 50 bytes an origin), per
signal and purpose, per shard, and the changes since the crawl.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rep_engine.records import ItemStatus, Reason, RefusedBy
from rep_recheck.datasets import UNREADABLE, Item, changed_since
from rep_recheck.evidence import Evidence
from rep_recheck.names import PARSED_ORIGINS
from rep_recheck.perorigin import PerOrigin


@dataclass
class _Shard:
    """One shard's counts."""

    format: str
    statuses: Counter[str] = field(default_factory=Counter)


@dataclass
class Tally:
    """The counts of a recheck, for its summary and its exit status: per status, per
    origin (about 50 bytes an origin, at most ``held`` origins' names in memory), per
    signal and purpose."""

    purposes: tuple[str, ...]
    statuses: Counter[str] = field(default_factory=Counter)
    #: ``REP_RECHECK_PARSED_ORIGINS``: the origins' names held in memory.
    held: int = PARSED_ORIGINS
    origins: PerOrigin = field(init=False)
    #: ``(then -> now, signal)`` of every item whose status changed since the crawl.
    changes: Counter[tuple[str, str]] = field(default_factory=Counter)
    changed_purposes: Counter[str] = field(default_factory=Counter)
    #: Refusals by signal.
    signals: Counter[str] = field(default_factory=Counter)
    #: Items with a crawl-time status (a trail or an export).
    with_then: int = 0
    #: The first unreadable items: (line, why).
    unreadable: list[tuple[int, str]] = field(default_factory=list)
    #: The ``REP_PURPOSE_AGENTS`` tokens obeyed (lowercase), and the items the
    #: Disallow lines of their groups refused, by agent.
    named_agents: tuple[str, ...] = ()
    by_named_agent: Counter[str] = field(default_factory=Counter)
    #: Each shard's counts by status, in the order read (a collection of several
    #: files: :meth:`shard`; none for one file).
    shards: dict[str, _Shard] = field(default_factory=dict)
    #: The shard of the first unreadable items, by their place in :attr:`unreadable`.
    unreadable_in: list[str] = field(default_factory=list)
    #: The shard the items are added from (``""``: one file).
    current: str = ""
    #: ``--keep-unknown``: the unknown items are kept (written with the kept ones), not
    #: removed; every count of removed items says so.
    keep_unknown: bool = False

    def __post_init__(self) -> None:
        self.origins = PerOrigin(self.held, not self.keep_unknown)
        for purpose in self.purposes:
            self.origins.purpose(purpose)

    def shard(self, name: str, fmt: str) -> None:
        """The items added from now on are the shard ``name``'s, of format ``fmt``."""
        self.shards.setdefault(name, _Shard(fmt))
        self.current = name

    def add(self, item: Item, status: str, said: Evidence, origin: str | int) -> None:
        """One item counted; ``origin``: its origin's name, or its number in
        :attr:`origins` (a recheck grouped by origin numbers it as it decides)."""
        self.statuses[status] += 1
        shard = self.current
        if shard:
            self.shards[shard].statuses[status] += 1
        if status == UNREADABLE:
            if len(self.unreadable) < 20:
                self.unreadable.append((item.number, item.problem))
                self.unreadable_in.append(shard)
            return
        per = self.origins
        number = origin if isinstance(origin, int) else per.number(origin)
        counts, one = per.counts, per.one
        signal = _signal_name(said)
        if status == ItemStatus.KEPT:
            one(counts, "kept", number)
        elif status == ItemStatus.REFUSED:
            one(counts, "refused", number)
            self.signals[signal] += 1
            per.signal(number, signal)
            if said.purpose and said.signal == Reason.PURPOSE:
                # REP_PURPOSE_UNKNOWN = "deny": no signal allowed it, none said no
                one(counts, "by_policy", number)
            elif said.purpose:
                one(counts, "by_usage", number)
            else:
                one(counts, "by_access", number)
                if said.agent and said.agent.lower() in self.named_agents:
                    self.by_named_agent[said.agent] += 1
            for purpose in (said.purpose,) if said.purpose else self.purposes:
                per.purpose(purpose)
                one(per.purposes, purpose, number)
        elif status == ItemStatus.UNKNOWN:
            one(counts, "unknown", number)
            if per.unknown_removed:
                per.signal(number, "unknown")
        if (changed := changed_since(item.then, status)) is not None:
            self.with_then += 1
            if changed:
                self.changes[(f"{item.then} -> {status}", signal)] += 1
                self.changed_purposes[said.purpose or "every purpose"] += 1

    @property
    def items(self) -> int:
        return sum(self.statuses.values())

    @property
    def removed(self) -> int:
        """The items removed (written to ``--removed``): refused, unreadable, and unknown
        unless :attr:`keep_unknown`."""
        kept = self.statuses[ItemStatus.KEPT]
        return self.items - kept - (self.statuses[ItemStatus.UNKNOWN] if self.keep_unknown else 0)

    def close(self) -> None:
        """The origins' names forgotten (their SQLite file removed)."""
        self.origins.close()


def _signal_name(said: Evidence) -> str:
    if said.signal == RefusedBy.ROBOTS_TXT:
        return "robots.txt Disallow" if said.reason else "robots.txt"
    return said.signal or "-"
