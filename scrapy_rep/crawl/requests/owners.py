"""The robots.txt middleware of each running crawl, as the spider-side components see it
(the early refusal, a page's RSL licenses, the check of a request as sent): what they ask
of it, without importing it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from scrapy_rep.crawl.config import PerCrawler

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_rep.crawl.documents.documents import OriginDocument
    from scrapy_rep.crawl.requests.facts import FactsReader
    from scrapy_rep.crawl.requests.perform import Performer
    from scrapy_rep.crawl.requeststate import RequestState
    from scrapy_rep.settings import RepConfig
    from scrapy_rep.verdict import RequestFacts, Verdict, Wait


class DocumentsOwner(Protocol):
    """What :class:`scrapy_rep.crawl.requests.downloadermiddlewares.RobotsTxtMiddleware` offers."""

    #: Every document the crawl's purposes need, by kind name.
    documents: dict[str, OriginDocument[Any]]
    #: The facts of each request, and what each verdict means.
    facts: FactsReader
    perform: Performer
    crawler: Crawler
    config: RepConfig
    #: The time now (POSIX seconds): the clock the verdicts' freshness is read on.
    _clock: Callable[[], float]

    def refusal_if_known(self, request: Request) -> Callable[[], bool] | None: ...

    def decide_sent(self, request: Request) -> Verdict | None: ...

    def same_site(self, request: Request, state: RequestState) -> bool: ...

    def decide_at_send(
        self, request: Request, state: RequestState
    ) -> tuple[RequestFacts, Verdict] | None: ...

    def hold_at_send(self, request: Request, verdict: Wait) -> None: ...


OWNERS: PerCrawler[DocumentsOwner] = PerCrawler("owner")


def owner_of(crawler: Crawler) -> DocumentsOwner | None:
    """The crawl's robots.txt middleware, once it is built."""
    return OWNERS.get(crawler)
