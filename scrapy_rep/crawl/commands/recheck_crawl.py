"""The documents a recheck needs, fetched now by a Scrapy crawl with the add-on's own
document machinery (docs/recheck.md): one download per origin, redirects, 5xx and 429
held and retried as the crawl holds them, ``Crawl-delay``, the shared store (Redis,
``REP_ROBOTSTXT_CACHE``) when configured.

:class:`RecheckSpider` asks the crawl's robots.txt middleware
(:data:`~scrapy_rep.crawl.requests.downloadermiddlewares.OWNERS`) for each origin's
documents as a page that names them does (``OriginDocument.when_known``: the fetch
starts, or the copy the crawl or another worker already has is used), robots.txt first,
then what the purposes need (tdmrep.json, the RSL licenses of its ``License:`` lines),
and keeps the entries; no page is downloaded for it. With ``--pages`` it then requests
each item's page, decided by the same middleware, and reads what the page says as the
page pass reads it (:func:`~scrapy_rep.crawl.page.pagereader.read_statements`). The
decisions themselves are the recheck's (:mod:`rep_recheck.rechecker`), on these
entries. The page fetch keeps the pages not done yet by origin (:class:`PagesLeft`), and
says its progress every :data:`~rep_recheck.fetching.PROGRESS_EVERY` seconds
(docs/recheck.md; the pacing itself is :mod:`rep_recheck.pacing`'s). The crawl's
coroutines run together: a sliding window of workers over the origins
(:func:`in_window`), and their results awaited on any reactor (:func:`together`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable, Collection, Coroutine
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Final, TextIO

from scrapy import Request, Spider
from scrapy.crawler import CrawlerRunner
from scrapy.http import Response
from scrapy.settings import Settings
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred, DeferredList

from rep_engine.records import PAYMENT_REQUIRED_STATUS, EndReason
from rep_engine.settings import RepConfig
from rep_engine.urls.origins import origin_of
from rep_engine.verdict.decide import ROBOTS, documents_needed
from rep_recheck.documents import OriginDocuments
from rep_recheck.fetching import (
    PROGRESS_EVERY,
    FetchRequest,
    FetchResult,
    PageRead,
    PaymentAsked,
    fetch_progress,
)
from rep_recheck.pacing import interleave, origin_key, page_settings, page_slot, pages_progress
from rep_recheck.stopping import SIGNALS, stop_now
from scrapy_rep.crawl.commands.toolcrawl import WRITES_NOTHING
from scrapy_rep.crawl.documents.kinds import CRAWL_KINDS
from scrapy_rep.crawl.internals import (
    Timer,
    allow_reactor_import,
    call_later,
    close_spider,
    crawler_process,
    crawler_runner,
    error_line,
    forbid_reactor_import,
    stopping_at_once,
)
from scrapy_rep.crawl.meta import DOWNLOAD_SLOT
from scrapy_rep.crawl.page.pagereader import is_image, read_statements
from scrapy_rep.crawl.payment import payment_of
from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS

if TYPE_CHECKING:
    from twisted.python.failure import Failure

logger = logging.getLogger(__name__)

#: The origins whose documents are asked for at once, a sliding window: the next origin
#: starts as soon as one is done, so a slow origin (a 503 waited on) holds one place, not
#: a block of 512 (the lifecycle bounds the downloads themselves by
#: ``REP_ROBOTSTXT_CONCURRENCY``).
ORIGINS_AT_ONCE: Final = 512
#: The stats that count one document download each.
DOWNLOAD_STATS: Final = tuple(f"{kind.stats}/request_count" for kind in CRAWL_KINDS)


class RecheckSpider(Spider):
    """Fetches the documents of a recheck's origins (and its pages), into ``result``."""

    name = "rep-recheck"

    def __init__(self, request: FetchRequest, result: FetchResult, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.request = request
        self.result = result
        #: The origins whose documents are being asked for: origin -> (the kind of the
        #: document it waits for, since when, POSIX seconds); what progress says waits.
        self.waiting: dict[str, tuple[str, float]] = {}
        #: The origins done.
        self.done = 0
        #: The pages asked for in turns by origin, and those not done yet (``--pages``):
        #: what the progress line and the first Ctrl-C say.
        self.pages = interleave(request.pages)
        self.pages_left = PagesLeft(self.pages, request.progress)

    async def start(self) -> Any:
        owner = OWNERS.get(self.crawler)
        if owner is None:
            raise RuntimeError("scrapy_rep's RobotsTxtMiddleware is not enabled in this crawl")
        progress: list[Timer] = []  # the next progress line's timer, while the fetch runs

        def tick() -> None:
            self._progress()
            progress[:] = [call_later(PROGRESS_EVERY, tick)]

        if self.request.progress is not None and self.request.origins:
            progress.append(call_later(PROGRESS_EVERY, tick))
        try:
            await together(in_window(self.request.origins, ORIGINS_AT_ONCE,
                                      lambda origin: self._origin(owner, origin)))  # fmt: skip
        finally:
            for timer in progress:
                timer.cancel()
        self.pages_left.start()
        host_slots = self.crawler.settings.getdict("DOWNLOAD_SLOTS")
        for url in self.pages:
            key = page_slot(url, host_slots)
            # its origin's own slot (Scrapy's is the host's, the same for two ports): the
            # scheduler hands the next place to the least busy origin, never queues one
            # behind another's Crawl-delay
            yield Request(url, callback=self._page, errback=self._failed, dont_filter=True,
                          cb_kwargs={"url": url},
                          meta={DOWNLOAD_SLOT: key} if key else None)  # fmt: skip

    def _progress(self) -> None:
        """A progress line: origins done, and those waiting on a document that does
        not answer (:func:`~rep_recheck.fetching.fetch_progress`)."""
        settings = self.request.settings
        max_wait = float(settings.get("REP_UNREACHABLE_MAX_WAIT") or 0.0)
        connect = self.crawler.settings.getfloat(
            "REP_UNREACHABLE_CONNECT_MAX_WAIT", RepConfig().unreachable_connect_max_wait
        )
        line = fetch_progress(self.done, len(self.request.origins), self.waiting, max_wait,
                              time.time(), connect)  # fmt: skip
        print(line, file=self.request.progress, flush=True)

    async def _origin(self, owner: Any, name: str) -> None:
        """One origin's documents, as the crawl's middleware has them; while it waits
        for each, :attr:`waiting` says which."""
        try:
            await self._documents(owner, name)
        finally:
            self.waiting.pop(name, None)
            self.done += 1

    def _waits(self, name: str, kind: str) -> None:
        self.waiting[name] = (kind, time.time())

    async def _documents(self, owner: Any, name: str) -> None:
        origin = origin_of(f"{name}/")
        if origin is None:
            return
        trigger = Request(origin.robots_url)  # the route of its fetches: the default slot
        documents = owner.documents
        self._waits(name, ROBOTS)
        robots = await documents[ROBOTS].when_known(origin, trigger)
        if robots is None:  # the spider closed first
            return
        found = OriginDocuments(origin, now=time.time())
        found.add(ROBOTS, origin, robots)
        skipped = self.request.not_consulted  # --consult: never fetched
        needed = documents_needed(origin, robots.rules, owner.rules)
        # each kind's in decide()'s order (tdmrep.json, then the licenses), waited for together
        for kind, group in groupby((one for one in needed if one[0] not in skipped), itemgetter(0)):
            keys = [key for _, key in group]
            self._waits(name, kind)
            entries = await together([documents[kind].when_known(key, trigger) for key in keys])
            for key, entry in zip(keys, entries, strict=True):
                if entry is not None:
                    found.add(kind, key, entry)
        found.now = time.time()
        try:
            self.result.documents[name] = found
        except sqlite3.Error as error:  # the store's temporary file: the run cannot go on
            if self.result.error is None:
                self.result.error = error
                close_spider(self.crawler, "failed")

    def _page(self, response: Any, url: str) -> None:
        if response.status == PAYMENT_REQUIRED_STATUS:  # the project's HTTPERROR_* let it by
            self.result.pages[url] = PaymentAsked(payment_of(response), time.time())
        else:
            statements = read_statements(response, self.request.tokens, ai=self.request.ai)
            self.result.pages[url] = PageRead(statements, is_image(response), time.time())
        self.pages_left.done(url)

    def _failed(self, failure: Failure) -> None:
        request = getattr(failure, "request", None)
        url = request.cb_kwargs.get("url", request.url) if request is not None else ""
        assert failure.value is not None  # an errback's failure holds its exception
        response = getattr(failure.value, "response", None)  # HttpErrorMiddleware's
        if isinstance(response, Response) and response.status == PAYMENT_REQUIRED_STATUS:
            self.result.pages[url] = PaymentAsked(payment_of(response), time.time())
        else:
            self.result.pages[url] = error_line(failure.value)
        self.pages_left.done(url)

    def closed(self, reason: str) -> None:
        self.pages_left.stop()
        # stopped (Ctrl-C: shutdown): not every document was had
        self.result.interrupted = reason if reason != EndReason.FINISHED else ""
        stats = self.crawler.stats
        if stats is not None:
            self.result.downloads = sum(int(stats.get_value(key, 0)) for key in DOWNLOAD_STATS)


def crawl_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings of a recheck's crawl: ``settings`` (a project's, or the command
    line's), the add-on enabled, and nothing written
    (:data:`~scrapy_rep.crawl.commands.toolcrawl.WRITES_NOTHING`)."""
    addons = {"scrapy_rep.Addon": 0, **(settings.get("ADDONS") or {})}
    return {"LOG_LEVEL": "WARNING", **settings, **WRITES_NOTHING, "ADDONS": addons}


def request_settings(request: FetchRequest) -> dict[str, Any]:
    """The settings of the crawl of ``request``: :func:`crawl_settings`, and with pages
    to fetch a place for each of their origins
    (:func:`~rep_recheck.pacing.page_settings`)."""
    settings = crawl_settings(request.settings)
    if request.pages:
        origins = len({origin_key(url) for url in request.pages})
        settings.update(page_settings(settings, origins))
    return settings


def schedule(process: Any, request: FetchRequest) -> FetchResult:
    """Add the recheck's crawl to ``process`` (a ``CrawlerProcess`` or ``CrawlerRunner``);
    its result, filled once the process has run."""
    # Interrupted until its spider closes: a second Ctrl-C stops the process without
    # closing it, and its result is then no whole fetch either.
    result = FetchResult(interrupted=EndReason.SHUTDOWN_FORCED)
    process.crawl(RecheckSpider, request=request, result=result)
    return result


def fetch_here(request: FetchRequest) -> Deferred[FetchResult] | asyncio.Future[FetchResult]:
    """The same crawl, in the reactor or asyncio loop that runs (a program that runs
    Scrapy itself): a Deferred of its result in the reactor, or, with
    ``TWISTED_REACTOR_ENABLED = False`` in the request's settings (Scrapy 2.15), an
    asyncio future of it on the running loop; either is awaited alike. Raises
    ``RuntimeError`` at once when this process cannot run that crawl
    (:func:`~scrapy_rep.crawl.internals.crawler_runner`)."""
    settings = Settings(request_settings(request))
    runner = crawler_runner(settings, "the recheck's crawl (fetch_here)")
    if isinstance(runner, CrawlerRunner):
        result = schedule(runner, request)
        done: Deferred[Any] = runner.join()
        return done.addCallback(lambda _: result)
    return asyncio.ensure_future(_fetched_without_reactor(runner, request))


async def _fetched_without_reactor(runner: Any, request: FetchRequest) -> FetchResult:
    """The crawl of ``request`` run by ``runner`` (an ``AsyncCrawlerRunner``) on the
    running asyncio loop, ``twisted.internet.reactor`` forbidden to import meanwhile as
    ``AsyncCrawlerProcess`` forbids it: imported, it would install a reactor that never
    runs, and the crawl's timers would go to it."""
    hook = forbid_reactor_import()
    try:
        result = schedule(runner, request)
        await runner.join()
    finally:
        allow_reactor_import(hook)
    return result


def fetch(request: FetchRequest) -> FetchResult:
    """The documents (and pages) of ``request``, fetched by a crawl run to its end in
    this process (``python -m scrapy_rep recheck``), on a reactor or, with
    ``TWISTED_REACTOR_ENABLED = False``, on an asyncio loop. Ctrl-C or SIGTERM stops the
    crawl at once, the requests under way dropped, and the run
    (:func:`~rep_recheck.stopping.stop_now`): nothing of a fetch cut short is decided."""
    process = crawler_process(Settings(request_settings(request)))
    result = schedule(process, request)
    with stopping_at_once(process, SIGNALS) as received:
        process.start(install_signal_handlers=False)
    if received:
        stop_now(received[0])
    return result


class PagesLeft:
    """The pages of a crawl not done yet, by origin; a progress line on ``progress``
    (``None``: none) every :data:`PROGRESS_EVERY` seconds once :meth:`start` is called,
    until every page is done or :meth:`stop`."""

    def __init__(self, pages: list[str], progress: TextIO | None) -> None:
        self.total = len(pages)
        self.progress = progress
        #: Origin -> its pages not done yet.
        self.left: dict[str, int] = {}
        for url in pages:
            key = origin_key(url)
            self.left[key] = self.left.get(key, 0) + 1
        self.timer: Timer | None = None

    def count(self) -> int:
        """The pages not done yet."""
        return sum(self.left.values())

    def done(self, url: str) -> None:
        """``url``'s page is done (read, or given up on)."""
        key = origin_key(url)
        if self.left.get(key, 0) > 0:
            self.left[key] -= 1

    def start(self) -> None:
        """The progress lines start (the pages are asked for now)."""
        if self.progress is not None and self.total:
            self.timer = call_later(PROGRESS_EVERY, self._tick)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()

    def _tick(self) -> None:
        left = self.count()
        if not left:
            return
        print(pages_progress(self.total - left, self.total, self.left), file=self.progress,
              flush=True)  # fmt: skip
        self.timer = call_later(PROGRESS_EVERY, self._tick)


def in_window(
    names: Collection[str], at_once: int, one: Callable[[str], Awaitable[None]]
) -> list[Coroutine[Any, Any, None]]:
    """``at_once`` workers that run ``one`` on each of ``names`` in turn, a sliding
    window: each takes the next name as soon as its last is done (an error is logged and
    the worker goes on)."""
    queue = iter(names)

    async def worker() -> None:
        for name in queue:  # shared: the next name not yet taken
            try:
                await one(name)
            except Exception:
                logger.exception("scrapy_rep: a recheck's documents of %s could not be had",
                                 name)  # fmt: skip

    return [worker() for _ in range(min(at_once, len(names)))]


async def together(coroutines: list[Coroutine[Any, Any, Any]]) -> list[Any]:
    """The results of ``coroutines`` run together (on any reactor)."""
    deferreds: list[Deferred[Any]] = [deferred_from_coro(coroutine) for coroutine in coroutines]
    results = await maybe_deferred_to_future(DeferredList(deferreds, consumeErrors=True))
    for ok, value in results:
        if not ok:
            logger.error(
                "scrapy_rep: a recheck's documents could not be had: %s",
                value,
                exc_info=(value.type, value.value, value.getTracebackObject()),
            )
    return [value if ok else None for ok, value in results]
