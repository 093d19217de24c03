"""The per-origin documents a crawl keeps: robots.txt always, tdmrep.json for AI purposes.

An :class:`OriginDocument` is one kind's whole crawl-side life (SPEC §4): its cache, its
lifecycle (the pure state machine of :mod:`rep_engine.fetch.lifecycle`, which makes every
fetch decision), the :class:`ActionRunner` that carries its actions out, and the requests
waiting for it: its slice of the crawl's
:class:`~scrapy_rep.crawl.documents.holding.HeldRequests` (under the kind's ``HoldKey``), the
requests awaiting it in place, and the request that made each copy be fetched. It
answers one question per request (:meth:`OriginDocument.entry_for`): the version that
decides it, or none yet (the request then waits); and it releases its own held requests
when the lifecycle says so. A request that waits for several keys of one kind at once (an
origin's RSL licenses, fetched together) is held under the first and woken by whichever
is known first, to be decided again: one license that refuses it decides it without
waiting for the others.

A request waiting for a per-origin document is held by the scheduler, or awaits it in
place (SPEC §4). :meth:`OriginDocument.hold_or_wait` says which: a request goes back to the
engine to be held (:data:`HOLD`) unless it was handed back for the document already and
came straight back (sent by ``engine.download_async``, which no scheduler holds:
:data:`WAIT`); then it awaits the document (:meth:`OriginDocument.wait`), woken by
whichever of the keys it waits for is known first, carrying the version it is woken with
as a released request does, or dropped, saying why, if the spider closes first. A held
request is kept in the crawl's held requests (:meth:`OriginDocument.hold`) until the
document's lifecycle releases it (:meth:`OriginDocument.release`, which the runner of its
actions calls).

A released request carries a small token in its state
(:attr:`~scrapy_rep.crawl.requeststate.RequestState.carried`) under which the document
keeps the entry it was released with, until the request comes back, whatever the cache
holds by then (an entry may have been evicted meanwhile), unless a newer version is known
by then (:class:`CarriedEntries`), and only within that version's
freshness lifetime: a request that comes back after it is decided afresh, with the version
the lifecycle holds for current (the shared store asked first, fetched again if needed),
never with a stale one while a refresh runs (docs/decisions.md, 'A carried version past
its lifetime is decided afresh').

:class:`ActionRunner` is the one place where the lifecycle's actions are carried out
(SPEC §4): it turns each action of :mod:`rep_engine.fetch.lifecycle` into Scrapy and
Twisted calls: downloads over the engine, store calls, timers (on the reactor, or on the
asyncio loop of a crawl without one: :func:`~scrapy_rep.crawl.internals.call_later`),
stats, log lines and signals. What comes back (a download's outcome, the store's answer, a
timer firing) goes to the lifecycle as the next event, and its actions are run in turn.
Releasing held requests is the owner's, the :class:`OriginDocument` that builds the
runner, and so are the requests that made each document be fetched.

The entries released requests carry (:class:`CarriedEntries`; docs/decisions.md,
'Released requests carry their entry, not its parsed rules') are kept under their tokens
as plain tuples where they can be (the entry as the cache's compressed tier keeps it, its
key as a plain tuple), which CPython's garbage collector stops tracking: a broad crawl has
thousands of released requests waiting in Scrapy's queue (docs/decisions.md, 'Long-lived
state out of the collector's sight'). A token names its run: one read back from
``JOBDIR`` by the next run names nothing, and the request is decided afresh. A carried
version never decides against a newer one (docs/decisions.md, 'One request, one
verdict'): one older than a version this process has already decided with for that key
is let go (the request is then decided from the cache, or held again).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from collections.abc import Callable, Coroutine, Hashable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar, cast

from scrapy import signals
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import CancelledError, Deferred

from rep_engine.fetch.cache import WHOLE_MAX_ORIGINS, CacheEntry, DocumentCache, plain_key
from rep_engine.fetch.kinds import HoldKey
from rep_engine.fetch.lifecycle import events as do
from rep_engine.fetch.lifecycle.machine import Lifecycle
from rep_engine.fetch.rules import Effect
from rep_engine.records import Reason
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.auditing import Refusal
from scrapy_rep.crawl.documents.engine_fetch import EngineFetcher
from scrapy_rep.crawl.internals import Timer, call_later, engine_closing, running_engine
from scrapy_rep.crawl.loglimit import FirstFew
from scrapy_rep.crawl.refusals import drop_request, scheduled_again
from scrapy_rep.crawl.requeststate import (
    add_carried,
    carry_again,
    mark_held,
    state_of,
    take_carried,
    to_decide_afresh,
)
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from rep_engine.fetch.rules import Policy
    from rep_engine.settings import RepConfig
    from rep_engine.urls.origins import Origin
    from scrapy_rep.crawl.documents.holding import HeldRequests
    from scrapy_rep.crawl.documents.kinds import CrawlKind
    from scrapy_rep.crawl.documents.stores import StoreClient

logger = logging.getLogger(__name__)


#: A task cancelled (asyncio's, Twisted's): a forced stop, not an error.
CANCELLED: Final = (asyncio.CancelledError, CancelledError)

D = TypeVar("D")
#: The ``request.meta`` items of a request's route that its documents' requests take.
_ROUTE: Final = (meta.DOWNLOAD_SLOT, "proxy")


class Hold:
    """:meth:`OriginDocument.hold_or_wait`'s answer when the request must wait for it:
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
    and the document holds and releases the requests that wait for it: held in the
    crawl's held requests until its lifecycle releases them (:meth:`hold`,
    :meth:`release`, called by the runner of its actions), or awaiting it in place
    (:meth:`wait`)."""

    #: The request that made each key's document be fetched (its download slot, and
    #: Scrapy's ``robots_parsed``).
    _triggers: dict[Hashable, Request]
    #: Requests awaiting the document in place (sent with ``engine.download_async``).
    _waiters: dict[Hashable, list[Deferred[CacheEntry[D] | None]]]
    #: A key not known yet -> the keys whose held requests wait for it as well (they
    #: are woken when it is known: :meth:`hold`'s ``also``).
    _wakes: dict[Hashable, set[Hashable]]
    #: The keys whose document will not be known before the crawl closes.
    _never: set[Hashable]

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
        #: The spider closed: nothing is released any more, nobody waits.
        self.closed = False
        #: The crawl's held requests (every kind's: this one's under its ``HoldKey``).
        self._held = held
        self._triggers, self._waiters, self._wakes, self._never = {}, {}, {}, set()
        #: The entries released requests carry, by a token in their state.
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

    def hold_or_wait(
        self, key: Hashable, request: Request, also: tuple[Hashable, ...] = ()
    ) -> Hold:
        """``request`` must wait for ``key``'s document (or any of ``also``'s, whichever
        is known first): :data:`HOLD` (hand it back to the engine, to be held when it is
        scheduled), or :data:`WAIT` when it was handed back for it already and came
        straight back (sent by ``engine.download_async``: await :meth:`wait`)."""
        if mark_held(request, (self.name, key, also)):
            return HOLD
        return WAIT

    def hold(self, key: Hashable, request: Request, also: tuple[Hashable, ...] = ()) -> None:
        """Keep ``request`` until ``key``'s document is known (SPEC §4), or the first of
        ``also``'s (the further keys it waits for: it is then decided again)."""
        if self._held.add(self.document.hold_key(key), request):
            inc(self.stats, "rep/requests/spilled")
        inc(self.stats, "rep/requests/held")
        self.crawler.signals.send_catch_log(
            rep_signals.request_held, request=request, origin=str(key)
        )
        entry = self._releasable(key)
        if entry is not None:  # the download finished in between
            call_later(0, self.release, key, entry, 0)
            return
        for other in also:
            found = self.usable_entry(other)
            if found is not None:  # known in between: decided again with it
                call_later(0, self._release_held, key, other, found, 0)
                return
            self._wakes.setdefault(other, set()).add(key)

    def release(self, key: Hashable, entry: CacheEntry[Any], failures: int) -> None:
        """The requests held for ``key``'s document go on, carrying ``entry``; so do
        those held for another key that wait for this one as well (:meth:`hold`)."""
        for waiter in self._waiters.pop(key, ()):
            waiter.callback(entry)
        self._triggers.pop(key, None)
        self._release_held(key, key, entry, failures)
        for held_for in self._wakes.pop(key, ()):
            self._release_held(held_for, key, entry, 0)

    def _release_held(
        self, held_for: Hashable, key: Hashable, entry: CacheEntry[Any], failures: int
    ) -> None:
        """The requests held for ``held_for``'s document go on, carrying ``key``'s
        ``entry`` (the same key, or one they wait for as well)."""
        engine = running_engine(self.crawler)
        hold_key = self.document.hold_key(held_for)
        if self.closed or engine is None or hold_key not in self._held:
            return
        if engine_closing(engine):
            # The spider is closing: a request scheduled now may reach a scheduler that
            # has already saved its queue (JOBDIR) and be lost. It stays held, and is
            # kept (JOBDIR, scrapy-redis) or dropped with a reason when the spider closes.
            return
        held = self._held.pop(hold_key)
        again = [self._released(request, held_for, failures) for request in held]
        self._carried.carry(again, entry, key, compact=True)
        went = sum(scheduled_again(self.crawler, engine, r, "released") for r in again)
        inc(self.stats, "rep/requests/released", went)
        if failures:
            inc(self.stats, "rep/requests/released_after_unreachable", went)

    def _released(self, request: Request, key: Hashable, failures: int) -> Request:
        self.crawler.signals.send_catch_log(
            rep_signals.request_released, request=request, origin=str(key), failures=failures
        )
        # The dupefilter saw it already. Set on the request itself, not on a copy: nothing
        # else holds it (it was popped from the held requests), and a copy costs a
        # Request's construction per held request.
        request.dont_filter = True
        return request

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

    async def wait(
        self, key: Hashable, request: Request, also: tuple[Hashable, ...] = ()
    ) -> CacheEntry[D]:
        """The entry of ``key``'s document (or of the first of ``also`` known) once it
        is known, awaited in place, and carried by ``request`` (:meth:`_carried_on`);
        ``IgnoreRequest`` if the spider closes first."""
        return self._carried_on(await self._wait_for(key, request, also), key, request)

    async def wait_released(
        self, key: Hashable, request: Request, also: tuple[Hashable, ...] = ()
    ) -> CacheEntry[D]:
        """:meth:`wait`, for a request handed back to be held that came straight back
        (sent by ``engine.download_async``, which no scheduler holds): the entry it would
        have been released with, awaited in place (SPEC §4). A stale copy answers only
        when no refresh is under way (:meth:`_releasable`): a request handed back at its
        send for a refresh waits for it, as one from the scheduler is held for it;
        ``IgnoreRequest`` if the spider closes first."""
        found = await self._wait_for(key, request, also, self._releasable)
        return self._carried_on(found, key, request)

    def _carried_on(
        self,
        found: tuple[Hashable, CacheEntry[D]] | None,
        key: Hashable,
        request: Request,
    ) -> CacheEntry[D]:
        """The entry ``request`` was woken with (``found``: its key and it), which the
        request carries from now on, as a held request carries the entry it is released
        with (:meth:`_release_held`; docs/decisions.md, 'Released requests carry their
        entry, not its parsed rules'): it is decided by that version, whatever the cache
        holds by then. Decided from the cache instead, it could wait for ever: a cache
        too small for every document one request needs (an origin's RSL licenses over
        ``REP_CACHE_MAX_BYTES``) evicts the one it woke for as it parses the other again,
        and the request waits for it again, fetched again (the whole-crawl harness's seed
        1574 livelocked so, a worker's close with it). None (the spider closed while
        ``request`` waited in place): the request is dropped as a held one is at the
        close (by the performer of refusals: counted, logged, signalled, its trail record
        written) and ``IgnoreRequest`` raised."""
        if found is not None:
            of, entry = found
            self._carried.carry([request], entry, of)
            return entry
        message = f"{self.name} of {key} not known when the spider closed"
        said = f"Not downloaded: the spider closed while it waited: {message}"
        drop_request(self.crawler, request, Reason.SPIDER_CLOSED, said)
        raise Refusal(said)

    async def when_known(self, key: Hashable, request: Request) -> CacheEntry[D] | None:
        """The entry of ``key``'s document once it is known (its fetch starts now, on
        ``request``'s route, unless one is under way), for a page that names it (no request
        waits: nothing is dropped); ``None`` if the spider closes first."""
        found = await self._wait_for(key, request)
        return None if found is None else found[1]

    def awaited(self, key: Hashable) -> bool:
        """Whether a request (or a page naming the document) awaits ``key``'s document in
        place."""
        return bool(self._waiters.get(key))

    def never_known(self, key: Hashable) -> None:
        """The crawl closes before ``key``'s document is known (what came back for it as
        it stopped is not acted on): those awaiting it in place, now or later, are told so
        (:meth:`wait` drops them, saying why); the held requests stay held, for the close
        to keep or drop."""
        self._never.add(key)
        for waiter in self._waiters.pop(key, ()):
            waiter.callback(None)

    async def _wait_for(
        self,
        key: Hashable,
        request: Request,
        also: tuple[Hashable, ...] = (),
        answers: Callable[[Hashable], CacheEntry[D] | None] | None = None,
    ) -> tuple[Hashable, CacheEntry[D]] | None:
        """The entry of ``key``'s document (or of the first of ``also`` known), with the
        key it is of: at once when ``answers(key)`` gives one (default: :meth:`entry`,
        which starts its fetch), else once its fetch or refresh releases it; ``None`` if
        the spider closes."""
        entry = self.entry(key, request) if answers is None else answers(key)
        if entry is not None:
            return key, entry
        if self.closed or key in self._never:
            return None
        for other in also:
            entry = self.usable_entry(other)
            if entry is not None:  # known in between: decided again with it
                return other, entry
        waiter: Deferred[tuple[Hashable, CacheEntry[D]] | None] = Deferred()

        def first(found: CacheEntry[D] | None, each: Hashable) -> None:
            if not waiter.called:
                waiter.callback(None if found is None else (each, found))

        for each in (key, *also):  # whichever is known first
            one: Deferred[CacheEntry[D] | None] = Deferred()
            one.addCallback(first, each)
            self._waiters.setdefault(each, []).append(one)
        return await maybe_deferred_to_future(waiter)


#: The actions that call the shared store (run one after the other, in order).
_STORE_CALLS = (do.LoadRecord, do.AcquireLease, do.SaveRecord, do.ReleaseLease)

#: The lifecycle's INFO lines are each about one origin (the wait for an unreachable
#: document begins, it is back, a stale copy is kept): the first few of each at INFO,
#: the rest at DEBUG (:mod:`scrapy_rep.crawl.loglimit`). What the end of the crawl says
#: of those known by their message; another is counted by its message.
_SUMMARIES: Final = {
    "%s of %s is unreachable (%s); holding %d request(s) and retrying%s; giving up at %s "
    "(in %s s, %s)":
        "%s of %s origins was unreachable for a while (their requests held and retried)",
    "%s of %s is back after %d failed attempt(s): %s":
        "%s of %s origins came back after failed downloads",
    "%s of %s: %s; keeping the copy fetched %.0f s ago, next try in %.0f s":
        "%s of %s origins was unreachable; a stale copy was kept",
}  # fmt: skip


class ActionRunner:
    """Performs the actions of one document kind's lifecycle (robots.txt, tdmrep.json)
    for the robots.txt middleware."""

    def __init__(
        self,
        crawler: Crawler,
        lifecycle: Lifecycle[Any],
        fetcher: EngineFetcher,
        store: StoreClient,
        owner: OriginDocument[Any],
        clock: Callable[[], float],
        kind: CrawlKind[Any],
    ) -> None:
        self.crawler = crawler
        self.lifecycle = lifecycle
        self.fetcher = fetcher
        self.store = store
        self._owner = owner
        self._clock = clock
        self._kind = kind
        self._timers: dict[Any, Timer] = {}
        self._tasks: set[Deferred[None]] = set()
        self._watching_downloads = False
        self.closed = False
        #: The per-origin INFO lines, by message: said for the first origins only.
        self._first = FirstFew()

    def handle(self, event: do.Event) -> None:
        """Give ``event`` to the lifecycle now and perform what it decides."""
        self.perform(self.lifecycle.handle(event, self._clock()), event.key)

    def perform(self, actions: list[do.Action], key: Any = None) -> None:
        """Perform ``actions``, what the lifecycle decided on an event for ``key``."""
        if not actions:  # the usual answer to a request while a fetch is under way
            return
        self._perform_here([a for a in actions if not isinstance(a, _STORE_CALLS)], key)
        store_calls: list[do.Action] = [a for a in actions if isinstance(a, _STORE_CALLS)]
        if store_calls:  # in the lifecycle's order: a record is saved before its lease goes
            self._run(self._store_calls(store_calls))

    def _perform_here(self, actions: list[do.Action], key: Any = None) -> None:
        for action in actions:
            if isinstance(action, do.Stat):
                inc(self.crawler.stats, action.name, action.count)
            elif isinstance(action, do.Log):
                self._log(action)
            elif isinstance(action, do.Release):
                self._owner.release(action.key, action.entry, action.failures)
            elif isinstance(action, do.WakeAt):
                self._wake_at(action.key, action.when)
            elif isinstance(action, do.Announce):
                handlers = self._announce(action)
                if handlers is not None:  # as Scrapy's middleware: they may be async
                    self._run(self._after(action.key, handlers, action.known))
                elif action.known:
                    self.handle(do.Announced(action.key))
            elif isinstance(action, do.StartDownload):
                self._start(action.key, queued=key is not None and action.key != key)

    async def _after(self, key: Any, handlers: Coroutine[Any, Any, Any], known: bool) -> None:
        """Once every handler is done, the lifecycle lets the document decide (its step
        ``ANNOUNCING`` ends) and releases the requests held for it."""
        try:
            await handlers  # send_catch_log_async logs a handler's error itself
        finally:
            if known and not self.closed:
                self.handle(do.Announced(key))

    def _log(self, action: do.Log, summary: bool = False) -> None:
        """A lifecycle's line; one of its per-origin INFO lines at INFO for the first few
        origins of the crawl only (not the summary at the end)."""
        level, message, args = action.level, action.message, action.args
        if level == logging.INFO and not summary:
            level = self._first.level(message)
            if note := self._first.note(message):
                message, args = f"{message}%s", (*args, note)
        logger.log(level, message, *args, extra={"spider": self.crawler.spider})

    def close(self) -> None:
        """The spider closed: no timer fires any more; the lifecycle's summary is logged
        (the documents given up on, by failure), and the count of each per-origin line
        some of which went to DEBUG."""
        self.closed = True
        for timer in self._timers.values():
            if timer.active():
                timer.cancel()
        self._timers.clear()
        if leases := self.lifecycle.leases_held():
            self._run(self._store_calls(leases))
        for action in self.lifecycle.summary():
            if isinstance(action, do.Log):
                self._log(action, summary=True)
            else:
                self._perform_here([action])
        extra = {"spider": self.crawler.spider}
        for message in self._first.counts:
            count = self._first.beyond(message)
            if count and message in _SUMMARIES:
                said = _SUMMARIES[message]
                logger.info(
                    f"scrapy_rep: {said}", self.lifecycle.kind.name, f"{count:,}", extra=extra
                )
            elif count:
                logger.info("scrapy_rep: %s lines like %r in this crawl (the first %d at INFO)",
                            f"{count:,}", message, self._first.limit, extra=extra)  # fmt: skip

    # ------------------------------------------------------------------ I/O

    def _start(self, key: Any, queued: bool) -> None:
        """Download ``key``'s document. One ``queued`` for a download slot, freed by
        another key's download as the crawl closes: on the next turn, and only if it is
        awaited in place (:meth:`_start_if_awaited`)."""
        engine = running_engine(self.crawler)
        closing = engine is not None and engine_closing(engine) and not self.closed
        if queued and closing:
            call_later(0, self._start_if_awaited, key)  # a turn, not a call per queued key
        else:
            self._run(self._download(cast("Origin", key)))

    def _start_if_awaited(self, key: Any) -> None:
        """The crawl is closing: only a request (or a page naming the document) awaiting
        it in place can use it now; the held requests stay held for the close to keep or
        drop. Else it is not downloaded (the close would wait for it, and for each one
        queued after it, one by one): as if the stop had cut it."""
        if self.closed:
            return
        if self._owner.awaited(key):
            self._run(self._download(cast("Origin", key)))
            return
        self._owner.never_known(key)
        self.handle(do.DownloadStopped(key))

    async def _download(self, origin: Origin) -> None:
        self._watch_downloads()
        fetched = await self.fetcher.fetch(origin)
        if fetched.effect is Effect.UNREACHABLE and self._stopping(origin):
            return  # mostly the stop's own cut: no answer of the site's to keep or share
        self.handle(do.Downloaded(origin, fetched, self._owner.held_count(origin)))
        self._watch_downloads()

    def _stopping(self, key: Any) -> bool:
        """Whether the crawl is closing (or closed): a download that failed now is mostly
        cut short by the stop, not the site's answer. The lifecycle is told only that the
        download stopped (:class:`~rep_engine.fetch.lifecycle.events.DownloadStopped`):
        nothing is given up on and said dropped (the held requests are kept, returned to
        a shared queue or dropped by the close itself), nothing is shared with the other
        processes; its download slot goes to the next document queued for one that a
        request awaits in place (it would otherwise keep the close waiting forever); a
        lease this process holds for ``key`` is let go (its owner's alone: another
        process's is never touched) so another worker downloads at once instead of after
        the lease's time; those awaiting ``key``'s document in place are told it will not
        be known. (A document the site did answer with is known, as ever: those awaiting
        it go on; the store's answers are acted on as ever.) Once the spider has closed,
        its leases were let go and no download starts: the lifecycle is not told."""
        engine = running_engine(self.crawler)
        if not self.closed and engine is not None and not engine_closing(engine):
            return False
        self._owner.never_known(key)
        if not self.closed:
            self.handle(do.DownloadStopped(key))
        return True

    async def _store_calls(self, actions: list[do.Action]) -> None:
        """One after the other: concurrent calls could reach the store out of order (a
        lease released before the record it guards is saved lets another process see
        neither, and download again)."""
        for action in actions:
            await self._store_call(action)

    async def _store_call(self, action: do.Action) -> None:
        if isinstance(action, do.LoadRecord):
            record = await self.store.load(action.name)
            if not self.closed:  # after the close nothing starts: a lease asked for then
                # began after settled() took its list, and outlived the store unreleased
                self.handle(do.RecordLoaded(action.key, record))
        elif isinstance(action, do.AcquireLease):
            granted = await self.store.acquire(action.name, action.seconds)
            if not self.closed:
                self.handle(do.LeaseAnswered(action.key, granted))
            elif granted:  # granted as the spider closed: nothing will download under it
                await self.store.release(action.name)
        elif isinstance(action, do.SaveRecord):
            await self.store.save(action.record, action.keep_for)
        elif isinstance(action, do.ReleaseLease):
            await self.store.release(action.name)

    def _wake_at(self, key: Any, when: float) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None and timer.active():
            timer.cancel()

        def fire() -> None:
            self._timers.pop(key, None)
            if not self.closed:
                self.handle(do.TimerFired(key))

        self._timers[key] = call_later(max(0.0, when - self._clock()), fire)

    async def settled(self) -> None:
        """The store calls under way are done (at the close: the leases let go before
        the store is closed)."""
        for task in list(self._tasks):
            await maybe_deferred_to_future(task)

    def _run(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = deferred_from_coro(coroutine)
        self._tasks.add(task)

        def done(result: Any) -> None:
            self._tasks.discard(task)
            # a Failure: a bug of ours; but a download cancelled by a forced stop (the
            # loop's tasks cancelled: a second Ctrl-C, a recheck's first) is none
            if hasattr(result, "getTracebackObject") and not result.check(*CANCELLED):
                logger.error(
                    "scrapy_rep internal error; please report it",
                    exc_info=(result.type, result.value, result.getTracebackObject()),
                    extra={"spider": self.crawler.spider},
                )

        task.addBoth(done)

    # ------------------------------------------------------------------ signals

    def _announce(self, action: do.Announce) -> Coroutine[Any, Any, Any] | None:
        """Send the signals of a known or failed document (its kind's announcer); the
        handlers that may be async (Scrapy's ``robots_parsed``) as a coroutine to await."""
        trigger = self._owner.trigger(action.key)
        return self._kind.announce(self.crawler, self.lifecycle.kind, action, trigger)

    def _watch_downloads(self) -> None:
        """Listen to ``bytes_received`` only while a robots.txt download runs: it comes
        for every chunk of every response, and a receiver makes each cost a call."""
        watching = self.lifecycle.running > 0
        if watching == self._watching_downloads:
            return
        self._watching_downloads = watching
        change = self.crawler.signals.connect if watching else self.crawler.signals.disconnect
        change(self.fetcher.bytes_received, signal=signals.bytes_received)


#: No key: a token of this kind that is not (or no longer) kept.
_NONE: Any = object()


class CarriedEntries(Generic[D]):
    """The carried entries of one document kind (``name``)."""

    def __init__(self, name: str, cache: DocumentCache[D] | None = None) -> None:
        self.name = name
        #: With a cache, entries carried ``compact`` keep no parsed rules: the cache
        #: gives them back (:meth:`DocumentCache.restore`).
        self._cache = cache
        #: Per token: the entry its requests carry (a plain tuple made by
        #: :meth:`DocumentCache.compact_plain`, or the entry); the key of the document it
        #: is of (one request may carry several keys' entries of one kind: an RSL license
        #: per ``License:`` line), an ``Origin`` as the plain tuple equal to it; how many of
        #: its requests are still to come back. Three maps of plain values, not one of
        #: pairs: a pair of tuples is untracked only a collection after its tuples are.
        self._kept: dict[str, Any] = {}
        self._key_of: dict[str, Hashable] = {}
        self._to_come: dict[str, int] = {}
        #: Per key with carried entries: how many tokens, and the newest version
        #: (``fetched_at``) any request of this process was decided with.
        self._tokens: dict[Hashable, int] = {}
        self._newest: dict[Hashable, float] = {}
        self._run = uuid.uuid4().hex[:8]
        self._serial = itertools.count()

    def __len__(self) -> int:
        return len(self._kept)

    def carry(
        self,
        requests: Sequence[Request],
        entry: CacheEntry[D],
        key: Hashable,
        compact: bool = False,
    ) -> None:
        """Each of ``requests`` is decided by ``entry`` (``key``'s) when it comes back,
        unless a newer version is known by then. ``compact``: they may wait long (in the
        scheduler's queue), so the entry is kept without its parsed rules and parsed
        again, the same, when they come back."""
        if not requests:
            return
        kept: Any = entry
        if compact and self._cache is not None:
            kept = self._cache.compact_plain(entry)
        key = plain_key(key)
        token = f"{self._run}.{next(self._serial)}"
        self._kept[token] = kept
        self._key_of[token] = key
        self._to_come[token] = len(requests)
        # Carried is not used: only a request decided with a version makes the older ones
        # let go (``used``). Were carrying enough, two requests of one origin released
        # with successive versions would each let the other's go, and with a cache too
        # small to keep the newest, fetch it again for ever, each time the newer.
        self._tokens[key] = self._tokens.get(key, 0) + 1
        add_carried(requests, (self.name, token), partial(self._others, key=key))

    def used(self, key: Hashable, entry: CacheEntry[D]) -> None:
        """A request was decided with ``entry`` (``key``'s): carried versions older than
        it may no longer decide one."""
        if key in self._tokens and entry.fetched_at > self._newest.get(key, 0.0):
            self._newest[plain_key(key)] = entry.fetched_at

    def take(
        self,
        request: Request,
        key: Hashable,
        current: Callable[[Hashable], CacheEntry[D] | None] | None = None,
    ) -> CacheEntry[D] | None:
        """The entry of ``key`` that ``request`` carries (its token taken from its state),
        or ``None``; ``current(key)``: the cache's own usable version (by default what the
        cache holds), which decides instead when it is at least as new. Tokens of other
        keys of this kind stay; another run's go."""
        carried = take_carried(request)
        if not carried:
            return None
        entry: CacheEntry[D] | None = None
        rest: list[tuple[str, str]] = []
        newest_used = self._newest.get(key, 0.0)  # before its last token is redeemed
        for pair in carried:
            kept_key = self._key_of.get(pair[1], _NONE) if pair[0] == self.name else _NONE
            if kept_key is _NONE:
                if pair[0] != self.name:
                    rest.append(pair)  # another kind's; this kind's of another run go
            elif kept_key != key:
                rest.append(pair)
            else:
                found = self._redeem(pair[1])
                entry = entry or found
        if rest:
            carry_again(request, tuple(rest))
        if entry is None:
            return None
        newest = self._cache.peek(key) if self._cache is not None else None
        if newest is not None and newest.fetched_at >= entry.fetched_at:
            assert self._cache is not None
            now = (current or self._cache.get)(key)
            if now is not None and now.fetched_at >= entry.fetched_at:
                return now
        if entry.fetched_at < newest_used:
            return None  # a newer version decided requests since: never an older one
        if self._cache is not None:
            return self._cache.restore(key, entry)
        return entry

    def _is_of(self, token: str, key: Hashable) -> bool:
        return bool(self._key_of.get(token, _NONE) == key)

    def _others(
        self, carried: tuple[tuple[str, str], ...], key: Hashable
    ) -> tuple[tuple[str, str], ...]:
        """``carried`` without this kind's tokens of ``key`` (nor of another run)."""
        return tuple(
            pair
            for pair in carried
            if pair[0] != self.name or (pair[1] in self._kept and not self._is_of(pair[1], key))
        )

    def clear(self) -> None:
        self._kept.clear()
        self._key_of.clear()
        self._to_come.clear()
        self._tokens.clear()
        self._newest.clear()

    def _redeem(self, token: str) -> CacheEntry[D]:
        """One request of those carrying ``token`` came back: its entry (as
        :meth:`DocumentCache.compact` makes it, when it was carried compact)."""
        entry = self._kept[token]
        key = self._key_of[token]
        to_come = self._to_come[token] - 1
        if to_come > 0:
            self._to_come[token] = to_come
        else:
            del self._kept[token], self._key_of[token], self._to_come[token]
            left = self._tokens.get(key, 1) - 1
            if left:
                self._tokens[key] = left
            else:
                self._tokens.pop(key, None)
                self._newest.pop(key, None)
        if self._cache is None:  # only a cache makes plain entries
            return entry  # type: ignore[no-any-return]
        return self._cache.unplain(entry)
