"""An authorized override of a host's robots.txt (``REP_OVERRIDES``; docs/settings.md) in
real crawls: every request it lets through is recorded in the audit trail as overridden,
with the reason, and it never lets an AI crawler's group through (reading the setting:
tests/settings/test_readers_overrides.py)."""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timedelta, timezone
from html import escape
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request

from rep_audit.verify import verify
from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS
from tests.support.audittrail import by_url
from tests.support.robotsite import ListSpider, Sites, crawl, robots
from tests.support.tools import audit_tool

PERMISSION = "written permission of the site owner, 2026-11-01"


@pytest_twisted.ensureDeferred
async def test_an_override_lets_a_disallowed_page_through_recorded_as_overridden(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sites = Sites()
    sites.add("a").script(
        "/robots.txt",
        robots("User-agent: *\nDisallow: /private\n\nUser-agent: gptbot\nDisallow: /\n"),
    )
    caplog.set_level(logging.INFO, logger="scrapy_rep")
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_OVERRIDES": [{"host": "127.0.0.1", "reason": PERMISSION, "expires": "2099-01-01"}],
    }
    try:
        crawler, spider = await crawl(
            [sites.url("a", "/private/1"), sites.url("a", "/private/2"), sites.url("a", "/x")],
            settings,
        )
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(
        sites.url("a", p) for p in ("/private/1", "/private/2", "/x")
    )
    assert crawler.stats.get_value("rep/requests/overridden") == 2
    said = [r.getMessage() for r in caplog.records if "REP_OVERRIDES" in r.getMessage()]
    assert len(said) == 1 and PERMISSION in said[0]  # once per host; each in the trail
    assert said[0].endswith(f"override in REP_OVERRIDES ({PERMISSION}, through 2099-01-01, UTC)")
    record = by_url(trail)[sites.url("a", "/private/1")]
    assert record["fate"] == "fetched"
    assert record["robots"]["overridden"] == f"{PERMISSION}, through 2099-01-01, UTC"
    assert record["robots"]["line"] == 2  # the line it overrode
    assert "overridden" not in by_url(trail)[sites.url("a", "/x")]["robots"]
    result = verify(trail)
    assert result.clean, [str(finding) for finding in result.findings]


@pytest_twisted.ensureDeferred
async def test_an_override_never_lets_an_ai_crawlers_group_through(tmp_path: Path) -> None:
    """The groups of REP_PURPOSE_AGENTS are a site's AI opt-outs, not the host's rules for
    this crawler: an override does not cover them (the reading that loses no "no")."""
    sites = Sites()
    sites.add("a").script(
        "/robots.txt",
        robots("User-agent: *\nDisallow: /private\n\nUser-agent: gptbot\nDisallow: /\n"),
    )
    settings = {
        "REP_PURPOSE": "ai-train",
        "REP_PURPOSE_AGENTS": ["GPTBot"],
        "REP_OVERRIDES": [{"host": "127.0.0.1", "reason": PERMISSION, "expires": "2099-01-01"}],
    }
    try:
        _, spider = await crawl([sites.url("a", "/private/1")], settings)
    finally:
        await sites.close()
    assert spider.downloaded == []
    assert "for GPTBot" in spider.dropped[sites.url("a", "/private/1")]


@pytest_twisted.ensureDeferred
async def test_a_page_an_override_let_past_robots_txt_then_refused_for_a_purpose_names_it(
    tmp_path: Path,
) -> None:
    """The override went past robots.txt's Disallow, then the site's AI-usage opt-out
    refused the request: its record names the override (the trail shows every request
    the override covered), and the trail verifies."""
    sites = Sites()
    sites.add("a").script(
        "/robots.txt", robots("User-agent: *\nDisallow: /private\nContent-Usage: train-ai=n\n")
    )
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_PURPOSE": "ai-train",
        "REP_AUDIT_FILE": str(trail),
        "REP_OVERRIDES": [{"host": "127.0.0.1", "reason": PERMISSION, "expires": "2099-01-01"}],
    }
    try:
        _, spider = await crawl([sites.url("a", "/private/1")], settings)
    finally:
        await sites.close()
    assert spider.downloaded == []
    record = by_url(trail)[sites.url("a", "/private/1")]
    assert (record["fate"], record["refused_by"]) == ("refused", "purpose")
    assert record["robots"]["overridden"] == f"{PERMISSION}, through 2099-01-01, UTC"
    result = verify(trail)
    assert result.clean, [str(finding) for finding in result.findings]


class ExpiringSpider(ListSpider):
    """Requests its first URL; on its page (one item kept), moves the robots.txt
    middleware's clock past ``ends`` (the override's expiry: no test waits for a real
    clock) and requests the others."""

    ends = 0.0

    async def start(self) -> Any:
        yield Request(self.urls[0], callback=self.expire, errback=self.failed)

    def expire(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        OWNERS[self.crawler]._clock = lambda: self.ends + 1  # type: ignore[attr-defined]
        yield {"url": response.url}
        for url in self.urls[1:]:
            yield Request(url, callback=self.parse, errback=self.failed)


async def crawl_past_an_override(sites: Sites, trail: Path) -> tuple[Any, Any, list[str], str]:
    """/private/1 under an override of 127.0.0.1 that expires (in the zone +14:00) before
    /private/2 and /private/3 are sent: the crawler, the spider, the URLs, and the
    override as the records describe it."""
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    ends = datetime.fromtimestamp(int(time.time()) + 86400, timezone(timedelta(hours=14)))
    ExpiringSpider.ends = ends.timestamp()
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_OVERRIDES": [{"host": "127.0.0.1", "reason": PERMISSION, "expires": str(ends)}],
    }
    urls = [sites.url("a", f"/private/{n}") for n in (1, 2, 3)]
    try:
        crawler, spider = await crawl(urls, settings, ExpiringSpider)
    finally:
        await sites.close()
    return crawler, spider, urls, f"{PERMISSION}, until {ends.isoformat()}"  # +14:00


@pytest_twisted.ensureDeferred
async def test_an_override_that_expires_mid_crawl_stops_applying_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The expiry is checked per request, not only at start: the requests sent after it
    are refused by robots.txt (said once at INFO; each record names the override, and
    the trail says which requests it covered), and the record keeps the expiry's date,
    time and zone as given."""
    caplog.set_level(logging.INFO, logger="scrapy_rep")
    trail = tmp_path / "trail.jsonl"
    crawler, spider, urls, described = await crawl_past_an_override(Sites(), trail)
    assert spider.downloaded == [urls[0]]
    assert sorted(spider.dropped) == urls[1:]
    assert crawler.stats.get_value("rep/requests/overridden") == 1
    assert crawler.stats.get_value("rep/requests/override_expired") == 2
    said = [r.getMessage() for r in caplog.records if "has expired" in r.getMessage()]
    assert len(said) == 1 and PERMISSION in said[0]
    records = by_url(trail)
    assert records[urls[0]]["robots"]["overridden"] == described
    for url in urls[1:]:
        assert records[url]["fate"] == "refused"
        assert records[url]["robots"]["override_expired"] == described
        assert f"has expired (authorized {described.rpartition(', ')[2]})" in records[url]["why"]
    result = verify(trail)
    assert result.clean, [str(finding) for finding in result.findings]


@pytest_twisted.ensureDeferred
async def test_the_readers_name_the_override_with_its_reason_and_expiry(tmp_path: Path) -> None:
    """summary, show, the HTML report and export each name the override of a page it let
    through (never "allowed by a robots.txt rule"), and summary and show the one that had
    expired for a page refused after it."""
    trail = tmp_path / "trail.jsonl"
    _, _, urls, described = await crawl_past_an_override(Sites(), trail)
    status, summary = audit_tool("summary", str(trail))
    assert status == 0, summary
    assert f"overridden by REP_OVERRIDES: {described}" in summary
    assert f"refused by robots.txt (override expired: {described})" in summary
    assert "allowed by a robots.txt rule" not in summary
    status, shown = audit_tool("show", str(trail), urls[0])
    assert f"robots.txt disallows it; overridden by REP_OVERRIDES: {described}" in shown
    status, shown = audit_tool("show", str(trail), urls[1])
    assert f"its override in REP_OVERRIDES had expired: {described}" in shown
    page = tmp_path / "report.html"
    status, _ = audit_tool("report", str(trail), "--html", str(page))
    assert escape(f"overridden by REP_OVERRIDES: {described}") in page.read_text()
    exported, markdown = tmp_path / "export.jsonl", tmp_path / "export.md"
    status, _ = audit_tool("export", str(trail), "--out", str(exported), "--summary", str(markdown))
    assert status == 0
    assets = [json.loads(line) for line in exported.read_text().splitlines()[1:]]
    assert [(a["url"], a["overridden"]) for a in assets] == [(urls[0], described)]
    assert f"1 page(s) by {described}" in markdown.read_text()
    assert audit_tool("verify", str(trail), "--export", str(exported))[0] == 0
