"""Fault injection (SPEC §4 outcomes, SPEC §7): 204 misbehaving origins crawled at once,
nothing lost, nothing let through.

Every origin on its own 127.0.0.1 port has a robots.txt behaviour from a seeded mix
(:mod:`faultsite`): rules, 404, 403, 500 forever, 503 then recovery, 429 with
``Retry-After``, redirect chains of 1-8 hops and a loop, a file over 500 KiB, binary
garbage, an HTML error page with status 200, connection resets, a stall past the
download timeout; its pages carry random ``X-Robots-Tag`` directives. The assertions
come from the servers' access log, the spider's callbacks and errbacks, and the stats.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest_twisted
from scrapy import Request, Spider, signals
from scrapy.utils.test import get_crawler
from twisted.internet import reactor
from twisted.internet.task import deferLater
from twisted.python.failure import Failure

from scrapy_rep import signals as rep_signals
from tests.support.audittrail import url_records
from tests.support.faultsite import AGENT, KINDS, PATHS, FaultPlan, start_fault_mix
from tests.support.robotsite import BASE_SETTINGS
from tests.support.scrapyversions import stop

ORIGINS = 12 * len(KINDS)  # 204
SETTINGS: dict[str, Any] = {
    **BASE_SETTINGS,
    "USER_AGENT": AGENT,
    "CONCURRENT_REQUESTS": 64,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 64,
    "DOWNLOAD_TIMEOUT": 1,
    "REP_UNREACHABLE_RETRY_DELAY": 0.25,
    "REP_UNREACHABLE_MAX_WAIT": 2.5,
    "LOG_LEVEL": "INFO",
}


class FaultSpider(Spider):
    """One item per page; every errback call recorded with its reason."""

    name = "faults"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = urls
        self.downloaded: list[str] = []
        self.failures: list[tuple[str, str]] = []

    async def start(self) -> Any:
        # The pages get 10 s (no page stalls; at DOWNLOAD_TIMEOUT = 1 s a busy machine timed
        # some out); robots.txt keeps the 1 s timeout that its stalls are about.
        for url in self.urls:
            yield Request(
                url, callback=self.parse, errback=self.failed, meta={"download_timeout": 10}
            )

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {"url": response.url}

    def failed(self, failure: Failure) -> None:
        self.failures.append((failure.request.url, str(failure.value)))  # type: ignore[attr-defined]


def fate_of(message: str) -> str:
    if message.startswith("Forbidden by "):
        return "forbidden"
    if message.startswith("Dropped: robots.txt of ") and "unreachable" in message:
        return "unreachable"
    return f"unexpected: {message}"


def timed_out(outcomes: list[str]) -> int:
    """How many of an origin's robots.txt downloads the crawl saw time out.

    ``DOWNLOAD_TIMEOUT`` is 1 s (for the stalling origins), and the servers share the
    crawl's reactor: on a loaded machine a download that must read 500 KiB (or any other)
    can take longer. That is the site's answer as a crawler sees it: unreachable, retried
    after ``REP_UNREACHABLE_RETRY_DELAY``; one more download the policy asks for."""
    return sum(o.startswith("unreachable (") and "TimeoutError" in o for o in outcomes)


def unreachable_downloads_at_most(elapsed: float) -> int:
    """How many times a robots.txt that never answers may be downloaded in a crawl of
    ``elapsed`` seconds (docs/behaviour.md, "Fetch outcomes"): each round of retries
    holds for ``REP_UNREACHABLE_MAX_WAIT`` (2.5 s: tries at 0, 0.25, 0.75, 1.75 and 2.5 s,
    one more allowed for a try our own queue delayed), then the give-up verdict lasts
    2.5 s, doubling each time, before a request may start the next round. A short crawl
    has two rounds (12); a crawl slowed by a loaded machine may reach a third."""
    max_wait = SETTINGS["REP_UNREACHABLE_MAX_WAIT"]
    rounds, start, lifetime = 0, 0.0, max_wait
    while start <= elapsed:
        rounds += 1
        start += max_wait + lifetime
        lifetime *= 2
    return 6 * rounds


def check_robots_downloads(
    plan: FaultPlan, outcomes: dict[str, list[str]], elapsed: float = 0.0
) -> None:
    """robots.txt once per origin and cache lifetime, plus the retries the policy asks:
    ``outcomes`` (origin URL -> what each download came to, in order, as the crawl told
    them) says which downloads timed out."""
    for name, origin in plan.origins.items():
        log = plan.sites.requested(name)
        robots = log.count("/robots.txt")
        kind = origin.kind
        told = outcomes[plan.sites.bases[name]]
        # a chain that timed out on a loaded machine is fetched again from its start, once
        # per timeout the crawl saw: each hop up to where it timed out asked once more. A
        # download that timed out may not have reached the server at all (its connection
        # still waiting on the loaded reactor): it is in the server's log or not.
        again = timed_out(told)
        if kind.startswith("redirect_") and kind != "redirect_loop":
            hops = int(kind.split("_")[1])
            assert 1 <= robots <= 1 + again, (name, robots, told)
            taken = [log.count(f"/hop{h}") for h in range(1, min(hops, 5) + 1)]
            assert all(1 <= n <= 1 + again for n in taken), (name, taken, told)
            assert log.count(f"/hop{min(hops, 5) + 1}") == 0, name  # the 6th hop is not taken
        elif kind == "redirect_loop":
            assert 1 <= robots <= 1 + again and 1 <= log.count("/loop") <= 1 + again, (name, told)
        elif kind in ("500_forever", "connection_reset", "stall"):
            most = max(origin.max_robots_downloads, unreachable_downloads_at_most(elapsed))
            assert 2 <= robots <= most, (name, robots, elapsed)
        else:
            # Each download beyond the policy's is one the crawl saw time out, no other.
            least = origin.max_robots_downloads
            assert least <= robots <= least + again, (name, robots, told)
        if kind == "over_500_kib":  # read once, cut at 500 KiB, whatever timed out before
            assert told[-1] == "200 (512,000 bytes, cut at 500 KiB)", (name, told)
            assert len(told) == robots, (name, told)


@pytest_twisted.ensureDeferred
async def test_204_faulty_origins_every_url_accounted_for_once(tmp_path: Path) -> None:
    plan = start_fault_mix(ORIGINS)
    urls = plan.urls()
    expected = plan.expected()
    audit = tmp_path / "audit.jsonl"
    crawler = get_crawler(FaultSpider, {**SETTINGS, "REP_AUDIT_FILE": str(audit)})
    items: list[str] = []

    def collect(item: dict[str, str], **_: Any) -> None:
        items.append(item["url"])

    crawler.signals.connect(collect, signal=signals.item_scraped)  # weakly referenced
    told: dict[str, list[str]] = defaultdict(list)  # what each robots.txt came to

    def fetched(origin: str, outcome: str, **_: Any) -> None:
        told[origin].append(outcome)

    crawler.signals.connect(fetched, signal=rep_signals.robotstxt_fetched)
    try:
        started = time.monotonic()
        await crawler.crawl(urls=urls)
        elapsed = time.monotonic() - started
    finally:
        await plan.sites.close()
    spider = crawler.spider
    assert isinstance(spider, FaultSpider)
    assert crawler.stats is not None
    stats = crawler.stats.get_stats()

    # Every URL has exactly one outcome: downloaded once, or one errback with one reason.
    outcomes = Counter(spider.downloaded) + Counter(url for url, _ in spider.failures)
    assert outcomes == Counter(urls)
    actual = {url: "downloaded" for url in spider.downloaded}
    actual.update({url: fate_of(message) for url, message in spider.failures})
    assert actual == expected
    assert Counter(expected.values())["downloaded"] > 0
    assert Counter(expected.values())["forbidden"] > 0
    assert Counter(expected.values())["unreachable"] > 0

    # The servers saw exactly the allowed pages, each once but for a page Scrapy's retry
    # sent again (one that timed out on a loaded machine), and no forbidden one.
    again = 0
    for name in plan.origins:
        pages = [path for path in plan.sites.requested(name) if path in PATHS]
        assert sorted(set(pages)) == sorted(
            path for path in PATHS if expected[plan.sites.url(name, path)] == "downloaded"
        ), name
        again += len(pages) - len(set(pages))
    assert again <= stats.get("retry/count", 0), (again, stats.get("retry/count"))

    # The counts of the reasons add up to the requests not downloaded.
    not_downloaded = len(urls) - len(spider.downloaded)
    dropped = stats.get("rep/requests/dropped/forbidden", 0) + stats.get(
        "rep/requests/dropped/robotstxt_unreachable", 0
    )
    assert dropped == not_downloaded
    assert stats.get("rep/requests/dropped/spider_closed") is None

    check_robots_downloads(plan, told, elapsed)
    assert set(items) == plan.expected_items()

    # The audit trail (REP_AUDIT_FILE) holds the same accounting: one record per URL, its
    # fate and reason, the robots.txt that decided, the items kept.
    records = url_records(audit)
    assert Counter(record["url"] for record in records) == Counter(urls)
    refused_by = {"robots.txt": "forbidden", "unreachable": "unreachable"}
    kept = plan.expected_items()
    for record in records:
        fate = expected[record["url"]]
        if fate == "downloaded":
            assert record["fate"] == "fetched" and record["status"] == 200, record
            items = (record["items_kept"], record["items_dropped"])
            assert items == ((1, 0) if record["url"] in kept else (0, 1)), record
        else:
            assert record["fate"] == "refused" and refused_by[record["refused_by"]] == fate, record
        if record.get("refused_by") == "unreachable":  # given up on: nothing was read
            assert "snapshot" not in record["robots"], record
            assert record["robots"]["why"].startswith("robots.txt unreachable"), record
        else:
            assert len(record["robots"]["snapshot"]) == 64, record


@pytest_twisted.ensureDeferred
async def test_stopped_half_way_and_resumed_with_jobdir_same_final_sets(
    tmp_path: Path,
) -> None:
    plan = start_fault_mix(3 * len(KINDS), seed=7)
    urls = plan.urls()
    expected = plan.expected()
    allowed = sorted(url for url, fate in expected.items() if fate == "downloaded")
    # Low concurrency, so that stopping at a third leaves most pages for the resumed run.
    settings = {**SETTINGS, "JOBDIR": str(tmp_path / "job"), "CONCURRENT_REQUESTS": 8}
    first = get_crawler(FaultSpider, settings)
    running = first.crawl(urls=urls)
    for _ in range(400):  # stop when a third of the allowed pages are in (at most 20 s)
        await deferLater(reactor, 0.05)
        spider = getattr(first, "spider", None)
        if spider is not None and len(spider.downloaded) >= len(allowed) // 3:
            break
    await stop(first)
    await running
    second = get_crawler(FaultSpider, settings)
    try:
        await second.crawl(urls=urls)
    finally:
        await plan.sites.close()
    spiders = [first.spider, second.spider]
    assert all(isinstance(s, FaultSpider) for s in spiders)
    downloaded = [url for s in spiders for url in s.downloaded]  # type: ignore[union-attr]
    failures = {url: fate_of(m) for s in spiders for url, m in s.failures}  # type: ignore[union-attr]
    assert 0 < len(first.spider.downloaded) < len(allowed)  # type: ignore[union-attr]
    assert sorted(set(downloaded)) == allowed
    assert failures == {url: fate for url, fate in expected.items() if fate != "downloaded"}
    # No forbidden page ever reached a server.
    for name in plan.origins:
        for path in plan.sites.requested(name):
            if path in PATHS:
                assert expected[plan.sites.url(name, path)] == "downloaded", (name, path)
