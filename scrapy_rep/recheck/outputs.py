"""What a recheck says: the line per item (its status now and its evidence), and the
counts and Markdown summary of the whole collection (pure).

Each item's evidence names the deciding signal (``robots.txt`` for an Allow/Disallow
line, a signal's vocabulary: ``aipref``, ``content-signal``, ``tdmrep``, ``rsl``; after
the fetch the page's ``noindex``…), the document it is in (its URL), the line (or
tdmrep.json entry) and its text, the document's SHA-256, and when it was fetched or
captured (with the WARC-Record-ID of a capture).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from scrapy_rep.audit.lines import iso_time
from scrapy_rep.audit.terminal import printable
from scrapy_rep.recheck.datasets import Item, changed_since
from scrapy_rep.recheck.documents import document_url
from scrapy_rep.recheck.rechecker import Outcome, Status
from scrapy_rep.usage.rsl.terms import license_url_of
from scrapy_rep.usage.standards import NOT_READ
from scrapy_rep.verdict import LICENSE, ROBOTS, Allowed, Reason, Refused
from scrapy_rep.verdict.page import PAGE

#: ``line 12: Content-Usage: train-ai=n`` or ``entry 2 (location "/x")`` in a source.
_PLACE: Final = re.compile(r"\b(?:line|entry) (\d+)\b:? ?(.*)")
#: The status of an item whose URL could not be read.
UNREADABLE: Final = "unreadable"
#: Origins listed in the summary's table of the ones that lost the most items.
TOP_ORIGINS: Final = 10


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
        return _said(refusal, url, fetched_now)
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
    document = document_url(kind, key if key is not None else origin) if origin else ""
    sha = entry.sha256 if entry is not None else ""
    when = iso_time(entry.fetched_at) if entry is not None and entry.fetched_at else ""
    record = documents.records.get((kind, key), "") if documents is not None else ""
    base = Evidence(document=document, sha256=sha, time=when, record=record)
    if outcome.status is Status.UNKNOWN:
        return _replace(base, signal="unknown", text=outcome.why)
    if refusal is not None:
        said = _said(refusal, url, 0.0)
        return _replace(base, signal=said.signal, reason=said.reason, purpose=said.purpose,
                        document_line=said.document_line, text=said.text,
                        agent=said.agent)  # fmt: skip
    decision = verdict.robots if isinstance(verdict, Allowed) else None
    if decision is None or decision.line is None:
        return _replace(base, text=decision.reason if decision is not None else "")
    return _replace(
        base, signal="robots.txt", document_line=decision.line, text=decision.line_text or ""
    )


class EvidenceMemo:
    """:func:`evidence` remembered per outcome: the fast path hands the items of an
    origin one shared :class:`Outcome` (its allowed items, each refusing line's), whose
    evidence is the same for each (a refusal after the fetch names its page: not
    remembered). At most :data:`EVIDENCE_MEMO` outcomes, then it starts again."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Outcome, Evidence]] = {}

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


#: The most outcomes :class:`EvidenceMemo` keeps.
EVIDENCE_MEMO: Final = 65_536


def _replace(evidence: Evidence, **changes: Any) -> Evidence:
    values = {name: getattr(evidence, name) for name in Evidence.__slots__}
    values.update(changes)
    return Evidence(**values)


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
        signal, line, text = "robots.txt", refusal.robots.line, refusal.robots.line_text or ""
        agent = refusal.agent
    else:
        signal, line, text = reason, None, refusal.message
    if refusal.document == PAGE:
        return Evidence(signal, reason, purpose, url, line, text, "", iso_time(fetched))
    return Evidence(signal, reason, purpose, document_line=line, text=text, agent=agent)


def item_line(
    item: Item, status: str, said: Evidence, why: str = "", shard: str = ""
) -> dict[str, Any]:
    """The report's line of one item (``--report``), as JSON (``shard``: the file it is
    in, when the collection is several)."""
    line: dict[str, Any] = {"shard": shard} if shard else {}
    line |= {"line": item.number, "url": item.url or None, "status": status}
    if item.then is not None:
        line["then"] = item.then
        if (changed := changed_since(item.then, status)) is not None:
            line["changed"] = changed
    for name in Evidence.__slots__:
        value = getattr(said, name)
        if value not in ("", None):
            line[name] = value
    if why:
        line["why"] = why
    return line


def encode(line: dict[str, Any]) -> bytes:
    """One JSON line, UTF-8; a string no UTF-8 can hold (a lone surrogate, as JSON may
    escape one: ``"\\ud800"``) is written escaped, as JSON writes it."""
    try:
        return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    except UnicodeEncodeError:
        return (json.dumps(line, separators=(",", ":")) + "\n").encode()


# --------------------------------------------------------------------------- the summary


@dataclass
class _Origin:
    """One origin's counts."""

    statuses: Counter[str] = field(default_factory=Counter)
    #: Items refused per purpose.
    purposes: Counter[str] = field(default_factory=Counter)
    #: The signal that removed most of its items.
    signals: Counter[str] = field(default_factory=Counter)
    #: Items refused by a usage signal (a purpose's "no"), and by an access rule
    #: (robots.txt's Allow/Disallow, a page's noindex or unavailable_after).
    by_usage: int = 0
    by_access: int = 0


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
        counts.statuses[status] += 1
        signal = _signal_name(said)
        if status == Status.REFUSED:
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
    items, origins = tally.items, len(tally.origins)
    kept = tally.statuses[Status.KEPT]
    unknown = "kept (--keep-unknown)" if keep_unknown else "removed"
    usage = sum(one.by_usage for one in tally.origins.values())
    access = sum(one.by_access for one in tally.origins.values())
    named = ", ".join(f"{agent} {count:,}" for agent, count in tally.by_named_agent.most_common())
    several = f" ({len(tally.shards):,} shards)" if tally.shards else ""
    dataset = printable(dataset)  # file names: no line break of theirs in the summary
    lines = [
        f"## Re-check of `{dataset}`{several}",
        "",
        f"- Items: {items:,} over {origins:,} origin(s); purposes: {', '.join(tally.purposes)}",
        f"- Documents: {documents}",
        f"- Decided as a crawl would: {identity}",
        *(f"- {note}" for note in notes),
        f"- Kept: {kept:,}; removed: {tally.removed:,} (unknown items are {unknown})",
        f'- Refused by a usage signal (a "no" for the purpose: Content-Usage, '
        f"Content-Signal, TDMRep, RSL, noai…): {usage:,} item(s) of "
        f"{sum(1 for one in tally.origins.values() if one.by_usage):,} origin(s)",
        f"- Refused by an access rule (robots.txt Allow/Disallow, noindex, "
        f"unavailable_after: no statement about the purpose): {access:,} item(s) of "
        f"{sum(1 for one in tally.origins.values() if one.by_access):,} origin(s)"
        + (f"; by the groups of REP_PURPOSE_AGENTS: {named}" if named else ""),
        "",
        "| status | items | share of items | origins with such items |",
        "|---|---|---|---|",
    ]
    for status in (*Status, UNREADABLE):
        count = tally.statuses[str(status)]
        having = sum(1 for one in tally.origins.values() if one.statuses[str(status)])
        if count or status is not UNREADABLE:
            lines.append(f"| {status} | {count:,} | {_share(count, items)} | {having:,} |")
    if tally.unreadable:
        places = [f"`{printable(shard)}` " if shard else "" for shard in tally.unreadable_in]
        lines += ["", "Unreadable items (first lines): " + "; ".join(
            f"{places[n]}line {number}: {printable(why)}" for n, (number, why) in
            enumerate(tally.unreadable[:5])
        )]  # fmt: skip
    lines += per_shard(tally)
    if tally.with_then:
        lines += ["", "### Changes since the crawl", ""]
        if tally.changes:
            lines += ["| then -> now | signal | items |", "|---|---|---|"]
            for (change, signal), count in tally.changes.most_common():
                lines.append(f"| {cell(change)} | {cell(signal)} | {count:,} |")
            lines += ["", "| purpose | items changed |", "|---|---|"]
            for purpose, count in tally.changed_purposes.most_common():
                lines.append(f"| {cell(purpose)} | {count:,} |")
        else:
            lines.append(f"None: the {tally.with_then:,} item(s) have the status they had.")
    if tally.signals:
        lines += ["", "### Refusals by signal", "", "| signal | items |", "|---|---|"]
        lines += [
            f"| {cell(signal)} | {count:,} |" for signal, count in tally.signals.most_common()
        ]
    losing = sorted(
        ((one.statuses[Status.REFUSED] + one.statuses[Status.UNKNOWN], name, one)
         for name, one in tally.origins.items()),
        key=lambda row: (-row[0], row[1]),
    )[:TOP_ORIGINS]  # fmt: skip
    losing = [row for row in losing if row[0]]
    if losing:
        lines += ["", "### The origins that lost the most items", "",
                  "| origin | items | removed | refused | unknown | mostly by |",
                  "|---|---|---|---|---|---|"]  # fmt: skip
        for removed, name, one in losing:
            total = sum(one.statuses.values())
            by = one.signals.most_common(1)[0][0] if one.signals else "-"
            refused, unknown = one.statuses[Status.REFUSED], one.statuses[Status.UNKNOWN]
            lines.append(f"| {cell(name)} | {total:,} | {removed:,} | {refused:,} "
                         f"| {unknown:,} | {cell(by)} |")  # fmt: skip
    lines += _restricted(tally)
    lines += not_read()
    return lines


def per_shard(tally: Tally) -> list[str]:
    """The table of each shard's items by status (none for a collection of one file);
    its ``unreadable`` column only when some item could not be read."""
    if not tally.shards:
        return []
    statuses = [str(status) for status in Status]
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
    items = sum(sum(one.statuses.values()) for one in tally.origins.values())
    origins = len(tally.origins)
    for purpose in tally.purposes:
        refused = sum(one.purposes[purpose] for one in tally.origins.values())
        some = sum(1 for one in tally.origins.values() if one.purposes[purpose])
        every = sum(
            1 for one in tally.origins.values()
            if one.purposes[purpose] and one.purposes[purpose] == sum(one.statuses.values())
        )  # fmt: skip
        lines.append(
            f"| {cell(purpose)} | {refused:,} | {_share(refused, items)} | {some:,} | "
            f"{_share(some, origins)} | {every:,} | {_share(every, origins)} |"
        )
    return lines
