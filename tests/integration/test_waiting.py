"""A robots.txt that arrives as the crawl closes (``CLOSESPIDER_TIMEOUT``), just before,
at or just after it: every request held for it has one fate, told once (fetched, refused
by its rules, or dropped because the spider closed while it was held), never a page its
rules disallow downloaded; the trail says the same and verifies clean (every trail
written in the tests is verified as it closes). With ``JOBDIR`` the held requests are
kept instead, and the resumed crawl fetches each one once (SPEC §4; the held requests'
release: :mod:`scrapy_rep.crawl.documents.documents`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request
from scrapy.core.scheduler import Scheduler
from scrapy.utils.test import get_crawler

from tests.support.audittrail import url_records
from tests.support.robotsite import BASE_SETTINGS, ListSpider, Sites, crawl, robots, stat

PATHS = ("/1", "/2", "/3", "/private")
RULES = "User-agent: *\nDisallow: /private\n"


@pytest.mark.parametrize("delay", [0.8, 1.0, 1.2])
@pytest_twisted.ensureDeferred
async def test_a_robots_txt_arriving_as_the_crawl_closes_loses_no_request(
    tmp_path: Path, delay: float
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", replace(robots(RULES), delay=delay))
    urls = [sites.url("a", path) for path in PATHS]
    trail = tmp_path / "trail.jsonl"
    settings = {"CLOSESPIDER_TIMEOUT": 1, "REP_AUDIT_FILE": str(trail)}
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    private = sites.url("a", "/private")
    assert private not in spider.downloaded
    assert "/private" not in sites.requested("a")
    assert not set(spider.downloaded) & set(spider.dropped), (spider.downloaded, spider.dropped)
    told = set(spider.downloaded) | set(spider.dropped)
    records = url_records(trail)
    fates = {record["url"]: record["fate"] for record in records}
    assert len(fates) == len(records), "a URL with two records"
    for url in spider.downloaded:
        assert fates[url] == "fetched"
    for url, why in spider.dropped.items():
        assert fates[url] == "refused", (url, why)
        assert "spider closed" in why or "Forbidden" in why, why
    # A URL not told to the spider was held when it closed (its errback is not called
    # any more: the spider is closed), or still in Scrapy's scheduler (not downloaded,
    # not dropped: Scrapy's own); the trail says which.
    for url in set(urls) - told:
        record = next(r for r in records if r["url"] == url)
        assert record["fate"] in ("refused", "unfinished"), record
        if record["fate"] == "refused":
            assert "the spider closed (closespider_timeout) while it" in record["why"], record
    held = stat(crawler, "rep/requests/held") or 0
    released = stat(crawler, "rep/requests/released") or 0
    closed = stat(crawler, "rep/requests/dropped/spider_closed") or 0
    assert held == released + closed, (held, released, closed)


@pytest_twisted.ensureDeferred
async def test_held_requests_kept_at_the_close_are_each_fetched_once_on_resume(
    tmp_path: Path,
) -> None:
    """robots.txt comes after the close: the held requests are kept in JOBDIR, and the
    resumed crawl (robots.txt at once this time) fetches each allowed one once."""
    sites = Sites()
    slow = replace(robots(RULES), delay=1.5)
    sites.add("a").script("/robots.txt", slow, robots(RULES))
    urls = [sites.url("a", path) for path in PATHS]
    trail = tmp_path / "trail.jsonl"
    settings: dict[str, Any] = {
        "CLOSESPIDER_TIMEOUT": 1,
        "REP_AUDIT_FILE": str(trail),
        "JOBDIR": str(tmp_path / "job"),
    }
    try:
        first, one = await crawl(urls, settings)
        second, two = await crawl(urls, {**settings, "CLOSESPIDER_TIMEOUT": 0})
    finally:
        await sites.close()
    assert one.downloaded == [] and one.dropped == {}
    assert stat(first, "rep/requests/kept_for_resume") == 4
    assert stat(second, "rep/requests/resumed") == 4
    assert sorted(two.downloaded) == sorted(urls[:3])
    assert list(two.dropped) == [sites.url("a", "/private")]
    # robots.txt came while the first crawl closed (kept in JOBDIR's cache) or is asked
    # again; each page once
    pages = [path for path in sites.requested("a") if path != "/robots.txt"]
    assert sorted(pages) == ["/1", "/2", "/3"]
    fetched = [r["url"] for r in url_records(trail) if r["fate"] == "fetched"]
    assert sorted(fetched) == sorted(urls[:3])


class FailsOnce(Scheduler):
    """Scrapy's scheduler, which raises the first time it is given /2 back after it was
    held (a custom scheduler's bug, a shared queue whose server went away)."""

    failed = False

    def enqueue_request(self, request: Request) -> bool:
        if request.url.endswith("/2") and request.dont_filter and not FailsOnce.failed:
            FailsOnce.failed = True
            raise ConnectionError("the queue's server went away")
        return bool(super().enqueue_request(request))


@pytest_twisted.ensureDeferred
async def test_a_released_request_the_scheduler_will_not_take_is_dropped_with_a_record(
    tmp_path: Path,
) -> None:
    """The scheduler raises for one of the requests released when robots.txt comes: the
    others are fetched all the same, and that one is dropped with an ERROR saying why;
    its trail record is final (refused, internal error), and the trail verifies clean."""
    sites = Sites()
    sites.add("a").script("/robots.txt", replace(robots(RULES), delay=0.3))
    urls = [sites.url("a", path) for path in PATHS]
    trail = tmp_path / "trail.jsonl"
    settings = {**BASE_SETTINGS, "REP_AUDIT_FILE": str(trail), "SCHEDULER": FailsOnce}
    FailsOnce.failed = False
    crawler = get_crawler(ListSpider, settings)
    try:
        await crawler.crawl(urls=urls)
    finally:
        await sites.close()
    spider: Any = crawler.spider
    assert FailsOnce.failed
    assert sorted(spider.downloaded) == [sites.url("a", "/1"), sites.url("a", "/3")]
    assert stat(crawler, "rep/requests/released") == 3
    assert stat(crawler, "rep/requests/dropped/internal_error") == 1
    assert stat(crawler, "log_count/ERROR") == 1
    records = {record["url"]: record for record in url_records(trail)}
    assert len(records) == 4
    lost = records[sites.url("a", "/2")]
    assert lost["fate"] == "refused", lost
    assert "the scheduler did not take it back as it was released" in lost["why"], lost
