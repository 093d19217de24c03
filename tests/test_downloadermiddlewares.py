"""The robots.txt middleware's Scrapy side: enabling, settings, requests it never checks.

The fetch decisions of SPEC §4 are tested on the pure state machine
(tests/test_lifecycle.py, tests/test_fetchprocedure.py) and in real crawls
(tests/test_integration_robotstxt.py, tests/test_real_settings.py).
"""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider
from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from scrapy_rep import Addon, RepSettingError, RobotsTxtMiddleware
from scrapy_rep.crawl.engine_fetch import RobotsTxtResponseGuard


@pytest_twisted.ensureDeferred
async def test_spec5_dont_obey_robotstxt_and_spec3_unchecked_schemes_pass_untouched() -> None:
    middleware = RobotsTxtMiddleware(get_crawler(Spider, {"ROBOTSTXT_OBEY": True}))
    for request in (
        Request("http://a.example/", meta={"dont_obey_robotstxt": True}),
        Request("data:,hello"),
        Request("file:///etc/hosts"),
    ):
        assert await middleware.process_request(request) is None
    assert middleware.held_requests() == {}


def test_robotstxt_obey_false_disables_the_middleware() -> None:
    with pytest.raises(NotConfigured):
        RobotsTxtMiddleware(get_crawler(Spider, {"ROBOTSTXT_OBEY": False}))


@pytest.mark.parametrize(
    ("name", "value", "accepted"),
    [
        ("REP_UNREACHABLE_ACTION", "retry", "'drop', 'allow'"),
        ("REP_CACHE_TTL", "a day", "a number"),
        ("REP_CACHE_MAX_ORIGINS", 0, "at least 1"),
        ("REP_CRAWL_DELAY_MAX", -1, "at least 0"),
        ("REP_OBEY_CRAWL_DELAY", "maybe", "a boolean"),
        ("REP_CACHE_MAX_TTL", 10, "at least 60"),  # below REP_CACHE_MIN_TTL
        ("REP_UNREACHABLE_RETRY_DELAY", 0, "at least 0.001"),
        ("REP_ROBOTSTXT_CACHE", "memcached://x", "'memory' or a Redis URL"),
        ("REP_ROBOTSTXT_CONCURRENCY", 0, "at least 1"),
        ("REP_MAX_HELD_REQUESTS", 0.5, "at least 1"),
        ("REP_LEASE_TIMEOUT", "soon", "a number"),
    ],
)
def test_spec5_wrong_settings_stop_the_crawl_naming_the_setting(
    name: str, value: Any, accepted: str
) -> None:
    settings = Settings({name: value})
    with pytest.raises(RepSettingError, match=name) as raised:
        Addon().update_settings(settings)
    assert accepted in str(raised.value)
    with pytest.raises(RepSettingError, match=name):
        RobotsTxtMiddleware(get_crawler(Spider, {"ROBOTSTXT_OBEY": True, name: value}))


def test_spec5_addon_replaces_scrapys_middleware_and_turns_obey_on() -> None:
    crawler = get_crawler(Spider, {"ADDONS": {Addon: 0}})
    settings = crawler.settings
    assert settings.getbool("ROBOTSTXT_OBEY") is True
    downloader = settings.getdict("DOWNLOADER_MIDDLEWARES")
    assert downloader["scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"] is None
    assert downloader[RobotsTxtMiddleware] == 100
    assert downloader[RobotsTxtResponseGuard] == 595
    assert "scrapy_rep.spidermiddlewares.PageDirectivesMiddleware" in {
        f"{c.__module__}.{c.__name__}" for c in settings.getdict("SPIDER_MIDDLEWARES")
    }
    kept_off = get_crawler(Spider, {"ADDONS": {Addon: 0}, "ROBOTSTXT_OBEY": False})
    assert kept_off.settings.getbool("ROBOTSTXT_OBEY") is False
