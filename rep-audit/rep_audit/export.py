"""``audit export``: the preferences that travel with the data (pure).

aipref vocab-08 §3.3: complying with training preferences includes passing them along
with a model that is distributed; an open, unmerged pull request (aipref PR #252) would
say to keep the preferences together with the acquired assets. From a trail,
:func:`export_lines` gives a header line, then one JSON line per asset the crawl kept (a
``url`` record ``fetched`` with items kept, a ``file`` record ``stored`` or ``marked``)
and per stored item a recheck kept (an ``item`` record ``kept``), in the versioned format
of docs/audit-trail.md ("Exporting the preferences with the data"); the header counts a
recheck's items by status. Its summary and its check against its trail:
:mod:`rep_audit.exportread`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from rep_audit.faterecord import FateRecord
from rep_audit.summary import Summary
from rep_engine.records import (
    FILE_FATE_ROWS,
    ITEM_STATUSES,
    ItemRecord,
    RobotsPart,
    describe,
    item_of,
    items,
    mapping,
    text,
)
from rep_engine.trail.read import Trail
from rep_engine.usage.purpose import PURPOSES

#: The version of the export format (the header's ``export``).
EXPORT_VERSION: Final = 1
#: The answers of a category.
ANSWERS: Final = ("allowed", "disallowed", "unknown")


def answer(value: Any) -> str:
    """A record's answer (``true``, ``false``, ``null``) as a word."""
    return "allowed" if value is True else "disallowed" if value is False else "unknown"


def preferences_of(usage: Any) -> dict[str, Any]:
    """From a record's ``usage`` part (``None``: no signal spoke): ``preferences`` (the
    answer per category), ``conditions`` and ``signals`` (each signal that decided a
    category or states a condition: ``source``, ``vocabulary``, ``decides``,
    ``conditions``, ``snapshot`` when it has one). Also the item field's value
    (``REP_ITEM_PREFERENCES_FIELD``)."""
    usage = mapping(usage)
    answers = mapping(usage.get("answers"))
    decided = mapping(usage.get("decided_by"))
    signals = []
    for index, signal in enumerate(items(usage.get("signals"))):
        if not isinstance(signal, dict):
            continue
        decides = [p for p in PURPOSES if decided.get(p) == index]
        conditions = [text(c) for c in items(signal.get("conditions"))]
        if not decides and not conditions:
            continue
        entry: dict[str, Any] = {
            "source": text(signal.get("source")),
            "vocabulary": text(signal.get("vocabulary")),
            "decides": decides,
        }
        if conditions:
            entry["conditions"] = conditions
        if text(signal.get("snapshot")):
            entry["snapshot"] = signal["snapshot"]
        signals.append(entry)
    return {
        "preferences": {p: answer(answers.get(p)) for p in PURPOSES},
        "conditions": [text(c) for c in items(usage.get("conditions"))],
        "signals": signals,
    }


def _documents(record: dict[str, Any]) -> dict[str, Any]:
    """The versions of the documents the record was decided against."""
    robots = mapping(record.get("robots"))
    documents: dict[str, Any] = {"robots.txt": text(robots.get("snapshot")) or None}
    if "tdmrep" in record:
        documents["tdmrep"] = text(record.get("tdmrep"))
    rsl = record.get("rsl")
    if isinstance(rsl, dict) and rsl:
        documents["rsl"] = {text(k): text(v) for k, v in rsl.items()}
    return documents


def _kept(kind: str, record: dict[str, Any]) -> str:
    """``page``, ``file`` or ``""`` (not an asset the crawl kept) of a line of ``kind``."""
    if kind not in ("url", "file"):
        return ""
    read = FateRecord.of(record)
    if kind == "url":  # a page some of whose items the crawl kept (describe's words of it)
        return "page" if describe(read.entry).kept > 0 else ""
    fate = read.file_fate
    return "file" if fate is not None and FILE_FATE_ROWS[fate].stored else ""


@dataclass
class Export:
    """An export as the trail gives it: the header and the asset lines, in trail order."""

    header: dict[str, Any]
    assets: list[dict[str, Any]] = field(default_factory=list)
    #: Whether the header's ``head`` was reached (:func:`build` with ``until``).
    reached: bool = True
    #: The runs without their end line (killed, or cut short by a repair): their assets
    #: may be fewer than they kept.
    unended: list[str] = field(default_factory=list)


def _run_entry(record: dict[str, Any], moment: str) -> dict[str, Any]:
    """A ``run`` record as the export's header lists it: its id, time, spider, purposes."""
    return {"run": text(record.get("run")), "time": moment, "spider": text(record.get("spider")),
            "purposes": [text(p) for p in items(record.get("purposes"))]}  # fmt: skip


def _header(
    trail: str,
    head: str,
    count: int,
    runs: list[dict[str, Any]],
    purposes: list[str],
    span: tuple[str, str],
    assets: dict[tuple[str, str, str], dict[str, Any]],
    rechecked: Counter[str],
    repairs: list[dict[str, Any]],
) -> dict[str, Any]:
    """The export's header; a recheck's items and repairs only when there were any."""
    first, last = span
    kinds = Counter(asset["asset"] for asset in assets.values())
    header: dict[str, Any] = {
        "export": EXPORT_VERSION,
        "trail": trail,
        "head": head,
        "lines": count,
        "runs": runs,
        "purposes": purposes,
        "from": first,
        "to": last,
        "assets": {"pages": kinds["page"], "files": kinds["file"]},
    }
    if rechecked:  # a recheck's items: those kept are assets; all counted by status
        header["assets"]["items"] = kinds["item"]
        header["items"] = {status: rechecked[status] for status in ITEM_STATUSES}
    if repairs:  # the trail was cut and repaired: it is not whole (docs/audit-trail.md)
        header["repairs"] = repairs
    return header


def build(path: str | Path, until: str = "", rechecked_items: bool = True) -> Export:
    """The export of the trail at ``path`` (up to the line whose hash is ``until``, when
    given and found: an export made before runs were appended). Records of one URL with
    the same preferences, signals and documents make one line (``records``, ``lines``).
    ``rechecked_items``: a recheck's items are exported (those kept) and counted; not
    when a recheck reads the trail as its collection, the crawl's pages and files."""
    trail = Trail(path)
    runs: list[dict[str, Any]] = []
    purposes: list[str] = []
    first = last = ""
    assets: dict[tuple[str, str, str], dict[str, Any]] = {}
    head, count, reached = "", 0, not until
    seen = Summary()  # the runs without their end line, and those a repair cut short
    repairs: list[dict[str, Any]] = []
    rechecked: Counter[str] = Counter()
    for line in trail.lines():
        record = line.record or {}
        moment = text(record.get("time"))
        if line.type == "repair":  # it cut short the runs then open; its time is not the crawl's
            dropped, cut = record.get("dropped_bytes"), list(seen.open)
            repairs.append(
                {"line": line.number, "time": moment, "dropped_bytes": dropped, "open_runs": cut}
            )
        elif moment:
            first, last = first or moment, moment
        if line.type in ("run", "end", "repair"):
            seen.feed(line)
        if line.type == "run":
            runs.append(_run_entry(record, moment))
            purposes += [p for p in runs[-1]["purposes"] if p not in purposes]
        kind = _kept(line.type, record)
        item = item_of(line) if rechecked_items else None
        if item is not None:
            rechecked[item.status] += 1
            kind = "item" if item.status == "kept" else ""
        if kind:
            _add(assets, kind, line.number, record, item)
        head, count = trail.chain.head, line.number
        if until and head == until:
            reached = True
            break
    span = (first, last)
    header = _header(str(path), head, count, runs, purposes, span, assets, rechecked, repairs)
    return Export(header, list(assets.values()), reached, [*seen.cut, *seen.open])


def _add(
    assets: dict[tuple[str, str, str], dict[str, Any]],
    kind: str,
    number: int,
    record: dict[str, Any],
    item: ItemRecord | None = None,
) -> None:
    """Add a kept asset's record (``item``: a recheck's item, read) to the asset of the
    same URL, preferences and documents (its line, and the item's line and shard)."""
    url = text(record.get("url"))
    body = preferences_of(record.get("usage"))
    if kind in ("page", "item"):
        body["documents"] = _documents(record)
        overridden = RobotsPart.from_part(mapping(record.get("robots"))).overridden
        if overridden:  # robots.txt disallowed it: an authorized override let it through
            body["overridden"] = overridden
    key = (kind, url, json.dumps(body, sort_keys=True))
    asset = assets.get(key)
    if asset is None:
        asset = assets[key] = {"asset": kind, "url": url, "records": [], "lines": [], **body}
        if kind == "item":
            asset["dataset_lines"] = []
    if kind == "page" and text(record.get("id")):
        asset["records"].append(record["id"])
    asset["lines"].append(number)
    if item is not None and item.line is not None:
        asset["dataset_lines"].append(item.line)
    if item is not None and item.shard:  # a collection of several files: the item's
        asset.setdefault("dataset_shards", []).append(item.shard)


def encode(line: dict[str, Any]) -> str:
    """One line of an export, as written (compact JSON, ASCII, no newline)."""
    return json.dumps(line, separators=(",", ":"))


def export_lines(path: str | Path, rechecked_items: bool = True) -> Iterator[str]:
    """The export of a trail, line by line (the header first), without newlines
    (``rechecked_items``: :func:`build`'s)."""
    export = build(path, rechecked_items=rechecked_items)
    yield encode(export.header)
    for asset in export.assets:
        yield encode(asset)
