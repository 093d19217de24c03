"""The per-origin documents a crawl keeps: robots.txt always, tdmrep.json for AI purposes.

An :class:`OriginDocument` is one kind's whole crawl-side life (SPEC §4): its cache, its
lifecycle (the pure state machine of :mod:`scrapy_rep.fetch.lifecycle`, which makes every
fetch decision), the :class:`~scrapy_rep.crawl.documents.actions.ActionRunner` that carries its
actions out, and the requests waiting for it: its slice of the crawl's
:class:`~scrapy_rep.crawl.documents.holding.HeldRequests` (under the kind's ``HoldKey``), the
requests awaiting it in place, and the request that made each copy be fetched. It
answers one question per request (:meth:`OriginDocument.decide`): the entry that decides
it, or :data:`HOLD`; and it releases its own held requests when the lifecycle says so.

A released request carries a small record in ``request.meta`` (:data:`~scrapy_rep.crawl.
meta.DECIDED`): a token under which the document keeps the entry it was released with,
until the request comes back, whatever the cache holds by then (an entry may have
expired or been evicted meanwhile).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from scrapy.exceptions import IgnoreRequest
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.compat import running_engine
from scrapy_rep.crawl.documents.actions import ActionRunner, call_later
from scrapy_rep.crawl.documents.carried import CarriedEntries
from scrapy_rep.crawl.documents.engine_fetch import EngineFetcher
from scrapy_rep.crawl.stats import inc
from scrapy_rep.fetch.cache import CacheEntry, DocumentCache
from scrapy_rep.fetch.kinds import HoldKey
from scrapy_rep.fetch.lifecycle import Lifecycle
from scrapy_rep.fetch.lifecycle import events as do

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_rep.crawl.documents.holding import HeldRequests
    from scrapy_rep.crawl.documents.kinds import CrawlKind
    from scrapy_rep.crawl.documents.storeclient import StoreClient
    from scrapy_rep.fetch.policy import Policy
    from scrapy_rep.settings import RepConfig

#: Named as before ``crawl/`` had subpackages: log settings name it.
logger = logging.getLogger("scrapy_rep.crawl.documents")
D = TypeVar("D")


class Hold:
    """:meth:`OriginDocument.decide`'s answer when the request must wait for the document:
    :data:`HOLD` or :data:`WAIT`."""

    __slots__ = ("wait",)

    def __init__(self, wait: bool) -> None:
        self.wait = wait

    def __repr__(self) -> str:
        return "WAIT" if self.wait else "HOLD"


#: Hold the request: hand it back to the engine, to be caught when it is scheduled.
HOLD: Final = Hold(False)
#: The request came straight back (sent by ``engine.download_async``, not the scheduler:
#: it cannot leave the downloader): await :meth:`OriginDocument.wait`.
WAIT: Final = Hold(True)


class OriginDocument(Generic[D]):
    """One document kind: ``lifecycle`` decides, ``runner`` performs, ``cache`` keeps,
    and the document holds and releases the requests that wait for it."""

    def __init__(
        self,
        crawler: Crawler,
        kind: CrawlKind[D],
        config: RepConfig,
        policy: Policy,
        timeout: float,
        store: StoreClient,
        held: HeldRequests,
        clock: Callable[[], float],
    ) -> None:
        document = kind.for_crawl(crawler, config)
        self.crawler = crawler
        self.document = document
        self.name = document.name
        #: The keys of the copies a request of an origin needs, given its robots.txt.
        self.keys_of = kind.keys_of
        self.stats = crawler.stats
        #: Every key's copy (SPEC §4 "Caching").
        self.cache: DocumentCache[D] = DocumentCache(
            config.cache_max_origins, config.cache_max_bytes, document.parse, document.parse_cut
        )
        self.lifecycle: Lifecycle[D] = Lifecycle(policy, document, self.cache)
        self._clock = clock
        self._held = held
        #: The request that made each key's document be fetched (its download slot, and
        #: Scrapy's ``robots_parsed``).
        self._triggers: dict[Hashable, Request] = {}
        #: Requests awaiting the document in place (sent with ``engine.download_async``).
        self._waiters: dict[Hashable, list[Deferred[CacheEntry[D] | None]]] = {}
        #: The entries released requests carry, by a token in their meta.
        self._carried: CarriedEntries[D] = CarriedEntries(self.name, self.cache)
        fetcher = EngineFetcher(crawler, timeout, document, self._download_slot, kind.stats)
        store = store.for_kind(document.stat_prefix)
        self.runner = ActionRunner(crawler, self.lifecycle, fetcher, store, self, clock, kind)

    # ------------------------------------------------------------------ one request

    def decide(self, key: Hashable, request: Request) -> CacheEntry[D] | Hold:
        """The entry that decides ``request`` now, or :data:`HOLD` (a fetch is under way
        or starts), or :data:`WAIT` for a request handed back to be held that came
        straight back."""
        entry = self._carried.take(request, key)
        if entry is not None:
            return entry
        entry = self.entry(key, request)
        if entry is not None:
            return entry
        if request.meta.get(meta.HOLDING) != self.name or request.meta.get(meta.HOLD_KEY) != key:
            request.meta[meta.HOLDING] = self.name
            request.meta[meta.HOLD_KEY] = key
            return HOLD
        del request.meta[meta.HOLDING]
        request.meta.pop(meta.HOLD_KEY, None)
        return WAIT

    async def wait(self, key: Hashable, request: Request) -> CacheEntry[D]:
        """The entry that decides ``request`` once the document is known, awaited in
        place; ``IgnoreRequest`` if the spider closes first."""
        entry = await self._wait_for(key, request)
        if entry is None:
            inc(self.stats, "rep/requests/dropped/spider_closed")
            raise IgnoreRequest(f"{self.name} of {key} not known when the spider closed")
        return entry

    def entry(self, key: Hashable, request: Request) -> CacheEntry[D] | None:
        """The entry that decides now; ``None``: hold (a fetch is under way or starts)."""
        now = self._clock()
        lifecycle = self.lifecycle
        entry = lifecycle.fresh_entry(key, now)
        if entry is not None:
            if self.runner.announcing and key in self.runner.announcing:
                return None  # robots_parsed handlers still run (as in Scrapy): wait
            return entry
        self._triggers.setdefault(key, request)
        self.runner.perform(lifecycle.handle(do.RequestSeen(key), now))
        return self.usable_entry(key)

    def cached_entry(self, key: Hashable, now: float) -> CacheEntry[D] | None:
        """The fresh cached entry of ``key`` (an origin, or an RSL license URL), or
        ``None``; never starts a fetch, nor a refresh (a stale entry answers ``None``).
        For the early refusal (:mod:`scrapy_rep.crawl.requests.early`)."""
        runner = self.runner
        if runner.announcing and key in runner.announcing:
            return None  # robots_parsed handlers still run: the late path waits for them
        return self.lifecycle.fresh_entry(key, now)

    def usable_entry(self, key: Hashable) -> CacheEntry[D] | None:
        if self.runner.announcing and key in self.runner.announcing:
            return None
        return self.lifecycle.usable_entry(key, self._clock())

    def carry(self, request: Request, entry: CacheEntry[D], key: Hashable) -> None:
        """``request`` is decided by ``entry`` (``key``'s) whatever the cache holds when it
        comes back (it is held for a later document)."""
        self._carried.carry([request], entry, key)

    # ------------------------------------------------------------------ holding

    def hold(self, key: Hashable, request: Request) -> None:
        """Keep ``request`` until ``key``'s document is known (SPEC §4)."""
        if self._held.add(self.document.hold_key(key), request):
            inc(self.stats, "rep/requests/spilled")
        inc(self.stats, "rep/requests/held")
        self.crawler.signals.send_catch_log(
            rep_signals.request_held, request=request, origin=str(key)
        )
        entry = self.usable_entry(key)
        if entry is not None:  # the download finished in between
            call_later(0, self.release, key, entry, 0)

    def release(self, key: Hashable, entry: CacheEntry[Any], failures: int) -> None:
        """The requests held for ``key``'s document go on, carrying ``entry``."""
        for waiter in self._waiters.pop(key, ()):
            waiter.callback(entry)
        self._triggers.pop(key, None)
        engine = running_engine(self.crawler)
        hold_key = self.document.hold_key(key)
        if self.runner.closed or engine is None or hold_key not in self._held:
            return
        if _closing(engine):
            # The spider is closing: a request scheduled now may reach a scheduler that
            # has already saved its queue (JOBDIR) and be lost. It stays held, and is
            # kept (JOBDIR, scrapy-redis) or dropped with a reason when the spider closes.
            return
        again = [self._released(request, key, failures) for request in self._held.pop(hold_key)]
        self._carried.carry(again, entry, key, compact=True)
        for request in again:
            engine.crawl(request)
        inc(self.stats, "rep/requests/released", len(again))
        if failures:
            inc(self.stats, "rep/requests/released_after_unreachable", len(again))

    def _released(self, request: Request, key: Hashable, failures: int) -> Request:
        self.crawler.signals.send_catch_log(
            rep_signals.request_released, request=request, origin=str(key), failures=failures
        )
        return request.replace(dont_filter=True)  # the dupefilter saw it already

    def held_count(self, key: Hashable) -> int:
        """How many requests wait for ``key``'s document (for the lifecycle)."""
        return self._held.count(self.document.hold_key(key))

    def held_counts(self) -> dict[str, int]:
        """How many requests wait for each key's document."""
        return {
            str(hold.key): self._held.count(hold)
            for hold in self._held.origins()
            if isinstance(hold, HoldKey) and hold.kind == self.name
        }

    def trigger(self, key: Hashable) -> Request | None:
        return self._triggers.get(key)

    def idle(self, key: Hashable) -> None:
        """The spider is idle with requests held for ``key``: release them if the document
        is known, else make sure it is fetched, or will be."""
        entry = self.usable_entry(key)
        if entry is not None:
            self.release(key, entry, 0)
        elif not self.lifecycle.under_way(key):
            self.runner.handle(do.RequestSeen(key))

    async def _wait_for(self, key: Hashable, request: Request) -> CacheEntry[D] | None:
        entry = self.entry(key, request)
        if entry is not None or self.runner.closed:
            return entry
        waiter: Deferred[CacheEntry[D] | None] = Deferred()
        self._waiters.setdefault(key, []).append(waiter)
        return await maybe_deferred_to_future(waiter)

    def _download_slot(self, key: Hashable) -> object:
        """The download slot of the request that triggered ``key``'s fetch (``None``:
        Scrapy's default): the document's requests go through it, so they count against
        the same per-slot concurrency and delay as that origin's pages."""
        trigger = self._triggers.get(key)
        return trigger.meta.get(meta.DOWNLOAD_SLOT) if trigger is not None else None

    # ------------------------------------------------------------------ close

    def close(self) -> None:
        """The spider closed: no timer fires, nobody waits any more."""
        self.runner.close()
        for waiters in self._waiters.values():
            for waiter in waiters:
                waiter.callback(None)
        self._waiters.clear()
        self._carried.clear()


def _closing(engine: Any) -> bool:
    """Whether the engine is closing the spider (Scrapy sets its slot's ``closing``)."""
    slot = getattr(engine, "_slot", None)
    return slot is None or getattr(slot, "closing", None) is not None
