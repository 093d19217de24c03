"""Scrapy's private attributes that scrapy_rep reads (scrapy_rep/crawl/internals.py), each
checked against a running crawl of the installed Scrapy: if a Scrapy release moves one, this
fails here, naming it, instead of a crawl quietly taking the slower path."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider, signals
from scrapy.core.scheduler import Scheduler
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl import internals
from scrapy_rep.crawl.requests.downloadermiddlewares import RobotsTxtMiddleware
from tests.support.robotsite import BASE_SETTINGS, ListSpider, Reply, Sites, robots


@pytest_twisted.ensureDeferred
async def test_each_read_finds_what_it_reads_in_a_running_crawl() -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    seen: dict[str, Any] = {}

    class Probe(Spider):
        name = "probe"

        async def start(self) -> Any:
            yield Request(sites.url("a", "/x"))

        async def parse(self, response: Any) -> None:
            engine = internals.running_engine(self.crawler)
            seen["engine"] = engine
            seen["response"] = response
            seen["downloaded"] = await internals.download(
                self.crawler, Request(response.url + "?again")
            )
            seen["scheduler"] = internals.engine_scheduler(engine)
            seen["closing"] = internals.engine_closing(engine)
            seen["seen"] = internals.seen_fingerprints(
                seen["scheduler"], self.crawler.request_fingerprinter
            )
            seen["process_request"] = internals.downloader_methods(engine, "process_request")
            seen["manager"] = internals.downloader_middleware(engine)
            seen["spider_middlewares"] = internals.spider_middlewares(engine)
            seen["encoding"] = internals.explicit_encoding(response)
            seen["named"] = internals.explicit_encoding(response.replace(encoding="koi8-r"))
            named = Request(response.url, meta={"download_slot": "mine"})
            seen["slot_keys"] = (
                response.request.meta.get("download_slot"),  # written by the downloader
                internals.scrapys_slot_key(engine.downloader, response.request),
                internals.scrapys_slot_key(engine.downloader, named),
                named.meta["download_slot"],  # left as it was
            )

    crawler = get_crawler(Probe, BASE_SETTINGS)
    closing: list[bool] = []
    crawler.signals.connect(
        lambda spider, reason: closing.append(
            internals.engine_closing(internals.running_engine(crawler))
        ),
        signal=signals.spider_closed,
        weak=False,
    )
    scraped: list[Any] = []
    asked: list[Any] = []

    def opened(spider: Any) -> None:
        engine = internals.running_engine(crawler)
        seen["after_each_scrape"] = internals.after_each_scrape(
            engine, lambda result, request: scraped.append((result, request))
        )
        seen["watch_downloads"] = internals.watch_downloads(engine, asked.append)

    inside: list[bool] = []  # each request, as it reaches its download slot
    crawler.signals.connect(
        lambda request, **_: inside.append(internals.in_downloader(crawler, request)),
        signal=signals.request_reached_downloader,
        weak=False,
    )
    crawler.signals.connect(opened, signal=signals.spider_opened, weak=False)
    assert internals.running_engine(crawler) is None  # before the crawl: no engine
    try:
        await crawler.crawl()
    finally:
        await sites.close()
    assert seen["engine"] is crawler.engine
    assert isinstance(seen["scheduler"], Scheduler)
    assert seen["closing"] is False
    assert closing == [True]
    # The dupefilter's own record (its set, of bytes in 2.19, of hex strings before): the
    # page's request is in it, another is not.
    fingerprint = crawler.request_fingerprinter.fingerprint  # type: ignore[union-attr]
    assert seen["seen"] is not None
    assert seen["seen"](fingerprint(Request(sites.url("a", "/x"))))
    assert not seen["seen"](fingerprint(Request(sites.url("a", "/y"))))
    owners = [getattr(m, "__self__", None) for m in seen["process_request"]]
    assert any(isinstance(owner, RobotsTxtMiddleware) for owner in owners)
    assert seen["manager"] is not None and hasattr(seen["manager"], "middlewares")
    names = [type(m).__name__ for m in seen["spider_middlewares"]]
    assert "PageDirectivesMiddleware" in names
    # A downloaded response names no encoding; one made with encoding= names it.
    assert seen["encoding"] is None and seen["named"] == "koi8-r"

    # The slot Scrapy keys a request by (the hostname), which it writes in its meta.
    assert seen["slot_keys"] == ("127.0.0.1", "127.0.0.1", "127.0.0.1", "mine")

    # The scraper says when a response's whole output is through: the page's, once.
    assert seen["after_each_scrape"] is True
    assert [result for result, _ in scraped] == [seen["response"]]
    assert [request for _, request in scraped] == [seen["response"].request]
    # The engine's own downloads for a component are watched as they are asked for.
    assert seen["watch_downloads"] is True
    assert sites.url("a", "/x?again") in [request.url for request in asked]
    assert seen["downloaded"].url == sites.url("a", "/x?again")
    # The downloader's requests: a request is in it from its downloader middlewares on.
    assert inside and all(inside)
    assert internals.in_downloader(crawler, seen["response"].request) is False


@pytest_twisted.ensureDeferred
async def test_closing_the_spider_when_it_opens_logs_no_scrapy_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A spider closed from a ``spider_opened`` handler (the audit trail that cannot be
    written): Scrapy 2.13 cannot close it before its engine runs, so it is closed then;
    no ERROR from Scrapy ("Engine not running"), and nothing fetched."""
    from scrapy import signals

    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    crawler = get_crawler(ListSpider, BASE_SETTINGS)
    crawler.signals.connect(
        lambda **_: internals.close_spider(crawler, "closed_at_once"),
        signal=signals.spider_opened,
        weak=False,
    )
    try:
        await crawler.crawl(urls=[sites.url("a", f"/{n}") for n in range(3)])
    finally:
        await sites.close()
    assert crawler.stats is not None
    assert crawler.stats.get_value("finish_reason") == "closed_at_once"
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert sites.requested("a") == []


class _DropsMissing:
    """A project's downloader middleware that drops 404 responses in ``process_response``
    (IgnoreRequest) and fails on ``/broken`` in ``process_request``."""

    def process_request(self, request: Request, spider: Any = None) -> None:
        if request.url.endswith("/broken"):
            raise ValueError("broken before its download")

    def process_response(self, request: Request, response: Any, spider: Any = None) -> Any:
        if response.status == 404:
            from scrapy.exceptions import IgnoreRequest

            raise IgnoreRequest("ignored: 404")
        return response


@pytest_twisted.ensureDeferred
async def test_the_response_a_downloader_middleware_dropped_is_on_the_scraped_failure() -> None:
    """The failure the scraper is through with names the response a middleware's
    ``process_response`` raised on (Scrapy's loop over those methods, on its traceback);
    a failure before any response names none, nor one whose traceback was cleaned."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    site.script("/missing", Reply(404, b"no"))
    settings = {
        **BASE_SETTINGS,
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}._DropsMissing": 600},
    }
    crawler = get_crawler(ListSpider, settings)
    scraped: dict[str, Any] = {}

    def opened(spider: Any) -> None:
        engine = internals.running_engine(crawler)
        internals.after_each_scrape(
            engine,
            lambda result, request: scraped.update(
                {request.url: (internals.dropped_response(result), result)}
            ),
        )

    crawler.signals.connect(opened, signal=signals.spider_opened, weak=False)
    missing, broken = sites.url("a", "/missing"), sites.url("a", "/broken")
    try:
        await crawler.crawl(urls=[missing, broken])
    finally:
        await sites.close()
    assert set(scraped) == {missing, broken}
    dropped, failure = scraped[missing]
    assert dropped is not None and (dropped.url, dropped.status) == (missing, 404)
    assert scraped[broken][0] is None
    failure.tb = failure.value.__traceback__ = None  # cleaned (``Failure.cleanFailure``)
    assert internals.dropped_response(failure) is None


@pytest_twisted.ensureDeferred
async def test_a_download_the_engine_did_for_a_callback_that_failed_is_told_with_its_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A callback downloads pages itself (``engine.download_async``): ``/moved``, which
    redirects to ``/missing``, a 404 a downloader middleware drops, and ``/broken``, which
    one fails on before its download. Each failure is told, before the callback gets its
    exception, with the request that failed (the redirect's, the engine's loop over what
    the middlewares return; Scrapy 2.13 downloads it through the watched method itself)
    and a failure whose traceback still names the dropped response. What the teller
    raises is logged, and the callback gets the download's own exception."""
    from scrapy.exceptions import IgnoreRequest

    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    site.script("/moved", Reply(301, b"", {"Location": "/missing"}))
    site.script("/missing", Reply(404, b"no"))
    told: list[tuple[str, Any]] = []
    caught: dict[str, BaseException] = {}

    class Fetches(Spider):
        name = "fetches"

        async def start(self) -> Any:
            yield Request(sites.url("a", "/x"))

        async def parse(self, response: Any) -> None:
            for path in ("/moved", "/broken"):
                try:
                    await internals.download(self.crawler, Request(response.urljoin(path)))
                except Exception as error:
                    caught[path] = error

    def failed(request: Request, failure: Any) -> None:
        told.append((request.url, internals.dropped_response(failure, request)))
        raise RuntimeError("a bug of the teller")

    settings = {**BASE_SETTINGS, "DOWNLOADER_MIDDLEWARES": {f"{__name__}._DropsMissing": 600}}
    crawler = get_crawler(Fetches, settings)

    def opened(spider: Any) -> None:
        engine = internals.running_engine(crawler)
        assert internals.watch_downloads(engine, lambda request: None, failed)

    crawler.signals.connect(opened, signal=signals.spider_opened, weak=False)
    try:
        await crawler.crawl()
    finally:
        await sites.close()
    assert isinstance(caught["/moved"], IgnoreRequest), caught
    assert isinstance(caught["/broken"], ValueError), caught
    told_of = dict(told)
    dropped = told_of[sites.url("a", "/missing")]
    assert dropped is not None and dropped.status == 404
    assert told_of[sites.url("a", "/broken")] is None
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == len(told) and all("internal error" in e for e in errors), errors
