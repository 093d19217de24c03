"""The verdict checked against the request as it is sent (docs/decisions.md, 'One request,
one verdict').

:class:`SentRequestCheck` is a downloader middleware late in the chain (after the
``User-Agent`` middleware and where user-agent rotators sit, before Scrapy's HTTP cache):
when a component after scrapy_rep's robots.txt middleware changed the request's
``User-Agent`` to another crawler's name (and ``ROBOTSTXT_USER_AGENT`` does not fix the
name), the request is decided again, with the same function, for the name it is sent
with. A refusal is performed as any other (stats, log, signal, audit trail). A document
the new name needs that is not known yet (an RSL license of another group) cannot be
waited for here: the request is dropped, with a stat and a log line saying why, never
sent on the old name's verdict.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest

from scrapy_rep.crawl.requests.owners import DocumentsOwner, owner_of
from scrapy_rep.crawl.requeststate import KEY, RequestState
from scrapy_rep.crawl.stats import inc
from scrapy_rep.verdict import Refused, Wait

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: After Scrapy's ``UserAgentMiddleware`` (500), rotators (400-550) and the proxy middleware
#: (750); before Scrapy's HTTP cache (900), which may answer without sending.
PRIORITY = 899


class SentRequestCheck:
    """Decides again a request sent for another name than it was decided for."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._owner: DocumentsOwner | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request, spider: Any = None) -> Request | None:
        owner = self._owner
        if owner is None:
            owner = self._owner = owner_of(self.crawler)
            if owner is None:
                return None
        state = request.meta.get(KEY)  # the usual request: the name it was decided for
        if type(state) is RequestState:
            headers = request.headers
            header = headers.get(b"User-Agent") if headers else None
            if header and owner.facts.names.get(header) == state.names:
                return None
        try:
            verdict = owner.decide_sent(request)
        except Exception:  # never lose a request over a bug of ours: the verdict stands
            inc(self.crawler.stats, "rep/requests/sent_check_errors")
            logger.exception("scrapy_rep internal error checking %s as sent", request)
            return None
        if verdict is None:
            return None
        inc(self.crawler.stats, "rep/requests/decided_again")
        if isinstance(verdict, Refused):
            owner.perform.refused(request, owner.facts.of(request), verdict)
        if isinstance(verdict, Wait):
            inc(self.crawler.stats, "rep/requests/dropped/sent_unknown")
            message = (
                f"Dropped: sent with another User-Agent than it was checked for; the "
                f"{verdict.document} of {verdict.key} it needs is not known"
            )
            logger.info("scrapy_rep: %s: %s", message, request)
            raise IgnoreRequest(message)
        owner.perform.allowed(request, owner.facts.of(request), verdict)
        return None
