"""``audit verify`` on the command line (pure): one trail's findings printed as they are
found, or as one JSON object; several workers' trails verified as one; and the findings of
several trails joined into one :class:`~rep_audit.findings.Verification` (the HTML
report's)."""

from __future__ import annotations

import json
import sys
from functools import partial
from typing import TextIO

from rep_audit.across import across
from rep_audit.cliargs import EXIT_CLEAN, EXIT_DIFFERENCES, EXIT_UNUSABLE
from rep_audit.export import check_export, read_export
from rep_audit.findings import Finding, Verification
from rep_audit.verify import verify
from rep_engine.trail.terminal import printable, write_lines


def verify_several(
    paths: list[str],
    out: TextIO,
    heads: list[str],
    as_json: bool,
    workers: bool | None = None,
    key: str | None = None,
) -> int:
    """Each trail's chain verified on its own (its findings headed by its name; snapshots
    looked for in every trail's folder), then the records across the trails of one crawl
    (:func:`across`; ``workers``: ``--workers`` or ``--separate``), saying so when they
    were read as several crawls."""
    if heads or as_json:
        print("scrapy_rep: error: --head and --json take one TRAIL", file=sys.stderr)
        return EXIT_UNUSABLE

    def said(path: object, finding: Finding) -> None:
        print(printable(f"{path}: {finding}"), file=out)

    results = [verify(path, (), partial(said, path), keep=0, also=paths, key=key) for path in paths]
    problems, events, notes = across(paths, said, workers)
    problems += sum(result.problems for result in results)
    events += sum(result.event_count for result in results)
    verdicts = [
        line
        for path, result in zip(paths, results, strict=True)
        for line in (f"{path}: {result.tree}", _counted(path, result))
    ]
    together = f"{len(paths)} trails as one" if not notes else f"{len(paths)} trails"
    write_lines([*verdicts, *notes, f"{together}: {_verdict(problems, events)}"], out)
    return EXIT_CLEAN if not problems else EXIT_DIFFERENCES


def verify_one(
    path: str, out: TextIO, heads: list[str], as_json: bool = False, export: str | None = None,
    key: str | None = None,
) -> int:  # fmt: skip
    """Each finding printed as it is found (memory does not grow with them), then the
    verdict; ``--json``: one JSON object, written as it goes too. ``export``: an ``audit
    export`` file checked against the trail too (its differences are findings). ``key``:
    the operator's public key, each tree head's signature checked with it."""
    if as_json:
        return verify_json(path, out, heads, export, key)
    result = verify(path, heads, lambda finding: print(printable(finding), file=out), 0, (), key)
    said = []
    if export is not None:
        differences = check_export(
            path, export, lambda url, what: print(printable(Finding(0, url, what)), file=out)
        )
        result.problems += differences
        said.append(_export_verdict(export, differences))
    write_lines([result.tree, _counted(path, result), *said], out)
    return EXIT_CLEAN if result.clean else EXIT_DIFFERENCES


def _verdict(problems: int, events: int) -> str:
    """``clean`` or ``3 problem(s)``, and ``, 2 event(s)`` when there were events."""
    said = "clean" if not problems else f"{problems} problem(s)"
    return said + (f", {events} event(s)" if events else "")


def _counted(path: str, result: Verification) -> str:
    """A trail's verdict line: its verdict, its counts and its head."""
    return (f"{path}: {_verdict(result.problems, result.event_count)}: {result.lines} line(s), "
            f"{result.runs} run(s), {result.records} record(s), {result.snapshots} "
            f"snapshot(s); head {result.head}")  # fmt: skip


def _export_verdict(export: str, differences: int) -> str:
    """The line ``verify --export`` ends with: the export checked, and what it came to."""
    if differences:
        return f"export {export}: {differences} difference(s) from the trail"
    assets = sum(1 for _ in read_export(export)) - 1  # the first line is the header
    return f"export {export}: {assets} asset{'' if assets == 1 else 's'} match the trail"


def verify_json(
    path: str, out: TextIO, heads: list[str], export: str | None = None, key: str | None = None
) -> int:
    """``{"trail": …, "findings": [… as found …], "clean": …, "lines": …, …}``."""
    opened = False

    def start() -> None:
        nonlocal opened
        if not opened:
            out.write(f'{{"trail": {json.dumps(path)}, "findings": [')
            opened = True

    def sink(finding: Finding) -> None:
        if finding.event:
            return  # in "events", after the findings
        separator = ", " if opened else ""
        start()
        item = {"line": finding.line, "url": finding.url, "what": finding.what}
        out.write(separator + json.dumps(item))

    result = verify(path, heads, sink, 0, (), key)
    if export is not None:
        result.problems += check_export(path, export, lambda u, w: sink(Finding(0, u, w)))
    start()
    names = ("clean", "problems", "lines", "runs", "records", "snapshots", "head", "tree")
    tail: dict[str, object] = {name: getattr(result, name) for name in names}
    tail["events"] = [{"line": e.line, "what": e.what} for e in result.events]
    out.write(f"], {json.dumps(tail)[1:]}\n")
    return EXIT_CLEAN if result.clean else EXIT_DIFFERENCES


def add_finding(result: Verification, name: str, finding: Finding) -> None:
    """Count ``finding`` of the trail ``name`` in ``result``."""
    finding = Finding(finding.line, finding.url, f"{name}: {finding.what}", finding.event)
    if finding.event:
        result.event_count += 1
        result.events.append(finding)
    else:
        result.problems += 1
        result.findings.append(finding)


def join(result: Verification, name: str, one: Verification) -> None:
    """Add one trail's verification (``name``: the trail's, before each finding) to the
    report's verification of several trails."""
    for count in ("lines", "runs", "records", "snapshots", "problems", "event_count"):
        setattr(result, count, getattr(result, count) + getattr(one, count))
    prefix = f"{name}: " if name else ""
    result.findings += [Finding(f.line, f.url, prefix + f.what) for f in one.findings]
    result.events += [Finding(f.line, f.url, prefix + f.what, True) for f in one.events]
