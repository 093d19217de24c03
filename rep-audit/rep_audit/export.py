"""``audit export``: the preferences that travel with the data (pure).

aipref vocab-08 §3.3: complying with training preferences includes passing them along
with a model that is distributed; an open, unmerged pull request (aipref PR #252) would
say to keep the preferences together with the acquired assets. From a trail,
:func:`export_lines` gives a header line, then one JSON line per asset the crawl kept (a
``url`` record ``fetched`` with items kept, a ``file`` record ``stored`` or ``marked``)
and per stored item a recheck kept (an ``item`` record ``kept``), in the versioned format
of docs/audit-trail.md ("Exporting the preferences with the data"); the header counts a
recheck's items by status. A trail of several rechecks exports what may be used now: each
item as the latest run that re-checked it decided it (:class:`_Latest`), and ``run``
exports one run on its own. An export once built is read here too: its Markdown
summary, which a model card can cite (:func:`summary_markdown`), and :func:`check_export`,
which says where an export file differs from what its trail gives (``audit verify
--export``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from rep_audit.summary import Summary
from rep_engine.records import (
    FILE_FATE_ROWS,
    ITEM_STATUSES,
    EndReason,
    FateRecord,
    ItemRecord,
    ItemStatus,
    RobotsPart,
    describe,
    item_of,
    items,
    mapping,
    text,
)
from rep_engine.trail.read import Line, Trail, TrailError
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


class ExportRunError(ValueError):
    """``run`` names no run of the trail, or several: one line naming its runs."""


class _Latest:
    """Which recheck ``item`` records stand: an item (its URL) re-checked again by a later
    run is that run's, for the purposes it was run for. A record is superseded by a later
    run's of its URL whose purposes include its run's; one a later run for other purposes
    re-checked stands beside it, and a URL that one standing run refused (or left unknown)
    is exported by none (that run's "no" is not lost to a run that did not ask). A run
    that failed half-way (its end line's ``reason``) decides as any run, but exports no
    item: no collection was written from it."""

    def __init__(self) -> None:
        self.purposes: dict[str, frozenset[str]] = {}
        #: The runs whose end line says they failed.
        self.failed: set[str] = set()
        #: Each URL's standing runs: (run, every record of the URL in it kept).
        self.runs: dict[str, list[tuple[str, bool]]] = {}
        #: Whether a URL was re-checked by two runs (the trail is read again).
        self.again = False

    def note(self, item: ItemRecord) -> None:
        """The first reading: ``item`` recorded."""
        kept = item.status == ItemStatus.KEPT
        entries = self.runs.setdefault(item.url, [])
        for place, (run, all_kept) in enumerate(entries):
            if run == item.run:  # the dataset holds the URL twice
                entries[place] = (run, all_kept and kept)
                return
        self.again = self.again or bool(entries)  # an earlier run re-checked it
        mine = self.purposes.get(item.run, frozenset())
        entries[:] = [e for e in entries if not self.purposes.get(e[0], frozenset()) <= mine]
        entries.append((item.run, kept))

    def stands(self, item: ItemRecord) -> bool:
        """Whether ``item``'s record stands (no later run re-checked its URL for its
        purposes)."""
        return any(run == item.run for run, _ in self.runs.get(item.url, ()))

    def exported(self, item: ItemRecord) -> bool:
        """Whether a standing kept ``item`` is exported: its run did not fail, and no
        other standing run refused its URL or left it unknown."""
        if item.run in self.failed:
            return False
        return all(kept for run, kept in self.runs.get(item.url, ()) if run != item.run)


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
    #: The runs whose end line says they failed half-way (a recheck), and why.
    failed: dict[str, str] = field(default_factory=dict)


def _run_entry(record: dict[str, Any]) -> dict[str, Any]:
    """A ``run`` record as the export's header lists it: its id, time, spider, purposes."""
    return {**{name: text(record.get(name)) for name in ("run", "time", "spider")},
            "purposes": [text(p) for p in items(record.get("purposes"))]}  # fmt: skip


def _header(
    trail: str, head: str, count: int, runs: list[dict[str, Any]], span: list[str],
    assets: dict[tuple[str, str, str], dict[str, Any]], statuses: Counter[str], left: Counter[str],
    repairs: list[dict[str, Any]], run: str,
) -> dict[str, Any]:  # fmt: skip
    """The export's header; a recheck's items (``statuses``: each status as written;
    ``left``: those superseded and withheld), repairs and the one run exported (``run``)
    only when there were any."""
    kinds = Counter(asset["asset"] for asset in assets.values())
    header: dict[str, Any] = {
        "export": EXPORT_VERSION,
        "trail": trail,
        "head": head,
        "lines": count,
        "runs": runs,
        "purposes": list(dict.fromkeys(p for entry in runs for p in entry["purposes"])),
        "from": span[0],
        "to": span[1],
        "assets": {"pages": kinds["page"], "files": kinds["file"]},
    }
    if statuses:  # a recheck's items: those kept are assets; all counted by status
        header["assets"]["items"] = kinds["item"]
        header["items"] = {status: statuses[status] for status in ITEM_STATUSES}
    if repairs:  # the trail was cut and repaired: it is not whole (docs/audit-trail.md)
        header["repairs"] = repairs
    if run:
        header["only_run"] = runs[0]["run"]
    for name in ("items_superseded", "items_withheld"):
        if left[name]:
            header[name] = left[name]
    return header


def build(path: str | Path, until: str = "", rechecked_items: bool = True, run: str = "") -> Export:
    """The export of the trail at ``path`` (up to the line whose hash is ``until``, when
    given and found: an export made before runs were appended). Records of one URL with
    the same preferences, signals and documents make one line (``records``, ``lines``).
    ``rechecked_items``: a recheck's items are exported (those kept) and counted, each as
    the latest run that re-checked it decided it (:class:`_Latest`: the trail is read
    again when some item was re-checked twice); not when a recheck reads the trail as its
    collection, the crawl's pages and files. ``run``: the records of that run alone (its
    id, or the start of it; raises :class:`ExportRunError` when it names no run, or
    several), as it decided them."""
    latest = _Latest() if rechecked_items and not run else None
    export = _build(path, until, rechecked_items, run, latest, None)
    if latest is not None and latest.again:
        export = _build(path, until, rechecked_items, run, None, latest)
    return export


def _build(
    path: str | Path,
    until: str,
    rechecked_items: bool,
    run: str,
    noting: _Latest | None,
    latest: _Latest | None,
) -> Export:
    """:func:`build`'s reading of the trail: the item records noted (``noting``), or only
    those that stand counted and exported (``latest``, noted in a first reading)."""
    trail = Trail(path)
    seen = Summary()  # its runs, their end lines, the repairs and the runs they cut short
    assets: dict[tuple[str, str, str], dict[str, Any]] = {}
    head, count, reached, span = "", 0, not until, ["", ""]
    repairs: list[dict[str, Any]] = []
    statuses: Counter[str] = Counter()  # the items by status (as written)
    left: Counter[str] = Counter()  # those superseded by a later run, and withheld
    for line in trail.lines():
        record, kind = line.record or {}, line.type
        moment, run_id = text(record.get("time")), text(record.get("run"))
        if kind == "repair":  # it cut short the runs then open; its time is not the crawl's
            dropped = record.get("dropped_bytes")  # in this order: an export's bytes are checked
            repairs.append({"line": line.number, "time": moment, "dropped_bytes": dropped,
                            "open_runs": list(seen.open)})  # fmt: skip
        if kind in ("run", "end", "repair"):
            seen.feed(line)
        head, count = trail.chain.head, line.number
        reached = reached or (bool(until) and head == until)
        if kind != "repair" and run_id.startswith(run):  # ``--run``: that run's lines alone
            span = [span[0] or moment, moment] if moment else span
            if kind == "run" and noting is not None:
                noting.purposes[run_id] = frozenset(_run_entry(record)["purposes"])
            asset, item = _asset(line, rechecked_items, noting, latest, statuses, left)
            if asset:
                _add(assets, asset, line.number, record, item)
        if reached and until:
            break
    runs = [_run_entry(header) for header in seen.runs if text(header.get("run")).startswith(run)]
    if run and len(runs) != 1:
        raise ExportRunError(_no_run(run, runs, seen.runs))
    failed = {text(end.get("run")): text(end.get("error")) for end in seen.ends
              if EndReason.of(end.get("reason")) is EndReason.FAILED}  # fmt: skip
    failed = {run_id: why for run_id, why in failed.items() if run_id.startswith(run)}
    if noting is not None and failed:  # a run that failed exports no item: read again
        noting.failed.update(failed)
        noting.again = True
    header = _header(str(path), head, count, runs, span, assets, statuses, left, repairs, run)
    return Export(header, list(assets.values()), reached, [*seen.cut, *seen.open], failed)


def _asset(
    line: Line, rechecked_items: bool, noting: _Latest | None, latest: _Latest | None,
    statuses: Counter[str], left: Counter[str],
) -> tuple[str, ItemRecord | None]:  # fmt: skip
    """Which asset the crawl (or a recheck) kept ``line`` is (``page``, ``file``,
    ``item``; ``""``: none), and its item read (a recheck's, with ``rechecked_items``):
    noted (``noting``), or counted by status (``statuses``) when it stands, and exported
    when its run did not fail and no other standing run said no (``latest``)."""
    item = item_of(line) if rechecked_items else None
    if item is None:
        return _kept(line.type, line.record or {}), None
    if latest is not None and not latest.stands(item):
        left["items_superseded"] += 1  # a later run re-checked it for its purposes
        return "", None
    if noting is not None:
        noting.note(item)
    statuses[item.status] += 1
    if item.status != ItemStatus.KEPT:
        return "", item
    if latest is not None and not latest.exported(item):
        left["items_withheld"] += 1  # its run failed, or another standing run said no
        return "", item
    return "item", item


def _no_run(run: str, met: list[dict[str, Any]], every: list[dict[str, Any]]) -> str:
    """Why ``run`` names no one run (``met``: the runs it names, of ``every`` run)."""
    if met:
        ids = ", ".join(entry["run"] for entry in met)
        return f"--run {run} names {len(met)} runs ({ids}): give more of its id"
    ids = ", ".join(text(header.get("run")) for header in every)
    return f"no run {run} in the trail (its runs: {ids or 'none'})"


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


def summary_markdown(export: Export, name: str = "") -> list[str]:
    """A short Markdown summary that a model card can cite."""
    header = export.header
    counts = {p: Counter(asset["preferences"][p] for asset in export.assets) for p in PURPOSES}
    conditions = Counter(c for asset in export.assets for c in asset["conditions"])
    assets = header["assets"]
    lines = [
        "## AI-usage preferences of the crawled data",
        "",
        f"- Export format: scrapy_rep audit export, version {header['export']}"
        + (f" (`{name}`)" if name else ""),
        f"- Audit trail: `{header['trail']}`, head (SHA-256 of its last line) "
        f"`{header['head']}`, {header['lines']} line(s)",
        f"- Crawled from {header['from'] or '-'} to {header['to'] or '-'}, "
        f"{len(header['runs'])} run(s), purposes: {', '.join(header['purposes']) or '-'}"
        + (f"; run `{header['only_run']}` alone (--run)" if header.get("only_run") else ""),
        f"- Assets kept: {assets['pages']} page(s), {assets['files']} file(s)"
        + (f", {assets['items']} re-checked item(s)" if "items" in assets else ""),
        *_rechecked(header),
        *_not_whole(export),
        "",
        "| category | allowed | disallowed | unknown |",
        "|---|---|---|---|",
    ]
    lines += [f"| {p} | " + " | ".join(str(counts[p][a]) for a in ANSWERS) + " |" for p in PURPOSES]
    lines.append("")
    overridden = Counter(a["overridden"] for a in export.assets if a.get("overridden"))
    if overridden:
        lines += ["Fetched although robots.txt disallowed them, under an authorized "
                  "override (REP_OVERRIDES): " + ", ".join(
            f"{n} page(s) by {by}" for by, n in sorted(overridden.items())) + ".", ""]  # fmt: skip
    if conditions:
        lines += ["Conditions on use: " + ", ".join(
            f"`{c}` ({n} asset(s))" for c, n in sorted(conditions.items())) + ".", ""]  # fmt: skip
    lines.append("\"unknown\": no signal spoke about the category. Check the export against "
                 "its trail: `python -m scrapy_rep audit verify TRAIL --export FILE`.")  # fmt: skip
    return lines


def _rechecked(header: dict[str, Any]) -> list[str]:
    """The summary's line of a recheck's items, by status (only the kept are assets)."""
    counts = header.get("items")
    if not isinstance(counts, dict):
        return []
    said = ", ".join(f"{counts.get(status, 0)} {status}" for status in ITEM_STATUSES)
    line = f"- Stored items re-checked: {sum(counts.values())} ({said})"
    if header.get("items_superseded"):
        line += (f", each as the latest run that re-checked it decided it "
                 f"({header['items_superseded']} record(s) of earlier runs decided again by "
                 "a later run)")  # fmt: skip
    if header.get("items_withheld"):
        line += (f"; {header['items_withheld']} kept by a run but not exported (their run "
                 "failed, or a run for other purposes refused or left them unknown)")  # fmt: skip
    return [f"{line}; only the kept ones are exported"]


def _not_whole(export: Export) -> list[str]:
    """The summary's line saying what the trail lacks, if anything: repairs after a cut,
    runs without their end line."""
    said = [f"repaired after a cut at line {repair['line']} ({repair['dropped_bytes']} byte(s) "
            "dropped)" for repair in export.header.get("repairs", ())]  # fmt: skip
    if export.unended:
        runs = ", ".join(f"`{run[:8]}`" for run in export.unended)
        said.append(f"run(s) {runs} without their end line: what they did after their "
                    "last line is not in the trail")  # fmt: skip
    # its kept items are exported only by an export of it alone (--run), as it decided
    alone = "its items are those decided before it stopped"
    withheld = alone if export.header.get("only_run") else "its kept items are not exported"
    failed = [
        f"- **Run `{run[:8]}` failed** ({why or 'no error said'}): not a whole recheck; {withheld}"
        for run, why in export.failed.items()
    ]
    if not said:
        return failed
    return [f"- **The trail is not whole**: {'; '.join(said)} (`audit verify` reports it)",
            *failed]  # fmt: skip


def _key(line: dict[str, Any]) -> tuple[str, str, str]:
    return (text(line.get("asset")), text(line.get("url")), json.dumps(line.get("lines")))


def _difference(found: dict[str, Any], expected: dict[str, Any]) -> str:
    """The first field that differs, in words."""
    for name in sorted(set(found) | set(expected)):
        if name not in found:
            return f"{name} is missing"
        if name not in expected:
            return f"{name} is not in the trail's export"
        have, want = found[name], expected[name]
        if isinstance(have, dict) and isinstance(want, dict) and have != want:
            for sub in sorted(set(have) | set(want)):
                if have.get(sub) != want.get(sub):
                    return (f"{name}.{sub} is {json.dumps(have.get(sub))}, "
                            f"the trail gives {json.dumps(want.get(sub))}")  # fmt: skip
        if have != want:
            return f"{name} is {json.dumps(have)}, the trail gives {json.dumps(want)}"
    return "written differently"


def read_export(path: str | Path) -> Iterable[tuple[int, dict[str, Any] | None, str]]:
    """Each line of an export file: (number, the object or ``None``, the raw text)."""
    try:
        with Path(path).open(encoding="utf-8") as file:
            for number, raw in enumerate(file, 1):
                try:
                    value = json.loads(raw)
                except (ValueError, RecursionError):
                    value = None
                yield number, value if isinstance(value, dict) else None, raw.rstrip("\n")
    except (OSError, UnicodeDecodeError) as error:
        raise TrailError(
            f"{path}: cannot read: {getattr(error, 'strerror', None) or error}"
        ) from None


def check_export(trail: str | Path, export: str | Path, sink: Callable[[str, str], object]) -> int:
    """Compare the export at ``export`` with what ``trail`` gives (up to the export's
    ``head``); each difference is handed to ``sink(url, what)``; the number of them."""
    lines = list(read_export(export))
    found, expected = _header_differences(trail, lines[0][1] if lines else None)
    if expected is not None:
        found += _asset_differences(lines[1:], expected)
    for url, what in found:
        sink(url, f"export {export}: {what}")
    return len(found)


def _header_differences(
    trail: str | Path, header: dict[str, Any] | None
) -> tuple[list[tuple[str, str]], Export | None]:
    """Where an export's ``header`` (its first line) differs from the header of the export
    ``trail`` gives up to its ``head`` (URL, what), and that export (``None``: none to hold
    its lines to)."""
    if header is None or header.get("export") is None:
        return [("", 'line 1: not an export header ({"export": …})')], None
    if header.get("export") != EXPORT_VERSION:
        return [("", f"line 1: export format {header.get('export')!r}, this reader knows "
                     f"{EXPORT_VERSION}")], None  # fmt: skip
    until = text(header.get("head"))
    try:
        expected = build(trail, until, run=text(header.get("only_run")))
    except ExportRunError as error:  # the run the export is of is not in the trail
        return [("", f"line 1: only_run: {error}")], None
    found = []
    if not expected.reached:
        found.append(("", f"line 1: its head {until[:16]}… is the hash of no line of the "
                          "trail (the trail was changed, or the export is of another "
                          "trail)"))  # fmt: skip
    want_header = {k: v for k, v in expected.header.items() if k != "trail"}
    have_header = {k: v for k, v in header.items() if k != "trail"}
    if have_header != want_header:
        found.append(("", f"line 1: the header differs: {_difference(have_header, want_header)}"))
    return found, expected


def _asset_differences(
    lines: list[tuple[int, dict[str, Any] | None, str]], expected: Export
) -> list[tuple[str, str]]:
    """Where an export's asset ``lines`` differ from the assets of the ``expected`` export
    (URL, what): a line extra, altered, or missing."""
    wanted = {_key(asset): asset for asset in expected.assets}
    seen: set[tuple[str, str, str]] = set()
    found = []
    for number, value, raw in lines:
        if value is None:
            found.append(("", f"line {number}: not a JSON object: {raw[:60]!r}"))
            continue
        key, url = _key(value), text(value.get("url"))
        if key in seen or key not in wanted:
            found.append((url, f"line {number}: extra: no such asset in the trail"
                          + (" (a second line for it)" if key in seen else "")))  # fmt: skip
            continue
        seen.add(key)
        if value != wanted[key] or raw != encode(wanted[key]):
            found.append((url, f"line {number}: altered: {_difference(value, wanted[key])}"))
    missing = [asset for key, asset in wanted.items() if key not in seen]
    return found + [
        (asset["url"], f"missing: the {asset['asset']} of trail line(s) "
         f"{', '.join(map(str, asset['lines']))} has no line") for asset in missing
    ]  # fmt: skip
