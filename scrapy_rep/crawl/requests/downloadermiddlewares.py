"""robots.txt and the crawl's purposes enforced before each request is sent: the
downloader middleware (SPEC §3-§5).

A thin adapter around one pure decision (:func:`rep_engine.verdict.decide`, the verdict on
the facts of the request: :mod:`scrapy_rep.crawl.requests.facts`). :mod:`rep_engine.fetch.lifecycle`
makes every fetch decision of SPEC §4 (when to download, retry, keep a stale copy, give up,
share); this class only sequences:

- ``process_request`` asks the verdict, with the version of each document the crawl knows
  (:class:`~scrapy_rep.crawl.documents.documents.OriginDocument`, one per kind the crawl's
  purposes need: robots.txt, tdmrep.json for AI purposes, RSL licenses with a purpose set),
  and has :mod:`scrapy_rep.crawl.requests.perform` do what it means: on through the
  origin's crawl-delay slot, or refused (``IgnoreRequest`` naming the line or the signal).
- A document not known yet (the verdict :class:`~rep_engine.verdict.Wait`): the request is
  returned from ``process_request`` (Scrapy schedules it again) and caught in
  ``request_scheduled`` (which drops a scheduled request when a handler raises
  ``IgnoreRequest``: :mod:`scrapy_rep.crawl.requests.handback`), so it leaves the
  downloader and takes none of the crawl's concurrency; the document holds it
  (:mod:`scrapy_rep.crawl.documents.holding`) and releases it itself once it is known.
  While its origin's robots.txt is not known, neither pass asks the verdict (it could
  only say wait): a held request is decided once, when it comes back with it
  (docs/decisions.md, 'A held request is decided once, when its robots.txt is known').
- The spider middleware's early pass (:mod:`scrapy_rep.crawl.requests.early`) asks the same
  verdict from the cache alone, before the scheduler; an allowed request's verdict is kept
  (:mod:`scrapy_rep.crawl.requests.decidedearly`) and reused here when nothing it was reached
  on has changed. The checks as it is sent ask it again
  (:mod:`scrapy_rep.crawl.requests.sentcheck`, and at the slot
  :meth:`~scrapy_rep.crawl.requests.handback.HandingBack.decide_at_send`); its start and
  close: ``openclose.py``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable
from functools import partial
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response

from rep_engine.fetch.cache import CacheEntry
from rep_engine.records import Reason
from rep_engine.robotstxt import RobotsTxt
from rep_engine.settings import RepConfig
from rep_engine.settings.rules import request_rules
from rep_engine.verdict import (
    ROBOTS,
    Allowed,
    Known,
    Obey,
    Refused,
    RequestFacts,
    Verdict,
    Wait,
    decide,
)
from scrapy_rep.crawl.config import PerCrawler, config_of
from scrapy_rep.crawl.documents.documents import OriginDocument
from scrapy_rep.crawl.documents.engine_fetch import robots_response_from_cache
from scrapy_rep.crawl.documents.holding import HeldRequests
from scrapy_rep.crawl.documents.kinds import ROBOTS_CRAWL
from scrapy_rep.crawl.documents.slots import CrawlDelaySlots
from scrapy_rep.crawl.requests.decidedearly import EarlyDecisions
from scrapy_rep.crawl.requests.facts import FactsReader
from scrapy_rep.crawl.requests.handback import HandingBack
from scrapy_rep.crawl.requests.openclose import OpeningAndClosing
from scrapy_rep.crawl.requests.perform import Performer
from scrapy_rep.crawl.requests.sendtime import SendCheck, returned_if_held
from scrapy_rep.crawl.requeststate import state_of
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)
#: The middleware of each running crawl, found by the early refusal, the checks and the tools.
OWNERS: PerCrawler[RobotsTxtMiddleware] = PerCrawler("owner")


class RobotsTxtMiddleware(HandingBack, OpeningAndClosing):
    """Obeys each origin's robots.txt and the crawl's purposes (SPEC §3-§5); replaces
    Scrapy's middleware."""

    def __init__(
        self,
        crawler: Crawler,
        config: RepConfig | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        settings = crawler.settings
        config = config if config is not None else config_of(crawler)
        #: The facts of each request (NotConfigured if nothing is to be obeyed).
        self.facts = FactsReader(settings, config)
        #: The crawl's settings that decide a request.
        self.rules = request_rules(config, self.facts.purpose_set)
        self.crawler = crawler
        self.config = config
        self.stats = crawler.stats
        self._clock = clock
        self.held = HeldRequests(crawler, config.max_held_requests)
        self.slots = CrawlDelaySlots(crawler, config.crawl_delay_max)
        #: What each verdict means for the crawl.
        self.perform = Performer(crawler, config, self.slots)
        #: Every document the crawl's purposes need, robots.txt first.
        self.documents = self._open_documents(crawler, config, clock)
        self._robots: OriginDocument[RobotsTxt] = self.documents[ROBOTS_CRAWL.name]
        #: The robots.txt of every origin seen, and its lifecycle.
        self.cache, self.lifecycle = self._robots.cache, self._robots.lifecycle
        #: The early pass's verdicts on the requests it allowed, until they come here.
        self._decided_early = EarlyDecisions()
        OWNERS[crawler] = self
        self._send_check = SendCheck(self, self.perform, config.ledger)  # put in place at start
        self._scheduler, self._on_disk_at_open = None, None  # set when the spider opens
        self._marked, self._listening = set(), False  # requests handed back: handback.py
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
        origin = self.facts.origins.get(url)
        entry = self.cache.get(origin) if origin is not None else None
        return entry.rules if entry is not None else None

    def sitemaps_for(self, url: str) -> tuple[str, ...]:
        """The ``Sitemap:`` URLs of ``url``'s origin's cached robots.txt (SPEC §5)."""
        rules = self.rules_for(url)
        return rules.sitemaps if rules is not None else ()

    def held_requests(self) -> dict[str, int]:
        """How many requests wait for each origin's robots.txt."""
        return self._robots.held_counts()

    def refusal_if_known(self, request: Request) -> Callable[[], bool] | None:
        """The early pass (docs/decisions.md, 'Early refusal before the scheduler'): when
        the cached documents already refuse ``request``, a function that refuses it as
        :meth:`process_request` does (counted, logged, signalled, audited; it says whether
        it did); ``None`` otherwise, or when they are not all cached and fresh (it goes on
        as usual). An allowed request's verdict is kept for :meth:`process_request`. Reads
        the cache only: never starts a fetch. Used by the spider middleware
        (:mod:`scrapy_rep.crawl.requests.early`)."""
        facts = self.facts.of(request)
        if facts.origin is None or request.url.endswith("/robots.txt"):
            return None
        now = self._clock()
        documents = self.documents
        origin = facts.origin
        # robots.txt's lifecycle asked directly (the hot path: one call fewer per request)
        robots = self.lifecycle.fresh_entry(origin, now) if facts.obey is not Obey.NOTHING else None
        if robots is None and facts.obey is not Obey.NOTHING:
            return None  # robots.txt not known: it waits, decided once it is (_robots_first)

        def cached(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            if kind == ROBOTS and key == origin:
                return robots  # looked up once
            return documents[kind].lifecycle.fresh_entry(key, now)

        verdict = decide(facts, self.rules, cached, now)
        if isinstance(verdict, Wait):
            return None
        if isinstance(verdict, Allowed):  # process_request reuses it if nothing changed
            self._decided_early.keep(request, facts, verdict)
            return None
        return partial(self._refuse_early, request, facts, verdict)

    def _refuse_early(self, request: Request, facts: RequestFacts, verdict: Refused) -> bool:
        try:
            self.perform.refused(request, facts, verdict)
        except IgnoreRequest:
            return True
        return False  # never: refused() always raises

    # ------------------------------------------------------------------ the request path

    async def process_request(
        self, request: Request, spider: Spider | None = None
    ) -> Request | Response | None:
        """The verdict on ``request`` (reused from the early pass when the same facts and
        the very same document versions decide it now; one an override let through is
        decided again: the override may have expired since), then what it means: on,
        refused, or held until the document it waits for is known."""
        if self._marked and id(request) in self._marked:
            await self._came_straight_back(request)
        state = state_of(request)
        kept = self._decided_early.pop(state.early, None) if state and state.early else None
        facts = self.facts.of(request)
        if facts.origin is None:
            return None  # data:, file:, about: (SPEC §3); or nothing obeyed
        carries = state is not None and bool(state.carried)
        # the usual request: the cache's versions; a released one: those it carries
        known: Known = self._known(request) if carries else partial(self._current, request)
        verdict: Verdict | None = None
        if kept is not None and kept[0] == facts and kept[1].overridden is None:
            verdict = kept[1]
            documents = self.documents
            now = self._clock()
            for kind, key, entry in kept[1].used:  # no generator, no call: the hot path
                if carries:
                    now_entry = known(kind, key)
                # the usual request: _current's answer, its fresh version looked up inline
                elif (now_entry := documents[kind].lifecycle.fresh_entry(key, now)) is None:
                    now_entry = documents[kind].entry(key, request)
                if now_entry is not entry:
                    verdict = None
                    break
        if verdict is None and carries:
            verdict = self._decide(request, facts, known)
        elif verdict is None:  # robots.txt first: while unknown, it waits undecided
            verdict = self._robots_first(request, facts, known)
        if isinstance(verdict, Wait):
            waited = await self._waited(request, facts, known, verdict)
            if isinstance(waited, Request):
                return waited  # handed back: caught by _request_scheduled and held
            verdict = waited
        if request.method == "GET" and request.url.endswith("/robots.txt") and verdict.used:
            cached = self._robots_from_cache(request, verdict)
            if cached is not None:
                return cached
        if isinstance(verdict, Refused):
            self.perform.refused(request, facts, verdict)
        self.perform.allowed(request, facts, verdict)
        return None

    def _current(self, request: Request, kind: str, key: Hashable) -> CacheEntry[Any] | None:
        """The cache's version of ``key``'s document of ``kind`` that decides ``request``
        now (``None``: it waits; asking may start a fetch)."""
        return self.documents[kind].entry(key, request)

    def _robots_from_cache(self, request: Request, verdict: Allowed | Refused) -> Response | None:
        """A request of robots.txt itself answered from the version the verdict read
        (counted in ``rep/robotstxt/served_from_cache``); ``None``: it is fetched."""
        cached = robots_response_from_cache(request, verdict.used[0][2])
        if cached is not None:
            inc(self.stats, "rep/robotstxt/served_from_cache")
        return cached

    def _robots_first(self, request: Request, facts: RequestFacts, known: Known) -> Verdict:
        """The verdict on a request that carries no version (``known``: the cache's
        versions): while its origin's robots.txt is not known (asking starts its fetch), it
        waits for it, as :func:`decide` would say first of all, without deciding it (a held
        request is decided once, when it comes back with its robots.txt); else it is
        decided, robots.txt looked up once."""
        origin = facts.origin
        if origin is None or facts.obey is Obey.NOTHING:
            return self._decide(request, facts, known)
        robots = self._robots.entry(origin, request)  # known(ROBOTS, origin), one call fewer
        if robots is None:
            return Wait(ROBOTS, origin)

        def known_now(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            return robots if kind == ROBOTS and key == origin else known(kind, key)

        return self._decide(request, facts, known_now)

    def _decide(self, request: Request, facts: RequestFacts, known: Known) -> Verdict:
        """The verdict on ``request``. A bug of ours while deciding (docs/decisions.md, 'A
        bug of ours while deciding drops the request'): the request is refused, never sent
        unchecked (its site's "no" may be what could not be read), with an ERROR naming it
        ours, ``rep/requests/internal_errors`` and ``rep/requests/dropped/internal_error``."""
        try:
            return decide(facts, self.rules, known, self._clock())
        except Exception as error:  # counted, logged at DEBUG, signalled when performed
            logger.exception(
                "scrapy_rep internal error deciding %(request)s; it is dropped, never sent "
                "unchecked. Please report it.",
                {"request": request},
                extra={"spider": self.crawler.spider},
            )
            what = f"{type(error).__name__}: {error}"[:200]
            message = f"Dropped: scrapy_rep could not decide it (internal error: {what})"
            return Refused(Reason.INTERNAL_ERROR, message, ROBOTS, facts.agent)

    def _known(self, request: Request) -> Known:
        """The version of each document that decides ``request`` now (``None``: it waits;
        asking may start a fetch): the one it carries (a released request), else the
        cache's (:meth:`process_request` asks the cache's directly for a request that
        carries none)."""
        documents = self.documents

        def known(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            return documents[kind].entry_for(key, request)

        return known

    #: A request handed back at its send goes back to the engine, to be held (without
    #: :class:`SentRequestCheck`, which does it first, before Scrapy's other middlewares
    #: take it for a failure).
    process_exception = returned_if_held
