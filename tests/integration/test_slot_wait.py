"""The verdict holds when the request leaves (docs/decisions.md, 'The verdict holds when
the request leaves'): Scrapy runs the downloader middlewares when a request enters the
downloader; the request then waits in its download slot (``DOWNLOAD_DELAY``,
``Crawl-delay``, AutoThrottle, a long queue) before it is sent. What it was decided on
(an override's expiry, a robots.txt's freshness) is held against the moment it leaves,
and an origin's robots.txt never waits behind its pages. Real crawls of local origins,
the server's own arrival times."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import signals

from scrapy_rep.audit.verify import verify
from scrapy_rep.crawl.requests.owners import OWNERS
from tests.support.audittrail import url_records
from tests.support.robotsite import Sites, crawl, robots
from tests.support.scrapyversions import jitter

PERMISSION = "written permission of the site owner, 2026-11-01"


def arrivals(sites: Sites, name: str, prefix: str) -> list[float]:
    """When (``time.monotonic()``) the server got each request under ``prefix``."""
    origin = sites.origins[name]
    return sorted(t for path, times in origin.times.items() if path.startswith(prefix)
                  for t in times)  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_no_request_goes_past_its_override_after_the_expiry(tmp_path: Path) -> None:
    """16 requests robots.txt disallows enter the downloader at once under an override,
    then wait their turn 0.4 s apart; the override ends 1.5 s after the first page came
    back (the crawl's clock is moved on then: the expiry falls amid them however long the
    crawl took to start). None reaches the server once it has expired (the issue's crawl
    sent 16 of 21 after it, up to 31 s); those sent after it are refused by robots.txt,
    and their records say so."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    ends = int(time.time()) + 3600
    expires = datetime.fromtimestamp(ends, timezone.utc).isoformat()
    trail = tmp_path / "trail.jsonl"
    settings = {
        "CONCURRENT_REQUESTS": 16,
        "DOWNLOAD_DELAY": 0.4,
        **jitter(0),
        "REP_AUDIT_FILE": str(trail),
        "REP_OVERRIDES": [{"host": "127.0.0.1", "reason": PERMISSION, "expires": expires}],
    }
    ahead = [0.0]  # the crawl's clock less the real one

    def first_page(response: Any, **_: Any) -> None:
        if not ahead[0] and "/private/" in response.url:
            ahead[0] = ends - time.time() - 1.5  # the override ends 1.5 s from now

    def watch(crawler: Any) -> None:
        crawler.signals.connect(first_page, signal=signals.response_received, weak=False)
        crawler.signals.connect(
            lambda **_: setattr(OWNERS[crawler], "_clock", lambda: time.time() + ahead[0]),
            signal=signals.spider_opened,
            weak=False,
        )

    urls = [sites.url("a", f"/private/{n}") for n in range(16)]
    try:
        crawler, spider = await crawl(urls, settings, on_crawler=watch)
    finally:
        await sites.close()
    offset = time.time() - time.monotonic() + ahead[0]  # server time -> the crawl's clock
    sent = [t + offset for t in arrivals(sites, "a", "/private/")]
    assert sent and [t for t in sent if t >= ends] == []
    assert len(spider.downloaded) == len(sent) and len(spider.dropped) == 16 - len(sent)
    expired = crawler.stats.get_value("rep/requests/override_expired")
    assert expired == len(spider.dropped) >= 4
    assert crawler.stats.get_value("rep/requests/decided_at_send") >= expired
    for record in url_records(trail):
        if record["fate"] == "fetched":
            assert record["robots"]["overridden"] and record["sent_at"] < record["expires"]
            assert record["expires"] <= expires.replace("+00:00", ".000Z")
        else:
            assert record["robots"]["override_expired"]
    assert verify(trail).findings == []


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_pages_go_under_the_robots_txt_of_when_they_are_sent(tmp_path: Path) -> None:
    """``Crawl-delay: 1`` and a robots.txt fresh for 1 s: ``Allow: /``, then ``Disallow:
    /p``. 12 pages wait in the origin's slot, one a second. The refresh goes first in the
    slot, not behind them (the issue's waited 87 s), and no page reaches the server under
    the first robots.txt once the second was served (12 did, up to 62 s after)."""
    sites = Sites()
    origin = sites.add("a")
    origin.script(
        "/robots.txt",
        robots("User-agent: *\nAllow: /\nCrawl-delay: 1\n", **{"Cache-Control": "max-age=1"}),
        robots("User-agent: *\nDisallow: /p\nCrawl-delay: 1\n"),
    )
    trail = tmp_path / "trail.jsonl"
    settings = {
        "CONCURRENT_REQUESTS": 16,
        **jitter(0),
        "REP_CACHE_MIN_TTL": 0,
        "REP_AUDIT_FILE": str(trail),
    }
    urls = [sites.url("a", f"/p/{n}") for n in range(12)]
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    robots_times = origin.times["/robots.txt"]
    assert len(robots_times) == 2
    first, second = robots_times
    pages = arrivals(sites, "a", "/p/")
    # under v1 while it was fresh only (a margin for the reactor), none once v2 was served
    assert pages and all(t < min(first + 1 + 0.5, second) for t in pages)
    assert second - first < 1 + 2.5  # v1's second, then the refresh's turn (one gap)
    assert len(spider.downloaded) == len(pages) and len(spider.dropped) == 12 - len(pages)
    assert crawler.stats.get_value("rep/requests/decided_at_send")
    assert verify(trail).findings == []
