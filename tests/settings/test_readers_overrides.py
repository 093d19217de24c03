"""An authorized override of a host's robots.txt (``REP_OVERRIDES``, as Nutch's robots.txt
allow-list; docs/settings.md): hosts, who authorized it and until when; every request it
lets through is recorded in the audit trail as overridden, with the reason; an expired
entry refuses the crawl at start."""

from __future__ import annotations

import logging
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy.utils.test import get_crawler

from scrapy_rep import RepSettingError
from scrapy_rep.audit.rederive import Rederiver, RunContext
from scrapy_rep.audit.verify import verify
from scrapy_rep.crawl.startup import validate
from scrapy_rep.settings import RepConfig
from scrapy_rep.settings.readers import read_overrides
from tests.support.audittrail import by_url
from tests.support.robotsite import Sites, crawl, robots

TODAY = date(2026, 11, 24)
PERMISSION = "written permission of the site owner, 2026-11-01"


def entry(**changes: Any) -> dict[str, Any]:
    return {"host": "Example.COM", "reason": PERMISSION, "expires": "2027-06-30", **changes}


def read(value: Any) -> Any:
    return read_overrides({"REP_OVERRIDES": value}, "REP_OVERRIDES", (), today=TODAY)


def test_an_override_is_read_with_its_host_as_an_origin_holds_it() -> None:
    assert read([entry()]) == (("example.com", PERMISSION, "2027-06-30"),)
    assert read('[{"host": "b.example", "reason": "ok by mail", "expires": "2027-01-01"}]') == (
        ("b.example", "ok by mail", "2027-01-01"),
    )
    assert read([entry(host="exämple.com")])[0][0] == "xn--exmple-cua.com"


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ([entry(expires="2026-11-23")], "the override of example.com expired on 2026-11-23"),
        ([entry(reason=" ")], "needs a 'reason'"),
        ([entry(expires="next year")], "needs 'expires' as a date (YYYY-MM-DD)"),
        ([entry(host="https://example.com")], "'host' must be a host name"),
        ([{"host": "example.com"}], "needs exactly 'host', 'reason' and 'expires'"),
        ("{not json", "expected a list of"),
        (42, "expected a list of"),
    ],
    ids=["expired", "no-reason", "bad-date", "scheme", "missing-keys", "bad-json", "not-a-list"],
)
def test_a_wrong_or_expired_override_stops_the_crawl_naming_it(value: Any, says: str) -> None:
    with pytest.raises(RepSettingError, match="REP_OVERRIDES") as raised:
        read(value)
    assert says in str(raised.value)


def test_an_expired_override_refuses_the_crawl_at_start() -> None:
    expired = [entry(expires="2020-01-01")]
    crawler = get_crawler(settings_dict={"REP_OVERRIDES": expired})
    with pytest.raises(RepSettingError, match="expired on 2020-01-01"):
        validate(crawler.settings)
    assert RepConfig.from_settings({"REP_OVERRIDES": [entry()]}).overrides


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


def test_verify_reports_an_override_the_run_does_not_cover_and_one_left_unsaid() -> None:
    """A record that claims an override its run's REP_OVERRIDES lacks is a forgery; a
    request the run's override let through must say so."""
    from scrapy_rep.audit.read import SnapshotStore

    rederiver = Rederiver(SnapshotStore(Path("/nonexistent")))
    disallowing = ("https://e.com/private", "User-agent: *\nDisallow: /private\n")
    differences = rederiver._rederived(  # the record's robots part, as the writer puts it
        {"url": disallowing[0], "fate": "fetched"},
        {"agent": "testbot", "line": 2, "overridden": "a forged reason (until 2099-01-01)"},
        _parsed(disallowing[1]),
        _parse_effect(),
        disallowing[0],
        "testbot",
        "https://e.com",
        RunContext(agents=("testbot",)),
        True,
    )
    assert any("no override of the run's REP_OVERRIDES covers it" in d for d in differences)
    covered = RunContext(
        agents=("testbot",),
        overrides=_overrides([["e.com", PERMISSION, "2099-01-01"]]),
    )
    unsaid = rederiver._rederived(
        {"url": disallowing[0], "fate": "fetched"},
        {"agent": "testbot", "line": 2},
        _parsed(disallowing[1]),
        _parse_effect(),
        disallowing[0],
        "testbot",
        "https://e.com",
        covered,
        True,
    )
    assert any("does not say it was overridden" in d for d in unsaid)


def _parsed(text: str) -> Any:
    from scrapy_rep.robotstxt import parse_robotstxt

    return parse_robotstxt(text.encode())


def _parse_effect() -> Any:
    from scrapy_rep.fetch.rules import Effect

    return Effect.PARSE


def _overrides(value: Any) -> Any:
    from scrapy_rep.audit.rederive import _overrides as read_them

    return read_them(value)
