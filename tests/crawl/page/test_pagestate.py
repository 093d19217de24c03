"""PageState: the page a callback fetches itself, tied to that callback (docs/decisions.md,
'A page a callback fetches itself gates the items built after it')."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest_twisted
from scrapy import Request, Spider
from scrapy.http import HtmlResponse
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred

from scrapy_rep.crawl import meta
from scrapy_rep.crawl.page.pagestate import PRODUCING
from scrapy_rep.crawl.page.spidermiddlewares import PageDirectivesMiddleware


@pytest_twisted.ensureDeferred
async def test_a_download_the_loop_asks_for_in_a_copy_of_a_pages_context_is_not_its_callbacks() -> (
    None
):
    """From a page's input pass to its output (Scrapy 2.13 sleeps 0.1 s between them) its
    scrape's context marks it as producing; Twisted's asyncio reactor makes every timed call
    in the context of the code that set its one timer last, that one then. A media
    pipeline's file for another page's item, asked for in such a call, was taken for a page
    this callback fetched itself: its ``X-Robots-Tag: noai`` dropped this page's item (the
    whole-crawl property test's slot seed 2, now and then under load). A call the loop makes
    itself is no callback's code: it ties nothing; the callback's own fetch, in a task,
    still gates the page's items."""
    crawler = get_crawler(Spider, {"USER_AGENT": "MyBot/1.0", "REP_PURPOSE": "ai-train"})
    crawler.spider = Spider("test")
    mw = PageDirectivesMiddleware.from_crawler(crawler)
    url = "https://e.com/gallery/2"
    page = HtmlResponse(url, body=b"<html><body>page</body></html>", encoding="utf-8")
    page.request = Request(url)  # type: ignore[misc]
    file = Request("https://e.com/media/1.webp", callback=NO_CALLBACK)
    fetch = Request("https://e.com/detail", callback=NO_CALLBACK)
    loop = asyncio.get_running_loop()

    async def callback() -> Any:  # a coroutine callback: Scrapy runs it in a task
        return mw.page.fetching(fetch)

    async def scrape() -> tuple[Any, Any, Any]:  # the page's scrape, a task of its own
        mw.process_spider_input(page)
        called: asyncio.Future[tuple[Any, Any]] = loop.create_future()
        # the loop's own call (a reactor's timed call), in a copy of this context
        loop.call_soon(lambda: called.set_result((PRODUCING.get(), mw.page.fetching(file))))
        mark, from_the_loop = await called
        return mark, from_the_loop, await asyncio.ensure_future(callback())

    mark, from_the_loop, own = await Deferred.fromFuture(asyncio.ensure_future(scrape()))
    assert mark is not None and mark[0] is page  # the loop's call sees the page's mark
    assert from_the_loop is None
    assert meta.FETCHED_PAGE not in file.meta  # a media pipeline's file, not a page
    # The callback's own fetch is its page's: read as a page, its "no" gates the items.
    assert own is not None and fetch.meta[meta.FETCHED_PAGE] is True
    said_no = HtmlResponse(
        fetch.url, body=b"<html></html>", headers={"X-Robots-Tag": "noai"}, encoding="utf-8"
    )
    said_no.request = fetch  # type: ignore[misc]
    own(said_no)
    assert [url for url, _, _ in mw.page.pages[page].fetched] == [fetch.url]
