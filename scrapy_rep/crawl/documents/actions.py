"""The one place where the lifecycle's actions are carried out (SPEC §4).

:class:`ActionRunner` turns each action of :mod:`rep_engine.fetch.lifecycle` into Scrapy and
Twisted calls: downloads over the engine, store calls, timers (on the reactor, or on the
asyncio loop of a crawl without one: :func:`~scrapy_rep.crawl.internals.call_later`), stats,
log lines and signals. What comes back (a download's outcome, the store's answer, a
timer firing) goes to the lifecycle as the next event, and its actions are run in turn.
Releasing held requests is the owner's, the requests waiting for the document
(:class:`~scrapy_rep.crawl.documents.waiting.WaitingRequests`, a base of the
:class:`~scrapy_rep.crawl.documents.documents.OriginDocument` that builds the runner), and
so are the requests that made each document be fetched.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final, cast

from scrapy import signals
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred

from rep_engine.fetch.lifecycle import events as do
from rep_engine.fetch.lifecycle.machine import Lifecycle
from rep_engine.fetch.rules import Effect
from scrapy_rep.crawl.internals import Timer, call_later, engine_closing, running_engine
from scrapy_rep.crawl.loglimit import FirstFew
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from rep_engine.urls.origins import Origin
    from scrapy_rep.crawl.documents.engine_fetch import EngineFetcher
    from scrapy_rep.crawl.documents.kinds import CrawlKind
    from scrapy_rep.crawl.documents.storeclient import StoreClient
    from scrapy_rep.crawl.documents.waiting import WaitingRequests

logger = logging.getLogger(__name__)

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
        owner: WaitingRequests[Any],
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
            if hasattr(result, "getTracebackObject"):  # a Failure: a bug of ours
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
