"""noindex / nofollow gating in the crawl (SPEC §6 "Effects in the crawl").

``PageDirectivesMiddleware`` reads every response's directives before the callback runs
and puts them on ``response.meta["rep_directives"]``. Then, from the callback's output:

- items of a noindex page (or one whose ``unavailable_after`` has passed) are dropped
  (``REP_NOINDEX_ACTION = "drop"``) or only recorded (``"keep"``);
- requests from a nofollow page are dropped (``REP_NOFOLLOW_ACTION``), unless their meta
  has ``rep_ignore_nofollow = True``;
- requests for links that the page marks ``rel="nofollow"`` (and links to nowhere else
  on the page) are dropped (``REP_REL_NOFOLLOW``); ``ugc`` and ``sponsored`` alone are
  followed.

Every drop is counted in ``rep/directives/…`` stats and logged at DEBUG with the URL and
the directive that caused it.

It also holds the page against the crawl's purpose (``REP_PURPOSE``): the origin's
signals (robots.txt, tdmrep.json; see :mod:`scrapy_rep.crawl.usagegate`) and the page's
own (:mod:`scrapy_rep.crawl.pageusage`) make one :class:`scrapy_rep.usage.purpose.UsageDecision`,
put on ``response.meta["rep_usage"]``; a page denied for a purpose of the crawl has its
items dropped (``REP_PURPOSE_ACTION = "drop"``) or marked (``"mark"``: every item gets
``rep_usage``, the decision as a dict).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from itemadapter import ItemAdapter
from scrapy import Request
from scrapy.http import Response
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from w3lib.url import canonicalize_url

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.early import EarlyRefusal
from scrapy_rep.crawl.images import ImageGate
from scrapy_rep.crawl.pagelicenses import PageLicenseReader
from scrapy_rep.crawl.pagereader import (
    crawler_tokens,
    may_link_nofollow,
    read_page,
    rel_nofollow_targets,
)
from scrapy_rep.crawl.pageusage import TDM_NAMES, page_signals
from scrapy_rep.crawl.stats import inc
from scrapy_rep.crawl.trails import trail_of
from scrapy_rep.crawl.usagegate import before_of
from scrapy_rep.directives import EMPTY, PageDirectives
from scrapy_rep.settings import RepConfig, robots_agent
from scrapy_rep.usage.imageusage import record_for
from scrapy_rep.usage.policy import NO_SIGNALS, NOTHING_BEFORE, Refusal, UsagePolicy
from scrapy_rep.usage.purpose import UsageDecision, UsageSignal, decide

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: The keys of :mod:`scrapy_rep.crawl.meta`, by their documented names here.
META_KEY = meta.DIRECTIVES
IGNORE_NOFOLLOW_KEY = meta.IGNORE_NOFOLLOW
USAGE_KEY = meta.USAGE


class PageDirectivesMiddleware(BaseSpiderMiddleware):
    """Reads page-level directives and gates items and requests by them (SPEC §6)."""

    def __init__(self, crawler: Crawler, config: RepConfig | None = None) -> None:
        super().__init__(crawler)
        self.config = config = config if config is not None else config_of(crawler)
        self.tokens = crawler_tokens(robots_agent(crawler.settings), config.directive_tokens)
        self.stats = crawler.stats
        self._directives: WeakKeyDictionary[Response, PageDirectives] = WeakKeyDictionary()
        #: Pages whose output passes every gate untouched (:meth:`_passes_all`).
        self._plain: WeakKeyDictionary[Response, bool] = WeakKeyDictionary()
        self._rel_targets: WeakKeyDictionary[Response, frozenset[str]] = WeakKeyDictionary()
        self.usage = UsagePolicy.of(config.purpose, config.purpose_unknown)
        self._mark = config.purpose_action == "mark"
        #: For AI purposes, TDMRep's meta tags are found in the same look at the page as
        #: the robots meta tags.
        self._other_names = TDM_NAMES if self.usage.needs_tdmrep else frozenset()
        self._other_meta: WeakKeyDictionary[Response, list[tuple[str, str]]] = WeakKeyDictionary()
        self._usage: WeakKeyDictionary[Response, tuple[UsageDecision, Refusal | None]] = (
            WeakKeyDictionary()
        )
        #: noimageai pages: their images refused or marked (issue 22).
        self.images = ImageGate(crawler, self.usage.purposes, self._mark, self._refused)
        #: The RSL licenses a page names (crawls that read RSL licenses).
        self.licenses = PageLicenseReader(crawler, config)
        #: Requests the cached robots.txt (tdmrep.json) refuses, refused before the
        #: scheduler (issue 25).
        self.early = EarlyRefusal(crawler, self)
        if config.audit_file:  # the audit trail learns when a page's output is through
            self.process_spider_output = self._audited_output  # type: ignore[method-assign]
            self.process_spider_output_async = self._audited_output_async  # type: ignore[method-assign]

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    # ------------------------------------------------------------------ input

    def process_spider_input(self, response: Response) -> None:
        """Put the directives on ``response.meta`` before the callback runs."""
        directives = self.directives_of(response)
        try:
            response.meta[META_KEY] = directives
        except AttributeError:  # a response without a request (built by hand)
            return
        self._count_page(directives)
        decision, refusal = self.usage_of(response)
        response.meta[USAGE_KEY] = decision
        if self._passes_all(directives, refusal, response):
            self._plain[response] = True

    def _passes_all(
        self, directives: PageDirectives, refusal: Refusal | None, response: Response
    ) -> bool:
        """Whether every item and request of the page passes on untouched: no noindex,
        nofollow, unavailable_after, noimageai, rel="nofollow" link, refusal for the
        crawl's purpose or marking (the usual page; its output then skips the gates)."""
        return not (
            directives.noindex
            or directives.nofollow
            or directives.noimageai
            or directives.unavailable_after is not None
            or refusal is not None
            or self._mark
            or (self.config.rel_nofollow and may_link_nofollow(response))
        )

    def usage_of(self, response: Response) -> tuple[UsageDecision, Refusal | None]:
        """The page's usage decision for the crawl's purposes, and the refusal if it is
        denied (read once per response; reading never fails a page)."""
        known = self._usage.get(response)
        if known is None:
            try:
                known = self._read_usage(response)
            except Exception as error:  # never lose a page's output over its signals
                self._failed(response, "usage signals", error)
                known = (NO_SIGNALS, None)
            self._usage[response] = known
        return known

    def _read_usage(self, response: Response) -> tuple[UsageDecision, Refusal | None]:
        policy = self.usage
        request = response.request
        before = before_of(request)
        directives = self.directives_of(response)
        embedded = None  # an image of a noimageai page (its request carries the record)
        if request is not None and request.meta:
            embedded = record_for(request.meta, request.url, request.meta.get("redirect_urls", ()))
        if (
            before is NOTHING_BEFORE
            and embedded is None
            and not policy.needs_tdmrep
            and not (directives.noai or directives.noimageai)
            and b"Content-Usage" not in response.headers
        ):
            decision = NO_SIGNALS  # the usual page of a search crawl: nothing to read
        else:
            page = page_signals(
                response,
                directives,
                tdm=policy.needs_tdmrep,
                noscript=self.config.meta_in_noscript,
                tdm_meta_tags=self._other_meta.get(response),
                embedded_by="" if embedded is None else str(embedded.get("source", "")),
            )
            decision = policy.after_fetch(before, page)
        refusal = policy.refusal(decision)
        if refusal is not None:
            inc(self.stats, f"rep/purpose/pages_denied/{refusal.purpose}")
        return decision, refusal

    def directives_of(self, response: Response) -> PageDirectives:
        """The directives of ``response`` for this crawler, read once per response.

        Remembered per response object, never taken from ``response.meta``: spiders often
        copy a page's meta into the requests they yield, and a child page must not
        inherit its parent's directives.
        """
        directives = self._directives.get(response)
        if directives is None:
            others: list[tuple[str, str]] = []
            try:
                directives, others = read_page(
                    response,
                    self.tokens,
                    meta_in_noscript=self.config.meta_in_noscript,
                    other_names=self._other_names,
                )
            except Exception as error:  # never lose a page's output over its directives
                directives = EMPTY
                self._failed(response, "directives", error)
            self._directives[response] = directives
            if self._other_names:
                self._other_meta[response] = others
        return directives

    def _failed(self, response: Response, what: str, error: Exception) -> None:
        """Reading a page failed: the page counts as having none of ``what``; logged once
        per response with its URL and counted in ``rep/directives/errors``."""
        inc(self.stats, "rep/directives/errors")
        logger.warning(
            "Could not read the %(what)s of %(url)s (%(error)s); the page is treated as "
            "having none",
            {"what": what, "url": response.url, "error": f"{type(error).__name__}: {error}"},
            extra={"spider": self.crawler.spider},
        )

    def _count_page(self, directives: PageDirectives) -> None:
        if self.stats is None or directives is EMPTY:
            return
        self.stats.inc_value("rep/directives/pages_with_directives")
        if directives.noindex:
            self.stats.inc_value("rep/directives/noindex_pages")
        if directives.nofollow:
            self.stats.inc_value("rep/directives/nofollow_pages")
        if directives.is_expired():
            self.stats.inc_value("rep/directives/expired_pages")

    # ------------------------------------------------------------------ output

    def _audited_output(
        self, response: Response | None, result: Iterable[Any], spider: Any = None
    ) -> Iterable[Any]:
        self._page_licenses(response, None)
        kept = dropped = 0
        try:
            for output in result:
                processed = self._get_processed(output, response)
                if processed is not None:
                    kept += not isinstance(processed, Request)
                    yield processed
                elif not isinstance(output, Request):
                    dropped += 1
        finally:
            self._page_done(response, kept, dropped)

    def process_spider_output(
        self, response: Response | None, result: Iterable[Any], spider: Any = None
    ) -> Iterable[Any]:
        self._page_licenses(response, None)
        return super().process_spider_output(response, result)

    async def process_spider_output_async(
        self, response: Response | None, result: AsyncIterator[Any], spider: Any = None
    ) -> AsyncIterator[Any]:
        """Scrapy's own loop, after the page's RSL licenses are known (if it names any)."""
        if response is not None and self.licenses.document() is not None:
            await self._page_licenses_async(response)
        async for output in result:
            if (output := self._get_processed(output, response)) is not None:
                yield output

    async def _page_licenses_async(self, response: Response) -> None:
        """The page's RSL licenses, awaited when not known yet (purpose notes §9)."""
        try:
            signals = await self.licenses.signals(response)
        except Exception as error:  # never lose a page's output over its licenses
            self._failed(response, "RSL licenses", error)
            return
        self._page_licenses(response, signals)

    def _page_licenses(
        self, response: Response | None, signals: tuple[UsageSignal, ...] | None
    ) -> None:
        """Add the page's RSL license signals (``None``: those known now) to its decision."""
        if response is None:
            return
        try:
            if signals is None:
                signals = self.licenses.known_now(response)
            if not signals:
                return
            decision, earlier = self.usage_of(response)
            decision = decide((*decision.signals, *signals))
            refusal = self.usage.refusal(decision)
            if refusal is not None and earlier is None:
                inc(self.stats, f"rep/purpose/pages_denied/{refusal.purpose}")
            self._usage[response] = (decision, refusal)
            response.meta[USAGE_KEY] = decision
            if refusal is not None:  # its items go through the gates after all
                self._plain.pop(response, None)
        except Exception as error:  # never lose a page's output over its licenses
            self._failed(response, "RSL licenses", error)

    async def _audited_output_async(
        self, response: Response | None, result: AsyncIterator[Any], spider: Any = None
    ) -> AsyncIterator[Any]:
        if response is not None and self.licenses.document() is not None:
            await self._page_licenses_async(response)
        kept = dropped = 0
        try:
            async for output in result:
                processed = self._get_processed(output, response)
                if processed is not None:
                    kept += not isinstance(processed, Request)
                    yield processed
                elif not isinstance(output, Request):
                    dropped += 1
        finally:
            self._page_done(response, kept, dropped)

    def _page_done(self, response: Response | None, kept: int, dropped: int) -> None:
        trail = trail_of(self.crawler)
        if response is None or trail is None:
            return
        try:
            trail.page_done(response, kept, dropped)
        except Exception:  # the page's output is through; a bug of ours must not cost it
            inc(self.stats, "rep/audit/errors")
            logger.exception("scrapy_rep internal error writing the audit record of %s", response)

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        if response is None or response in self._plain:
            return item
        item = self._by_directives(item, response)
        item = item if item is None else self._by_usage(item, response)
        return item if item is None else self._by_images(item, response)

    def _by_images(self, item: Any, response: Response) -> Any:
        """The image URLs of an item of a noimageai page, refused or marked (a bug of ours
        is logged and counted, and never costs the item)."""
        try:
            page = self.images.page(response, self.directives_of(response))
            return item if page is None else self.images.item(item, page)
        except Exception as error:
            self._failed(response, "noimageai images", error)
            return item

    def _by_usage(self, item: Any, response: Response) -> Any:
        """``REP_PURPOSE``: drop or mark the items of a page denied for the crawl."""
        decision, refusal = self.usage_of(response)
        if self._mark:
            try:
                ItemAdapter(item)[USAGE_KEY] = decision.to_dict()
            except (KeyError, TypeError):  # an item class without that field
                inc(self.stats, "rep/purpose/items_not_marked")
            if refusal is not None:
                inc(self.stats, f"rep/purpose/items_marked/{refusal.purpose}")
            return item
        if refusal is None:
            return item
        inc(self.stats, f"rep/purpose/items_dropped/{refusal.purpose}")
        logger.debug(
            "Dropped an item of %(url)s: %(why)s",
            {"url": response.url, "why": refusal.message},
            extra={"spider": self.crawler.spider},
        )
        self.crawler.signals.send_catch_log(
            rep_signals.item_refused,
            item=item,
            response=response,
            reason="purpose",
            message=refusal.message,
        )
        return None

    def _by_directives(self, item: Any, response: Response) -> Any:
        """SPEC §6: noindex, or an ``unavailable_after`` that has passed."""
        directives = self.directives_of(response)
        if not directives.blocks_indexing():
            return item
        reason = "noindex" if directives.noindex else "unavailable_after"
        if self.config.noindex_action == "keep":
            inc(self.stats, f"rep/directives/items_kept/{reason}")
            return item
        inc(self.stats, f"rep/directives/items_dropped/{reason}")
        logger.debug(
            "Dropped an item of %(url)s: the page says %(reason)s (%(sources)s)",
            {"url": response.url, "reason": reason, "sources": "; ".join(directives.sources)},
            extra={"spider": self.crawler.spider},
        )
        self.crawler.signals.send_catch_log(
            rep_signals.item_refused, item=item, response=response, reason=reason
        )
        return None

    def get_processed_request(self, request: Request, response: Response | None) -> Request | None:
        if response is None:  # from start(): only the early refusal applies
            return self.early.request(request, start=True)
        if response in self._plain:
            return self.early.request(request)
        if not request.meta.get(IGNORE_NOFOLLOW_KEY) and self._by_follow(request, response):
            return None
        try:
            page = self.images.page(response, self.directives_of(response))
            marked = request if page is None else self.images.request(request, response, page)
        except Exception as error:  # never lose a request over reading the page's images
            self._failed(response, "noimageai images", error)
            return request
        return None if marked is None else self.early.request(marked)

    def _by_follow(self, request: Request, response: Response) -> bool:
        """Whether the page's nofollow (or a rel="nofollow" link) drops ``request``."""
        directives = self.directives_of(response)
        if directives.nofollow:
            if self.config.nofollow_action == "keep":
                inc(self.stats, "rep/directives/requests_kept/nofollow")
                return False
            inc(self.stats, "rep/directives/requests_dropped/nofollow")
            message = f"Not followed: {response.url} says nofollow"
            self._refused(request, response, "nofollow", message, "; ".join(directives.sources))
            return True
        if self.config.rel_nofollow and self._is_rel_nofollow(request, response):
            inc(self.stats, "rep/directives/requests_dropped/rel_nofollow")
            message = f'Not followed: {response.url} links to it only with rel="nofollow"'
            self._refused(request, response, "rel_nofollow", message)
            return True
        return False

    def _refused(
        self, request: Request, response: Response, reason: str, message: str, sources: str = ""
    ) -> None:
        rep_signals.send_refused(
            self.crawler, logger, request, reason, message, response, detail=sources
        )

    def _is_rel_nofollow(self, request: Request, response: Response) -> bool:
        targets = self._rel_nofollow_targets(response)
        return bool(targets) and canonicalize_url(request.url) in targets

    def _rel_nofollow_targets(self, response: Response) -> frozenset[str]:
        """URLs the page links to only with ``rel`` containing ``nofollow`` (cached)."""
        cached = self._rel_targets.get(response)
        if cached is not None:
            return cached
        try:
            targets = rel_nofollow_targets(response)
        except Exception as error:  # never lose a page's links over one broken tag
            targets = frozenset()
            self._failed(response, 'rel="nofollow" links', error)
        self._rel_targets[response] = targets
        return targets
