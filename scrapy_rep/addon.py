"""The one-line switch for the whole suite (SPEC §5): ``ADDONS = {"scrapy_rep.Addon": 0}``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.settings import SETTINGS_PRIORITIES

from scrapy_rep.crawl.engine_fetch import GUARD_PRIORITY, RobotsTxtResponseGuard
from scrapy_rep.downloadermiddlewares import RobotsTxtMiddleware
from scrapy_rep.report import RepReport
from scrapy_rep.settings import RepConfig
from scrapy_rep.spidermiddlewares import PageDirectivesMiddleware

if TYPE_CHECKING:
    from scrapy.settings import Settings

#: Scrapy's own robots.txt middleware, whose slot ours takes.
SCRAPY_MIDDLEWARE = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
DOWNLOADER_PRIORITY = 100
SPIDER_PRIORITY = 550
REPORT_PRIORITY = 500


class Addon:
    """Enables scrapy_rep: our robots.txt middleware in place of Scrapy's (which is
    switched off), the page-directives middleware, the end-of-crawl report (shown with
    ``REP_REPORT = True``), and ``ROBOTSTXT_OBEY = True`` unless the project set it to
    ``False`` itself."""

    def update_settings(self, settings: Settings) -> None:
        RepConfig.from_settings(settings)  # a wrong REP_* value stops the crawl here
        downloader = settings["DOWNLOADER_MIDDLEWARES"]
        downloader[SCRAPY_MIDDLEWARE] = None
        downloader[RobotsTxtMiddleware] = DOWNLOADER_PRIORITY
        downloader[RobotsTxtResponseGuard] = GUARD_PRIORITY
        settings["SPIDER_MIDDLEWARES"][PageDirectivesMiddleware] = SPIDER_PRIORITY
        settings["EXTENSIONS"][RepReport] = REPORT_PRIORITY  # off unless REP_REPORT
        if settings.getpriority("ROBOTSTXT_OBEY") == SETTINGS_PRIORITIES["default"]:
            settings.set("ROBOTSTXT_OBEY", True, priority="addon")
