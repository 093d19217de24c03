"""scrapy-zyte-api in transparent mode with the add-on (docs/plugins.md,
"scrapy-zyte-api"): real crawls through a fake Zyte API on 127.0.0.1 (``ZYTE_API_URL``).

What it shows: in transparent mode the robots.txt request goes through Zyte API like
every other request (one API request per origin: a billed request), a page robots.txt
disallows is never sent to the API, and the recipe of docs/plugins.md (a downloader
middleware that sets ``zyte_api_automap = False`` on scrapy_rep's own requests) sends
robots.txt straight to the site instead.
"""

from __future__ import annotations

from typing import Any

import pytest_twisted
from pluginservers import FakeZyteApi, Pages, require_plugin, serving
from robotsite import Sites, crawl, robots

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
    api_url, stop = await serving(api)
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


@pytest_twisted.ensureDeferred
async def test_zyte_api_recipe_sends_robotstxt_straight_to_the_site() -> None:
    require_plugin("scrapy_zyte_api", "plugins")
    sites = Sites()
    site = sites.add("site")
    site.script("/robots.txt", robots(RULES))
    api = FakeZyteApi(PAGES)
    api_url, stop = await serving(api)
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
    api_url, stop = await serving(api)
    try:
        crawler, spider = await crawl(
            [f"{TARGET}/open", f"{TARGET}/private"], zyte_settings(api_url)
        )
    finally:
        await stop()
    assert api.asked[0] == f"{TARGET}/robots.txt"
    assert sorted(spider.downloaded) == [f"{TARGET}/open", f"{TARGET}/private"]
    assert crawler.stats.get_value("robotstxt/response_status_count/404") == 1
