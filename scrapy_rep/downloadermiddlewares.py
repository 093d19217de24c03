"""robots.txt enforcement in a crawl: the downloader middleware (SPEC §3, §4, §5).

A thin Scrapy adapter over the pure modules: :mod:`scrapy_rep.origins` says which
robots.txt applies, :mod:`scrapy_rep.fetchpolicy` what a download means,
:mod:`scrapy_rep.cache` how long it is kept, :mod:`scrapy_rep.robotstxt` what it allows.

How a request travels (SPEC §4):

- Its origin's robots.txt is cached and fresh (or stale while a refresh runs or fails):
  the rules decide at once. Allowed requests go on; forbidden ones raise
  :class:`~scrapy.exceptions.IgnoreRequest` naming the robots.txt line.
- Otherwise the request is *held*: it leaves the downloader (so it takes none of the
  crawl's concurrency), one robots.txt download per origin starts, and the held
  requests are scheduled again when the origin has rules. While robots.txt is
  unreachable (429, 5xx, network error) it is retried with backoff; after
  ``REP_UNREACHABLE_MAX_WAIT`` the held requests are dropped (or allowed) with a reason.
- Holding works by returning the request from ``process_request`` (Scrapy schedules
  a returned request again) and catching it in the ``request_scheduled`` signal, which
  drops a request when a handler raises ``IgnoreRequest``.
- At most ``REP_ROBOTSTXT_CONCURRENCY`` robots.txt downloads run at once. With a shared
  store (:mod:`scrapy_rep.stores`, ``REP_ROBOTSTXT_CACHE``), a process first looks for
  what another process found, and downloads under a lease otherwise.
"""

from __future__ import annotations

import logging
import pickle
import re
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NoReturn, cast
from urllib.parse import urljoin
from weakref import WeakSet

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured, StopDownload
from scrapy.http import Headers, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.responsetypes import responsetypes
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.job import job_dir
from scrapy.utils.log import failure_to_exc_info
from scrapy.utils.reactor import is_asyncio_reactor_installed
from scrapy.utils.request import request_from_dict
from twisted.internet.defer import Deferred, DeferredSemaphore
from twisted.python.failure import Failure

from scrapy_rep import signals as rep_signals
from scrapy_rep.cache import CacheEntry, Freshness, RobotsCache
from scrapy_rep.fetchpolicy import (
    MAX_REDIRECTS,
    Effect,
    cache_lifetime,
    effect_of_status,
    may_follow,
    retry_after_seconds,
    retry_delay,
)
from scrapy_rep.origins import Origin, origin_of
from scrapy_rep.robotparser import RobotParser
from scrapy_rep.robotstxt import (
    ALLOW_ALL,
    DISALLOW_ALL,
    MAX_BODY_BYTES,
    PROFILES,
    RobotsTxt,
    parse_robotstxt,
)
from scrapy_rep.settings import RepConfig, RepSettingError
from scrapy_rep.stores import RobotsStore, SharedRecord, StoreCorrupt, store_for

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.core.engine import ExecutionEngine
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: ``request.meta`` key marking our own robots.txt downloads (value: the origin string).
ROBOTS_REQUEST_KEY: Final = "rep_robotstxt_for"
#: File in ``JOBDIR`` holding the held requests across pause/resume (the cache is in the
#: JOBDIR store, :class:`scrapy_rep.stores.JobdirStore`).
STATE_FILE: Final = "scrapy_rep.state"
_STATE_VERSION: Final = 2
_MAX_ORIGIN_MEMO: Final = 100_000
#: A compressed robots.txt larger than this once inflated is refused (a "zip bomb"):
#: as an invalid response, it counts as unreachable (SPEC §4, §7).
MAX_INFLATED_BYTES: Final = 16 * 1024 * 1024
_MAX_SLOT_SETTINGS: Final = 10_000
#: After a shared-store error, this process works alone for this long (seconds).
STORE_RETRY_AFTER: Final = 30.0
#: How often a process waiting for another one's download looks at the store.
LEASE_POLL: Final = 0.2
#: ``scheme://authority`` at the start of a URL: the memo key of its origin.
_ORIGIN_PART: Final = re.compile(r"[^:/?#]+://[^/?#]*")


@dataclass(frozen=True)
class _Fetched:
    """What one robots.txt download (with its redirects) came to."""

    effect: Effect
    outcome: str
    status: int | None = None
    body: bytes = b""
    cache_control: str | None = None
    retry_after: float | None = None


@dataclass
class _OriginState:
    """An origin whose robots.txt is being fetched, or failing (SPEC §4)."""

    fetching: bool = False
    #: Consecutive failed downloads (429, 5xx, network errors).
    failures: int = 0
    failing_since: float | None = None
    #: With a stale copy in use: no refresh before this time.
    retry_at: float = 0.0
    #: The pending retry (a Twisted ``IDelayedCall``) while requests are held.
    timer: Any = None
    last_reason: str = ""
    #: Seconds this origin's retries waited for a free robots.txt download slot: not
    #: counted against ``REP_UNREACHABLE_MAX_WAIT`` (the site was not asked meanwhile).
    queued: float = 0.0
    #: The request that caused the first download (sent with ``robots_parsed``).
    trigger: Request | None = None
    waiters: list[Deferred[None]] = field(default_factory=list)


class RobotsTxtMiddleware:
    """Obeys each origin's robots.txt (SPEC §3–§5); replaces Scrapy's middleware."""

    DOWNLOAD_PRIORITY: int = 1000

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
        self.config = config if config is not None else RepConfig.from_settings(settings)
        self.stats = crawler.stats
        self._clock = clock
        obey = self.config.obey_crawl_delay
        #: Whether ``Crawl-delay`` sets download delays (``REP_OBEY_CRAWL_DELAY``).
        self.obey_crawl_delay = (
            PROFILES[self.config.profile].obey_crawl_delay if obey is None else obey
        )
        self._robots_timeout = min(
            self.config.robotstxt_timeout, settings.getfloat("DOWNLOAD_TIMEOUT") or float("inf")
        )
        self._robotstxt_agent: str = str(settings.get("ROBOTSTXT_USER_AGENT") or "")
        self._default_agent: str = str(settings.get("USER_AGENT") or "")
        #: The robots.txt of every origin seen, fresh or stale (SPEC §4 "Caching").
        self.cache = RobotsCache(self.config.cache_max_origins)
        self._states: dict[Origin, _OriginState] = {}
        self._held: dict[Origin, list[Request]] = {}
        self._held_count = 0
        #: Requests handed back to the engine to be held (see the module docstring).
        self._to_hold: WeakSet[Request] = WeakSet()
        self._origins: dict[str, Origin | None] = {}
        self._slot_delays: OrderedDict[str, float] = OrderedDict()
        #: Origins given up on, and how many times in a row (bounded).
        self._gave_up: OrderedDict[Origin, int] = OrderedDict()
        self._tasks: set[Deferred[None]] = set()
        self._closed = False
        self._evictions_reported = 0
        crawler.signals.connect(self._request_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(self._spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)
        self._watching_downloads = False
        self._scheduler: Any = None
        #: Where robots.txt outcomes are shared with other processes (issue 7).
        self.store: RobotsStore = store_for(
            self.config.robotstxt_cache, job_dir(settings), self.config.cache_max_origins
        )
        if self.store.name == "redis" and not is_asyncio_reactor_installed():
            raise RepSettingError(
                "REP_ROBOTSTXT_CACHE: a Redis store needs Scrapy's asyncio reactor "
                "(TWISTED_REACTOR = 'twisted.internet.asyncioreactor.AsyncioSelectorReactor')"
            )
        self._store_down_until = 0.0
        concurrency = self.config.robotstxt_concurrency or max(
            1, settings.getint("CONCURRENT_REQUESTS") // 2
        )
        #: At most this many robots.txt downloads at once, so that robots.txt files that
        #: hang cannot take every download slot from the origins that work.
        self._robots_slots = DeferredSemaphore(concurrency)
        self._lease_seconds = self.config.lease_timeout or (
            self._robots_timeout * (MAX_REDIRECTS + 1) + 5
        )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    # ------------------------------------------------------------------ public API

    def rules_for(self, url: str) -> RobotsTxt | None:
        """The cached rules of ``url``'s origin (any freshness), or ``None``."""
        origin = origin_of(url)
        entry = self.cache.get(origin) if origin is not None else None
        return entry.rules if entry is not None else None

    def sitemaps_for(self, url: str) -> tuple[str, ...]:
        """The ``Sitemap:`` URLs of ``url``'s origin's cached robots.txt (SPEC §5)."""
        rules = self.rules_for(url)
        return rules.sitemaps if rules is not None else ()

    def held_requests(self) -> dict[str, int]:
        """How many requests wait for each origin's robots.txt (being downloaded, or
        unreachable and retried)."""
        return {str(origin): len(requests) for origin, requests in self._held.items()}

    # ------------------------------------------------------------------ the request path

    async def process_request(
        self, request: Request, spider: Spider | None = None
    ) -> Request | Response | None:
        if request.meta.get("dont_obey_robotstxt"):
            return None
        origin = self._origin(request)
        if origin is None:
            return None  # data:, file:, about: (SPEC §3)
        entry = self._entry(origin, request)
        if entry is None:
            if request not in self._to_hold:
                if self._held_count >= self.config.max_held_requests:
                    self._inc("rep/requests/dropped/held_limit")
                    message = (
                        f"Dropped: robots.txt of {origin} not known yet and "
                        f"{self._held_count} requests already held (REP_MAX_HELD_REQUESTS)"
                    )
                    self._refuse(request, "held_limit", message)
                self._to_hold.add(request)
                return request  # caught by _request_scheduled and held
            # It came straight back: engine.download_async(), not the scheduler, sent
            # it. It cannot leave the downloader, so it waits here.
            self._to_hold.discard(request)
            entry = await self._wait_for(origin)
            if entry is None:
                self._inc("rep/requests/dropped/spider_closed")
                raise IgnoreRequest(f"robots.txt of {origin} not known when the spider closed")
        if "/robots.txt" in request.url and request.method == "GET" and _is_robots_path(request):
            cached = self._cached_robots_response(request, entry)
            if cached is not None:
                return cached
        self._enforce(request, origin, entry)
        return None

    def _origin(self, request: Request) -> Origin | None:
        match = _ORIGIN_PART.match(request.url)
        key = match.group() if match else request.url
        try:
            return self._origins[key]
        except KeyError:
            if len(self._origins) >= _MAX_ORIGIN_MEMO:
                self._origins.clear()
            origin = self._origins[key] = origin_of(request.url)
            return origin

    def _entry(self, origin: Origin, request: Request) -> CacheEntry | None:
        """The usable cache entry of ``origin``; ``None`` means "hold" (a download runs)."""
        now = self._clock()
        entry = self.cache.get(origin)
        if entry is not None:
            freshness = entry.freshness(now)
            if freshness is Freshness.FRESH:
                return entry
            if freshness is Freshness.STALE:
                # Refresh in the background; the old copy stays in use meanwhile and
                # while refreshes fail, up to REP_CACHE_STALE_MAX (SPEC §4).
                state = self._states.get(origin)
                if state is None or (not state.fetching and now >= state.retry_at):
                    self._start_download(origin, request)
                return entry
            self.cache.discard(origin)
        state = self._states.get(origin)
        if state is None or not (state.fetching or state.timer is not None):
            self._start_download(origin, request)
        return None

    def _enforce(self, request: Request, origin: Origin, entry: CacheEntry) -> None:
        agent = self._agent(request)
        rules = entry.rules
        if rules.allowed(request.url, agent):
            if entry.unreachable:
                self._inc("rep/requests/allowed_unreachable")
            if self.obey_crawl_delay:
                self._apply_crawl_delay(request, origin, rules, agent)
            return
        if entry.unreachable:
            reason = "robotstxt_unreachable"
            message = f"Dropped: robots.txt of {origin} {entry.outcome}"
        else:
            reason = "forbidden"
            self._inc("robotstxt/forbidden")
            decision = rules.decide(request.url, agent)
            where = (
                f"line {decision.line}: {decision.line_text}"
                if decision.line is not None
                else decision.reason
            )
            message = f"Forbidden by {origin.robots_url} ({where})"
        self._inc(f"rep/requests/dropped/{reason}")
        self._refuse(request, reason, message)

    def _refuse(self, request: Request, reason: str, message: str) -> NoReturn:
        rep_signals.send_refused(self.crawler, logger, request, reason, message)
        raise IgnoreRequest(message)

    def _agent(self, request: Request) -> str:
        if self._robotstxt_agent:
            return self._robotstxt_agent
        if not request.headers:  # usual: Scrapy's UserAgentMiddleware runs after us
            return self._default_agent
        header = request.headers.get(b"User-Agent")
        return header.decode("latin-1") if header else self._default_agent

    def _apply_crawl_delay(
        self, request: Request, origin: Origin, rules: RobotsTxt, agent: str
    ) -> None:
        """SPEC §5: the origin's requests get a download delay of at least its
        ``Crawl-delay``, capped by ``REP_CRAWL_DELAY_MAX``, and no other origin does.

        Scrapy's download slots are per host, so an origin with a delay gets a slot of
        its own (``request.meta["download_slot"]`` = the origin), unless the request
        names a slot already; then that slot gets the delay.
        """
        delay = rules.crawl_delay(agent)
        if not delay:
            return
        delay = min(delay, self.config.crawl_delay_max)
        engine = self._engine()
        if engine is None or delay <= 0:
            return
        key = request.meta.setdefault("download_slot", str(origin))
        downloader = engine.downloader
        slot = downloader.slots.get(key)
        if slot is not None and slot.delay < delay:
            slot.delay = delay  # AutoThrottle may have lowered it
        if self._slot_delays.get(key, 0.0) >= delay:
            return
        first_time = key not in self._slot_delays
        self._slot_delays[key] = delay
        slot_settings = dict(downloader.per_slot_settings.get(key, {}))
        slot_settings["delay"] = max(float(slot_settings.get("delay", 0.0)), delay)
        downloader.per_slot_settings[key] = slot_settings  # for the slot made next
        if len(self._slot_delays) > _MAX_SLOT_SETTINGS:
            # Bounded memory in broad crawls: forget the oldest; its next request with a
            # Crawl-delay sets it again.
            oldest, _ = self._slot_delays.popitem(last=False)
            downloader.per_slot_settings.pop(oldest, None)
        if not first_time:
            return
        self._inc("rep/crawl_delay/origins")
        logger.info(
            "Crawl-delay of %s: %.3g s between requests (download slot %r)",
            origin,
            delay,
            key,
            extra={"spider": self.crawler.spider},
        )

    def _cached_robots_response(self, request: Request, entry: CacheEntry) -> Response | None:
        """A spider's own request for a robots.txt we have (a SitemapSpider's
        ``sitemap_urls``), answered from the cache: no second download (SPEC §5)."""
        if entry.unreachable or entry.status is None:
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
            url=request.url,
            status=status,
            headers=headers,
            body=body,
            flags=["cached", "scrapy_rep"],
            request=request,
        )

    # ------------------------------------------------------------------ holding

    def _request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        if request not in self._to_hold:
            return
        self._to_hold.discard(request)
        origin = self._origin(request)
        assert origin is not None  # only requests with an origin are held
        self._held.setdefault(origin, []).append(request)
        self._held_count += 1
        self._inc("rep/requests/held")
        self.crawler.signals.send_catch_log(
            rep_signals.request_held, request=request, origin=str(origin)
        )
        if self._resolved(origin):  # the download finished in between
            _call_later(0, self._release, origin)
        raise IgnoreRequest("held until robots.txt is known")  # not enqueued, not logged

    def _resolved(self, origin: Origin) -> bool:
        entry = self.cache.get(origin)
        return entry is not None and entry.freshness(self._clock()) is not Freshness.EXPIRED

    def _release(self, origin: Origin, state: _OriginState | None = None) -> None:
        """Schedule the held requests of ``origin`` again; its rules are known now."""
        if state is not None:
            self._fire(state)
        engine = self._engine()
        if self._closed or engine is None or origin not in self._held:
            return
        held = self._held.pop(origin)
        self._held_count -= len(held)
        failures = state.failures if state is not None else 0
        self._inc("rep/requests/released", len(held))
        if failures:
            self._inc("rep/requests/released_after_unreachable", len(held))
        for request in held:
            self.crawler.signals.send_catch_log(
                rep_signals.request_released,
                request=request,
                origin=str(origin),
                failures=failures,
            )
            # dont_filter: the dupefilter saw it already when it was first scheduled.
            engine.crawl(request.replace(dont_filter=True))

    @staticmethod
    def _fire(state: _OriginState) -> None:
        """Wake the requests waiting inside ``process_request`` for this origin."""
        waiters, state.waiters = state.waiters, []
        for waiter in waiters:
            waiter.callback(None)

    async def _wait_for(self, origin: Origin) -> CacheEntry | None:
        while not self._closed:
            state = self._states.get(origin)
            if state is None or not (state.fetching or state.timer is not None):
                break
            waiter: Deferred[None] = Deferred()
            state.waiters.append(waiter)
            await maybe_deferred_to_future(waiter)
        entry = self.cache.get(origin)
        return entry if entry is not None and self._resolved(origin) else None

    def _spider_idle(self) -> None:
        """Keep the spider open while requests are held (SPEC §4), and make sure every
        origin holding requests has a download or a retry under way."""
        for origin, held in list(self._held.items()):
            state = self._states.get(origin)
            if self._resolved(origin):
                self._release(origin, state)
            elif state is None or not (state.fetching or state.timer is not None):
                self._start_download(origin, held[0])
        if self._held or any(s.fetching for s in self._states.values()):
            raise DontCloseSpider

    # ------------------------------------------------------------------ downloading

    def _watch_downloads(self) -> None:
        """Listen to ``headers_received``/``bytes_received`` only while a robots.txt
        download runs: these signals come for every chunk of every response, and a
        receiver makes each of them cost a call."""
        fetching = any(state.fetching for state in self._states.values())
        if fetching == self._watching_downloads:
            return
        self._watching_downloads = fetching
        change = self.crawler.signals.connect if fetching else self.crawler.signals.disconnect
        change(self._bytes_received, signal=signals.bytes_received)
        change(self._headers_received, signal=signals.headers_received)

    def _start_download(self, origin: Origin, trigger: Request) -> None:
        state = self._states.setdefault(origin, _OriginState())
        state.fetching = True
        self._watch_downloads()
        state.trigger = state.trigger or trigger
        task = deferred_from_coro(self._refresh(origin, state))
        self._tasks.add(task)

        def done(result: Any) -> None:
            self._tasks.discard(task)
            if isinstance(result, Failure):
                logger.error(
                    "scrapy_rep: robots.txt handling of %s failed",
                    origin,
                    exc_info=failure_to_exc_info(result),
                    extra={"spider": self.crawler.spider},
                )

        task.addBoth(done)

    async def _refresh(self, origin: Origin, state: _OriginState) -> None:
        """One robots.txt download for ``origin`` and what follows from it; with a shared
        store, first what another process found, and the lease held until the outcome
        is shared (so no other process downloads the same file meanwhile)."""
        state.timer = None
        leased: bool | None = False
        try:
            if await self._adopt_shared(origin, state):
                return
            leased = await self._lease(origin, state)
            if leased is None:
                return  # another process finished the download meanwhile
            queued_at = self._clock()
            await maybe_deferred_to_future(self._robots_slots.acquire())
            if state.failing_since is not None:  # our queue, not the site, made it wait
                state.queued += self._clock() - queued_at
            try:
                fetched = await self._download(origin)
            except Exception as error:  # a bug, ours or another component's: never stall
                logger.exception("scrapy_rep: downloading the robots.txt of %s failed", origin)
                fetched = _Fetched(Effect.UNREACHABLE, f"unreachable (internal error: {error!r})")
            finally:
                self._robots_slots.release()
            state.fetching = False
            if not self._closed:
                await self._apply(origin, state, fetched)
        finally:
            state.fetching = False
            self._watch_downloads()
            if leased:
                await self._store_op(lambda: self.store.release(str(origin)), None)

    async def _apply(self, origin: Origin, state: _OriginState, fetched: _Fetched) -> None:
        """SPEC §4: cache what a download came to, or hold and retry, or give up."""
        now = self._clock()
        if fetched.effect is Effect.UNREACHABLE:
            self._failed(origin, state, fetched, now)
            await self._share(origin, state, now)
            return
        rules = (
            parse_robotstxt(fetched.body, self.config.profile)
            if fetched.effect is Effect.PARSE
            else ALLOW_ALL
        )
        config = self.config
        lifetime = cache_lifetime(
            fetched.cache_control, config.cache_ttl, config.cache_min_ttl, config.cache_max_ttl
        )
        body_zlib = zlib.compress(fetched.body) if fetched.effect is Effect.PARSE else b""
        entry = CacheEntry(
            rules,
            fetched.outcome,
            now,
            now + lifetime,
            now + lifetime + config.cache_stale_max,
            fetched.status,
            body_zlib,
        )
        self._store(origin, entry)
        await self._share(origin, _OriginState(), now)  # a success: no failures to share
        logger.debug(
            "robots.txt of %s: %s", origin, fetched.outcome, extra={"spider": self.crawler.spider}
        )
        if state.failures:
            logger.info(
                "robots.txt of %s is back after %d failed attempt(s): %s",
                origin,
                state.failures,
                fetched.outcome,
                extra={"spider": self.crawler.spider},
            )
        self._states.pop(origin, None)
        await self._send_signals(origin, entry, state.trigger)
        self._release(origin, state)

    def _failed(self, origin: Origin, state: _OriginState, fetched: _Fetched, now: float) -> None:
        """SPEC §4: 429, 5xx, network error: stale copy, hold and retry, or give up."""
        config = self.config
        state.failures += 1
        state.last_reason = fetched.outcome
        self._fetched_signal(origin, DISALLOW_ALL, fetched.outcome, fetched.status)
        if state.failing_since is None:
            state.failing_since = now
        delay = retry_delay(
            state.failures - 1,
            config.unreachable_retry_delay,
            max(config.unreachable_retry_delay, config.unreachable_max_wait),
            fetched.retry_after,
        )
        old = self.cache.get(origin)
        if old is not None and old.freshness(now) is Freshness.STALE and not old.unreachable:
            state.retry_at = now + delay
            self._inc("rep/robotstxt/stale_kept")
            logger.info(
                "robots.txt of %s: %s; keeping the copy fetched %.0f s ago, next try in %.0f s",
                origin,
                fetched.outcome,
                now - old.fetched_at,
                delay,
                extra={"spider": self.crawler.spider},
            )
            self._release(origin, state)
            return
        waited = now - state.failing_since - state.queued
        if waited >= config.unreachable_max_wait:
            self._give_up(origin, state, now, waited)
            return
        delay = min(delay, config.unreachable_max_wait - waited)
        logger.info(
            "robots.txt of %s: %s; holding its %d request(s), retry %d in %.3g s",
            origin,
            fetched.outcome,
            len(self._held.get(origin, ())),
            state.failures,
            delay,
            extra={"spider": self.crawler.spider},
        )
        state.retry_at = now + delay
        state.timer = _call_later(delay, self._retry, origin, state)

    def _retry(self, origin: Origin, state: _OriginState) -> None:
        state.timer = None
        if self._closed or self._states.get(origin) is not state:
            return
        self._inc("rep/robotstxt/retries")
        self._start_download(origin, state.trigger or Request(origin.robots_url))

    def _give_up(self, origin: Origin, state: _OriginState, now: float, waited: float) -> None:
        """``REP_UNREACHABLE_MAX_WAIT`` is over and no good copy exists: drop or allow."""
        allow = self.config.unreachable_action == "allow"
        verdict = "treated as allowed (REP_UNREACHABLE_ACTION)" if allow else "requests dropped"
        outcome = f"unreachable for {waited:.0f} s ({state.last_reason}): {verdict}"
        # The verdict lasts REP_UNREACHABLE_MAX_WAIT, doubling each time the same origin
        # is given up on again (a dead site is not probed every few seconds all crawl
        # long), at most REP_CACHE_TTL.
        times = self._gave_up.pop(origin, 0) + 1
        self._gave_up[origin] = times
        if len(self._gave_up) > _MAX_SLOT_SETTINGS:
            self._gave_up.popitem(last=False)
        base = max(self.config.unreachable_max_wait, self.config.unreachable_retry_delay)
        lifetime = min(base * 2 ** min(times - 1, 30), max(base, self.config.cache_ttl))
        entry = CacheEntry(
            ALLOW_ALL if allow else DISALLOW_ALL,
            outcome,
            now,
            now + lifetime,
            now + lifetime,
            None,
            unreachable=True,
        )
        self._store(origin, entry)
        self._states.pop(origin, None)
        self._inc("rep/robotstxt/gave_up")
        self._fetched_signal(origin, entry.rules, outcome, None)
        # A WARNING the first time per origin, INFO when it stays down.
        level = logging.WARNING if times == 1 else logging.INFO
        logger.log(
            level,
            "robots.txt of %s %s; %d held request(s) %s",
            origin,
            outcome,
            len(self._held.get(origin, ())),
            "go on" if allow else "will be dropped",
            extra={"spider": self.crawler.spider},
        )
        self._release(origin, state)

    def _store(self, origin: Origin, entry: CacheEntry) -> None:
        self.cache.put(origin, entry)
        if self.cache.evictions != self._evictions_reported:
            self._evictions_reported = self.cache.evictions
            if self.stats is not None:
                self.stats.set_value("rep/robotstxt/cache_evictions", self.cache.evictions)

    # ------------------------------------------------------------------ shared store

    async def _store_op(self, operation: Callable[[], Awaitable[Any]], default: Any) -> Any:
        """Run one store operation; on an outage carry on with the local cache (and say
        so once), on a corrupt record count it and act as if there were none."""
        if not self.store.consulted or self._clock() < self._store_down_until:
            return default
        try:
            return await operation()
        except StoreCorrupt as error:
            self._inc("rep/robotstxt/store_corrupt")
            logger.warning("scrapy_rep: ignoring a %s record: %s", self.store.name, error)
            return default
        except Exception as error:
            self._inc("rep/robotstxt/store_errors")
            self._store_down_until = self._clock() + STORE_RETRY_AFTER
            logger.warning(
                "scrapy_rep: the %s robots.txt cache is unavailable (%s); this process "
                "carries on with its own cache and tries again in %.0f s",
                self.store.name,
                _describe(error),
                STORE_RETRY_AFTER,
                extra={"spider": self.crawler.spider},
            )
            return default

    async def _adopt_shared(self, origin: Origin, state: _OriginState) -> bool:
        """Use what another process found for ``origin``, if it still holds: its rules,
        or its "unreachable, next try at T" schedule. True when nothing is left to do."""
        record = await self._store_op(lambda: self.store.load(str(origin)), None)
        if record is None:
            return False
        now = self._clock()
        try:
            entry = _entry_from_record(record, self.config.profile)
        except StoreCorrupt as error:
            self._inc("rep/robotstxt/store_corrupt")
            logger.warning("scrapy_rep: ignoring a %s record: %s", self.store.name, error)
            return False
        if record.fresh_until > now:
            self._store(origin, entry)
            self._states.pop(origin, None)
            self._inc("rep/robotstxt/store_hits")
            await self._send_signals(
                origin, entry, state.trigger, f" (from the {self.store.name} cache)"
            )
            self._release(origin, state)
            return True
        if record.retry_at <= now:
            return False  # stale, nobody is trying: this process downloads (or waits)
        state.failures = max(state.failures, record.failures)
        state.failing_since = record.failing_since or state.failing_since
        self._inc("rep/robotstxt/store_schedule_followed")
        if record.stale_until > now and record.verdict is None and record.body_zlib:
            self._store(origin, entry)  # the stale copy goes on being used
            state.retry_at = record.retry_at
            self._release(origin, state)
            return True
        state.timer = _call_later(record.retry_at - now, self._retry, origin, state)
        return True

    async def _lease(self, origin: Origin, state: _OriginState) -> bool | None:
        """Become the one process downloading ``origin``'s robots.txt: True (leased),
        False (no shared store, or it is down: download anyway), None (another process
        finished meanwhile and its result was adopted)."""
        if not self.store.consulted:
            return False
        while not self._closed:
            leased = await self._store_op(
                lambda: self.store.acquire(str(origin), self._lease_seconds), None
            )
            if leased is None:
                return False  # the store is down: download without it
            if leased:
                return True
            await maybe_deferred_to_future(_sleep(LEASE_POLL))
            if await self._adopt_shared(origin, state):
                return None
        return None

    async def _share(self, origin: Origin, state: _OriginState, now: float) -> None:
        """Tell the other processes what this download came to (SPEC §4, issue 7)."""
        if not self.store.consulted:
            return
        entry = self.cache.get(origin)
        usable = entry is not None and entry.freshness(now) is not Freshness.EXPIRED
        if entry is not None and usable:
            record = SharedRecord(
                str(origin),
                entry.body_zlib,
                entry.rules.verdict if not entry.body_zlib else None,
                entry.status,
                entry.outcome,
                entry.fetched_at,
                entry.fresh_until,
                entry.stale_until,
                entry.unreachable,
                state.failures,
                state.failing_since,
                state.retry_at if state.failures else 0.0,
            )
        else:  # failing, nothing usable: share the schedule only
            record = SharedRecord(
                str(origin),
                b"",
                False,
                None,
                state.last_reason,
                now,
                0.0,
                0.0,
                False,
                state.failures,
                state.failing_since,
                state.retry_at,
            )
        keep_for = max(record.stale_until, record.retry_at, record.fresh_until) - now
        await self._store_op(lambda: self.store.save(record, keep_for), None)

    async def _download(self, origin: Origin) -> _Fetched:
        """Download ``origin``'s robots.txt, following up to 5 redirects (SPEC §4)."""
        engine = self._engine()
        assert engine is not None
        url = origin.robots_url
        seen = {url}
        status: int | None = None
        for _ in range(MAX_REDIRECTS + 1):
            request = self._robots_request(url, origin)
            self._inc("robotstxt/request_count")
            try:
                response = await engine.download_async(request)
            except Exception as error:  # DNS, timeout, refused/reset, truncated, ignored
                self._inc(f"robotstxt/exception_count/{type(error)}")
                self._inc("rep/robotstxt/outcome/network_error")
                return _Fetched(Effect.UNREACHABLE, f"unreachable ({_describe(error)})")
            status = response.status
            self._inc("robotstxt/response_count")
            self._inc(f"robotstxt/response_status_count/{status}")
            location = response.headers.get(b"Location")
            effect = effect_of_status(status, has_location=bool(location))
            if effect is Effect.FOLLOW:
                assert location is not None
                target = urljoin(response.url, location.decode("latin-1").strip())
                if not may_follow(target):
                    self._inc("rep/robotstxt/outcome/bad_redirect")
                    return _Fetched(
                        Effect.ALLOW_ALL,
                        f"{status}: redirect to {target[:200]} not followed, treated as 404",
                        status,
                    )
                if target in seen:
                    self._inc("rep/robotstxt/outcome/redirect_loop")
                    return _Fetched(
                        Effect.ALLOW_ALL,
                        f"{status}: redirect loop at {target}, treated as 404",
                        status,
                    )
                seen.add(target)
                url = target
                continue
            return self._fetched(origin, response, effect)
        self._inc("rep/robotstxt/outcome/too_many_redirects")
        return _Fetched(
            Effect.ALLOW_ALL, f"more than {MAX_REDIRECTS} redirects: treated as 404", status
        )

    def _fetched(self, origin: Origin, response: Response, effect: Effect) -> _Fetched:
        status = response.status
        cache_control = _header(response, b"Cache-Control")
        via = "" if response.url == origin.robots_url else f", via redirect to {response.url}"
        if effect is Effect.PARSE:
            body = response.body
            cut = len(body) > MAX_BODY_BYTES or "download_stopped" in response.flags
            self._inc("rep/robotstxt/outcome/parsed")
            if cut:
                self._inc("rep/robotstxt/outcome/truncated")
            size = f"{min(len(body), MAX_BODY_BYTES):,} bytes" + (", cut at 500 KiB" if cut else "")
            return _Fetched(
                effect,
                f"{status} ({size}{via})",
                status,
                body[:MAX_BODY_BYTES],
                cache_control,
            )
        if effect is Effect.UNREACHABLE:
            self._inc("rep/robotstxt/outcome/unreachable")
            return _Fetched(
                effect,
                f"{status}: temporarily everything disallowed{via}",
                status,
                retry_after=retry_after_seconds(_header(response, b"Retry-After")),
            )
        self._inc("rep/robotstxt/outcome/allow_all")
        return _Fetched(
            Effect.ALLOW_ALL,
            f"{status}: no robots.txt, everything allowed{via}",
            status,
            cache_control=cache_control,
        )

    def _robots_request(self, url: str, origin: Origin) -> Request:
        return Request(
            url,
            priority=self.DOWNLOAD_PRIORITY,
            callback=NO_CALLBACK,
            dont_filter=True,
            meta={
                "dont_obey_robotstxt": True,
                "dont_redirect": True,  # we count the hops (SPEC §4)
                "dont_retry": True,  # we retry with backoff
                "handle_httpstatus_all": True,
                "allow_offsite": True,  # a cross-host redirect is still followed
                "download_maxsize": 0,  # we stop at 500 KiB ourselves, without failing
                "download_warnsize": 0,
                "download_timeout": self._robots_timeout,
                ROBOTS_REQUEST_KEY: str(origin),
            },
        )

    def _headers_received(self, headers: Any, request: Request, **_: Any) -> None:
        """A compressed robots.txt may not inflate beyond ``MAX_INFLATED_BYTES``: Scrapy's
        decompression reads the same ``download_maxsize`` that we set to 0 (unlimited)
        so that a large plain robots.txt is cut at 500 KiB instead of refused."""
        if ROBOTS_REQUEST_KEY not in request.meta:
            return
        encoding = headers.get(b"Content-Encoding") or b""
        if encoding.strip().lower() not in (b"", b"identity"):
            request.meta["download_maxsize"] = MAX_INFLATED_BYTES

    def _bytes_received(self, data: bytes, request: Request, spider: Any = None) -> None:
        """SPEC §4: stop a robots.txt download after 500 KiB (parse what came)."""
        if ROBOTS_REQUEST_KEY not in request.meta:
            return
        received = request.meta.get("_rep_bytes", 0) + len(data)
        request.meta["_rep_bytes"] = received
        if received >= MAX_BODY_BYTES:
            raise StopDownload(fail=False)

    async def _send_signals(
        self, origin: Origin, entry: CacheEntry, trigger: Request | None, note: str = ""
    ) -> None:
        await self.crawler.signals.send_catch_log_async(
            signal=signals.robots_parsed,
            robotparser=RobotParser.from_rules(entry.rules),
            request=trigger,
        )
        self._fetched_signal(origin, entry.rules, entry.outcome + note, entry.status)

    def _fetched_signal(
        self, origin: Origin, rules: RobotsTxt, outcome: str, status: int | None
    ) -> None:
        self.crawler.signals.send_catch_log(
            signal=rep_signals.robotstxt_fetched,
            origin=str(origin),
            robots_url=origin.robots_url,
            rules=rules,
            outcome=outcome,
            status=status,
            sitemaps=rules.sitemaps,
        )

    # ------------------------------------------------------------------ pause/resume

    def _state_path(self) -> Path | None:
        directory = job_dir(self.crawler.settings)
        return Path(directory) / STATE_FILE if directory else None

    def _spider_opened(self, spider: Spider) -> None:
        engine = self._engine()
        #: The crawl's scheduler: with scrapy-redis, held requests go back to its queue.
        self._scheduler = getattr(getattr(engine, "_slot", None), "scheduler", None)
        load_error = getattr(self.store, "load_error", "")
        if load_error:
            logger.warning(
                "scrapy_rep: the robots.txt cache in JOBDIR is unreadable (%s)", load_error
            )
        path = self._state_path()
        if path is None or not path.exists():
            return
        try:
            with path.open("rb") as file:
                saved = pickle.load(file)  # our own file in JOBDIR
            if saved.get("version") != _STATE_VERSION:
                raise ValueError(f"unknown version {saved.get('version')!r}")
        except Exception as error:
            logger.warning("scrapy_rep: cannot read %s (%s); starting afresh", path, error)
            return
        held = [request_from_dict(data, spider=spider) for data in saved["held"]]
        for request in held:
            assert engine is not None
            engine.crawl(request.replace(dont_filter=True))
        self._inc("rep/requests/resumed", len(held)) if held else None
        logger.info("scrapy_rep: resumed %d held request(s) from %s", len(held), path)

    async def _spider_closed(self, spider: Spider, reason: str) -> None:
        self._closed = True
        try:
            self._keep_or_drop_held(spider, reason)
        finally:
            try:
                await self.store.close()
            except Exception as error:
                logger.debug("scrapy_rep: closing the %s store: %s", self.store.name, error)

    def _keep_or_drop_held(self, spider: Spider, reason: str) -> None:
        for state in self._states.values():
            if state.timer is not None and state.timer.active():
                state.timer.cancel()
            self._fire(state)
        held = [request for requests in self._held.values() for request in requests]
        path = self._state_path()
        if path is not None:
            self._save(path, held, spider)
            return
        if held and self._return_to_shared_queue(held, reason):
            return
        for request in held:
            self.crawler.signals.send_catch_log(
                rep_signals.request_refused,
                request=request,
                reason="spider_closed",
                message=f"Not downloaded: the spider closed ({reason}) while it was held",
                response=None,
            )
        if held:
            self._inc("rep/requests/dropped/spider_closed", len(held))
            logger.warning(
                "scrapy_rep: the spider closed (%s) with %d request(s) held for unreachable "
                "robots.txt (%s); they were not downloaded. Set JOBDIR to keep them.",
                reason,
                len(held),
                ", ".join(f"{o}: {len(r)}" for o, r in self._held.items()),
            )

    def _return_to_shared_queue(self, held: list[Request], reason: str) -> bool:
        """With scrapy-redis's scheduler and ``SCHEDULER_PERSIST``, a worker that stops
        puts its held requests back into the shared queue, for the other workers."""
        scheduler = self._scheduler
        queue = getattr(scheduler, "queue", None)
        if (
            scheduler is None
            or type(scheduler).__module__.split(".")[0] != "scrapy_redis"
            or not getattr(scheduler, "persist", False)
            or not hasattr(queue, "push")
        ):
            return False
        returned = 0
        for request in held:
            try:
                queue.push(request.replace(dont_filter=True))  # type: ignore[union-attr]
                returned += 1
            except Exception as error:
                self._inc("rep/requests/dropped/spider_closed")
                logger.warning("scrapy_rep: cannot return %s to the queue: %s", request, error)
        self._inc("rep/requests/returned_to_queue", returned)
        logger.info(
            "scrapy_rep: the spider closed (%s); %d held request(s) went back to the "
            "shared scrapy-redis queue",
            reason,
            returned,
        )
        return True

    def _save(self, path: Path, held: list[Request], spider: Spider) -> None:
        saved_held = []
        for request in held:
            try:
                saved_held.append(request.to_dict(spider=spider))
            except ValueError as error:  # a callback that is not a spider method
                self._inc("rep/requests/dropped/not_serializable")
                logger.warning("scrapy_rep: cannot keep held %s in JOBDIR: %s", request, error)
        state = {"version": _STATE_VERSION, "held": saved_held}
        temporary = path.with_suffix(".tmp")
        with temporary.open("wb") as file:
            pickle.dump(state, file, protocol=pickle.HIGHEST_PROTOCOL)
        temporary.replace(path)
        logger.info("scrapy_rep: kept %d held request(s) in %s", len(saved_held), path)

    def _engine(self) -> ExecutionEngine | None:
        """The running engine, or ``None`` before the crawl starts and after it ends."""
        try:
            return self.crawler.engine
        except RuntimeError:  # Scrapy 2.19: "Crawler.engine is not set yet"
            return None

    def _inc(self, key: str, count: int = 1) -> None:
        if self.stats is not None:
            self.stats.inc_value(key, count)


def _entry_from_record(record: SharedRecord, profile: str) -> CacheEntry:
    """A local cache entry from a store's record (JOBDIR, Redis): its body inflated to
    500 KiB at most whatever the record says, or the allow/disallow-all stand-in."""
    if record.body_zlib:
        try:
            body = zlib.decompressobj().decompress(record.body_zlib, MAX_BODY_BYTES)
        except zlib.error as error:
            raise StoreCorrupt(f"body does not inflate: {error}") from None
        rules = parse_robotstxt(body, profile)
    else:
        rules = ALLOW_ALL if record.verdict else DISALLOW_ALL
    return CacheEntry(
        rules,
        record.outcome,
        record.fetched_at,
        record.fresh_until,
        record.stale_until,
        record.status,
        record.body_zlib,
        record.unreachable,
    )


def _sleep(seconds: float) -> Deferred[None]:
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    return deferLater(cast(Any, reactor), seconds)


def _describe(error: BaseException) -> str:
    """One short line for a download error (Twisted's ``ResponseFailed`` wraps a list of
    failures: name the first)."""
    while error.__cause__ is not None and not getattr(error, "reasons", None):
        error = error.__cause__  # Scrapy's DownloadFailedError wraps Twisted's error
    reasons = getattr(error, "reasons", None)
    if reasons:
        first = reasons[0]
        error = getattr(first, "value", first)
    text = str(error).strip()
    name = type(error).__name__
    line = f"{name}: {text}" if text and not text.startswith(name) else (text or name)
    return line if len(line) <= 200 else line[:199] + "…"


def _is_robots_path(request: Request) -> bool:
    parts = urlparse_cached(request)
    return parts.path == "/robots.txt" and not parts.query


def _header(response: Response, name: bytes) -> str | None:
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None


def _call_later(delay: float, function: Callable[..., Any], *args: Any) -> Any:
    """``reactor.callLater``; the reactor is imported late so that importing this module
    never installs one."""
    from twisted.internet import reactor

    return cast(Any, reactor).callLater(delay, function, *args)
