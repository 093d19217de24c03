"""The robots.txt middleware's Scrapy side: enabling, settings, requests it never checks.

The fetch decisions of SPEC §4 are tested on the pure state machine
(tests/fetch/lifecycle/test_lifecycle.py, tests/fetch/test_procedure.py) and in real crawls
(tests/integration/test_robotstxt.py, tests/integration/test_real_settings.py).
"""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobotsTxtMiddleware
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from scrapy_rep import (
    Addon,
    RepConfig,
    RepSettingError,
    RobotsTxtMiddleware,
)
from tests.support.scrapyversions import enabled_components


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
        ("REP_PURPOSE", "training", "'search', 'ai-train', 'ai-input'"),
        ("REP_PURPOSE", ["search", "rag"], "'search', 'ai-train', 'ai-input'"),
        ("REP_PURPOSE", [], "'search', 'ai-train', 'ai-input'"),
        ("REP_PURPOSE_ACTION", "delete", "'drop', 'mark'"),
        ("REP_PURPOSE_UNKNOWN", "maybe", "'allow', 'deny'"),
        ("REP_PURPOSE_AGENTS", 42, "a list of strings"),
        ("REP_AUDIT_FILE", 42, "a string"),
        ("REP_AUDIT_REQUIRED", "maybe", "a boolean"),
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


@pytest.mark.parametrize(
    ("value", "purposes"),
    [
        ("ai-train", ("ai-train",)),
        ("AI-Input, search", ("ai-input", "search")),
        (["search", "ai-train", "search"], ("search", "ai-train")),
    ],
)
def test_rep_purpose_reads_one_purpose_or_several(value: Any, purposes: tuple[str, ...]) -> None:
    assert RepConfig.from_settings(Settings({"REP_PURPOSE": value})).purpose == purposes


def test_spec5_addon_replaces_scrapys_middleware_and_turns_obey_on() -> None:
    crawler = get_crawler(Spider, {"ADDONS": {Addon: 0}})
    settings = crawler.settings
    assert settings.getbool("ROBOTSTXT_OBEY") is True
    downloader = settings.getdict("DOWNLOADER_MIDDLEWARES")
    enabled = enabled_components(settings, "DOWNLOADER_MIDDLEWARES")
    assert ScrapyRobotsTxtMiddleware not in enabled
    assert RobotsTxtMiddleware in enabled
    assert downloader["scrapy_rep.RobotsTxtMiddleware"] == 100
    assert downloader["scrapy_rep.RobotsTxtResponseGuard"] == 595
    assert "scrapy_rep.PageDirectivesMiddleware" in settings.getdict("SPIDER_MIDDLEWARES")
    kept_off = get_crawler(Spider, {"ADDONS": {Addon: 0}, "ROBOTSTXT_OBEY": False})
    assert kept_off.settings.getbool("ROBOTSTXT_OBEY") is False


def test_spec5_the_addon_and_a_by_hand_entry_give_one_middleware_and_no_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = {
        "ADDONS": {Addon: 0},
        "DOWNLOADER_MIDDLEWARES": {"scrapy_rep.RobotsTxtMiddleware": 120},
    }
    crawler = get_crawler(Spider, settings)
    middlewares = crawler.settings.getdict("DOWNLOADER_MIDDLEWARES")
    entries = [
        key for key in middlewares if "scrapy_rep" in str(key) and "RobotsTxtMiddleware" in str(key)
    ]
    assert len(entries) == 1 and middlewares[entries[0]] == 120  # the project's own entry
    enabled = enabled_components(crawler.settings, "DOWNLOADER_MIDDLEWARES")
    assert enabled.count(RobotsTxtMiddleware) == 1
    assert ScrapyRobotsTxtMiddleware not in enabled
    assert "multiple keys" not in caplog.text


def test_a_receiver_after_the_hold_catcher_still_gets_the_signal_it_stops_on() -> None:
    """The middleware stops listening to ``request_scheduled`` once the requests it
    handed back to be held have come through, but never while the signal is being sent:
    pydispatch would then skip the receiver connected after it (docs/decisions.md,
    '`request_scheduled` is listened to only while requests wait')."""
    from scrapy import signals

    from scrapy_rep.crawl.requeststate import update

    crawler = get_crawler(Spider, {"ROBOTSTXT_OBEY": True})
    middleware = RobotsTxtMiddleware(crawler)
    request = Request("http://example.com/a")
    origin = middleware.facts.origins.get(request.url)
    update(request, hold=(middleware._robots.name, origin, ()))
    assert middleware._hand_back(request) is request
    seen: list[str] = []
    crawler.signals.connect(
        lambda request, **_: seen.append(request.url),
        signal=signals.request_scheduled,
        weak=False,
    )
    results = crawler.signals.send_catch_log(
        signals.request_scheduled, request=request, dont_log=IgnoreRequest
    )
    assert any(isinstance(getattr(r, "value", None), IgnoreRequest) for _, r in results)
    assert seen == ["http://example.com/a"]
    assert middleware.held_requests() == {str(origin): 1}


def test_the_hold_catcher_reads_only_the_requests_it_handed_back() -> None:
    """While it listens, ``request_scheduled`` comes for every request scheduled: the
    catcher takes the hold of the requests it handed back (the very objects the engine
    schedules) and leaves the others' state unread."""
    from scrapy import signals

    from scrapy_rep.crawl.requeststate import state_of, update

    crawler = get_crawler(Spider, {"ROBOTSTXT_OBEY": True})
    middleware = RobotsTxtMiddleware(crawler)
    handed = Request("http://example.com/a")
    other = Request("http://example.com/b")
    origin = middleware.facts.origins.get(handed.url)
    hold = (middleware._robots.name, origin, ())
    update(handed, hold=hold)
    update(other, hold=hold)  # marked, but not handed back by this middleware
    middleware._hand_back(handed)
    other_state = state_of(other)

    def send(request: Request) -> bool:
        results = crawler.signals.send_catch_log(
            signals.request_scheduled, request=request, dont_log=IgnoreRequest
        )
        return any(isinstance(getattr(r, "value", None), IgnoreRequest) for _, r in results)

    assert send(other) is False
    assert state_of(other) is other_state  # not read, not replaced
    assert send(handed) is True
    caught = state_of(handed)
    assert caught is not None and caught.hold is None  # the mark taken off
    assert middleware.held_requests() == {str(origin): 1}
    assert send(handed) is False  # caught once: not handed back again
