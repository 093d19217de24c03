"""The audit trail of each running crawl, for the components that feed it directly (a
call costs less than a signal on the hot path), as the :class:`TrailWriter` they see, and
:class:`AuditMiddleware`, which tells it, and the end-of-crawl report, a request's final
download failure: both read the one place that knows it, so they cannot count it apart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from scrapy.exceptions import NotConfigured

from scrapy_rep.crawl.config import PerCrawler, config_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from scrapy_rep.fetch.cache import CacheEntry
    from scrapy_rep.verdict import Allowed, Refused, RequestFacts


class TrailWriter(Protocol):
    """What the performer of verdicts and :class:`AuditMiddleware` tell the crawl's audit
    trail (:class:`scrapy_rep.crawl.audit.audit.AuditTrail`) directly; a page's output
    reaches it in the page's ledger (:mod:`scrapy_rep.crawl.ledger`)."""

    def decided(
        self, request: Request, facts: RequestFacts, verdict: Allowed | Refused
    ) -> None: ...

    def license_used(
        self, license_url: str, entry: CacheEntry[Any], request: Request | None = None
    ) -> None: ...

    def failed(self, request: Request, exception: BaseException) -> None: ...

    def downloaded(self, request: Request, response: Response) -> None: ...

    def sent_changed(self, request: Request, record: str, sent: str, moved: bool) -> None: ...

    def sent_at(self, record: str, now: float, expires: float) -> None: ...

    def not_sent(self, record: str) -> None: ...


TRAILS: PerCrawler[TrailWriter] = PerCrawler("trail")


class FailureReader(Protocol):
    """What else reads a request's final download failure: the end-of-crawl report
    (:class:`scrapy_rep.crawl.report.RepReport`), told what the trail is told."""

    def failed(self, request: Request, exception: BaseException) -> None: ...


#: The readers of each running crawl's final download failures besides its trail.
FAILURE_READERS: PerCrawler[list[FailureReader]] = PerCrawler("failure_readers")


def trail_of(crawler: Crawler) -> TrailWriter | None:
    """The crawl's audit trail, if ``REP_AUDIT_FILE`` is set and the extension runs."""
    return TRAILS.get(crawler)


class AuditMiddleware:
    """The outermost downloader middleware (``REP_AUDIT_FILE``, ``REP_REPORT``): an
    exception that reaches it is the request's final failure (retries and redirects are
    inside; a request dropped at its send too), and the response that leaves it is the
    one the engine gets."""

    def __init__(self, crawler: Crawler) -> None:
        config = config_of(crawler)
        if not (config.audit_file or config.report or config.report_file):
            raise NotConfigured
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_exception(
        self, request: Request, exception: Exception, spider: object = None
    ) -> None:
        trail = TRAILS.get(self.crawler)
        if trail is not None:
            trail.failed(request, exception)
        for reader in FAILURE_READERS.get(self.crawler) or ():
            reader.failed(request, exception)

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Response:
        """The response Scrapy's engine gets, when this is the outermost
        ``process_response`` (what ``response_received`` tells, one signal less a page)."""
        trail = TRAILS.get(self.crawler)
        if trail is not None:
            trail.downloaded(request if response.request is None else response.request, response)
        return response
