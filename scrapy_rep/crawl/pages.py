"""What the page pass read of each response and decided (:class:`Page`): its facts, its
statements, its verdict, its images, and its output while it goes through (a
:class:`~rep_engine.records.PageOutput`, which the URL ledger settles on the page's entry
once the output is through: one writer, the page pass and the performer of refusals; one
reader, the URL ledger, whose settled entry the trail and the report read, so they cannot
count a page differently); kept only while the URL ledger runs (``REP_AUDIT_FILE``,
``REP_REPORT``), so a crawl with neither pays nothing. :data:`PAGES`: those of each
response, for the trail's record of a page whose output goes through no page pass of its
own (fetched with ``download_async``). :mod:`scrapy_rep.crawl.page.pagestate` reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from rep_engine.verdict.page import SAYS_NOTHING
from scrapy_rep.crawl.config import PerCrawler

if TYPE_CHECKING:
    from datetime import datetime

    from scrapy.http import Response

    from rep_engine.records import PageOutput
    from rep_engine.verdict.decide import Allowed, Refused
    from rep_engine.verdict.page import PageFacts, PageStatements, PageVerdict


#: :attr:`Page.images` before the page's images were looked for.
NOT_READ: Final = object()


class Page:
    """What the page pass knows of one response, each part read once, when first asked
    (:class:`scrapy_rep.crawl.page.pagestate.PageState` reads it): what the URL ledger is
    handed with its output, for the page's record."""

    __slots__ = (
        "answered", "cached", "decided", "facts", "fetched", "held", "images", "output",
        "plain", "rel_targets", "statements", "verdict",
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
        #: (:meth:`~scrapy_rep.crawl.page.pagestate.PageState.read`).
        self.plain = False
        #: The URLs it links to only with ``rel="nofollow"`` (``None``: not read yet).
        self.rel_targets: frozenset[str] | None = None
        #: Its ``noimageai`` images (:mod:`scrapy_rep.crawl.page.images`).
        self.images: object = NOT_READ
        #: What became of its output, while it goes through (``None``: not kept).
        self.output: PageOutput | None = None
        #: The pages its callback fetched itself (``engine.download_async``) that said
        #: no: their URL, what was read of them, and their verdict, whose refusals name
        #: them (:meth:`~scrapy_rep.crawl.page.pagestate.PageState.fetched`); the items it
        #: yields after them go through it.
        self.fetched: tuple[tuple[str, Page, PageVerdict], ...] = ()
        #: A response a downloader middleware answered without our verdict: the verdict
        #: the documents the crawl had gave it when it was read, whose usage signals its
        #: page was decided with and whose versions its record names (``None``: it had a
        #: verdict of ours, or its origin's robots.txt was not had).
        self.answered: Allowed | Refused | None = None
        #: Such a response, held until its origin's documents were had (its record's
        #: ``held``).
        self.held = False


#: What the page pass read of each response of a crawl, for the trail's record of a page
#: whose output goes through no page pass of its own (fetched with ``download_async``).
PAGES: PerCrawler[Mapping[Response, Page]] = PerCrawler("pages_read")
