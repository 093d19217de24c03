"""A collection re-checked at scale (docs/recheck.md, "Scale"): decisions per second per
core with the documents in hand, against the filters dataset builders write today, on the
same synthetic dataset in the same run: Protego's ``can_fetch`` per URL for one name (one
parsed robots.txt per origin), and for each of the 15 names of the Apertus models' filter
(:data:`FILTER_NAMES`), against the recheck with those names in ``REP_PURPOSE_AGENTS``;
and the peak RSS of a recheck over 100,000, 1M and 10M
items of the same origins (each in a fresh process, the items generated as they are read,
never held).

The dataset: ``--origins`` origins (20,000), each given one of the corpus's real
robots.txt files in turn (``../shared/corpus/real``) and that file's own URLs
(``urls.jsonl``, 50 per file) on its host, taken in turn until ``--items`` (1M) URLs; the
URLs visit the origins round-robin, as a crawl's output mixes its sites. Each round, each
filter in turn, alone in memory, gets its documents parsed (timed apart) before the clock
of its decisions starts (each origin's first use, its matcher compiled and its verdicts
made, is inside that clock); the decisions are counted (the Rechecker's ``decisions``),
the time is CPU time (``time.process_time``), the median of ``--rounds`` and of the
per-round ratios. Each of the recheck's filters, and the one-name Protego filter, then
decides the same items again (a second pass: every matcher compiled, every memo made;
the shared outcomes the recheck's fast path made again in it are counted).
Every document is parsed and compiled on its own (none shares another's, byte-identical
or not). Report with the load average (``uptime``, printed): the machine is shared.

Every filter's decisions are timed under the collector's thresholds the recheck command
sets for its decision loop (:func:`~rep_recheck.deciding.collector_paced`; ``--collector
default``: CPython's own), Protego's too: a process setting, not the library's. The parse
is timed under CPython's, as a crawl's documents are parsed (as they are fetched, before
that loop); with the command's thresholds, each filter's documents are then parsed once
more under them, as a WARC's are (in that loop, on each origin's first item), and the
ratio with that parse is printed too: those thresholds spare Protego's parse, which
leaves about 300 objects a file for the collector, more than ours (about 10). The items
are held in a tuple, which the collector stops tracking (the command reads them in
chunks, never holds them). Deterministic counts printed beside the times: the
collections the collector made during each filter's first pass, the objects it tracks
per origin once the documents are parsed and after the first pass, and (``--calls``, a
separate profiled first and second pass over the 50,000 items of the first origins, as
many per origin as the whole pass has) the function calls per decision.

Usage: ``python benchmarks/recheck.py [--items N] [--origins N] [--rounds N]
[--collector command|default] [--calls] [--rss]``
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rep_engine.fetch.cache import CacheEntry
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import ROBOTS, TDM
from rep_recheck.deciding import collector_paced
from rep_recheck.documents import OriginDocuments
from rep_recheck.outputs import EvidenceMemo, Tally
from rep_recheck.rechecker import Identity, Rechecker

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
AGENT = "mybot"
#: The names the Apertus models' robots.txt filter asks Protego's ``can_fetch`` about for
#: each document (a document is dropped if any is disallowed), as its source wrote them:
#: swiss-ai/pretrain-data, src/data_pipeline_pretrain/pipeline/filters/robots_filter.py,
#: ``_DEFAULT_REMOVE_USER_AGENTS`` at commit 0943bfdaf27a8d243a1034b1f6c9d827345542ac (read
#: 2026-11-26; the filter ran over robots.txt files as of January 2025). The recheck is
#: given the same 15 in ``REP_PURPOSE_AGENTS`` (the preset ``apertus-0943bfd`` is this
#: list less ``CCBot/2.0``, ``CCBot/1.0`` and ``*``, which add no group to obey).
FILTER_NAMES: tuple[str, ...] = (
    "AI2Bot", "Applebot-Extended", "Bytespider", "CCBot", "CCBot/2.0", "CCBot/1.0",
    "ClaudeBot", "cohere-training-data-crawler", "Diffbot", "FacebookBot",
    "Meta-ExternalAgent", "Google-Extended", "GPTBot", "PanguBot", "*",
)  # fmt: skip


def corpus(directory: Path) -> list[tuple[bytes, list[str]]]:
    """Each real file's body and its URLs' paths."""
    entries = [json.loads(line) for line in (directory / "urls.jsonl").read_text().splitlines()]
    found = []
    for entry in entries:
        if "file" not in entry:
            continue
        paths = [url.split("/", 3)[3] if url.count("/") >= 3 else "" for url in entry["urls"]]
        found.append(((directory / entry["file"]).read_bytes(), paths))
    return found


def urls(files: list[tuple[bytes, list[str]]], origins: int, items: int) -> Iterator[str]:
    """``items`` URLs over ``origins`` origins, round-robin, generated as they are read."""
    for number in range(items):
        origin = number % origins
        paths = files[origin % len(files)][1]
        yield f"https://o{origin}.example/{paths[(number // origins) % len(paths)]}"


def bodies(files: list[tuple[bytes, list[str]]], origins: int) -> dict[str, bytes]:
    return {f"https://o{n}.example": files[n % len(files)][0] for n in range(origins)}


def rechecker(robots: dict[str, bytes], purpose: str, agents: tuple[str, ...] = ()) -> Rechecker:
    """The recheck's decisions, the documents parsed in hand (as a WARC or a crawl gives)."""
    never = float("inf")
    documents: dict[str, OriginDocuments] = {}
    for name, body in robots.items():
        origin = origin_of(name + "/")
        assert origin is not None
        found = OriginDocuments(origin, now=time.time())
        found.add(ROBOTS, origin, CacheEntry(parse_robotstxt(body), "200", 0.0, never, never))
        found.add(TDM, origin, CacheEntry(NO_FILE, "404", 0.0, never, never))
        documents[name] = found

    def known(origin: Origin) -> OriginDocuments | None:
        return documents.get(str(origin))

    config = RepConfig.from_settings({"REP_PURPOSE": purpose, "REP_PURPOSE_AGENTS": list(agents)})
    return Rechecker(config, Identity(AGENT), known, explain=False)


def protego_filter(robots: dict[str, bytes], names: tuple[str, ...] = (AGENT,)) -> Any:
    """The filter a dataset builder writes: Protego, one parsed robots.txt per origin,
    ``can_fetch`` for each of ``names`` (the Apertus filter: every name asked, an error
    read as allowed; kept if none is disallowed)."""
    from urllib.parse import urlsplit

    from protego import Protego

    parsed = {name: Protego.parse(body.decode("utf-8", "replace")) for name, body in robots.items()}

    def allowed(url: str) -> bool:
        parts = urlsplit(url)
        return bool(parsed[f"{parts.scheme}://{parts.netloc}"].can_fetch(url, AGENT))

    def allowed_all(url: str) -> bool:
        parts = urlsplit(url)
        robots = parsed[f"{parts.scheme}://{parts.netloc}"]
        disallowed = []
        for name in names:
            try:
                if not robots.can_fetch(url, name):
                    disallowed.append(name)
            except Exception:  # as the Apertus filter does
                continue
        return not disallowed

    return allowed if names == (AGENT,) else allowed_all


def kept_by(rechecker: Rechecker) -> Any:
    """The recheck as a filter: is the item kept?"""
    return lambda url: rechecker.decide(url).status == "kept"


def timed(decide: Any, items: tuple[str, ...]) -> tuple[float, int]:
    start = time.process_time()
    kept = 0
    for url in items:
        kept += decide(url)
    return time.process_time() - start, kept


def collections() -> int:
    """The collections the collector has made so far, every generation."""
    return sum(generation["collections"] for generation in gc.get_stats())


def tracked() -> int:
    """The objects the collector tracks, after a full collection."""
    gc.collect()
    return len(gc.get_objects())


def calls_per_decision(args: argparse.Namespace, files: list[tuple[bytes, list[str]]]) -> None:
    """The function calls per decision (a deterministic count) of each recheck filter,
    profiled apart from the timed rounds, on 50,000 of the items: those of the first
    origins, as many items per origin as the whole pass has (so as many first uses)."""
    origins = max(1, args.origins * 50_000 // args.items)
    robots = bodies(files, origins)
    some = tuple(urls(files, origins, min(args.items, 50_000)))
    for name, make, _ in FILTERS:
        made = make(robots)
        if not isinstance(made, Rechecker):
            continue
        decide = kept_by(made)
        counted = []
        for _ in range(2):  # a first pass, then a second (every matcher compiled)
            profile = cProfile.Profile()
            profile.runcall(timed, decide, some)
            counted.append(sum(entry.callcount for entry in profile.getstats()) / len(some))
        print(f"  {name:<20} calls per decision ({len(some):,} items over {origins:,} "
              f"origins): {counted[0]:.2f} first pass, {counted[1]:.2f} second")  # fmt: skip
        del made, decide
        gc.collect()


#: The filters timed, in turn: name -> (how it is made, whether a second pass is timed).
FILTERS: tuple[tuple[str, Any, bool], ...] = (
    ("scrapy_rep", lambda robots: rechecker(robots, "search"), True),
    ("scrapy_rep ai-train", lambda robots: rechecker(robots, "ai-train"), True),
    ("scrapy_rep 15 names", lambda robots: rechecker(robots, "ai-train", FILTER_NAMES), True),
    ("protego", protego_filter, True),
    ("protego 15 names", lambda robots: protego_filter(robots, FILTER_NAMES), False),
)
#: Each recheck filter against its Protego baseline.
AGAINST: tuple[tuple[str, str], ...] = (
    ("scrapy_rep", "protego"),
    ("scrapy_rep ai-train", "protego"),
    ("scrapy_rep 15 names", "protego 15 names"),
)


def rates(args: argparse.Namespace) -> None:
    files = corpus(args.corpus)
    robots = bodies(files, args.origins)
    items = tuple(urls(files, args.origins, args.items))
    paced = collector_paced if args.collector == "command" else contextlib.nullcontext
    names = [name for name, _, _ in FILTERS]
    columns: dict[str, list[float]] = {name: [] for name in names}
    again: dict[str, list[float]] = {name: [] for name, _, twice in FILTERS if twice}
    parses: dict[str, list[float]] = {name: [] for name in names}
    paced_parses: dict[str, list[float]] = {name: [] for name in names}
    kept: dict[str, int] = {}
    decisions: dict[str, int] = {}
    made_collections: dict[str, int] = {}
    made_again: dict[str, int] = {}
    per_origin: dict[str, tuple[float, float]] = {}
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)
    for _ in range(args.rounds):
        # Each round, each filter alone in memory (another's objects would cost it
        # collector time): its documents parsed (timed apart: Protego prepares its
        # patterns there), then its decisions timed, each origin's first use (its
        # matcher compiled, its verdicts made) inside that clock; then a second pass.
        for name, make, twice in FILTERS:
            empty = tracked()
            start = time.process_time()
            made = make(robots)
            parses[name].append(time.process_time() - start)
            parsed = tracked()
            ours = isinstance(made, Rechecker)
            decide = kept_by(made) if ours else made
            before = collections()
            with paced():
                seconds, kept[name] = timed(decide, items)
            made_collections[name] = collections() - before
            per_origin[name] = ((parsed - empty) / args.origins, (tracked() - empty) / args.origins)
            columns[name].append(seconds)
            if twice:
                before_made = made.made if ours else 0
                with paced():
                    again[name].append(timed(decide, items)[0])
                if ours:
                    made_again[name] = made.made - before_made
            if ours:
                decisions[name] = made.decisions
            del made, decide
            gc.collect()  # the next filter alone in memory
            if args.collector == "command":
                # The same parse under the command's thresholds: a WARC's documents are
                # parsed in its decision loop (a crawl's as they are fetched, before it).
                with paced():
                    start = time.process_time()
                    made = make(robots)
                    paced_parses[name].append(time.process_time() - start)
                del made
                gc.collect()
    load = os.getloadavg()
    print(f"{args.items:,} URLs over {args.origins:,} origins ({len(files):,} real robots.txt "
          f"files); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; collector "
          f"thresholds: {args.collector}'s")  # fmt: skip
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    for name, times in columns.items():
        seconds = statistics.median(times)
        each = ", ".join(f"{t:.2f}" for t in times)
        rate = args.items / seconds
        print(f"  {name:<20} {rate:>12,.0f} decisions/s per core (median of {args.rounds}: "
              f"{seconds:.2f} s CPU; rounds {each}), {kept[name]:,} kept")  # fmt: skip
    for name, times in again.items():
        seconds = statistics.median(times)
        print(f"  {name:<20} second pass: {args.items / seconds:>12,.0f} decisions/s "
              f"({seconds:.2f} s CPU)")  # fmt: skip
    for name, theirs in AGAINST:
        ratios = [p / mine for p, mine in zip(columns[theirs], columns[name], strict=True)]
        each = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"  ratio {name} / {theirs}: median {statistics.median(ratios):.2f}x "
              f"(rounds {each})")  # fmt: skip
    for name in ("scrapy_rep", "scrapy_rep ai-train"):
        ratios = [p / mine for p, mine in zip(again["protego"], again[name], strict=True)]
        print(f"  ratio {name} / protego, second pass: median {statistics.median(ratios):.2f}x")
    # Each parse, and the ratio with it: a crawl's (CPython's thresholds), then a WARC's.
    regimes = [(f"parse of the {args.origins:,} files", "parse", parses)]
    if args.collector == "command":
        regimes.append(("parse under the command's thresholds (a WARC's, in the loop)",
                        "parse (command's thresholds)", paced_parses))  # fmt: skip
    for parse_label, ratio_label, parse_times in regimes:
        for name in names:
            print(f"  {name:<20} {parse_label}: median "
                  f"{statistics.median(parse_times[name]):.2f} s CPU")  # fmt: skip
        for name, theirs in AGAINST:
            cold = [(p + q) / (m + n) for p, q, m, n in zip(parse_times[theirs], columns[theirs],
                    parse_times[name], columns[name], strict=True)]  # fmt: skip
            print(f"  ratio {name} / {theirs}, {ratio_label} and decisions: median "
                  f"{statistics.median(cold):.2f}x")  # fmt: skip
    counted = ", ".join(f"{decisions[name]:,} ({name})" for name, _ in AGAINST)
    print(f"  decisions counted (last round, both passes): {counted}")
    counted = ", ".join(f"{made_again[name]:,} ({name})" for name, _ in AGAINST)
    print(f"  shared outcomes made again on the second pass (last round): {counted}")
    for name in names:
        parsed_each, after = per_origin[name]
        print(f"  {name:<20} collections in the first pass (last round): "
              f"{made_collections[name]:,}; tracked objects per origin: {parsed_each:.1f} parsed, "
              f"{after:.1f} after the first pass")  # fmt: skip
    if args.calls:
        calls_per_decision(args, files)
    for name, theirs in AGAINST:
        ours = kept_by(dict((n, m) for n, m, _ in FILTERS)[name](robots))
        protego = dict((n, m) for n, m, _ in FILTERS)[theirs](robots)
        differ = sum(1 for url in items[:100_000] if ours(url) != protego(url))
        print(f"  {name}: verdicts that differ from {theirs}'s on the first 100,000: {differ:,}")
        del ours, protego
        gc.collect()


def rss(items: int, origins: int, directory: Path) -> None:
    """One recheck's loop (decision, evidence, counts) over ``items`` generated URLs; its
    peak RSS (run in a fresh process)."""
    files = corpus(directory)
    ours = rechecker(bodies(files, origins), "ai-train")
    tally = Tally(("ai-train",))
    memo = EvidenceMemo()
    from rep_recheck.datasets import Item

    with collector_paced():  # as the command's loop
        for number, url in enumerate(urls(files, origins, items), 1):
            outcome = ours.decide(url)
            origin = url.split("/", 3)
            tally.add(Item(number, url), str(outcome.status), memo.of(url, outcome),
                      f"{origin[0]}//{origin[2]}")  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kept = tally.statuses["kept"]
    print(json.dumps({"items": items, "peak_rss_mib": round(peak, 1), "kept": kept}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--origins", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--rss", action="store_true", help="peak RSS at 100k, 1M and 10M items")
    parser.add_argument(
        "--collector",
        choices=("command", "default"),
        default="command",
        help="the collector's thresholds: the recheck command's, or CPython's",
    )
    parser.add_argument("--calls", action="store_true", help="calls per decision (profiled)")
    parser.add_argument("--rss-one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_one:
        rss(args.rss_one, args.origins, args.corpus)
        return
    if args.rss:
        for items in (100_000, 1_000_000, 10_000_000):
            command = [sys.executable, __file__, "--rss-one", str(items),
                       "--origins", str(args.origins), "--corpus", str(args.corpus)]  # fmt: skip
            started = time.monotonic()
            print(subprocess.run(command, capture_output=True, text=True, check=True).stdout
                  .strip(), f"({time.monotonic() - started:.0f} s)", flush=True)  # fmt: skip
        return
    rates(args)


if __name__ == "__main__":
    main()
