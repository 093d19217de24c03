"""robots.txt parsers compared in one run: scrapy_rep, Protego, robotspy, urllib, rerp.

Measures, on ``../shared/corpus`` (real files, their 50 URLs each from ``urls.jsonl``, and
the agents Googlebot, Bingbot, mybot):

- parse throughput (MB/s over all real files);
- ``allowed()`` calls per second on parsed files (warm: every agent's group used once first);
- a "cold" pass: parse + 50 checks per file (one agent), total seconds;
- retained memory per parsed file (tracemalloc, all parsed objects kept alive);
- per synthetic stress file: parse time and the slowest single ``allowed()`` call
  (URLs include one of 100 KB). Libraries that can go exponential run that part in a
  subprocess with a time limit and show "> N s".

Prints a markdown table with ratios against Protego. ``--quick`` uses 200 files.

Usage: ``python benchmarks/robotstxt.py [--quick] [--only NAME] [--corpus DIR]``
(``pip install -e ".[bench]"`` installs the other parsers).
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import statistics
import sys
import time
import tracemalloc
import urllib.robotparser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrapy_rep import parse_robotstxt

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
AGENTS = ("Googlebot", "Bingbot", "mybot")
STRESS_TIMEOUT = 20.0
STRESS_URLS = (
    "https://example.com/",
    "https://example.com/a/b/c.php?x=1",
    "https://example.com/" + "a" * 100_000,
    "https://example.com/" + "ab" * 50_000 + "b",
)


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

    return Library("urllib", parse, lambda rules, url, agent: rules.can_fetch(agent, url))


def _rerp() -> Library:
    from robotexclusionrulesparser import RobotExclusionRulesParser

    def parse(body: bytes) -> RobotExclusionRulesParser:
        parser = RobotExclusionRulesParser()
        parser.parse(body.decode("utf-8", "ignore"))
        return parser

    return Library("rerp", parse, lambda rules, url, agent: bool(rules.is_allowed(agent, url)))


def _scrapy_rep() -> Library:
    return Library(
        "scrapy_rep", parse_robotstxt, lambda rules, url, agent: rules.allowed(url, agent)
    )


FACTORIES = {
    "scrapy_rep": _scrapy_rep,
    "Protego": _protego,
    "robotspy": _robotspy,
    "urllib": _urllib,
    "rerp": _rerp,
}


def best_of(repeat: int, function: Callable[[], object]) -> float:
    """The median of ``repeat`` timings of ``function`` (GC off while timing)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
        gc.enable()
    return statistics.median(times)


def measure(
    lib: Library, bodies: list[bytes], urls: list[list[str]], repeat: int
) -> dict[str, float]:
    total_bytes = sum(map(len, bodies))
    parse_time = best_of(repeat, lambda: [lib.parse(body) for body in bodies])
    parsed = [lib.parse(body) for body in bodies]

    def check_all() -> None:
        for rules, file_urls in zip(parsed, urls, strict=True):
            for agent in AGENTS:
                for url in file_urls:
                    lib.allowed(rules, url, agent)

    check_all()  # warm: every agent's group selected (and compiled) once
    checks = sum(len(u) for u in urls) * len(AGENTS)
    allowed_time = best_of(repeat, check_all)

    def cold() -> None:
        for body, file_urls in zip(bodies, urls, strict=True):
            rules = lib.parse(body)
            for url in file_urls:
                lib.allowed(rules, url, "Googlebot")

    cold_time = best_of(repeat, cold)
    parsed.clear()
    gc.collect()
    tracemalloc.start()
    kept = [lib.parse(body) for body in bodies]
    retained, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del kept
    return {
        "parse_mb_s": total_bytes / parse_time / 1e6,
        "allowed_per_s": checks / allowed_time,
        "cold_s": cold_time,
        "kib_per_file": retained / len(bodies) / 1024,
    }


def _stress_one(name: str, body: bytes, queue: Any) -> None:
    lib = FACTORIES[name]()
    start = time.perf_counter()
    rules = lib.parse(body)
    parse_time = time.perf_counter() - start
    worst = 0.0
    for agent in ("Googlebot", "mybot"):
        for url in STRESS_URLS:
            start = time.perf_counter()
            lib.allowed(rules, url, agent)
            worst = max(worst, time.perf_counter() - start)
    queue.put((parse_time, worst))


def stress(name: str, path: Path) -> str:
    """Parse time and slowest allowed() on one stress file, in a subprocess with a limit."""
    # A fresh interpreter (spawn), so the parent's heap does not slow down its GC.
    context = multiprocessing.get_context("spawn")
    queue: Any = context.Queue()
    process = context.Process(target=_stress_one, args=(name, path.read_bytes(), queue))
    process.start()
    process.join(STRESS_TIMEOUT + 10)  # + interpreter start-up
    if process.is_alive():
        process.kill()
        process.join()
        return f"> {STRESS_TIMEOUT:g} s (killed)"
    if queue.empty():
        return "error"
    parse_time, worst = queue.get()
    return f"{parse_time * 1000:.1f} / {worst * 1000:.2f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--quick", action="store_true", help="200 files, 1 repetition")
    parser.add_argument("--only", choices=sorted(FACTORIES), action="append")
    parser.add_argument("--no-stress", action="store_true")
    args = parser.parse_args()
    urls_file = args.corpus / "urls.jsonl"
    if not urls_file.is_file():
        print(f"corpus not found: {urls_file} (it lives in ../shared/corpus)", file=sys.stderr)
        return 2
    entries = [json.loads(line) for line in urls_file.read_text().splitlines()[1:]]
    if args.quick:
        entries = entries[:200]
    bodies = [(args.corpus / entry["file"]).read_bytes() for entry in entries]
    urls = [entry["urls"] for entry in entries]
    repeat = 1 if args.quick else 3
    names = args.only or list(FACTORIES)
    if "Protego" not in names:
        names.append("Protego")
    results: dict[str, dict[str, float]] = {}
    for name in names:
        try:
            library = FACTORIES[name]()
        except ImportError as error:
            print(f"skipping {name}: {error}", file=sys.stderr)
            continue
        print(f"measuring {name}…", file=sys.stderr)
        results[name] = measure(library, bodies, urls, repeat)
    base = results.get("Protego")
    print(
        f"\n{len(bodies)} real files ({sum(map(len, bodies)) / 1e6:.1f} MB), "
        f"{sum(map(len, urls)) * len(AGENTS):,} allowed() checks; median of {repeat}\n"
    )
    print("| library | parse MB/s | allowed()/s | cold pass s | KiB retained per file |")
    print("|---|---|---|---|---|")
    for name, row in results.items():

        def ratio(
            key: str, higher_is_better: bool = True, row: dict[str, float] = row, name: str = name
        ) -> str:
            if base is None or name == "Protego":
                return ""
            value = row[key] / base[key] if higher_is_better else base[key] / row[key]
            return f" ({value:.1f}× Protego)" if higher_is_better else f" ({value:.1f}× faster)"

        memory = f"{row['kib_per_file']:.1f}"
        if base is not None and name != "Protego":
            memory += f" ({row['kib_per_file'] / base['kib_per_file']:.2f}× Protego)"
        print(
            f"| {name} | {row['parse_mb_s']:.1f}{ratio('parse_mb_s')} "
            f"| {row['allowed_per_s']:,.0f}{ratio('allowed_per_s')} "
            f"| {row['cold_s']:.2f}{ratio('cold_s', higher_is_better=False)} | {memory} |"
        )
    if args.no_stress:
        return 0
    synthetic = sorted((args.corpus / "synthetic").glob("*.txt"))
    print("\nStress files: parse / slowest single allowed() (URLs up to 100 KB)\n")
    print("| file | " + " | ".join(results) + " |")
    print("|---" * (len(results) + 1) + "|")
    for path in synthetic:
        print(f"| {path.name} | " + " | ".join(stress(name, path) for name in results) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
