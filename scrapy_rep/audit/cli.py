"""``python -m scrapy_rep audit …`` (and ``scrapy rep-audit …``): read an audit trail.

- ``audit summary TRAIL``: counts per origin, per purpose, per deciding signal;
- ``audit verify TRAIL``: the hash chain, the snapshots, and every decision re-derived;
- ``audit show TRAIL URL``: the whole story of one URL;
- ``audit list TRAIL``: every request, its fate and why, filtered by fate and reason;
- ``audit report TRAIL --html FILE``: one self-contained HTML page;
- ``audit repair TRAIL``: drop the cut line at the end of a trail, recorded in a line;
- ``audit export TRAIL``: the preferences of every kept asset, one JSON line each.

``summary``, ``verify``, ``show``, ``list`` and ``report`` take several TRAIL files (several
workers' trails): each chain verified on its own, the records read together. Every
command reads a recheck's ``item`` records too (:mod:`scrapy_rep.audit.records`).

Standard library and scrapy_rep's pure modules only.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

from scrapy_rep.audit.export import build, check_export, encode, read_export, summary_markdown
from scrapy_rep.audit.faterecord import FateRecord
from scrapy_rep.audit.html import MAX_ROWS, item_row_html, render, row_html
from scrapy_rep.audit.listing import (
    FORMATS,
    LIST_FATES,
    LIST_REASONS,
    ListError,
    chosen,
    formatted,
    rows,
)
from scrapy_rep.audit.read import Trail, TrailError
from scrapy_rep.audit.repair import repair
from scrapy_rep.audit.show import no_record, story
from scrapy_rep.audit.summary import Summary, summary_text
from scrapy_rep.audit.terminal import printable, write_lines
from scrapy_rep.audit.verify import Finding, Verification, across, verify

EXIT_CLEAN: Final = 0
EXIT_DIFFERENCES: Final = 1
EXIT_UNUSABLE: Final = 2
#: What each exit status means, for every command.
_EXIT_MEANINGS: Final = {
    EXIT_CLEAN: "done; verify: the trail is whole and every decision re-derives the same "
    "(events, such as a repair after a cut, are listed); repair: repaired, or nothing cut",
    EXIT_DIFFERENCES: "verify: problems found (chain broken, snapshot missing or altered, a "
    "decision that differs; with --export, an export line that differs); show: no record "
    "of that URL; report: verify found problems",
    EXIT_UNUSABLE: "unusable input: a missing file, not a trail, a wrong argument; repair: "
    "a trail a crawl is writing (locked), damaged otherwise than by a cut at its end, or "
    "that cannot be written (the file is left as it was)",
}
#: The exit-code table's rows, wrapped to a terminal's 80 columns.
_EXIT_CODE_ROWS: Final = "".join(
    "\n"
    + textwrap.fill(f"{code}  {meaning}", width=80, initial_indent="  ", subsequent_indent="     ")
    for code, meaning in _EXIT_MEANINGS.items()
)


def exit_codes(same_for: str) -> str:
    """The exit-code table for one tool's help, naming the other tool (``same_for``)."""
    return f"exit codes (the same for {same_for}):{_EXIT_CODE_ROWS}"


#: The table as ``python -m scrapy_rep audit --help`` shows it.
EXIT_CODES: Final = exit_codes("`scrapy rep-audit`")
#: Each command, with what it does (its ``--help``, and ``python -m scrapy_rep --help``).
HELPS: Final = {
    "summary": "counts per origin, per purpose and per deciding signal",
    "verify": "check the hash chain and snapshots; re-derive every decision",
    "show": "the whole story of one URL",
    "list": "every request, its fate and why, filtered (--fate, --reason)",
    "report": "write one self-contained HTML page (--html FILE)",
    "repair": "drop the cut line at the end of a trail, recorded in a repair line",
    "export": "the preferences of every kept page and stored file, one JSON line each",
}
COMMANDS: Final = tuple(HELPS)
#: Each command's arguments, as ``python -m scrapy_rep --help`` lists them.
SYNOPSES: Final = {
    "summary": "TRAIL...",
    "verify": "TRAIL...",
    "show": "TRAIL... URL",
    "list": "TRAIL... [--fate F] [--reason R] [--format text|csv|jsonl]",
    "report": "TRAIL... --html FILE",
    "repair": "TRAIL",
    "export": "TRAIL",
}


def parser(prog: str = "python -m scrapy_rep audit") -> argparse.ArgumentParser:
    """The ``audit`` command line (shared with ``scrapy rep-audit``)."""
    top = argparse.ArgumentParser(
        prog=prog,
        description="Read a scrapy_rep audit trail (REP_AUDIT_FILE, .jsonl or .jsonl.gz).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        command = commands.add_parser(
            name,
            help=HELPS[name],
            description=HELPS[name],
            epilog=EXIT_CODES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name in ("repair", "export"):
            command.add_argument(
                "trail", metavar="TRAIL", help="the trail file (.jsonl or .jsonl.gz)"
            )
        else:
            command.add_argument(
                "trail",
                metavar="TRAIL",
                nargs="+",
                help="the trail file (.jsonl or .jsonl.gz); several: several workers' trails "
                "read as one (each chain checked on its own)",
            )
        if name == "verify":
            command.add_argument(
                "--head",
                metavar="SHA256",
                action="append",
                default=[],
                help="a head printed by an earlier verify: it must still be "
                "the hash of a line (repeatable)",
            )
            command.add_argument(
                "--json", action="store_true", help="one JSON object: counts, head, findings"
            )
            command.add_argument(
                "--export",
                metavar="FILE",
                help="also check an `audit export` of the trail: every line as the trail gives it",
            )
        if name == "export":
            command.add_argument("--out", metavar="FILE", help="the export (default: stdout)")
            command.add_argument(
                "--summary", metavar="FILE", help="the Markdown summary (default: stderr)"
            )
        if name == "show":
            command.add_argument("url", metavar="URL", help="the URL (or request id)")
        if name == "list":
            command.add_argument(
                "--fate", action="append", default=[], metavar="FATE",
                help=f"only these fates (repeatable, or comma-separated): "
                f"{', '.join(LIST_FATES)} (dropped: a fetched page whose items were dropped; "
                "kept, refused, unknown: a recheck's items too)",
            )  # fmt: skip
            command.add_argument(
                "--reason", action="append", default=[], metavar="REASON",
                help=f"only these reasons (repeatable, or comma-separated): "
                f"{', '.join(LIST_REASONS)}",
            )  # fmt: skip
            command.add_argument("--format", choices=FORMATS, default="text", help="default: text")
        if name == "report":
            command.add_argument("--html", metavar="FILE", required=True, help="the page to write")
            command.add_argument(
                "--max-rows",
                type=int,
                default=MAX_ROWS,
                help=f"table rows at most (default: {MAX_ROWS})",
            )
    return top


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, prog: str = "") -> int:
    """``audit …`` with ``argv`` (after ``audit``); the exit status (:data:`EXIT_CODES`)."""
    out = out if out is not None else sys.stdout
    top = parser(prog or "python -m scrapy_rep audit")
    try:
        options = top.parse_args(list(sys.argv[2:] if argv is None else argv))
    except SystemExit as exit_:
        return EXIT_CLEAN if exit_.code == 0 else EXIT_UNUSABLE
    if options.command not in COMMANDS:
        top.print_usage(sys.stderr)
        print(f"scrapy_rep: error: give a command: {', '.join(COMMANDS)}", file=sys.stderr)
        return EXIT_UNUSABLE
    try:
        return _run(options, out)
    except TrailError as error:
        print(printable(f"scrapy_rep: error: {error}"), file=sys.stderr)
        return EXIT_UNUSABLE
    except BrokenPipeError:  # `audit verify trail | head`: the reader went away
        _silence(out)
        return EXIT_DIFFERENCES


def _silence(out: TextIO) -> None:
    """Point ``out`` at /dev/null, so that Python's flush at exit raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def _run(options: argparse.Namespace, out: TextIO) -> int:
    if options.command == "summary":
        summary = Summary()
        for path in options.trail:
            for line in Trail(path).lines():
                summary.feed(line)
        write_lines(summary_text(summary), out)
        return EXIT_CLEAN
    if options.command == "verify":
        if len(options.trail) > 1:
            if options.export:
                print("scrapy_rep: error: --export takes one TRAIL", file=sys.stderr)
                return EXIT_UNUSABLE
            return _verify_several(options.trail, out, options.head, options.json)
        return _verify(options.trail[0], out, options.head, options.json, options.export)
    if options.command == "repair":
        return _repair(options.trail, out)
    if options.command == "export":
        return _export(options, out)
    if options.command == "show":
        return _show(options.trail, options.url, out)
    if options.command == "list":
        return _list(options, out)
    return _report(options, out)


def _list(options: argparse.Namespace, out: TextIO) -> int:
    """``audit list``: the rows as they are read (memory does not grow with the trail)."""
    try:
        fates = chosen(options.fate, LIST_FATES, "--fate")
        reasons = chosen(options.reason, LIST_REASONS, "--reason")
    except ListError as error:
        print(printable(f"scrapy_rep: error: {error}"), file=sys.stderr)
        return EXIT_UNUSABLE
    found = rows(options.trail, fates, reasons)
    write_lines(formatted(found, options.format, len(options.trail) > 1), out)
    return EXIT_CLEAN


def _show(paths: list[str], url: str, out: TextIO) -> int:
    """The story of ``url`` in each trail (several: each headed by its name)."""
    lines, found = [], 0
    for path in paths:
        told, count = story(path, url)
        if len(paths) > 1 and count:
            told = [f"{path}:", *told]
        lines += told
        found += count
    if not found:
        lines += no_record(paths, url)
    write_lines(lines, out)
    return EXIT_CLEAN if found else EXIT_DIFFERENCES


def _verify_several(paths: list[str], out: TextIO, heads: list[str], as_json: bool) -> int:
    """Each trail's chain verified on its own (its findings headed by its name; snapshots
    looked for in every trail's folder), then the records across them (:func:`across`)."""
    if heads or as_json:
        print("scrapy_rep: error: --head and --json take one TRAIL", file=sys.stderr)
        return EXIT_UNUSABLE
    problems = events = 0
    verdicts = []
    for path in paths:

        def sink(finding: Finding, path: str = path) -> None:
            print(printable(f"{path}: {finding}"), file=out)

        result = verify(path, (), sink, keep=0, also=paths)
        problems += result.problems
        events += result.event_count
        verdict = "clean" if result.clean else f"{result.problems} problem(s)"
        verdict += f", {result.event_count} event(s)" if result.event_count else ""
        verdicts.append(
            f"{path}: {verdict}: {result.lines} line(s), {result.runs} run(s), "
            f"{result.records} record(s), {result.snapshots} snapshot(s); head {result.head}"
        )
    crossed, crossed_events = across(
        paths, lambda path, finding: print(printable(f"{path}: {finding}"), file=out)
    )
    problems += crossed
    events += crossed_events
    verdict = "clean" if not problems else f"{problems} problem(s)"
    verdict += f", {events} event(s)" if events else ""
    write_lines([*verdicts, f"{len(paths)} trails as one: {verdict}"], out)
    return EXIT_CLEAN if not problems else EXIT_DIFFERENCES


def _verify(
    path: str, out: TextIO, heads: list[str], as_json: bool = False, export: str | None = None
) -> int:
    """Each finding printed as it is found (memory does not grow with them), then the
    verdict; ``--json``: one JSON object, written as it goes too. ``export``: an ``audit
    export`` file checked against the trail too (its differences are findings)."""
    if as_json:
        return _verify_json(path, out, heads, export)
    result = verify(path, heads, lambda finding: print(printable(finding), file=out), keep=0)
    said = []
    if export is not None:
        differences = check_export(
            path, export, lambda url, what: print(printable(Finding(0, url, what)), file=out)
        )
        result.problems += differences
        said.append(_export_verdict(export, differences))
    verdict = "clean" if result.clean else f"{result.problems} problem(s)"
    verdict += f", {result.event_count} event(s)" if result.event_count else ""
    write_lines(
        [
            f"{path}: {verdict}: {result.lines} line(s), {result.runs} run(s), "
            f"{result.records} record(s), {result.snapshots} snapshot(s); head {result.head}",
            *said,
        ],
        out,
    )
    return EXIT_CLEAN if result.clean else EXIT_DIFFERENCES


def _export_verdict(export: str, differences: int) -> str:
    """The line ``verify --export`` ends with: the export checked, and what it came to."""
    if differences:
        return f"export {export}: {differences} difference(s) from the trail"
    assets = sum(1 for _ in read_export(export)) - 1  # the first line is the header
    return f"export {export}: {assets} asset{'' if assets == 1 else 's'} match the trail"


def _verify_json(path: str, out: TextIO, heads: list[str], export: str | None = None) -> int:
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

    result = verify(path, heads, sink, keep=0)
    if export is not None:
        result.problems += check_export(path, export, lambda u, w: sink(Finding(0, u, w)))
    start()
    names = ("clean", "problems", "lines", "runs", "records", "snapshots", "head")
    tail = json.dumps(
        {
            **{name: getattr(result, name) for name in names},
            "events": [{"line": e.line, "what": e.what} for e in result.events],
        }
    )
    out.write(f"], {tail[1:]}\n")
    return EXIT_CLEAN if result.clean else EXIT_DIFFERENCES


def _repair(path: str, out: TextIO) -> int:
    done = repair(path)
    if done.record is None:
        write_lines([f"{path}: nothing to repair: it ends with a whole line"], out)
    else:
        said = (f"{path}: repaired: {done.dropped} byte(s) of a cut line dropped, a repair "
                "line appended; `audit verify` lists it as an event")  # fmt: skip
        if done.open_runs:
            runs = ", ".join(run[:8] for run in done.open_runs)
            said += (f", and reports run(s) {runs}: without their end line, what they did "
                     "after their last whole line cannot be accounted for")  # fmt: skip
        if not done.after_open_run:
            said += (
                "; it reports the repair too: it follows no run left open, so the cut "
                "was no line of a run the trail holds (junk, or a run's first line)"
            )
        write_lines([said], out)
    return EXIT_CLEAN


def _export(options: argparse.Namespace, out: TextIO) -> int:
    """``audit export``: the export to ``--out`` (or ``out``), the summary to
    ``--summary`` (or stderr)."""
    export = build(options.trail)
    text = "".join(encode(line) + "\n" for line in [export.header, *export.assets])
    name = options.out or ""
    summary = "\n".join(summary_markdown(export, Path(name).name if name else "")) + "\n"
    try:
        if options.out:
            Path(options.out).write_text(text, encoding="utf-8")
        else:
            out.write(text)
        if options.summary:
            Path(options.summary).write_text(summary, encoding="utf-8")
    except OSError as error:
        what = f"scrapy_rep: error: cannot write: {error.filename}: {error.strerror or error}"
        print(printable(what), file=sys.stderr)
        return EXIT_UNUSABLE
    if not options.summary:
        write_lines(summary.splitlines(), sys.stderr)
    return EXIT_CLEAN


def _add(result: Verification, name: str, finding: Finding) -> None:
    """Count ``finding`` of the trail ``name`` in ``result``."""
    finding = Finding(finding.line, finding.url, f"{name}: {finding.what}", finding.event)
    if finding.event:
        result.event_count += 1
        result.events.append(finding)
    else:
        result.problems += 1
        result.findings.append(finding)


def _join(result: Verification, name: str, one: Verification) -> None:
    """Add one trail's verification (``name``: the trail's, before each finding) to the
    report's verification of several trails."""
    for count in ("lines", "runs", "records", "snapshots", "problems", "event_count"):
        setattr(result, count, getattr(result, count) + getattr(one, count))
    prefix = f"{name}: " if name else ""
    result.findings += [Finding(f.line, f.url, prefix + f.what) for f in one.findings]
    result.events += [Finding(f.line, f.url, prefix + f.what, True) for f in one.events]


def _report(options: argparse.Namespace, out: TextIO) -> int:
    if options.max_rows < 0:
        print("scrapy_rep: error: --max-rows must be 0 or more", file=sys.stderr)
        return EXIT_UNUSABLE
    paths = [Path(path) for path in options.trail]
    summary, shown = Summary(), list[tuple[int | str, FateRecord]]()
    item_rows: list[str] = []
    for path in paths:
        for line in Trail(path).lines():
            record = summary.feed(line)
            number = f"{path.name}:{line.number}" if len(paths) > 1 else line.number
            if record is not None and len(shown) < options.max_rows:
                shown.append((number, record))
            if summary.item is not None and len(item_rows) < options.max_rows:
                item_rows.append(item_row_html(number, summary.item))
    # drawn once every line is read: a file's record comes after its download's
    rows = [
        row_html(number, record, summary.purposes_of(record), summary.file_of(record))
        for number, record in shown
    ]
    result = verify(paths[0], also=paths)
    if len(paths) > 1:
        result = Verification(paths[0], head=result.head)
        for path in paths:
            _join(result, path.name, verify(path, also=paths))
        crossed = Verification(paths[0])
        across(paths, lambda path, finding: _add(crossed, path.name, finding))
        _join(result, "", crossed)
    page = render(Path(", ".join(path.name for path in paths)), summary, rows, result, item_rows)
    try:
        Path(options.html).write_text(page, encoding="utf-8")
    except OSError as error:
        what = f"scrapy_rep: error: cannot write {options.html}: {error.strerror or error}"
        print(printable(what), file=sys.stderr)
        return EXIT_UNUSABLE
    verdict = "clean" if result.clean else f"{result.problems} problem(s)"
    items = f", {summary.items.items} item(s)" if summary.items.items else ""
    write_lines(
        [f"{options.html}: {summary.total.requests} record(s){items}, verify: {verdict}"], out
    )
    return EXIT_CLEAN if result.clean else EXIT_DIFFERENCES
