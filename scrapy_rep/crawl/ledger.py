"""The ledger of a page's output: what the page pass did with the items and links a
page's callback yielded, written while the output goes through and read, once it is
through, by the audit trail (the page's record: ``items_kept``, ``items_dropped``,
``items_not_kept``, ``item_reason``, ``item_why``, ``links_not_followed``,
``not_followed``) and the end-of-crawl report (the page's line, its links' lines, the
closing count). One writer, two readers: the trail and the report cannot count a page
differently.

Written by the page pass (an item passed on) and the performer of refusals
(:mod:`scrapy_rep.crawl.refusals`: an item refused, a link not followed); which of the
items passed on reached the end of the crawl (``item_scraped``: kept) is the URL ledger's
word (:mod:`scrapy_rep.crawl.audit.audit`), written on it once the page's whole output is
through, before any reader reads the page's items. Kept only while a reader runs
(``REP_AUDIT_FILE``, ``REP_REPORT``), so a crawl with neither pays nothing.

Its readers are handed the :class:`Page` too: what the page pass read of the page and
decided (:mod:`scrapy_rep.crawl.page.pagestate` reads it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, Protocol

from rep_engine.verdict.page import SAYS_NOTHING
from scrapy_rep.crawl.config import PerCrawler

if TYPE_CHECKING:
    from datetime import datetime

    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from rep_engine.records import Reason
    from rep_engine.verdict.decide import Refused
    from rep_engine.verdict.page import PageFacts, PageStatements, PageVerdict


class PageLedger:
    """One page's output, as the page pass passed it on."""

    __slots__ = ("dropped", "kept", "links", "passed", "reason", "through", "why")

    def __init__(self) -> None:
        #: Items the page pass passed on, toward the end of the crawl.
        self.passed = 0
        #: Of those, the items that reached it (``item_scraped``), as the URL ledger
        #: settles them once the page's whole output is through: the others a later
        #: component did not keep (a project's spider middleware after the page pass, an
        #: item pipeline dropped them), the record's ``items_not_kept``.
        self.kept = 0
        #: Handed over once the scraper said the response's whole output is through (its
        #: items' fates known: the URL ledger counts them); ``False``: at the end of one
        #: pass of it (Scrapy moved what says when all of it is), every item passed on
        #: taken as kept.
        self.through = False
        #: Items refused, by reason and the sentence that said it, in the order met.
        self.dropped: dict[tuple[Reason, str], int] = {}
        #: The reason and sentence of the latest item refused (``None``: none was).
        self.reason: Reason | None = None
        self.why = ""
        #: The links not followed (nofollow, ``rel="nofollow"``): URL, reason, sentence.
        self.links: list[tuple[str, Reason, str]] = []

    def item_refused(self, verdict: Refused) -> None:
        key = (verdict.reason, verdict.message)
        self.dropped[key] = self.dropped.get(key, 0) + 1
        self.reason, self.why = key

    def link_refused(self, url: str, verdict: Refused) -> None:
        self.links.append((url, verdict.reason, verdict.message))

    @property
    def items_dropped(self) -> int:
        return sum(self.dropped.values())


#: :attr:`Page.images` before the page's images were looked for.
NOT_READ: Final = object()


class Page:
    """What the page pass knows of one response, each part read once, when first asked
    (:class:`scrapy_rep.crawl.page.pagestate.PageState` reads it): what the readers of
    its ledger are handed with it."""

    __slots__ = (
        "cached", "decided", "facts", "fetched", "images", "ledger", "plain", "rel_targets",
        "statements", "verdict",
    )  # fmt: skip

    def __init__(self) -> None:
        #: Its verdict (``None``: not decided yet): directives, usage decision, refusals.
        self.verdict: PageVerdict | None = None
        #: What it says and what is known of it, kept to decide again with its licenses.
        self.statements: PageStatements = SAYS_NOTHING
        self.facts: PageFacts | None = None
        #: When it was decided, if its verdict depends on the time (it names an
        #: ``unavailable_after``); ``None``: it does not.
        self.decided: datetime | None = None
        #: Replayed from Scrapy's HTTP cache: when the copy was really fetched (stored),
        #: ``True`` when the cache does not say (Scrapy before 2.19); ``None``: fetched now.
        self.cached: datetime | bool | None = None
        #: Its output passes every gate untouched
        #: (:meth:`~scrapy_rep.crawl.page.pagestate.PageState.passes_all`).
        self.plain = False
        #: The URLs it links to only with ``rel="nofollow"`` (``None``: not read yet).
        self.rel_targets: frozenset[str] | None = None
        #: Its ``noimageai`` images (:mod:`scrapy_rep.crawl.page.images`).
        self.images: object = NOT_READ
        #: What became of its output, while it goes through (``None``: not kept).
        self.ledger: PageLedger | None = None
        #: The pages its callback fetched itself (``engine.download_async``) that said
        #: no: their URL, what was read of them, and their verdict, whose refusals name
        #: them (:meth:`~scrapy_rep.crawl.page.pagestate.PageState.fetched`); the items it
        #: yields after them go through it.
        self.fetched: tuple[tuple[str, Page, PageVerdict], ...] = ()


class LedgerReader(Protocol):
    """What reads a page's ledger once its output is through, with what the page pass
    read of the page and decided (``page``: its own, never ``response.meta``'s)."""

    def page_done(
        self, response: Response, ledger: PageLedger, page: Page | None = None
    ) -> None: ...


READERS: PerCrawler[list[LedgerReader]] = PerCrawler("ledger_readers")

#: What the page pass read of each response of a crawl, for the trail's record of a page
#: whose output goes through no page pass of its own (fetched with ``download_async``).
PAGES: PerCrawler[Mapping[Response, Page]] = PerCrawler("pages_read")


def read_by(crawler: Crawler, reader: LedgerReader) -> None:
    """``reader`` reads the ledger of every page of ``crawler``'s crawl."""
    READERS.setdefault(crawler, []).append(reader)


def readers_of(crawler: Crawler) -> list[LedgerReader]:
    """The readers of ``crawler``'s ledgers (none: no ledger is kept): the live list, so a
    component may keep it and see a reader that registers later."""
    return READERS.setdefault(crawler, [])
