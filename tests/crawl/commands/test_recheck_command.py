"""``scrapy rep-recheck``'s reading of a project's settings
(:func:`scrapy_rep.crawl.commands.project_settings`)."""

from __future__ import annotations

from scrapy.settings import SETTINGS_PRIORITIES, Settings

from scrapy_rep.crawl.commands import project_settings
from scrapy_rep.crawl.commands.recheck_crawl import crawl_settings


def test_only_what_a_project_or_the_command_line_set_is_read() -> None:
    settings = Settings()
    settings.setdict({"USER_AGENT": "mybot/1.0", "REP_PURPOSE": "search"}, priority="project")
    settings.set("LOG_LEVEL", "WARNING", priority="command")
    assert project_settings(settings) == {
        "USER_AGENT": "mybot/1.0",
        "REP_PURPOSE": "search",
        "LOG_LEVEL": "WARNING",
    }


def test_robotstxt_obey_left_at_scrapys_default_is_not_read_as_off() -> None:
    settings = Settings()
    assert settings.getbool("ROBOTSTXT_OBEY") is False  # Scrapy's default
    assert "ROBOTSTXT_OBEY" not in project_settings(settings)
    settings.set("ROBOTSTXT_OBEY", False, priority="project")
    assert project_settings(settings)["ROBOTSTXT_OBEY"] is False


def test_the_recheck_crawl_of_a_fresh_project_sets_no_default_as_its_own() -> None:
    """Scrapy's defaults, a deprecated one among them (``RANDOMIZE_DOWNLOAD_DELAY`` and
    ``DNS_RESOLVER`` in Scrapy 2.19), read as the project's made Scrapy warn in every
    recheck's crawl: they stay at Scrapy's default priority."""
    assert project_settings(Settings()) == {}
    crawl = Settings(crawl_settings(project_settings(Settings())))
    for name in ("RANDOMIZE_DOWNLOAD_DELAY", "DNS_RESOLVER", "ROBOTSTXT_OBEY"):
        if name in crawl:
            assert crawl.getpriority(name) == SETTINGS_PRIORITIES["default"], name
