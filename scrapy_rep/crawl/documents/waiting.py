"""A request waiting for a per-origin document: held by the scheduler, or awaiting it in
place (SPEC §4).

:meth:`WaitingInPlace.hold_or_wait` says which: a request goes back to the engine to be
held (:data:`HOLD`) unless it was handed back for the document already and came straight
back (sent by ``engine.download_async``, which no scheduler holds: :data:`WAIT`); then it
awaits the document here (:meth:`WaitingInPlace.wait`), woken by whichever of the keys
it waits for is known first, or dropped, saying why, if the spider closes first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from scrapy_rep.crawl.refusals import Refusal, drop_request
from scrapy_rep.crawl.requeststate import mark_held
from scrapy_rep.verdict.reasons import Reason

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_rep.crawl.documents.actions import ActionRunner
    from scrapy_rep.fetch.cache import CacheEntry

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


class WaitingInPlace(Generic[D]):
    """The requests waiting for one document kind: a base of
    :class:`~scrapy_rep.crawl.documents.documents.OriginDocument`, which sets what is
    declared here."""

    crawler: Crawler
    name: str
    runner: ActionRunner
    #: Requests awaiting the document in place (sent with ``engine.download_async``).
    _waiters: dict[Hashable, list[Deferred[CacheEntry[D] | None]]]
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

    async def wait(
        self, key: Hashable, request: Request, also: tuple[Hashable, ...] = ()
    ) -> CacheEntry[D]:
        """The entry of ``key``'s document (or of the first of ``also`` known) once it
        is known, awaited in place; ``IgnoreRequest`` if the spider closes first."""
        return self._or_refused(await self._wait_for(key, request, also), key, request)

    async def wait_released(
        self, key: Hashable, request: Request, also: tuple[Hashable, ...] = ()
    ) -> CacheEntry[D]:
        """:meth:`wait`, for a request handed back to be held that came straight back
        (sent by ``engine.download_async``, which no scheduler holds): the entry it would
        have been released with, awaited in place (SPEC §4). A stale copy answers only
        when no refresh is under way (:meth:`_releasable`): a request handed back at its
        send for a refresh waits for it, as one from the scheduler is held for it;
        ``IgnoreRequest`` if the spider closes first."""
        entry = await self._wait_for(key, request, also, self._releasable)
        return self._or_refused(entry, key, request)

    def _or_refused(
        self, entry: CacheEntry[D] | None, key: Hashable, request: Request
    ) -> CacheEntry[D]:
        """``entry``; none (the spider closed while ``request`` waited in place): the
        request is dropped as a held one is at the close (by the performer of refusals:
        counted, logged, signalled, its trail record written) and ``IgnoreRequest``
        raised."""
        if entry is not None:
            return entry
        message = f"{self.name} of {key} not known when the spider closed"
        said = f"Not downloaded: the spider closed while it waited: {message}"
        drop_request(self.crawler, request, Reason.SPIDER_CLOSED, said)
        raise Refusal(said)

    async def when_known(self, key: Hashable, request: Request) -> CacheEntry[D] | None:
        """The entry of ``key``'s document once it is known (its fetch starts now, on
        ``request``'s route, unless one is under way), for a page that names it (no request
        waits: nothing is dropped); ``None`` if the spider closes first."""
        return await self._wait_for(key, request)

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
    ) -> CacheEntry[D] | None:
        """The entry of ``key``'s document (or of the first of ``also`` known): at once
        when ``answers(key)`` gives one (default: :meth:`entry`, which starts its fetch),
        else once its fetch or refresh releases it; ``None`` if the spider closes."""
        entry = self.entry(key, request) if answers is None else answers(key)
        if entry is not None or self.runner.closed or key in self._never:
            return entry
        for other in also:
            entry = self.usable_entry(other)
            if entry is not None:  # known in between: decided again with it
                return entry
        waiter: Deferred[CacheEntry[D] | None] = Deferred()

        def first(found: CacheEntry[D] | None) -> None:
            if not waiter.called:
                waiter.callback(found)

        for each in (key, *also):  # whichever is known first
            one: Deferred[CacheEntry[D] | None] = Deferred()
            one.addCallback(first)
            self._waiters.setdefault(each, []).append(one)
        return await maybe_deferred_to_future(waiter)
