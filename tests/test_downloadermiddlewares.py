"""The robots.txt middleware with a mocked crawler: waiting, errors, cache, signals.

The engine is a fake whose ``download_async`` answers robots.txt requests from a
script; the clock is a number the test moves; timers are recorded, not run by a reactor.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider, signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.http import Response, TextResponse
from scrapy.settings import Settings
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred
from twisted.internet.error import ConnectionRefusedError

import scrapy_rep.downloadermiddlewares as module
from scrapy_rep import Addon, RepSettingError, RobotsTxtMiddleware
from scrapy_rep.signals import robotstxt_fetched

A = "http://a.example"
B = "http://b.example"
C = "http://c.example"
Reply = Response | Exception | Deferred[Response]


class FakeDownloader:
    def __init__(self) -> None:
        self.slots: dict[str, Any] = {}
        self.per_slot_settings: dict[str, dict[str, Any]] = {}

    def get_slot_key(self, request: Request) -> str:
        return str(request.meta.get("download_slot") or urlparse_cached(request).hostname)


class FakeEngine:
    def __init__(self) -> None:
        self.replies: dict[str, list[Reply]] = {}
        self.downloaded: list[str] = []
        self.crawled: list[Request] = []
        self.downloader = FakeDownloader()

    async def download_async(self, request: Request) -> Response:
        self.downloaded.append(request.url)
        script = self.replies[request.url]
        reply = script[0] if len(script) == 1 else script.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, Deferred):
            reply = await reply
        return reply.replace(url=request.url, request=request)

    def crawl(self, request: Request) -> None:
        self.crawled.append(request)


class Timer:
    def __init__(self, delay: float, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.delay, self.function, self.args = delay, function, args
        self.cancelled = False

    def active(self) -> bool:
        return not self.cancelled

    def cancel(self) -> None:
        self.cancelled = True


class Harness:
    def __init__(self, settings: dict[str, Any] | None = None) -> None:
        self.now = 1_000_000.0
        self.timers: list[Timer] = []
        self.engine = FakeEngine()
        self.crawler = get_crawler(
            Spider,
            {
                "ROBOTSTXT_OBEY": True,
                "USER_AGENT": "TestBot/1.0",
                "REP_UNREACHABLE_RETRY_DELAY": 10,
                "REP_UNREACHABLE_MAX_WAIT": 100,
                **(settings or {}),
            },
        )
        self.crawler.engine = self.engine  # type: ignore[assignment]
        self.mw = RobotsTxtMiddleware(self.crawler, clock=lambda: self.now)

    def robots(self, origin: str, *replies: Reply) -> None:
        self.engine.replies[f"{origin}/robots.txt"] = list(replies)

    async def request(self, url: str, **kwargs: Any) -> Any:
        """Send ``url`` through the middleware as the engine would; hold it if asked.

        Returns None (go on), a Response, "held", or the IgnoreRequest message."""
        request = Request(url, **kwargs)
        try:
            result = await self.mw.process_request(request)
        except IgnoreRequest as error:
            return str(error)
        if result is request:
            with pytest.raises(IgnoreRequest):
                self.mw._request_scheduled(request)
            await self.settle()
            return "held"
        await self.settle()
        return result

    async def settle(self) -> None:
        """Let the robots.txt downloads under way finish (as far as the script allows)."""
        while True:
            running = [task for task in self.mw._tasks if not task.called]
            if not running or any(
                isinstance(r, Deferred) and not r.called for r in self._pending()
            ):
                return
            await running[0]

    def _pending(self) -> list[Any]:
        return [reply for script in self.engine.replies.values() for reply in script[:1]]

    def record(self, delay: float, function: Callable[..., Any], *args: Any) -> Timer:
        timer = Timer(delay, function, args)
        self.timers.append(timer)
        return timer

    async def run_timers(self) -> None:
        timers, self.timers = self.timers, []
        for timer in timers:
            if not timer.cancelled:
                timer.function(*timer.args)
        await self.settle()

    def stat(self, key: str) -> Any:
        assert self.crawler.stats is not None
        return self.crawler.stats.get_value(key)


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Harness]:
    def make(settings: dict[str, Any] | None = None) -> Harness:
        made = Harness(settings)
        monkeypatch.setattr(module, "_call_later", made.record)
        return made

    return make


def text(body: str, status: int = 200, **headers: str) -> TextResponse:
    return TextResponse(A, status=status, body=body.encode(), headers=headers or None)


RULES = "User-agent: *\nDisallow: /private\nSitemap: http://a.example/map.xml\n"


@pytest_twisted.ensureDeferred
async def test_spec4_one_download_per_origin_then_cache_hits(harness: Any) -> None:
    h = harness()
    h.robots(A, text(RULES))
    assert await h.request(f"{A}/1") == "held"
    assert [r.url for r in h.engine.crawled] == [f"{A}/1"]
    assert h.engine.crawled[0].dont_filter  # the dupefilter saw it already
    assert await h.request(f"{A}/1") is None
    assert await h.request(f"{A}/2") is None
    message = await h.request(f"{A}/private/x")
    assert message == f"Forbidden by {A}/robots.txt (line 2: Disallow: /private)"
    assert h.engine.downloaded == [f"{A}/robots.txt"]
    assert h.mw.sitemaps_for(f"{A}/anything") == ("http://a.example/map.xml",)
    assert h.mw.rules_for(f"{B}/") is None
    assert h.stat("rep/requests/held") == 1
    assert h.stat("rep/requests/released") == 1


@pytest_twisted.ensureDeferred
async def test_spec4_cache_control_max_age_then_stale_copy_while_refreshing(harness: Any) -> None:
    h = harness()
    h.robots(
        A, text(RULES, **{"Cache-Control": "max-age=120"}), text("User-agent: *\nDisallow: /\n")
    )
    await h.request(f"{A}/")
    h.now += 119
    assert await h.request(f"{A}/x") is None
    assert len(h.engine.downloaded) == 1  # still fresh
    h.now += 2
    # Stale: the old copy decides this request, a refresh runs in the background.
    assert await h.request(f"{A}/x") is None
    assert len(h.engine.downloaded) == 2
    assert (await h.request(f"{A}/x")).startswith("Forbidden")  # the new copy


@pytest_twisted.ensureDeferred
async def test_spec4_failed_refresh_keeps_the_old_copy_until_the_stale_limit(harness: Any) -> None:
    h = harness({"REP_CACHE_TTL": 100, "REP_CACHE_STALE_MAX": 1000})
    h.robots(A, text(RULES), text("down", 503), text("down", 503), text("down", 503))
    await h.request(f"{A}/")
    h.now += 101
    assert await h.request(f"{A}/ok") is None  # refresh fails: 503
    assert h.stat("rep/robotstxt/stale_kept") == 1
    assert (await h.request(f"{A}/private")).startswith("Forbidden")  # old rules still apply
    assert len(h.engine.downloaded) == 2  # no new try before the backoff is over
    h.now += 11
    await h.request(f"{A}/ok")
    assert len(h.engine.downloaded) == 3
    h.now += 1000  # past the stale limit: the copy is gone, requests are held
    assert await h.request(f"{A}/ok") == "held"


@pytest_twisted.ensureDeferred
async def test_spec4_lru_bound_evicts_and_counts(harness: Any) -> None:
    h = harness({"REP_CACHE_MAX_ORIGINS": 2})
    for origin in (A, B, C):
        h.robots(origin, text("User-agent: *\nDisallow:\n"))
        await h.request(f"{origin}/")
    assert len(h.mw.cache) == 2
    assert h.stat("rep/robotstxt/cache_evictions") == 1
    assert await h.request(f"{A}/") == "held"  # A was evicted: downloaded again
    assert h.engine.downloaded.count(f"{A}/robots.txt") == 2


@pytest_twisted.ensureDeferred
async def test_spec4_backoff_retry_after_and_giving_up(harness: Any) -> None:
    h = harness({"REP_UNREACHABLE_RETRY_DELAY": 10, "REP_UNREACHABLE_MAX_WAIT": 100})
    h.robots(A, text("busy", 429, **{"Retry-After": "45"}), text("down", 503))
    assert await h.request(f"{A}/1") == "held"
    assert await h.request(f"{A}/2") == "held"
    delays = []
    while h.timers:
        delays.append(h.timers[0].delay)
        h.now += h.timers[0].delay
        await h.run_timers()
    # 429 asked for 45 s; then 20, 40 (backoff from 10 s), then what is left of 100 s.
    assert delays == [45, 20, 35]
    assert len(h.engine.downloaded) == 4
    assert h.stat("rep/robotstxt/gave_up") == 1
    assert [r.url for r in h.engine.crawled] == [f"{A}/1", f"{A}/2"]  # released to be dropped
    message = await h.request(f"{A}/1")
    assert message.startswith(f"Dropped: robots.txt of {A} unreachable for 100 s (503:")
    assert h.stat("rep/requests/dropped/robotstxt_unreachable") == 1


@pytest_twisted.ensureDeferred
async def test_spec4_network_errors_are_unreachable(harness: Any) -> None:
    h = harness({"REP_UNREACHABLE_MAX_WAIT": 0})
    h.robots(A, ConnectionRefusedError("nobody home"))
    assert await h.request(f"{A}/") == "held"
    await h.run_timers()
    assert "unreachable" in await h.request(f"{A}/")
    assert h.stat("rep/robotstxt/outcome/network_error") == 1


@pytest_twisted.ensureDeferred
async def test_a_request_from_download_async_waits_in_place(harness: Any) -> None:
    h = harness()
    answer: Deferred[Response] = Deferred()
    h.robots(A, answer)
    request = Request(f"{A}/private")
    assert await h.mw.process_request(request) is request
    # engine.download_async() loops a returned request straight back: it must wait here.
    waiting = deferred_from_coro(h.mw.process_request(request))
    assert not waiting.called
    answer.callback(text(RULES))
    failure = await waiting.addErrback(lambda f: f.value)
    assert isinstance(failure, IgnoreRequest)


@pytest_twisted.ensureDeferred
async def test_spider_stays_open_while_requests_are_held(harness: Any) -> None:
    h = harness()
    h.mw._spider_idle()  # nothing held: may close
    h.robots(A, Deferred())
    assert await h.request(f"{A}/") == "held"
    with pytest.raises(DontCloseSpider):
        h.mw._spider_idle()


@pytest_twisted.ensureDeferred
async def test_closing_without_jobdir_drops_held_requests_with_a_warning(
    harness: Any, caplog: pytest.LogCaptureFixture
) -> None:
    h = harness()
    h.robots(A, Deferred())
    assert await h.request(f"{A}/") == "held"
    with caplog.at_level(logging.WARNING):
        await h.mw._spider_closed(Spider("s"), "shutdown")
    assert h.stat("rep/requests/dropped/spider_closed") == 1
    assert "1 request(s) held" in caplog.text and f"{A}: 1" in caplog.text


@pytest_twisted.ensureDeferred
async def test_jobdir_keeps_the_cache_and_the_held_requests(harness: Any, tmp_path: Path) -> None:
    h = harness({"JOBDIR": str(tmp_path)})
    h.robots(A, text(RULES))
    h.robots(B, text("down", 503))
    await h.request(f"{A}/")
    spider = Spider("s")
    assert await h.request(f"{B}/page", callback=spider.parse) == "held"
    await h.mw._spider_closed(spider, "shutdown")

    again = harness({"JOBDIR": str(tmp_path)})
    again.mw._spider_opened(spider)
    assert [r.url for r in again.engine.crawled] == [f"{B}/page"]
    assert again.engine.crawled[0].callback == spider.parse
    # A's robots.txt comes from the JOBDIR store: the first request waits for the
    # lookup, not for a download; the next ones are decided at once.
    assert await again.request(f"{A}/private") == "held"
    assert (await again.request(f"{A}/private")).startswith("Forbidden")
    assert again.engine.downloaded == []
    assert again.stat("rep/robotstxt/store_hits") == 1
    # B was unreachable when the crawl paused: its schedule was kept, so it is retried
    # when that schedule says, not at once.
    assert await again.request(f"{B}/other") == "held"
    assert again.engine.downloaded == []


@pytest_twisted.ensureDeferred
async def test_signals_robots_parsed_and_robotstxt_fetched(harness: Any) -> None:
    h = harness()
    h.robots(A, text(RULES))
    parsed: list[Any] = []
    fetched: list[dict[str, Any]] = []

    def on_parsed(robotparser: Any, request: Request) -> None:
        parsed.append((robotparser.allowed(f"{A}/private", "TestBot"), request.url))

    def on_fetched(**kwargs: Any) -> None:
        fetched.append(kwargs)

    h.crawler.signals.connect(on_parsed, signal=signals.robots_parsed)
    h.crawler.signals.connect(on_fetched, signal=robotstxt_fetched)
    await h.request(f"{A}/first")
    assert parsed == [(False, f"{A}/first")]
    assert len(fetched) == 1
    assert fetched[0]["origin"] == A
    assert fetched[0]["status"] == 200
    assert fetched[0]["sitemaps"] == ("http://a.example/map.xml",)


@pytest_twisted.ensureDeferred
async def test_a_spiders_robotstxt_request_is_served_from_the_cache(harness: Any) -> None:
    h = harness()
    h.robots(A, text(RULES))
    await h.request(f"{A}/")
    response = await h.request(f"{A}/robots.txt")
    assert isinstance(response, TextResponse)
    assert response.text == RULES
    assert "cached" in response.flags
    assert h.engine.downloaded == [f"{A}/robots.txt"]


@pytest_twisted.ensureDeferred
async def test_dont_obey_and_unchecked_schemes_pass_untouched(harness: Any) -> None:
    h = harness()
    assert await h.request(f"{A}/", meta={"dont_obey_robotstxt": True}) is None
    assert await h.request("data:,hello") is None
    assert h.engine.downloaded == []


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
    assert "scrapy_rep.spidermiddlewares.PageDirectivesMiddleware" in {
        f"{c.__module__}.{c.__name__}" for c in settings.getdict("SPIDER_MIDDLEWARES")
    }
    kept_off = get_crawler(Spider, {"ADDONS": {Addon: 0}, "ROBOTSTXT_OBEY": False})
    assert kept_off.settings.getbool("ROBOTSTXT_OBEY") is False


@pytest_twisted.ensureDeferred
async def test_spec4_an_origin_given_up_on_again_is_left_alone_twice_as_long(
    harness: Any,
) -> None:
    h = harness({"REP_UNREACHABLE_RETRY_DELAY": 10, "REP_UNREACHABLE_MAX_WAIT": 0})
    h.robots(A, text("down", 503))
    lifetimes = []
    for _ in range(3):
        assert await h.request(f"{A}/") == "held"  # fails at once: given up
        entry = h.mw.cache.get(h.mw._origin(Request(f"{A}/")))
        assert entry is not None and entry.unreachable
        lifetimes.append(entry.fresh_until - entry.fetched_at)
        h.now = entry.fresh_until + 1  # the verdict is over: the next request tries again
    assert lifetimes == [10, 20, 40]
    assert len(h.engine.downloaded) == 3
