"""The one-line switch for the whole suite (SPEC §5): ``ADDONS = {"scrapy_rep.Addon": 0}``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import load_object

from scrapy_rep.audit import AuditTrail
from scrapy_rep.check import EXIT_USAGE
from scrapy_rep.crawl.engine_fetch import GUARD_PRIORITY, RobotsTxtResponseGuard
from scrapy_rep.downloadermiddlewares import RobotsTxtMiddleware
from scrapy_rep.report import RepReport
from scrapy_rep.settings import RepConfig, RepSettingError
from scrapy_rep.spidermiddlewares import PageDirectivesMiddleware
from scrapy_rep.usage import TDM_PURPOSES

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings, Settings

#: Scrapy's own robots.txt middleware, whose slot ours takes.
SCRAPY_MIDDLEWARE = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
DOWNLOADER_PRIORITY = 100
SPIDER_PRIORITY = 550
REPORT_PRIORITY = 500
AUDIT_PRIORITY = 500


class Addon:
    """Enables scrapy_rep: our robots.txt middleware in place of Scrapy's (which is
    switched off), the page-directives middleware, the end-of-crawl report (shown with
    ``REP_REPORT = True``), the audit trail (written with ``REP_AUDIT_FILE``), and
    ``ROBOTSTXT_OBEY = True`` unless the project set it to ``False`` itself."""

    @classmethod
    def update_pre_crawler_settings(cls, settings: BaseSettings) -> None:
        """The project's and the command line's settings, checked before anything runs."""
        validate(settings)

    def update_settings(self, settings: Settings) -> None:
        validate(settings)  # with the spider's own settings too
        # A component the project lists by hand keeps its own entry and priority.
        setdefault = settings.setdefault_in_component_priority_dict
        settings.set_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", load_object(SCRAPY_MIDDLEWARE), None
        )
        setdefault("DOWNLOADER_MIDDLEWARES", RobotsTxtMiddleware, DOWNLOADER_PRIORITY)
        setdefault("DOWNLOADER_MIDDLEWARES", RobotsTxtResponseGuard, GUARD_PRIORITY)
        setdefault("SPIDER_MIDDLEWARES", PageDirectivesMiddleware, SPIDER_PRIORITY)
        setdefault("EXTENSIONS", RepReport, REPORT_PRIORITY)  # off unless REP_REPORT
        setdefault("EXTENSIONS", AuditTrail, AUDIT_PRIORITY)  # off unless REP_AUDIT_FILE
        if settings.getpriority("ROBOTSTXT_OBEY") == SETTINGS_PRIORITIES["default"]:
            settings.set("ROBOTSTXT_OBEY", True, priority="addon")
        wrap_media_pipelines(settings)


def wrap_media_pipelines(settings: Settings) -> None:
    """For crawls with ai-train or ai-input (and ``REP_MEDIA_USAGE``), every
    ``FilesPipeline`` subclass in ``ITEM_PIPELINES`` reads the statements inside the
    files it downloads (docs/media.md): the class gets the mixin, keeping its name."""
    from scrapy.pipelines.files import FilesPipeline

    from scrapy_rep.pipelines import with_media_usage

    config = RepConfig.from_settings(settings)
    if not config.media_usage or TDM_PURPOSES.isdisjoint(config.purpose):
        return
    for key, priority in list(settings.getdict("ITEM_PIPELINES").items()):
        if priority is None:
            continue
        try:
            pipeline = load_object(key) if isinstance(key, str) else key
        except (ImportError, NameError, ValueError, AttributeError):
            continue  # Scrapy names the wrong path itself when it loads the pipelines
        if isinstance(pipeline, type) and issubclass(pipeline, FilesPipeline):
            wrapped = with_media_usage(pipeline)
            if wrapped is not pipeline:
                settings.replace_in_component_priority_dict("ITEM_PIPELINES", pipeline, wrapped)


def validate(settings: BaseSettings) -> None:
    """Every ``REP_*`` setting (SPEC §5). A wrong one stops the crawl at start: under the
    ``scrapy`` command with one line naming the setting and exit status 2 (a usage
    error); in a program that runs a crawl itself, as :class:`RepSettingError`."""
    try:
        RepConfig.from_settings(settings)
    except RepSettingError as error:
        if not _under_scrapy_command():
            raise
        print(f"scrapy_rep: error: {error}", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_USAGE) from None


def _under_scrapy_command() -> bool:
    """Whether Scrapy's command line (``scrapy.cmdline.execute``) is running us."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "execute" and Path(code.co_filename).parts[-2:] == (
            "scrapy",
            "cmdline.py",
        ):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False
