"""Pages that real sites serve and that used to cost a page's output (docs/behaviour.md,
'Page-level directives'): a stray control byte inside a tag, UTF-16 pages, a robots meta
name written with character references, an item yielded from ``start()`` with the report
on.

Each test is a real crawl with the add-on against local origins.
"""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider, signals
from scrapy.linkextractors import LinkExtractor

from tests.support.robotsite import Reply, Sites, crawl, paths_of

HTML = {"Content-Type": "text/html; charset=utf-8"}


class LinkExtractorSpider(Spider):
    """One item per page, and every link of every page followed."""

    name = "follow"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = urls
        self.downloaded: list[str] = []
        self.items: list[str] = []
        self.dropped: dict[str, str] = {}

    async def start(self) -> Any:
        for url in self.urls:
            yield Request(url)

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {"url": response.url}
        for link in LinkExtractor().extract_links(response):
            yield Request(link.url)


def collect_items(items: list[str]) -> Any:
    def connect(crawler: Any) -> None:
        def scraped(item: dict[str, str], **_: Any) -> None:
            items.append(item["url"])

        crawler.signals.connect(scraped, signal=signals.item_scraped, weak=False)

    return connect


def utf8_page(body: bytes, **headers: str) -> Reply:
    return Reply(200, body, {**HTML, **headers})


async def crawl_site(pages: dict[str, Reply]) -> tuple[Sites, Any, list[str]]:
    sites = Sites()
    origin = sites.add("a")
    origin.script("/robots.txt", Reply(404))
    for path, reply in pages.items():
        origin.script(path, reply)
    items: list[str] = []
    try:
        crawler, _ = await crawl(
            [sites.url("a", "/")], spider=LinkExtractorSpider, on_crawler=collect_items(items)
        )
    finally:
        await sites.close()
    return sites, crawler, items


@pytest_twisted.ensureDeferred
async def test_a_stray_control_byte_in_a_tag_loses_neither_the_item_nor_the_links() -> None:
    body = (
        b'<html><head><meta name="description" content="x"\x01></head><body>'
        b'<a href="/next"\x01>next</a> <a href="/ad" rel="nofollow"\x01>ad</a></body></html>'
    )
    sites, crawler, items = await crawl_site(
        {"/": utf8_page(body), "/next": utf8_page(b"<p>next</p>")}
    )
    assert paths_of(sites, items) == {"/", "/next"}
    assert sites.requested("a").count("/ad") == 0  # its rel="nofollow" was still read
    assert crawler.stats.get_value("rep/directives/errors") is None  # nothing failed


@pytest_twisted.ensureDeferred
async def test_a_stray_control_byte_does_not_hide_a_noindex_on_the_same_page() -> None:
    body = (
        b'<html><head><meta name="description" content="x"\x01>'
        b'<meta name="robots" content="noindex, nofollow"></head>'
        b'<body><a href="/next">next</a></body></html>'
    )
    sites, _, items = await crawl_site({"/": utf8_page(body), "/next": utf8_page(b"<p>next</p>")})
    assert items == []
    assert sites.requested("a") == ["/robots.txt", "/"]


@pytest.mark.parametrize(
    ("name", "encoding", "headers"),
    [
        ("utf-16 with a BOM", "utf-16", {"Content-Type": "text/html"}),
        ("utf-16le by header", "utf-16-le", {"Content-Type": "text/html; charset=utf-16le"}),
        ("utf-32 by header", "utf-32", {"Content-Type": "text/html; charset=utf-32"}),
    ],
)
@pytest_twisted.ensureDeferred
async def test_a_noindex_nofollow_in_a_utf16_or_utf32_page_is_honoured(
    name: str, encoding: str, headers: dict[str, str]
) -> None:
    html = (
        '<html><head><meta name="robots" content="noindex, nofollow"></head>'
        '<body><a href="/next">next</a></body></html>'
    )
    reply = Reply(200, html.encode(encoding), headers)
    sites, _, items = await crawl_site({"/": reply, "/next": utf8_page(b"<p>next</p>")})
    assert items == [], name
    assert "/next" not in sites.requested("a"), name


@pytest.mark.parametrize("name", ["r&#111;bots", "&#x72;obots", "&#82;OBOTS"])
@pytest_twisted.ensureDeferred
async def test_a_robots_meta_name_written_with_character_references_counts(name: str) -> None:
    body = (
        f'<html><head><meta name="{name}" content="noindex, nofollow"></head>'
        '<body><a href="/next">next</a></body></html>'
    ).encode()
    sites, _, items = await crawl_site({"/": utf8_page(body), "/next": utf8_page(b"<p>next</p>")})
    assert items == []
    assert "/next" not in sites.requested("a")


class StartItemSpider(Spider):
    name = "start_item"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = urls
        self.downloaded: list[str] = []
        self.dropped: dict[str, str] = {}

    async def start(self) -> Any:
        yield {"from": "start"}
        for url in self.urls:
            yield Request(url)

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {"url": response.url}


@pytest_twisted.ensureDeferred
async def test_the_report_takes_an_item_from_start_without_an_error(tmp_path: Any) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", Reply(404))
    report = tmp_path / "report.txt"
    settings = {"REP_REPORT": True, "REP_REPORT_FILE": str(report)}
    try:
        # crawl() fails the test when anything is logged at ERROR.
        _, spider = await crawl([sites.url("a", "/")], settings, spider=StartItemSpider)
    finally:
        await sites.close()
    assert spider.downloaded == [sites.url("a", "/")]
    assert "downloaded (200); 1 item kept" in report.read_text()
