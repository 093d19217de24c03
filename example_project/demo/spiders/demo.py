"""A CrawlSpider that crawls the embedded demo site (or ``-a start_url=…``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import scrapy
from scrapy.http import HtmlResponse, Response
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

from demo.site import DemoSite, start_demo_site


class DemoSpider(CrawlSpider):
    """Follows every link of a site and yields one item per page."""

    name = "demo"
    rules = (Rule(LinkExtractor(deny_extensions=[]), callback="parse_item", follow=True),)

    def __init__(self, *args: Any, start_url: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.start_url = start_url
        self.site: DemoSite | None = None

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
