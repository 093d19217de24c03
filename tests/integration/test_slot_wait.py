"""The verdict holds when the request leaves (docs/decisions.md, 'The verdict holds when
the request leaves'): Scrapy runs the downloader middlewares when a request enters the
downloader; the request then waits in its download slot (``DOWNLOAD_DELAY``,
``Crawl-delay``, AutoThrottle, a long queue) before it is sent. What it was decided on
(an override's expiry, a robots.txt's freshness) is held against the moment it leaves,
and an origin's robots.txt never waits behind its pages. Real crawls of local origins,
the server's own arrival times."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import signals
from twisted.internet import reactor
from twisted.internet.task import deferLater

from rep_audit.verify import verify
from scrapy_rep.crawl.report import RepReport
from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS
from tests.support.audittrail import by_url, url_records
from tests.support.robotsite import HTML, ListSpider, Reply, Sites, crawl, robots
from tests.support.scrapyversions import jitter

PERMISSION = "written permission of the site owner, 2026-11-01"


def arrivals(sites: Sites, name: str, prefix: str) -> list[float]:
    """When (``time.monotonic()``) the server got each request under ``prefix``."""
    origin = sites.origins[name]
    return sorted(t for path, times in origin.times.items() if path.startswith(prefix)
                  for t in times)  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_no_request_goes_past_its_override_after_the_expiry(tmp_path: Path) -> None:
    """16 requests robots.txt disallows enter the downloader at once under an override,
    then wait their turn 0.4 s apart; the override ends 1.5 s after the first page came
    back (the crawl's clock is moved on then: the expiry falls amid them however long the
    crawl took to start). None reaches the server once it has expired (the issue's crawl
    sent 16 of 21 after it, up to 31 s); those sent after it are refused by robots.txt,
    and their records say so."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    ends = int(time.time()) + 3600
    expires = datetime.fromtimestamp(ends, timezone.utc).isoformat()
    trail = tmp_path / "trail.jsonl"
    settings = {
        "CONCURRENT_REQUESTS": 16,
        "DOWNLOAD_DELAY": 0.4,
        **jitter(0),
        "REP_AUDIT_FILE": str(trail),
        "REP_OVERRIDES": [{"host": "127.0.0.1", "reason": PERMISSION, "expires": expires}],
    }
    ahead = [0.0]  # the crawl's clock less the real one

    def first_page(response: Any, **_: Any) -> None:
        if not ahead[0] and "/private/" in response.url:
            ahead[0] = ends - time.time() - 1.5  # the override ends 1.5 s from now

    def watch(crawler: Any) -> None:
        crawler.signals.connect(first_page, signal=signals.response_received, weak=False)
        crawler.signals.connect(
            lambda **_: setattr(OWNERS[crawler], "_clock", lambda: time.time() + ahead[0]),
            signal=signals.spider_opened,
            weak=False,
        )

    urls = [sites.url("a", f"/private/{n}") for n in range(16)]
    try:
        crawler, spider = await crawl(urls, settings, on_crawler=watch)
    finally:
        await sites.close()
    offset = time.time() - time.monotonic() + ahead[0]  # server time -> the crawl's clock
    sent = [t + offset for t in arrivals(sites, "a", "/private/")]
    assert sent and [t for t in sent if t >= ends] == []
    assert len(spider.downloaded) == len(sent) and len(spider.dropped) == 16 - len(sent)
    expired = crawler.stats.get_value("rep/requests/override_expired")
    assert expired == len(spider.dropped) >= 4
    assert crawler.stats.get_value("rep/requests/decided_at_send") >= expired
    for record in url_records(trail):
        if record["fate"] == "fetched":
            assert record["robots"]["overridden"] and record["sent_at"] < record["expires"]
            assert record["expires"] <= expires.replace("+00:00", ".000Z")
        else:
            assert record["robots"]["override_expired"]
    assert verify(trail).findings == []


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_pages_go_under_the_robots_txt_of_when_they_are_sent(tmp_path: Path) -> None:
    """``Crawl-delay: 1`` and a robots.txt fresh for 1 s: ``Allow: /``, then ``Disallow:
    /p``. 6 pages wait in the origin's slot, one a second. The refresh goes first in the
    slot, not behind them (the issue's waited 87 s), and no page reaches the server under
    the first robots.txt once the second was served (12 of 12 did, up to 62 s after; 6
    pages show it: a refresh behind them comes 6 s after the first, pages under v1 from
    the second second on)."""
    sites = Sites()
    origin = sites.add("a")
    origin.script(
        "/robots.txt",
        robots("User-agent: *\nAllow: /\nCrawl-delay: 1\n", **{"Cache-Control": "max-age=1"}),
        robots("User-agent: *\nDisallow: /p\nCrawl-delay: 1\n"),
    )
    trail = tmp_path / "trail.jsonl"
    settings = {
        "CONCURRENT_REQUESTS": 16,
        **jitter(0),
        "REP_CACHE_MIN_TTL": 0,
        "REP_AUDIT_FILE": str(trail),
    }
    urls = [sites.url("a", f"/p/{n}") for n in range(6)]
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    robots_times = origin.times["/robots.txt"]
    assert len(robots_times) == 2
    first, second = robots_times
    pages = arrivals(sites, "a", "/p/")
    # under v1 while it was fresh only (a margin for the reactor), none once v2 was served
    assert pages and all(t < min(first + 1 + 0.5, second) for t in pages)
    assert second - first < 1 + 2.5  # v1's second, then the refresh's turn (one gap)
    assert len(spider.downloaded) == len(pages) and len(spider.dropped) == 6 - len(pages)
    assert crawler.stats.get_value("rep/requests/decided_at_send")
    assert verify(trail).findings == []


class DownloadsItself(ListSpider):
    """``/start``'s callback downloads two slow pages and then ``/p/1`` itself
    (``download_async``, no scheduler): ``/p/1`` waits in the download slot behind them."""

    slow_arrived: Callable[[], bool] = staticmethod(lambda: True)

    async def parse(self, response: Any) -> None:
        from scrapy import Request
        from scrapy.exceptions import IgnoreRequest
        from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future

        from scrapy_rep.crawl.internals import download

        self.downloaded.append(response.url)
        base = response.url.rsplit("/", 1)[0]
        slow = [
            deferred_from_coro(download(self.crawler, Request(f"{base}/slow/{n}"))) for n in (1, 2)
        ]
        while not self.slow_arrived():  # both in flight: the slot's two places are taken
            await maybe_deferred_to_future(deferLater(reactor, 0.01))
        try:
            page = await download(self.crawler, Request(f"{base}/p/1"))
            self.downloaded.append(page.url)
        except IgnoreRequest as refused:
            self.dropped[f"{base}/p/1"] = str(refused)
        for each in slow:
            self.downloaded.append((await maybe_deferred_to_future(each)).url)


@pytest_twisted.ensureDeferred
async def test_a_download_async_request_due_for_a_refresh_at_its_send_waits_for_it(
    tmp_path: Path,
) -> None:
    """robots.txt ``Allow: /``, fresh for 1 s, then ``Disallow: /p``
    (answered 1 s after it is asked). ``/p/1``, downloaded by a callback itself, is
    decided under the first and waits in its slot (two per host) behind two slow pages
    past its freshness: at its send it is handed back for the refresh and, as a
    scheduled request is held for it, waits for the refresh in place; the second
    robots.txt refuses it (it went out under the stale copy, 1 s before the new
    ``Disallow`` arrived)."""
    sites = Sites()
    origin = sites.add("a")
    origin.script(
        "/robots.txt",
        robots("User-agent: *\nAllow: /\n", **{"Cache-Control": "max-age=1"}),
        Reply(200, b"User-agent: *\nDisallow: /p\n", {"Content-Type": "text/plain"}, delay=1),
    )
    for n in (1, 2):
        origin.script(f"/slow/{n}", Reply(200, b"<html></html>", HTML, delay=1.5))
    DownloadsItself.slow_arrived = staticmethod(  # type: ignore[method-assign]
        lambda: all(f"/slow/{n}" in origin.times for n in (1, 2))
    )
    trail = tmp_path / "trail.jsonl"
    settings = {
        "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
        "REP_CACHE_MIN_TTL": 0,
        "REP_AUDIT_FILE": str(trail),
    }
    try:
        crawler, spider = await crawl([sites.url("a", "/start")], settings, DownloadsItself)
    finally:
        await sites.close()
    assert origin.times.get("/p/1") is None, sites.requested("a")
    assert len(origin.times["/robots.txt"]) == 2
    robots_url = sites.url("a", "/robots.txt")
    assert spider.dropped == {
        sites.url("a", "/p/1"): f"Forbidden by {robots_url} (line 2: Disallow: /p)"
    }
    assert crawler.stats.get_value("rep/requests/held_at_send") == 1


async def held_at_send(tmp_path: Path) -> tuple[Any, Any, Sites, Path]:
    """8 pages robots.txt disallows, let through by an override, are held for robots.txt
    (answered after 0.5 s), then wait in the host's slot 0.4 s apart while it is fresh for
    1 s: those that leave after it went stale are held at their send for its refresh,
    handed back and decided again. Each is downloaded once."""
    sites = Sites()
    rules = "User-agent: *\nDisallow: /private\n"
    first = replace(robots(rules, **{"Cache-Control": "max-age=1"}), delay=0.5)
    sites.add("a").script("/robots.txt", first, robots(rules))  # every page held for it
    trail = tmp_path / "trail.jsonl"
    settings = {
        "CONCURRENT_REQUESTS": 16,
        "DOWNLOAD_DELAY": 0.4,
        **jitter(0),
        "REP_CACHE_MIN_TTL": 0,
        "REP_AUDIT_FILE": str(trail),
        "REP_REPORT": True,
        "REP_OVERRIDES": [{"host": "127.0.0.1", "reason": PERMISSION, "expires": "2099-01-01"}],
    }
    urls = [sites.url("a", f"/private/{n}") for n in range(8)]
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(urls)
    assert sites.requested("a").count("/robots.txt") == 2  # the first, and its refresh
    assert all(sites.requested("a").count(f"/private/{n}") == 1 for n in range(8))
    assert crawler.stats.get_value("rep/requests/held_at_send") >= 1  # the case at hand
    return crawler, spider, sites, trail


@pytest_twisted.ensureDeferred
async def test_a_request_held_at_its_send_is_one_attempt_of_one_download(tmp_path: Path) -> None:
    """A request held once at its send (it reached the downloader, was handed back
    before it left, then reached it again) said ``attempts: 2`` for its one download.
    ``attempts`` counts the downloads tried (docs/audit-trail.md)."""
    _, _, _, trail = await held_at_send(tmp_path)
    records = url_records(trail)
    assert len(records) == 8
    assert [(r["fate"], r["attempts"]) for r in records] == [("fetched", 1)] * 8
    assert any(r.get("held") for r in records)  # some were held at their send
    assert verify(trail).findings == []


@pytest_twisted.ensureDeferred
async def test_requests_decided_again_at_their_send_are_counted_once(tmp_path: Path) -> None:
    """``rep/requests/overridden`` counted each decision (24 for 8 requests), and the
    report counted each wait as a request that waited (16 for 8). Both count requests;
    the report says the waits apart."""
    crawler, _, _, trail = await held_at_send(tmp_path)
    assert crawler.stats.get_value("rep/requests/overridden") == 8
    held = [r.get("held", 0) for r in url_records(trail)]  # each record's holds
    assert max(held) >= 2  # held for the first robots.txt, then again at its send
    report = next(e for e in crawler.extensions.middlewares if isinstance(e, RepReport))
    waited = [line for line in report.text.splitlines() if "waited for it" in line]
    requests, holds = sum(n > 0 for n in held), sum(held)
    assert holds == crawler.stats.get_value("rep/requests/held")
    assert waited == [f"    {requests} request(s) waited for it ({holds} waits in all)"]


@pytest_twisted.ensureDeferred
async def test_a_crawl_delay_a_refresh_adds_spaces_the_origin_in_one_slot(
    tmp_path: Path,
) -> None:
    """A refreshed robots.txt adds ``Crawl-delay``. The pages that had entered the
    downloader before it (Scrapy put them in the host's slot, ``127.0.0.1``: those held
    at their send for the refresh, and those still queued there) kept that slot while
    the later pages got the origin's own slot with the same floor: two slots sending to
    one server, so gaps half the crawl-delay and less. Every page decided under the
    robots.txt with the crawl-delay (its audit record names that version) goes through
    one slot, the origin's, with its floor. Read from the slot each page was downloaded
    through, as Scrapy made it."""
    sites = Sites()
    origin = sites.add("a")
    delayed = "User-agent: *\nAllow: /\nCrawl-delay: 0.5\n"
    origin.script(
        "/robots.txt",
        robots("User-agent: *\nAllow: /\n", **{"Cache-Control": "max-age=1"}),
        robots(delayed),
    )
    trail = tmp_path / "trail.jsonl"
    settings = {
        "CONCURRENT_REQUESTS": 4,  # the rest wait in the scheduler: decided after the refresh
        "DOWNLOAD_DELAY": 0.3,
        **jitter(0),
        "REP_CACHE_MIN_TTL": 0,
        "REP_AUDIT_FILE": str(trail),
    }
    slot_of: dict[str, tuple[str, float]] = {}  # URL -> the slot's key and delay

    def watch(crawler: Any) -> None:
        def downloaded(request: Any, **_: Any) -> None:
            slots = crawler.engine.downloader.slots
            [key] = [key for key, slot in slots.items() if request in slot.active]
            slot_of[request.url] = (key, slots[key].delay)

        crawler.signals.connect(downloaded, signal=signals.response_downloaded, weak=False)

    urls = [sites.url("a", f"/p/{n}") for n in range(12)]
    try:
        crawler, spider = await crawl(urls, settings, on_crawler=watch)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(urls)
    assert sites.requested("a").count("/robots.txt") == 2  # the first, and its refresh
    # the case at hand: pages in the host's slot when robots.txt went stale, decided again
    assert crawler.stats.get_value("rep/requests/decided_at_send")
    records = by_url(trail)
    version = hashlib.sha256(delayed.encode()).hexdigest()
    under_delay = [url for url in urls if records[url]["robots"]["snapshot"] == version]
    assert len(under_delay) >= 6  # most: 4 at a time, 0.3 s apart, fresh for 1 s
    assert {slot_of[url][0] for url in under_delay} == {sites.bases["a"]}  # one slot
    assert all(slot_of[url][1] == pytest.approx(0.5) for url in under_delay)  # its floor
    # handed back from the host's slot to go through the origin's: one download each
    assert [(r["fate"], r["attempts"]) for r in records.values()] == [("fetched", 1)] * 12
    assert verify(trail).findings == []
