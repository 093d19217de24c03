"""robots.txt enforcement in a crawl: the downloader middleware (SPEC §3-§5), and the
crawl's purpose checked against the origin's AI-usage signals before a request is sent.

A thin adapter. :mod:`scrapy_rep.fetch.lifecycle` makes every fetch decision of SPEC §4 (when
to download, retry, keep a stale copy, give up, share); this class only sequences:

- ``process_request`` asks each document the crawl needs
  (:class:`~scrapy_rep.crawl.documents.documents.OriginDocument`, one per
  :data:`~scrapy_rep.crawl.documents.kinds.CRAWL_KINDS` value the crawl's purposes need) for the
  entry that decides the request, robots.txt first, then the gates:
  :mod:`scrapy_rep.crawl.requests.robotsgate` (allowed requests go on, with crawl-delay through
  :mod:`scrapy_rep.crawl.documents.slots`; forbidden ones raise ``IgnoreRequest`` naming the
  robots.txt line) and :mod:`scrapy_rep.crawl.requests.usagegate` (what the site's AI-usage
  signals deny, for ``REP_PURPOSE``).
- A document without a usable copy answers ``HOLD``: the request is returned from
  ``process_request`` (Scrapy schedules it again) and caught in ``request_scheduled``
  (which drops a scheduled request when a handler raises ``IgnoreRequest``), so it leaves
  the downloader and takes none of the crawl's concurrency; the document holds it
  (:mod:`scrapy_rep.crawl.documents.holding`) and releases it itself once it is known.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable, Coroutine, Hashable
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import Response

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.compat import running_engine
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.documents.actions import call_later
from scrapy_rep.crawl.documents.documents import HOLD, Hold, OriginDocument
from scrapy_rep.crawl.documents.engine_fetch import robots_response_from_cache
from scrapy_rep.crawl.documents.fetchsetup import document_policy, open_store
from scrapy_rep.crawl.documents.holding import HeldRequests
from scrapy_rep.crawl.documents.kinds import CRAWL_KINDS, ROBOTS_CRAWL
from scrapy_rep.crawl.documents.slots import CrawlDelaySlots
from scrapy_rep.crawl.documents.storeclient import StoreClient
from scrapy_rep.crawl.requests.conflicts import switch_off_scrapy_middleware
from scrapy_rep.crawl.requests.decidedearly import Documents, EarlyDecisions, same_documents
from scrapy_rep.crawl.requests.obey import Obey, ObeyMode
from scrapy_rep.crawl.requests.owners import OWNERS
from scrapy_rep.crawl.requests.robotsgate import RobotsGate
from scrapy_rep.crawl.requests.usagegate import UsageGate
from scrapy_rep.crawl.stats import inc
from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.fetch.kinds import HoldKey
from scrapy_rep.fetch.origins import OriginMemo
from scrapy_rep.robotstxt import RobotsTxt
from scrapy_rep.settings import RepConfig

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

#: Named as before ``crawl/`` had subpackages: log settings name it.
logger = logging.getLogger("scrapy_rep.crawl.downloadermiddlewares")
Entry = CacheEntry[RobotsTxt]


class RobotsTxtMiddleware:
    """Obeys each origin's robots.txt (SPEC §3-§5); replaces Scrapy's middleware."""

    def __init__(
        self,
        crawler: Crawler,
        config: RepConfig | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        settings = crawler.settings
        config = config if config is not None else config_of(crawler)
        #: ROBOTSTXT_OBEY / dont_obey_robotstxt against REP_PURPOSE (NotConfigured if off).
        self.obey = ObeyMode(settings, config)
        self.crawler = crawler
        self.config = config
        self.stats = crawler.stats
        self._clock = clock
        self.held = HeldRequests(crawler, config.max_held_requests)
        self.slots = CrawlDelaySlots(crawler, config.crawl_delay_max)
        #: The robots.txt verdict on each request.
        self.robots = RobotsGate(crawler, config, self.slots, self._refuse)
        #: What the crawl is for, checked against the origin's signals (``REP_PURPOSE``).
        self.usage = UsageGate(crawler, config, self._refuse, self.obey.purpose_set)
        kinds = [kind for kind in CRAWL_KINDS if kind.needed(self.usage)]
        store = open_store(config, settings, len(kinds))
        policy, timeout = document_policy(config, settings, store)
        client = StoreClient(store, clock, lambda key: inc(self.stats, key))
        #: Every document the crawl's purposes need, robots.txt first.
        self.documents: dict[str, OriginDocument[Any]] = {
            kind.name: OriginDocument(
                crawler, kind, config, policy, timeout, client, self.held, clock
            )
            for kind in kinds
        }
        self._robots: OriginDocument[RobotsTxt] = self.documents[ROBOTS_CRAWL.name]
        #: The documents a request needs after robots.txt (tdmrep.json for AI purposes).
        self._usage_documents = tuple(self.documents.values())[1:]
        #: The robots.txt of every origin seen, and its lifecycle.
        self.cache, self.lifecycle, self.runner = (
            self._robots.cache, self._robots.lifecycle, self._robots.runner,
        )  # fmt: skip
        self._origins = OriginMemo()
        #: The early pass's verdicts on the requests it allowed, until they come here.
        self._decided_early = EarlyDecisions()
        OWNERS[crawler] = self  # for the spider side: crawl/requests/owners.py
        self._scheduler: Any = None
        #: Requests handed back to be held that ``_request_scheduled`` has not caught yet;
        #: it listens only while there are some (a receiver costs every dispatch).
        self._marked = 0
        self._listening = False
        connect = crawler.signals.connect
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

    def refusal_if_known(self, request: Request) -> Callable[[], bool] | None:
        """When the cached documents already refuse ``request`` (docs/decisions.md, 'Early
        refusal before the scheduler'): a function that refuses it as
        :meth:`process_request` does (counted, logged, signalled, audited; it says whether
        it did). ``None`` otherwise, or when they are not cached and fresh: the request
        goes on as usual. Reads the cache only, never starts a fetch. Used by the spider
        middleware (:mod:`scrapy_rep.crawl.requests.early`)."""
        obey = self.obey.of(request)
        origin = self._origins.get(request.url) if obey is not Obey.NOTHING else None
        if origin is None or request.url.endswith("/robots.txt"):
            return None
        now = self._clock()
        entry = self._robots.cached_entry(origin, now)
        if entry is None:
            return None
        carried: dict[tuple[str, Hashable], CacheEntry[Any]] = {(self._robots.name, origin): entry}
        agent = self.robots.agent(request)
        url = request.url
        refused, decision = self.robots.verdict(url, entry, agent, obey is Obey.ALL)
        if not refused:
            documents: Documents = ()
            for document in self._usage_documents:
                for key in document.keys_of(origin, entry.rules, self._agents(agent)):
                    found = document.cached_entry(key, now)
                    if found is None:
                        return None
                    carried[document.name, key] = found
                    documents += (((document.name, key), weakref.ref(found)),)
            refused, before = self.usage.verdict(url, origin, entry, carried, agent)
            if not refused:  # process_request reuses this verdict if nothing changed
                early = (url, agent, obey, weakref.ref(entry), decision, documents, before)
                self._decided_early.keep(request, early)
                return None
        return partial(self._refuse_known, request, carried)

    def _refuse_known(
        self, request: Request, carried: dict[tuple[str, Hashable], CacheEntry[Any]]
    ) -> bool:
        """:meth:`process_request` with the entries that refused ``request`` carried
        (each taken back by its document's ``decide``, per key)."""
        for (name, key), entry in carried.items():
            self.documents[name].carry(request, entry, key)
        coroutine = self.process_request(request)
        try:
            coroutine.send(None)  # with every entry carried, it never suspends
        except IgnoreRequest:
            return True
        except StopIteration:
            return False
        coroutine.close()
        return False

    def held_requests(self) -> dict[str, int]:
        """How many requests wait for each origin's robots.txt."""
        return self._robots.held_counts()

    # ------------------------------------------------------------------ the request path

    async def process_request(
        self, request: Request, spider: Spider | None = None
    ) -> Request | Response | None:
        """robots.txt's entry or hold, then its gate; then each further document the
        crawl's purposes need, entry or hold; then the usage gate. A request the early
        pass allowed is not decided again when nothing it depended on has changed
        (:mod:`scrapy_rep.crawl.requests.decidedearly`)."""
        early = self._decided_early.take(request)
        obey = self.obey.of(request)
        if obey is Obey.NOTHING:
            return None
        origin = self._origins.get(request.url)
        if origin is None:
            return None  # data:, file:, about: (SPEC §3)
        entry = self._robots.decide(origin, request)
        if isinstance(entry, Hold):
            if entry is HOLD:
                return self._hand_back(request)  # caught by _request_scheduled and held
            self._unmarked()  # WAIT: it came straight back, its mark taken off
            entry = await self._robots.wait(origin, request)
        if request.url.endswith("/robots.txt") and request.method == "GET":
            cached = robots_response_from_cache(request, entry)
            if cached is not None:
                inc(self.stats, "rep/robotstxt/served_from_cache")
                return cached
        agent = self.robots.agent(request)
        decision = None
        if early is not None:  # the early pass's verdict, if nothing it read has changed
            url, early_agent, early_obey, robots_entry, decision, documents, before = early
            if (
                url != request.url
                or early_agent != agent
                or early_obey is not obey
                or robots_entry() is not entry
            ):
                early = decision = None
        self.robots.check(
            request,
            origin,
            entry,
            agent,
            obey_rules=obey is Obey.ALL,
            allowed_early=early is not None,
            decision=decision,
        )
        decided: dict[tuple[str, Hashable], CacheEntry[Any]] = {}
        for document in self._usage_documents:
            for key in document.keys_of(origin, entry.rules, self._agents(agent)):
                found = document.decide(key, request)
                if found is HOLD:
                    self._robots.carry(request, entry, origin)
                    for (name, kept_key), kept in decided.items():
                        self.documents[name].carry(request, kept, kept_key)
                    return self._hand_back(request)
                if isinstance(found, Hold):
                    self._unmarked()
                    found = await document.wait(key, request)
                decided[document.name, key] = found
        if early is not None and same_documents(documents, decided):
            self.usage.passed(request, origin, decided, before)
        else:
            self.usage.check(request, origin, entry, decided, agent)
        return None

    def _agents(self, agent: str) -> tuple[str, ...]:
        """The agents whose robots.txt groups the crawl obeys: its own, then
        ``REP_PURPOSE_AGENTS`` (their ``License:`` lines too, purpose-notes §9)."""
        return (agent, *self.usage.rules.agents)

    def _refuse(self, request: Request, reason: str, message: str) -> NoReturn:
        rep_signals.send_refused(self.crawler, logger, request, reason, message)
        raise IgnoreRequest(message)

    # ------------------------------------------------------------------ holding

    def _hand_back(self, request: Request) -> Request:
        """Return ``request`` (marked by its document's ``decide``) to the engine, and
        listen to ``request_scheduled`` until it comes through."""
        self._marked += 1
        if not self._listening:
            self._listening = True
            self.crawler.signals.connect(self._request_scheduled, signal=signals.request_scheduled)
        return request

    def _unmarked(self) -> None:
        """A marked request came through (or straight back). When none is left, stop
        listening to ``request_scheduled``, which comes for every request scheduled;
        on the next turn of the reactor: disconnecting while the signal is being sent
        would make pydispatch skip the receiver after ours."""
        self._marked = max(0, self._marked - 1)
        if self._marked == 0 and self._listening:
            call_later(0, self._stop_listening)

    def _stop_listening(self) -> None:
        if self._marked == 0 and self._listening:
            self._listening = False
            self.crawler.signals.disconnect(
                self._request_scheduled, signal=signals.request_scheduled
            )

    def _request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        name = request.meta.pop(meta.HOLDING, None)
        if name is None:
            return
        self._unmarked()
        key = request.meta.pop(meta.HOLD_KEY, None)
        if key is None:  # set with HOLDING; an origin when it is not there
            key = self._origins.get(request.url)
            assert key is not None  # only requests with an origin are held
        self.documents[name].hold(key, request)
        raise IgnoreRequest(f"held until its {name} is known")  # not enqueued, not logged

    def _spider_idle(self) -> None:
        """Keep the spider open while requests are held (SPEC §4), and make sure every
        key holding requests has its document, a download or a retry under way."""
        for hold in self.held.origins():
            assert isinstance(hold, HoldKey)
            self.documents[hold.kind].idle(hold.key)
        if len(self.held) or any(d.lifecycle.downloading for d in self.documents.values()):
            raise DontCloseSpider

    # ------------------------------------------------------------------ open and close

    def _spider_opened(self, spider: Spider) -> None:
        engine = running_engine(self.crawler)
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
            inc(self.stats, "rep/requests/resumed", resumed)

    def _spider_closed(self, spider: Spider, reason: str) -> Coroutine[Any, Any, None]:
        """The held requests are refused (or kept in ``JOBDIR``) at once, before the
        ``spider_closed`` handlers connected later run (the audit trail's: it records
        them); then the store is closed, awaited by Scrapy. Not a coroutine function:
        Scrapy 2.13 would start its first part only after the other handlers."""
        failed: Exception | None = None
        try:
            for document in self.documents.values():
                document.close()
            self._decided_early.clear()
            if self.stats is not None:
                self.stats.set_value("rep/robotstxt/cache_evictions", self.cache.evictions)
                self.stats.set_value("rep/robotstxt/cache_reparsed", self.cache.reparsed)
            self.held.close(spider, reason, self._scheduler)
        except Exception as error:  # raised once the store is closed
            failed = error
        return self._close_store(failed)

    async def _close_store(self, failed: Exception | None) -> None:
        await self.runner.store.close()
        if failed is not None:
            raise failed
