"""The robots.txt middleware of each running crawl, as the spider-side components find it
(the early refusal, a page's RSL licenses, the check of a request as sent), without
importing it at run time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_rep.crawl.config import PerCrawler

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_rep.crawl.requests.downloadermiddlewares import RobotsTxtMiddleware

OWNERS: PerCrawler[RobotsTxtMiddleware] = PerCrawler("owner")


def owner_of(crawler: Crawler) -> RobotsTxtMiddleware | None:
    """The crawl's robots.txt middleware, once it is built."""
    return OWNERS.get(crawler)
