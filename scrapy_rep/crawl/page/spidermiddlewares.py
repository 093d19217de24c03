"""noindex / nofollow gating in the crawl (SPEC §6 "Effects in the crawl").

``PageDirectivesMiddleware`` puts every response's directives on
``response.meta["rep_directives"]`` before the callback runs, and its usage decision for
the crawl's purpose on ``response.meta["rep_usage"]``. Then, from the callback's output,
items of a noindex page (or one whose ``unavailable_after`` has passed) are dropped or
recorded (``REP_NOINDEX_ACTION = "drop"`` or ``"keep"``), those of a page denied for a
purpose of the crawl dropped or marked (``REP_PURPOSE_ACTION``; under ``"mark"`` every item
gets ``rep_usage``, the decision as a dict), and requests from a nofollow page (unless
their meta has ``rep_ignore_nofollow``) or for a link marked only ``rel="nofollow"``
dropped. Every drop for a directive is counted in ``rep/directives/…`` stats and logged
at DEBUG with the URL and the directive. The middleware is the sequencer: the page's reading is
:mod:`~scrapy_rep.crawl.page.pagestate`, the item gate :mod:`~scrapy_rep.crawl.page.itemgate`,
the request gate :mod:`~scrapy_rep.crawl.page.linkgate`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.http import Response
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from rep_engine.records import Action, PageOutput
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.auditing import Refusal, ledger_of
from scrapy_rep.crawl.closing import closing_lines
from scrapy_rep.crawl.internals import (
    ASYNC_SPIDER_OUTPUT,
    after_each_scrape,
    running_engine,
    watch_downloads,
)
from scrapy_rep.crawl.page.images import ImageGate
from scrapy_rep.crawl.page.itemgate import ItemGate
from scrapy_rep.crawl.page.linkgate import LinkGate
from scrapy_rep.crawl.page.pagestate import PRODUCING, InputMark, PageState
from scrapy_rep.crawl.refusals import refuse_request
from scrapy_rep.crawl.requests.early import EarlyRefusal
from scrapy_rep.crawl.requests.facts import purpose_is_set
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from rep_engine.verdict.decide import Refused
    from scrapy_rep.crawl.auditing import LedgerCalls

logger = logging.getLogger(__name__)


class PageDirectivesMiddleware(BaseSpiderMiddleware):
    """Reads page-level directives and gates items and requests by them (SPEC §6)."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.page = page = PageState.of(crawler)  # shared with PageVerdictMiddleware
        self.config = config = page.config
        self.stats = crawler.stats
        self.tokens = page.tokens
        self.licenses = page.licenses
        self.links = LinkGate(crawler, page)
        #: Requests the cached robots.txt (tdmrep.json) refuses, refused before the
        #: scheduler (docs/decisions.md, 'Early refusal before the scheduler').
        self.early = EarlyRefusal(crawler, self)
        #: noimageai pages: their images refused or marked (docs/decisions.md, 'A page's
        #: noimageai covers the images it shows').
        self.images = ImageGate(crawler, page.usage.purposes, page.mark, self._refuse_image, page)
        self.items = ItemGate(crawler, page, self.images)
        crawler.signals.connect(self._opened, signal=signals.spider_opened)
        crawler.signals.connect(self._closing, signal=signals.spider_closed)
        #: Whether each page's output goes to the URL ledger at its scrape's end, and the URL
        #: ledger (both set when the spider opens).
        self._at_scrape_end = False
        self._ledgers = config.ledger
        self._url_ledger: LedgerCalls | None = None
        if purpose_is_set(crawler.settings) and not ASYNC_SPIDER_OUTPUT:
            # Scrapy 2.13-2.15 give a sync callback's output to the sync method, where the
            # page's RSL licenses could not be awaited: the async one alone, Scrapy upgrades.
            self.process_spider_output = self.process_spider_output_async  # type: ignore[assignment]
            self.process_spider_output_async = None  # type: ignore[assignment]

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _refuse_image(
        self, request: Request, response: Response, verdict: Refused, sources: str = ""
    ) -> Request | None:
        """An image request of a noimageai page: refused, its record opened as the
        scheduler's would be; or, one Scrapy's filters drop (offsite, a duplicate), passed
        on for the engine to drop as it drops any."""
        if not self.early.admitted(request):
            return request
        refuse_request(
            self.crawler, Action.FOLLOW, request, verdict, response, sources, admitted=True
        )
        return None

    def _opened(self, **_: Any) -> None:
        """Each page's one output handed to the URL ledger once all of it is through
        (docs/decisions.md, 'One ledger per page, whatever path its output takes'); the pages
        a callback fetches itself tied to it ('A page a callback fetches itself gates the
        items built after it'); the failures of the engine's downloads for a component told
        to the URL ledger ('A response a downloader middleware drops is failed, with its
        status')."""
        engine = running_engine(self.crawler)
        if self._ledgers:
            self._url_ledger = ledger = ledger_of(self.crawler)
            self._at_scrape_end = after_each_scrape(engine, self._page_done)
            if ledger is not None:  # a failed request's errback: its items on its record
                ledger.failures_told = self._at_scrape_end
        failed = None if self._url_ledger is None else self._failure_scraped
        if not watch_downloads(engine, self.page.fetching, failed):
            logger.warning(
                "scrapy_rep: the engine's download_async could not be watched: a page a "
                "callback fetches itself gates none of its items",
                extra={"spider": self.crawler.spider},
            )

    def _closing(self, reason: str = "finished", **_: Any) -> None:
        """At INFO, before Scrapy's stats: what a pause left, the items dropped and the
        links not followed, by reason, and the setting that keeps them (docs/switching.md)."""
        stats = self.stats.get_stats() if self.stats is not None else {}
        job_dir = self.crawler.settings.get("JOBDIR") or ""
        for line in closing_lines(stats, self.config, reason, job_dir):
            logger.info(line, extra={"spider": self.crawler.spider})

    def process_spider_input(self, response: Response, spider: object = None) -> None:
        """Put the directives on ``response.meta`` before the callback runs, unless
        ``PageVerdictMiddleware`` did as the page arrived (and no other component replaced the
        response since); the page's callback is producing its output from now on."""
        PRODUCING.set(InputMark([response]))  # a coroutine callback runs before the output pass
        page = self.page.pages.get(response)
        if page is not None and page.verdict is not None:
            return
        page = self.page.read(response)
        verdict = page.verdict
        assert verdict is not None  # read() decides it
        try:
            response.meta[meta.DIRECTIVES] = verdict.directives
        except AttributeError:  # a response without a request (built by hand)
            return
        response.meta[meta.USAGE] = verdict.usage

    def process_spider_output(
        self, response: Response | None, result: Iterable[Any], spider: Any = None
    ) -> Iterable[Any]:
        if response is not None and self.licenses.document() is not None:
            self.page.add_licenses(response, None)  # those known now (Scrapy's sync path)
        return self._processed(response, result)

    def _processed(self, response: Response | None, result: Iterable[Any]) -> Iterable[Any]:
        """Scrapy's own loop (whose ``spider`` argument Scrapy 2.13 requires and 2.19 warns about),
        each item passed on written in the page's output when one is kept. A sync callback
        cannot await a download."""
        kept = self._output_begins(response)
        try:
            for output in result:
                if (output := self._get_processed(output, response)) is not None:
                    if kept is not None and not isinstance(output, Request):
                        kept.passed += 1
                    yield output
        finally:
            if self._ledgers and not self._at_scrape_end:  # else handed over at the scrape's end
                self._page_done(response, scraped=False)

    async def process_spider_output_async(
        self, response: Response | None, result: AsyncIterator[Any], spider: Any = None
    ) -> AsyncIterator[Any]:
        """Scrapy's own loop, after the page's RSL licenses are known, each step of the callback's
        output taken as the page's turn (:data:`PRODUCING`, emptied between steps so that the item
        pipelines working on its items meanwhile are not), each item passed on written in the
        page's output when one is kept (the lines of :meth:`_processed`: inline, as a call per
        output costs on the hot path)."""
        if response is not None and self.licenses.document() is not None:
            await self.page.licenses_async(response)
        kept = self._output_begins(response)
        turn: list[Response | None] = [None]
        outputs = result.__aiter__()
        try:
            while True:
                PRODUCING.set(turn)  # each step may run in a task of its own (Scrapy 2.13-2.15)
                turn[0] = response
                try:
                    output = await outputs.__anext__()
                except StopAsyncIteration:
                    break
                finally:
                    turn[0] = None
                if (output := self._get_processed(output, response)) is not None:
                    if kept is not None and not isinstance(output, Request):
                        kept.passed += 1
                    yield output
        finally:
            if self._ledgers and not self._at_scrape_end:  # else handed over at the scrape's end
                self._page_done(response, scraped=False)

    def _output_begins(self, response: Response | None) -> PageOutput | None:
        """``response``'s output begins (its input pass's turn is over): what becomes of it,
        kept on its page, new or an earlier pass's (a ``process_spider_exception``'s output after
        its callback's); ``None`` for start()'s output or a crawl without trail or report."""
        producing = PRODUCING.get()
        if producing is not None and producing[0] is response:
            producing[0] = None
        if response is None or self._url_ledger is None:
            return None
        page = self.page.decided(response)
        if page.output is None:
            page.output = PageOutput()
        return page.output

    def _page_done(
        self, response: object, request: Request | None = None, scraped: bool = True
    ) -> None:
        """The page's output is through: it goes to the URL ledger, which settles the page's
        entry with it. ``scraped``: all of it, as the scraper says (of a response; of a
        download's failure: told to the URL ledger with its ``request``), the item pipelines'
        work included (:attr:`PageOutput.through`); a page whose output went through no pass of
        ours (a 404 without an errback) has an empty output then. Else one pass of it (Scrapy
        moved what says when all of it is)."""
        if not isinstance(response, Response):
            if request is not None:  # a download's failure
                self._failure_scraped(request, response)
            return
        ledger = self._url_ledger
        page = self.page.pages.get(response)
        if scraped and (page is None or page.output is None):
            page = self.page.decided(response)
            page.output = PageOutput()
        if page is None or page.output is None or ledger is None:  # no output kept
            return
        output, page.output = page.output, None
        output.through = scraped
        try:
            ledger.page_done(response, output, page)
        except Exception:  # the page's output is through; a bug of ours must not cost it
            inc(self.stats, "rep/audit/errors")
            logger.exception("scrapy_rep internal error recording %s", response)

    def _failure_scraped(self, request: Request, failure: Any) -> None:
        """A download's ``failure`` the scraper (or the engine, for a callback's own download)
        is through with, told to the URL ledger; a refusal's only when its errback ran (a
        request refused in the downloader is final then, with the errback's items), else its
        refusal settled the request's entry (:class:`~scrapy_rep.crawl.auditing.Refusal`)."""
        ledger = self._url_ledger
        if ledger is not None and (
            request.errback is not None or not isinstance(getattr(failure, "value", None), Refusal)
        ):
            ledger.failure_scraped(request, failure)

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        if response is None:
            return item
        page = self.page.pages.get(response)  # PageState.decided, inlined: a call per item
        if page is None or page.verdict is None:  # an output without its input pass
            page = self.page.read(response)
        return item if page.plain else self.items.gate(item, response, page)

    def get_processed_request(self, request: Request, response: Response | None) -> Request | None:
        if response is None:  # from start(): only the early refusal applies
            return self.early.request(request, start=True)
        page = self.page.pages.get(response)  # PageState.decided, inlined: a call per link
        if page is None or page.verdict is None:  # an output without its input pass
            page = self.page.read(response)
        if page.plain:
            return self.early.request(request)
        verdict = page.verdict
        assert verdict is not None  # read() decides it
        if not request.meta.get(meta.IGNORE_NOFOLLOW) and self.links.by_follow(
            request, response, verdict, page.output
        ):
            return None
        try:
            shown = self.images.page(response, verdict, page)
            marked = request if shown is None else self.images.request(request, response, shown)
        except Exception as error:  # never lose a request over reading the page's images
            self.page.failed(response, "noimageai images", error)
            return request
        return None if marked is None else self.early.request(marked)
