"""robots.txt enforcement in a crawl: the downloader middleware (SPEC §3-§5), and the
crawl's purpose checked against the origin's AI-usage signals before a request is sent.

A thin adapter. :mod:`scrapy_rep.lifecycle` makes every fetch decision of SPEC §4 (when
to download, retry, keep a stale copy, give up, share); this class only sequences:

- ``process_request`` asks the origin's document (:mod:`scrapy_rep.crawl.documents`)
  for its usable copy. With one, :mod:`scrapy_rep.crawl.robotsgate` decides at once:
  allowed requests go on (crawl-delay through :mod:`scrapy_rep.crawl.slots`), forbidden
  ones raise ``IgnoreRequest`` naming the robots.txt line. Without one, the request is
  *held*: returned from ``process_request`` (Scrapy schedules it again) and caught in
  ``request_scheduled`` (which drops a scheduled request when a handler raises
  ``IgnoreRequest``), so it leaves the downloader and takes none of the crawl's
  concurrency (:mod:`scrapy_rep.crawl.holding` keeps it).
- Each document's :class:`~scrapy_rep.crawl.actions.ActionRunner` carries out the
  lifecycle's actions (downloads, store calls, timers, stats, logs, signals) and calls
  :meth:`RobotsTxtMiddleware._release`, which schedules the held requests again, each
  carrying the verdict it was released with.
- For AI purposes (``REP_PURPOSE``) the origin's tdmrep.json is a second document, kept
  by a second lifecycle of the same kind, and held requests wait for it the same way;
  :mod:`scrapy_rep.crawl.usagegate` then refuses what the site's signals deny.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn
from weakref import WeakKeyDictionary

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from scrapy_rep import signals as rep_signals
from scrapy_rep.cache import CacheEntry
from scrapy_rep.crawl.actions import call_later
from scrapy_rep.crawl.conflicts import switch_off_scrapy_middleware
from scrapy_rep.crawl.documents import (
    OriginDocument,
    TdmKey,
    document_policy,
    open_store,
    robots_stand_in,
)
from scrapy_rep.crawl.early import cached_entry
from scrapy_rep.crawl.engine_fetch import robots_response_from_cache
from scrapy_rep.crawl.holding import HeldRequests
from scrapy_rep.crawl.obey import Obey, ObeyMode
from scrapy_rep.crawl.robotsgate import RobotsGate
from scrapy_rep.crawl.slots import CrawlDelaySlots
from scrapy_rep.crawl.stores import StoreClient
from scrapy_rep.crawl.usagegate import UsageGate
from scrapy_rep.fetchprocedure import ROBOTS_TXT, TDMREP, Document
from scrapy_rep.origins import Origin, OriginMemo
from scrapy_rep.robotstxt import RobotsTxt, parse_robotstxt
from scrapy_rep.settings import RepConfig
from scrapy_rep.tdmrep import TdmRepFile, parse_tdmrep
from scrapy_rep.usage import tdm_stand_in

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)
Entry = CacheEntry[RobotsTxt]
#: What a released request carries: the entry of each document that decides it.
Carried = dict[str, CacheEntry[Any]]
#: ``_document``'s answer when the request is to be held.
_HOLD: Any = object()


class RobotsTxtMiddleware:
    """Obeys each origin's robots.txt (SPEC §3-§5); replaces Scrapy's middleware."""

    def __init__(
        self,
        crawler: Crawler,
        config: RepConfig | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        settings = crawler.settings
        config = config if config is not None else RepConfig.from_settings(settings)
        #: ROBOTSTXT_OBEY / dont_obey_robotstxt against REP_PURPOSE (NotConfigured if off).
        self.obey = ObeyMode(settings, config)
        self.crawler = crawler
        self.config = config
        self.stats = crawler.stats
        self._clock = clock
        store = open_store(config, settings)
        policy, timeout = document_policy(config, settings, store)
        client = StoreClient(store, clock, self._inc)
        self.held = HeldRequests(crawler, config.max_held_requests)
        self.slots = CrawlDelaySlots(crawler, config.crawl_delay_max)
        #: The robots.txt verdict on each request.
        self.robots = RobotsGate(crawler, config, self.slots, self._refuse)

        def document(kind: Document[Any], parse: Any, stand_in: Any) -> OriginDocument[Any]:
            return OriginDocument(
                crawler, kind, parse, stand_in, config, policy, timeout, client, self._release,
                self.held.count, clock,
            )  # fmt: skip

        self._robots: OriginDocument[RobotsTxt] = document(ROBOTS_TXT, self._parse, robots_stand_in)
        #: The robots.txt of every origin seen, and its lifecycle.
        self.cache, self.lifecycle, self.runner = (
            self._robots.cache, self._robots.lifecycle, self._robots.runner,
        )  # fmt: skip
        #: What the crawl is for, checked against the origin's signals (``REP_PURPOSE``).
        self.usage = UsageGate(crawler, config, self._refuse)
        #: tdmrep.json, a second document per origin, for AI purposes only.
        self._tdm: OriginDocument[TdmRepFile] | None = None
        if self.usage.policy.needs_tdmrep:
            self._tdm = document(TDMREP, self._parse_tdmrep, tdm_stand_in)
        self._documents = (self._robots,) if self._tdm is None else (self._robots, self._tdm)
        self._origins = OriginMemo()
        #: Requests handed back to the engine to be held (see the module docstring), and
        #: the document they wait for.
        self._to_hold: WeakKeyDictionary[Request, OriginDocument[Any]] = WeakKeyDictionary()
        #: Released requests and the entries that decide them, whatever the caches hold
        #: by the time they come back (an entry may have expired or been evicted).
        self._carried: WeakKeyDictionary[Request, Carried] = WeakKeyDictionary()
        self._waiters: dict[tuple[str, Origin], list[Deferred[Any]]] = {}
        self._scheduler: Any = None
        connect = crawler.signals.connect
        # _request_scheduled is connected only while requests wait to be held: a
        # receiver costs every scheduled request a dispatch (issue 25).
        self._listening = False
        connect(self._spider_idle, signal=signals.spider_idle)
        connect(self._spider_opened, signal=signals.spider_opened)
        connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _parse(self, body: bytes) -> RobotsTxt:
        return parse_robotstxt(body, self.config.profile)

    def _parse_tdmrep(self, body: bytes) -> TdmRepFile:
        """tdmrep.json, its invalid (skipped) entries counted (issue 22)."""
        tdm = parse_tdmrep(body)
        if tdm.skipped and self.stats is not None:
            self.stats.inc_value("rep/tdmrep/entries_skipped", tdm.skipped)
        return tdm

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

    def refusal_if_known(self, request: Request) -> Callable[[], bool] | None:
        """When the cached documents already refuse ``request`` (issue 25): a function
        that refuses it as :meth:`process_request` does (counted, logged, signalled,
        audited; it says whether it did). ``None`` otherwise, or when they are not
        cached and fresh: the request goes on as usual. Reads the cache only, never
        starts a fetch. Used by the spider middleware (:mod:`scrapy_rep.crawl.early`)."""
        obey = self.obey.of(request)
        origin = self._origins.get(request.url) if obey is not Obey.NOTHING else None
        if origin is None or request.url.endswith("/robots.txt"):
            return None
        now = self._clock()
        entry = cached_entry(self._robots, origin, now)
        if entry is None:
            return None
        carried: Carried = {ROBOTS_TXT.name: entry}
        agent = self.robots.agent(request)
        if not self.robots.refuses(request.url, entry, agent, obey is Obey.ALL):
            tdm = None
            if self._tdm is not None:
                tdm = cached_entry(self._tdm, origin, now)
                if tdm is None:
                    return None
                carried[TDMREP.name] = tdm
            if not self.usage.refuses(request.url, origin, entry, tdm, agent):
                return None
        return partial(self._refuse_known, request, carried)

    def _refuse_known(self, request: Request, carried: Carried) -> bool:
        """:meth:`process_request` with the entries that refused ``request``."""
        self._carried[request] = carried
        coroutine = self.process_request(request)
        try:
            coroutine.send(None)  # with every entry carried, it never suspends
        except IgnoreRequest:
            return True
        except StopIteration:
            return False
        finally:
            self._carried.pop(request, None)
        coroutine.close()
        return False

    def held_requests(self) -> dict[str, int]:
        """How many requests wait for each origin's robots.txt."""
        return {str(key): self.held.count(key) for key in self.held.origins()}

    # ------------------------------------------------------------------ the request path

    async def process_request(
        self, request: Request, spider: Spider | None = None
    ) -> Request | Response | None:
        obey = self.obey.of(request)
        if obey is Obey.NOTHING:
            return None
        origin = self._origins.get(request.url)
        if origin is None:
            return None  # data:, file:, about: (SPEC §3)
        carried = self._carried.pop(request, None) if self._carried else None
        entry = carried.get(ROBOTS_TXT.name) if carried else None
        if entry is None:
            entry = await self._document(self._robots, origin, request, carried)
            if entry is _HOLD:
                return request  # caught by _request_scheduled and held
        if request.url.endswith("/robots.txt") and request.method == "GET":
            cached = robots_response_from_cache(request, entry)
            if cached is not None:
                self._inc("rep/robotstxt/served_from_cache")
                return cached
        agent = self.robots.agent(request)
        self.robots.check(request, origin, entry, agent, obey_rules=obey is Obey.ALL)
        if self._tdm is None:
            self.usage.check(request, origin, entry, None, agent)
            return None
        tdm = carried.get(TDMREP.name) if carried else None
        if tdm is None:
            carried = {**carried, ROBOTS_TXT.name: entry} if carried else {ROBOTS_TXT.name: entry}
            tdm = await self._document(self._tdm, origin, request, carried)
            if tdm is _HOLD:
                return request
        self.usage.check(request, origin, entry, tdm, agent)
        return None

    async def _document(
        self, kind: OriginDocument[Any], origin: Origin, request: Request, carried: Carried | None
    ) -> Any:
        """The entry of ``kind`` that decides ``request`` now, or :data:`_HOLD`."""
        entry = kind.entry(origin, request)
        if entry is not None:
            return entry
        if request not in self._to_hold:
            if not self._listening:
                self._listening = True
                self.crawler.signals.connect(
                    self._request_scheduled, signal=signals.request_scheduled
                )
            self._to_hold[request] = kind
            if carried:
                self._carried[request] = carried  # kept while it is held
            return _HOLD
        # It came straight back: engine.download_async(), not the scheduler, sent it. It
        # cannot leave the downloader, so it waits here.
        del self._to_hold[request]
        self._carried.pop(request, None)
        entry = await self._wait_for(kind, origin)
        if entry is None:
            self._inc("rep/requests/dropped/spider_closed")
            raise IgnoreRequest(f"{kind.name} of {origin} not known when the spider closed")
        return entry

    def _refuse(self, request: Request, reason: str, message: str) -> NoReturn:
        rep_signals.send_refused(self.crawler, logger, request, reason, message)
        raise IgnoreRequest(message)

    # ------------------------------------------------------------------ holding

    def _request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        kind = self._to_hold.pop(request, None)
        if not self._to_hold:  # not now: the dispatch under way would skip a receiver
            call_later(0, self._stop_listening)
        if kind is None:
            return
        origin = self._origins.get(request.url)
        assert origin is not None  # only requests with an origin are held
        if self.held.add(kind.held_key(origin), request):
            self._inc("rep/requests/spilled")
        self._inc("rep/requests/held")
        self.crawler.signals.send_catch_log(
            rep_signals.request_held, request=request, origin=str(origin)
        )
        entry = kind.usable_entry(origin)
        if entry is not None:  # the download finished in between
            call_later(0, self._release, kind, origin, entry, 0)
        raise IgnoreRequest("held until robots.txt is known")  # not enqueued, not logged

    def _stop_listening(self) -> None:
        if self._listening and not self._to_hold:
            self._listening = False
            self.crawler.signals.disconnect(
                self._request_scheduled, signal=signals.request_scheduled
            )

    def _release(self, kind: Any, origin: Origin, entry: Any, failures: int) -> None:
        """The requests held for ``kind`` of ``origin`` go on, carrying ``entry``."""
        for waiter in self._waiters.pop((kind.name, origin), ()):
            waiter.callback(entry)
        kind.runner.triggers.pop(origin, None)
        engine = self._engine()
        key = kind.held_key(origin)
        if kind.runner.closed or engine is None or key not in self.held:
            return
        if _closing(engine):
            # The spider is closing: a request scheduled now may reach a scheduler that
            # has already saved its queue (JOBDIR) and be lost. It stays held, and is
            # kept (JOBDIR, scrapy-redis) or dropped with a reason when the spider closes.
            return
        released = 0
        for request in self.held.pop(key):
            released += 1
            self.crawler.signals.send_catch_log(
                rep_signals.request_released, request=request, origin=str(origin), failures=failures
            )
            again = request.replace(dont_filter=True)  # the dupefilter saw it already
            carried = self._carried.pop(request, None)
            self._carried[again] = {**carried, kind.name: entry} if carried else {kind.name: entry}
            engine.crawl(again)
        self._inc("rep/requests/released", released)
        if failures:
            self._inc("rep/requests/released_after_unreachable", released)

    async def _wait_for(self, kind: OriginDocument[Any], origin: Origin) -> Any:
        entry = kind.entry(origin, Request(f"{origin}{kind.document.path}"))
        if entry is not None or kind.runner.closed:
            return entry
        waiter: Deferred[Any] = Deferred()
        self._waiters.setdefault((kind.name, origin), []).append(waiter)
        return await maybe_deferred_to_future(waiter)

    def _spider_idle(self) -> None:
        """Keep the spider open while requests are held (SPEC §4), and make sure every
        origin holding requests has its document, a download or a retry under way."""
        for key in self.held.origins():
            kind, origin = (
                (self._tdm, key.origin) if isinstance(key, TdmKey) else (self._robots, key)
            )
            assert kind is not None and isinstance(origin, Origin)
            entry = kind.usable_entry(origin)
            if entry is not None:
                self._release(kind, origin, entry, 0)
            else:
                kind.restart(origin)
        if len(self.held) or any(kind.lifecycle.downloading for kind in self._documents):
            raise DontCloseSpider

    # ------------------------------------------------------------------ open and close

    def _spider_opened(self, spider: Spider) -> None:
        engine = self._engine()
        switch_off_scrapy_middleware(self.crawler, engine)  # set up by hand, both enabled
        #: The crawl's scheduler: with scrapy-redis, held requests go back to its queue.
        self._scheduler = getattr(getattr(engine, "_slot", None), "scheduler", None)
        load_error = getattr(self.runner.store.store, "load_error", "")
        if load_error:
            logger.warning(
                "scrapy_rep: the robots.txt cache in JOBDIR is unreadable (%s)", load_error
            )
        resumed = self.held.resume(spider, engine)
        if resumed:
            self._inc("rep/requests/resumed", resumed)

    async def _spider_closed(self, spider: Spider, reason: str) -> None:
        for kind in self._documents:
            kind.runner.close()
        if self.stats is not None:
            self.stats.set_value("rep/robotstxt/cache_evictions", self.cache.evictions)
            self.stats.set_value("rep/robotstxt/cache_reparsed", self.cache.reparsed)
        try:
            for waiters in self._waiters.values():
                for waiter in waiters:
                    waiter.callback(None)
            self._waiters.clear()
            self.held.close(spider, reason, self._scheduler)
        finally:
            await self.runner.store.close()

    def _engine(self) -> Any:
        """The running engine, or ``None`` before the crawl starts and after it ends."""
        try:
            return self.crawler.engine
        except RuntimeError:  # Scrapy 2.19: "Crawler.engine is not set yet"
            return None

    def _inc(self, key: str, count: int = 1) -> None:
        if self.stats is not None:
            self.stats.inc_value(key, count)


def _closing(engine: Any) -> bool:
    """Whether the engine is closing the spider (Scrapy sets its slot's ``closing``)."""
    slot = getattr(engine, "_slot", None)
    return slot is None or getattr(slot, "closing", None) is not None
