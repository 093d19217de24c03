"""A real crawl against a local twisted.web site: page directives gate items and links.

SPEC §6 "Effects in the crawl", end to end: a CrawlSpider with a LinkExtractor rule, the
spider middleware enabled the manual way, and a server on 127.0.0.1 serving a noindex
page, a nofollow page, an ``X-Robots-Tag: none`` PDF, ``unavailable_after`` in the past
and in the future, a crawler-scoped header and ``rel`` links.
"""

from __future__ import annotations

from typing import Any

import pytest_twisted
from scrapy import Request, signals
from scrapy.http import Response, TextResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule
from scrapy.utils.test import get_crawler
from twisted.internet import reactor
from twisted.web.server import Site

from tests.support.robotsite import HeaderPages

META = '<meta name="robots" content="{}">'
PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/": (
        {},
        "".join(
            f'<a href="{href}"{rel}>{href}</a>'
            for href, rel in [
                ("/noindex", ""),
                ("/nofollow", ""),
                ("/doc.pdf", ""),
                ("/expired", ""),
                ("/fresh", ""),
                ("/scoped", ""),
                ("/ad", ' rel="nofollow sponsored"'),
                ("/ugc", ' rel="ugc"'),
            ]
        ),
    ),
    "/noindex": ({}, META.format("noindex") + '<a href="/from-noindex">x</a>'),
    "/from-noindex": ({}, "reached through a noindex page"),
    "/nofollow": ({}, META.format("nofollow") + '<a href="/from-nofollow">x</a>'),
    "/from-nofollow": ({}, "must never be requested"),
    "/doc.pdf": ({"Content-Type": "application/pdf", "X-Robots-Tag": "none"}, "%PDF-1.4"),
    "/expired": ({}, META.format("unavailable_after: 2001-01-01")),
    "/fresh": ({}, META.format("unavailable_after: 2999-12-31")),
    "/scoped": (
        {"X-Robots-Tag": "otherbot: noindex, testbot: nofollow"},
        '<a href="/from-scoped">x</a>',
    ),
    "/from-scoped": ({}, "must never be requested"),
    "/ad": ({}, "must never be requested"),
    "/ugc": ({}, "user content"),
}


class DirectivesSpider(CrawlSpider):
    name = "directives"
    rules = (Rule(LinkExtractor(deny_extensions=[]), callback="parse_item", follow=True),)

    def __init__(self, start: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_url = start

    async def start(self) -> Any:
        yield Request(self.start_url)

    def parse_item(self, response: Response) -> Any:
        directives = response.meta.get("rep_directives")
        yield {
            "path": response.url.split(str(response.url).split("/")[2], 1)[1],
            "html": isinstance(response, TextResponse),
            "has_directives": directives is not None,
        }


@pytest_twisted.ensureDeferred
async def test_spec6_crawl_drops_noindex_items_and_nofollow_links() -> None:
    pages = HeaderPages(PAGES)
    port = reactor.listenTCP(0, Site(pages), interface="127.0.0.1")  # type: ignore[attr-defined]
    base = f"http://127.0.0.1:{port.getHost().port}"
    try:
        crawler = get_crawler(
            DirectivesSpider,
            {
                "USER_AGENT": "TestBot/1.0",
                "ROBOTSTXT_OBEY": False,
                "SPIDER_MIDDLEWARES": {"scrapy_rep.PageDirectivesMiddleware": 550},
                "LOG_LEVEL": "DEBUG",
            },
        )
        items: list[dict[str, Any]] = []

        def collect(item: dict[str, Any], **_: Any) -> None:
            items.append(item)

        crawler.signals.connect(collect, signal=signals.item_scraped)  # a weak reference
        await crawler.crawl(start=base + "/")
    finally:
        await port.stopListening()
    scraped = {item["path"] for item in items}
    assert all(item["has_directives"] for item in items)
    # Items: noindex, expired unavailable_after and the "none" PDF are dropped.
    assert scraped == {"/from-noindex", "/nofollow", "/fresh", "/scoped", "/ugc"}
    # Links: a noindex page's links are followed; a nofollow page's, the scoped header's
    # ("testbot: nofollow") and a rel="nofollow" link are not; rel="ugc" is.
    requested = set(pages.requested)
    assert {"/from-noindex", "/ugc", "/fresh", "/expired", "/doc.pdf"} <= requested
    assert not requested & {"/from-nofollow", "/from-scoped", "/ad"}
    stats = crawler.stats
    assert stats is not None
    assert stats.get_value("rep/directives/items_dropped/noindex") == 2  # /noindex, /doc.pdf
    assert stats.get_value("rep/directives/items_dropped/unavailable_after") == 1
    assert stats.get_value("rep/directives/requests_dropped/nofollow") == 2
    assert stats.get_value("rep/directives/requests_dropped/rel_nofollow") == 1
