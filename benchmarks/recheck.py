"""A collection re-checked at scale (docs/recheck.md, "Scale"): decisions per second per
core with the documents in hand, against the filter a dataset builder writes today
(Protego's ``can_fetch`` per URL, one parsed robots.txt per origin), on the same
synthetic dataset in the same run; and the peak RSS of a recheck over 100,000, 1M and 10M
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
per-round ratios. Report with the load average (``uptime``): the machine is shared.

Usage: ``python benchmarks/recheck.py [--items N] [--origins N] [--rounds N] [--rss]``
"""

from __future__ import annotations

import argparse
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

from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.recheck.documents import OriginDocuments
from scrapy_rep.recheck.outputs import EvidenceMemo, Tally
from scrapy_rep.recheck.rechecker import Identity, Rechecker
from scrapy_rep.robotstxt import parse_robotstxt
from scrapy_rep.settings import RepConfig
from scrapy_rep.urls.origins import Origin, origin_of
from scrapy_rep.usage.tdmrep import NO_FILE
from scrapy_rep.verdict import ROBOTS, TDM

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
AGENT = "mybot"


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


def rechecker(robots: dict[str, bytes], purpose: str) -> Rechecker:
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

    config = RepConfig.from_settings({"REP_PURPOSE": purpose})
    return Rechecker(config, Identity(AGENT), known, explain=False)


def protego_filter(robots: dict[str, bytes]) -> Any:
    """The filter a dataset builder writes: Protego, one parsed robots.txt per origin."""
    from urllib.parse import urlsplit

    from protego import Protego

    parsed = {name: Protego.parse(body.decode("utf-8", "replace")) for name, body in robots.items()}

    def allowed(url: str) -> bool:
        parts = urlsplit(url)
        return bool(parsed[f"{parts.scheme}://{parts.netloc}"].can_fetch(url, AGENT))

    return allowed


def kept_by(rechecker: Rechecker) -> Any:
    """The recheck as a filter: is the item kept?"""
    return lambda url: rechecker.decide(url).status == "kept"


def timed(decide: Any, items: list[str]) -> tuple[float, int]:
    start = time.process_time()
    kept = 0
    for url in items:
        kept += decide(url)
    return time.process_time() - start, kept


def rates(args: argparse.Namespace) -> None:
    files = corpus(args.corpus)
    robots = bodies(files, args.origins)
    items = list(urls(files, args.origins, args.items))
    names = ("scrapy_rep", "scrapy_rep ai-train", "protego")
    columns: dict[str, list[float]] = {name: [] for name in names}
    parses: dict[str, list[float]] = {name: [] for name in names}
    kept: dict[str, int] = {}
    decisions: dict[str, int] = {}
    makers = (
        lambda: rechecker(robots, "search"),
        lambda: rechecker(robots, "ai-train"),
        lambda: protego_filter(robots),
    )
    for _ in range(args.rounds):
        # Each round, each filter alone in memory (another's objects would cost it
        # collector time): its documents parsed (timed apart: Protego prepares its
        # patterns there), then its decisions timed, each origin's first use (its
        # matcher compiled, its verdicts made) inside that clock.
        for name, make in zip(names, makers, strict=True):
            start = time.process_time()
            made = make()
            parses[name].append(time.process_time() - start)
            ours = isinstance(made, Rechecker)
            seconds, kept[name] = timed(kept_by(made) if ours else made, items)
            columns[name].append(seconds)
            if ours:
                decisions[name] = made.decisions
            del made
    load = os.getloadavg()
    print(f"{args.items:,} URLs over {args.origins:,} origins ({len(files):,} real robots.txt "
          f"files); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")  # fmt: skip
    middle = {name: statistics.median(times) for name, times in columns.items()}
    for name, seconds in middle.items():
        each = ", ".join(f"{t:.2f}" for t in columns[name])
        rate = args.items / seconds
        print(f"  {name:<20} {rate:>12,.0f} decisions/s per core (median of {args.rounds}: "
              f"{seconds:.2f} s CPU; rounds {each}), {kept[name]:,} kept")  # fmt: skip
    for name in names[:2]:
        ratios = [p / mine for p, mine in zip(columns["protego"], columns[name], strict=True)]
        each = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"  ratio {name} / protego: median {statistics.median(ratios):.2f}x (rounds {each})")
    for name in names:
        print(f"  {name:<20} parse of the {args.origins:,} files: median "
              f"{statistics.median(parses[name]):.2f} s CPU")  # fmt: skip
    for name in names[:2]:
        cold = [(p + q) / (m + n) for p, q, m, n in zip(parses["protego"], columns["protego"],
                parses[name], columns[name], strict=True)]  # fmt: skip
        print(f"  ratio {name} / protego, parse and decisions: median "
              f"{statistics.median(cold):.2f}x")  # fmt: skip
    print(f"  decisions counted (last round): {decisions[names[0]]:,} (search), "
          f"{decisions[names[1]]:,} (ai-train)")  # fmt: skip
    ours, theirs = kept_by(makers[0]()), makers[2]()
    differ = sum(1 for url in items[:100_000] if ours(url) != theirs(url))
    print(f"  verdicts that differ from Protego's on the first 100,000: {differ:,}")


def rss(items: int, origins: int, directory: Path) -> None:
    """One recheck's loop (decision, evidence, counts) over ``items`` generated URLs; its
    peak RSS (run in a fresh process)."""
    files = corpus(directory)
    ours = rechecker(bodies(files, origins), "ai-train")
    tally = Tally(("ai-train",))
    memo = EvidenceMemo()
    from scrapy_rep.recheck.datasets import Item

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
