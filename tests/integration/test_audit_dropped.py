"""Requests Scrapy drops before they are ever sent, in real crawls with the audit trail
(docs/audit-trail.md, "What a record is"): a link or a redirect to a host outside the
spider's ``allowed_domains`` (Scrapy's offsite filter drops it at ``request_scheduled``)
and a duplicate that a project's own ``RFPDupeFilter`` subclass drops are counted in the
``end`` line, never recorded, never held open: no ``unfinished`` record, in the report,
``audit summary`` or across a ``JOBDIR`` pause."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted
from scrapy import Request, signals
from scrapy.dupefilters import RFPDupeFilter
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

from scrapy_rep.crawl.auditing import ledger_of
from tests.support.audittrail import lines, paused_and_resumed, url_records
from tests.support.robotsite import (
    BASE_SETTINGS,
    ListSpider,
    Sites,
    crawl,
    links_page,
    redirect,
    robots,
)
from tests.support.tools import audit_tool


class OffsiteSpider(CrawlSpider):
    """A CrawlSpider that follows every link within ``allowed_domains`` (the local sites'
    host); what it downloaded in ``downloaded``."""

    name = "offsite"
    allowed_domains: ClassVar[list[str]] = ["127.0.0.1"]
    rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = list(urls)
        self.downloaded: list[str] = []

    def parse_start_url(self, response: Any) -> Any:
        return self.parse_page(response)

    def parse_page(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        return []


def offsite_site(offsite: int) -> Sites:
    """Origin ``a``: ``/p0`` links to ``/p1``, to ``/go`` (a redirect to the same server
    named ``localhost``: another host) and to ``offsite`` pages of other hosts."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    port = sites.bases["a"].rsplit(":", 1)[1]
    elsewhere = [f"http://elsewhere{n}.invalid/x" for n in range(offsite)]
    a.script("/p0", links_page("/p1", "/go", *elsewhere))
    a.script("/p1", links_page("/p1", *elsewhere[:3]))
    a.script("/go", redirect(f"http://localhost:{port}/p1"))
    return sites


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_offsite_links_and_an_offsite_redirect_leave_no_record(tmp_path: Path) -> None:
    """Scrapy's offsite filter drops 5 links to other hosts (8 times: /p1 links to 3 of
    them again) and the redirect of /go to ``localhost`` at ``request_scheduled``. They
    were ``unfinished`` records ("the crawl ended (finished) before its fate was known"),
    counted by the report ("9 requests (2 downloaded, 1 redirected, 6 unfinished)") and by
    ``audit summary`` as requested URLs. Now they are counted in the end line, and /go is
    ``redirected`` to the URL the filter dropped."""
    sites = offsite_site(5)
    trail, report = tmp_path / "trail.jsonl", tmp_path / "report.txt"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT_FILE": str(report)}
    try:
        crawler, spider = await crawl([sites.url("a", "/p0")], settings, OffsiteSpider)
    finally:
        await sites.close()
    port = sites.bases["a"].rsplit(":", 1)[1]
    fates = {r["url"]: (r["fate"], r.get("to")) for r in url_records(trail)}
    assert fates == {
        sites.url("a", "/p0"): ("fetched", None),
        sites.url("a", "/p1"): ("fetched", None),
        sites.url("a", "/go"): ("redirected", f"http://localhost:{port}/p1"),
    }
    assert sorted(spider.downloaded) == [sites.url("a", "/p0"), sites.url("a", "/p1")]
    # the filter ran once per request (its handler is run by the trail's, not twice)
    assert crawler.stats.get_value("offsite/filtered") == 9
    [end] = [line for line in lines(trail) if line["type"] == "end"]
    assert end["counts"]["offsite_dropped"] == 9
    assert end["counts"]["unfinished"] == 0
    text = report.read_text()
    assert "In short: 3 requests (2 downloaded, 1 redirected)\n" in text, text
    assert "unfinished" not in text and "invalid" not in text, text
    status, summary = audit_tool("summary", str(trail))
    assert status == 0
    assert "3 requested URL(s) (2 fetched, 1 redirected)" in summary, summary
    assert "unfinished" not in summary, summary
    status, verified = audit_tool("verify", str(trail))
    assert status == 0 and ": clean:" in verified, verified
    status, shown = audit_tool("show", str(trail), "http://elsewhere0.invalid/x")
    assert status == 1 and "(`offsite_dropped`), not recorded" in shown, shown


@pytest_twisted.ensureDeferred
async def test_offsite_links_hold_no_open_entry(tmp_path: Path) -> None:
    """300 offsite links: the trail's table of open records never holds one of them (it
    held every one until the close: +12 MB for 30,000), whichever of the two handlers of
    ``request_scheduled`` is connected first."""
    sites = offsite_site(300)
    widest = [0]

    def watch(crawler: Any) -> None:
        def scheduled(**_: Any) -> None:
            trail = ledger_of(crawler)
            widest[0] = max(widest[0], len(trail.open) if trail else 0)

        crawler.signals.connect(scheduled, signal=signals.request_scheduled, weak=False)

    settings = {"REP_AUDIT_FILE": str(tmp_path / "trail.jsonl")}
    try:
        crawler, _ = await crawl([sites.url("a", "/p0")], settings, OffsiteSpider, watch)
    finally:
        await sites.close()
    assert crawler.stats.get_value("offsite/filtered") == 304
    assert widest[0] <= 3  # /p0, /p1, /go at most
    trail = ledger_of(crawler)
    assert trail is not None and trail.open == {}
    assert not [r for r in url_records(tmp_path / "trail.jsonl") if r["fate"] == "unfinished"]


@pytest_twisted.ensureDeferred
async def test_offsite_links_paused_and_resumed_leave_no_record(tmp_path: Path) -> None:
    """A ``JOBDIR`` crawl paused while pages that link off site are queued, then resumed:
    the paused run kept the offsite requests' entries in ``JOBDIR`` and the resumed run
    wrote them ``unfinished``; now no run records one."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\n"))
    pages = [f"/p{n}" for n in range(1, 25)]
    a.script("/p0", links_page(*pages))
    for page in pages:
        away = [f"http://elsewhere-{page[1:]}-{n}.invalid/x" for n in range(5)]
        a.script(page, replace(links_page(*away), delay=0.1))
    trail = tmp_path / "trail.jsonl"
    settings = {
        **BASE_SETTINGS,
        "REP_AUDIT_FILE": str(trail),
        "JOBDIR": str(tmp_path / "job"),
        "CONCURRENT_REQUESTS": 2,
    }
    try:
        await paused_and_resumed(
            OffsiteSpider, settings, [sites.url("a", "/p0")], pause_after=6, wait=20
        )
    finally:
        await sites.close()
    records = url_records(trail)
    sent = Counter(r["url"] for r in records)  # /p0 twice: a start URL (dont_filter) resumed
    assert set(sent) == {sites.url("a", p) for p in ["/p0", *pages]}
    assert all(sent[sites.url("a", page)] == 1 for page in pages)
    assert {r["fate"] for r in records} == {"fetched"}
    ends = [line for line in lines(trail) if line["type"] == "end"]
    assert [end["reason"] for end in ends] == ["shutdown", "finished"]
    assert all(end["counts"]["unfinished"] == 0 for end in ends)
    assert sum(end["counts"].get("offsite_dropped", 0) for end in ends) >= 5 * len(pages)
    assert audit_tool("verify", str(trail))[0] == 0


class QueryBlindDupeFilter(RFPDupeFilter):
    """A project's dupefilter: Scrapy's, but a URL's query string does not make it new."""

    def request_seen(self, request: Request) -> bool:
        return super().request_seen(request.replace(url=request.url.partition("?")[0]))


class FollowingSpider(ListSpider):
    """Follows every link of every page (no ``allowed_domains``)."""

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse, errback=self.failed)


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_dupefilter_subclass_decides_what_is_a_duplicate(tmp_path: Path) -> None:
    """A ``RFPDupeFilter`` subclass whose ``request_seen`` ignores the query string: every
    duplicate it dropped was an ``unfinished`` record ("6 requests (2 downloaded, 4
    unfinished)" for 2 sent), the trail having looked the request's own fingerprint up
    in the filter's set. Now the filter's own answer (``request_dropped``) decides: 2
    records, and each duplicate counted once."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\n"))
    a.script("/p0", links_page("/p1?x=1", "/p1?x=2", "/p0?y=1", "/p1?x=3"))
    a.script("/p1?x=1", links_page("/p0?z=1", "/p1?x=9"))
    trail, report = tmp_path / "trail.jsonl", tmp_path / "report.txt"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_REPORT_FILE": str(report),
        "DUPEFILTER_CLASS": f"{__name__}.QueryBlindDupeFilter",
    }
    try:
        crawler, spider = await crawl([sites.url("a", "/p0")], settings, FollowingSpider)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == [sites.url("a", "/p0"), sites.url("a", "/p1?x=1")]
    fates = {r["url"]: r["fate"] for r in url_records(trail)}
    assert fates == {sites.url("a", "/p0"): "fetched", sites.url("a", "/p1?x=1"): "fetched"}
    assert crawler.stats.get_value("dupefilter/filtered") == 5
    [end] = [line for line in lines(trail) if line["type"] == "end"]
    assert end["counts"]["duplicates_dropped"] == 5
    assert crawler.stats.get_value("rep/audit/duplicates_dropped") == 5
    text = report.read_text()
    assert "In short: 2 requests (2 downloaded)\n" in text, text
    assert "unfinished" not in text, text
    assert audit_tool("verify", str(trail))[0] == 0
