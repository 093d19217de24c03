"""Scrapy's own robots.txt middleware left on beside ours (SPEC §5; docs/decisions.md,
'Scrapy's robots.txt middleware left on is switched off').

The add-on switches Scrapy's ``RobotsTxtMiddleware`` off. A project that lists ours in
``DOWNLOADER_MIDDLEWARES`` by hand and forgets the line that does it
(``"scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None``) would run both:
every robots.txt fetched twice, and Scrapy's middleware refusing requests with its own
reading. At the spider's start ours takes Scrapy's out of the downloader's middleware
chain, before any request goes through it, and says so in one WARNING.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyMiddleware

from scrapy_rep.crawl.internals import downloader_middleware

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

SCRAPY_MIDDLEWARE: Final = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"


def switch_off_scrapy_middleware(crawler: Crawler, engine: Any) -> bool:
    """Take Scrapy's robots.txt middleware out of ``engine``'s downloader middlewares;
    whether it was there."""
    manager = downloader_middleware(engine)
    if manager is None:
        return False
    theirs = [mw for mw in manager.middlewares if isinstance(mw, ScrapyMiddleware)]
    if not theirs:
        return False
    manager.middlewares = tuple(mw for mw in manager.middlewares if mw not in theirs)
    for methods in manager.methods.values():
        kept = [m for m in methods if getattr(m, "__self__", None) not in theirs]
        methods.clear()
        methods.extend(kept)
    logger.warning(
        "scrapy_rep: Scrapy's own robots.txt middleware (%s) was enabled beside "
        "scrapy_rep's; it is switched off for this crawl (each robots.txt would be "
        "fetched twice and obeyed twice). Use the add-on (ADDONS = "
        "{'scrapy_rep.Addon': 0}) or set it to None in DOWNLOADER_MIDDLEWARES.",
        SCRAPY_MIDDLEWARE,
        extra={"spider": crawler.spider},
    )
    if crawler.stats is not None:
        crawler.stats.set_value("rep/scrapy_middleware_switched_off", 1)
    return True
