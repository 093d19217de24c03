"""scrapy-playwright with the add-on (docs/plugins.md, "scrapy-playwright"): a real crawl
whose pages are loaded by headless Chromium (Debian's ``chromium``, through Playwright's
``executable_path``: Playwright's own browser download needs the internet), over a site
on 127.0.0.1.

What it shows: robots.txt is downloaded by Scrapy's own HTTP handler (scrapy-playwright
hands every request without ``meta["playwright"]`` to it), not by the browser; a page
robots.txt disallows never reaches the browser; an allowed one is loaded by the browser,
and so are its images, scripts and other subresources, which the browser requests itself,
past every Scrapy middleware: robots.txt is not asked about them.
"""

from __future__ import annotations

from typing import Any

import pytest_twisted
from scrapy import Request

from tests.support.browser import chromium
from tests.support.pluginservers import require_plugin
from tests.support.robotsite import ListSpider, Reply, Sites, crawl, robots

RULES = "User-agent: *\nDisallow: /private\n"
#: A 1×1 GIF.
PIXEL = bytes.fromhex(
    "47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b"
)
OPEN_PAGE = b'<html><body>open <img src="/private/pixel.gif"></body></html>'


class BrowserSpider(ListSpider):
    """Requests each URL through the browser (``meta["playwright"]``)."""

    name = "browser"

    async def start(self) -> Any:
        for url in self.urls:
            yield Request(url, self.parse, errback=self.failed, meta={"playwright": True})


def playwright_settings(binary: str) -> dict[str, Any]:
    """scrapy-playwright's README settings, with the browser at ``binary``."""
    handler = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"
    return {
        "DOWNLOAD_HANDLERS": {"http": handler, "https": handler},
        "PLAYWRIGHT_BROWSER_TYPE": "chromium",
        "PLAYWRIGHT_LAUNCH_OPTIONS": {"executable_path": binary, "headless": True},
        "DOWNLOAD_TIMEOUT": 30,
    }


@pytest_twisted.ensureDeferred
async def test_playwright_robotstxt_by_scrapy_pages_by_the_browser_subresources_unchecked() -> None:
    require_plugin("scrapy_playwright", "plugins")
    binary = chromium()
    sites = Sites()
    site = sites.add("site")
    site.script("/robots.txt", robots(RULES))
    site.script("/open", Reply(200, OPEN_PAGE, {"Content-Type": "text/html"}))
    site.script("/private/pixel.gif", Reply(200, PIXEL, {"Content-Type": "image/gif"}))
    try:
        crawler, spider = await crawl(
            [sites.url("site", "/open"), sites.url("site", "/private")],
            playwright_settings(binary),
            spider=BrowserSpider,
        )
    finally:
        await sites.close()
    stats = crawler.stats.get_stats()
    assert spider.downloaded == [sites.url("site", "/open")]
    assert list(spider.dropped) == [sites.url("site", "/private")]
    assert "robots.txt" in spider.dropped[sites.url("site", "/private")]
    requested = sites.requested("site")
    assert requested.count("/robots.txt") == 1
    assert requested.count("/open") == 1
    assert "/private" not in requested  # the disallowed page reached nobody
    # robots.txt came through Scrapy's handler: the browser loaded one page, the one
    # document it requested, and the image of that page.
    assert stats.get("robotstxt/request_count") == 1
    assert stats.get("playwright/page_count") == 1
    assert stats.get("playwright/request_count/resource_type/document") == 1
    assert stats.get("playwright/request_count/resource_type/image") == 1
    # Today's behaviour, said in docs/plugins.md: the browser's own requests are not
    # checked, so the image under "Disallow: /private" was fetched.
    assert "/private/pixel.gif" in requested
