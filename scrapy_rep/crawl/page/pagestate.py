"""What the page pass knows of each response, read once (SPEC §6, purpose notes §9).

:class:`PageState` (one per crawl) reads a response's directives (robots meta,
``X-Robots-Tag``), its usage decision for the crawl's purposes (the origin's signals, the
page's own and its RSL licenses) and whether its output passes every gate untouched, once
per response object and never from ``response.meta`` (spiders copy a page's meta into the
requests they yield). Reading never fails a page: a bug or a broken page counts as having
nothing to say, logged once and counted in ``rep/directives/errors``. Shared by the page
pass's downloader middleware, which reads each page as it arrives (whichever way the
response then goes: callback, errback, or an ``engine.download_async`` call), and its
spider middleware and gates.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import replace
from datetime import datetime, timezone
from functools import partial
from typing import TYPE_CHECKING, Final
from weakref import WeakKeyDictionary

from scrapy.http import HtmlResponse
from scrapy.http.request import NO_CALLBACK

from rep_engine.directives import EMPTY, PageDirectives
from rep_engine.robotstxt.useragent import held_names
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import robots_agent
from rep_engine.settings.rules import page_rules
from rep_engine.usage.imageusage import IMAGE_USAGE_KEY, record_for
from rep_engine.usage.purpose import UsageSignal
from rep_engine.usage.rsl.terms import says_not_read
from rep_engine.verdict.page import SAYS_NOTHING, PageFacts, PageVerdict, decide_page
from rep_engine.verdict.policy import NO_SIGNALS, NOTHING_BEFORE, Before
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.config import PerCrawler, config_of
from scrapy_rep.crawl.internals import error_line
from scrapy_rep.crawl.page.pagelicenses import PageLicenseReader
from scrapy_rep.crawl.page.pagereader import (
    NOFOLLOW_HINT,
    crawler_tokens,
    is_image,
    read_statements,
)
from scrapy_rep.crawl.pages import PAGES, Page
from scrapy_rep.crawl.requests.downloadermiddlewares import answered_before
from scrapy_rep.crawl.requeststate import sent_state, state_of
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response


#: The page pass's one logger, under the name it has always had (users filter on it).
logger = logging.getLogger(__name__)

#: Sets of crawler names whose tokens are remembered (a rotator's few).
_MAX_NAME_SETS: Final = 256

#: The page state of each crawl (:meth:`PageState.of`).
_STATES: PerCrawler[PageState] = PerCrawler("page_state")

#: The response whose spider output is being produced in this context (a page the callback
#: fetches itself is tied to it: :meth:`PageState.fetching`), in a box of one emptied when
#: the callback's turn is over, which a context copied from this one (its task) sees too.
PRODUCING: ContextVar[list[Response | None] | None] = ContextVar(
    "scrapy_rep_producing", default=None
)


class InputMark(list["Response | None"]):
    """The box the spider middleware's input pass puts in :data:`PRODUCING` (a step of the
    output puts a plain list): a call the loop makes in a copy of it is no callback's code."""


def _outside_any_task() -> bool:
    """Whether this runs on an asyncio loop outside any task: a call the loop makes itself
    (a reactor's timed call or I/O), never a callback's code (Scrapy runs that in a task),
    in the context copied when it was scheduled, which may be a page's: Twisted's asyncio
    reactor makes every timed call in the context of whoever set its one timer last (on
    Scrapy 2.13 often a page's, between its input pass and its output: a media pipeline's
    file for another page's item seemed that page's fetch). No loop running: ``False``."""
    try:
        return asyncio.current_task() is None
    except RuntimeError:
        return False


class PageState:
    """Each response's directives and usage decision, read once (SPEC §6), kept while it lives."""

    def __init__(self, crawler: Crawler, config: RepConfig) -> None:
        self.crawler = crawler
        self.config = config
        self.stats = crawler.stats
        #: The declared User-Agent; the tokens of a page whose request nothing decided.
        self._declared = robots_agent(crawler.settings)
        self.tokens = crawler_tokens(self._declared, config.directive_tokens)
        self._extra = crawler_tokens("", config.directive_tokens)
        #: Remembered by :meth:`_tokens_for` and :meth:`_sent_as`.
        self._tokens_of: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._sent: dict[bytes, tuple[str, ...]] = {}
        #: The settings the page's decision takes, and the crawl's purposes among them.
        self.rules = rules = page_rules(config)
        self.usage = rules.policy
        #: A page's noimageindex covers its images (``REP_MEDIA_NOINDEX_MEANS_NO_AI``).
        self.noimageindex_covers = config.media_noindex_means_no_ai
        self.mark = config.purpose_action == "mark"
        #: What is known of each response (while it lives).
        self.pages: WeakKeyDictionary[Response, Page] = WeakKeyDictionary()
        #: For AI purposes, TDMRep's meta tags are looked for too.
        self._ai = self.usage.needs_tdmrep
        self.licenses = PageLicenseReader(crawler, config, self.usage)

    @classmethod
    def of(cls, crawler: Crawler) -> PageState:
        """The crawl's page state, shared by the components that read pages (one read and
        one verdict per response object, whichever component asks first)."""
        state = _STATES.get(crawler)
        if state is None:
            state = _STATES[crawler] = cls(crawler, config_of(crawler))
            PAGES[crawler] = state.pages  # for the trail's record of a page fetched alone
        return state

    def read(self, response: Response, request: Request | None = None) -> Page:
        """Read ``response`` once, as it arrives or before its callback: its verdict, its stats and
        whether its output passes every gate untouched (``plain``: no directive or refusal acts
        on it, nothing is marked on its items, and it links to no page with ``rel="nofollow"``
        when that is read). ``request``: the one it answers, when the response does not name it
        yet (an answer of the HTTP cache, in a downloader middleware)."""
        page = self.pages.get(response)  # page_of inline (the hot path)
        if page is None:
            page = self.pages[response] = Page()
        verdict = self.verdict_of(response, page, request)
        directives = verdict.directives
        if directives is not EMPTY and self.stats is not None:  # rep/directives/…_pages
            self.stats.inc_value("rep/directives/pages_with_directives")
            if directives.noindex:
                self.stats.inc_value("rep/directives/noindex_pages")
            if directives.nofollow:
                self.stats.inc_value("rep/directives/nofollow_pages")
            if directives.is_expired():
                self.stats.inc_value("rep/directives/expired_pages")
        config = self.config
        page.plain = not (
            (directives is not EMPTY and self._acts(directives))
            or verdict.purpose is not None
            or self.mark
            or bool(config.item_preferences_field)
            or (  # may_link_nofollow, inline (a call per page)
                config.rel_nofollow
                and isinstance(response, HtmlResponse)
                and NOFOLLOW_HINT(response.body) is not None
            )
        )
        return page

    def _acts(self, directives: PageDirectives) -> bool:
        """Whether ``directives`` act on the page's items or links (its gates are not skipped)."""
        return bool(
            directives.noindex
            or directives.nofollow
            or directives.noimageai
            or (directives.noimageindex and self.noimageindex_covers)
            or directives.unavailable_after is not None
        )

    def decided(self, response: Response) -> Page:
        """What the page pass read of ``response`` (:meth:`read`), read now if not yet."""
        page = self.pages.get(response)
        if page is None or page.verdict is None:
            page = self.read(response)
        return page

    def page_of(self, response: Response) -> Page:
        """What is known of ``response`` (a new :class:`Page` the first time)."""
        page = self.pages.get(response)
        if page is None:
            page = self.pages[response] = Page()
        return page

    def verdict_of(
        self, response: Response, page: Page | None = None, request: Request | None = None
    ) -> PageVerdict:
        """The page's verdict, decided once per response object, never from
        ``response.meta`` (a child page must not inherit its parent's directives); a failure
        counts as "directives" or "usage signals" not read (:meth:`failed`). ``page``: its
        :class:`Page`, when the caller has it; ``request``: as :meth:`read`."""
        if page is None:
            page = self.page_of(response)
        verdict = page.verdict
        if verdict is not None:
            return verdict
        facts = None
        try:
            facts = self._facts(response, page, request)
            statements = read_statements(
                response, facts.tokens, meta_in_noscript=self.config.meta_in_noscript, ai=self._ai
            )
        except Exception as error:  # never lose a page's output over its directives
            self.failed(response, "directives", error)
            statements = SAYS_NOTHING
            if facts is None:  # not even its facts: the crawler's own names
                facts = PageFacts(response.url, self.tokens)
        page.facts = facts
        page.statements = statements
        # replayed_at's flag first, inline (a call per page)
        page.cached = replayed_at(response, request) if "cached" in response.flags else None
        try:
            verdict = decide_page(facts, statements, self.rules)
            if verdict.directives.unavailable_after is not None:
                # decided at a time the trail says to the millisecond, as `audit verify` does
                now = datetime.now(timezone.utc)
                page.decided = now.replace(microsecond=now.microsecond // 1000 * 1000)
                verdict = decide_page(facts, statements, self.rules, page.decided)
        except Exception as error:  # never lose a page's output over its signals
            self.failed(response, "usage signals", error)
            verdict = PageVerdict(EMPTY, NO_SIGNALS)
        page.verdict = verdict
        if verdict.purpose is not None:
            inc(self.stats, f"rep/purpose/pages_denied/{verdict.purpose.purpose}")
        return verdict

    def _facts(self, response: Response, page: Page, request: Request | None = None) -> PageFacts:
        """The page's facts: its tokens, what the origin's documents said before it was
        sent (of a response a downloader middleware answered without our verdict: what
        they say of it now, :meth:`_answered`), whether it is an image, and the
        ``noimageai`` of the page that showed it."""
        if response.request is not None:
            request = response.request
        tokens = self.tokens
        before = NOTHING_BEFORE
        embedded = ""
        if request is not None:
            state = state_of(request)
            names: tuple[str, ...] = ()
            if state is not None:
                if state.before is not None:
                    before = state.before
                names = state.names
            if not names:  # nothing decided it before the fetch: the names it was sent as
                names = self._sent_as(request)
            if before is NOTHING_BEFORE and sent_state(request) is None:
                before = self._answered(request, page)
            found = self._tokens_of.get(names)
            tokens = found if found is not None else self._tokens_for(names)
            if IMAGE_USAGE_KEY in request.meta:  # no record, no call (the usual page)
                record = record_for(
                    request.meta, request.url, request.meta.get("redirect_urls", ())
                )
                embedded = "" if record is None else str(record.get("source", ""))
        image = is_image(response)
        return PageFacts(response.url, tokens, before, image, embedded)

    def _answered(self, request: Request, page: Page) -> Before:
        """What the origin's documents say of a request no verdict of ours reached (a
        downloader middleware placed before scrapy_rep's robots.txt one answered it
        itself: a mock, a local mirror), for its page's decision: the usage signals its
        verdict would have read (robots.txt ``Content-Usage`` / ``Content-Signal``,
        tdmrep.json, RSL licenses: :meth:`~rep_engine.verdict.policy.UsagePolicy
        .before_fetch`), from the documents the crawl has, which the response waited
        for (:mod:`scrapy_rep.crawl.page.downloadermiddlewares`;
        :meth:`~scrapy_rep.crawl.requests.downloadermiddlewares.RobotsTxtMiddleware
        .verdict_had`; kept on ``page``, whose record names the versions). A "no" of
        them for a purpose of the crawl refuses its items as the page's own would (a
        site owner's "no" is not lost to a mirror). Its origin's robots.txt not had still
        (the crawl closed while it waited): nothing, its purposes unknown
        (``REP_PURPOSE_UNKNOWN`` decides). A robots.txt
        ``Disallow`` implies no preferences (aipref attach §3.1): nothing either."""
        page.answered, before = answered_before(self.crawler, request)
        return before

    def _sent_as(self, request: Request) -> tuple[str, ...]:
        """The names a request nothing decided before the fetch (robots.txt not obeyed, no
        purpose) is held to, as sent: the declared name, then its ``User-Agent``'s
        (:func:`~rep_engine.robotstxt.useragent.held_names`, the header read as
        :class:`~scrapy_rep.crawl.requests.facts.FactsReader` does), per header."""
        headers = request.headers
        header = (headers.get(b"User-Agent") if headers else None) or b""
        names = self._sent.get(header)
        if names is None:
            if len(self._sent) >= _MAX_NAME_SETS:
                self._sent.clear()
            sent = header.decode("latin-1")
            names = self._sent[header] = held_names(self._declared, sent)
        return names

    def fetching(self, request: Request) -> Callable[[Response], None] | None:
        """A component asks the engine to download ``request`` itself
        (:func:`scrapy_rep.crawl.internals.watch_downloads`): the page whose callback is
        producing output in this context, if any, is told of it when it comes
        (:meth:`fetched`). Our documents and the media pipelines' files (``NO_CALLBACK``)
        are not pages; a ``NO_CALLBACK`` request a callback fetches itself is, marked
        :data:`meta.FETCHED_PAGE`: read and decided as it arrives, its "no" gates the
        callback's items (docs/behaviour.md, 'Page-level directives')."""
        producing = PRODUCING.get()
        by = None if producing is None else producing[0]
        if (
            by is not None
            and request.callback is NO_CALLBACK
            and type(producing) is InputMark
            and _outside_any_task()
        ):
            # a media pipeline's file (sent with NO_CALLBACK), asked for by the loop's own
            # call in a copy of the page's context between its input pass and its output:
            # not its callback's. A request with a callback or none (a coroutine callback's
            # fetch chained on its own fetch's Deferred) stays tied, as does any fetch
            # within a step of the output
            by = None
        if request.callback is NO_CALLBACK:
            if by is None or meta.ROBOTS_REQUEST in request.meta:
                return None  # our documents, a media pipeline's file: not pages
            request.meta[meta.FETCHED_PAGE] = True
        return partial(self.fetched, by)

    def fetched(self, by: Response | None, response: Response) -> None:
        """A page fetched with ``engine.download_async`` came back, decided as it arrived.
        Its "no" to keeping what is built from it (noindex, a passed ``unavailable_after``, a
        refusal for the crawl's purpose) applies to the items ``by``'s callback yields from now
        on (an item yielded after it may be built from it), each refusal naming the page;
        fetched outside any callback's output (an item pipeline's, an extension's; a callback's
        task that outlived its turn), it gates none (counted:
        ``rep/directives/fetched_pages_[not_]gating``)."""
        try:
            fetched = self.decided(response)
            verdict = fetched.verdict
            if verdict is None or (verdict.index is None and verdict.purpose is None):
                return
            page = None if by is None else self.pages.get(by)
            if page is None:
                inc(self.stats, "rep/directives/fetched_pages_not_gating")
                return
            of = f" of {response.url}, which the page's callback fetched"
            index, purpose = verdict.index, verdict.purpose
            named = replace(
                verdict,
                index=None if index is None else replace(index, message=index.message + of),
                purpose=None if purpose is None else replace(purpose, message=purpose.message + of),
            )
            page.fetched = (*page.fetched, (response.url, fetched, named))
            page.plain = False
            inc(self.stats, "rep/directives/fetched_pages_gating")
        except Exception as error:  # never lose the callback's output over it
            self.failed(response, "directives", error)

    def _tokens_for(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """The crawler tokens whose directives apply to a page whose request was decided for
        ``names`` (any name's "no" applies: docs/decisions.md 'Every name a request can be
        held to'), then ``REP_DIRECTIVE_TOKENS``; remembered (a rotator's few sets)."""
        if not names:
            return self.tokens
        if len(self._tokens_of) >= _MAX_NAME_SETS:
            self._tokens_of.clear()
        named = (name for name in names if name)
        tokens = self._tokens_of[names] = tuple(dict.fromkeys((*named, *self._extra)))
        return tokens

    def failed(self, response: Response, what: str, error: Exception) -> None:
        """Reading a page failed: it counts as having none of ``what``; logged, counted."""
        inc(self.stats, "rep/directives/errors")
        logger.warning(
            "Could not read the %(what)s of %(url)s (%(error)s); the page is treated as "
            "having none",
            {"what": what, "url": response.url, "error": error_line(error)},
            extra={"spider": self.crawler.spider},
        )

    async def licenses_async(self, response: Response) -> None:
        """The page's RSL licenses, awaited when not known yet (purpose notes §9)."""
        try:
            signals = await self.licenses.signals(response)
        except Exception as error:  # never lose a page's output over its licenses
            self.failed(response, "RSL licenses", error)
            return
        self.add_licenses(response, signals)

    def add_licenses(
        self, response: Response | None, signals: tuple[UsageSignal, ...] | None
    ) -> None:
        """Decide the page again with its RSL license signals (``None``: those known now)."""
        if response is None:
            return
        try:
            if signals is None:
                signals = self.licenses.known_now(response)
            if not signals:
                return
            page = self.page_of(response)
            earlier = self.verdict_of(response, page)
            facts = page.facts
            if facts is None:  # never: verdict_of keeps them
                return
            statements = page.statements.also(licenses=signals)
            verdict = decide_page(facts, statements, self.rules, page.decided)
            refused = verdict.purpose
            if refused is not None and earlier.purpose is None:
                inc(self.stats, f"rep/purpose/pages_denied/{refused.purpose}")
            if refused is not None and refused.signal is not None and says_not_read(refused.signal):
                inc(self.stats, "rep/rsl/pages_denied/licenses_not_read")
            page.statements, page.verdict = statements, verdict
            response.meta[meta.USAGE] = verdict.usage
            if refused is not None:  # its items go through the gates after all
                page.plain = False
        except Exception as error:  # never lose a page's output over its licenses
            self.failed(response, "RSL licenses", error)


def replayed_at(response: Response, request: Request | None = None) -> datetime | bool | None:
    """When a response Scrapy's HTTP cache replayed was really fetched: its storage's
    ``cache_timestamp`` (request meta, Scrapy 2.19: ``scrapy/extensions/httpcache.py``), to
    the millisecond; ``True`` for a replay whose time the cache does not give; ``None`` for
    a response fetched now. The flag decides, not the meta key (a spider may copy it into a
    page fetched live). ``request``: the response's, when not bound to it yet."""
    if "cached" not in response.flags or "scrapy_rep" in response.flags:
        return None
    request = response.request or request
    stamp = request.meta.get("cache_timestamp") if request is not None else None
    if isinstance(stamp, bool) or not isinstance(stamp, (int, float)):
        return True
    when = datetime.fromtimestamp(stamp, timezone.utc)
    return when.replace(microsecond=when.microsecond // 1000 * 1000)
