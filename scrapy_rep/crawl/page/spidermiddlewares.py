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
at DEBUG with the URL and the directive, performed as every refusal is
(:mod:`scrapy_rep.crawl.refusals`). The middleware is the sequencer: the page's reading is
:mod:`~scrapy_rep.crawl.page.pagestate`; its gates are here:

- the item gate (:class:`ItemGate`; ``REP_PURPOSE``: docs/purpose-notes.md §4a, §6): an
  item of a page that is not plain goes through the page's verdict
  (:meth:`ItemGate.by_verdict`) and its noimageai images (:meth:`ItemGate.by_images`), then
  through the verdict of each page its callback fetched itself that said no;
- the request gate (:class:`LinkGate`): a request yielded by a page that says
  ``nofollow`` is dropped (``REP_NOFOLLOW_ACTION``), and so is one for a link the page
  marks only with ``rel="nofollow"`` (``REP_REL_NOFOLLOW``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy import Request, signals
from scrapy.http import Response
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from w3lib.url import canonicalize_url

from rep_audit.export import preferences_of
from rep_engine.records import REASONS, Action, EndReason, PageOutput, Reason
from rep_engine.trail.lines import usage_part
from rep_engine.verdict.decide import Refused
from rep_engine.verdict.page import PAGE
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.auditing import Refusal, ledger_of
from scrapy_rep.crawl.internals import (
    ASYNC_SPIDER_OUTPUT,
    after_each_scrape,
    running_engine,
    watch_downloads,
)
from scrapy_rep.crawl.page.images import ImageGate
from scrapy_rep.crawl.page.pagereader import rel_nofollow_targets
from scrapy_rep.crawl.page.pagestate import PRODUCING, InputMark, PageState
from scrapy_rep.crawl.refusals import refuse_item, refuse_request
from scrapy_rep.crawl.report import closing_lines
from scrapy_rep.crawl.requests.early import EarlyRefusal
from scrapy_rep.crawl.requests.facts import purpose_is_set
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from rep_engine.verdict.page import PageVerdict
    from scrapy_rep.crawl.auditing import LedgerCalls
    from scrapy_rep.crawl.pages import Page

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
        #: Whether the crawl reads RSL licenses (``None``: not looked up yet).
        self._reads_licenses: bool | None = None
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

    def _closing(self, reason: str = EndReason.FINISHED, **_: Any) -> None:
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
        if response is not None and self._licenses_read():
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
        reads = self._reads_licenses  # _licenses_read(), inline: a call per page
        if response is not None and (reads if reads is not None else self._licenses_read()):
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

    def _licenses_read(self) -> bool:
        """Whether the crawl reads the pages' RSL licenses (looked up once)."""
        if self._reads_licenses is None:
            self._reads_licenses = self.licenses.document() is not None
        return self._reads_licenses

    def _output_begins(self, response: Response | None) -> PageOutput | None:
        """``response``'s output begins (its input pass's turn is over): what becomes of it,
        kept on its page, new or an earlier pass's (a ``process_spider_exception``'s output after
        its callback's); ``None`` for start()'s output or a crawl without trail or report."""
        producing = PRODUCING.get()
        if producing is not None and producing[0] is response:
            producing[0] = None
        if response is None or self._url_ledger is None:
            return None
        page = self.page.pages.get(response)  # PageState.decided, inlined: a call per page
        if page is None or page.verdict is None:
            page = self.page.read(response)
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


class ItemGate:
    """Drops or marks the items of a page by its directives and its usage decision."""

    def __init__(self, crawler: Crawler, page: PageState, images: ImageGate) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.page = page
        self.images = images
        self._keep_noindex = page.config.noindex_action == "keep"
        #: ``REP_ITEM_PREFERENCES_FIELD`` (``""``: off).
        self._preferences_field = page.config.item_preferences_field

    def gate(self, item: Any, response: Response, page: Page) -> Any:
        """The item through the page's checks, with what the page pass read of its page
        (``page``, its verdict decided): the item, or ``None`` when it is dropped."""
        verdict = page.verdict
        assert verdict is not None  # the page pass reads a page before its output
        output = page.output
        item = self.by_verdict(item, response, verdict, output)
        item = item if item is None else self.by_images(item, response, verdict, page)
        for url, _fetched, said_no in page.fetched:  # pages its callback fetched itself
            if item is None:
                break
            item = self.by_verdict(item, response, said_no, output, url)
        return item

    def by_verdict(
        self,
        item: Any,
        response: Response,
        verdict: PageVerdict,
        output: PageOutput | None = None,
        said_by: str = "",
    ) -> Any:
        """SPEC §6: noindex, or an ``unavailable_after`` that has passed (the verdict's
        :attr:`~rep_engine.verdict.page.PageVerdict.index`), then ``REP_PURPOSE``: drop or
        mark the items of a page denied for the crawl (its ``purpose``); a kept item gets
        its page's preferences under ``REP_ITEM_PREFERENCES_FIELD``. ``said_by``: the page
        whose verdict it is, when a page the callback fetched itself (its usage counts only
        when it refused a purpose)."""
        refused = verdict.index
        if refused is not None:
            if not self._keep_noindex:
                refuse_item(self.crawler, item, response, refused, output, said_by)
                return None
            inc(self.stats, REASONS[refused.reason].kept)
        if said_by and verdict.purpose is None:
            return item
        decision, refused = verdict.usage, verdict.purpose
        if self.page.mark:
            try:
                ItemAdapter(item)[meta.USAGE] = decision.to_dict()
            except (KeyError, TypeError):  # an item class without that field
                inc(self.stats, "rep/purpose/items_not_marked")
            if refused is not None:
                inc(self.stats, f"rep/purpose/items_marked/{refused.purpose}")
            return self._with_preferences(item, decision)
        if refused is None:
            return self._with_preferences(item, decision)
        refuse_item(self.crawler, item, response, refused, output, said_by)
        return None

    def _with_preferences(self, item: Any, decision: Any) -> Any:
        """The item with its page's preferences, as an ``audit export`` line gives them
        (without the snapshot hashes: the trail's record is written after the item)."""
        name = self._preferences_field
        if not name:
            return item
        value = preferences_of(usage_part(decision, "", "") if decision.signals else None)
        try:
            ItemAdapter(item)[name] = value
        except (KeyError, TypeError):  # an item class without that field
            inc(self.stats, "rep/purpose/items_without_preferences")
        return item

    def by_images(self, item: Any, response: Response, verdict: PageVerdict, page: Page) -> Any:
        """The image URLs of an item of a noimageai page, refused or marked (a bug of ours
        is logged and counted, and never costs the item)."""
        try:
            shown = self.images.page(response, verdict, page)
            return item if shown is None else self.images.item(item, response, shown)
        except Exception as error:
            self.page.failed(response, "noimageai images", error)
            return item


class LinkGate:
    """Whether a page's nofollow (or a rel="nofollow" link) drops a request."""

    def __init__(self, crawler: Crawler, page: PageState) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.page = page
        self._keep_nofollow = page.config.nofollow_action == "keep"
        self._rel_nofollow = page.config.rel_nofollow

    def by_follow(
        self,
        request: Request,
        response: Response,
        verdict: PageVerdict,
        output: PageOutput | None = None,
    ) -> bool:
        """Whether the page's nofollow (its ``verdict``'s ``follow``), or a rel="nofollow"
        link, drops ``request`` (written in the page's ``output`` when one is kept)."""
        refused = verdict.follow
        if refused is not None:
            if self._keep_nofollow:
                inc(self.stats, "rep/directives/requests_kept/nofollow")
                return False
            sources = "; ".join(verdict.directives.sources)
            refuse_request(self.crawler, Action.FOLLOW, request, refused, response, sources, output)
            return True
        if self._rel_nofollow and self._is_rel_nofollow(request, response):
            message = f'Not followed: {response.url} links to it only with rel="nofollow"'
            refused = Refused(Reason.REL_NOFOLLOW, message, PAGE, verdict.agent)
            refuse_request(self.crawler, Action.FOLLOW, request, refused, response, output=output)
            return True
        return False

    def _is_rel_nofollow(self, request: Request, response: Response) -> bool:
        """Whether the page links to ``request`` only with ``rel="nofollow"`` (read once)."""
        page = self.page.page_of(response)
        targets = page.rel_targets
        if targets is None:
            try:
                targets = rel_nofollow_targets(response)
            except Exception as error:  # never lose a page's links over one broken tag
                targets = frozenset()
                self.page.failed(response, 'rel="nofollow" links', error)
            page.rel_targets = targets
        return bool(targets) and canonicalize_url(request.url) in targets
