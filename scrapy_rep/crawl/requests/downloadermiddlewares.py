"""robots.txt and the crawl's purposes enforced before each request is sent: the
downloader middleware (SPEC §3-§5).

A thin adapter around one pure decision (:func:`rep_engine.verdict.decide.decide`, the verdict on
the facts of the request: :mod:`scrapy_rep.crawl.requests.facts`). :mod:`rep_engine.fetch.lifecycle`
makes every fetch decision of SPEC §4 (when to download, retry, keep a stale copy, give up,
share); this class only sequences:

- ``process_request`` asks the verdict, with the version of each document the crawl knows
  (:class:`~scrapy_rep.crawl.documents.documents.OriginDocument`, one per kind the crawl's
  purposes need: robots.txt, tdmrep.json for AI purposes, RSL licenses with a purpose set),
  and has :mod:`scrapy_rep.crawl.requests.perform` do what it means: on through the
  origin's crawl-delay slot, or refused (``IgnoreRequest`` naming the line or the signal).
- A document not known yet (the verdict :class:`~rep_engine.verdict.decide.Wait`): the request is
  returned from ``process_request`` (Scrapy schedules it again) and caught in
  ``request_scheduled`` (which drops a scheduled request when a handler raises
  ``IgnoreRequest``), so it leaves the downloader and takes none of the crawl's
  concurrency; the document holds it (:mod:`scrapy_rep.crawl.documents.holding`) and
  releases it itself once it is known. While its origin's robots.txt is not known,
  neither pass asks the verdict (it could only say wait): a held request is decided once,
  when it comes back with it (docs/decisions.md, 'A held request is decided once, when
  its robots.txt is known').
- The spider middleware's early pass (:mod:`scrapy_rep.crawl.requests.early`) asks the same
  verdict from the cache alone, before the scheduler; an allowed request's verdict is kept
  (:class:`EarlyDecisions`) and reused here when nothing it was reached on has changed. The
  checks as it is sent ask it again
  (:mod:`scrapy_rep.crawl.requests.sentcheck`, and at the slot
  :meth:`RobotsTxtMiddleware.decide_at_send`).

Requests are handed back to the engine to be held (SPEC §4): a request whose document is
not known yet is marked by that document
(:meth:`~scrapy_rep.crawl.documents.documents.OriginDocument.hold_or_wait`) and returned
from ``process_request`` (or raised back at its send): Scrapy schedules it again, and the
middleware catches it in ``request_scheduled`` (dropped there, not queued) and gives it to
its document to hold. It listens to that signal only while some are on their way. One
that comes straight back (``engine.download_async``, which no scheduler holds) waits in
place instead. While requests are held the spider stays open.

Its start and close, around the crawl's requests: at its creation, the documents the
crawl's purposes need are opened (robots.txt first), sharing one store
(``REP_ROBOTSTXT_CACHE``, ``JOBDIR``) and fetch policy. At the spider's start, Scrapy's own
robots.txt middleware is switched off (:func:`switch_off_scrapy_middleware`), the check as
a request leaves its slot is put in
place (:class:`SendCheck`) and the requests a paused crawl held are resumed. At its close,
the held requests are kept (``JOBDIR``) or dropped, before the other ``spider_closed``
handlers, and the store is closed.

The verdict holds at the moment a request leaves its download slot for the network
(docs/decisions.md, 'The verdict holds when the request leaves'): :class:`SendCheck` sits
where Scrapy's downloader sends each request (put there at the spider's start by
:mod:`scrapy_rep.crawl.internals`); a request whose verdict no longer holds is decided
again there, and, when it is not to go now, raises :class:`HeldAtSend` (held for a
refresh) or :class:`MovedAtSend` (to go through another download slot).

Each allowed request is decided once: when the early pass (:meth:`RobotsTxtMiddleware
.refusal_if_known`) allows one, the middleware keeps the facts it was decided on and the
:class:`~rep_engine.verdict.decide.Allowed` verdict (:class:`EarlyDecisions`), under a small
token in the request's state (:attr:`~scrapy_rep.crawl.requeststate.RequestState.early`).
``process_request`` takes the token out first of all, and reuses the verdict only when
nothing it was reached on has changed:

- the same facts (URL, origin, crawler's name, what is obeyed): a component that changed
  the request in between (a ``request_scheduled`` handler; a downloader middleware before
  ours turns the early pass off altogether) gets a fresh verdict;
- the very same document versions (``is``) that decide it now: a newer robots.txt,
  tdmrep.json or license (a refresh, another process's record, a copy parsed again after
  compression) decides afresh.

Everything a verdict means is done by the late check as for any other
(:mod:`scrapy_rep.crawl.requests.perform`). What is kept stays here, never in meta (a
request may be serialised: ``JOBDIR``, scrapy-redis). The store is bounded
(:data:`MAX_KEPT`, the oldest let go first): requests that never reach ``process_request``
(dropped by the dupefilter, the offsite filter, another middleware) cannot grow it without
bound; a request whose verdict was let go is decided afresh. A token names its run: one
read back from ``JOBDIR`` after a resume names nothing. The token only finds the verdict;
what makes reusing it sound is that every input it was decided on is checked again.

Scrapy's own robots.txt middleware left on beside ours (SPEC §5; docs/decisions.md,
'Scrapy's robots.txt middleware left on is switched off'): the add-on switches it off, but
a project that lists ours in ``DOWNLOADER_MIDDLEWARES`` by hand and forgets the line that
does it (``"scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None``) would run
both: every robots.txt fetched twice, and Scrapy's middleware refusing requests with its
own reading. At the spider's start ours takes Scrapy's out of the downloader's middleware
chain, before any request goes through it, and says so in one WARNING; a project's own
``ROBOTSTXT_PARSER``, which ours does not use, is warned about too (docs/switching.md).
"""

from __future__ import annotations

import itertools
import logging
import math
import secrets
import time
from collections.abc import Callable, Coroutine, Hashable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Final

from scrapy import Request, signals
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyMiddleware
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import Response
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import load_object

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import HoldKey
from rep_engine.records import EndReason, Reason
from rep_engine.robotstxt import RobotsTxt
from rep_engine.settings import RepConfig
from rep_engine.settings.rules import request_rules
from rep_engine.usage.rsl.document import ABSENT
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import (
    LICENSE,
    ROBOTS,
    TDM,
    Allowed,
    Known,
    Obey,
    Refused,
    RequestFacts,
    Verdict,
    Wait,
    decide,
)
from rep_engine.verdict.policy import NOTHING_BEFORE, Before
from scrapy_rep.crawl.auditing import ledger_of
from scrapy_rep.crawl.config import PerCrawler, config_of
from scrapy_rep.crawl.documents.documents import HOLD, OriginDocument
from scrapy_rep.crawl.documents.engine_fetch import robots_response_from_cache
from scrapy_rep.crawl.documents.holding import HeldRequests, on_disk
from scrapy_rep.crawl.documents.kinds import CRAWL_KINDS, ROBOTS_CRAWL
from scrapy_rep.crawl.documents.slots import CrawlDelaySlots
from scrapy_rep.crawl.documents.stores import StoreClient, document_policy, open_store
from scrapy_rep.crawl.internals import (
    call_later,
    downloader_middleware,
    engine_scheduler,
    error_line,
    running_engine,
    send_through,
)
from scrapy_rep.crawl.meta import DONT_OBEY_ROBOTSTXT, DOWNLOAD_SLOT
from scrapy_rep.crawl.requests.facts import FactsReader
from scrapy_rep.crawl.requests.perform import Performer
from scrapy_rep.crawl.requeststate import (
    RequestState,
    decided_early,
    sent_state,
    state_of,
    take_hold,
)
from scrapy_rep.crawl.robotparser import RobotParser
from scrapy_rep.crawl.stats import inc
from scrapy_rep.crawl.webbotauth import close_unsigned

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from rep_engine.urls.origins import Origin

logger = logging.getLogger(__name__)


#: The middleware of each running crawl, found by the early refusal, the checks and the tools.
OWNERS: PerCrawler[RobotsTxtMiddleware] = PerCrawler("owner")

#: A document the crawl has not had, as :meth:`RobotsTxtMiddleware.verdict_had` reads it
#: (robots.txt not had decides nothing): a tdmrep.json as no file, an RSL license as none
#: (neither says anything); never a version of the document (the trail names none).
NOT_HAD: Final[Mapping[str, CacheEntry[Any]]] = {
    TDM: CacheEntry(NO_FILE, "not had", 0.0, math.inf, math.inf),
    LICENSE: CacheEntry(ABSENT, "not had", 0.0, math.inf, math.inf),
}


def answered_before(crawler: Crawler, request: Request) -> tuple[Allowed | Refused | None, Before]:
    """Of a request no verdict of ours reached (a downloader middleware placed before
    this one answered it itself: a mock, a local mirror), the verdict the documents the
    crawl has give it (:meth:`RobotsTxtMiddleware.verdict_had`) and what its usage signals
    say before the fetch, which its page and its files are held to (a site owner's "no"
    is not lost to a mirror: the response waited for the documents not had,
    :meth:`RobotsTxtMiddleware.answered_waits`). :data:`~rep_engine.verdict.policy
    .NOTHING_BEFORE`: its origin's robots.txt not had (the crawl closed while it waited:
    its purposes unknown), or a robots.txt ``Disallow``,
    which implies no preferences (aipref attach §3.1)."""
    owner = OWNERS.get(crawler)
    verdict = None if owner is None else owner.verdict_had(request)
    if isinstance(verdict, Allowed) or (
        isinstance(verdict, Refused) and verdict.reason is Reason.PURPOSE
    ):
        return verdict, verdict.before
    return verdict, NOTHING_BEFORE


class HeldAtSend(IgnoreRequest):
    """A request handed back at its send to be held for a document (:class:`SendCheck`):
    scrapy_rep's ``process_exception`` returns it, so the engine schedules it again and it
    is held; should nothing return it, it is an ``IgnoreRequest``, dropped quietly."""


def returned_if_held(
    component: Any, request: Request, exception: Exception, spider: Any = None
) -> Request | None:
    """A downloader middleware's ``process_exception``: ``request``, handed back at its
    send (:class:`HeldAtSend`), returned to the engine to be held; else ``None``."""
    return request if isinstance(exception, HeldAtSend) else None


class MovedAtSend(HeldAtSend):
    """A request handed back at its send, decided to go through another download slot
    than the one it leaves (its origin's, with a ``Crawl-delay`` that became known while
    it waited): returned as :class:`HeldAtSend` is, it is scheduled again, not held, and
    enters the downloader in that slot."""


class RobotsTxtMiddleware:
    """Obeys each origin's robots.txt and the crawl's purposes (SPEC §3-§5); replaces
    Scrapy's middleware."""

    #: The requests handed back to be held that ``_request_scheduled`` has not caught
    #: yet, by ``id`` (the engine schedules the very object returned): it listens only
    #: while there are some (a receiver costs every dispatch), and reads the state of
    #: those only (not of every request scheduled meanwhile).
    _marked: set[int]
    _listening: bool
    _scheduler: Any
    _on_disk_at_open: int | None

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
        #: The time now (POSIX seconds): the clock the verdicts' freshness is read on.
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
        self._marked, self._listening = set(), False  # requests handed back to be held
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

    def refusal_if_known(self, request: Request) -> tuple[RequestFacts, Refused] | None:
        """The early pass (docs/decisions.md, 'Early refusal before the scheduler'): when
        the cached documents already refuse ``request``, the facts it was decided on and
        the refusal, for the performer (:meth:`Performer.refused`); ``None`` otherwise, or
        when they are not all cached and fresh (it goes on as usual). An allowed request's
        verdict is kept for :meth:`process_request`. Reads the cache only: never starts a
        fetch. Used by the spider middleware (:mod:`scrapy_rep.crawl.requests.early`)."""
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
            return documents[kind].lifecycle.fresh_entry(key, now)

        # robots.txt handed over as looked up (decided for the site a Host header
        # addresses, both sites' are asked of the cache)
        looked_up = robots if facts.served_by is None else None
        verdict = decide(facts, self.rules, cached, now, looked_up)
        if isinstance(verdict, Wait):
            return None
        if isinstance(verdict, Allowed):
            if verdict.overridden is None:  # (an override's is decided again: it may expire)
                self._keep_early(request, facts, verdict)
            return None
        return facts, verdict

    def _still_cached(self, verdict: Allowed) -> bool:
        """Whether each document version ``verdict`` was decided with is still the one the
        crawl holds: a copy let go meanwhile (``REP_CACHE_MAX_BYTES``) and fetched again may
        say no where the one it replaced said yes, so the request is decided afresh with it
        (a copy compressed and parsed again is another object too: decided afresh)."""
        documents = self.documents
        held = True
        for kind, key, entry in verdict.used:  # no generator: the hot path
            if documents[kind].cache.get(key) is not entry:
                held = False
                break
        return held

    def _keep_early(self, request: Request, facts: RequestFacts, verdict: Allowed) -> None:
        """The early pass's ``verdict`` on ``request`` is kept for :meth:`process_request`,
        under a token in its state, with what its facts were read from and until when its
        document versions are fresh: none of them can be replaced before (a document is
        fetched, or asked of the shared store, only once its copy is stale)."""
        until = math.inf
        for _, _, entry in verdict.used:  # no generator, no call: the hot path
            if entry.fresh_until < until:
                until = entry.fresh_until
        kept = self._decided_early
        token = next(kept.serial)
        headers = request.headers  # what FactsReader.of reads (its inputs: see Kept)
        inputs = (
            request.url,
            request.meta.get(DONT_OBEY_ROBOTSTXT),
            headers.getlist(b"User-Agent"),
            headers.getlist(b"Host"),
        )
        kept[token] = (facts, verdict, until, inputs)
        if len(kept) > kept.limit:
            del kept[next(iter(kept))]  # the oldest: its request may never come
        decided_early(request, token)

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
        if state is not None and state.early:  # decided early: reused if nothing changed
            kept = self._decided_early.pop(state.early, None)
            headers = request.headers  # its inputs as _keep_early reads them (inline)
            if (
                kept is not None
                and self._clock() < kept[2]
                and kept[3][0] == request.url
                and kept[3][1] == request.meta.get(DONT_OBEY_ROBOTSTXT)
                and kept[3][2] == headers.getlist(b"User-Agent")
                and kept[3][3] == headers.getlist(b"Host")
                and self._still_cached(kept[1])
            ):
                self.perform.allowed(request, kept[0], kept[1])
                return None
        facts = self.facts.of(request)
        if facts.origin is None:
            return None  # data:, file:, about: (SPEC §3); or nothing obeyed
        if state is not None and state.carried:  # released: the versions it carries decide
            verdict: Verdict = self._decide(request, facts, self._known(request))
        else:  # robots.txt first: while unknown, it waits undecided
            verdict = self._robots_first(request, facts, partial(self._current, request))
        if isinstance(verdict, Wait):
            waited = await self._waited(request, facts, verdict)
            if isinstance(waited, Request):
                return waited  # handed back: caught by _request_scheduled and held
            verdict = waited
        if isinstance(verdict, Refused):
            raise self.perform.refused(request, facts, verdict)
        self.perform.allowed(request, facts, verdict)
        if request.method == "GET" and request.url.endswith("/robots.txt") and verdict.used:
            # its record names the robots.txt that allowed it, the one that answers it
            return self._robots_from_cache(request, verdict)  # None: it is downloaded
        return None

    def robots_had(self, origin: Origin) -> CacheEntry[RobotsTxt] | None:
        """The robots.txt of ``origin`` the crawl has now, fresh or stale still usable
        (``None``: none); never starts a fetch (the audit trail's record of a request a
        downloader middleware answered before the verdict says what it said)."""
        return self._robots.usable_entry(origin)

    def verdict_had(self, request: Request) -> Allowed | Refused | None:
        """The verdict the documents the crawl has now (fresh, or stale still usable) give
        ``request``, never starting a fetch: for a response a downloader middleware placed
        before this one answered itself, which no verdict reached (its page is decided on
        what the origin's usage signals say of it for the crawl's purposes, as its verdict
        would have said it: :class:`~scrapy_rep.crawl.page.pagestate.PageState`). A
        tdmrep.json or an RSL license the crawl has not had reads as none (as ``audit
        verify`` reads a record that names none: :data:`NOT_HAD`). ``None``: nothing
        decides it (no origin, nothing obeyed), or neither its origin's robots.txt nor
        (sent with a ``Host`` naming another site) that site's is had. Sent with a
        ``Host`` naming another site: decided by both sites, as its verdict would have
        been (:func:`~rep_engine.verdict.decide.decide`); when one's robots.txt is not
        had, by the other's documents alone (a "no" of the site whose documents are had
        is not lost to the other's wait). Its record names the robots.txt of each site the
        crawl had (:meth:`~scrapy_rep.crawl.audit.audit.AuditTrail._answered`), which
        ``audit verify`` decides it again with."""
        facts = self.facts.of(request)
        if facts.origin is None:
            return None
        documents = self.documents

        def had(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            entry = documents[kind].usable_entry(key)
            return entry if entry is not None else NOT_HAD.get(kind)

        verdict = decide(facts, self.rules, had, self._clock())
        if isinstance(verdict, Wait) and facts.served_by is not None:
            # sent with a Host naming another site, one of the two robots.txt not had (only
            # a robots.txt is ever waited for here: NOT_HAD): nothing was sent to either,
            # and the other site's documents, which the trail names, still say what they
            # say of it (the site addressed is decided first: its wait names its own)
            had_site = facts.served_by if verdict.key == facts.origin else facts.origin
            alone = RequestFacts(facts.url, had_site, facts.agent, facts.obey, facts.names)
            verdict = decide(alone, self.rules, had, self._clock())
        return None if isinstance(verdict, Wait) else verdict

    def answered_waits(self, request: Request) -> Coroutine[Any, Any, None] | None:
        """Of a request no verdict of ours reached (a downloader middleware placed before
        this one answered it itself: a mock, a local mirror), what awaits the documents its
        verdict would read that the crawl has not had yet (each fetched now unless under
        way, on its route, as for a request held for it), so that its page and its files are
        decided on them (:meth:`verdict_had`), as its verdict would have been: a site
        owner's "no" is not lost to a mirror that answered first (docs/behaviour.md, 'A
        response a downloader middleware made before the verdict'). ``None``: every one is
        had (or nothing decides it)."""
        facts = self.facts.of(request)
        if facts.origin is None:
            return None
        documents = self.documents

        def had(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            return documents[kind].usable_entry(key)

        verdict = decide(facts, self.rules, had, self._clock())
        return self._documents_had(request, facts, verdict) if isinstance(verdict, Wait) else None

    async def _documents_had(self, request: Request, facts: RequestFacts, verdict: Verdict) -> None:
        """Await each document ``verdict`` waits for, once each, until the verdict would
        wait for none; the spider closing first ends the wait (its page is then decided on
        what the crawl had)."""
        documents = self.documents
        awaited: dict[tuple[str, Hashable], CacheEntry[Any]] = {}

        def known(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            entry = awaited.get((kind, key))
            return entry if entry is not None else documents[kind].usable_entry(key)

        while isinstance(verdict, Wait) and (verdict.document, verdict.key) not in awaited:
            entry = await documents[verdict.document].when_known(verdict.key, request)
            if entry is None:
                return
            awaited[verdict.document, verdict.key] = entry
            verdict = decide(facts, self.rules, known, self._clock())

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
            message = (
                f"Dropped: scrapy_rep could not decide it (internal error: {error_line(error)})"
            )
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

    # ------------------------------------------------------------------ the hand-back

    async def _waited(
        self, request: Request, facts: RequestFacts, verdict: Verdict
    ) -> Allowed | Refused | Request:
        """``request`` waits for the document ``verdict`` names, carrying the versions it
        was decided with so far: handed back to be held (the request returned: caught by
        ``_request_scheduled``), or (it came straight back, its mark taken off) it waits
        here, then is decided again by what it carries and the version it was woken with
        (it carries that too: :meth:`OriginDocument.wait`), until it is decided."""
        while isinstance(verdict, Wait):
            document = self.documents[verdict.document]
            self._carry_used(request, verdict)
            if document.hold_or_wait(verdict.key, request, verdict.also) is HOLD:
                return self._hand_back(request)
            self._unmarked(request)
            await document.wait(verdict.key, request, verdict.also)
            verdict = self._decide(request, facts, self._known(request))
        return verdict

    async def _came_straight_back(self, request: Request) -> None:
        """``request`` was handed back to be held and is here again without a scheduler
        having held it (``engine.download_async`` sends what it is handed back at once):
        it waits in place for the document it was handed back for, as the scheduler's
        request is held for it (SPEC §4). Handed back at its send for a refresh
        (:meth:`decide_at_send`), it waits for the refresh, not for the stale copy still
        in use meanwhile)."""
        self._unmarked(request)
        hold = take_hold(request)
        if hold is not None:
            name, key, also = hold
            await self.documents[name].wait_released(key, request, also)

    def hold_at_send(self, request: Request, verdict: Wait) -> None:
        """``request``, reached at its send, waits for ``verdict``'s document: marked to be
        held, carrying the versions decided already, handed back to the engine (the
        exception its send raises is turned back into it: :meth:`process_exception`)."""
        self.documents[verdict.document].hold_or_wait(verdict.key, request, verdict.also)
        self._carry_used(request, verdict)
        self._hand_back(request)

    def _carry_used(self, request: Request, verdict: Wait) -> None:
        """``request`` carries the document versions ``verdict`` was decided with so far:
        it is decided by them when it comes back, whatever the cache holds by then."""
        for kind, key, entry in verdict.used:
            self.documents[kind].carry(request, entry, key)

    def decide_at_send(
        self, request: Request, state: RequestState
    ) -> tuple[RequestFacts, Verdict] | None:
        """The verdict on ``request`` as it leaves its download slot for the network, past
        the instant its verdict held until (:attr:`RequestState.until`: a document version
        it was decided with went stale, or its override expired, while it waited in the
        slot; :class:`SendCheck`): decided again for what it is sent as, with each
        document's fresh version; for one gone stale it waits for the refresh
        (:meth:`OriginDocument.afresh`: the shared store asked first), once: decided
        afresh already, or with no refresh to wait for (they fail), the stale copy
        decides. An override is held against the time it is sent. ``None``: nothing is
        decided for it (no origin)."""
        facts = self.facts.of(request, sent=True)
        if facts.origin is None:
            return None
        documents = self.documents
        now = self._clock()
        afresh = state.afresh

        def known(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            document = documents[kind]
            entry = document.lifecycle.fresh_entry(key, now)
            if entry is not None:
                return entry
            return document.entry(key, request) if afresh else document.afresh(key, request)

        return facts, self._decide(request, facts, known)

    def _hand_back(self, request: Request) -> Request:
        """Return ``request`` (marked by its document's ``hold_or_wait``) to the engine, and
        listen to ``request_scheduled`` until it comes through."""
        self._marked.add(id(request))
        if not self._listening:
            self._listening = True
            self.crawler.signals.connect(self._request_scheduled, signal=signals.request_scheduled)
        return request

    def _unmarked(self, request: Request) -> None:
        """A marked request came through (or straight back). When none is left, stop
        listening to ``request_scheduled``, which comes for every request scheduled;
        on the next turn of the reactor (or loop): disconnecting while the signal is being sent
        would make pydispatch skip the receiver after ours."""
        marked = self._marked
        marked.discard(id(request))
        if not marked and self._listening:
            call_later(0, self._stop_listening)

    def _stop_listening(self) -> None:
        if not self._marked and self._listening:
            self._listening = False
            self.crawler.signals.disconnect(
                self._request_scheduled, signal=signals.request_scheduled
            )

    def _request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        if id(request) not in self._marked:
            return  # not handed back to be held: its state is not read (no call)
        hold = take_hold(request)
        self._unmarked(request)
        if hold is None:
            return
        name, key, also = hold
        self.documents[name].hold(key, request, also)
        raise IgnoreRequest(f"held until its {name} is known")  # not enqueued, not logged

    def _spider_idle(self) -> None:
        """Keep the spider open while requests are held (SPEC §4), and make sure every
        key holding requests has its document, a download or a retry under way."""
        for hold in self.held.origins():
            assert isinstance(hold, HoldKey)
            self.documents[hold.kind].idle(hold.key)
        if len(self.held) or any(d.lifecycle.downloading for d in self.documents.values()):
            raise DontCloseSpider

    # ------------------------------------------------------------------ start and close

    def _open_documents(
        self, crawler: Crawler, config: RepConfig, clock: Callable[[], float]
    ) -> dict[str, OriginDocument[Any]]:
        """The document of each kind the crawl's purposes need (robots.txt first), by
        name, sharing the crawl's store (``REP_ROBOTSTXT_CACHE``, ``JOBDIR``: kept, closed
        at the close), its fetch policy and the held requests."""
        settings = crawler.settings
        needed = self.rules.documents()
        kinds = [kind for kind in CRAWL_KINDS if kind.name in needed]
        store = open_store(config, settings, len(kinds))
        policy, timeout = document_policy(config, settings, store)
        self.store = StoreClient(store, clock, lambda key: inc(self.stats, key))
        return {
            kind.name: OriginDocument(
                crawler, kind, config, policy, timeout, self.store, self.held, clock
            )
            for kind in kinds
        }

    def _spider_opened(self, spider: Spider) -> None:
        engine = running_engine(self.crawler)
        switch_off_scrapy_middleware(self.crawler, engine)  # set up by hand, both enabled
        warn_ignored_parser(self.crawler)
        close_unsigned(self.crawler, self.config, spider)  # a key, and nothing to sign with it
        if not self._send_check.install(engine):
            logger.warning(
                "scrapy_rep: this Scrapy's downloader cannot be reached where it sends a "
                "request: a request that waits in its download slot past its robots.txt's "
                "freshness or its override's expiry is sent on its first verdict",
                extra={"spider": spider},
            )
        #: The crawl's scheduler: with scrapy-redis, held requests go back to its queue.
        self._scheduler = engine_scheduler(engine)
        load_error = getattr(self.store.store, "load_error", "")
        if load_error:
            logger.warning(
                "scrapy_rep: the robots.txt cache in JOBDIR is unreadable (%s)", load_error
            )
        # What Scrapy's JOBDIR queue held at start: with its stats, what it keeps at a pause.
        self._on_disk_at_open = on_disk(self._scheduler)
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
            # paused, or closed early (CLOSESPIDER_*): Scrapy's JOBDIR queue is kept either way
            if reason != EndReason.FINISHED and self._on_disk_at_open is not None and self.stats:
                get = self.stats.get_value  # Scrapy's queue is closed: counted from its stats
                left = self._on_disk_at_open + (get("scheduler/enqueued/disk") or 0)
                self.stats.set_value(
                    "rep/requests/scheduled_at_pause", left - (get("scheduler/dequeued/disk") or 0)
                )
        except Exception as error:  # raised once the store is closed
            failed = error
        return self._close_store(failed)

    async def _close_store(self, failed: Exception | None) -> None:
        for document in self.documents.values():
            await document.runner.settled()  # the leases it held let go first
        await self.store.close()
        if failed is not None:
            raise failed


class SendCheck:
    """The verdict held at the moment a request leaves its download slot for the network
    (docs/decisions.md, 'The verdict holds when the request leaves').

    A request waits in its download slot after every downloader middleware (the slot's
    delay, ``Crawl-delay``, AutoThrottle, a long queue): its verdict rests on document
    versions that may go stale and an override that may expire meanwhile. Its state says
    until when the verdict holds (:attr:`~scrapy_rep.crawl.requeststate.RequestState
    .until`); a request sent later is decided again first, for what it is sent as
    (:meth:`RobotsTxtMiddleware.decide_at_send`): refused as any other (stats, log,
    signal, audit trail), held for a refresh (handed back: :class:`HeldAtSend`), handed
    back to go through its origin's download slot when a ``Crawl-delay`` became known
    meanwhile (:class:`MovedAtSend`), or sent under the new verdict. The usual request
    costs one call and a comparison. The audit trail's record takes the send time and
    until when its verdict held (``sent_at``, ``expires``)."""

    def __init__(self, owner: RobotsTxtMiddleware, perform: Performer, keeps_ledger: bool) -> None:
        #: The robots.txt middleware, which decides again and hands back (its clock read
        #: at each send: a test may set another).
        self.owner = owner
        self.perform = perform
        self.stats = owner.crawler.stats
        self._keeps_ledger = keeps_ledger
        self._send: Any = None
        self._sent_at: Callable[[str, float, float], None] | None = None
        self._attempted: Callable[[Request], None] | None = None

    def install(self, engine: Any) -> bool:
        """Put :meth:`sending` where the downloader sends each request (and the audit
        trail's ledger, built by now, is told of each send: its attempt); whether it could."""
        self._send = send_through(engine, self.sending)
        ledger = ledger_of(self.owner.crawler) if self._keeps_ledger else None
        if ledger is not None and self._send is not None:
            self._sent_at, self._attempted = ledger.sent_at, ledger.attempted
            ledger.attempts_at_send()
        return self._send is not None

    def sending(self, request: Request, *rest: Any) -> Any:
        """``request`` leaves its slot now: decided again if its verdict no longer holds,
        then handed to Scrapy's download handler (``rest``: its other arguments)."""
        state = sent_state(request)
        if state is not None and state.names:
            sent = time.time()  # the wall clock, read before the verdict's: never after it
            now = self.owner._clock()
            expires = state.until
            if now >= expires:
                expires = self._check(request, state, now)
            if self._sent_at is not None and state.audit:  # when, by the wall clock
                # (the one the record's ``time`` is written by; the verdict's clock may be
                # another one's, a test's or a program's: ``now`` decides, not records)
                self._sent_at(state.audit, sent, expires)
        elif self._attempted is not None:  # not decided here: its attempt, if it has a record
            self._attempted(request)
        return self._send(request, *rest)

    def _check(self, request: Request, state: RequestState, now: float) -> float:
        """Decide ``request`` again as it is sent (raises when it is not to go); until when
        the verdict it goes under holds."""
        owner = self.owner
        try:
            decided = owner.decide_at_send(request, state)
        except Exception as error:  # a bug of ours: refused, never sent unchecked
            logger.exception("scrapy_rep internal error checking %s as it is sent", request)
            what = error_line(error)
            message = (
                f"Dropped: scrapy_rep could not decide it at its send (internal error: {what})"
            )
            raise self.perform.internal_error(request, message) from error
        if decided is None:
            return math.inf
        facts, verdict = decided
        inc(self.stats, "rep/requests/decided_at_send")
        if isinstance(verdict, Refused):
            raise self.perform.refused(request, facts, verdict)
        if isinstance(verdict, Wait):
            if state.afresh:  # held for a refresh once already: its verdict stands
                inc(self.stats, "rep/requests/sent_decided_afresh")
                return now  # it held until it was sent (docs/audit-trail.md, ``expires``)
            owner.hold_at_send(request, verdict)
            inc(self.stats, "rep/requests/held_at_send")
            raise HeldAtSend(f"held at its send until its {verdict.document} is known")
        leaving = request.meta.get(DOWNLOAD_SLOT)
        self.perform.allowed(request, facts, verdict)
        if request.meta.get(DOWNLOAD_SLOT) != leaving:
            # a Crawl-delay known since it entered the downloader: its origin's slot, not
            # the one it leaves (two slots would halve the delay; crawl/documents/slots.py)
            inc(self.stats, "rep/requests/moved_at_send")
            request.dont_filter = True  # the dupefilter saw it already
            raise MovedAtSend(
                f"handed back to go through download slot {request.meta[DOWNLOAD_SLOT]}"
            )
        until = state_of(request).until  # type: ignore[union-attr]  # allowed: decided
        if now < until:
            return until
        # sent under a version gone stale, as only a request decided afresh once already,
        # or one whose refresh cannot run, is: its verdict holds while that copy is usable
        expires = min((entry.stale_until for _, _, entry in verdict.used), default=math.inf)
        override = verdict.overridden
        return min(expires, override.ends) if override is not None else expires


#: How many early verdicts are kept at most (the oldest let go first): a few MiB.
MAX_KEPT: Final = 10_000
#: What an early verdict is kept with: the facts it was decided on, itself, until when its
#: document versions are fresh, and what its facts were read from (its URL, its
#: ``dont_obey_robotstxt``, its ``User-Agent`` and ``Host`` headers: the same again, the
#: same facts; a component that changed the request between the early pass and the late
#: check, a ``request_scheduled`` handler, has it decided afresh).
Kept = tuple["RequestFacts", "Allowed", float, tuple[Any, ...]]


class EarlyDecisions(dict[int, Kept]):
    """The early verdicts of one crawl, each under a token in its request's state
    (:meth:`RobotsTxtMiddleware._keep_early`); the late check pops a request's verdict by
    its token (so it serves once: the token in the state is spent when the request is
    decided). Tokens name their run: a random base (another run's name nothing), then a
    serial."""

    #: The most kept (``0``: none, every request decided again late).
    limit: int = MAX_KEPT

    def __init__(self) -> None:
        super().__init__()
        self.serial = itertools.count(secrets.randbits(31) << 32)


SCRAPY_MIDDLEWARE: Final = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"


def switch_off_scrapy_middleware(crawler: Crawler, engine: Any) -> bool:
    """Take Scrapy's robots.txt middleware out of ``engine``'s downloader middlewares;
    whether it was there."""
    manager = downloader_middleware(engine)
    if manager is None:
        return False
    theirs = [mw for mw in manager.middlewares if isinstance(mw, ScrapyMiddleware)]
    if not theirs:
        return False
    manager.middlewares = tuple(mw for mw in manager.middlewares if mw not in theirs)
    for methods in manager.methods.values():
        kept = [m for m in methods if getattr(m, "__self__", None) not in theirs]
        methods.clear()
        methods.extend(kept)
    logger.warning(
        "scrapy_rep: Scrapy's own robots.txt middleware (%s) was enabled beside "
        "scrapy_rep's; it is switched off for this crawl (each robots.txt would be "
        "fetched twice and obeyed twice). Use the add-on (ADDONS = "
        "{'scrapy_rep.Addon': 0}) or set it to None in DOWNLOADER_MIDDLEWARES.",
        SCRAPY_MIDDLEWARE,
        extra={"spider": crawler.spider},
    )
    if crawler.stats is not None:
        crawler.stats.set_value("rep/scrapy_middleware_switched_off", 1)
    return True


def warn_ignored_parser(crawler: Crawler) -> bool:
    """One WARNING when the project set ``ROBOTSTXT_PARSER`` to a parser other than
    :class:`scrapy_rep.RobotParser` while robots.txt is obeyed: Scrapy's middleware
    would read robots.txt with it, ours reads it with its own engine (``REP_PROFILE``).
    Whether it warned."""
    settings = crawler.settings
    if settings.getpriority("ROBOTSTXT_PARSER") in (None, SETTINGS_PRIORITIES["default"]):
        return False
    if not settings.getbool("ROBOTSTXT_OBEY"):
        return False  # Scrapy would not use it either
    parser = settings.get("ROBOTSTXT_PARSER")
    try:
        if (load_object(parser) if isinstance(parser, str) else parser) is RobotParser:
            return False
    except (ImportError, NameError, ValueError, AttributeError):
        pass  # a path that does not load is ignored all the same
    name = parser if isinstance(parser, str) else getattr(parser, "__qualname__", repr(parser))
    logger.warning(
        "scrapy_rep: ROBOTSTXT_PARSER = %r is ignored: scrapy_rep reads robots.txt with its "
        "own parser (REP_PROFILE chooses how it reads). Without the add-on, Scrapy's "
        "middleware uses your parser; see Switching from ROBOTSTXT_OBEY in the docs.",
        name,
        extra={"spider": crawler.spider},
    )
    return True
