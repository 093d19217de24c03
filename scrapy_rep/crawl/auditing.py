"""The URL ledger of each running crawl (:class:`scrapy_rep.crawl.audit.audit.UrlLedger`)
as the parts that decide write it directly (a call costs less than a signal on the hot
path: :class:`LedgerCalls`), what its readers are told (:class:`UrlReader`), and
:class:`AuditMiddleware`, which tells it a request's final failure and response."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from scrapy.exceptions import NotConfigured

from scrapy_rep.crawl.config import PerCrawler, config_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.records import Fate, UrlEntry
    from rep_engine.verdict.decide import Allowed, Refused, RequestFacts
    from scrapy_rep.crawl.waits import Waits


class LedgerCalls(Protocol):
    """What the parts that decide (the performer of verdicts, the check at the send, the page's
    licenses), :class:`AuditMiddleware` and the page pass tell the crawl's URL ledger directly
    (a page's output: in its ledger, :mod:`scrapy_rep.crawl.ledger`)."""

    #: The requests' waits for their origins' documents (the report's origin lines).
    waits: Waits

    def decided(
        self, request: Request, facts: RequestFacts, verdict: Allowed | Refused
    ) -> None: ...

    def license_used(
        self, license_url: str, entry: CacheEntry[Any], request: Request | None = None
    ) -> None: ...

    def failed(self, request: Request, exception: BaseException) -> None: ...

    def failure_scraped(self, request: Request, failure: Any) -> None: ...

    def downloaded(self, request: Request, response: Response) -> None: ...

    def sent_changed(self, request: Request, record: str, sent: str, moved: bool) -> None: ...

    def sent_at(self, record: str, now: float, expires: float) -> None: ...

    def not_sent(self, record: str) -> None: ...


LEDGERS: PerCrawler[LedgerCalls] = PerCrawler("url_ledger")


def ledger_of(crawler: Crawler) -> LedgerCalls | None:
    """The crawl's URL ledger, if it keeps one (:attr:`~rep_engine.settings.RepConfig.ledger`)."""
    return LEDGERS.get(crawler)


#: The readers of each running crawl's settled entries (:func:`read_urls`).
URL_READERS: PerCrawler[list[UrlReader]] = PerCrawler("url_readers")


def read_urls(crawler: Crawler, reader: UrlReader) -> None:
    """``reader`` reads every entry the URL ledger settles (:class:`scrapy_rep.AuditTrail`)."""
    URL_READERS.setdefault(crawler, []).append(reader)


class UrlReader(Protocol):
    """A reader of the URL ledger's settled entries (the end-of-crawl report, the tools)."""

    def settled(self, entry: UrlEntry, fate: Fate, added: Mapping[str, Any], cause: object) -> None:
        """A request's fate is final: its ``entry``, what the fate ``added`` (the ``url``
        record's other fields) and its ``cause``: a refusal's reason (or another add-on's
        word), a failed download's exception, a fetched page's
        :class:`~scrapy_rep.crawl.ledger.PageLedger`, else ``None``."""

    def file_settled(self, url: str, fate: str, refusal: Refused | None, error: str) -> None:
        """A file an item pipeline downloaded was held against the crawl's purposes (``fate``)."""

    def downloaded_apart(self, url: str, status: int) -> None:
        """A download no entry follows (a file an item pipeline fetched without a verdict);
        ``status``: its response's."""


class AuditMiddleware:
    """The outermost downloader middleware (with a URL ledger: ``REP_AUDIT_FILE``, ``REP_REPORT``,
    :attr:`~rep_engine.settings.RepConfig.ledger`): an exception that reaches it is the request's
    final failure (retries and redirects are inside; a request dropped at its send too); the
    response that leaves it, the engine's."""

    def __init__(self, crawler: Crawler) -> None:
        if not config_of(crawler).ledger:
            raise NotConfigured
        self.crawler = crawler
        #: The crawl's URL ledger once found (made after this middleware may be).
        self._ledger: LedgerCalls | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_exception(
        self, request: Request, exception: Exception, spider: object = None
    ) -> None:
        ledger = LEDGERS.get(self.crawler)
        if ledger is not None:
            ledger.failed(request, exception)

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Response:
        """The response Scrapy's engine gets, when this is the outermost
        ``process_response`` (what ``response_received`` tells, one signal less a page)."""
        ledger = self._ledger
        if ledger is None:  # looked up until found: one call fewer a page
            ledger = self._ledger = LEDGERS.get(self.crawler)
        if ledger is not None:
            ledger.downloaded(request if response.request is None else response.request, response)
        return response
