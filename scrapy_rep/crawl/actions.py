"""The one place where the lifecycle's actions are carried out (SPEC §4).

:class:`ActionRunner` turns each action of :mod:`scrapy_rep.lifecycle` into Scrapy and
Twisted calls: downloads over the engine, store calls, timers on the reactor, stats,
log lines and signals. What comes back (a download's outcome, the store's answer, a
timer firing) goes to the lifecycle as the next event, and its actions are run in turn.
Releasing held requests is the middleware's: it is handed a callback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, cast

from scrapy import signals
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.defer import Deferred

from scrapy_rep import signals as rep_signals
from scrapy_rep.fetchprocedure import ROBOTS_TXT
from scrapy_rep.lifecycle import Lifecycle
from scrapy_rep.lifecycle import events as do
from scrapy_rep.robotparser import RobotParser

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_rep.cache import CacheEntry
    from scrapy_rep.crawl.engine_fetch import EngineFetcher
    from scrapy_rep.crawl.stores import StoreClient
    from scrapy_rep.origins import Origin
    from scrapy_rep.robotstxt import RobotsTxt

logger = logging.getLogger(__name__)

Releaser = Callable[["Origin", "CacheEntry[Any]", int], None]
#: The actions that call the shared store (run one after the other, in order).
_STORE_CALLS = (do.LoadRecord, do.AcquireLease, do.SaveRecord, do.ReleaseLease)


class ActionRunner:
    """Performs the actions of one document kind's lifecycle (robots.txt, tdmrep.json)
    for the robots.txt middleware."""

    def __init__(
        self,
        crawler: Crawler,
        lifecycle: Lifecycle[Any],
        fetcher: EngineFetcher,
        store: StoreClient,
        release: Releaser,
        clock: Callable[[], float],
        held: Callable[[Origin], int],
    ) -> None:
        self.crawler = crawler
        self.lifecycle = lifecycle
        self.fetcher = fetcher
        self.store = store
        self._release = release
        self._clock = clock
        self._held = held
        #: The request that made each origin's robots.txt be fetched (``robots_parsed``).
        self.triggers: dict[Origin, Any] = {}
        self._timers: dict[Any, Any] = {}
        self._tasks: set[Deferred[None]] = set()
        #: Origins whose ``robots_parsed`` handlers still run: their requests wait.
        self.announcing: set[Any] = set()
        self._watching_downloads = False
        self.closed = False

    def handle(self, event: do.Event) -> None:
        """Give ``event`` to the lifecycle now and perform what it decides."""
        self.perform(self.lifecycle.handle(event, self._clock()))

    def perform(self, actions: list[do.Action]) -> None:
        self._perform_here([a for a in actions if not isinstance(a, _STORE_CALLS)])
        store_calls: list[do.Action] = [a for a in actions if isinstance(a, _STORE_CALLS)]
        if store_calls:  # in the lifecycle's order: a record is saved before its lease goes
            self._run(self._store_calls(store_calls))

    def _perform_here(self, actions: list[do.Action]) -> None:
        for index, action in enumerate(actions):
            if isinstance(action, do.Stat):
                self._inc(action.name, action.count)
            elif isinstance(action, do.Log):
                extra = {"spider": self.crawler.spider}
                logger.log(action.level, action.message, *action.args, extra=extra)
            elif isinstance(action, do.Release):
                self._release(cast("Origin", action.key), action.entry, action.failures)
            elif isinstance(action, do.WakeAt):
                self._wake_at(action.key, action.when)
            elif isinstance(action, do.Announce):
                handlers = self._announce(action)
                if handlers is not None:
                    # As Scrapy's middleware: robots_parsed handlers may be async, and
                    # the held requests go on once they have all finished.
                    self.announcing.add(action.key)
                    self._run(self._after(action.key, handlers, actions[index + 1 :]))
                    return
            elif isinstance(action, do.StartDownload):
                self._run(self._download(cast("Origin", action.key)))

    async def _after(
        self, key: Any, handlers: Coroutine[Any, Any, Any], rest: list[do.Action]
    ) -> None:
        try:
            await handlers  # send_catch_log_async logs a handler's error itself
        finally:
            self.announcing.discard(key)
        self._perform_here(rest)

    def close(self) -> None:
        """The spider closed: no timer fires any more."""
        self.closed = True
        for timer in self._timers.values():
            if timer.active():
                timer.cancel()
        self._timers.clear()

    # ------------------------------------------------------------------ I/O

    async def _download(self, origin: Origin) -> None:
        self._watch_downloads()
        fetched = await self.fetcher.fetch(origin)
        self.handle(do.Downloaded(origin, fetched, self._held(origin)))
        self._watch_downloads()

    async def _store_calls(self, actions: list[do.Action]) -> None:
        """One after the other: concurrent calls could reach the store out of order (a
        lease released before the record it guards is saved lets another process see
        neither, and download again)."""
        for action in actions:
            await self._store_call(action)

    async def _store_call(self, action: do.Action) -> None:
        if isinstance(action, do.LoadRecord):
            record = await self.store.load(action.name)
            self.handle(do.RecordLoaded(action.key, record))
        elif isinstance(action, do.AcquireLease):
            granted = await self.store.acquire(action.name, action.seconds)
            self.handle(do.LeaseAnswered(action.key, granted))
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
        """Send the signals of a known or failed document; the ``robots_parsed`` handlers
        (Scrapy's signal, which may have async handlers) as a coroutine to await."""
        origin = cast("Origin", action.key)
        document = self.lifecycle.document
        if document.name != ROBOTS_TXT.name:  # the lifecycle has the crawl's parser: a copy
            self.crawler.signals.send_catch_log(
                signal=rep_signals.document_fetched,
                origin=str(origin),
                document=document.name,
                url=f"{origin}{document.path}",
                outcome=action.outcome,
                status=action.status,
            )
            return None
        rules: RobotsTxt = action.rules
        self.crawler.signals.send_catch_log(
            signal=rep_signals.robotstxt_fetched,
            origin=str(origin),
            robots_url=origin.robots_url,
            rules=rules,
            outcome=action.outcome,
            status=action.status,
            sitemaps=rules.sitemaps,
        )
        if not action.known:
            return None
        return self.crawler.signals.send_catch_log_async(
            signal=signals.robots_parsed,
            robotparser=RobotParser.from_rules(rules),
            request=self.triggers.pop(origin, None),
        )

    def _watch_downloads(self) -> None:
        """Listen to ``bytes_received`` only while a robots.txt download runs: it comes
        for every chunk of every response, and a receiver makes each cost a call."""
        watching = self.lifecycle.running > 0
        if watching == self._watching_downloads:
            return
        self._watching_downloads = watching
        change = self.crawler.signals.connect if watching else self.crawler.signals.disconnect
        change(self.fetcher.bytes_received, signal=signals.bytes_received)

    def _inc(self, key: str, count: int) -> None:
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value(key, count)


def call_later(delay: float, function: Callable[..., Any], *args: Any) -> Any:
    """``reactor.callLater``; imported late so that importing this module never installs
    a reactor."""
    from twisted.internet import reactor

    return cast(Any, reactor).callLater(delay, function, *args)
