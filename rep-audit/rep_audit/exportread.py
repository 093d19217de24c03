"""An ``audit export`` once built, read (pure): its Markdown summary, which a model card
can cite, and :func:`check_export`, which says where an export file differs from what its
trail gives (``audit verify --export``); :mod:`rep_audit.export` builds it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rep_audit.export import ANSWERS, EXPORT_VERSION, Export, ExportRunError, build, encode
from rep_engine.records import ITEM_STATUSES, text
from rep_engine.trail.read import TrailError
from rep_engine.usage.purpose import PURPOSES


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
    try:
        expected = build(trail, until, run=text(header.get("only_run")))
    except ExportRunError as error:  # the run the export is of is not in the trail
        add("", f"line 1: only_run: {error}")
        return problems
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
