"""The per-origin documents a crawl keeps: robots.txt always, tdmrep.json for AI purposes.

An :class:`OriginDocument` is one kind's whole crawl-side life (SPEC §4): its cache, its
lifecycle (the pure state machine of :mod:`rep_engine.fetch.lifecycle`, which makes every
fetch decision), the :class:`~scrapy_rep.crawl.documents.actions.ActionRunner` that carries its
actions out, and the requests waiting for it: its slice of the crawl's
:class:`~scrapy_rep.crawl.documents.holding.HeldRequests` (under the kind's ``HoldKey``), the
requests awaiting it in place, and the request that made each copy be fetched. It
answers one question per request (:meth:`OriginDocument.entry_for`): the version that
decides it, or none yet (the request then waits: :mod:`~scrapy_rep.crawl.documents.waiting`); and
it releases its own held requests when the lifecycle says so. A request that waits for
several keys of one kind at once (an origin's RSL licenses, fetched together) is held
under the first and woken by whichever is known first, to be decided again: one license
that refuses it decides it without waiting for the others.

A released request carries a small token in its state
(:attr:`~scrapy_rep.crawl.requeststate.RequestState.carried`) under which the document
keeps the entry it was released with, until the request comes back, whatever the cache
holds by then (an entry may have been evicted meanwhile), unless a newer version is known
by then (:mod:`scrapy_rep.crawl.documents.carried`), and only within that version's
freshness lifetime: a request that comes back after it is decided afresh, with the version
the lifecycle holds for current (the shared store asked first, fetched again if needed),
never with a stale one while a refresh runs (docs/decisions.md, 'A carried version past
its lifetime is decided afresh').
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Final, TypeVar

from rep_engine.fetch.cache import WHOLE_MAX_ORIGINS, CacheEntry, DocumentCache
from rep_engine.fetch.lifecycle import events as do
from rep_engine.fetch.lifecycle.machine import Lifecycle
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.documents.actions import ActionRunner
from scrapy_rep.crawl.documents.carried import CarriedEntries
from scrapy_rep.crawl.documents.engine_fetch import EngineFetcher
from scrapy_rep.crawl.documents.waiting import HOLD as HOLD
from scrapy_rep.crawl.documents.waiting import WAIT as WAIT
from scrapy_rep.crawl.documents.waiting import WaitingRequests
from scrapy_rep.crawl.requeststate import state_of, to_decide_afresh

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from rep_engine.fetch.rules import Policy
    from rep_engine.settings import RepConfig
    from scrapy_rep.crawl.documents.holding import HeldRequests
    from scrapy_rep.crawl.documents.kinds import CrawlKind
    from scrapy_rep.crawl.documents.storeclient import StoreClient

D = TypeVar("D")
#: The ``request.meta`` items of a request's route that its documents' requests take.
_ROUTE: Final = (meta.DOWNLOAD_SLOT, "proxy")


class OriginDocument(WaitingRequests[D]):
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
        self.stats = crawler.stats
        #: Every key's copy (SPEC §4 "Caching").
        max_origins = config.cache_max_origins
        if document.plain is None:
            # Parsed entries kept whole are objects the collector walks: at most as many
            # as before robots.txt had a plain form (docs/decisions.md, 'Parsed once').
            max_origins = min(max_origins, WHOLE_MAX_ORIGINS)
        self.cache: DocumentCache[D] = DocumentCache(
            max_origins,
            config.cache_max_bytes,
            document.parse,
            document.parse_cut,
            (document.absent, document.unreachable),
            document.plain,
            document.unplain,
        )
        self.lifecycle: Lifecycle[D] = Lifecycle(policy, document, self.cache)
        self._clock = clock
        self.closed = False
        self._held = held
        self._triggers, self._waiters, self._wakes, self._never = {}, {}, {}, set()
        self._carried = CarriedEntries(self.name, self.cache)
        fetcher = EngineFetcher(crawler, timeout, document, self._route, kind.stats)
        store = store.for_kind(document.stat_prefix)
        self.runner = ActionRunner(crawler, self.lifecycle, fetcher, store, self, clock, kind)

    def entry_for(self, key: Hashable, request: Request) -> CacheEntry[D] | None:
        """The version of ``key``'s document that decides ``request`` now: the one it
        carries (unless a newer one is known) while it is fresh, else the cache's fresh
        one, else (a fetch or a refresh starts) a stale one still usable, but not for a
        request whose carried version went stale (:meth:`afresh`); ``None``: none, it
        must wait."""
        entry = self._carried.take(request, key, self.usable_entry)
        if entry is not None and self._clock() >= entry.fresh_until:
            state = state_of(request)
            if state is None or not state.afresh:
                entry = self.afresh(key, request)
                if entry is None:
                    return None
        elif entry is None:
            entry = self.entry(key, request)
            if entry is None:
                return None
        self._carried.used(key, entry)
        return entry

    def afresh(self, key: Hashable, request: Request) -> CacheEntry[D] | None:
        """The version that decides a request released with one now past its freshness
        lifetime (a worker's released requests came back seconds after another worker
        stored the new version, and went on under the old one): the cache's fresh one,
        else the refresh starts (the shared store asked first) and the request waits for
        it. Only when no refresh is under way (they fail, and the lifecycle keeps its
        stale copy in use: SPEC §4) does the stale copy decide. Once per request: the
        version it is released with next decides it (:attr:`RequestState.afresh`)."""
        entry = self.entry(key, request)  # fresh, else (its refresh starts) a usable one
        stale = entry is not None and self._clock() >= entry.fresh_until
        if stale and self.lifecycle.under_way(key):
            entry = None  # stale while its refresh runs: it waits for it
        if entry is None:
            to_decide_afresh(request)
        return entry

    def entry(self, key: Hashable, request: Request) -> CacheEntry[D] | None:
        """The entry that decides now; ``None``: hold (a fetch is under way or starts). No
        fetch starts for a key whose download the closing crawl cut (:meth:`never_known`):
        nothing could use its answer (the held requests stay held until the close, those
        awaiting it in place are dropped), and the close would wait for it."""
        now = self._clock()
        lifecycle = self.lifecycle
        entry = lifecycle.fresh_entry(key, now)
        if entry is not None:
            return entry
        if key in self._never:  # a stale copy still decides, as while its refresh ran
            return self.usable_entry(key)
        self._triggers.setdefault(key, request)
        self.runner.perform(lifecycle.handle(do.RequestSeen(key), now), key)
        return self.usable_entry(key)

    def usable_entry(self, key: Hashable) -> CacheEntry[D] | None:
        return self.lifecycle.usable_entry(key, self._clock())

    def _releasable(self, key: Hashable) -> CacheEntry[D] | None:
        """The entry held requests may go on with now: a fresh one, or a stale one when
        no refresh is under way (the refresh releases them itself: released with the
        stale copy, a request held for its refresh would come straight back)."""
        now = self._clock()
        entry = self.lifecycle.usable_entry(key, now)
        if entry is None or now < entry.fresh_until or not self.lifecycle.under_way(key):
            return entry
        return None

    def carry(self, request: Request, entry: CacheEntry[D], key: Hashable) -> None:
        """``request`` is decided by ``entry`` (``key``'s) when it comes back, unless a
        newer version is known by then (it is held for a later document)."""
        self._carried.carry([request], entry, key)

    def idle(self, key: Hashable) -> None:
        """The spider is idle with requests held for ``key``: release them if the document
        is known, else make sure it is fetched, or will be (unless the closing crawl cut
        its download: :meth:`entry`)."""
        entry = self._releasable(key)
        if entry is not None:
            self.release(key, entry, 0)
        elif key not in self._never and not self.lifecycle.under_way(key):
            self.runner.handle(do.RequestSeen(key))

    def _route(self, key: Hashable) -> dict[str, Any]:
        """The route of the request that triggered ``key``'s fetch, which the document's
        requests take: its download slot (none: Scrapy's default), so they count against
        the same per-slot concurrency and delay as that origin's pages; and its proxy, so
        the site is asked by the way its pages are."""
        trigger = self._triggers.get(key)
        if trigger is None:
            return {}
        trigger_meta = trigger.meta
        return {name: trigger_meta[name] for name in _ROUTE if trigger_meta.get(name)}

    def close(self) -> None:
        """The spider closed: no timer fires, nothing is released, nobody waits any more."""
        self.closed = True
        self.runner.close()
        for waiters in self._waiters.values():
            for waiter in waiters:
                waiter.callback(None)
        self._waiters.clear()
        self._wakes.clear()
        self._carried.clear()
