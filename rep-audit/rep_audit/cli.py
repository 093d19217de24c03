"""``python -m scrapy_rep audit COMMAND …`` (and ``scrapy rep-audit …``): read an audit
trail; the commands, their options and exit codes: :mod:`rep_audit.cliargs`.

``summary``, ``verify``, ``show``, ``list`` and ``report`` take several TRAIL files (several
workers' trails): each chain verified on its own, the records read together. Every
command reads a recheck's ``item`` records too (:mod:`rep_engine.records`). ``audit
verify`` prints one trail's findings as they are found, or as one JSON object
(:func:`verify_one`); several workers' trails are verified as one (:func:`verify_several`),
the trails of a datatrove pipeline's tasks as one run per pipeline run (:func:`tasks_as_one`),
and the findings of several trails joined into one
:class:`~rep_audit.findings.Verification` for the HTML report (:func:`join`).

Standard library and scrapy_rep's pure modules only.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path
from typing import TextIO

from rep_audit.across import across, pipelines
from rep_audit.bundle import build as build_bundle
from rep_audit.bundlecheck import check_bundle
from rep_audit.cliargs import COMMANDS, EXIT_CLEAN, EXIT_DIFFERENCES, EXIT_UNUSABLE, TOOL
from rep_audit.export import (
    ExportRunError,
    build,
    check_export,
    encode,
    read_export,
    summary_markdown,
)
from rep_audit.findings import Finding, Verification
from rep_audit.html import item_row_html, render, row_html
from rep_audit.listing import LIST_FATES, LIST_REASONS, ListError, chosen, formatted, rows
from rep_audit.repair import repair
from rep_audit.show import no_record, read_as, story
from rep_audit.summary import Summary, summary_text
from rep_audit.verify import verify
from rep_audit.witness import witnessing
from rep_engine import commandline, keys
from rep_engine.commandline import Door
from rep_engine.records import FateRecord
from rep_engine.trail.file import replacing, same_file
from rep_engine.trail.notes import NoteError
from rep_engine.trail.read import Trail, TrailError
from rep_engine.trail.terminal import printable, write_lines
from rep_engine.urls.origins import origin_of


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, prog: str = "") -> int:
    """``audit …`` with ``argv`` (after ``audit``), at the door named ``prog``; the exit
    status (:data:`rep_audit.cliargs.TOOL`'s exit table)."""
    argv = sys.argv[2:] if argv is None else argv
    return commandline.run(TOOL, argv, out, Door(prog or "python -m scrapy_rep audit"))


def run(options: argparse.Namespace, out: TextIO, door: Door) -> int:
    """The command ``options`` name, read at ``door``; the exit status. An input it cannot
    use is one line, prefixed as the door's tool (``rep-audit: error:`` without Scrapy)."""
    tool = "rep-audit" if door.prog in ("rep-audit", "python -m rep_audit") else "scrapy_rep"
    try:
        if options.command not in COMMANDS:
            commandline.parser(TOOL, door.prog).print_usage(sys.stderr)
            raise TrailError(f"give a command: {', '.join(COMMANDS)}")
        return _run(options, out)
    except (TrailError, NoteError, keys.SigningKeyError) as error:
        print(printable(f"{tool}: error: {error}"), file=sys.stderr)  # the input is unusable
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
    if getattr(options, "workers", False) and getattr(options, "separate", False):
        raise TrailError("give --workers or --separate, not both")
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
                raise TrailError("--export takes one TRAIL")
            return verify_several(
                options.trail, out, options.head, options.json, _workers(options), options.key
            )
        return verify_one(options.trail[0], out, options.head, options.json, options.export,
                          options.key)  # fmt: skip
    if options.command == "bundle":
        return _bundle(options, out)
    if options.command == "check-bundle":
        if options.key is not None and (options.unsigned or not options.key):
            raise TrailError("--key names no file" if not options.key else
                             "give --key or --unsigned, not both")  # fmt: skip
        return check_bundle(options.trail, out, options.key, options.since, options.unsigned,
                            options.witness, options.quorum, options.policy,
                            options.allow_split, options.log)  # fmt: skip
    if options.command in ("witness", "cosign", "vkey"):
        return witnessing(options, out)
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
        raise TrailError(error) from None
    found = rows(options.trail, fates, reasons)
    write_lines(formatted(found, options.format, len(options.trail) > 1), out)
    return EXIT_CLEAN


def _show(paths: list[str], url: str, out: TextIO) -> int:
    """The story of ``url`` in each trail (several: each headed by its name); of the
    one URL recorded that ``url``, written without its scheme or host, names
    (:func:`~rep_audit.show.read_as`), said so first."""
    lines, found = _stories(paths, url)
    if not found and (whole := read_as(paths, url)) is not None:
        told, found = _stories(paths, whole)
        if found:  # not a redirect's target alone (its redirect is no record of it)
            lines = [f"{url} read as {whole}, the one URL of that path these trails record:", *told]
    if not found:
        lines += no_record(paths, url)
    write_lines(lines, out)
    return EXIT_CLEAN if found else EXIT_DIFFERENCES


def _stories(paths: list[str], url: str) -> tuple[list[str], int]:
    lines, found = [], 0
    for path in paths:
        told, count = story(path, url)
        if len(paths) > 1 and count:
            told = [f"{path}:", *told]
        lines += told
        found += count
    return lines, found


def _workers(options: argparse.Namespace) -> bool | None:
    """Several trails: checked as workers of one crawl (``--workers``), each as a crawl of
    its own (``--separate``), or as their runs' headers tell (``None``)."""
    if options.workers:
        return True
    return False if options.separate else None


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
    try:
        export = build(options.trail, run=options.run)
    except ExportRunError as error:
        raise TrailError(error) from None
    text = "".join(encode(line) + "\n" for line in [export.header, *export.assets])
    name = options.out or ""
    summary = "\n".join(summary_markdown(export, Path(name).name if name else "")) + "\n"
    for option, given in (("--out", options.out), ("--summary", options.summary)):
        if given and _is_input(Path(given), options.trail):
            raise TrailError(f"{option} {given} is the trail the export is made of: name another "
                          "file")  # fmt: skip
    if options.out and options.summary and same_file(Path(options.out), Path(options.summary)):
        raise TrailError(f"--summary {options.summary} is also --out ({options.out}): the summary "
                      "would replace the export; name another file")  # fmt: skip
    try:
        with _written(Path(options.out) if options.out else None, out) as to:
            to.write(text)
        if options.summary:
            with _written(Path(options.summary), out) as to:
                to.write(summary)
    except OSError as error:
        raise TrailError(f"cannot write: {error.filename}: {error.strerror or error}") from None
    if not options.summary:
        write_lines(summary.splitlines(), sys.stderr)
    return EXIT_CLEAN


def _bundle(options: argparse.Namespace, out: TextIO) -> int:
    """``audit bundle``: the site's bundle to ``--out`` (or ``out``), what it holds on stderr."""
    target = Path(options.out) if options.out else None
    if target is not None and _is_input(target, options.trail):
        raise TrailError(f"--out {options.out} is the trail the bundle is made of: name "
                         "another file")  # fmt: skip
    try:
        with _written(target, out) as to:  # --out replaced only by a whole bundle
            lines, records, later = build_bundle(options.trail, options.site, to, options.at,
                                                 options.cosigned)  # fmt: skip
    except OSError as error:
        raise TrailError(f"cannot write: {error.filename}: {error.strerror or error}") from None
    site = origin_of(options.site)  # a URL of it read as its origin: said so
    said = [f"bundle of {site}: {lines} line(s), {records} record(s) of the site"]
    if later:
        which = "the tree head it is proved against" if options.at else "the trail's last tree head"
        said.append(f"{later} line(s) of the site after {which} are not in it: that head does "
                    "not cover them")  # fmt: skip
    write_lines(said, sys.stderr)
    return EXIT_CLEAN


def _is_input(target: Path, trail: str) -> bool:
    """Whether the output ``target`` is the trail read (or a file of its snapshot folder),
    by a link too: writing it would destroy what the command reads."""
    read = Path(trail)
    if target.resolve().parent == Path(f"{read}.d").resolve():
        return True  # a snapshot, or a new file among them (verify would not see it)
    return target.exists() and same_file(target, read)


@contextmanager
def _written(target: Path | None, out: TextIO) -> Iterator[TextIO]:
    """Where a command's output goes: ``out`` without a path; a path that is a device or
    a FIFO as it is; a file made new beside ``target`` and renamed over it when the block
    ends, removed if it raises (a bad ``--site`` or ``--at`` leaves ``--out`` as it was).
    A symlink's target is replaced, never the link (a user's link; as root,
    ``/dev/stdout`` sent to a file)."""
    if target is None:
        yield out
    elif target.exists() and not target.is_file():
        with target.open("w", encoding="utf-8") as file:
            yield file
    else:
        with ExitStack() as stack:
            try:
                raw = stack.enter_context(replacing(target.resolve()))
            except OSError as error:  # named as given, never its hidden temporary file
                raise OSError(error.errno, error.strerror, str(target)) from None
            with io.TextIOWrapper(raw, "utf-8") as file:
                yield file


def _report(options: argparse.Namespace, out: TextIO) -> int:
    if options.max_rows < 0:
        raise TrailError("--max-rows must be 0 or more")
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
    ones = [result]
    if len(paths) > 1:
        ones = [verify(path, also=paths) for path in paths]
        result = Verification(paths[0], head=result.head)
        for path, one in zip(paths, ones, strict=True):
            join(result, path.name, one)
        _, _, result.notes = across(
            paths, lambda path, finding: add_finding(result, path.name, finding), _workers(options)
        )
    found, lines = pipelines(ones)
    for where, finding in found:
        add_finding(result, where.name if where is not None else "", finding)
    result.notes += lines
    page = render(Path(", ".join(path.name for path in paths)), summary, rows, result, item_rows)
    try:
        Path(options.html).write_text(page, encoding="utf-8")
    except OSError as error:
        raise TrailError(f"cannot write {options.html}: {error.strerror or error}") from None
    write_lines(result.notes, out)
    verdict = "clean" if result.clean else f"{result.problems} problem(s)"
    items = f", {summary.items.items} item(s)" if summary.items.items else ""
    said = f"{options.html}: {summary.total.requests} record(s){items}, verify: {verdict}"
    write_lines([said], out)
    return EXIT_CLEAN if result.clean else EXIT_DIFFERENCES


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
    task_problems, task_events, pipeline_lines = tasks_as_one(
        results, lambda path, finding: said(path, finding) if path else print(
            printable(_of_the_run(finding)), file=out)
    )  # fmt: skip
    problems += task_problems + sum(result.problems for result in results)
    events += task_events + sum(result.event_count for result in results)
    verdicts = [
        line
        for path, result in zip(paths, results, strict=True)
        for line in (f"{path}: {result.tree}", _counted(path, result))
    ]
    together = f"{len(paths)} trails as one" if not notes else f"{len(paths)} trails"
    write_lines([*verdicts, *notes, *pipeline_lines, f"{together}: {_verdict(problems, events)}"],
                out)  # fmt: skip
    return EXIT_CLEAN if not problems else EXIT_DIFFERENCES


def tasks_as_one(
    results: Sequence[Verification], say: Callable[[Path | None, Finding], object]
) -> tuple[int, int, list[str]]:
    """The runs of a datatrove pipeline's tasks in the trails verified (``results``) read
    as one run each pipeline run (:func:`~rep_audit.across.pipelines`): each finding
    handed to ``say`` with its trail (``None``: of the pipeline run, a task missing),
    their counts of problems and events, and a line per pipeline run (none: no trail
    holds a task's run)."""
    found, lines = pipelines(results)
    for path, finding in found:
        say(path, finding)
    events = sum(finding.event for _, finding in found)
    return len(found) - events, events, lines


def _of_the_run(finding: Finding) -> str:
    """A finding of a pipeline run, not of one of its trails, as printed."""
    return f"event: {finding.what}" if finding.event else finding.what


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
    problems, events, said = tasks_as_one([result], lambda path, finding: print(
        printable(finding if path else _of_the_run(finding)), file=out))  # fmt: skip
    result.problems += problems
    result.event_count += events
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
    problems, events, pipeline_lines = tasks_as_one([result], lambda _, finding: (
        result.events.append(finding) if finding.event else sink(finding)))  # fmt: skip
    result.problems += problems
    result.event_count += events
    if export is not None:
        result.problems += check_export(path, export, lambda u, w: sink(Finding(0, u, w)))
    start()
    names = ("clean", "problems", "lines", "runs", "records", "snapshots", "head", "tree")
    tail: dict[str, object] = {name: getattr(result, name) for name in names}
    tail["events"] = [{"line": e.line, "what": e.what} for e in result.events]
    if pipeline_lines:
        tail["pipelines"] = pipeline_lines
    out.write(f"], {json.dumps(tail)[1:]}\n")
    return EXIT_CLEAN if result.clean else EXIT_DIFFERENCES


def add_finding(result: Verification, name: str, finding: Finding) -> None:
    """Count ``finding`` of the trail ``name`` in ``result``."""
    what = f"{name}: {finding.what}" if name else finding.what
    finding = Finding(finding.line, finding.url, what, finding.event)
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
