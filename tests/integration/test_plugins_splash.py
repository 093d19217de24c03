"""scrapy-splash with the add-on (docs/plugins.md, "scrapy-splash"): a real crawl whose
pages are rendered by a fake Splash on 127.0.0.1, over a site on 127.0.0.1.

What it shows: robots.txt is downloaded from the site itself, never through Splash (the
add-on's middleware, at 100, sees each request before ``SplashMiddleware`` (725) turns it
into a request to Splash); a page robots.txt disallows is never sent to Splash; an
allowed one is rendered by Splash and nothing of it reaches the site from Scrapy.
"""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
import scrapy
from scrapy import Request

from scrapy_rep.crawl.internals import SCRAPY
from tests.support.pluginservers import FakeSplash, Pages, require_plugin, serving_resource
from tests.support.robotsite import ListSpider, Sites, crawl, robots

RULES = "User-agent: *\nDisallow: /private\n"
PAGES: Pages = {
    "/open": (200, "text/html", b"<html><body>open, as rendered</body></html>"),
    "/private": (200, "text/html", b"<html><body>private, as rendered</body></html>"),
}

pytestmark = [
    # scrapy-splash 0.11.1 asks for a ``spider`` argument in its middleware methods, which
    # Scrapy 2.14 and newer deprecate (a warning is an error in this suite)...
    pytest.mark.filterwarnings(
        "ignore:.*requires a spider argument:scrapy.exceptions.ScrapyDeprecationWarning"
    ),
    # ...and imports w3lib's canonicalize_url from scrapy.utils.url, deprecated since
    # Scrapy 2.13 (and gone in 2.16: see splash() below).
    pytest.mark.filterwarnings(
        "ignore:The scrapy.utils.url.canonicalize_url function is deprecated"
        ":scrapy.exceptions.ScrapyDeprecationWarning"
    ),
]


def splash() -> None:
    """Skip unless scrapy-splash is installed and can be imported: its latest release
    (0.11.1) imports ``scrapy.utils.url.canonicalize_url``, which Scrapy 2.16 removed
    (https://github.com/scrapy-plugins/scrapy-splash/issues/332), so these tests run with
    Scrapy 2.13 to 2.15 (``.ci/run`` runs them with the lowest Scrapy)."""
    require_plugin("scrapy_splash", "test")
    try:
        import scrapy_splash  # noqa: F401
    except ImportError as error:
        if SCRAPY < (2, 16):
            raise
        pytest.skip(
            f"scrapy-splash cannot be imported with Scrapy {scrapy.__version__} "
            f"(https://github.com/scrapy-plugins/scrapy-splash/issues/332: {error})"
        )


class SplashSpider(ListSpider):
    """Requests each URL through Splash (``SplashRequest``)."""

    name = "splash"

    async def start(self) -> Any:
        from scrapy_splash import SlotPolicy, SplashRequest

        for url in self.urls:
            yield SplashRequest(
                url,
                self.parse,
                errback=self.failed,
                args={"wait": 0},
                slot_policy=SlotPolicy.SCRAPY_DEFAULT,
            )

    def parse(self, response: Any) -> None:
        # A Splash response keeps the URL of the page it rendered.
        self.downloaded.append(response.url)


def splash_settings(splash_url: str) -> dict[str, Any]:
    """scrapy-splash's README settings; the slot policy is Scrapy's own, as scrapy-splash
    0.11.1's default calls a ``Downloader`` method Scrapy 2.14 removed
    (https://github.com/scrapy-plugins/scrapy-splash/issues/330)."""
    return {
        "SPLASH_URL": splash_url,
        "SPLASH_SLOT_POLICY": "scrapy_default",
        "DOWNLOADER_MIDDLEWARES": {
            "scrapy_splash.SplashCookiesMiddleware": 723,
            "scrapy_splash.SplashMiddleware": 725,
            "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware": 810,
        },
        "REQUEST_FINGERPRINTER_CLASS": "scrapy_splash.SplashRequestFingerprinter",
    }


@pytest_twisted.ensureDeferred
async def test_splash_robotstxt_comes_from_the_site_and_disallowed_pages_never_reach_splash() -> (
    None
):
    splash()
    sites = Sites()
    site = sites.add("site")
    site.script("/robots.txt", robots(RULES))
    fake = FakeSplash(PAGES)
    splash_url, stop = await serving_resource(fake)
    try:
        crawler, spider = await crawl(
            [sites.url("site", "/open"), sites.url("site", "/private")],
            splash_settings(splash_url),
            spider=SplashSpider,
        )
    finally:
        await stop()
        await sites.close()
    assert sites.requested("site") == ["/robots.txt"]  # the pages went through Splash
    assert fake.asked == [sites.url("site", "/open")]
    assert fake.paths == ["/render.html"]  # Splash's own robots.txt never asked for
    assert spider.downloaded == [sites.url("site", "/open")]
    assert list(spider.dropped) == [sites.url("site", "/private")]
    assert "robots.txt" in spider.dropped[sites.url("site", "/private")]
    assert crawler.stats.get_value("robotstxt/request_count") == 1
    assert crawler.stats.get_value("splash/render.html/request_count") == 1


@pytest_twisted.ensureDeferred
async def test_splash_request_to_splash_itself_is_not_checked() -> None:
    """The request ``SplashMiddleware`` makes (to Splash, with ``dont_obey_robotstxt``) is
    not held against Splash's robots.txt: the page's own origin decided already."""
    splash()
    sites = Sites()
    site = sites.add("site")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    fake = FakeSplash(PAGES)
    splash_url, stop = await serving_resource(fake)
    try:
        crawler, spider = await crawl(
            [sites.url("site", "/open")], splash_settings(splash_url), spider=SplashSpider
        )
    finally:
        await stop()
        await sites.close()
    assert spider.downloaded == [sites.url("site", "/open")]
    assert fake.paths == ["/render.html"]
    assert crawler.stats.get_value("robotstxt/request_count") == 1


def test_splash_request_keeps_the_page_url_for_the_add_on() -> None:
    """The premise of the two crawls above: a ``SplashRequest`` is a request for the page
    until ``SplashMiddleware`` rewrites it, so the add-on (priority 100) decides on the
    page's URL."""
    splash()
    from scrapy_splash import SplashRequest

    request = SplashRequest("http://127.0.0.1:1/private", args={"wait": 0})
    assert isinstance(request, Request)
    assert request.url == "http://127.0.0.1:1/private"
    assert "dont_obey_robotstxt" not in request.meta
