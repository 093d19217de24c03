"""How ``audit show`` tells one record (pure): a ``url`` record's fate, the robots.txt
line that decided it and its snapshot, the usage signals and the answer per purpose, the
items kept and dropped, the links not followed and what today's engine says when it
re-derives the decision (:mod:`rep_audit.rederive`); a ``file`` record's fate; and
a recheck's ``item`` record: its status, what decided it, each document version and what
verify says of it (:mod:`rep_audit.items`).
"""

from __future__ import annotations

from typing import Any, Final

from rep_audit.faterecord import FateRecord, named_origin
from rep_audit.items import item_differences
from rep_audit.rederive import Rederiver
from rep_audit.runcontext import RunContext
from rep_engine.records import (
    FILE_FATE_ROWS,
    ITEM_REASONS,
    ITEM_STATUSES,
    NOT_KEPT,
    UNKNOWN_FATE,
    ItemRecord,
    Reason,
    RefusedBy,
    RobotsPart,
    answers_said,
    describe,
    items,
    mapping,
    text,
)
from rep_engine.urls.origins import origin_of


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _fate(record: FateRecord, purposes: tuple[str, ...]) -> str:
    """What the record did (:func:`~rep_engine.records.describe`'s story), its attempts
    and status, and its own sentence."""
    status, why = record.entry.status, record.entry.why
    text = describe(record.entry, purposes).story or UNKNOWN_FATE.format(record.written)
    extras = []
    if record.attempts == 0:
        extras.append("never downloaded")
    elif record.attempts is not None:
        extras.append(_plural(record.attempts, "attempt"))
    if status is not None:
        extras.append(f"HTTP {status}")
    text += f" ({', '.join(extras)})" if extras else ""
    return text + (f": {why}" if why else "")


def _robots(
    robots: RobotsPart | None,
    origin: str,
    rederiver: Rederiver,
    answered: bool = False,
    run: str = "",
    at: str = "",
) -> list[str]:
    """What robots.txt said of a record, and the snapshot line of the copy it was decided
    with: for a request of run ``run`` sent at ``at`` (or recorded then), the fetch of that
    copy in force then (:meth:`~rep_audit.documents.Documents.in_force`), not the first
    fetch of the same body; of one a downloader middleware answered before the verdict
    (``answered``), what it said then, deciding nothing."""
    if robots is None:
        return ["  robots.txt: not known when it was answered" if answered else
                "  robots.txt: not recorded"]  # fmt: skip
    agent = robots.agent or "?"
    decided = "applies to it (no verdict: answered before it)" if answered else "decided it"
    if robots.line is not None:
        said = f'line {robots.line} ({robots.rule}) {decided} for "{agent}"'
    elif answered:
        said = f'no line applies to it for "{agent}": {robots.why or "no reason given"}'
    else:
        said = f'no line decided it for "{agent}": {robots.why or "no reason given"}'
    lines = [f"  robots.txt of {origin or None}: {said}"]  # None: a URL without an origin
    if robots.overridden:
        said = robots.overridden
        lines.append(f"    robots.txt disallows it; overridden by REP_OVERRIDES: {said}")
    if robots.override_expired:
        lines.append(f"    its override in REP_OVERRIDES had expired: {robots.override_expired}")
    document = f"{origin}/robots.txt"
    meta = (
        rederiver.in_force(robots.sha256, document, run, at)
        if run
        else rederiver.meta(robots.sha256, document)
    )
    if robots.sha256:
        lines.append(f"    {_snapshot(robots.sha256, meta)}")
    return lines


def _snapshot(sha: str, meta: dict[str, Any] | None) -> str:
    """A snapshot as its ``snapshot`` line describes it: the document's URL, when it was
    fetched (a WARC capture's date), its status, and the WARC record it was read from."""
    if meta is None:
        return f"snapshot {sha} (no snapshot line announces it)"
    said = (
        f"snapshot {sha}: {meta.get('url')} fetched {meta.get('fetched')}, "
        f"HTTP {meta.get('status')}, {meta.get('outcome')}, {meta.get('bytes')} bytes"
    )
    record = text(meta.get("warc_record"))
    return said + (f", from WARC record {record}" if record else "")


def _usage(usage: Any) -> list[str]:
    if not isinstance(usage, dict):
        return []
    lines = []
    signals = [s for s in items(usage.get("signals")) if isinstance(s, dict)]
    for signal in signals:
        answers = mapping(signal.get("answers"))
        said = ", ".join(f"{p} {'yes' if a else 'no'}" for p, a in answers.items() if a is not None)
        where = f" (snapshot {str(signal['snapshot'])[:12]}…)" if signal.get("snapshot") else ""
        lines.append(
            f"  usage signal [{signal.get('vocabulary')}] {signal.get('source')}: "
            f"{said or 'says nothing about these purposes'}{where}"
        )
    lines += [f"  {said}" for said in answers_said(usage)]
    conditions = [c for c in items(usage.get("conditions")) if isinstance(c, str)]
    if conditions:
        lines.append(f"  conditions on use: {', '.join(conditions)} (they decide no purpose)")
    return lines


def _items(record: FateRecord) -> list[str]:
    """The items kept and dropped, and why: what said the noindex (``noindex by header
    X-Robots-Tag: none``, ``noindex by <meta name="robots" content="noindex">``), from
    ``item_why``; a trail written before it was recorded says it does not know."""
    output = record.entry.output
    if output is None:
        return []
    line = f"  items: {output.kept} kept, {output.items_dropped} dropped"
    if output.not_kept:
        line += f", {output.not_kept} {NOT_KEPT}"
    reason = Reason.of(output.reason)  # as written: a hand-edited trail says anything
    if output.why:
        line += f" ({output.why})"
    elif reason in ITEM_REASONS:
        line += f" ({reason}: whether a header or a meta tag said it is not recorded)"
    elif output.reason:
        line += f" ({output.reason})"
    return [line]


def _links(record: dict[str, Any]) -> list[str]:
    """The links the page's nofollow or ``rel="nofollow"`` kept from being requested: no
    records of their own (``not_followed`` names the first 20)."""
    count = record.get("links_not_followed")
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        return []
    named = [str(url) for url in record.get("not_followed") or () if isinstance(url, str)]
    line = f"  links not followed (never requested, no records of their own): {count}"
    if named:
        line += f": {', '.join(named)}"
        if count > len(named):
            line += f" and {count - len(named)} more"
    return [line]


def file_lines(number: int, record: FateRecord) -> list[str]:
    """A file a media pipeline downloaded and read for its own statements."""
    fate, outcome = record.file_fate, record.outcome
    said = FILE_FATE_ROWS[fate].story if fate else UNKNOWN_FATE.format(record.written)
    text = [f"line {number}: file read for its own statements; {said}"]
    text += [f"  why: {outcome.why}"] if outcome.why else []
    text += [f"  error: {outcome.error}"] if outcome.error else []
    return text + _usage(record.entry.usage)


#: What a record's ``sent_at`` is to a site's owner.
_ACCESS_LOG: Final = "the time its access log shows"


def record_lines(
    number: int,
    record: FateRecord,
    runs: dict[str, dict[str, Any]],
    rederiver: Rederiver,
) -> list[str]:
    run, url, robots = runs.get(record.run, {}), record.entry.url, record.entry.robots
    sent_at = text(record.record.get("sent_at"))
    sent = [f"  sent at {sent_at} (its last attempt left for the site then: {_ACCESS_LOG})"]
    lines = [
        # a field missing (a hand-edited trail) is said as before: None
        f"line {number}, {record.time or None}: {url or None} {_fate(record, purposes_of(run))}",
        _run_line(record.run or None, run),
        f"  request id {record.id or None}",
        *(sent if sent_at else []),
        *_robots(
            robots,
            (robots.addressed if robots else "") or named_origin(record.record, url),
            rederiver,
            record.entry.answered,
            record.run,
            sent_at or record.time,
        ),
        *_usage(record.entry.usage),
        *_items(record),
        *_links(record.record),
    ]
    differences = rederiver.differences(record.record, RunContext.of(run))
    had = robots is not None and bool(robots.sha256)
    return lines + _rederived(differences, had, "robots.txt snapshot", "read")


def purposes_of(run: dict[str, Any]) -> tuple[str, ...]:
    return tuple(map(str, items(run.get("purposes"))))


def _run_line(run_id: str | None, run: dict[str, Any]) -> str:
    """The run of a record told: its spider, when it started, its purposes and profile."""
    return (
        f"  run {run_id} (spider {run.get('spider')}, started {run.get('time')}, "
        f"purposes {', '.join(purposes_of(run)) or '-'}, profile {run.get('profile')})"
    )


def _rederived(differences: list[str], had: bool, snapshot: str, verb: str) -> list[str]:
    """What today's engine says of a decision re-derived (``had``: from snapshots)."""
    if differences:
        return [f"  today's engine DIFFERS: {what}" for what in differences]
    if had:
        return ["  today's engine, from the snapshots: the same decision"]
    return [f"  no {snapshot} to re-derive it from (nothing was {verb})"]


def item_lines(item: ItemRecord, run: dict[str, Any], rederiver: Rederiver) -> list[str]:
    """A stored item a recheck decided: its status, what decided it (the signal and its
    line), each document version (its snapshot, the WARC record it was read from), the
    status it had before and what today's engine says."""
    status = item.status if item.status in ITEM_STATUSES else f"status {item.status!r}"
    dataset = f"shard {item.shard}" if item.shard else "the dataset"
    where = f"line {item.line} of {dataset}" if item.line is not None else dataset
    lines = [
        f"line {item.number}, {item.time}: {item.url}: item re-checked ({where}): {status}",
        _run_line(item.run, run) + _rechecked(run),
        f"  decided: {item.decided}",
    ]
    if item.why:
        lines.append(f"  why: {item.why}")
    if item.then:
        lines.append(f"  before: {item.then}" + (" (changed)" if item.changed else " (the same)"))
    origin = str(origin_of(item.url) or "")
    if isinstance(item.record.get("robots"), dict):
        lines += _robots(item.robots, named_origin(item.record, item.url), rederiver)
    elif (RefusedBy.ROBOTS_TXT, "") in item.documents:
        lines.append("  robots.txt: not had")
    for name, sha in item.documents:
        if name == RefusedBy.ROBOTS_TXT:
            continue
        document = f"{origin}/.well-known/tdmrep.json" if name == RefusedBy.TDMREP_JSON else name
        said = _snapshot(sha, rederiver.meta(sha, document)) if sha else "not had"
        lines.append(f"  {name}: {said}")
    lines += _usage(item.record.get("usage"))
    if item.item_reason:
        lines.append(f"  its page said: {item.item_reason}")
    differences = item_differences(item.record, RunContext.of(run), rederiver)
    return lines + _rederived(differences, bool(item.snapshots), "snapshot", "had")


def _rechecked(run: dict[str, Any]) -> str:
    """What a recheck's run re-checked: the dataset, and where the documents came from."""
    about = run.get("recheck")
    if not isinstance(about, dict):
        return ""
    documents = text(about.get("documents"))
    source = f"documents from {documents}" if documents not in ("", "fetched") else "fetched"
    return f", re-checking {text(about.get('dataset')) or '?'} ({source})"
