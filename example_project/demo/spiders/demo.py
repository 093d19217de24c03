"""A CrawlSpider that crawls the embedded demo site (or ``-a start_url=…``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Final
from urllib.parse import urlsplit

import scrapy
from scrapy.crawler import Crawler
from scrapy.http import HtmlResponse, Response
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

from demo.site import DemoSite, start_demo_site

#: The bounds of a crawl of a real site (``-a start_url=…``), at spider priority so that
#: ``-s`` overrides them: links at most 2 deep from the start URL, and the crawl stops
#: after 50 responses (robots.txt ones included; the few already on their way still
#: arrive).
REAL_SITE_BOUNDS: Final = {"DEPTH_LIMIT": 2, "CLOSESPIDER_PAGECOUNT": 50}


class DemoSpider(CrawlSpider):
    """Follows every link of a site and yields one item per page.

    Without arguments it starts the embedded demo site (five origins on 127.0.0.1) and
    crawls all of it, unbounded: the report in docs/demo.md. With ``-a
    start_url=https://example.com/`` it crawls that site instead, and only that site:

    - links to other hosts are not followed: ``allowed_domains`` is the start URL's host
      (with its subdomains; ``www.example.com`` gives ``example.com``), which Scrapy's
      ``OffsiteMiddleware`` enforces;
    - ``DEPTH_LIMIT = 2``: the start page, the pages it links to, and theirs;
    - ``CLOSESPIDER_PAGECOUNT = 50``: the crawl stops after 50 responses.

    Both bounds are spider settings (:data:`REAL_SITE_BOUNDS`): ``-s DEPTH_LIMIT=…`` or
    ``-s CLOSESPIDER_PAGECOUNT=…`` changes them (``0``: no limit).
    """

    name = "demo"
    rules = (Rule(LinkExtractor(deny_extensions=[]), callback="parse_item", follow=True),)

    def __init__(self, *args: Any, start_url: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.start_url = start_url
        self.site: DemoSite | None = None
        if start_url is not None:
            self.allowed_domains = [site_domain(start_url)]

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> DemoSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.start_url is not None:  # a real site: bounded (the settings are not frozen yet)
            crawler.settings.setdict(REAL_SITE_BOUNDS, priority="spider")
        return spider

    async def start(self) -> AsyncIterator[Any]:
        if self.start_url is None:
            self.site = start_demo_site()
            self.start_url = self.site.bases["shop"] + "/"
            self.logger.info("demo site started: %s", ", ".join(self.site.bases.values()))
        yield scrapy.Request(self.start_url)

    def parse_start_url(self, response: Response, **kwargs: Any) -> Iterator[dict[str, Any]]:
        return self.parse_item(response)

    def parse_item(self, response: Response) -> Iterator[dict[str, Any]]:
        title = None
        if isinstance(response, HtmlResponse):
            title = response.css("title::text").get()
        directives = response.meta.get("rep_directives")
        yield {
            "url": response.url,
            "status": response.status,
            "title": title,
            "directives": str(directives) if directives is not None else None,
        }

    def closed(self, reason: str) -> None:
        if self.site is not None:
            self.site.stop()


def site_domain(start_url: str) -> str:
    """The domain a real-site crawl keeps to: the start URL's host, without a leading
    ``www.`` (``www.example.com`` -> ``example.com``, whose subdomains it includes)."""
    host = urlsplit(start_url).hostname
    if not host:
        raise ValueError(f"start_url {start_url!r}: give a URL with http:// or https://")
    if host.startswith("www.") and host.count(".") >= 2:
        return host.removeprefix("www.")
    return host
