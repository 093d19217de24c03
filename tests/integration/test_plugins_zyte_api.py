"""scrapy-zyte-api in transparent mode with the add-on (docs/plugins.md,
"scrapy-zyte-api"): real crawls through a fake Zyte API on 127.0.0.1 (``ZYTE_API_URL``).

What it shows: in transparent mode the robots.txt request goes through Zyte API like
every other request (one API request per origin: a billed request), a page robots.txt
disallows is never sent to the API, robots.txt is asked for as a plain HTTP request
whatever the page asks of the API, the origin's Crawl-delay spaces the pages in the
download slot scrapy-zyte-api gives them, and the recipe of docs/plugins.md (a downloader
middleware that sets ``zyte_api_automap = False`` on scrapy_rep's own requests) sends
robots.txt straight to the site instead.
"""

from __future__ import annotations

from typing import Any

import pytest_twisted
from scrapy import Request, signals
from scrapy.crawler import Crawler

from tests.support.pluginservers import FakeZyteApi, Pages, require_plugin, serving_resource
from tests.support.robotsite import ListSpider, Sites, crawl, robots
from tests.support.scrapyversions import jitter

RULES = "User-agent: *\nDisallow: /private\n"
PAGES: Pages = {
    "/robots.txt": (200, "text/plain", RULES.encode()),
    "/open": (200, "text/html", b"<html><body>open</body></html>"),
    "/private": (200, "text/html", b"<html><body>private</body></html>"),
}
#: A host that does not resolve: anything that reaches it did not go through the API.
TARGET = "http://zyte-target.invalid"


class RobotsTxtStraightToTheSite:
    """docs/plugins.md's recipe: scrapy_rep's own requests (robots.txt, tdmrep.json: the
    ``rep_robotstxt_for`` meta key) skip Zyte API and go to the site itself."""

    def process_request(self, request: Any, spider: Any = None) -> None:
        if "rep_robotstxt_for" in request.meta:
            request.meta["zyte_api_automap"] = False


def zyte_settings(api_url: str) -> dict[str, Any]:
    """scrapy-zyte-api's add-on (transparent mode) beside ours, with a fake API."""
    return {
        "ADDONS": {"scrapy_rep.Addon": 0, "scrapy_zyte_api.Addon": 500},
        "ZYTE_API_KEY": "a-test-key",
        "ZYTE_API_URL": f"{api_url}/v1/",
    }


@pytest_twisted.ensureDeferred
async def test_zyte_api_transparent_mode_robotstxt_goes_through_the_api_once() -> None:
    require_plugin("scrapy_zyte_api", "plugins")
    api = FakeZyteApi(PAGES)
    api_url, stop = await serving_resource(api)
    try:
        crawler, spider = await crawl(
            [f"{TARGET}/open", f"{TARGET}/private", f"{TARGET}/open?again=1"],
            zyte_settings(api_url),
        )
    finally:
        await stop()
    assert sorted(api.asked) == sorted(
        [f"{TARGET}/robots.txt", f"{TARGET}/open", f"{TARGET}/open?again=1"]
    )
    assert api.asked[0] == f"{TARGET}/robots.txt"  # asked first, once for the origin
    assert sorted(spider.downloaded) == [f"{TARGET}/open", f"{TARGET}/open?again=1"]
    assert list(spider.dropped) == [f"{TARGET}/private"]
    assert "robots.txt" in spider.dropped[f"{TARGET}/private"]
    assert crawler.stats.get_value("robotstxt/request_count") == 1
    assert crawler.stats.get_value("scrapy-zyte-api/success") == 3


class BrowserHtmlSpider(ListSpider):
    """Asks Zyte API for each page rendered by a browser (``browserHtml``)."""

    name = "browser_html"

    async def start(self) -> Any:
        for url in self.urls:
            meta = {"zyte_api_automap": {"browserHtml": True}}
            yield Request(url, self.parse, errback=self.failed, meta=meta)


@pytest_twisted.ensureDeferred
async def test_zyte_api_robotstxt_is_a_plain_request_and_crawl_delay_spaces_the_pages() -> None:
    """robots.txt takes the page's download slot (which scrapy-zyte-api's spider middleware
    gave it: ``zyte-api@…``) but not its Zyte API parameters: an HTTP request, never a
    browser render; and that slot has the origin's Crawl-delay floor."""
    require_plugin("scrapy_zyte_api", "plugins")
    pages = {**PAGES, "/robots.txt": (200, "text/plain", b"User-agent: *\nCrawl-delay: 0.2\n")}
    api = FakeZyteApi(pages)
    api_url, stop = await serving_resource(api)
    downloaded: list[tuple[str, str, float]] = []

    def watch(crawler: Crawler) -> None:
        def on_response(response: Any, request: Request, spider: Any) -> None:
            slot_key = request.meta.get("download_slot")
            slot = crawler.engine.downloader.slots.get(slot_key)  # type: ignore[union-attr]
            downloaded.append((request.url, slot_key, slot.delay if slot else -1.0))

        crawler.signals.connect(on_response, signal=signals.response_downloaded, weak=False)

    settings = {**zyte_settings(api_url), **jitter(0)}
    try:
        await crawl(
            [f"{TARGET}/open", f"{TARGET}/open?again=1"],
            settings,
            spider=BrowserHtmlSpider,
            on_crawler=watch,
        )
    finally:
        await stop()
    robots_query = api.queries[f"{TARGET}/robots.txt"]
    assert robots_query.get("httpResponseBody") is True
    assert "browserHtml" not in robots_query
    assert api.queries[f"{TARGET}/open"].get("browserHtml") is True
    slots = {url: (key, delay) for url, key, delay in downloaded}
    robots_slot, _ = slots[f"{TARGET}/robots.txt"]
    assert robots_slot.startswith("zyte-api@")
    for page_url in (f"{TARGET}/open", f"{TARGET}/open?again=1"):
        page_slot, delay = slots[page_url]
        assert page_slot == robots_slot
        assert delay >= 0.2


@pytest_twisted.ensureDeferred
async def test_zyte_api_recipe_sends_robotstxt_straight_to_the_site() -> None:
    require_plugin("scrapy_zyte_api", "plugins")
    sites = Sites()
    site = sites.add("site")
    site.script("/robots.txt", robots(RULES))
    api = FakeZyteApi(PAGES)
    api_url, stop = await serving_resource(api)
    settings = zyte_settings(api_url)
    settings["DOWNLOADER_MIDDLEWARES"] = {
        f"{__name__}.RobotsTxtStraightToTheSite": 50,  # before the add-on's (100)
    }
    try:
        crawler, spider = await crawl(
            [sites.url("site", "/open"), sites.url("site", "/private")], settings
        )
    finally:
        await stop()
        await sites.close()
    assert sites.requested("site") == ["/robots.txt"]  # only robots.txt, straight
    assert api.asked == [sites.url("site", "/open")]  # the pages through the API
    assert spider.downloaded == [sites.url("site", "/open")]
    assert list(spider.dropped) == [sites.url("site", "/private")]
    assert crawler.stats.get_value("scrapy-zyte-api/success") == 1


@pytest_twisted.ensureDeferred
async def test_zyte_api_a_404_robotstxt_through_the_api_allows_everything() -> None:
    """Zyte API passes the site's own status on (its ``statusCode``): a robots.txt the site
    does not have (404) means everything is allowed, as it would directly."""
    require_plugin("scrapy_zyte_api", "plugins")
    api = FakeZyteApi({path: page for path, page in PAGES.items() if path != "/robots.txt"})
    api_url, stop = await serving_resource(api)
    try:
        crawler, spider = await crawl(
            [f"{TARGET}/open", f"{TARGET}/private"], zyte_settings(api_url)
        )
    finally:
        await stop()
    assert api.asked[0] == f"{TARGET}/robots.txt"
    assert sorted(spider.downloaded) == [f"{TARGET}/open", f"{TARGET}/private"]
    assert crawler.stats.get_value("robotstxt/response_status_count/404") == 1
