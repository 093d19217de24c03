"""robots.txt enforcement in a crawl: the downloader middleware (SPEC §3-§5).

A thin adapter. :mod:`scrapy_rep.lifecycle` makes every fetch decision of SPEC §4 (when
to download, retry, keep a stale copy, give up, share); this class only sequences:

- ``process_request`` asks the lifecycle for the origin's usable copy. With one, the
  rules decide at once: allowed requests go on, forbidden ones raise ``IgnoreRequest``
  naming the robots.txt line. Without one, the request is *held*: returned from
  ``process_request`` (Scrapy schedules it again) and caught in ``request_scheduled``
  (which drops a scheduled request when a handler raises ``IgnoreRequest``), so it
  leaves the downloader and takes none of the crawl's concurrency.
- :meth:`_perform` carries out the lifecycle's actions: downloads over the engine
  (:mod:`scrapy_rep.crawl.engine_fetch`), store calls (:mod:`scrapy_rep.crawl.stores`),
  timers, stats, logs, signals, and releasing held requests
  (:mod:`scrapy_rep.crawl.holding`) with the verdict they were released with.
- Crawl-delay goes to the origin's download slot (:mod:`scrapy_rep.crawl.slots`).
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final, NoReturn, cast
from weakref import WeakKeyDictionary, WeakSet

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.http import Headers, Response
from scrapy.responsetypes import responsetypes
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.job import job_dir
from scrapy.utils.reactor import is_asyncio_reactor_installed
from twisted.internet.defer import Deferred

from scrapy_rep import lifecycle_messages as do
from scrapy_rep import signals as rep_signals
from scrapy_rep.cache import CacheEntry, DocumentCache
from scrapy_rep.crawl.engine_fetch import EngineFetcher
from scrapy_rep.crawl.holding import HeldRequests, load_held
from scrapy_rep.crawl.slots import CrawlDelaySlots
from scrapy_rep.crawl.stores import StoreClient, store_for
from scrapy_rep.lifecycle import Lifecycle
from scrapy_rep.origins import Origin, OriginMemo
from scrapy_rep.robotparser import RobotParser
from scrapy_rep.robotstxt import ALLOW_ALL, DISALLOW_ALL, PROFILES, RobotsTxt, parse_robotstxt
from scrapy_rep.settings import RepConfig, RepSettingError, lifecycle_policy, robots_agent

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)
Entry = CacheEntry[RobotsTxt]
_ROBOTS_PATH: Final = "/robots.txt"


class RobotsTxtMiddleware:
    """Obeys each origin's robots.txt (SPEC §3-§5); replaces Scrapy's middleware."""

    def __init__(
        self,
        crawler: Crawler,
        config: RepConfig | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        settings = crawler.settings
        if not settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured("ROBOTSTXT_OBEY is False")
        self.crawler = crawler
        self.config = config = config if config is not None else RepConfig.from_settings(settings)
        self.stats = crawler.stats
        self._clock = clock
        obey = config.obey_crawl_delay
        #: Whether ``Crawl-delay`` sets download delays (``REP_OBEY_CRAWL_DELAY``).
        self.obey_crawl_delay = PROFILES[config.profile].obey_crawl_delay if obey is None else obey
        self._agent_setting = str(settings.get("ROBOTSTXT_USER_AGENT") or "")
        self._default_agent = robots_agent(settings)
        timeout = min(
            config.robotstxt_timeout, settings.getfloat("DOWNLOAD_TIMEOUT") or float("inf")
        )
        store = store_for(config.robotstxt_cache, job_dir(settings), config.cache_max_origins)
        if store.name == "redis" and not is_asyncio_reactor_installed():
            raise RepSettingError(
                "REP_ROBOTSTXT_CACHE: a Redis store needs Scrapy's asyncio reactor "
                "(TWISTED_REACTOR = 'twisted.internet.asyncioreactor.AsyncioSelectorReactor')"
            )
        self.store = StoreClient(store, clock, self._inc)
        #: The robots.txt of every origin seen, fresh or stale (SPEC §4 "Caching").
        profile = config.profile
        self.cache: DocumentCache[RobotsTxt] = DocumentCache(
            config.cache_max_origins,
            config.cache_max_bytes,
            lambda body: parse_robotstxt(body, profile),
        )
        self.lifecycle: Lifecycle[RobotsTxt] = Lifecycle(
            lifecycle_policy(config, settings, timeout, store.name if store.consulted else None),
            lambda body: parse_robotstxt(body, profile),
            lambda allow: ALLOW_ALL if allow else DISALLOW_ALL,
            self.cache,
            _estimated_size,
        )
        self.fetcher = EngineFetcher(crawler, timeout)
        self.held = HeldRequests(crawler, config.max_held_requests)
        self.slots = CrawlDelaySlots(crawler, config.crawl_delay_max)
        self._origins = OriginMemo()
        #: Requests handed back to the engine to be held (see the module docstring).
        self._to_hold: WeakSet[Request] = WeakSet()
        #: Released requests and the entry that decides them, whatever the cache holds
        #: by the time they come back (it may have expired or been evicted).
        self._carried: WeakKeyDictionary[Request, Entry] = WeakKeyDictionary()
        self._waiters: dict[Origin, list[Deferred[Entry | None]]] = {}
        self._triggers: dict[Origin, Request] = {}
        self._timers: dict[Any, Any] = {}
        self._tasks: set[Deferred[None]] = set()
        self._watching_downloads = False
        self._closed = False
        self._scheduler: Any = None
        connect = crawler.signals.connect
        connect(self._request_scheduled, signal=signals.request_scheduled)
        connect(self._spider_idle, signal=signals.spider_idle)
        connect(self._spider_opened, signal=signals.spider_opened)
        connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    # ------------------------------------------------------------------ public API

    def rules_for(self, url: str) -> RobotsTxt | None:
        """The cached rules of ``url``'s origin (any freshness), or ``None``."""
        origin = self._origins.get(url)
        entry = self.cache.get(origin) if origin is not None else None
        return entry.rules if entry is not None else None

    def sitemaps_for(self, url: str) -> tuple[str, ...]:
        """The ``Sitemap:`` URLs of ``url``'s origin's cached robots.txt (SPEC §5)."""
        rules = self.rules_for(url)
        return rules.sitemaps if rules is not None else ()

    def held_requests(self) -> dict[str, int]:
        """How many requests wait for each origin's robots.txt."""
        return {str(key): self.held.count(key) for key in self.held.origins()}

    # ------------------------------------------------------------------ the request path

    async def process_request(
        self, request: Request, spider: Spider | None = None
    ) -> Request | Response | None:
        if request.meta.get("dont_obey_robotstxt"):
            return None
        origin = self._origins.get(request.url)
        if origin is None:
            return None  # data:, file:, about: (SPEC §3)
        entry = self._carried.pop(request, None) if self._carried else None
        if entry is None:
            entry = self._entry(origin, request)
        if entry is None:
            if request not in self._to_hold:
                self._to_hold.add(request)
                return request  # caught by _request_scheduled and held
            # It came straight back: engine.download_async(), not the scheduler, sent
            # it. It cannot leave the downloader, so it waits here.
            self._to_hold.discard(request)
            entry = await self._wait_for(origin)
            if entry is None:
                self._inc("rep/requests/dropped/spider_closed")
                raise IgnoreRequest(f"robots.txt of {origin} not known when the spider closed")
        if request.url.endswith(_ROBOTS_PATH) and request.method == "GET":
            cached = self._cached_robots_response(request, entry)
            if cached is not None:
                return cached
        self._enforce(request, origin, entry)
        return None

    def _entry(self, origin: Origin, request: Request) -> Entry | None:
        """The entry that decides now; ``None``: hold (a fetch is under way or starts)."""
        now = self._clock()
        entry = self.lifecycle.fresh_entry(origin, now)
        if entry is not None:
            return entry
        self._triggers.setdefault(origin, request)
        self._perform(self.lifecycle.handle(do.RequestSeen(origin), now))
        return self.lifecycle.usable_entry(origin, self._clock())

    def _enforce(self, request: Request, origin: Origin, entry: Entry) -> None:
        agent = self._agent(request)
        rules = entry.rules
        if rules.allowed(request.url, agent):
            if entry.unreachable:
                self._inc("rep/requests/allowed_unreachable")
            if self.obey_crawl_delay:
                self.slots.apply(request, origin, rules.crawl_delay(agent))
            return
        if entry.unreachable:
            reason, message = (
                "robotstxt_unreachable",
                f"Dropped: robots.txt of {origin} {entry.outcome}",
            )
        else:
            reason = "forbidden"
            self._inc("robotstxt/forbidden")
            decision = rules.decide(request.url, agent)
            explanation = (
                f"line {decision.line}: {decision.line_text}"
                if decision.line is not None
                else decision.reason
            )
            message = f"Forbidden by {origin.robots_url} ({explanation})"
        self._inc(f"rep/requests/dropped/{reason}")
        self._refuse(request, reason, message)

    def _refuse(self, request: Request, reason: str, message: str) -> NoReturn:
        rep_signals.send_refused(self.crawler, logger, request, reason, message)
        raise IgnoreRequest(message)

    def _agent(self, request: Request) -> str:
        if self._agent_setting:
            return self._agent_setting
        if not request.headers:  # usual: Scrapy's UserAgentMiddleware runs after us
            return self._default_agent
        header = request.headers.get(b"User-Agent")
        return header.decode("latin-1") if header else self._default_agent

    def _cached_robots_response(self, request: Request, entry: Entry) -> Response | None:
        """A spider's own request for a robots.txt we have (a SitemapSpider's
        ``sitemap_urls``), answered from the cache: no second download (SPEC §5)."""
        parts = urlparse_cached(request)
        if parts.path != _ROBOTS_PATH or parts.query or entry.unreachable or entry.status is None:
            return None
        if entry.body_zlib:
            status, body = 200, zlib.decompress(entry.body_zlib)
        elif 400 <= entry.status < 500:
            status, body = entry.status, b""
        else:
            return None
        self._inc("rep/robotstxt/served_from_cache")
        headers = Headers({"Content-Type": "text/plain"})
        cls = responsetypes.from_args(headers=headers, url=request.url, body=body)
        return cls(
            url=request.url, status=status, headers=headers, body=body,
            flags=["cached", "scrapy_rep"], request=request,
        )  # fmt: skip

    # ------------------------------------------------------------------ holding

    def _request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        if request not in self._to_hold:
            return
        self._to_hold.discard(request)
        origin = self._origins.get(request.url)
        assert origin is not None  # only requests with an origin are held
        if self.held.add(origin, request):
            self._inc("rep/requests/spilled")
        self._inc("rep/requests/held")
        self.crawler.signals.send_catch_log(
            rep_signals.request_held, request=request, origin=str(origin)
        )
        entry = self.lifecycle.usable_entry(origin, self._clock())
        if entry is not None:  # the download finished in between
            _call_later(0, self._release, origin, entry, 0)
        raise IgnoreRequest("held until robots.txt is known")  # not enqueued, not logged

    def _release(self, origin: Origin, entry: Entry, failures: int) -> None:
        """The held requests of ``origin`` go on, carrying the verdict of ``entry``."""
        for waiter in self._waiters.pop(origin, ()):
            waiter.callback(entry)
        self._triggers.pop(origin, None)
        engine = self._engine()
        if self._closed or engine is None or origin not in self.held:
            return
        released = 0
        for request in self.held.pop(origin):
            released += 1
            self.crawler.signals.send_catch_log(
                rep_signals.request_released, request=request, origin=str(origin), failures=failures
            )
            again = request.replace(dont_filter=True)  # the dupefilter saw it already
            self._carried[again] = entry
            engine.crawl(again)
        self._inc("rep/requests/released", released)
        if failures:
            self._inc("rep/requests/released_after_unreachable", released)

    async def _wait_for(self, origin: Origin) -> Entry | None:
        entry = self._entry(origin, Request(origin.robots_url))
        if entry is not None or self._closed:
            return entry
        waiter: Deferred[Entry | None] = Deferred()
        self._waiters.setdefault(origin, []).append(waiter)
        return await maybe_deferred_to_future(waiter)

    def _spider_idle(self) -> None:
        """Keep the spider open while requests are held (SPEC §4), and make sure every
        origin holding requests has its document, a download or a retry under way."""
        now = self._clock()
        for key in self.held.origins():
            origin = cast(Origin, key)
            entry = self.lifecycle.usable_entry(origin, now)
            if entry is not None:
                self._release(origin, entry, 0)
            elif not self.lifecycle.under_way(origin):
                self._perform(self.lifecycle.handle(do.RequestSeen(origin), now))
        if len(self.held) or self.lifecycle.downloading:
            raise DontCloseSpider

    # ------------------------------------------------------------------ actions

    def _perform(self, actions: list[do.Action]) -> None:
        """Carry out what the lifecycle decided."""
        for action in actions:
            if isinstance(action, do.Stat):
                self._inc(action.name, action.count)
            elif isinstance(action, do.Log):
                logger.log(
                    action.level,
                    action.message,
                    *action.args,
                    extra={"spider": self.crawler.spider},
                )
            elif isinstance(action, do.Release):
                self._release(cast(Origin, action.key), action.entry, action.failures)
            elif isinstance(action, do.WakeAt):
                self._wake_at(action.key, action.when)
            elif isinstance(action, do.Announce):
                self._announce(action)
            elif isinstance(action, do.StartDownload):
                self._task(self._download(cast(Origin, action.key)))
            else:
                self._task(self._store_call(action))

    async def _download(self, origin: Origin) -> None:
        self._watch_downloads()
        fetched = await self.fetcher.fetch(origin)
        event = do.Downloaded(origin, fetched, self.held.count(origin))
        self._perform(self.lifecycle.handle(event, self._clock()))
        self._watch_downloads()

    async def _store_call(self, action: do.Action) -> None:
        store, now = self.store, self._clock
        if isinstance(action, do.LoadRecord):
            record = await store.load(action.name)
            self._perform(self.lifecycle.handle(do.RecordLoaded(action.key, record), now()))
        elif isinstance(action, do.AcquireLease):
            granted = await store.acquire(action.name, action.seconds)
            self._perform(self.lifecycle.handle(do.LeaseAnswered(action.key, granted), now()))
        elif isinstance(action, do.SaveRecord):
            await store.save(action.record, action.keep_for)
        elif isinstance(action, do.ReleaseLease):
            await store.release(action.name)

    def _wake_at(self, key: Any, when: float) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None and timer.active():
            timer.cancel()

        def fire() -> None:
            self._timers.pop(key, None)
            if not self._closed:
                self._perform(self.lifecycle.handle(do.TimerFired(key), self._clock()))

        self._timers[key] = _call_later(max(0.0, when - self._clock()), fire)

    def _task(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = deferred_from_coro(coroutine)
        self._tasks.add(task)
        task.addBoth(_passing(self._tasks.discard, task))
        task.addErrback(
            lambda failure: logger.error(
                "scrapy_rep internal error; please report it",
                exc_info=(failure.type, failure.value, failure.getTracebackObject()),
                extra={"spider": self.crawler.spider},
            )
        )

    def _announce(self, action: do.Announce) -> None:
        origin = cast(Origin, action.key)
        rules: RobotsTxt = action.rules
        if action.known:
            trigger = self._triggers.get(origin)
            self.crawler.signals.send_catch_log(
                signal=signals.robots_parsed,
                robotparser=RobotParser.from_rules(rules),
                request=trigger,
            )
        self.crawler.signals.send_catch_log(
            signal=rep_signals.robotstxt_fetched, origin=str(origin), robots_url=origin.robots_url,
            rules=rules, outcome=action.outcome, status=action.status, sitemaps=rules.sitemaps,
        )  # fmt: skip

    def _watch_downloads(self) -> None:
        """Listen to ``bytes_received`` only while a robots.txt download runs: it comes
        for every chunk of every response, and a receiver makes each cost a call."""
        watching = self.lifecycle.running > 0
        if watching == self._watching_downloads:
            return
        self._watching_downloads = watching
        change = self.crawler.signals.connect if watching else self.crawler.signals.disconnect
        change(self.fetcher.bytes_received, signal=signals.bytes_received)

    # ------------------------------------------------------------------ open and close

    def _spider_opened(self, spider: Spider) -> None:
        engine = self._engine()
        #: The crawl's scheduler: with scrapy-redis, held requests go back to its queue.
        self._scheduler = getattr(getattr(engine, "_slot", None), "scheduler", None)
        load_error = getattr(self.store.store, "load_error", "")
        if load_error:
            logger.warning(
                "scrapy_rep: the robots.txt cache in JOBDIR is unreadable (%s)", load_error
            )
        held = load_held(self.crawler, spider)
        for request in held:
            assert engine is not None
            engine.crawl(request.replace(dont_filter=True))
        if held:
            self._inc("rep/requests/resumed", len(held))
            logger.info("scrapy_rep: resumed %d held request(s) from JOBDIR", len(held))

    async def _spider_closed(self, spider: Spider, reason: str) -> None:
        self._closed = True
        if self.stats is not None:
            self.stats.set_value("rep/robotstxt/cache_evictions", self.cache.evictions)
            self.stats.set_value("rep/robotstxt/cache_reparsed", self.cache.reparsed)
        try:
            for timer in self._timers.values():
                if timer.active():
                    timer.cancel()
            for waiters in self._waiters.values():
                for waiter in waiters:
                    waiter.callback(None)
            self._waiters.clear()
            self.held.close(spider, reason, self._scheduler)
        finally:
            await self.store.close()

    def _engine(self) -> Any:
        """The running engine, or ``None`` before the crawl starts and after it ends."""
        try:
            return self.crawler.engine
        except RuntimeError:  # Scrapy 2.19: "Crawler.engine is not set yet"
            return None

    def _inc(self, key: str, count: int = 1) -> None:
        if self.stats is not None:
            self.stats.inc_value(key, count)


def _call_later(delay: float, function: Callable[..., Any], *args: Any) -> Any:
    """``reactor.callLater``; imported late so that importing this module never installs
    a reactor."""
    from twisted.internet import reactor

    return cast(Any, reactor).callLater(delay, function, *args)


def _passing(callback: Callable[[Any], object], argument: Any) -> Callable[[Any], Any]:
    """A Deferred callback that calls ``callback(argument)`` and passes the result on."""

    def call(result: Any) -> Any:
        callback(argument)
        return result

    return call


def _estimated_size(rules: RobotsTxt, body: bytes) -> int:
    """Bytes a parsed robots.txt keeps in memory (for ``REP_CACHE_MAX_BYTES``)."""
    return 2048 + 8 * len(body)
