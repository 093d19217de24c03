"""Memory of a pause with many held requests (SPEC §4, §7; docs/decisions.md, 'A pause leaves
spilled requests on disk').

Holds N requests for one origin with ``REP_MAX_HELD_REQUESTS = LIMIT`` (the rest spill
to disk), then pauses (``HeldRequests.close`` with a JOBDIR) and resumes
(``HeldRequests.resume`` into an engine that only counts). Prints the tracemalloc peak
of each step, and with ``--old`` the peak of what the previous version did at a pause
(every spilled request read back and turned into a dict for one pickle).

    python benchmarks/pause_memory.py                 # a million, about 3 minutes
    python benchmarks/pause_memory.py -n 100000 --old
"""

from __future__ import annotations

import argparse
import pickle
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl.documents.holding import STATE_FILE, HeldRequests

ORIGIN = "http://a.example"


class CountingEngine:
    def __init__(self) -> None:
        self.count = 0

    def crawl(self, request: Request) -> None:
        self.count += 1


def measured(action: Callable[[], Any]) -> tuple[float, float]:
    """(peak MB above the start, seconds)."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        before = tracemalloc.get_traced_memory()[0]
        action()
        return (tracemalloc.get_traced_memory()[1] - before) / 1e6, time.perf_counter() - start
    finally:
        tracemalloc.stop()


def filled(jobdir: Path, n: int, limit: int) -> tuple[HeldRequests, Spider]:
    crawler = get_crawler(Spider, {"JOBDIR": str(jobdir)})
    spider = Spider("bench")
    crawler.spider = spider
    held = HeldRequests(crawler, limit)
    headers = {"User-Agent": "bench/1.0", "Accept": "text/html", "Referer": ORIGIN + "/"}
    for i in range(n):
        held.add(ORIGIN, Request(f"{ORIGIN}/page/{i}", headers=headers, meta={"depth": 3}))
    return held, spider


def old_pause(held: HeldRequests, spider: Spider, path: Path) -> None:
    """What the previous version did: everything read back, one pickle."""
    everything = list(held.pop(ORIGIN))
    saved = [request.to_dict(spider=spider) for request in everything]
    with path.open("wb") as file:
        pickle.dump({"version": 2, "held": saved}, file, pickle.HIGHEST_PROTOCOL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1_000_000, help="held requests")
    parser.add_argument("--limit", type=int, default=1_000, help="REP_MAX_HELD_REQUESTS")
    parser.add_argument("--old", action="store_true", help="also measure the old pause")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        jobdir = Path(directory)
        start = time.perf_counter()
        held, spider = filled(jobdir, args.n, args.limit)
        print(f"held {len(held):,} requests ({held.in_memory:,} in memory) "
              f"in {time.perf_counter() - start:.0f} s")  # fmt: skip
        peak, seconds = measured(lambda: held.close(spider, "shutdown", None))
        size = (jobdir / STATE_FILE).stat().st_size
        print(f"pause:  peak {peak:8.1f} MB, {seconds:5.1f} s, state file {size / 1e3:,.0f} KB")
        crawler = get_crawler(Spider, {"JOBDIR": str(jobdir)})
        crawler.spider = spider
        engine = CountingEngine()
        peak, seconds = measured(lambda: HeldRequests(crawler, args.limit).resume(spider, engine))
        print(f"resume: peak {peak:8.1f} MB, {seconds:5.1f} s, {engine.count:,} scheduled again")
    if args.old:
        with tempfile.TemporaryDirectory() as directory:
            held, spider = filled(Path(directory), args.n, args.limit)
            path = Path(directory) / "old.state"
            peak, seconds = measured(lambda: old_pause(held, spider, path))
            print(f"old pause: peak {peak:8.1f} MB, {seconds:5.1f} s")


if __name__ == "__main__":
    main()
