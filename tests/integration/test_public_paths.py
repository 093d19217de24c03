"""The add-on registers its components by the paths the docs give them
(``"scrapy_rep.RobotsTxtMiddleware"``…, docs/usage.md), so the lists of enabled
components Scrapy logs at the start of a crawl name what the docs name, never a private
module of the package."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Spider
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler

import scrapy_rep
from scrapy_rep.crawl.addon import Addon
from scrapy_rep.crawl.auditing import ledger_of
from tests.support.robotsite import Sites, crawl, robots

#: Every component the add-on enables (the audit trail's middleware with a trail).
REGISTERED = {
    "DOWNLOADER_MIDDLEWARES": [
        "scrapy_rep.RobotsTxtMiddleware",
        "scrapy_rep.SentRequestCheck",
        "scrapy_rep.RobotsTxtResponseGuard",
        "scrapy_rep.AuditMiddleware",
    ],
    "SPIDER_MIDDLEWARES": ["scrapy_rep.PageDirectivesMiddleware"],
    "EXTENSIONS": ["scrapy_rep.RepReport", "scrapy_rep.AuditTrail"],
}


def enabled_lists(caplog: pytest.LogCaptureFixture) -> dict[str, str]:
    """Scrapy's "Enabled …s:" start-up lines, by kind of component."""
    found = {}
    for record in caplog.records:
        message = record.getMessage()
        head = re.match(r"Enabled ([a-z ]+):\n", message)
        if head:
            found[head[1]] = message[head.end() :]
    return found


@pytest_twisted.ensureDeferred
async def test_the_start_up_log_names_the_components_by_their_public_paths(
    caplog: pytest.LogCaptureFixture, tmp_path: Any
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow:\n"))
    settings = {"REP_AUDIT_FILE": str(tmp_path / "trail.jsonl"), "REP_REPORT": True}
    try:
        with caplog.at_level(logging.INFO):
            await crawl([sites.url("a", "/")], settings)
    finally:
        await sites.close()
    lists = enabled_lists(caplog)
    assert set(lists) >= {"downloader middlewares", "spider middlewares", "extensions"}
    for kind, text in lists.items():
        assert "scrapy_rep.crawl" not in text, (kind, text)
    downloader = lists["downloader middlewares"]
    for path in REGISTERED["DOWNLOADER_MIDDLEWARES"]:
        assert f"'{path}'" in downloader, downloader
    assert "'scrapy_rep.PageDirectivesMiddleware'" in lists["spider middlewares"]
    assert "'scrapy_rep.RepReport'" in lists["extensions"]
    assert "'scrapy_rep.AuditTrail'" in lists["extensions"]
    assert lists["addons"] == "[<scrapy_rep.Addon>]"


@pytest.mark.trail_not_verified("a crawler that never crawls: its trail has no run")
def test_every_registered_path_is_a_public_name_of_the_package(tmp_path: Path) -> None:
    trail = str(tmp_path / "trail.jsonl")  # the start-up check creates it
    crawler = get_crawler(Spider, {"ADDONS": {Addon: 0}, "REP_AUDIT_FILE": trail})
    for setting, paths in REGISTERED.items():
        keys = crawler.settings.getdict(setting)
        for path in paths:
            assert path in keys, (setting, path)
            assert path.split(".")[1] in scrapy_rep.__all__
            assert load_object(path) is getattr(scrapy_rep, path.split(".")[1])
    # The crawler never crawls, so nothing closes its trail: closed here, not by the
    # garbage collector during a later test (a ResourceWarning there).
    writer = ledger_of(crawler)
    assert writer is not None
    writer.writer.file.close()  # type: ignore[attr-defined]


def test_a_component_listed_by_hand_under_its_module_path_is_not_registered_twice() -> None:
    private = "scrapy_rep.crawl.requests.downloadermiddlewares.RobotsTxtMiddleware"
    crawler = get_crawler(Spider, {"ADDONS": {Addon: 0}, "DOWNLOADER_MIDDLEWARES": {private: 120}})
    keys = crawler.settings.getdict("DOWNLOADER_MIDDLEWARES")
    assert keys[private] == 120
    assert "scrapy_rep.RobotsTxtMiddleware" not in keys
