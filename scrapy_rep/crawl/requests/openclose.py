"""The robots.txt middleware's start and close, around the crawl's requests.

At its creation, the documents the crawl's purposes need are opened (robots.txt first),
sharing one store (``REP_ROBOTSTXT_CACHE``, ``JOBDIR``) and fetch policy. At the spider's
start, Scrapy's own robots.txt middleware is switched off, the check as a request leaves
its slot is put in place (:class:`~scrapy_rep.crawl.requests.sendtime.SendCheck`) and the
requests a paused crawl held are resumed. At its close, the held requests are kept
(``JOBDIR``) or dropped, before the other ``spider_closed`` handlers, and the store is
closed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from scrapy_rep.crawl.documents.documents import OriginDocument
from scrapy_rep.crawl.documents.fetchsetup import document_policy, open_store
from scrapy_rep.crawl.documents.holding import on_disk
from scrapy_rep.crawl.documents.kinds import CRAWL_KINDS
from scrapy_rep.crawl.documents.stores import StoreClient
from scrapy_rep.crawl.internals import engine_scheduler, running_engine
from scrapy_rep.crawl.requests.conflicts import switch_off_scrapy_middleware, warn_ignored_parser
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from rep_engine.fetch.cache import DocumentCache
    from rep_engine.robotstxt import RobotsTxt
    from rep_engine.settings import RepConfig
    from rep_engine.verdict import RequestRules
    from scrapy_rep.crawl.documents.holding import HeldRequests
    from scrapy_rep.crawl.requests.decidedearly import EarlyDecisions
    from scrapy_rep.crawl.requests.sendtime import SendCheck

logger = logging.getLogger(__name__)


class OpeningAndClosing:
    """The start and close: a base of
    :class:`~scrapy_rep.crawl.requests.downloadermiddlewares.RobotsTxtMiddleware`, which
    sets what is declared here."""

    crawler: Crawler
    stats: StatsCollector | None
    rules: RequestRules
    held: HeldRequests
    documents: dict[str, OriginDocument[Any]]
    cache: DocumentCache[RobotsTxt]
    store: StoreClient
    _decided_early: EarlyDecisions
    _scheduler: Any
    _on_disk_at_open: int | None
    _send_check: SendCheck

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
            if reason != "finished" and self._on_disk_at_open is not None and self.stats:
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
