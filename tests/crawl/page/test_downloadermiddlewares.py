"""PageVerdictMiddleware with fake responses: each page read and decided as it arrives,
once, shared with the spider middleware (docs/decisions.md, 'A page is decided as it
arrives')."""

from __future__ import annotations

from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.http import HtmlResponse
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl.page.downloadermiddlewares import PageVerdictMiddleware
from scrapy_rep.crawl.page.pagestate import PageState
from scrapy_rep.crawl.page.spidermiddlewares import PageDirectivesMiddleware
from tests.support.scrapyversions import open_stats

URL = "https://e.com/p"
NOINDEX = b'<html><head><meta name="robots" content="noindex"></head></html>'


def both(settings: dict[str, Any] | None = None) -> tuple[PageVerdictMiddleware, Any]:
    crawler = get_crawler(Spider, {"USER_AGENT": "MyBot/1.0", **(settings or {})})
    crawler.spider = Spider("test")
    open_stats(crawler)
    return PageVerdictMiddleware.from_crawler(crawler), PageDirectivesMiddleware(crawler)


def test_a_cached_answer_without_its_request_is_decided_for_the_request_it_answers() -> None:
    """An HTTP cache answer reaches process_response without ``response.request``: its
    page is decided for the request it answers, whose meta the spider will read."""
    arriving, spider_side = both()
    request = Request(URL, meta={"rep_directives": "the parent's", "rep_usage": "the parent's"})
    response = HtmlResponse(URL, body=NOINDEX)
    assert arriving.process_response(request, response) is response
    assert request.meta["rep_directives"].noindex
    assert not request.meta["rep_usage"].signals
    # The spider middleware shares the page's one reading: nothing is read twice.
    assert spider_side.page is arriving.page
    response.request = request  # type: ignore[misc]  # as the engine sets it
    page = arriving.page.pages[response]
    spider_side.process_spider_input(response)
    assert arriving.page.pages[response] is page
    assert spider_side.stats.get_value("rep/directives/noindex_pages") == 1


def test_our_documents_and_the_media_pipelines_files_are_left_alone() -> None:
    arriving, _ = both()
    request = Request(URL, callback=NO_CALLBACK)
    response = HtmlResponse(URL, body=NOINDEX, request=request)
    assert arriving.process_response(request, response) is response
    assert "rep_directives" not in request.meta
    assert response not in arriving.page.pages


def test_a_bug_while_reading_never_costs_the_response(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    arriving, _ = both()

    def broken(*_: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(PageState, "read", broken)
    request = Request(URL)
    response = HtmlResponse(URL, body=NOINDEX, request=request)
    assert arriving.process_response(request, response) is response
    assert arriving.page.stats.get_value("rep/directives/errors") == 1
