"""The demo's "crawl a real site instead" (``scrapy crawl demo -a start_url=…``; docs/demo.md)
stays on the start URL's site and stops at its bounds, against two local twisted.web
servers: the first links to the second under another host name (``localhost``), which
the crawl never asks for anything; a chain of links stops at ``DEPTH_LIMIT``, a wide
page at ``CLOSESPIDER_PAGECOUNT``."""

from __future__ import annotations

import sys
from typing import Any

import pytest
import pytest_twisted
from scrapy.crawler import Crawler, CrawlerRunner
from scrapy.utils.test import get_crawler, get_reactor_settings

from tests.support.paths import EXAMPLE_PROJECT
from tests.support.robotsite import Sites, links_page, robots

PROJECT = EXAMPLE_PROJECT


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, dict[str, Any], dict[str, int]]:
    """The demo spider, the project's settings and its real-site bounds."""
    monkeypatch.syspath_prepend(str(PROJECT))
    for name in [m for m in sys.modules if m == "demo" or m.startswith("demo.")]:
        monkeypatch.delitem(sys.modules, name)
    import demo.settings
    from demo.spiders.demo import REAL_SITE_BOUNDS, DemoSpider

    settings = {name: getattr(demo.settings, name) for name in dir(demo.settings) if name.isupper()}
    return DemoSpider, settings, dict(REAL_SITE_BOUNDS)


async def crawl_demo(spider: Any, settings: dict[str, Any], start_url: str) -> Crawler:
    """``scrapy crawl demo -a start_url=…`` in this process: a crawler whose settings the
    spider may still change, as under ``scrapy crawl`` (``get_crawler`` freezes them)."""
    runner = CrawlerRunner({**settings, **get_reactor_settings(), "LOG_LEVEL": "INFO"})
    crawler = runner.create_crawler(spider)
    await crawler.crawl(start_url=start_url)
    assert crawler.stats is not None
    return crawler


def test_the_bounds_are_what_the_docs_say(demo: Any) -> None:
    _, _, bounds = demo
    assert bounds == {"DEPTH_LIMIT": 2, "CLOSESPIDER_PAGECOUNT": 50}
    text = (PROJECT.parent / "docs" / "demo.md").read_text(encoding="utf-8")
    assert "`DEPTH_LIMIT = 2`" in text and "`CLOSESPIDER_PAGECOUNT = 50`" in text


@pytest_twisted.ensureDeferred
async def test_a_real_site_crawl_stays_on_its_host_and_stops_at_the_depth_limit(
    demo: Any,
) -> None:
    spider, settings, bounds = demo
    sites = Sites()
    first, second = sites.add("first"), sites.add("second")
    other = sites.bases["second"].replace("127.0.0.1", "localhost")  # another host
    first.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    for depth in range(6):  # /d0 -> /d1 -> ... and every page links to the other host
        first.script(f"/d{depth}", links_page(f"/d{depth + 1}", f"{other}/from-d{depth}"))
    second.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    try:
        crawler = await crawl_demo(spider, settings, sites.url("first", "/d0"))
    finally:
        await sites.close()
    assert sites.requested("second") == []  # not even its robots.txt
    depth = bounds["DEPTH_LIMIT"]
    pages = [f"/d{n}" for n in range(depth + 1)]
    assert sorted(sites.requested("first")) == sorted(["/robots.txt", *pages])
    assert crawler.stats.get_value("offsite/filtered") >= 1
    assert crawler.stats.get_value("request_depth_max") == depth


@pytest_twisted.ensureDeferred
async def test_a_real_site_crawl_stops_after_the_page_count(demo: Any) -> None:
    spider, settings, bounds = demo
    sites = Sites()
    first = sites.add("first")
    sites.add("second")
    other = sites.bases["second"].replace("127.0.0.1", "localhost")
    wide = [f"/w/{n}" for n in range(3 * bounds["CLOSESPIDER_PAGECOUNT"])]
    first.script("/", links_page(f"{other}/", *wide))
    try:
        crawler = await crawl_demo(spider, settings, sites.url("first", "/"))
    finally:
        await sites.close()
    assert sites.requested("second") == []
    assert crawler.stats.get_value("finish_reason") == "closespider_pagecount"
    responses = crawler.stats.get_value("response_received_count")
    count, in_flight = bounds["CLOSESPIDER_PAGECOUNT"], settings["CONCURRENT_REQUESTS"]
    # Those already on their way when the count is reached still arrive (the downloader
    # holds up to CONCURRENT_REQUESTS; 58 were seen for 50): far from the 151 unbounded.
    assert count <= responses <= count + 2 * in_flight
    assert len(sites.requested("first")) == responses


@pytest.mark.parametrize(
    ("start_url", "domain"),
    [
        ("https://example.com/", "example.com"),
        ("https://www.example.com/a", "example.com"),
        ("https://blog.example.com/", "blog.example.com"),
        ("http://www.localdomain:8080/", "www.localdomain"),
        ("http://127.0.0.1:8301/", "127.0.0.1"),
    ],
)
def test_the_site_is_the_start_urls_host(demo: Any, start_url: str, domain: str) -> None:
    spider, _, _ = demo
    assert spider(start_url=start_url).allowed_domains == [domain]


def test_the_embedded_demo_has_no_bound_and_no_domain(demo: Any) -> None:
    """Its five origins share 127.0.0.1 and its report (docs/demo.md) is the whole site."""
    spider, settings, bounds = demo
    crawler = get_crawler(spider, settings)
    spider.from_crawler(crawler)
    assert all(crawler.settings.getint(name) == 0 for name in bounds)
    assert getattr(spider(), "allowed_domains", None) is None
