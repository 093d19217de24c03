"""An authorized override of a host's robots.txt (``REP_OVERRIDES``; docs/settings.md) in
real crawls: every request it lets through is recorded in the audit trail as overridden,
with the reason, and it never lets an AI crawler's group through (reading the setting:
tests/settings/test_readers_overrides.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import pytest_twisted

from scrapy_rep.audit.verify import verify
from tests.support.audittrail import by_url
from tests.support.robotsite import Sites, crawl, robots

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
    record = by_url(trail)[sites.url("a", "/private/1")]
    assert record["fate"] == "fetched"
    assert record["robots"]["overridden"] == f"{PERMISSION} (until 2099-01-01)"
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
