"""A real crawl of a local twisted.web site whose pages send the ``Robots-Tag`` header of
draft-illyes-repext-03 (a Structured Field List: ``*;nosnippet, ExampleBot;noindex``),
alone and beside ``X-Robots-Tag`` and the meta tags: its rules for ``*`` and for our
names drop items and links as ``X-Robots-Tag``'s do, another crawler's never does, and a
malformed member never lifts the "no" beside it."""

from __future__ import annotations

from typing import Any

import pytest_twisted
from scrapy import Request, signals
from scrapy.http import Response
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule
from scrapy.utils.test import get_crawler
from twisted.internet import reactor
from twisted.web.server import Site

from scrapy_rep import signals as rep_signals
from tests.support.robotsite import (
    HeaderPages,
    ItemSpider,
    Reply,
    Sites,
    collecting_items,
    crawl,
    robots,
    stat,
)

PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/": (
        {},
        "".join(
            f'<a href="/{name}">{name}</a>'
            for name in (
                "star-noindex",
                "other",
                "ours-nofollow",
                "malformed",
                "union",
                "snippet",
                "valued",
                "dated",
                "bare",
                "header-syntax",
                "header-syntax-other",
                "inner-list",
            )
        ),
    ),
    "/star-noindex": ({"Robots-Tag": "*;noindex"}, '<a href="/from-star">x</a>'),
    "/from-star": ({}, "a noindex page's links are followed"),
    "/other": ({"Robots-Tag": "OtherBot;noindex;nofollow"}, '<a href="/from-other">x</a>'),
    "/from-other": ({}, "another crawler's rules are not ours"),
    "/ours-nofollow": ({"Robots-Tag": "*;nosnippet, TestBot;nofollow"}, '<a href="/x1">x</a>'),
    "/x1": ({}, "must never be requested"),
    "/malformed": ({"Robots-Tag": '*;noindex, "broken'}, "dropped all the same"),
    "/union": ({"Robots-Tag": "*;nosnippet", "X-Robots-Tag": "testbot: noindex"}, ""),
    "/snippet": ({"Robots-Tag": "testbot;nosnippet"}, "kept for search"),
    # Any value but ?0 states a rule; a Date is unavailable_after's date.
    "/valued": ({"Robots-Tag": 'otherbot;nofollow, testbot;noindex="yes"'}, ""),
    "/dated": ({"Robots-Tag": "*;unavailable_after=@1577836800"}, ""),
    # X-Robots-Tag's syntax in the new header: a bare rule is for every crawler, a name's
    # rules for that crawler; an inner List's names each get its rules.
    "/bare": ({"Robots-Tag": "noindex"}, ""),
    "/header-syntax": ({"Robots-Tag": "testbot: noindex, nofollow"}, '<a href="/x2">x</a>'),
    "/x2": ({}, "must never be requested"),
    "/header-syntax-other": ({"Robots-Tag": "otherbot: noindex, nofollow"}, ""),
    "/inner-list": ({"Robots-Tag": "(otherbot testbot);noindex"}, ""),
}


class RobotsTagSpider(CrawlSpider):
    name = "robots_tag"
    rules = (Rule(LinkExtractor(), callback="parse_item", follow=True),)

    def __init__(self, start: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_url = start

    async def start(self) -> Any:
        yield Request(self.start_url)

    def parse_item(self, response: Response) -> Any:
        yield {"path": "/" + response.url.split("/", 3)[3]}


async def crawl_robots_tag_site(
    settings: dict[str, Any],
) -> tuple[set[str], set[str], list[dict[str, Any]], Any]:
    pages = HeaderPages(PAGES)
    port = reactor.listenTCP(0, Site(pages), interface="127.0.0.1")  # type: ignore[attr-defined]
    base = f"http://127.0.0.1:{port.getHost().port}"
    items: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    try:
        crawler = get_crawler(
            RobotsTagSpider,
            {
                "ADDONS": {"scrapy_rep.Addon": 0},
                "USER_AGENT": "TestBot/1.0",
                "LOG_LEVEL": "INFO",
                **settings,
            },
        )

        def collect(item: dict[str, Any], **_: Any) -> None:
            items.append(item)

        def item_refused(item: dict[str, Any], reason: str, message: str, **_: Any) -> None:
            refused.append({"path": item["path"], "reason": reason, "message": message})

        crawler.signals.connect(collect, signal=signals.item_scraped)
        crawler.signals.connect(item_refused, signal=rep_signals.item_refused)
        await crawler.crawl(start=base + "/")
    finally:
        await port.stopListening()
    return {item["path"] for item in items}, set(pages.requested), refused, crawler.stats


@pytest_twisted.ensureDeferred
async def test_repext03_robots_tag_gates_items_and_links_for_our_names() -> None:
    scraped, requested, refused, stats = await crawl_robots_tag_site({})
    # Items: * noindex, the malformed field's noindex and the union with X-Robots-Tag drop.
    assert scraped == {
        "/from-star", "/other", "/from-other", "/ours-nofollow", "/snippet",
        "/header-syntax-other",
    }  # fmt: skip
    by_path = {entry["path"]: entry for entry in refused}
    assert set(by_path) == {
        "/star-noindex", "/malformed", "/union", "/valued", "/dated", "/bare", "/header-syntax",
        "/inner-list",
    }  # fmt: skip
    assert by_path["/star-noindex"]["message"] == "noindex by header Robots-Tag: *;noindex"
    assert by_path["/malformed"]["reason"] == "noindex"
    assert by_path["/union"]["message"] == "noindex by header X-Robots-Tag: testbot: noindex"
    assert by_path["/valued"]["reason"] == "noindex"
    assert by_path["/dated"]["message"] == (
        "unavailable_after by header Robots-Tag: *;unavailable_after=@1577836800"
    )
    # Links: our nofollow is obeyed; another crawler's nofollow is not ours.
    assert {"/from-star", "/from-other"} <= requested
    assert "/x1" not in requested and "/x2" not in requested
    assert stats.get_value("rep/directives/items_dropped/noindex") == 7
    assert stats.get_value("rep/directives/requests_dropped/nofollow") == 2


@pytest_twisted.ensureDeferred
async def test_repext03_robots_tag_nosnippet_is_a_no_for_ai_input() -> None:
    scraped, _requested, refused, stats = await crawl_robots_tag_site({"REP_PURPOSE": "ai-input"})
    by_path = {entry["path"]: entry for entry in refused}
    for path in ("/ours-nofollow", "/snippet"):
        assert by_path[path]["reason"] == "purpose", path
        assert by_path[path]["message"].startswith("ai-input denied by Robots-Tag: "), path
    assert by_path["/union"]["reason"] == "noindex"  # the noindex gate comes first
    assert not scraped & {"/ours-nofollow", "/snippet", "/union"}
    assert {"/from-star", "/other"} <= scraped
    assert stats.get_value("rep/purpose/items_dropped/ai-input") == 2


@pytest_twisted.ensureDeferred
async def test_a_robots_tag_line_over_twisted_s_16_kib_fails_the_download_and_keeps_nothing() -> (
    None
):
    # Scrapy's HTTP/1.1 client reads a header line of at most 16 KiB (Twisted's
    # LineReceiver.MAX_LENGTH) and drops the connection on a longer one: the page is not
    # fetched, its callback never runs, nothing of it is kept. Up to the limit, the
    # field's rules are read.
    filler = ", ".join(f"bot{n};nosnippet" for n in range(1_200))
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    fits = "*;noindex, " + filler[: 16_384 - len("Robots-Tag: *;noindex, ") - 2]
    site.script("/fits", Reply(200, b"<p>x</p>", {"Content-Type": "text/html", "Robots-Tag": fits}))
    over = "*;noindex, " + filler[:17_000]
    site.script("/over", Reply(200, b"<p>x</p>", {"Content-Type": "text/html", "Robots-Tag": over}))
    items: list[dict[str, str]] = []
    try:
        crawler, spider = await crawl(
            [sites.url("a", "/fits"), sites.url("a", "/over")],
            spider=ItemSpider,
            on_crawler=collecting_items(items),
        )
    finally:
        await sites.close()
    assert len("Robots-Tag: " + fits) <= 16_384 < len("Robots-Tag: " + over)
    assert spider.downloaded == [sites.url("a", "/fits")]
    assert list(spider.dropped) == [sites.url("a", "/over")]
    assert items == []
    assert stat(crawler, "rep/items/dropped/noindex") == 1
