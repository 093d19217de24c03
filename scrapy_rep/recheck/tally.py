"""The counts of a recheck, for its summary and its exit status (pure): per status, per
origin (memory grows with the origins, never the items), per signal and purpose, per
shard, and the changes since the crawl.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from scrapy_rep.recheck.datasets import Item, changed_since
from scrapy_rep.recheck.evidence import UNREADABLE, Evidence
from scrapy_rep.recheck.rechecker import Status

#: What an origin's :attr:`_Origin.purposes` and :attr:`_Origin.signals` are until its
#: first refused or unknown item (never written: :meth:`Tally.add` gives it its own).
_NONE: Counter[str] = Counter()


class _Origin:
    """One origin's counts, in slots and without a counter until one is needed: a
    million origins are held at once, most of them with every item kept."""

    __slots__ = ("by_access", "by_usage", "kept", "purposes", "refused", "signals", "unknown")

    def __init__(self) -> None:
        self.kept = self.refused = self.unknown = 0
        #: Items refused per purpose.
        self.purposes: Counter[str] = _NONE
        #: The signals that removed its items (the first: the one that removed most).
        self.signals: Counter[str] = _NONE
        #: Items refused by a usage signal (a purpose's "no"), and by an access rule
        #: (robots.txt's Allow/Disallow, a page's noindex or unavailable_after).
        self.by_usage = 0
        self.by_access = 0

    @property
    def total(self) -> int:
        """Its items."""
        return self.kept + self.refused + self.unknown

    @property
    def statuses(self) -> Counter[str]:
        """Its items by status (made when read: the summary reads it)."""
        return Counter({"kept": self.kept, "refused": self.refused, "unknown": self.unknown})


@dataclass
class _Shard:
    """One shard's counts."""

    format: str
    statuses: Counter[str] = field(default_factory=Counter)


@dataclass
class Tally:
    """The counts of a recheck, for its summary and its exit status: per status, per
    origin (memory grows with the origins, never the items), per signal and purpose."""

    purposes: tuple[str, ...]
    statuses: Counter[str] = field(default_factory=Counter)
    origins: dict[str, _Origin] = field(default_factory=dict)
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

    def shard(self, name: str, fmt: str) -> None:
        """The items added from now on are the shard ``name``'s, of format ``fmt``."""
        self.shards.setdefault(name, _Shard(fmt))
        self.current = name

    def add(self, item: Item, status: str, said: Evidence, origin: str) -> None:
        self.statuses[status] += 1
        shard = self.current
        if shard:
            self.shards[shard].statuses[status] += 1
        if status == UNREADABLE:
            if len(self.unreadable) < 20:
                self.unreadable.append((item.number, item.problem))
                self.unreadable_in.append(shard)
            return
        counts = self.origins.get(origin)
        if counts is None:
            counts = self.origins[origin] = _Origin()
        signal = _signal_name(said)
        if status == Status.KEPT:
            counts.kept += 1
        elif counts.signals is _NONE:
            counts.signals, counts.purposes = Counter(), Counter()
        if status == Status.REFUSED:
            counts.refused += 1
            self.signals[signal] += 1
            counts.signals[signal] += 1
            if said.purpose:
                counts.by_usage += 1
            else:
                counts.by_access += 1
                if said.agent and said.agent.lower() in self.named_agents:
                    self.by_named_agent[said.agent] += 1
            for purpose in (said.purpose,) if said.purpose else self.purposes:
                counts.purposes[purpose] += 1
        elif status == Status.UNKNOWN:
            counts.unknown += 1
            counts.signals["unknown"] += 1
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
        return self.items - self.statuses[Status.KEPT]


def _signal_name(said: Evidence) -> str:
    if said.signal == "robots.txt":
        return "robots.txt Disallow" if said.reason else "robots.txt"
    return said.signal or "-"
