"""Each page read and decided as it arrives (SPEC §6; docs/decisions.md, 'A page is
decided as it arrives').

``PageVerdictMiddleware`` sees every response the crawl gets (an HTTP cache's answer, a
page fetched with ``engine.download_async`` too), after the middlewares that decompress,
redirect and retry it, and puts each page's directives and usage decision on
``response.meta``: a page is decided whichever way its response then goes (to its
callback, to its errback only (a 404 that ``HttpErrorMiddleware`` refuses), or back to the
callback that fetched it). Our documents and the media pipelines' files (``NO_CALLBACK``)
are left alone, but for a page a callback fetched itself
(:data:`scrapy_rep.crawl.meta.FETCHED_PAGE`).

A response a downloader middleware placed before scrapy_rep's robots.txt one made itself (a
mock, a local mirror: no verdict of ours reached its request) waits here until its origin's
documents are had (robots.txt, tdmrep.json, RSL licenses: fetched now unless under way), a
page or a media pipeline's file alike: it is then decided on them, as its verdict would
have been, and a "no" of its origin's is not lost to an answer that came first
(docs/behaviour.md, 'A response a downloader middleware made before the verdict').
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

from scrapy.http.request import NO_CALLBACK

from scrapy_rep.crawl import meta, payment
from scrapy_rep.crawl.page.pagestate import PageState
from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS
from scrapy_rep.crawl.requeststate import sent_state

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

#: After every middleware of Scrapy's that changes a response (decompression 590, redirects
#: 600, retries 550, HTTP cache 900), before the audit trail's (10), which records it.
PRIORITY: Final = 20

logger = logging.getLogger(__name__)


class PageVerdictMiddleware:
    """Reads and decides each page as it arrives (see the module docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.page = PageState.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_response(
        self, request: Request, response: Response, spider: Any = None
    ) -> Response | Coroutine[Any, Any, Response]:
        if payment.answered:  # a 402's: the keys that kept it from a retry taken back
            payment.settled(request)
        if sent_state(request) is None and meta.ROBOTS_REQUEST not in request.meta:
            waits = self._waits(request)  # answered before the verdict: held for them?
            if waits is not None:
                return self._read_when_had(waits, request, response)
        return self._read(request, response)

    def _waits(self, request: Request) -> Coroutine[Any, Any, None] | None:
        owner = OWNERS.get(self.crawler)
        try:
            return None if owner is None else owner.answered_waits(request)
        except Exception:  # a bug of ours: the page is read on what the crawl has
            logger.exception("scrapy_rep internal error; please report it")
            return None

    async def _read_when_had(
        self, waits: Coroutine[Any, Any, None], request: Request, response: Response
    ) -> Response:
        """``response``, answered before its origin's documents were had, read once they
        are (``waits``), its page marked held for them."""
        try:
            await waits
        except Exception:  # a bug of ours: the page is read on what the crawl has
            logger.exception("scrapy_rep internal error; please report it")
        self._read(request, response)
        page = self.page.pages.get(response)
        if page is not None:
            page.held = True
        return response

    def _read(self, request: Request, response: Response) -> Response:
        if request.callback is NO_CALLBACK and not request.meta.get(meta.FETCHED_PAGE):
            return response  # our documents, a media pipeline's file
        try:
            verdict = self.page.read(response, request).verdict
            assert verdict is not None  # read() decides it
            said = (request if response.request is None else response.request).meta
            said[meta.DIRECTIVES] = verdict.directives
            said[meta.USAGE] = verdict.usage
        except Exception as error:  # never lose a response: the spider's pass reads it again
            self.page.failed(response, "directives", error)
        return response
