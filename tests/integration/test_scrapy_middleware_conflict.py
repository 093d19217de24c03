"""Set up by hand with Scrapy's robots.txt middleware still on (SPEC §5;
docs/decisions.md, 'Scrapy's robots.txt middleware left on is switched off').

Without the add-on, a project that lists scrapy_rep's middleware and forgets to set
Scrapy's to ``None`` ran both: each robots.txt fetched twice, Scrapy's middleware refusing
requests with its own reading, and no warning. Ours switches Scrapy's off at the start
and says so in one WARNING.
"""

from __future__ import annotations

import logging

import pytest
import pytest_twisted

from tests.support.robotsite import Sites, crawl, robots


@pytest_twisted.ensureDeferred
async def test_scrapys_middleware_left_on_is_switched_off_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    settings = {
        "ADDONS": {},
        "ROBOTSTXT_OBEY": True,
        "DOWNLOADER_MIDDLEWARES": {"scrapy_rep.RobotsTxtMiddleware": 100},
    }
    urls = [sites.url("a", "/page"), sites.url("a", "/private")]
    caplog.set_level(logging.WARNING)
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    assert spider.downloaded == [sites.url("a", "/page")]
    assert spider.dropped == {
        sites.url("a", "/private"): f"Forbidden by {sites.url('a', '/robots.txt')} "
        "(line 2: Disallow: /private)"  # our wording: ours decided
    }
    assert sites.requested("a").count("/robots.txt") == 1
    warnings = [
        r.getMessage() for r in caplog.records if "Scrapy's own robots.txt" in r.getMessage()
    ]
    assert len(warnings) == 1 and "switched off" in warnings[0]
    assert crawler.stats.get_value("rep/scrapy_middleware_switched_off") == 1


@pytest_twisted.ensureDeferred
async def test_with_the_add_on_there_is_nothing_to_switch_off(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    caplog.set_level(logging.WARNING)
    try:
        crawler, _ = await crawl([sites.url("a", "/page")])
    finally:
        await sites.close()
    assert not [r for r in caplog.records if "Scrapy's own robots.txt" in r.getMessage()]
    assert crawler.stats.get_value("rep/scrapy_middleware_switched_off") is None


def parser_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "ROBOTSTXT_PARSER" in r.getMessage()]


@pytest_twisted.ensureDeferred
async def test_a_projects_own_robotstxt_parser_is_ignored_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Under the add-on, a project's ``ROBOTSTXT_PARSER`` is not the parser that reads
    robots.txt: ours does (its wording in the refusal), and a WARNING at start says so
    (docs/switching.md)."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    urls = [sites.url("a", "/page"), sites.url("a", "/private")]
    caplog.set_level(logging.WARNING)
    try:
        _, spider = await crawl(urls, {"ROBOTSTXT_PARSER": "scrapy.robotstxt.PythonRobotParser"})
    finally:
        await sites.close()
    assert spider.downloaded == [sites.url("a", "/page")]
    assert "(line 2: Disallow: /private)" in spider.dropped[sites.url("a", "/private")]
    assert parser_warnings(caplog) == [
        "scrapy_rep: ROBOTSTXT_PARSER = 'scrapy.robotstxt.PythonRobotParser' is ignored: "
        "scrapy_rep reads robots.txt with its own parser (REP_PROFILE chooses how it reads). "
        "Without the add-on, Scrapy's middleware uses your parser; see Switching from "
        "ROBOTSTXT_OBEY in the docs."
    ]


@pytest_twisted.ensureDeferred
async def test_no_warning_for_scrapy_reps_own_parser_or_robots_txt_not_obeyed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    caplog.set_level(logging.WARNING)
    try:
        await crawl([sites.url("a", "/page")], {"ROBOTSTXT_PARSER": "scrapy_rep.RobotParser"})
        await crawl(
            [sites.url("a", "/page")],
            {"ROBOTSTXT_PARSER": "scrapy.robotstxt.PythonRobotParser", "ROBOTSTXT_OBEY": False,
             "REP_PURPOSE": "ai-train"},
        )  # fmt: skip
    finally:
        await sites.close()
    assert parser_warnings(caplog) == []
