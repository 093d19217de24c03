"""``audit export``: the preferences that travel with the data (pure).

aipref vocab-08 §3.3: complying with training preferences includes passing them along
with a model that is distributed; an open, unmerged pull request (aipref PR #252) would
say to keep the preferences together with the acquired assets. From a trail,
:func:`export_lines` gives one JSON line per asset the crawl kept (a ``url`` record
``fetched`` with items kept, a ``file`` record ``stored`` or ``marked``), after a header
line, in the versioned format
of docs/audit-trail.md ("Exporting the preferences with the data"), and one per stored
item a recheck kept (an ``item`` record ``kept``: :mod:`scrapy_rep.audit.records`), the
header counting a recheck's items by status; :func:`check_export` says where an export
differs from what its trail gives.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from scrapy_rep.audit.faterecord import FateRecord, FileFate, RobotsSaid
from scrapy_rep.audit.read import Trail, TrailError, items, text
from scrapy_rep.audit.records import ITEM_STATUSES, item_of
from scrapy_rep.usage.purpose import PURPOSES
from scrapy_rep.verdict.fates import Fate

#: The version of the export format (the header's ``export``).
EXPORT_VERSION: Final = 1
#: The answers of a category.
ANSWERS: Final = ("allowed", "disallowed", "unknown")
#: The fates of a ``file`` record that keep the file.
STORED: Final = (FileFate.STORED, FileFate.MARKED)


def answer(value: Any) -> str:
    """A record's answer (``true``, ``false``, ``null``) as a word."""
    return "allowed" if value is True else "disallowed" if value is False else "unknown"


def preferences_of(usage: Any) -> dict[str, Any]:
    """From a record's ``usage`` part (``None``: no signal spoke): ``preferences`` (the
    answer per category), ``conditions`` and ``signals`` (each signal that decided a
    category or states a condition: ``source``, ``vocabulary``, ``decides``,
    ``conditions``, ``snapshot`` when it has one). Also the item field's value
    (``REP_ITEM_PREFERENCES_FIELD``)."""
    usage = usage if isinstance(usage, dict) else {}
    answers = usage.get("answers")
    answers = answers if isinstance(answers, dict) else {}
    decided = usage.get("decided_by")
    decided = decided if isinstance(decided, dict) else {}
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
    robots = record.get("robots")
    robots = robots if isinstance(robots, dict) else {}
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
    if kind == "url":
        return "page" if read.fate is Fate.FETCHED and (read.items_kept or 0) > 0 else ""
    return "file" if read.file_fate in STORED else ""


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
    run_purposes = [text(p) for p in items(record.get("purposes"))]
    spider = text(record.get("spider"))
    return {"run": text(record.get("run")), "time": moment, "spider": spider,
            "purposes": run_purposes}  # fmt: skip


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
    """The export's header: the trail read (its head hash, lines), its runs and their
    purposes, the time span (``from``, ``to``), the assets counted by kind, a recheck's
    items by status and the repairs that cut the trail."""
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
    unended: dict[str, None] = {}
    repaired: set[str] = set()
    repairs: list[dict[str, Any]] = []
    rechecked: Counter[str] = Counter()
    for line in trail.lines():
        record = line.record or {}
        moment = text(record.get("time"))
        if moment and line.type != "repair":  # a repair's time is not the crawl's
            first = first or moment
            last = moment
        if line.type == "repair":  # it cut short the runs then open
            cut = [run for run in unended if run not in repaired]
            repaired.update(cut)
            dropped = record.get("dropped_bytes")
            repairs.append(
                {"line": line.number, "time": moment, "dropped_bytes": dropped, "open_runs": cut}
            )
        elif line.type == "end":
            unended.pop(text(record.get("run")), None)
        if line.type == "run":
            unended[text(record.get("run"))] = None
            runs.append(_run_entry(record, moment))
            purposes += [p for p in runs[-1]["purposes"] if p not in purposes]
        kind = _kept(line.type, record)
        item = item_of(line) if rechecked_items else None
        if item is not None:
            rechecked[item.status] += 1
            kind = "item" if item.status == "kept" else ""
        if kind:
            _add(assets, kind, line.number, record)
        head, count = trail.chain.head, line.number
        if until and head == until:
            reached = True
            break
    span = (first, last)
    header = _header(str(path), head, count, runs, purposes, span, assets, rechecked, repairs)
    return Export(header, list(assets.values()), reached, list(unended))


def _add(
    assets: dict[tuple[str, str, str], dict[str, Any]],
    kind: str,
    number: int,
    record: dict[str, Any],
) -> None:
    url = text(record.get("url"))
    body = preferences_of(record.get("usage"))
    if kind in ("page", "item"):
        body["documents"] = _documents(record)
        robots = RobotsSaid.of(record.get("robots"))
        overridden = robots.overridden if robots is not None else ""
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
    line = record.get("line")
    if kind == "item" and isinstance(line, int) and not isinstance(line, bool):
        asset["dataset_lines"].append(line)


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
    counts: dict[str, Counter[str]] = {p: Counter() for p in PURPOSES}
    conditions: Counter[str] = Counter()
    for asset in export.assets:
        for purpose in PURPOSES:
            counts[purpose][asset["preferences"][purpose]] += 1
        for condition in asset["conditions"]:
            conditions[condition] += 1
    assets = header["assets"]
    lines = [
        "## AI-usage preferences of the crawled data",
        "",
        f"- Export format: scrapy_rep audit export, version {header['export']}"
        + (f" (`{name}`)" if name else ""),
        f"- Audit trail: `{header['trail']}`, head (SHA-256 of its last line) "
        f"`{header['head']}`, {header['lines']} line(s)",
        f"- Crawled from {header['from'] or '-'} to {header['to'] or '-'}, "
        f"{len(header['runs'])} run(s), purposes: {', '.join(header['purposes']) or '-'}",
        f"- Assets kept: {assets['pages']} page(s), {assets['files']} file(s)"
        + (f", {assets['items']} re-checked item(s)" if "items" in assets else ""),
        *_rechecked(header),
        *_not_whole(export),
        "",
        "| category | allowed | disallowed | unknown |",
        "|---|---|---|---|",
    ]
    for purpose in PURPOSES:
        lines.append(
            f"| {purpose} | " + " | ".join(str(counts[purpose][a]) for a in ANSWERS) + " |"
        )
    lines.append("")
    overridden = Counter(a["overridden"] for a in export.assets if a.get("overridden"))
    if overridden:
        lines.append("Fetched although robots.txt disallowed them, under an authorized "
                     "override (REP_OVERRIDES): " + ", ".join(
            f"{n} page(s) by {said}" for said, n in sorted(overridden.items())) + ".")  # fmt: skip
        lines.append("")
    if conditions:
        lines.append("Conditions on use: " + ", ".join(
            f"`{c}` ({n} asset(s))" for c, n in sorted(conditions.items())) + ".")  # fmt: skip
        lines.append("")
    lines.append("\"unknown\": no signal spoke about the category. Check the export against "
                 "its trail: `python -m scrapy_rep audit verify TRAIL --export FILE`.")  # fmt: skip
    return lines


def _rechecked(header: dict[str, Any]) -> list[str]:
    """The summary's line of a recheck's items, by status (only the kept are assets)."""
    counts = header.get("items")
    if not isinstance(counts, dict):
        return []
    said = ", ".join(f"{counts.get(status, 0)} {status}" for status in ITEM_STATUSES)
    return [f"- Stored items re-checked: {sum(counts.values())} ({said}); only the kept "
            "ones are exported"]  # fmt: skip


def _not_whole(export: Export) -> list[str]:
    """The summary's line saying what the trail lacks, if anything: repairs after a cut,
    runs without their end line."""
    said = []
    for repair in export.header.get("repairs", ()):
        said.append(f"repaired after a cut at line {repair['line']} "
                    f"({repair['dropped_bytes']} byte(s) dropped)")  # fmt: skip
    if export.unended:
        runs = ", ".join(f"`{run[:8]}`" for run in export.unended)
        said.append(f"run(s) {runs} without their end line: what they did after their "
                    "last line is not in the trail")  # fmt: skip
    if not said:
        return []
    return [f"- **The trail is not whole**: {'; '.join(said)} (`audit verify` reports it)"]


# --------------------------------------------------------------------------- checking


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
                except ValueError:
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
    problems = 0

    def add(url: str, what: str) -> None:
        nonlocal problems
        problems += 1
        sink(url, f"export {export}: {what}")

    if not lines or lines[0][1] is None or lines[0][1].get("export") is None:
        add("", 'line 1: not an export header ({"export": …})')
        return problems
    header = lines[0][1]
    if header.get("export") != EXPORT_VERSION:
        add("", f"line 1: export format {header.get('export')!r}, this reader knows "
                f"{EXPORT_VERSION}")  # fmt: skip
        return problems
    until = text(header.get("head"))
    expected = build(trail, until)
    if not expected.reached:
        add("", f"line 1: its head {until[:16]}… is the hash of no line of the trail "
                "(the trail was changed, or the export is of another trail)")  # fmt: skip
    want_header = {k: v for k, v in expected.header.items() if k != "trail"}
    have_header = {k: v for k, v in header.items() if k != "trail"}
    if have_header != want_header:
        add("", f"line 1: the header differs: {_difference(have_header, want_header)}")
    wanted = {_key(asset): asset for asset in expected.assets}
    seen: set[tuple[str, str, str]] = set()
    for number, value, raw in lines[1:]:
        if value is None:
            add("", f"line {number}: not a JSON object: {raw[:60]!r}")
            continue
        key = _key(value)
        url = text(value.get("url"))
        if key in seen or key not in wanted:
            add(url, f"line {number}: extra: no such asset in the trail"
                + (" (a second line for it)" if key in seen else ""))  # fmt: skip
            continue
        seen.add(key)
        if value != wanted[key] or raw != encode(wanted[key]):
            add(url, f"line {number}: altered: {_difference(value, wanted[key])}")
    for key, asset in wanted.items():
        if key not in seen:
            add(asset["url"], f"missing: the {asset['asset']} of trail line(s) "
                f"{', '.join(map(str, asset['lines']))} has no line")  # fmt: skip
    return problems
