"""What a recheck says (pure): the line per item, its status now and its evidence; the
counts of the whole collection; and their Markdown summary.

The evidence of an item's status now (:class:`Evidence`; kept per outcome by
:class:`EvidenceMemo`): the deciding signal (``robots.txt`` for an Allow/Disallow line,
a signal's vocabulary: ``aipref``, ``content-signal``, ``tdmrep``, ``rsl``; after the
fetch the page's ``noindex``…), the document it is in (its URL), the line (or
tdmrep.json entry) and its text, the document's SHA-256, and when it was fetched or
captured (with the WARC-Record-ID of a capture).

The counts (:class:`Tally`), for the summary and the exit status: per status, per
origin, per signal and purpose, per shard, and the changes since the crawl. The counts
per origin are arrays (:class:`PerOrigin`): one place per origin in each, about 50 bytes
an origin (a million origins are held at once), each origin numbered by its name
(:class:`~rep_recheck.names.Numbered`: at most ``REP_RECHECK_PARSED_ORIGINS`` names in
memory, the others in an SQLite file); one origin's counts read as an object
(:class:`OriginCounts`), the summary reads the whole arrays.

The Markdown summary a person reads (:func:`summary_markdown`): items and origins by
status, by shard, the changes since the crawl, the refusals by signal, the origins that
lost the most items, the share refused per purpose, and the signals not read. Every
table cell is written by :func:`cell`.
"""

from __future__ import annotations

import heapq
import json
import re
from array import array
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from sys import intern
from typing import Any, Final

from rep_engine.records import ITEM_STATUSES, Fate, ItemStatus, Reason, RefusedBy, iso_time
from rep_engine.trail.terminal import printable
from rep_engine.usage.rsl.terms import license_url_of
from rep_engine.usage.standards import NOT_READ
from rep_engine.verdict.decide import LICENSE, ROBOTS, Allowed, Refused
from rep_engine.verdict.page import PAGE
from rep_recheck.datasets import UNREADABLE, Item, changed_since
from rep_recheck.documents import document_url
from rep_recheck.names import PARSED_ORIGINS, Numbered, names_held
from rep_recheck.rechecker import Outcome

#: ``line 12: Content-Usage: train-ai=n`` or ``entry 2 (location "/x")`` in a source.
_PLACE: Final = re.compile(r"\b(?:line|entry) (\d+)\b:? ?(.*)")


@dataclass(frozen=True, slots=True)
class Evidence:
    """What decided an item, and where it is written."""

    #: The deciding signal (``""``: nothing said anything: kept with no rule).
    signal: str = ""
    #: The refusal's reason (``forbidden``, ``purpose``, ``noindex``…; ``""``: none).
    reason: str = ""
    #: The purpose denied (a refusal for a purpose).
    purpose: str = ""
    document: str = ""
    #: The line of the document (robots.txt's line, tdmrep.json's entry).
    document_line: int | None = None
    text: str = ""
    sha256: str = ""
    #: When the document was fetched or captured (ISO 8601 UTC).
    time: str = ""
    #: The WARC-Record-ID of its capture.
    record: str = ""
    #: The robots.txt group's agent whose line refused it (the crawler's name, or a
    #: ``REP_PURPOSE_AGENTS`` token such as ``GPTBot``).
    agent: str = ""


def evidence(url: str, outcome: Outcome, fetched_now: float = 0.0) -> Evidence:
    """The evidence of one item's status (``fetched_now``: when its page was fetched
    again, for a refusal after the fetch)."""
    documents = outcome.documents
    refusal = outcome.refusal
    if outcome.page_refusal is not None:
        said = _said(refusal, url, fetched_now)
        # its page answered 402: the price it asked is what said no (no usage signal)
        return said if outcome.payment is None else replace(said, signal=Fate.PAYMENT_REQUIRED)
    verdict = outcome.verdict
    kind, key, entry = ROBOTS, None, None
    if verdict is not None and verdict.used:
        kind, key, entry = verdict.used[0]
    if isinstance(refusal, Refused) and refusal.document != ROBOTS:
        for used in refusal.used:
            if used[0] == refusal.document:
                kind, key, entry = used
        if refusal.document == LICENSE and refusal.signal is not None:
            key = license_url_of(refusal.signal.source) or key
    origin = documents.origin if documents is not None else None
    # one string per document and per line text, however many outcomes' evidence the
    # memo holds (its memory: 65,536 outcomes')
    document = intern(document_url(kind, key if key is not None else origin)) if origin else ""
    sha = entry.sha256 if entry is not None else ""
    when = iso_time(entry.fetched_at) if entry is not None and entry.fetched_at else ""
    record = documents.records.get((kind, key), "") if documents is not None else ""
    if outcome.status is ItemStatus.UNKNOWN:
        return Evidence("unknown", "", "", document, None, outcome.why, sha, when, record)
    if refusal is not None:
        said = _said(refusal, url, 0.0)
        return Evidence(said.signal, said.reason, said.purpose, document, said.document_line,
                        said.text, sha, when, record, said.agent)  # fmt: skip
    decision = verdict.robots if isinstance(verdict, Allowed) else None
    if decision is None or decision.line is None:
        text = decision.reason if decision is not None else ""
        return Evidence("", "", "", document, None, text, sha, when, record)
    text = intern(decision.line_text or "")
    return Evidence(RefusedBy.ROBOTS_TXT, "", "", document, decision.line, text, sha, when, record)


class EvidenceMemo:
    """:func:`evidence` remembered per outcome: the fast path hands the items of an
    origin one shared :class:`Outcome` (its allowed items, each refusing line's), whose
    evidence is the same for each (a refusal after the fetch names its page: not
    remembered). At most :data:`EVIDENCE_MEMO` outcomes, then it starts again."""

    #: Whether the evidence of a kept item is written (a report): without it, a kept
    #: item's is :data:`KEPT` (no verdict decided for it: a filter counts only its
    #: status), unless the item has a status then to compare (:meth:`of_item`).
    kept_said = True

    def __init__(self) -> None:
        self._known: dict[int, tuple[Outcome, Evidence]] = {}
        #: The evidence a filter counts of a fast path's refusal, by its agent.
        self._forbidden: dict[str, Evidence] = {}
        #: A refused outcome's sentence (``--removed``), the same way.
        self._whys: dict[int, tuple[Outcome, str]] = {}

    def of(self, url: str, outcome: Outcome, fetched_now: float = 0.0) -> Evidence:
        if outcome.page_refusal is not None:
            return evidence(url, outcome, fetched_now)
        known = self._known.get(id(outcome))
        if known is not None and known[0] is outcome:
            return known[1]
        said = evidence(url, outcome, fetched_now)
        if len(self._known) >= EVIDENCE_MEMO:
            self._known.clear()
        self._known[id(outcome)] = (outcome, said)
        return said

    def of_item(self, item: Item, outcome: Outcome, fetched_now: float = 0.0) -> Evidence:
        """:meth:`of` an item, or where only its counts read it (no report, no status
        then whose change is counted by signal): :data:`KEPT` for a kept one, and for
        one the fast path refuses by a robots.txt Disallow line the signal, reason and
        agent the counts read, without its verdict decided for its sentence."""
        if self.kept_said or item.then is not None:
            return self.of(item.url, outcome, fetched_now)
        if outcome.status is _KEPT:
            return KEPT
        agent = outcome.refusing_agent
        if agent is not None:
            said = self._forbidden.get(agent)
            if said is None:
                said = self._forbidden[agent] = Evidence(RefusedBy.ROBOTS_TXT, _FORBIDDEN,
                                                         agent=agent)  # fmt: skip
            return said
        return self.of(item.url, outcome, fetched_now)

    def refusal(self, outcome: Outcome) -> str:
        """The sentence of ``outcome``'s refusal, as ``--removed`` says it (its verdict,
        which a shared outcome decides when read and lets go, read once per outcome)."""
        known = self._whys.get(id(outcome))
        if known is not None and known[0] is outcome:
            return known[1]
        refusal = outcome.refusal
        said = refusal.message if refusal is not None else ""
        if outcome.page_refusal is None:  # a page's refusal is its item's alone
            if len(self._whys) >= EVIDENCE_MEMO:
                self._whys.clear()
            self._whys[id(outcome)] = (outcome, said)
        return said

    def clear(self) -> None:
        """The outcomes let go (each holds its origin's parsed documents)."""
        self._known.clear()
        self._whys.clear()


#: The evidence of a kept item a filter never reads (:meth:`EvidenceMemo.of_item`).
KEPT: Final = Evidence()
_FORBIDDEN: Final = str(Reason.FORBIDDEN)
_KEPT: Final = ItemStatus.KEPT
#: The most outcomes :class:`EvidenceMemo` keeps.
EVIDENCE_MEMO: Final = 65_536


def _said(refusal: Refused | None, url: str, fetched: float) -> Evidence:
    """A refusal's signal, line and text."""
    assert refusal is not None
    reason = str(refusal.reason)
    purpose = refusal.purpose or ""
    agent = ""
    if refusal.signal is not None:
        source = refusal.signal.source
        found = _PLACE.search(source)
        line, text = (int(found.group(1)), found.group(2) or source) if found else (None, source)
        signal: str = refusal.signal.vocabulary
    elif refusal.robots is not None and refusal.reason is Reason.FORBIDDEN:
        signal, line = RefusedBy.ROBOTS_TXT, refusal.robots.line
        text = intern(refusal.robots.line_text or "")
        agent = refusal.agent
    else:
        signal, line, text = reason, None, refusal.message
    if refusal.document == PAGE:
        return Evidence(signal, reason, purpose, url, line, text, "", iso_time(fetched))
    return Evidence(signal, reason, purpose, document_line=line, text=text, agent=agent)


#: The array type of a count per origin (4 bytes; made 8 bytes if one outgrows it).
_SMALL: Final = "I"
#: The counts of each origin, one array each.
_COUNTS: Final = (*ITEM_STATUSES, "by_usage", "by_access", "by_policy", "second")


@dataclass(frozen=True)
class OriginCounts:
    """One origin's counts, as read from the arrays
    (:attr:`Tally.origins`)."""

    kept: int
    refused: int
    unknown: int
    #: Items refused per purpose.
    purposes: Counter[str]
    #: The signals that removed its items (the first: the one that removed most).
    signals: Counter[str]
    #: Items refused by a usage signal (a purpose's "no"), and by an access rule
    #: (robots.txt's Allow/Disallow, a page's noindex or unavailable_after).
    by_usage: int
    by_access: int

    @property
    def total(self) -> int:
        """Its items."""
        return self.kept + self.refused + self.unknown

    @property
    def statuses(self) -> Counter[str]:
        """Its items by status."""
        return Counter({"kept": self.kept, "refused": self.refused, "unknown": self.unknown})


class PerOrigin(Mapping[str, OriginCounts]):
    """The counts per origin: arrays with one place per origin (its number in
    :attr:`names`), and each origin's signals (the first signal that removed one of its
    items by its place in :attr:`signal_names`, the counts of every signal only for an
    origin removed by two or more)."""

    def __init__(self, held: int = PARSED_ORIGINS, unknown_removed: bool = True) -> None:
        self.names = Numbered(names_held(held))
        #: Whether an unknown item is removed (not with ``--keep-unknown``): counted
        #: among an origin's removed items, by its signal ``unknown``.
        self.unknown_removed = unknown_removed
        #: Its items kept, refused, unknown; refused by a usage signal (a purpose's
        #: "no"), by an access rule (robots.txt's Allow/Disallow, a page's noindex or
        #: unavailable_after), by no signal (``REP_PURPOSE_UNKNOWN = "deny"``): by the
        #: name of the count.
        self.counts: dict[str, array[int]] = {name: array(_SMALL) for name in _COUNTS}
        #: Items refused per purpose, by purpose.
        self.purposes: dict[str, array[int]] = {}
        #: Each origin's first signal (its place in :attr:`signal_names` plus 1; 0: none).
        self.first_signal = array(_SMALL)
        #: Each origin's second signal, the same way (its items in ``counts["second"]``;
        #: those of its first: the rest of its removed items).
        self.second_signal = array(_SMALL)
        self.signal_names: list[str] = []
        self._signal_numbers: dict[str, int] = {}
        #: The counts by signal number of the origins removed by three signals or more.
        self.more_signals: dict[int, dict[int, int]] = {}

    @property
    def kept(self) -> array[int]:
        return self.counts["kept"]

    @property
    def refused(self) -> array[int]:
        return self.counts["refused"]

    @property
    def unknown(self) -> array[int]:
        return self.counts["unknown"]

    def number(self, name: str) -> int:
        """``name``'s place in the arrays, made at its first item."""
        number = self.names.number(name)
        if number == len(self.first_signal):
            for counts in (*self.counts.values(), *self.purposes.values()):
                counts.append(0)
            self.first_signal.append(0)
            self.second_signal.append(0)
        return number

    @staticmethod
    def one(table: dict[str, array[int]], name: str, number: int) -> None:
        """One more in ``table[name]`` at ``number`` (the array made 8 bytes a place if it
        outgrows 4)."""
        counts = table[name]
        try:
            counts[number] += 1
        except OverflowError:
            table[name] = counts = array("Q", counts)
            counts[number] += 1

    def purpose(self, name: str) -> None:
        """The counts of refusals for purpose ``name`` made (each origin's 0)."""
        if name not in self.purposes:
            self.purposes[name] = array(_SMALL, [0]) * len(self.first_signal)

    def signal(self, number: int, name: str) -> None:
        """One item of origin ``number`` removed by signal ``name``."""
        code = self._signal_numbers.get(name)
        if code is None:
            code = self._signal_numbers[name] = len(self.signal_names) + 1
            self.signal_names.append(name)
        more = self.more_signals.get(number)
        if more is not None:
            more[code] = more.get(code, 0) + 1
            return
        first = self.first_signal[number]
        if first == 0:
            self.first_signal[number] = code
        elif first != code:
            second = self.second_signal[number]
            if second == 0:
                self.second_signal[number] = code
            if second in (0, code):
                self.one(self.counts, "second", number)
                return
            # a third signal: the counts of each in a dict (the first counted every
            # removed item before this one but the second's)
            seconds = self.counts["second"][number]
            before = self.removed(number) - 1 - seconds
            self.more_signals[number] = {first: before, second: seconds, code: 1}

    def signals_of(self, number: int) -> Counter[str]:
        """Origin ``number``'s removed items by signal, in the order first met."""
        more = self.more_signals.get(number)
        if more is not None:
            return Counter({self.signal_names[c - 1]: n for c, n in more.items()})
        first = self.first_signal[number]
        if not first:
            return Counter()
        removed = self.removed(number)
        second = self.second_signal[number]
        if not second:
            return Counter({self.signal_names[first - 1]: removed})
        seconds = self.counts["second"][number]
        names = self.signal_names
        return Counter({names[first - 1]: removed - seconds, names[second - 1]: seconds})

    def removed(self, number: int) -> int:
        """Origin ``number``'s items removed: refused, and unknown unless kept."""
        unknown = self.unknown[number] if self.unknown_removed else 0
        return self.refused[number] + unknown

    def most_by(self, number: int) -> str:
        """The signal that removed most of origin ``number``'s items (``-``: none)."""
        signals = self.signals_of(number)
        return signals.most_common(1)[0][0] if signals else "-"

    # ------------------------------------------------------------------ the mapping

    def __getitem__(self, name: str) -> OriginCounts:
        number = self.names.find(name)
        if number is None:
            raise KeyError(name)
        purposes = Counter({p: n for p, counts in self.purposes.items() if (n := counts[number])})
        kept, refused, unknown, usage, access, _, _ = (c[number] for c in self.counts.values())
        return OriginCounts(kept, refused, unknown, purposes, self.signals_of(number), usage,
                            access)  # fmt: skip

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    # ------------------------------------------------------------------ the whole arrays

    def having(self, counts: array[int]) -> int:
        """Origins whose count in ``counts`` is not 0."""
        return len(counts) - counts.count(0)

    def refusing_all(self, purpose: str) -> int:
        """Origins every item of which is refused for ``purpose`` (and some is)."""
        counts = self.purposes.get(purpose)
        if counts is None:
            return 0
        return sum(1 for n, k, r, u in zip(counts, self.kept, self.refused, self.unknown,
                                           strict=True) if n and n == k + r + u)  # fmt: skip

    def losing(self, most: int) -> list[tuple[int, str, int]]:
        """The ``most`` origins that lost the most items (refused, or unknown unless kept),
        most first and then by name: (removed, name, number)."""
        removed = list(map(self.removed, range(len(self.refused))))
        top = heapq.nlargest(most, removed)
        if not top or not top[-1]:
            top = [n for n in top if n]
            if not top:
                return []
        least = top[-1]
        above = [n for n, lost in enumerate(removed) if lost > least]
        tied = (n for n, lost in enumerate(removed) if lost == least)
        names = self.names.names_of(above)
        rows = [(removed[n], names[n], n) for n in above]
        # the origins tied at the least removed: the first by name (a few names at once)
        chosen: list[tuple[str, int]] = []
        batch: list[int] = []
        for number in tied:
            batch.append(number)
            if len(batch) >= 10_000:
                chosen = _smallest(chosen, batch, self.names, most - len(rows))
                batch = []
        chosen = _smallest(chosen, batch, self.names, most - len(rows))
        rows += [(least, name, n) for name, n in chosen]
        return sorted(rows, key=lambda row: (-row[0], row[1]))[:most]

    def close(self) -> None:
        """The names' SQLite file removed."""
        self.names.close()


def _smallest(
    chosen: list[tuple[str, int]], batch: list[int], names: Numbered, most: int
) -> list[tuple[str, int]]:
    found = names.names_of(batch)
    return heapq.nsmallest(most, [*chosen, *((found[n], n) for n in batch)])


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
    #: Items with a crawl-time status (a trail or an export, or older captures).
    with_then: int = 0
    #: ``(then, now)`` of every item with a crawl-time status: the changes both ways
    #: and the items that kept theirs.
    then_now: Counter[tuple[str, str]] = field(default_factory=Counter)
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
            self.then_now[(str(item.then), status)] += 1
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


#: Origins listed in the summary's table of the ones that lost the most items.
TOP_ORIGINS: Final = 10


def cell(value: object) -> str:
    """``value`` as one Markdown table cell: its control characters (a line break, which
    would end the row) written as escapes (:func:`printable`), its ``|`` as ``\\|``
    (which would start another cell)."""
    return printable(value).replace("|", "\\|")


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def summary_markdown(
    tally: Tally,
    dataset: str,
    documents: str,
    identity: str,
    keep_unknown: bool,
    notes: Sequence[str] = (),
) -> list[str]:
    """The summary a person reads: items and origins by status, the items refused by a
    usage signal and by an access rule, the changes since the crawl by signal and by
    purpose, the origins that lost the most items, and the share of items and origins
    refused per purpose. ``notes``: further lines of its head (the robots.txt groups
    obeyed for an AI purpose)."""
    lines = _head(tally, dataset, documents, identity, keep_unknown, notes)
    lines += _statuses(tally)
    lines += per_shard(tally)
    lines += _changes(tally)
    if tally.signals:
        lines += ["", "### Refusals by signal", "", "| signal | items |", "|---|---|"]
        lines += [
            f"| {cell(signal)} | {count:,} |" for signal, count in tally.signals.most_common()
        ]
    lines += _losing(tally)
    lines += _restricted(tally)
    lines += not_read()
    return lines


def _head(
    tally: Tally,
    dataset: str,
    documents: str,
    identity: str,
    keep_unknown: bool,
    notes: Sequence[str],
) -> list[str]:
    """The summary's title and its list: items, documents, the decision, the counts of
    kept and removed items, and of the items refused by a usage signal, by an access
    rule, and (``REP_PURPOSE_UNKNOWN = "deny"``) by no signal at all."""
    items, origins = tally.items, len(tally.origins)
    kept = items - tally.removed  # as written: --out's items, and --removed's the rest
    unknowns = tally.statuses[ItemStatus.UNKNOWN]
    counted = (f"- Kept: {kept:,} ({unknowns:,} of them unknown, kept by --keep-unknown); "
               f"removed: {tally.removed:,}") if keep_unknown else (
        f"- Kept: {kept:,}; removed: {tally.removed:,} (unknown items are removed)"
    )  # fmt: skip
    per = tally.origins
    usage, access = sum(per.counts["by_usage"]), sum(per.counts["by_access"])
    policy = sum(per.counts["by_policy"])
    named = ", ".join(f"{agent} {count:,}" for agent, count in tally.by_named_agent.most_common())
    several = f" ({len(tally.shards):,} shards)" if tally.shards else ""
    dataset = printable(dataset)  # file names: no line break of theirs in the summary
    return [
        f"## Re-check of `{dataset}`{several}",
        "",
        f"- Items: {items:,} over {origins:,} origin(s); purposes: {', '.join(tally.purposes)}",
        f"- Documents: {documents}",
        f"- Decided as a crawl would: {identity}",
        *(f"- {note}" for note in notes),
        counted,
        f'- Refused by a usage signal (a "no" for the purpose: Content-Usage, '
        f"Content-Signal, TDMRep, RSL, noai…): {usage:,} item(s) of "
        f"{per.having(per.counts['by_usage']):,} origin(s)",
        f"- Refused by an access rule (robots.txt Allow/Disallow or unreachable, noindex, "
        f"unavailable_after: no statement about the purpose): {access:,} item(s) of "
        f"{per.having(per.counts['by_access']):,} origin(s)"
        + (f"; by the groups of REP_PURPOSE_AGENTS: {named}" if named else ""),
        *(
            [
                f"- Refused with no signal saying no (REP_PURPOSE_UNKNOWN = 'deny': no signal "
                f"allowed the purpose): {policy:,} item(s) of "
                f"{per.having(per.counts['by_policy']):,} origin(s)"
            ]
            if policy
            else []
        ),
    ]


def _statuses(tally: Tally) -> list[str]:
    """The table of items and origins by status (``unreadable`` when some item is), and
    the first unreadable items."""
    items = tally.items
    lines = ["", "| status | items | share of items | origins with such items |",
             "|---|---|---|---|"]  # fmt: skip
    for status in (*ItemStatus, UNREADABLE):
        count = tally.statuses[str(status)]
        counts = tally.origins.counts.get(str(status))
        having = tally.origins.having(counts) if counts is not None else 0
        if count or status is not UNREADABLE:
            lines.append(f"| {status} | {count:,} | {_share(count, items)} | {having:,} |")
    if tally.unreadable:
        places = [f"`{printable(shard)}` " if shard else "" for shard in tally.unreadable_in]
        lines += ["", "Unreadable items (first lines): " + "; ".join(
            f"{places[n]}line {number}: {printable(why)}" for n, (number, why) in
            enumerate(tally.unreadable[:5])
        )]  # fmt: skip
    return lines


def _changes(tally: Tally) -> list[str]:
    """The changes since the crawl, by signal and by purpose (none: no item had a status
    then)."""
    if not tally.with_then:
        return []
    lines = ["", "### Changes since the crawl", ""]
    if not tally.changes:
        return [*lines, f"None: the {tally.with_then:,} item(s) have the status they had."]
    both = tally.then_now
    kept, refused = ItemStatus.KEPT, ItemStatus.REFUSED
    unknown = sum(count for (_, now), count in both.items() if now == ItemStatus.UNKNOWN)
    lines += [
        f"Both ways, of the {tally.with_then:,} item(s) with a status then: "
        f"{both[kept, refused]:,} kept then and refused now, "
        f"{both[refused, kept]:,} refused then and kept now, {unknown:,} unknown now; "
        f"{both[kept, kept] + both[refused, refused]:,} unchanged.",
        "",
        "| then -> now | signal | items |",
        "|---|---|---|",
    ]
    for (change, signal), count in tally.changes.most_common():
        lines.append(f"| {cell(change)} | {cell(signal)} | {count:,} |")
    lines += ["", "| purpose | items changed |", "|---|---|"]
    for purpose, count in tally.changed_purposes.most_common():
        lines.append(f"| {cell(purpose)} | {count:,} |")
    return lines


def _losing(tally: Tally) -> list[str]:
    """The table of the :data:`TOP_ORIGINS` origins that lost the most items."""
    per = tally.origins
    losing = per.losing(TOP_ORIGINS)
    if not losing:
        return []
    lines = ["", "### The origins that lost the most items", "",
             "| origin | items | removed | refused | unknown | mostly by |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for removed, name, number in losing:
        refused, unknown = per.refused[number], per.unknown[number]
        total = per.kept[number] + refused + unknown
        lines.append(f"| {cell(name)} | {total:,} | {removed:,} | {refused:,} "
                     f"| {unknown:,} | {cell(per.most_by(number))} |")  # fmt: skip
    return lines


def per_shard(tally: Tally) -> list[str]:
    """The table of each shard's items by status (none for a collection of one file);
    its ``unreadable`` column only when some item could not be read."""
    if not tally.shards:
        return []
    statuses = [str(status) for status in ItemStatus]
    if tally.statuses[UNREADABLE]:
        statuses.append(UNREADABLE)
    lines = ["", "### Per shard", "", f"| shard | format | items | {' | '.join(statuses)} |",
             "|---|---|---|" + "---|" * len(statuses)]  # fmt: skip
    for name, shard in tally.shards.items():
        counts = " | ".join(f"{shard.statuses[status]:,}" for status in statuses)
        items = sum(shard.statuses.values())
        lines.append(f"| `{cell(name)}` | {cell(shard.format)} | {items:,} | {counts} |")
    return lines


def not_read() -> list[str]:
    """The signals the recheck did not read (:data:`NOT_READ`): an item kept is one no
    signal that was read refused."""
    lines = ["", "### Signals not read", "",
             "An item kept here may still be refused by one of these, which were not read:",
             "", "| signal | what it is |", "|---|---|"]  # fmt: skip
    return lines + [f"| `{signal}` | {what} |" for signal, what in NOT_READ]


def _restricted(tally: Tally) -> list[str]:
    """Per purpose, the share of items refused and of origins that refuse some or all of
    their items, by any rule: an access rule (a plain ``Disallow``) refuses an item for
    every purpose, so this is not Consent in Crisis's measure of AI restrictions (which
    reads each agent's robots.txt group per origin), and is not labelled as it."""
    lines = ["", "### Refused, per purpose (by any rule: an access rule counts for every "
             "purpose)", "",
             "| purpose | items refused | share of items | origins refusing some | share "
             "| origins refusing all | share |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    per = tally.origins
    items = sum(per.kept) + sum(per.refused) + sum(per.unknown)
    origins = len(per)
    for purpose in tally.purposes:
        counts = per.purposes.get(purpose)
        refused = sum(counts) if counts is not None else 0
        some = per.having(counts) if counts is not None else 0
        every = per.refusing_all(purpose)
        lines.append(
            f"| {cell(purpose)} | {refused:,} | {_share(refused, items)} | {some:,} | "
            f"{_share(some, origins)} | {every:,} | {_share(every, origins)} |"
        )
    return lines


def item_line(
    item: Item,
    status: str,
    said: Evidence,
    why: str = "",
    shard: str = "",
    not_consulted: Sequence[str] = (),
) -> dict[str, Any]:
    """The report's line of one item (``--report``), as JSON (``shard``: the file it is
    in, when the collection is several; ``not_consulted``: the kinds of document a
    decided item was decided without, ``--consult``)."""
    line: dict[str, Any] = {"shard": shard} if shard else {}
    line |= {"line": item.number, "url": item.url or None, "status": status}
    if item.then is not None:
        line["then"] = item.then
        if (changed := changed_since(item.then, status)) is not None:
            line["changed"] = changed
    return line | _outcome_part(status, said, why, not_consulted)


def _outcome_part(
    status: str, said: Evidence, why: str, not_consulted: Sequence[str]
) -> dict[str, Any]:
    """The fields of a report's line that its outcome says (its evidence, why, the kinds
    not consulted): the same for every item of a shared outcome."""
    part: dict[str, Any] = {}
    for name in Evidence.__slots__:
        value = getattr(said, name)
        if value not in ("", None):
            part[name] = value
    if why:
        part["why"] = why
    if not_consulted and status != UNREADABLE:
        part["not_consulted"] = list(not_consulted)
    return part


#: A line as JSON, compact: its characters as they are, or escaped (one encoder made).
_AS_IS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_ESCAPED = json.JSONEncoder(separators=(",", ":")).encode
#: A string as JSON, its characters as they are (what :data:`_AS_IS` writes of one).
_STRING: Final = json.encoder.encode_basestring


def encode(line: dict[str, Any]) -> bytes:
    """One JSON line, UTF-8; a string no UTF-8 can hold (a lone surrogate, as JSON may
    escape one: ``"\\ud800"``) is written escaped, as JSON writes it."""
    try:
        return (_AS_IS(line) + "\n").encode()
    except UnicodeEncodeError:
        return (_ESCAPED(line) + "\n").encode()


class ReportLines:
    """The report's lines (``--report``), each :func:`encode` of :func:`item_line`: an
    item's own fields (its shard, line, URL, status, its status then and whether it
    changed) written for each, its outcome's (:func:`_outcome_part`: most of the line)
    encoded once per evidence and ``why`` (the items of a shared outcome share its
    evidence, :class:`EvidenceMemo`), at most :data:`EVIDENCE_MEMO` of them, then it
    starts again."""

    def __init__(self, not_consulted: Sequence[str] = ()) -> None:
        self.not_consulted = tuple(not_consulted)
        #: (the evidence's id, why) -> (the evidence, the line's end from its outcome).
        self._ends: dict[tuple[int, str], tuple[Evidence, str]] = {}

    def line(
        self, item: Item, status: str, said: Evidence, why: str = "", shard: str = ""
    ) -> bytes:
        """:func:`encode` of :func:`item_line` (the same bytes)."""
        if status == UNREADABLE:  # its evidence is its own: written whole
            return encode(item_line(item, status, said, why, shard, self.not_consulted))
        key = (id(said), why)
        known = self._ends.get(key)
        if known is None or known[0] is not said:
            part = _outcome_part(status, said, why, self.not_consulted)
            end = _AS_IS(part)[1:] if part else "}"
            if len(self._ends) >= EVIDENCE_MEMO:
                self._ends.clear()
            known = self._ends[key] = (said, end if end == "}" else "," + end)
        number, url, then = item.number, item.url, item.then
        if type(number) is not int or (then is not None and type(then) is not str):
            return encode(item_line(item, status, said, why, shard, self.not_consulted))
        start = f'{{"shard":{_STRING(shard)},"line":' if shard else '{"line":'
        head = f'{start}{number},"url":{_STRING(url) if url else "null"},"status":{_STRING(status)}'
        if then is not None:
            head += f',"then":{_STRING(then)}'
            changed = changed_since(then, status)
            if changed is not None:
                head += ',"changed":true' if changed else ',"changed":false'
        try:
            return (head + known[1] + "\n").encode()
        except UnicodeEncodeError:  # a lone surrogate: the whole line escaped
            return encode(item_line(item, status, said, why, shard, self.not_consulted))
