"""Load with faults (SPEC §7: no request lost silently): 100,000 requests over 2,000
misbehaving local origins.

A child process serves the seeded fault mix of ``tests/support/faultsite.py`` (robots.txt rules,
404, 403, 500 forever, 503 then recovery, 429 with ``Retry-After``, redirect chains of
1-8 hops and a loop, over 500 KiB, binary garbage, an HTML error page with status 200,
connection resets, stalls; pages with random ``X-Robots-Tag`` directives), one port per
origin. This process crawls every page of every origin with the add-on and reports
pages/s, peak memory (max RSS), robots.txt downloads, and the "nothing lost" accounting:
every URL downloaded, forbidden or dropped as unreachable exactly as the plan says, and
the servers' access log showing no forbidden page fetched.

Two variants of the same run, with the real settings that used to lose pages:

- ``--http-cache``: Scrapy's HTTP cache on (``HTTPCACHE_ENABLED``, a fresh folder), so
  robots.txt answers go through it as well;
- ``--held-limit N``: ``REP_MAX_HELD_REQUESTS = N``, so that most held requests are
  spilled to disk (the stat ``rep/requests/spilled`` is printed).

Usage: ``python benchmarks/load.py [--origins 2000] [--pages 50] [--http-cache]
[--held-limit N]`` (``--pages`` page URLs per origin; the default makes 100,000
requests). A few minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parents[1]  # tests.support.* from the checkout
REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
SETTINGS: dict[str, Any] = {
    "TWISTED_REACTOR": REACTOR,
    "ADDONS": {"scrapy_rep.Addon": 0},
    "CONCURRENT_REQUESTS": 64,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
    "DOWNLOAD_TIMEOUT": 5,
    "REP_ROBOTSTXT_TIMEOUT": 2,
    "REP_UNREACHABLE_RETRY_DELAY": 1,
    "REP_UNREACHABLE_MAX_WAIT": 10,
    "COOKIES_ENABLED": False,
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
}


def serve(origins: int, pages: int) -> None:
    """Child process: start the fault mix, print the plan, then the access log on request."""
    sys.path.insert(0, str(CHECKOUT))
    from scrapy.utils.reactor import install_reactor

    install_reactor(REACTOR)
    from twisted.internet import reactor, threads

    from tests.support.faultsite import AGENT, start_fault_mix

    plan = start_fault_mix(origins, extra_pages=max(0, pages - 5))
    assert SETTINGS.get("USER_AGENT", AGENT) == AGENT
    print(
        json.dumps(
            {
                "urls": plan.urls(),
                "expected": plan.expected(),
                "items": sorted(plan.expected_items()),
                "bases": plan.sites.bases,
                "kinds": {name: o.kind for name, o in plan.origins.items()},
            }
        ),
        flush=True,
    )

    def wait_for_parent() -> None:
        for line in sys.stdin:
            if line.strip() == "log":
                print(json.dumps(plan.sites.log), flush=True)
        reactor.callFromThread(reactor.stop)  # type: ignore[attr-defined]

    threads.deferToThread(wait_for_parent)
    reactor.run()  # type: ignore[attr-defined]


def crawl(plan: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    from scrapy import Request, Spider, signals
    from scrapy.crawler import CrawlerRunner
    from twisted.internet import defer, task

    from rep_engine.urls.origins import origin_of

    downloaded: list[str] = []
    failures: list[tuple[str, str]] = []
    items: list[str] = []

    class LoadSpider(Spider):
        name = "load"

        async def start(self) -> Any:
            for url in plan["urls"]:
                slot = str(origin_of(url))
                yield Request(url, errback=self.failed, meta={"download_slot": slot})

        def parse(self, response: Any) -> Any:
            downloaded.append(response.url)
            yield {"url": response.url}

        def failed(self, failure: Any) -> None:
            failures.append((failure.request.url, str(failure.value)))

    def collect(item: dict[str, str], **_: Any) -> None:
        items.append(item["url"])

    result: dict[str, Any] = {}

    async def go(_reactor: object) -> None:
        from tests.support.faultsite import AGENT

        runner = CrawlerRunner({**SETTINGS, "USER_AGENT": AGENT, **extra})
        crawler = runner.create_crawler(LoadSpider)
        crawler.signals.connect(collect, signal=signals.item_scraped)
        start = time.perf_counter()
        await runner.crawl(crawler)
        result["wall"] = time.perf_counter() - start
        result["stats"] = crawler.stats.get_stats() if crawler.stats else {}

    try:
        task.react(lambda reactor: defer.Deferred.fromCoroutine(go(reactor)))
    except SystemExit as exit_:
        if exit_.code:
            raise
    result.update(downloaded=downloaded, failures=failures, items=items)
    return result


def fate_of(message: str) -> str:
    if message.startswith("Forbidden by "):
        return "forbidden"
    if message.startswith("Dropped: robots.txt of ") and "unreachable" in message:
        return "unreachable"
    return "other: " + message[:200]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--origins", type=int, default=2000)
    parser.add_argument("--pages", type=int, default=50, help="page URLs per origin (>= 5)")
    parser.add_argument("--http-cache", action="store_true", help="HTTPCACHE_ENABLED")
    parser.add_argument("--held-limit", type=int, help="REP_MAX_HELD_REQUESTS")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(CHECKOUT))
    if args.serve:
        serve(args.origins, args.pages)
        return 0
    from scrapy.utils.reactor import install_reactor

    install_reactor(REACTOR)
    from scrapy.utils.log import configure_logging

    configure_logging({"LOG_LEVEL": "WARNING"})
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", f"--origins={args.origins}", f"--pages={args.pages}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    plan = json.loads(server.stdout.readline())
    extra: dict[str, Any] = {}
    if args.held_limit:
        extra["REP_MAX_HELD_REQUESTS"] = args.held_limit
    with tempfile.TemporaryDirectory(prefix="scrapy_rep-load-") as cache_dir:
        if args.http_cache:
            extra.update(HTTPCACHE_ENABLED=True, HTTPCACHE_DIR=cache_dir)
        result = crawl(plan, extra)
    server.stdin.write("log\n")
    server.stdin.flush()
    log: list[tuple[str, str]] = json.loads(server.stdout.readline())
    server.stdin.close()
    server.wait(timeout=30)

    expected: dict[str, str] = plan["expected"]
    actual = {url: "downloaded" for url in result["downloaded"]}
    actual.update({url: fate_of(message) for url, message in result["failures"]})
    outcomes = Counter(result["downloaded"]) + Counter(url for url, _ in result["failures"])
    twice = sum(1 for count in outcomes.values() if count > 1)
    missing = [url for url in expected if url not in actual]
    wrong = [url for url in expected if url in actual and actual[url] != expected[url]]
    forbidden_fetched = sum(
        1
        for name, path in log
        if path != "/robots.txt"
        and expected.get(plan["bases"][name] + path, "downloaded") != "downloaded"
    )
    robots = sum(1 for _, path in log if path == "/robots.txt")
    stats = result["stats"]
    pages = len(result["downloaded"])
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    fates = Counter(expected.values())
    print(f"extra settings: {extra or 'none'}")
    print(
        f"{len(plan['bases']):,} origins, {len(expected):,} requests "
        f"({fates['downloaded']:,} allowed, {fates['forbidden']:,} forbidden, "
        f"{fates['unreachable']:,} behind an unreachable robots.txt)\n"
    )
    print("| measure | value |")
    print("|---|---|")
    rows = [
        ("wall time", f"{result['wall']:.1f} s"),
        ("pages downloaded", f"{pages:,}"),
        ("pages/s", f"{pages / result['wall']:.0f}"),
        ("peak memory (max RSS, crawler process)", f"{peak_mb:.0f} MB"),
        ("robots.txt requests seen by the servers", f"{robots:,}"),
        ("  of which retries", f"{stats.get('rep/robotstxt/retries', 0):,}"),
        (
            "requests held, released",
            f"{stats.get('rep/requests/held', 0):,}, {stats.get('rep/requests/released', 0):,}",
        ),
        ("held requests spilled to disk", f"{stats.get('rep/requests/spilled', 0):,}"),
        ("dropped: forbidden", f"{stats.get('rep/requests/dropped/forbidden', 0):,}"),
        (
            "dropped: robots.txt unreachable",
            f"{stats.get('rep/requests/dropped/robotstxt_unreachable', 0):,}",
        ),
        ("URLs with no outcome (lost)", f"{len(missing):,}"),
        ("URLs with two outcomes", f"{twice:,}"),
        ("URLs whose outcome differs from the plan", f"{len(wrong):,}"),
        ("forbidden pages fetched from the servers", f"{forbidden_fetched:,}"),
        ("items kept = plan", str(set(result["items"]) == set(plan["items"]))),
    ]
    for name, value in rows:
        print(f"| {name} | {value} |")
    for url in wrong[:10]:
        print(f"differs: {url}: planned {expected[url]}, got {actual[url]}")
    ok = not (missing or twice or wrong or forbidden_fetched)
    print(f"\nnothing lost, nothing let through: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
