"""The add-on at start (scrapy_rep/crawl/addon.py): a misspelled setting name stops the
crawl, or is a WARNING under ``REP_UNKNOWN_SETTINGS = "warn"`` (the check itself:
tests/crawl/test_startup_names.py), and the add-on's defaults are visible in the
crawler's settings."""

from __future__ import annotations

import logging

import pytest
from scrapy.utils.test import get_crawler

from rep_engine.settings.names import warning
from rep_engine.settings.readers import RepSettingError

ADDON = {"ADDONS": {"scrapy_rep.Addon": 0}}


def test_addon_refuses_at_start() -> None:
    with pytest.raises(RepSettingError, match=r"^REP_PURPOSES: unknown setting, did you"):
        get_crawler(settings_dict={**ADDON, "REP_PURPOSES": "ai-train"})


def test_addon_warns_at_start_with_warn(caplog: pytest.LogCaptureFixture) -> None:
    settings = {
        **ADDON,
        "REP_UNKNOWN_SETTINGS": "warn",
        "REP_PURPOSES": "ai-train",
        "rep_purpose": "ai-train",
        "REP_AUDIT": "a",
    }
    with caplog.at_level(logging.WARNING, logger="scrapy_rep.crawl.addon"):
        get_crawler(settings_dict=settings)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        warning("REP_AUDIT", "REP_AUDIT_FILE"),
        warning("REP_PURPOSES", "REP_PURPOSE"),
        warning("rep_purpose", "REP_PURPOSE"),
    ]
    assert warnings[1] == "Unknown setting REP_PURPOSES is ignored: did you mean REP_PURPOSE?"


def test_addon_defaults_are_in_the_crawlers_settings() -> None:
    crawler = get_crawler(settings_dict={**ADDON, "REP_CACHE_TTL": 5})
    assert crawler.settings.get("REP_PROFILE") == "google"
    assert crawler.settings.getpriority("REP_PROFILE") == 15  # "addon"
    assert crawler.settings.get("REP_CACHE_TTL") == 5  # the project's value stays
    assert crawler.settings.get("REP_OBEY_CRAWL_DELAY") is True
    assert crawler.settings.get("REP_ROBOTSTXT_CONCURRENCY") is None  # derived: left unset
