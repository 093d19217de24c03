"""Whole-crawl property run over many seeds (tests/support/wholecrawl.py).

    python benchmarks/whole_crawl_properties.py --seeds 500 --start 0

Each seed builds its origins (robots.txt, tdmrep.json, RSL licenses, pages, media
files, delivered whole, chunked, slowly or cut), crawls them under settings drawn from
the same seed, and compares the servers' access log, the items, the stored files and
the audit trail with the oracle. Prints one line per seed, every violation with the
seed that reproduces it, and a summary; exits 1 on any violation.

Reproduce one seed: ``--seeds 1 --start SEED -v`` (with the run's ``--generation``,
``--user-agents`` and ``--slots``). ``--slots``: the slot-delay dimension (requests wait in
their download slots while robots.txt changes and overrides expire during the crawl).
``--workers``: the scrapy-redis dimension (two workers share one queue, are paused
mid-crawl and resumed; needs redis-server). ``--download-async``: callbacks fetch other
pages of the crawl themselves (``engine.download_async``) before they yield their item.
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
        for seed in range(args.start, args.start + args.seeds):
            if args.minutes and time.monotonic() - started > args.minutes * 60:
                print(f"time budget of {args.minutes} min reached", flush=True)
                break
            ran += 1
            with tempfile.TemporaryDirectory(prefix=f"wholecrawl-{seed}-") as tmp:
                t0 = time.monotonic()
                try:
                    result = await run_seed(
                        seed, Path(tmp), redis, args.generation, args.user_agents, args.slots,
                        args.workers, args.download_async,
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
            print(f"seed {seed}: {status} {took:.1f}s {counts} {result.settings}", flush=True)
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
            f"\nsummary: {ran} seed(s) from {args.start} in {elapsed:.0f} s; "
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
