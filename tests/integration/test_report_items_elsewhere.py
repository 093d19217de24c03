"""Items a spider yields from elsewhere than a page's callback: from ``start()`` (no page)
and from an errback (a page refused by HttpErrorMiddleware, a 404, whose errback has the
response): the trail's and the report's items kept and not kept say the same."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
import scrapy
from scrapy import Request

from tests.support.audittrail import by_url
from tests.support.robotsite import ItemSpider, Reply, Sites, crawl, html_page, robots
from tests.support.tools import audit_tool


class ElsewhereSpider(ItemSpider):
    async def start(self) -> Any:
        yield {"url": "from start()"}
        for url in self.urls:
            yield Request(url, callback=self.parse, errback=self.errback_item)

    def errback_item(self, failure: Any) -> Any:
        yield {"url": failure.request.url, "from": "errback"}


@pytest_twisted.ensureDeferred
async def test_items_of_start_and_of_an_errback(tmp_path: Path) -> None:
    from rep_audit.cli import main
    from tests.support.audittrail import written_lines

    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    site.script("/ok", html_page(""))
    site.script("/missing", Reply(404, b"<html>gone</html>", {"Content-Type": "text/html"}))
    trail, report = tmp_path / "trail.jsonl", tmp_path / "report.txt"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT_FILE": str(report)}
    base = sites.bases["a"]
    try:
        await crawl([base + "/ok", base + "/missing"], settings, ElsewhereSpider)
    finally:
        await sites.close()
    records = by_url(trail)
    for path in ("/ok", "/missing"):  # the errback's item is its 404 page's
        record = records[base + path]
        assert (record["fate"], record["items_kept"], record.get("items_not_kept")) == (
            "fetched", 1, None
        ), record  # fmt: skip
    assert written_lines(trail)[-1]["type"] == "end"
    out = io.StringIO()
    assert main(["verify", str(trail)], out) == 0, out.getvalue()
    text = report.read_text()
    assert "downloaded (404); 1 item kept" in text, text
    assert text.rstrip().endswith("In short: 2 requests (2 downloaded); 2 items kept"), text
    summary = io.StringIO()
    assert main(["summary", str(trail)], summary) == 0
    assert "2 item(s) kept, 0 dropped" in summary.getvalue(), summary.getvalue()
    assert "not kept" not in summary.getvalue()


#: Items an errback yields for a failed or refused download, as Scrapy scrapes them: one,
#: except in Scrapy 2.13.0 and 2.13.1, which drop that output (their ``Scraper._scrape``,
#: fixed in 2.13.2); the trail, the report and the tools count what Scrapy scraped.
ERRBACK_ITEMS = 0 if scrapy.__version__ in ("2.13.0", "2.13.1") else 1


def items_kept_said(count: int) -> str:
    return f"{count} item{'s' * (count != 1)} kept"


class FailedErrbackSpider(ItemSpider):
    """Each URL with an errback that yields one item for its failed download."""

    async def start(self) -> Any:
        for url in self.urls:
            yield Request(url, callback=self.parse, errback=self.errback_item)

    def errback_item(self, failure: Any) -> Any:
        yield {"url": failure.request.url, "from": "errback"}


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_the_items_an_errback_yields_for_a_failed_download_are_on_its_record(
    tmp_path: Path,
) -> None:
    """Two downloads fail (the connection reset, every attempt) and their errback yields
    an item each, beside the page's: Scrapy counted 3 items scraped, the report, the
    trail's ``items_kept`` and ``audit summary`` 1 (the errbacks' on no record). Each is
    on its failed request's record (``items_kept``), counted alike everywhere; ``audit
    verify`` is clean."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    site.script("/ok", html_page(""))
    site.script("/reset", Reply(reset=True))
    site.script("/reset-too", Reply(reset=True))
    trail, report = tmp_path / "trail.jsonl", tmp_path / "report.txt"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT_FILE": str(report)}
    urls = [sites.url("a", path) for path in ("/ok", "/reset", "/reset-too")]
    try:
        crawler, _ = await crawl(urls, settings, FailedErrbackSpider)
    finally:
        await sites.close()
    items = 1 + 2 * ERRBACK_ITEMS
    assert crawler.stats.get_value("item_scraped_count") == items
    records = by_url(trail)
    for url in urls[1:]:
        record = records[url]
        assert (record["fate"], record.get("items_kept", 0)) == ("failed", ERRBACK_ITEMS), record
    assert records[urls[0]]["items_kept"] == 1
    text = report.read_text()
    assert (
        f"In short: 3 requests (1 downloaded, 2 no response); {items_kept_said(items)}" in text
    ), text
    assert f"{urls[1]}\n    not downloaded: " in text, text
    assert ("every attempt; 1 item kept" in text) == bool(ERRBACK_ITEMS), text
    status, out = audit_tool("summary", str(trail))
    assert status == 0 and f"{items} item(s) kept, 0 dropped" in out, out
    status, out = audit_tool("verify", str(trail))
    assert status == 0 and ": clean" in out, out


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_the_items_an_errback_yields_for_a_refused_request_are_on_its_record(
    tmp_path: Path,
) -> None:
    """robots.txt refuses a request whose errback yields an item (a spider that notes what
    it could not fetch): Scrapy counted 2 items scraped, the trail, the report and ``audit
    summary`` 1. The errback's item is on the refused request's record (``items_kept``,
    its run's end line counting it in ``errback_items``), counted alike everywhere; no page
    was fetched for it, and ``audit verify`` is clean."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    site.script("/ok", html_page(""))
    trail, report = tmp_path / "trail.jsonl", tmp_path / "report.txt"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT_FILE": str(report)}
    ok, private = sites.url("a", "/ok"), sites.url("a", "/private/1")
    try:
        crawler, _ = await crawl([ok, private], settings, FailedErrbackSpider)
    finally:
        await sites.close()
    assert "/private/1" not in sites.requested("a")
    items = 1 + ERRBACK_ITEMS
    assert crawler.stats.get_value("item_scraped_count") == items
    record = by_url(trail)[private]
    assert (record["fate"], record["refused_by"], record.get("items_kept", 0)) == (
        "refused", "robots.txt", ERRBACK_ITEMS
    )  # fmt: skip
    text = report.read_text()
    assert f"(1 downloaded, 1 forbidden by robots.txt); {items_kept_said(items)}" in text, text
    status, out = audit_tool("summary", str(trail))
    assert status == 0 and f"{items} item(s) kept, 0 dropped" in out, out
    status, out = audit_tool("verify", str(trail))
    assert status == 0 and ": clean" in out, out
