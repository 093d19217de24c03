"""Scrapy's ``robots_parsed`` signal with sync and async handlers (SPEC §5).

Scrapy documents that ``robots_parsed`` supports asynchronous handlers, and its own
middleware awaits them (``send_catch_log_async``) before the requests waiting for that
robots.txt go on. Ours does the same.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest_twisted
from scrapy import signals

from scrapy_rep.crawl.robotparser import RobotParser
from tests.support.robotsite import Sites, crawl, robots
from tests.support.scrapyversions import needs_scrapy


@needs_scrapy((2, 18), "the robots_parsed signal")
@pytest_twisted.ensureDeferred
async def test_sync_and_async_robots_parsed_handlers_run_before_the_page() -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    events: list[str] = []

    def sync_handler(robotparser: Any, request: Any) -> None:
        assert isinstance(robotparser, RobotParser)
        events.append(f"sync {robotparser.allowed(sites.url('a', '/private'), 'TestBot')}")

    async def async_handler(robotparser: Any, request: Any) -> None:
        await asyncio.sleep(0.05)  # a handler that really waits
        events.append(f"async {robotparser.allowed(sites.url('a', '/page'), 'TestBot')}")

    def page(response: Any, request: Any, spider: Any) -> None:
        if not response.url.endswith("/robots.txt"):
            events.append("page")

    def connect(crawler: Any) -> None:
        crawler.signals.connect(sync_handler, signal=signals.robots_parsed, weak=False)
        crawler.signals.connect(async_handler, signal=signals.robots_parsed, weak=False)
        crawler.signals.connect(page, signal=signals.response_received, weak=False)

    try:
        _, spider = await crawl([sites.url("a", "/page")], on_crawler=connect)
    finally:
        await sites.close()
    assert spider.downloaded == [sites.url("a", "/page")]
    assert events == ["sync False", "async True", "page"]
