"""A request waiting for a per-origin document: held by the scheduler, or awaiting it in
place (SPEC §4).

:meth:`WaitingRequests.hold_or_wait` says which: a request goes back to the engine to be
held (:data:`HOLD`) unless it was handed back for the document already and came straight
back (sent by ``engine.download_async``, which no scheduler holds: :data:`WAIT`); then it
awaits the document here (:meth:`WaitingRequests.wait`), woken by whichever of the keys
it waits for is known first, carrying the version it is woken with as a released request
does, or dropped, saying why, if the spider closes first. A held
request is kept in the crawl's held requests (:meth:`WaitingRequests.hold`) until the
document's lifecycle releases it (:meth:`WaitingRequests.release`, which the runner of
its actions calls).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from rep_engine.fetch.kinds import HoldKey
from rep_engine.records import Reason
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.internals import call_later, engine_closing, running_engine
from scrapy_rep.crawl.refusals import Refusal, drop_request, scheduled_again
from scrapy_rep.crawl.requeststate import mark_held
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.fetch.kinds import DocumentKind
    from scrapy_rep.crawl.documents.carried import CarriedEntries
    from scrapy_rep.crawl.documents.holding import HeldRequests

D = TypeVar("D")


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


class WaitingRequests(Generic[D]):
    """The requests waiting for one document kind: held in the crawl's held requests until
    its lifecycle releases them (:meth:`hold`, :meth:`release`, called by the runner of
    its actions), or awaiting it in place (:meth:`wait`). A base of
    :class:`~scrapy_rep.crawl.documents.documents.OriginDocument`, which sets what is
    declared here."""

    crawler: Crawler
    stats: StatsCollector | None
    name: str
    document: DocumentKind[D]
    #: The spider closed: nothing is released any more, nobody waits.
    closed: bool
    #: The crawl's held requests (every kind's: this one's under its ``HoldKey``).
    _held: HeldRequests
    #: The entries released requests carry, by a token in their state.
    _carried: CarriedEntries[D]
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

    if TYPE_CHECKING:

        def entry(self, key: Hashable, request: Request) -> CacheEntry[D] | None: ...

        def usable_entry(self, key: Hashable) -> CacheEntry[D] | None: ...

        def _releasable(self, key: Hashable) -> CacheEntry[D] | None: ...

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
