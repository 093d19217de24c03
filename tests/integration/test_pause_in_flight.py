"""A pause while downloads are in flight loses nothing (SPEC §4: pausing with a JOBDIR
loses no held request).

Held requests released into Scrapy's scheduler after it had saved its JOBDIR queue (the
spider closing) were lost, and the queue files they went into lost more in the resumed
run. On main the window is narrow (a release scheduled a moment earlier firing late); once
the held requests wait for async ``robots_parsed`` handlers it is wide: with the load of
the second test below, 9 paused crawls in 10 lost 2 to 15 pages. Now a request released
while the spider closes stays held and is kept in JOBDIR with the others.
``crawler.stop_async()`` is what Scrapy's SIGINT handler calls.
"""

from __future__ import annotations

import logging
import random
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted
from scrapy import Request, signals
from scrapy.core.scheduler import Scheduler
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.test import get_crawler
from twisted.internet import reactor
from twisted.internet.defer import Deferred
from twisted.internet.task import deferLater

from rep_audit.verify import verify
from scrapy_rep.crawl.report import RepReport
from tests.support.audittrail import url_records
from tests.support.robotsite import (
    BASE_SETTINGS,
    ListSpider,
    Reply,
    Sites,
    robots_middleware,
    until,
)
from tests.support.scrapyversions import needs_scrapy, stop

PAGE = Reply(200, b"<html><body>p</body></html>", {"Content-Type": "text/html"})


class SaysWhenClosed(Scheduler):
    """Scrapy's scheduler, which says when it has saved its JOBDIR queue, and then takes
    a moment to finish closing (as one that talks to Redis does): the reactor runs what
    is ready meanwhile, and the engine waits for it."""

    closed: ClassVar[Deferred[str] | None] = None

    def close(self, reason: str) -> Any:
        super().close(reason)
        if type(self).closed is None:
            return None
        type(self).closed.callback(reason)
        return deferLater(reactor, 0.5)  # type: ignore[arg-type]


@needs_scrapy((2, 18), "pausing from a robots_parsed handler")
@pytest_twisted.ensureDeferred
async def test_requests_released_while_the_spider_closes_are_kept(
    tmp_path: Path,
) -> None:
    """The held requests go on after the ``robots_parsed`` handlers; here the only one
    pauses the crawl and finishes once the scheduler has saved its queue. The requests
    released then used to go into that closed queue and were lost."""
    sites = Sites()
    sites.add("a").script("/robots.txt", Reply(200, b"User-agent: *\nAllow: /\n"))
    urls = [sites.url("a", f"/{n}") for n in range(3)]
    settings = {**BASE_SETTINGS, "JOBDIR": str(tmp_path), "SCHEDULER": SaysWhenClosed}
    first = get_crawler(ListSpider, settings)
    SaysWhenClosed.closed = closed = Deferred()
    reasons: list[str] = []

    async def pause_meanwhile(**_: Any) -> None:
        stop(first)  # as SIGINT does
        reasons.append(await maybe_deferred_to_future(closed))

    first.signals.connect(pause_meanwhile, signal=signals.robots_parsed, weak=False)
    try:
        await first.crawl(urls=urls)
    finally:
        SaysWhenClosed.closed = None
    assert reasons == ["shutdown"]
    second = get_crawler(ListSpider, settings)
    try:
        await second.crawl(urls=urls)
    finally:
        await sites.close()
    assert first.spider.downloaded == []  # type: ignore[union-attr]
    assert sorted(second.spider.downloaded) == urls  # type: ignore[union-attr]
    assert second.stats.get_value("rep/requests/resumed") == 3  # type: ignore[union-attr]


@pytest_twisted.ensureDeferred
async def test_a_pause_under_load_loses_and_repeats_nothing(tmp_path: Path) -> None:
    """Six origins whose robots.txt and pages answer slowly; the crawl is stopped at its
    first response, with robots.txt downloads and pages in flight, then resumed: every
    page is in exactly one run's output."""
    chance = random.Random(21)
    sites = Sites()
    urls = []
    for o in range(6):
        origin = sites.add(f"o{o}")
        rules = b"User-agent: *\nAllow: /\n"
        delay = 0.2 + chance.random()
        origin.script("/robots.txt", Reply(200, rules, {"Content-Type": "text/plain"}, delay=delay))
        for p in range(8):
            origin.script(f"/{p}", Reply(PAGE.status, PAGE.body, PAGE.headers, delay=0.4))
            urls.append(sites.url(f"o{o}", f"/{p}"))
    settings = {
        **BASE_SETTINGS,
        "JOBDIR": str(tmp_path),
        "REP_UNREACHABLE_MAX_WAIT": 600,
        "CONCURRENT_REQUESTS": 16,
        "LOG_LEVEL": "INFO",
    }
    first = get_crawler(ListSpider, settings)
    responses: list[str] = []

    def response(response: Any, **_: Any) -> None:
        if not response.url.endswith("/robots.txt"):
            responses.append(response.url)

    first.signals.connect(response, signal=signals.response_received, weak=False)
    running = first.crawl(urls=urls)
    await until(lambda: responses)
    await stop(first)
    await running
    second = get_crawler(ListSpider, settings)
    try:
        await second.crawl(urls=urls)
    finally:
        await sites.close()
    one, two = first.spider.downloaded, second.spider.downloaded  # type: ignore[union-attr]
    assert first.stats.get_value("finish_reason") == "shutdown"  # type: ignore[union-attr]
    assert sorted(one + two) == sorted(urls)  # each page once, in one run or the other
    assert first.spider.dropped == {} and second.spider.dropped == {}  # type: ignore[union-attr]


class LockSpider(ListSpider):
    """ListSpider whose last request carries a lock in its meta (something a spider keeps
    per request that cannot be pickled)."""

    async def start(self) -> Any:
        for url in self.urls:
            meta = {"lock": threading.Lock()} if url == self.urls[-1] else {}
            yield Request(url, callback=self.parse, errback=self.failed, meta=meta)


@pytest_twisted.ensureDeferred
async def test_a_pause_keeps_every_held_request_but_the_one_that_cannot_be_pickled(
    tmp_path: Path,
) -> None:
    """20 requests held for a robots.txt that does not answer, one of them with a lock in
    its meta; the crawl pauses. The state file is written without that one (dropped, said,
    counted, recorded ``refused`` by ``closed``), and the next run fetches the other 19."""
    sites = Sites()
    origin = sites.add("a")
    origin.script("/robots.txt", Reply(200, hang=True), Reply(200, b"User-agent: *\nAllow: /\n"))
    urls = [sites.url("a", f"/{n}") for n in range(20)]
    trail = tmp_path / "trail.jsonl"
    settings = {
        **BASE_SETTINGS,
        "JOBDIR": str(tmp_path / "job"),
        "REP_AUDIT_FILE": str(trail),
        "DOWNLOAD_TIMEOUT": 30,
    }
    first = get_crawler(LockSpider, settings)
    running = first.crawl(urls=urls)
    try:
        await until(lambda: first.stats.get_value("rep/requests/held") == 20)
        stop(first)  # as SIGINT does
        origin.answer_hanging()
        await running
        second = get_crawler(LockSpider, settings)
        await second.crawl(urls=urls)
    finally:
        await sites.close()
    assert first.stats.get_value("rep/requests/dropped/not_serializable") == 1
    assert second.stats.get_value("rep/requests/resumed") == 19
    assert sorted(second.spider.downloaded) == sorted(urls[:19])  # type: ignore[union-attr]
    records = {record["url"]: record for record in url_records(trail)}
    assert records[urls[19]]["fate"] == "refused"
    assert records[urls[19]]["refused_by"] == "closed"
    assert all(records[url]["fate"] == "fetched" for url in urls[:19])
    assert verify(str(trail)).findings == []


@pytest_twisted.ensureDeferred
async def test_a_pause_says_what_it_left_for_the_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A paused crawl's closing line and report say how many requests the resume has left:
    those in Scrapy's JOBDIR queue (the count Scrapy's own "Resuming crawl" line gives the
    next run) and those held; the held ones' line says where they are kept."""
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    up = sites.add("up")
    up.script("/robots.txt", Reply(200, b"User-agent: *\nAllow: /\n"))
    for p in range(5):
        up.script(f"/{p}", Reply(PAGE.status, PAGE.body, PAGE.headers, delay=0.2))
    urls = [sites.url("down", "/1"), sites.url("down", "/2")]
    urls += [sites.url("up", f"/{p}") for p in range(5)]
    settings = {
        **BASE_SETTINGS,
        "JOBDIR": str(tmp_path),
        "REP_UNREACHABLE_MAX_WAIT": 600,
        "CONCURRENT_REQUESTS": 1,  # the pages of "up" wait in Scrapy's queue
        "REP_REPORT": True,
        "LOG_LEVEL": "INFO",
    }
    caplog.set_level(logging.INFO)
    first = get_crawler(ListSpider, settings)
    running = first.crawl(urls=urls)
    held = robots_middleware  # the two of "down" held, a page of "up" downloaded
    await until(lambda: first.spider.downloaded and len(held(first).held) == 2)  # type: ignore[union-attr]
    await stop(first)
    await running
    said = [r.getMessage() for r in caplog.records]
    caplog.clear()
    down.script("/robots.txt", Reply(200, b"User-agent: *\nAllow: /\n"))  # it is back
    second = get_crawler(ListSpider, settings)
    try:
        await second.crawl(urls=urls)
    finally:
        await sites.close()
    [resuming] = [r.getMessage() for r in caplog.records if "Resuming crawl" in r.getMessage()]
    scheduled = int(resuming.split("(")[1].split()[0])  # Scrapy's own count of its queue
    assert scheduled >= 1
    state = tmp_path / "scrapy_rep.state"
    pause = f"paused (JOBDIR): {scheduled + 2} requests left ({scheduled} scheduled, 2 held)"
    assert f"scrapy_rep: {pause}; the same command resumes the crawl" in said
    kept = f"2 held request(s) kept in {state} for the resume (2 in it, 0 in their disk queues)"
    assert f"scrapy_rep: {kept}" in said
    [report] = [e for e in first.extensions.middlewares if isinstance(e, RepReport)]
    assert f"In short: {pause}; " in report.text
    [report] = [e for e in second.extensions.middlewares if isinstance(e, RepReport)]
    assert "paused" not in report.text  # the resumed run finished
    assert not any("held request(s) kept" in r.getMessage() for r in caplog.records)
