"""robots.txt parsers compared in one run: what a crawl pays per site.

scrapy_rep against Protego (the reference, Scrapy's default parser) and, as extra columns,
robotspy, ``urllib.robotparser`` and robotexclusionrulesparser ("rerp"), and both
scrapy_rep and Protego as Scrapy's own middleware uses them (``ROBOTSTXT_PARSER``: a
parser built by ``from_crawler`` per robots.txt, asked by ``allowed(url, user_agent)``), on
``../shared/corpus``: the real files, their 50 URLs each (``urls.jsonl``) and the agents
Googlebot, Bingbot and mybot. Every timing runs with the garbage collector ON (a crawl
runs with it on), counts the process's CPU time (not the wall clock, which on a shared
machine also counts other processes' turns) and is the median of ``--rounds`` (5) rounds
in which the libraries take turns, order rotated; the targets give the spread of the
per-round ratios. Nothing is warmed up unless the line says so.

- parse: seconds for one pass over all files (the parsed objects kept, as a cache does);
- check pass: all files parsed first (not timed, then one ``gc.collect()``), then all
  files × 50 URLs × 3 agents ``allowed()`` calls on these fresh objects, first calls
  included; split into the first call per (file, agent) and the others, with the
  collector's own time in the pass (``gc.callbacks``);
- cold per site: per file, parse then 50 URLs × 3 agents, all parsed files kept alive;
- retained memory per parsed file after each file answered one check (tracemalloc), and
  the GC-tracked objects it holds;
- worst cases on ``synthetic/*``: the slowest single parse and the slowest single
  ``allowed()`` (a fresh parse before each agent's first call; URLs up to 100 KB), in a
  subprocess killed after 20 s (some libraries backtrack for ever).

Then one line per target: "met" / "NOT met" with the figure.

``--count``: no timing, counts of scrapy_rep and Protego in one run, which the machine's
load cannot move: Python function calls and built-in calls (cProfile's counts, the
library's own: the bodies are decoded for Protego before counting) per parse, per first
``allowed()`` of a (file, agent) on a fresh object, per other ``allowed()``, and per cold
start (parse and the first decision) and per cold site (parse and 150 decisions); then
retained memory and GC-tracked objects per parsed file (as above). Another checkout's
engine: ``PYTHONPATH=DIR/rep-engine python benchmarks/robotstxt.py --count``.

``--instructions``: no timing either: the instructions the CPU runs (valgrind's callgrind,
which counts only what runs inside ``operator.call``: the pass itself, GC on) for each
pass of the timed rounds, scrapy_rep and Protego, each pass in a process of its own, on
every ``--step``-th file (4: 500 files, about 20 minutes): parse; check pass (first
calls included; the files parsed first, not counted); the checks after the first (the
first calls made first, not counted); cold per site; cold start (parse and one first
``allowed()`` per file). The count moves only with the code (``PYTHONHASHSEED=0`` is
set). Needs valgrind and a Python whose symbols name ``_operator_call``.

Usage: ``python benchmarks/robotstxt.py [--quick] [--only NAME] [--no-stress] [--corpus DIR]
[--count] [--instructions [--step N]]`` (``pip install -e ".[bench]"`` installs the other parsers).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import multiprocessing
import operator
import os
import pstats
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
import urllib.robotparser
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rep_engine.robotstxt import parse_robotstxt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quiet import LoadWindow

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
AGENTS = ("Googlebot", "Bingbot", "mybot")
STRESS_TIMEOUT = 20.0
#: Every timing is the process's CPU time: on a shared machine the wall clock also
#: counts the time other processes had the core, which differs from one library's turn
#: to the next (two runs gave Protego's parse 1.8 s and 4.2 s by the wall clock).
CLOCK = time.process_time
STRESS_URLS = (
    "https://example.com/",
    "https://example.com/a/b/c.php?x=1",
    "https://example.com/caf%c3%a9/%7Euser?q=%2f",
    "https://example.com/" + "a" * 100_000,
    "https://example.com/" + "ab" * 50_000 + "b",
)
#: Targets against Protego in the same run (ratios; docs/decisions.md, 'Cost targets: no dearer
#: than Scrapy's own handling'), and absolute worst cases.
PARSE_TARGET = 4.0
CHECK_TARGET = 5.0  # check and cold at least 5× Protego
COLD_TARGET = 5.0
MEMORY_TARGET = 0.35
#: Google's C++ parser's parse throughput (FINDINGS.md): the practical ceiling.
GOOGLE_MB_PER_S = 188.0
WORST_PARSE_MS = 50.0
WORST_ALLOWED_MS = 10.0


@dataclass(frozen=True)
class Library:
    """How to parse and query with one library."""

    name: str
    parse: Callable[[bytes], Any]
    allowed: Callable[[Any, str, str], bool]


def _protego() -> Library:
    from protego import Protego

    return Library(
        "Protego",
        lambda body: Protego.parse(body.decode("utf-8", "ignore")),
        lambda rules, url, agent: bool(rules.can_fetch(url, agent)),
    )


def _robotspy() -> Library:
    import robots

    return Library(
        "robotspy",
        lambda body: robots.RobotsParser.from_string(body.decode("utf-8", "ignore")),
        lambda rules, url, agent: bool(rules.can_fetch(agent, url)),
    )


def _urllib() -> Library:
    def parse(body: bytes) -> urllib.robotparser.RobotFileParser:
        parser = urllib.robotparser.RobotFileParser()
        parser.parse(body.decode("utf-8", "ignore").splitlines())
        return parser

    # Its reading depends on the Python: RFC 9309's since gh-138907's fix (Python 3.13 and
    # 3.14 from their May 2026 releases), the 1996 draft's before (first matching line,
    # blank lines end records): the column names the version it ran on.
    version = ".".join(map(str, sys.version_info[:3]))
    return Library(f"urllib (Python {version})", parse,
                   lambda rules, url, agent: rules.can_fetch(agent, url))  # fmt: skip


def _rerp() -> Library:
    from robotexclusionrulesparser import RobotExclusionRulesParser

    def parse(body: bytes) -> RobotExclusionRulesParser:
        parser = RobotExclusionRulesParser()
        parser.parse(body.decode("utf-8", "ignore"))
        return parser

    return Library("rerp", parse, lambda rules, url, agent: bool(rules.is_allowed(agent, url)))


def _scrapy_rep() -> Library:
    # The bound method, as the middleware calls it.
    return Library(
        "scrapy_rep", parse_robotstxt, lambda rules, url, agent: rules.allowed(url, agent)
    )


def _through_scrapy(name: str, parser_path: str) -> Library:
    """A parser as Scrapy's own middleware uses it (``ROBOTSTXT_PARSER``): built by
    ``from_crawler`` for each robots.txt, asked by ``allowed(url, user_agent)``."""
    from scrapy.utils.misc import load_object
    from scrapy.utils.test import get_crawler

    parser_class = load_object(parser_path)
    crawler = get_crawler(settings_dict={"ROBOTSTXT_PARSER": parser_path})
    return Library(
        name,
        lambda body: parser_class.from_crawler(crawler, body),
        lambda rules, url, agent: bool(rules.allowed(url, agent)),
    )


def _scrapy_rep_in_scrapy() -> Library:
    return _through_scrapy("scrapy_rep in Scrapy", "scrapy_rep.RobotParser")


def _protego_in_scrapy() -> Library:
    return _through_scrapy("Protego in Scrapy", "scrapy.robotstxt.ProtegoRobotParser")


FACTORIES = {
    "scrapy_rep": _scrapy_rep,
    "Protego": _protego,
    "robotspy": _robotspy,
    "urllib": _urllib,
    "rerp": _rerp,
    "scrapy_rep in Scrapy": _scrapy_rep_in_scrapy,
    "Protego in Scrapy": _protego_in_scrapy,
}


class CollectorClock:
    """Time spent inside the garbage collector (``gc.callbacks``) while active."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = [0, 0, 0]
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = CLOCK()
        else:
            self.seconds += CLOCK() - self._start
            self.collections[info["generation"]] += 1

    @contextmanager
    def active(self) -> Iterator[CollectorClock]:
        gc.callbacks.append(self)
        try:
            yield self
        finally:
            gc.callbacks.remove(self)


def median_of(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}


def parse_round(lib: Library, bodies: list[bytes]) -> dict[str, float]:
    gc.collect()
    kept: list[Any] = []
    start = CLOCK()
    for body in bodies:
        kept.append(lib.parse(body))
    return {"parse_s": CLOCK() - start}


def check_round(lib: Library, bodies: list[bytes], urls: list[list[str]]) -> dict[str, float]:
    """All files parsed (not timed), then every check on the fresh objects, timed."""
    gc.collect()
    parsed = [lib.parse(body) for body in bodies]
    gc.collect()
    allowed = lib.allowed
    clock_now = CLOCK
    first_s = rest_s = 0.0
    with CollectorClock().active() as clock:
        start = clock_now()
        for rules, file_urls in zip(parsed, urls, strict=True):
            first, others = file_urls[0], file_urls[1:]
            for agent in AGENTS:
                t0 = clock_now()
                allowed(rules, first, agent)
                t1 = clock_now()
                for url in others:
                    allowed(rules, url, agent)
                t2 = clock_now()
                first_s += t1 - t0
                rest_s += t2 - t1
        total = clock_now() - start
    return {
        "check_s": total,
        "first_s": first_s,
        "rest_s": rest_s,
        "check_gc_s": clock.seconds,
        "check_gc_full": clock.collections[2],
    }


def cold_round(lib: Library, bodies: list[bytes], urls: list[list[str]]) -> dict[str, float]:
    """Per file: parse, then 50 URLs × 3 agents; parsed files kept alive (a crawl's cache)."""
    gc.collect()
    kept: list[Any] = []
    parse, allowed = lib.parse, lib.allowed
    with CollectorClock().active() as clock:
        start = CLOCK()
        for body, file_urls in zip(bodies, urls, strict=True):
            rules = parse(body)
            kept.append(rules)
            for agent in AGENTS:
                for url in file_urls:
                    allowed(rules, url, agent)
        total = CLOCK() - start
    return {"cold_s": total, "cold_gc_s": clock.seconds}


def footprint(
    lib: Library, bodies: list[bytes], urls: list[list[str]], agents: tuple[str, ...]
) -> dict[str, float]:
    """Bytes (tracemalloc) and GC-tracked objects per parsed file after one check per agent."""
    gc.collect()
    objects_before = len(gc.get_objects())
    tracemalloc.start()
    kept = [lib.parse(body) for body in bodies]
    for rules, file_urls in zip(kept, urls, strict=True):
        for agent in agents:
            lib.allowed(rules, file_urls[0], agent)
    gc.collect()
    retained, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    objects = len(gc.get_objects()) - objects_before - 1  # minus the list ``kept``
    del kept
    return {"kib": retained / len(bodies) / 1024, "objects": objects / len(bodies)}


def measure(
    libraries: dict[str, Library], bodies: list[bytes], urls: list[list[str]], rounds: int
) -> tuple[dict[str, dict[str, float]], dict[str, list[dict[str, float]]]]:
    """Each round times every library in turn (the order rotated each round), so that a
    busy moment of the machine falls on all of them; then the median per library, and
    the retained memory. Returns the medians and every round's figures."""
    names = list(libraries)
    per_round: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for number in range(rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            print(f"round {number + 1}/{rounds}: {name}…", file=sys.stderr)
            library = libraries[name]
            row = parse_round(library, bodies)
            row |= check_round(library, bodies, urls)
            row |= cold_round(library, bodies, urls)
            per_round[name].append(row)
    results: dict[str, dict[str, float]] = {}
    for name, library in libraries.items():
        row = median_of(per_round[name])
        one = footprint(library, bodies, urls, AGENTS[:1])
        every = footprint(library, bodies, urls, AGENTS)
        row |= {"kib_1": one["kib"], "objects_1": one["objects"], "kib_3": every["kib"]}
        results[name] = row
    return results, per_round


def spread(
    per_round: dict[str, list[dict[str, float]]], key: str, ours: str = "scrapy_rep"
) -> tuple[float, float]:
    """The lowest and highest per-round ratio Protego / ours for ``key``."""
    ratios = [
        base[key] / own[key]
        for base, own in zip(per_round["Protego"], per_round[ours], strict=True)
    ]
    return min(ratios), max(ratios)


# --------------------------------------------------------------------------- worst cases


def _stress_one(name: str, body: bytes, rounds: int, queue: Any) -> None:
    lib = FACTORIES[name]()
    parse_worst: list[float] = []
    allowed_worst: list[float] = []
    for _ in range(rounds):
        worst_parse = worst_allowed = 0.0
        for agent in AGENTS:
            start = CLOCK()
            rules = lib.parse(body)  # fresh: the agent's first call is included below
            worst_parse = max(worst_parse, CLOCK() - start)
            for url in STRESS_URLS:
                start = CLOCK()
                lib.allowed(rules, url, agent)
                worst_allowed = max(worst_allowed, CLOCK() - start)
        parse_worst.append(worst_parse)
        allowed_worst.append(worst_allowed)
    queue.put((statistics.median(parse_worst), statistics.median(allowed_worst)))


def stress(name: str, path: Path, rounds: int) -> tuple[float, float] | None:
    """(parse s, slowest allowed() s) on one stress file; ``None`` when killed or failed."""
    # A fresh interpreter (spawn), so the parent's heap does not slow down its GC.
    context = multiprocessing.get_context("spawn")
    queue: Any = context.Queue()
    process = context.Process(target=_stress_one, args=(name, path.read_bytes(), rounds, queue))
    process.start()
    process.join(STRESS_TIMEOUT + 10)  # + interpreter start-up
    if process.is_alive():
        process.kill()
        process.join()
        return None
    return None if queue.empty() else queue.get()


def _cell(result: tuple[float, float] | None) -> str:
    if result is None:
        return f"> {STRESS_TIMEOUT:g} s (killed)"
    return f"{result[0] * 1000:.1f} / {result[1] * 1000:.2f} ms"


# --------------------------------------------------------------------------- --count

#: Per library counted: how its text is made from the body (outside the count), how it
#: parses, and its check method's name (called as ``method(url, agent)``).
COUNTED: dict[str, tuple[Callable[[bytes], Any], Callable[[Any], Any], str]] = {
    "scrapy_rep": (lambda body: body, parse_robotstxt, "allowed"),
    "Protego": (
        lambda body: body.decode("utf-8", "ignore"),
        lambda text: __import__("protego").Protego.parse(text),
        "can_fetch",
    ),
}


class CallCount:
    """cProfile's counts of what runs while :meth:`counting` is active, its own
    ``disable()`` left out."""

    def __init__(self) -> None:
        self.profile = cProfile.Profile()

    @contextmanager
    def counting(self) -> Iterator[None]:
        self.profile.enable()
        try:
            yield
        finally:
            self.profile.disable()

    def calls(self) -> tuple[int, int]:
        """(Python function calls, built-in calls)."""
        python = builtin = 0
        stats = pstats.Stats(self.profile)
        for (filename, _, name), (_, calls, *_) in stats.stats.items():  # type: ignore[attr-defined]
            if filename != "~":
                python += calls
            elif "_lsprof.Profiler" not in name:
                builtin += calls
        return python, builtin


def count_library(name: str, bodies: list[bytes], urls: list[list[str]]) -> dict[str, float]:
    """Calls per parse, per first check of a (file, agent), per other check, per cold
    start (parse, first check): Python and built-in (``_b``)."""
    text_of, parse, method = COUNTED[name]
    texts = [text_of(body) for body in bodies]
    gc.collect()
    parsing, first, other = CallCount(), CallCount(), CallCount()
    parsed = []
    for text in texts:
        with parsing.counting():
            rules = parse(text)
        parsed.append(rules)
    checks = others = 0
    for rules, file_urls in zip(parsed, urls, strict=True):
        check = getattr(rules, method)
        for agent in AGENTS:
            with first.counting():
                check(file_urls[0], agent)
            with other.counting():
                for url in file_urls[1:]:
                    check(url, agent)
            checks += 1
            others += len(file_urls) - 1
    row: dict[str, float] = {}
    for key, counter, over in (
        ("parse", parsing, len(bodies)), ("first", first, checks), ("other", other, others)
    ):  # fmt: skip
        python, builtin = counter.calls()
        row[key], row[key + "_b"] = python / over, builtin / over
    sites = sum(map(len, urls)) * len(AGENTS) / len(bodies)
    for suffix in ("", "_b"):
        row["cold" + suffix] = row["parse" + suffix] + row["first" + suffix]
        row["site" + suffix] = (
            row["parse" + suffix]
            + len(AGENTS) * row["first" + suffix]
            + (sites - len(AGENTS)) * row["other" + suffix]
        )
    return row


def count(bodies: list[bytes], urls: list[list[str]]) -> None:
    """``--count``: the counts of scrapy_rep and Protego, side by side."""
    import rep_engine

    print(f"rep_engine from {Path(rep_engine.__file__).parent}")
    rows = {name: count_library(name, bodies, urls) for name in COUNTED}
    for name, factory in (("scrapy_rep", _scrapy_rep), ("Protego", _protego)):
        rows[name] |= footprint(factory(), bodies, urls, AGENTS[:1])
    ours, base = rows["scrapy_rep"], rows["Protego"]
    print(f"\n{len(bodies):,} files; calls: Python function calls + built-in calls (cProfile)\n")
    print("| per | scrapy_rep | Protego | Protego / scrapy_rep (Python calls) |")
    print("|---|---|---|---|")
    for key, label in (
        ("parse", "parse"),
        ("first", "first allowed() of a (file, agent)"),
        ("other", "other allowed()"),
        ("cold", "cold start: parse + first allowed()"),
        ("site", "cold site: parse + 150 allowed()"),
    ):
        print(
            f"| {label} | {ours[key]:,.2f} + {ours[key + '_b']:,.2f} "
            f"| {base[key]:,.2f} + {base[key + '_b']:,.2f} | {base[key] / ours[key]:.2f}× |"
        )
    print(
        f"| retained KiB per parsed file | {ours['kib']:.2f} | {base['kib']:.2f} "
        f"| ours {ours['kib'] / base['kib']:.3f}× |"
    )
    print(
        f"| GC-tracked objects per parsed file | {ours['objects']:.2f} | {base['objects']:.2f} | |"
    )


# --------------------------------------------------------------------------- --instructions

#: The passes counted, as ``--instructions`` names them.
PASSES = ("parse", "check", "others", "cold", "cold start")


def run_pass(lib: Library, name: str, bodies: list[bytes], urls: list[list[str]]) -> None:
    """One pass of the timed rounds, the counted part inside ``operator.call`` (what
    callgrind's ``--toggle-collect=_operator_call`` counts)."""
    parse, allowed = lib.parse, lib.allowed
    allowed(parse(b"User-agent: *\nDisallow: /x\n"), "https://a.example/x", "mybot")  # imports

    def checks(parsed: list[Any], first: bool, others: bool) -> None:
        for rules, file_urls in zip(parsed, urls, strict=True):
            for agent in AGENTS:
                for url in file_urls[0 if first else 1 : None if others else 1]:
                    allowed(rules, url, agent)

    def cold(agents: tuple[str, ...], per_file: int | None) -> list[Any]:
        kept = []
        for body, file_urls in zip(bodies, urls, strict=True):
            rules = parse(body)
            kept.append(rules)
            for agent in agents:
                for url in file_urls[:per_file]:
                    allowed(rules, url, agent)
        return kept

    gc.collect()
    if name == "parse":
        operator.call(lambda: [parse(body) for body in bodies])
    elif name in ("check", "others"):
        parsed = [parse(body) for body in bodies]
        if name == "others":
            checks(parsed, first=True, others=False)
        gc.collect()
        operator.call(checks, parsed, name == "check", True)
    elif name == "cold":
        operator.call(cold, AGENTS, None)
    else:
        operator.call(cold, AGENTS[:1], 1)


def instructions(args: argparse.Namespace) -> None:
    """``--instructions``: each library's passes, each in a process of its own under
    callgrind, and the ratios."""
    counts: dict[tuple[str, str], int] = {}
    for library in ("scrapy_rep", "Protego"):
        for name in PASSES:
            command = [
                "valgrind", "--tool=callgrind", "--toggle-collect=_operator_call",
                "--callgrind-out-file=/dev/null", sys.executable, __file__,
                "--corpus", str(args.corpus), "--step", str(args.step),
                "--pass", f"{library}:{name}",
            ]  # fmt: skip
            print(f"{library}: {name}…", file=sys.stderr)
            done = subprocess.run(
                command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}
            )
            found = re.search(r"Collected : (\d+)", done.stderr)
            if done.returncode or found is None:
                raise SystemExit(f"{library} {name}: callgrind failed\n{done.stderr[-2000:]}")
            counts[library, name] = int(found[1])
    import rep_engine

    print(f"rep_engine from {Path(rep_engine.__file__).parent}; every {args.step}th file\n")
    print("| pass | scrapy_rep | Protego | Protego / scrapy_rep |")
    print("|---|---|---|---|")
    for name in PASSES:
        ours, base = counts["scrapy_rep", name], counts["Protego", name]
        print(f"| {name} | {ours / 1e6:,.1f}M | {base / 1e6:,.1f}M | {base / ours:.2f}× |")


# --------------------------------------------------------------------------- report


def print_table(results: dict[str, dict[str, float]], base: dict[str, float] | None) -> None:
    print(
        "| library | parse s | check pass s = first calls + others | GC in check pass "
        "| cold per site s | KiB per file | GC objects per file |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, row in results.items():

        def vs(key: str, row: dict[str, float] = row, name: str = name) -> str:
            if base is None or name == "Protego":
                return ""
            return f" ({base[key] / row[key]:.1f}× faster)"

        memory = f"{row['kib_1']:.1f}"
        if base is not None and name != "Protego":
            memory += f" ({row['kib_1'] / base['kib_1']:.2f}× Protego)"
        memory += f"; {row['kib_3']:.1f} after 3 agents"
        print(
            f"| {name} | {row['parse_s']:.3f}{vs('parse_s')} "
            f"| {row['check_s']:.3f} = {row['first_s']:.3f} + {row['rest_s']:.3f}{vs('check_s')} "
            f"| {row['check_gc_s']:.3f} s, {row['check_gc_full']:.0f} full "
            f"| {row['cold_s']:.3f}{vs('cold_s')} | {memory} | {row['objects_1']:,.0f} |"
        )


def print_targets(
    ours: dict[str, float] | None,
    base: dict[str, float] | None,
    worst: tuple[str, float, str, float] | None,
    per_round: dict[str, list[dict[str, float]]],
    window: LoadWindow | None = None,
) -> None:
    lines: list[tuple[bool | None, str]] = []
    if ours is not None and base is not None:
        for key, label, target in (
            ("parse_s", "parse", PARSE_TARGET),
            ("check_s", "check pass, first calls included", CHECK_TARGET),
            ("cold_s", "cold per site", COLD_TARGET),
        ):
            ratio = base[key] / ours[key]
            low, high = spread(per_round, key)
            lines.append(
                (
                    ratio >= target,
                    f"{label} >= {target:g}× Protego: {ratio:.2f}× "
                    f"(per round {low:.2f}× to {high:.2f}×)",
                )
            )
        lines.append(
            (
                None,
                f"parse throughput: {ours['mb_per_s']:.0f} MB/s, "
                f"{ours['mb_per_s'] / GOOGLE_MB_PER_S:.2f}× Google's C++ parser "
                f"(about {GOOGLE_MB_PER_S:g} MB/s, FINDINGS.md)",
            )
        )
        share = ours["kib_1"] / base["kib_1"]
        lines.append(
            (
                share <= MEMORY_TARGET,
                f"retained memory <= {MEMORY_TARGET:g}× Protego's: {share:.2f}× "
                f"({ours['kib_1']:.1f} vs {base['kib_1']:.1f} KiB per file)",
            )
        )
    if worst is not None:
        parse_file, parse_s, call_file, call_s = worst
        lines.append(
            (
                parse_s * 1000 <= WORST_PARSE_MS,
                f"no parse over {WORST_PARSE_MS:g} ms: slowest {parse_s * 1000:.1f} ms "
                f"({parse_file})",
            )
        )
        lines.append(
            (
                call_s * 1000 <= WORST_ALLOWED_MS,
                f"no allowed() over {WORST_ALLOWED_MS:g} ms, first calls included: slowest "
                f"{call_s * 1000:.2f} ms ({call_file})",
            )
        )
    print("\nTargets (scrapy_rep):\n")
    if window is not None:
        print(f"- the timed rounds: {window.line()}")
    for met, text in lines:
        print(f"- {'for information' if met is None else 'met' if met else 'NOT met'}: {text}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--quick", action="store_true", help="200 files, 1 round")
    parser.add_argument("--only", choices=sorted(FACTORIES), action="append")
    parser.add_argument("--no-stress", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", action="store_true", help="call counts and memory, no timing")
    parser.add_argument(
        "--instructions", action="store_true", help="instructions of each pass (callgrind)"
    )
    parser.add_argument("--step", type=int, default=4, help="--instructions: every Nth file")
    parser.add_argument("--pass", dest="one_pass", help=argparse.SUPPRESS)  # LIBRARY:PASS
    args = parser.parse_args()
    if args.instructions:
        instructions(args)
        return 0
    urls_file = args.corpus / "urls.jsonl"
    if not urls_file.is_file():
        print(f"corpus not found: {urls_file} (it lives in ../shared/corpus)", file=sys.stderr)
        return 2
    entries = [json.loads(line) for line in urls_file.read_text().splitlines()[1:]]
    if args.quick:
        entries = entries[:200]
    if args.one_pass:
        entries = entries[:: args.step]
    bodies = [(args.corpus / entry["file"]).read_bytes() for entry in entries]
    urls = [entry["urls"] for entry in entries]
    if args.count:
        count(bodies, urls)
        return 0
    if args.one_pass:
        library, name = args.one_pass.split(":")
        run_pass(FACTORIES[library](), name, bodies, urls)
        return 0
    rounds = 1 if args.quick else args.rounds
    names = list(dict.fromkeys(args.only or FACTORIES))
    for required in ("scrapy_rep", "Protego"):
        if required not in names:
            names.append(required)
    libraries: dict[str, Library] = {}
    for name in names:
        try:
            libraries[name] = FACTORIES[name]()
        except ImportError as error:
            print(f"skipping {name}: {error}", file=sys.stderr)
    window = LoadWindow(own_cores=1.0)
    print(window.line(), flush=True)
    results, per_round = measure(libraries, bodies, urls, rounds)
    window.close()
    for row in results.values():
        row["mb_per_s"] = sum(map(len, bodies)) / 1e6 / row["parse_s"]
    base = results.get("Protego")
    checks = sum(map(len, urls)) * len(AGENTS)
    print(
        f"\n{len(bodies):,} real files ({sum(map(len, bodies)) / 1e6:.1f} MB), {checks:,} "
        f"allowed() checks ({len(bodies) * len(AGENTS):,} of them first calls per "
        f"(file, agent)); GC on; CPU time; median of {rounds} interleaved round(s); "
        "ratios against Protego\n"
    )
    print_table(results, base)
    print(
        "\nparse: one pass over all files. check pass: on freshly parsed files (parsed and "
        "collected before timing), every call timed, first calls included. cold per site: "
        "parse + 150 checks per file, all files kept alive. Memory and GC objects: after one "
        "check per file (Googlebot)."
    )
    worst: tuple[str, float, str, float] | None = None
    if not args.no_stress:
        synthetic = sorted((args.corpus / "synthetic").glob("*.txt"))
        print(
            "\nWorst cases: slowest parse / slowest single allowed() (a fresh parse before "
            f"each agent's first call; URLs up to 100 KB), median of {rounds} round(s)\n"
        )
        print("| file | " + " | ".join(results) + " |")
        print("|---" * (len(results) + 1) + "|")
        for path in synthetic:
            cells = {name: stress(name, path, rounds) for name in results}
            print(f"| {path.name} | " + " | ".join(map(_cell, cells.values())) + " |")
            ours = cells.get("scrapy_rep")
            if ours is None:
                ours = (float("inf"), float("inf"))
            if worst is None:
                worst = (path.name, ours[0], path.name, ours[1])
            else:
                if ours[0] > worst[1]:
                    worst = (path.name, ours[0], worst[2], worst[3])
                if ours[1] > worst[3]:
                    worst = (worst[0], worst[1], path.name, ours[1])
    print_targets(results.get("scrapy_rep"), base, worst, per_round, window)
    return 0


if __name__ == "__main__":
    sys.exit(main())
