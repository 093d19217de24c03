"""Setting names: a misspelled ``REP_*`` / ``ROBOTSTXT_*`` setting is named at start with
the closest real one, and the add-on's defaults are visible in the crawler's settings."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from scrapy.utils.test import get_crawler

from scrapy_rep.settings import SETTINGS
from scrapy_rep.settings.names import known_names, unknown_names, warning

ADDON = {"ADDONS": {"scrapy_rep.Addon": 0}}


@pytest.mark.parametrize(
    ("name", "closest"),
    [
        ("REP_PURPOSES", "REP_PURPOSE"),
        ("REP_PURPOSE_", "REP_PURPOSE"),
        ("rep_purpose", "REP_PURPOSE"),
        ("REP_AUDIT", "REP_AUDIT_FILE"),
        ("REP_CRAWLDELAY_MAX", "REP_CRAWL_DELAY_MAX"),
        ("ROBOTSTXT_OBAY", "ROBOTSTXT_OBEY"),
        ("REP_ZZZZZZZZ", None),
    ],
)
def test_misspelled_name_gets_the_closest_real_one(name: str, closest: str | None) -> None:
    assert unknown_names([name, "DOWNLOAD_DELAY", "REP_PROFILE"], known_names()) == [
        (name, closest)
    ]


def test_every_setting_of_the_table_is_known() -> None:
    """The check reads the one settings table: a setting added there is never reported."""
    names = [setting.name for setting in SETTINGS]
    assert unknown_names(names, known_names()) == []
    assert unknown_names(["REP_NEW_ONE"], known_names(["REP_NEW_ONE"])) == []


def test_addon_warns_at_start(caplog: pytest.LogCaptureFixture) -> None:
    settings = {**ADDON, "REP_PURPOSES": "ai-train", "rep_purpose": "ai-train", "REP_AUDIT": "a"}
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


def test_defaults_and_warning_in_a_real_project(tmp_path: Path) -> None:
    """``scrapy shell -c`` (a crawler's settings) shows the default; a misspelled name in
    the project's settings.py is named in the log."""
    scrapy = [sys.executable, "-m", "scrapy"]
    subprocess.run([*scrapy, "startproject", "proj"], cwd=tmp_path, check=True, capture_output=True)
    project = tmp_path / "proj"
    settings = project / "proj" / "settings.py"
    text = settings.read_text().replace("ADDONS = {}", 'ADDONS = {"scrapy_rep.Addon": 0}')
    settings.write_text(text + '\nREP_PURPOSES = "ai-train"\n')
    result = subprocess.run(
        [*scrapy, "shell", "-c", 'settings.get("REP_PROFILE")'],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "google"
    assert "WARNING: Unknown setting REP_PURPOSES is ignored: did you mean REP_PURPOSE?" in (
        result.stderr
    )
