"""The settings check at start (scrapy_rep/crawl/startup.py): outside the ``scrapy`` command
a wrong setting raises ``RepSettingError`` naming it (under it: one line and exit status 2,
tests/integration/test_setting_errors.py), among them an expired ``REP_OVERRIDES`` entry
and a ``ROBOTSTXT_OBEY`` that is no boolean (the engine's readers: tests/settings/), and a
crawl's own trail lock does not fail its settings checked again."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from rep_engine.trail.file import TrailFile, TrailFileError
from scrapy_rep import RepSettingError
from scrapy_rep.crawl.startup import validate
from tests.support.robotsite import BASE_SETTINGS
from tests.support.scrapyversions import needs_scrapy
from tests.support.trailfactory import write_trail


def test_outside_the_scrapy_command_the_error_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(RepSettingError, match=r"^REP_ROBOTSTXT_CACHE: .* needs the redis package"):
        validate({"REP_ROBOTSTXT_CACHE": "redis://127.0.0.1:1/0"})
    crawler = get_crawler(settings_dict={"REP_PROFILE": "gogle"})
    from scrapy_rep import RobotParser

    with pytest.raises(RepSettingError, match=r"^REP_PROFILE: "):
        RobotParser.from_crawler(crawler, b"")


def test_the_crawls_own_lock_does_not_fail_its_settings_checked_again(tmp_path: Path) -> None:
    """``RobotParser`` checks the settings again while the crawl runs, its trail open."""
    trail = write_trail(tmp_path / "trail.jsonl")
    writer = TrailFile(trail)
    try:
        validate({**BASE_SETTINGS, "REP_AUDIT_FILE": str(trail)})
        with pytest.raises(TrailFileError, match="is being written by another crawl"):
            TrailFile(trail)
    finally:
        writer.close()


@needs_scrapy((2, 15), "crawls without a reactor")
def test_without_a_reactor_httpxs_handler_without_httpx_stops_the_crawl(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Scrapy 2.15 to 2.18 download with their httpx handler without a reactor: without the
    httpx library every download fails (robots.txt first, each request waiting for it),
    so the crawl stops at start, naming the setting and the Scrapy release; a handler the
    project names instead, or the reactor, starts."""
    import scrapy

    from scrapy_rep.crawl import startup

    monkeypatch.setattr(startup, "httpx_missing", lambda: True)
    httpx = {"http": startup.HTTPX_HANDLER, "https": startup.HTTPX_HANDLER}
    without = {"TWISTED_REACTOR_ENABLED": False, "DOWNLOAD_HANDLERS": httpx}
    with pytest.raises(RepSettingError) as raised:
        validate(Settings(without))
    assert str(raised.value) == (
        f"TWISTED_REACTOR_ENABLED = False: Scrapy {scrapy.__version__} downloads http without "
        "a reactor with its httpx handler, and the httpx library it needs is not installed: "
        "pip install httpx, or crawl with the reactor"
    )
    other = "scrapy.core.downloader.handlers.datauri.DataURIDownloadHandler"
    validate(Settings({**without, "DOWNLOAD_HANDLERS": {"http": other, "https": None}}))
    validate(Settings({**without, "TWISTED_REACTOR_ENABLED": True}))
    monkeypatch.setattr(startup, "httpx_missing", lambda: False)
    validate(Settings(without))


def test_an_expired_override_refuses_the_crawl_at_start() -> None:
    """(An override in force is read: tests/settings/test_readers_overrides.py.)"""
    expired = [{"host": "Example.COM", "reason": "written permission of the site owner",
                "expires": "2020-01-01"}]  # fmt: skip
    crawler = get_crawler(settings_dict={"REP_OVERRIDES": expired})
    with pytest.raises(RepSettingError, match=r"expired \(authorized through 2020-01-01, UTC\)"):
        validate(crawler.settings)


@pytest.mark.parametrize("value", ["no", "yes", "on", 2, "TRUE"], ids=repr)
def test_robotstxt_obey_is_read_by_the_same_reader(value: Any) -> None:
    with pytest.raises(RepSettingError, match=r"^ROBOTSTXT_OBEY: expected a boolean "):
        validate(Settings({"ROBOTSTXT_OBEY": value}))
    assert validate(Settings({"ROBOTSTXT_OBEY": "false"})).report is False
