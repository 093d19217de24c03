"""Scrapy's own robots.txt middleware left on beside ours (SPEC §5; docs/decisions.md,
'Scrapy's robots.txt middleware left on is switched off'), and a project's own
``ROBOTSTXT_PARSER``, which ours does not use (docs/switching.md).

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
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import load_object

from scrapy_rep.crawl.internals import downloader_middleware
from scrapy_rep.crawl.robotparser import RobotParser

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


def warn_ignored_parser(crawler: Crawler) -> bool:
    """One WARNING when the project set ``ROBOTSTXT_PARSER`` to a parser other than
    :class:`scrapy_rep.RobotParser` while robots.txt is obeyed: Scrapy's middleware
    would read robots.txt with it, ours reads it with its own engine (``REP_PROFILE``).
    Whether it warned."""
    settings = crawler.settings
    if settings.getpriority("ROBOTSTXT_PARSER") in (None, SETTINGS_PRIORITIES["default"]):
        return False
    if not settings.getbool("ROBOTSTXT_OBEY"):
        return False  # Scrapy would not use it either
    parser = settings.get("ROBOTSTXT_PARSER")
    try:
        if (load_object(parser) if isinstance(parser, str) else parser) is RobotParser:
            return False
    except (ImportError, NameError, ValueError, AttributeError):
        pass  # a path that does not load is ignored all the same
    name = parser if isinstance(parser, str) else getattr(parser, "__qualname__", repr(parser))
    logger.warning(
        "scrapy_rep: ROBOTSTXT_PARSER = %r is ignored: scrapy_rep reads robots.txt with its "
        "own parser (REP_PROFILE chooses how it reads). Without the add-on, Scrapy's "
        "middleware uses your parser; see Switching from ROBOTSTXT_OBEY in the docs.",
        name,
        extra={"spider": crawler.spider},
    )
    return True
