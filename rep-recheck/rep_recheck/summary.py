"""The Markdown summary a person reads of a recheck's counts
(:mod:`~rep_recheck.tally`; pure): items and origins by status, by shard, the
changes since the crawl, the refusals by signal, the origins that lost the most items,
the share refused per purpose, and the signals not read. Every table cell is written by
:func:`cell`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rep_engine.records import ItemStatus
from rep_engine.trail.terminal import printable
from rep_engine.usage.standards import NOT_READ
from rep_recheck.datasets import UNREADABLE
from rep_recheck.tally import Tally

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
    lines += ["| then -> now | signal | items |", "|---|---|---|"]
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
