"""Requests Scrapy drops before they are ever sent, in real crawls with the audit trail
(docs/audit-trail.md, "What a record is"): a duplicate that a project's own
``RFPDupeFilter`` subclass drops is counted in the ``end`` line, never recorded, never
held open: no ``unfinished`` record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request
from scrapy.dupefilters import RFPDupeFilter

from tests.support.audittrail import lines, url_records
from tests.support.robotsite import (
    HTML,
    ListSpider,
    Reply,
    Sites,
    crawl,
    robots,
)
from tests.support.tools import audit_tool


def links(*hrefs: str, delay: float = 0.0) -> Reply:
    """An HTML page that links to each of ``hrefs``."""
    anchors = "".join(f'<a href="{href}">{href}</a>' for href in hrefs)
    return Reply(200, f"<html><body>{anchors}</body></html>".encode(), HTML, delay=delay)


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
    a.script("/p0", links("/p1?x=1", "/p1?x=2", "/p0?y=1", "/p1?x=3"))
    a.script("/p1?x=1", links("/p0?z=1", "/p1?x=9"))
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
