"""Whole-crawl property run over many seeds (tests/support/wholecrawl.py).

    python benchmarks/whole_crawl_properties.py --seeds 500 --start 0

Each seed builds its origins (robots.txt, tdmrep.json, RSL licenses, pages, media
files, delivered whole, chunked, slowly or cut), crawls them under settings drawn from
the same seed, and compares the servers' access log, the items, the stored files and
the audit trail with the oracle. Prints one line per seed, every violation with the
seed that reproduces it, and a summary; exits 1 on any violation.

``--suite-seeds``: the seeds the suite held before it kept one per dimension
(tests/integration/test_whole_crawl_properties.py), each in its dimension; CI runs it
once (.ci/run, step 1).

Reproduce one seed: ``--seeds 1 --start SEED -v`` (with the run's ``--generation``,
``--user-agents``, ``--slots``, ``--workers`` and ``--download-async``). ``--slots``: the
slot-delay dimension (requests wait in their download slots while robots.txt changes and
overrides expire during the crawl). ``--workers``: the scrapy-redis dimension (two
workers share one queue, are paused mid-crawl and resumed; needs redis-server).
``--download-async``: callbacks fetch other pages of the crawl themselves
(``engine.download_async``) before they yield their item.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


#: The seeds tests/integration/test_whole_crawl_properties.py held before it kept one per
#: dimension, each with what it covers or found: (generation, user_agents, slots) -> seeds.
SUITE_SEEDS: dict[tuple[int, bool, bool], list[int]] = {
    # Generation 1, each passing on the code as it stood and covering a dimension:
    # 4 ai-input, small caches (1 origin, 2 KiB), JOBDIR, trail, a broken TIFF;
    # 5 ai-input, HTTP cache, Redis, six cut deliveries, broken files;
    # 17 ai-input, JOBDIR, trail, a cut document and a broken file;
    # 20 search + ai-train, 1 request at a time, HTTP cache, Redis, a tdmrep.json over
    # 500 KiB, three cut documents; 21 ai-train, 1 request, HTTP cache, cache of 1 origin;
    # 22 search + ai-train, Redis, AutoThrottle, retries; 23 search, 1 request, JOBDIR.
    # 3 (a license behind a redirect to ftp:), 11 (a redirect loop), 26 (a tdmrep.json
    # over 500 KiB downloading beside another document) and 65 (an MP4 cut inside its
    # XMP packet) each found a defect that lost a "no".
    (1, False, False): [3, 4, 5, 11, 17, 20, 21, 22, 23, 26, 65],
    # Generation 3, the media forms: 4 ai-input, JOBDIR pause/resume, 64 requests: an
    # ImageMagick raw profile, XMP only in a TIFF SubIFD, the qualified and
    # nested-description forms, a zTXt XMP chunk that does not inflate (fails closed).
    (3, False, False): [4],
    # Per-request User-Agents: 12 and 15 found that a request sent as another crawler or
    # a browser escaped the crawler's own group and the page's directives for the name it
    # was sent as; with an override (both dimensions), 130 found the oracle's robots.txt
    # merging groups when it dropped Disallow lines, 88 a record naming the sent-as name's
    # line beside the declared name, and 219 one whose override went past the sent-as
    # name's line before a later step refused it.
    (3, True, False): [12, 15, 88, 130, 219],
    # Slot delays: 0 (two robots.txt changed, JOBDIR, AutoThrottle, pages decided again as
    # they left their slot and held for the refresh).
    (3, False, True): [0],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument(
        "--minutes", type=float, default=0, help="stop after this long (0: run every seed)"
    )
    parser.add_argument(
        "--generation", type=int, default=3, help="the generator's revision (1, 2, 3; default 3)"
    )
    parser.add_argument("--no-redis", action="store_true", help="skip the Redis dimension")
    parser.add_argument(
        "--user-agents",
        action="store_true",
        help="some pages' requests carry their own User-Agent (another crawler's, a browser's)",
    )
    parser.add_argument(
        "--slots",
        action="store_true",
        help="requests wait in their download slots (DOWNLOAD_DELAY, Crawl-delay, AutoThrottle) "
        "while robots.txt changes and overrides expire during the crawl",
    )
    parser.add_argument(
        "--workers",
        action="store_true",
        help="two scrapy-redis workers share one queue, paused mid-crawl and resumed",
    )
    parser.add_argument(
        "--download-async",
        action="store_true",
        help="callbacks fetch other pages themselves (engine.download_async) before their item",
    )
    parser.add_argument(
        "--suite-seeds",
        action="store_true",
        help="the seeds the suite held before it kept one per dimension (SUITE_SEEDS), "
        "each in its own dimension (--seeds, --start, --generation, --user-agents and "
        "--slots are then ignored)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="every violation in full")
    parser.add_argument("--max-shown", type=int, default=8, help="violations shown per seed")
    args = parser.parse_args()

    from twisted.internet import asyncioreactor

    asyncioreactor.install()
    import logging

    from twisted.internet import defer

    logging.getLogger("scrapy").setLevel(logging.ERROR)
    logging.getLogger("scrapy_rep").setLevel(logging.ERROR)

    from tests.support.wholecrawl import RedisHolder, run_seed

    failing: dict[int, list[Any]] = {}
    by_prop: Counter[str] = Counter()
    seeds_by_prop: dict[str, list[int]] = {}
    totals: Counter[str] = Counter()
    untagged: list[int] = []
    redis = None if args.no_redis else RedisHolder()
    started = time.monotonic()

    async def run(_: Any) -> None:
        ran = 0
        if args.suite_seeds:
            runs = [
                (seed, *dimension, False, False)
                for dimension, seeds in SUITE_SEEDS.items()
                for seed in seeds
            ]
        else:
            runs = [
                (seed, args.generation, args.user_agents, args.slots, args.workers,
                 args.download_async)
                for seed in range(args.start, args.start + args.seeds)
            ]  # fmt: skip
        for seed, generation, user_agents, slots, workers, download_async in runs:
            if args.minutes and time.monotonic() - started > args.minutes * 60:
                print(f"time budget of {args.minutes} min reached", flush=True)
                break
            ran += 1
            with tempfile.TemporaryDirectory(prefix=f"wholecrawl-{seed}-") as tmp:
                t0 = time.monotonic()
                try:
                    result = await run_seed(
                        seed, Path(tmp), redis, generation, user_agents, slots, workers,
                        download_async,
                    )  # fmt: skip
                except Exception as error:  # a crash of the harness or the crawl
                    print(f"seed {seed}: CRASH {type(error).__name__}: {error}", flush=True)
                    failing[seed] = [f"crash: {error}"]
                    by_prop["crash"] += 1
                    seeds_by_prop.setdefault("crash", []).append(seed)
                    continue
                took = time.monotonic() - t0
            totals.update(result.counts)
            status = "ok" if not result.violations else f"{len(result.violations)} VIOLATION(S)"
            counts = " ".join(f"{k}={v}" for k, v in result.counts.items())
            where = (
                f"generation {generation}"
                + (", user agents" if user_agents else "")
                + (", slots" if slots else "")
                + (", workers" if workers else "")
                + (", download_async" if download_async else "")
            )
            print(
                f"seed {seed} ({where}): {status} {took:.1f}s {counts} {result.settings}",
                flush=True,
            )
            if result.violations:
                failing[seed] = result.violations
                props = {f"{v.prop}/{v.tag}" if v.tag else v.prop for v in result.violations}
                by_prop.update(props)
                for prop in props:
                    seeds_by_prop.setdefault(prop, []).append(seed)
                if any(not v.tag for v in result.violations):
                    untagged.append(seed)
                shown = result.violations if args.verbose else result.violations[: args.max_shown]
                for violation in shown:
                    print(f"    {violation}", flush=True)
                if len(shown) < len(result.violations):
                    print(f"    ... {len(result.violations) - len(shown)} more", flush=True)
        if redis is not None:
            redis.stop()
        elapsed = time.monotonic() - started
        print(
            f"\nsummary: {ran} seed(s)"
            + (" (the suite's)" if args.suite_seeds else f" from {args.start}")
            + f" in {elapsed:.0f} s; "
            f"{len(failing)} with violations",
            flush=True,
        )
        print("totals: " + " ".join(f"{k}={v}" for k, v in sorted(totals.items())))
        for prop, count in by_prop.most_common():
            seeds = seeds_by_prop[prop]
            listed = " ".join(map(str, seeds[:40])) + (" ..." if len(seeds) > 40 else "")
            print(f"  {prop}: {count} seed(s): {listed}")
        if failing:
            print(
                f"reproduce one: python benchmarks/whole_crawl_properties.py --seeds 1 "
                f"--start {min(failing)} --generation {args.generation} -v"
                + (" --user-agents" if args.user_agents else "")
                + (" --slots" if args.slots else "")
                + (" --workers" if args.workers else "")
                + (" --download-async" if args.download_async else "")
            )
        code[0] = 1 if failing else 0

    code = [2]
    from twisted.internet import reactor

    def go() -> None:
        d = defer.ensureDeferred(run(None))
        d.addErrback(lambda failure: failure.printTraceback())
        d.addBoth(lambda _: reactor.stop())  # type: ignore[attr-defined]

    reactor.callWhenRunning(go)  # type: ignore[attr-defined]
    reactor.run()  # type: ignore[attr-defined]
    return code[0]


if __name__ == "__main__":
    sys.exit(main())
