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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from scrapy.http.request import NO_CALLBACK

from scrapy_rep.crawl import meta
from scrapy_rep.crawl.page.pagestate import PageState

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

#: After every middleware of Scrapy's that changes a response (decompression 590, redirects
#: 600, retries 550, HTTP cache 900), before the audit trail's (10), which records it.
PRIORITY: Final = 20


class PageVerdictMiddleware:
    """Reads and decides each page as it arrives (see the module docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        self.page = PageState.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_response(
        self, request: Request, response: Response, spider: Any = None
    ) -> Response:
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
