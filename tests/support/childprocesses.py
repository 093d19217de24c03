"""A counter of the processes the tests start, per test and per file, and of their CPU:
a pytest plugin, off unless asked for.

``REP_CHILD_PROCESSES=DIR python -m pytest -p tests.support.childprocesses …``: each
pytest process (each xdist worker, or the one process under ``-n 0``) notes, for each
test (its setup, call and teardown), the processes it starts (an audit hook,
:pep:`578`: ``subprocess.Popen``, ``os.fork``, ``os.forkpty``, ``os.system``, and
``os.posix_spawn`` and ``os.exec`` when they are not ``subprocess``'s own), the CPU
(user + system) of the children it waited for (``getrusage(RUSAGE_CHILDREN)``: their
own children too), its own CPU (``RUSAGE_SELF``), when it began and its wall time, one
JSON line per test in ``DIR/<worker>.jsonl``; and each worker's start and collection (its
CPU since it started, and the wall seconds from the plugin's start). At the end
the run prints the totals and the files that start the most processes and whose
processes cost the most CPU; ``python -m tests.support.childprocesses DIR [--top N]``
prints them again from the lines.

What it counts is what the test's process starts; a child's own children (a pip install's
builds, Chromium's renderers) are in their parent's CPU, not in the count. A server a
module's fixture starts is counted, with its CPU, in the test that started it or tore it
down. The hook is read in the worker on every audit event: it costs little, but the run
that counts is not a run to time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any

import pytest

#: The variable that turns the counter on: the folder of its lines.
VARIABLE = "REP_CHILD_PROCESSES"
#: The audit events that start a process; ``os.posix_spawn`` and ``os.exec`` are counted
#: only when ``subprocess`` is not the caller (its ``subprocess.Popen`` was counted).
STARTS = {"subprocess.Popen", "os.fork", "os.forkpty", "os.system"}
LOW_LEVEL = {"os.posix_spawn", "os.exec"}


class _Counter:
    """The processes started, and what a test's hook wraps."""

    def __init__(self, folder: Path, worker: str) -> None:
        self.folder = folder
        self.worker = worker
        self.started: list[str] = []
        folder.mkdir(parents=True, exist_ok=True)
        self.lines = (folder / f"{worker}.jsonl").open("a", encoding="utf-8")
        self.collect_began = (time.monotonic(), _cpu(resource.RUSAGE_SELF))

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event in STARTS:
            self.started.append(_command(event, args))
        elif event in LOW_LEVEL:
            caller = sys._getframe(1).f_code.co_filename
            if not caller.endswith("subprocess.py"):
                self.started.append(_command(event, args))

    def write(self, record: dict[str, Any]) -> None:
        self.lines.write(json.dumps(record) + "\n")
        self.lines.flush()


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _command(event: str, args: tuple[Any, ...]) -> str:
    """A short line naming what was started."""
    if event == "subprocess.Popen":
        argv = args[1]
        words = [argv] if isinstance(argv, (str, bytes)) else list(argv or [])
    elif event in LOW_LEVEL:
        words = list(args[1] or [])
    elif event == "os.system":
        words = [args[0]]
    else:
        return event
    text = " ".join(os.fsdecode(w) if isinstance(w, bytes) else str(w) for w in words)
    return " ".join(text.split())[:160]


_COUNTER: _Counter | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _COUNTER
    folder = os.environ.get(VARIABLE)
    if not folder or _COUNTER is not None:
        return
    worker = str(getattr(config, "workerinput", {}).get("workerid", "main"))
    if worker == "main" and config.getoption("numprocesses", None):
        return  # the controller of xdist's workers runs no test
    _COUNTER = _Counter(Path(folder), worker)
    sys.addaudithook(_audit)  # for the rest of the process: an audit hook cannot be removed


def pytest_unconfigure(config: pytest.Config) -> None:
    """The lines closed as the process ends (the hook stays, counting nothing)."""
    global _COUNTER
    if _COUNTER is not None:
        _COUNTER.lines.close()
        _COUNTER = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _COUNTER is not None:
        _COUNTER.audit(event, args)


def pytest_collection_finish(session: pytest.Session) -> None:
    if _COUNTER is None:
        return
    wall, _ = _COUNTER.collect_began
    _COUNTER.write(
        {
            "collect": _COUNTER.worker,
            "wall": time.monotonic() - wall,
            "cpu": _cpu(resource.RUSAGE_SELF),  # since the process started
            "tests": len(session.items),
        }
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    if _COUNTER is None:
        yield
        return
    _COUNTER.started.clear()
    began = (time.monotonic(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN))
    at = time.time()
    yield
    _COUNTER.write(
        {
            "test": item.nodeid,
            "worker": _COUNTER.worker,
            "at": at,
            "wall": time.monotonic() - began[0],
            "cpu": _cpu(resource.RUSAGE_SELF) - began[1],
            "child_cpu": _cpu(resource.RUSAGE_CHILDREN) - began[2],
            "started": list(_COUNTER.started),
        }
    )


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    folder = os.environ.get(VARIABLE)
    if not folder or hasattr(config, "workerinput"):
        return
    for line in summary(read_counts(Path(folder))):
        terminalreporter.write_line(line)


def read_counts(folder: Path) -> list[dict[str, Any]]:
    records = []
    for path in sorted(folder.glob("*.jsonl")):
        records.extend(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    return records


def summary(records: Iterable[dict[str, Any]], top: int = 25) -> list[str]:
    """The totals, the collections, and the files that start the most processes and whose
    processes cost the most CPU."""
    tests = [r for r in records if "test" in r]
    collections = [r for r in records if "collect" in r]
    by_file: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"tests": 0, "started": 0, "child_cpu": 0.0, "cpu": 0.0, "wall": 0.0}
    )
    for record in tests:
        row = by_file[record["test"].split("::")[0]]
        row["tests"] += 1
        row["started"] += len(record["started"])
        for key in ("child_cpu", "cpu", "wall"):
            row[key] += record[key]
    started = sum(len(r["started"]) for r in tests)
    lines = [
        f"child processes: {started} started by {sum(1 for r in tests if r['started'])} of "
        f"{len(tests)} tests; their CPU {sum(r['child_cpu'] for r in tests):.1f} s; the "
        f"tests' own CPU {sum(r['cpu'] for r in tests):.1f} s",
    ]
    for record in sorted(collections, key=lambda r: str(r["collect"])):
        lines.append(
            f"start and collection, {record['collect']}: {record['tests']} tests, "
            f"{record['wall']:.1f} s wall, {record['cpu']:.1f} s CPU"
        )
    header = f"{'started':>7} {'child CPU':>9} {'own CPU':>8} {'wall':>7} {'tests':>5}  file"
    for title, key in (("most processes", "started"), ("most child CPU", "child_cpu")):
        lines += ["", f"files with the {title}:", header]
        ranked = sorted(by_file.items(), key=lambda kv: (-kv[1][key], kv[0]))[:top]
        for name, row in ranked:
            if not row[key]:
                break
            lines.append(
                f"{row['started']:>7} {row['child_cpu']:>9.1f} {row['cpu']:>8.1f} "
                f"{row['wall']:>7.1f} {row['tests']:>5}  {name}"
            )
    return lines


def print_counts(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--commands", action="store_true", help="each process started, by test")
    args = parser.parse_args(argv)
    records = read_counts(args.folder)
    for line in summary(records, args.top):
        print(line)
    if args.commands:
        print()
        for record in sorted((r for r in records if "test" in r), key=lambda r: r["test"]):
            for command in record["started"]:
                print(f"{record['test']}: {command}")
    return 0


if __name__ == "__main__":
    sys.exit(print_counts())
