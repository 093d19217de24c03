"""The end-of-crawl report (REP_REPORT), fed with the signals a crawl sends."""

from __future__ import annotations

import pytest
import pytest_twisted
from scrapy import Request, Spider
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl.report import RepReport
from scrapy_rep.robotstxt import DISALLOW_ALL, parse_robotstxt

A = "http://a.example"


def make(**settings: object) -> RepReport:
    crawler = get_crawler(Spider, {"REP_REPORT": True, "USER_AGENT": "bot", **settings})
    return RepReport(crawler)


def test_a_request_dropped_at_close_is_counted(capsys: pytest.CaptureFixture[str]) -> None:
    """A request dropped while the spider closes (held when CLOSESPIDER_PAGECOUNT stops
    the crawl) is counted: the report said "nothing happened"."""
    report = make()
    report._refused(
        Request(f"{A}/held"), "spider_closed", "Not downloaded: the spider closed", None
    )
    report._closed()
    assert capsys.readouterr().err.rstrip().endswith("In short: 1 dropped")


def test_the_report_is_printed_when_the_engine_stops() -> None:
    from scrapy import signals

    crawler = get_crawler(Spider, {"REP_REPORT": True})
    report = RepReport(crawler)
    crawler.signals.send_catch_log(signals.spider_closed, spider=None, reason="finished")
    assert report.text == ""  # not yet: Scrapy's stats and "Spider closed" come first
    crawler.signals.send_catch_log(signals.engine_stopped)
    assert report.text.startswith("scrapy_rep report")


def test_off_by_default_and_silent() -> None:
    with pytest.raises(NotConfigured) as raised:
        RepReport(get_crawler(Spider))
    assert raised.value.args == ()  # Scrapy would log a message as a WARNING


def test_per_origin_and_per_url_lines() -> None:
    report = make(ROBOTSTXT_OBEY=True, REP_OBEY_CRAWL_DELAY=True)
    rules = parse_robotstxt(f"User-agent: *\nCrawl-delay: 2\nSitemap: {A}/map.xml\n")
    report._fetched(origin=A, rules=DISALLOW_ALL, outcome="503: down", sitemaps=())
    report._fetched(origin=A, rules=rules, outcome="200 (40 bytes)", sitemaps=rules.sitemaps)
    page = Request(f"{A}/page")
    report._held(page, origin=A)
    report._released(page, origin=A, failures=1)
    response = HtmlResponse(f"{A}/page", body=b"<html></html>", request=page)
    report._response(response, page)
    report._item_refused(response, reason="noindex")
    report._refused(Request(f"{A}/x"), "forbidden", "Forbidden by line 2", None)
    text = report.render()
    assert f"  {A}\n    robots.txt: 503: down -> 200 (40 bytes)\n" in text
    assert "1 request(s) waited for it, 1 held while unreachable, crawl-delay 2 s" in text
    assert f"    sitemap: {A}/map.xml" in text
    assert (
        f"  {A}/page\n    held while robots.txt was unreachable (1x), released; "
        "downloaded (200); item dropped (noindex)\n"
    ) in text
    assert f"  {A}/x\n    Forbidden by line 2\n" in text
    assert text.endswith("In short: 1 downloaded but item dropped, 1 forbidden by robots.txt\n")


def test_a_url_downloaded_again_is_counted_not_listed_twice() -> None:
    """A start URL (``dont_filter``) that a page links back to is downloaded twice."""
    report = make()
    home = Request(f"{A}/")
    response = HtmlResponse(f"{A}/", body=b"<html></html>", request=home)
    for _ in range(2):
        report._response(response, home)
        report._item(response)
    again = Request(f"{A}/again")
    for _ in range(4):
        report._response(HtmlResponse(again.url, body=b"", request=again), again)
    text = report.render()
    assert f"  {A}/\n    downloaded twice (200); 2 items kept\n" in text
    assert f"  {A}/again\n    downloaded 4 times (200)\n" in text
    assert text.endswith("In short: 2 downloaded\n")


def test_bounded_outcomes_and_urls() -> None:
    report = make(REP_REPORT_MAX_URLS=2)
    for number in range(10):
        report._fetched(origin=A, rules=DISALLOW_ALL, outcome=f"try {number}", sitemaps=())
    for number in range(5):
        report._refused(Request(f"{A}/{number}"), "forbidden", "Forbidden", None)
    text = report.render()
    assert "robots.txt: try 0 -> try 1 -> (5 more) -> try 7 -> try 8 -> try 9" in text
    assert "… and 3 more (REP_REPORT_MAX_URLS)" in text


def test_a_report_file_that_fails_at_the_end_is_printed_instead(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    report = make(REP_REPORT_FILE="/dev/full")
    report._closed()
    assert "scrapy_rep report" in capsys.readouterr().err  # not lost
    [error] = [r for r in caplog.records if r.levelname == "ERROR"]
    assert "REP_REPORT_FILE /dev/full cannot be written" in error.getMessage()


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"REP_OBEY_CRAWL_DELAY": True}, "crawl-delay 2 s"),
        ({"REP_OBEY_CRAWL_DELAY": True, "REP_CRAWL_DELAY_MAX": 1},
         "crawl-delay 2 s read, applied as 1 s (REP_CRAWL_DELAY_MAX)"),
        ({"REP_OBEY_CRAWL_DELAY": False},
         "crawl-delay 2 s read, not obeyed (REP_OBEY_CRAWL_DELAY is False)"),
        ({"REP_PROFILE": "legacy"}, "crawl-delay 2 s"),  # obeyed in every profile
        ({"REP_PROFILE": "google"}, "crawl-delay 2 s"),
        ({"ROBOTSTXT_OBEY": False, "REP_PURPOSE": "ai-train", "REP_OBEY_CRAWL_DELAY": True},
         "crawl-delay 2 s read, not obeyed (ROBOTSTXT_OBEY is False)"),
    ],
)  # fmt: skip
def test_the_report_says_what_is_done_with_a_crawl_delay(
    settings: dict[str, object], said: str
) -> None:
    """It said "crawl-delay 2 s" in the google profile, where it is not obeyed."""
    report = make(**{"ROBOTSTXT_OBEY": True, **settings})
    rules = parse_robotstxt("User-agent: *\nCrawl-delay: 2\n")
    report._fetched(origin=A, rules=rules, outcome="200 (30 bytes)", sitemaps=())
    lines = [line.strip() for line in report.render().splitlines() if "crawl-delay" in line]
    assert lines == [said]


@pytest_twisted.ensureDeferred
async def test_a_real_crawl_reports_the_crawl_delay_it_did_not_apply() -> None:
    from robotsite import Sites, crawl, robots

    from scrapy_rep import RobotsTxtMiddleware

    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nCrawl-delay: 2\n"))
    settings = {"REP_REPORT": True, "REP_PROFILE": "google", "REP_OBEY_CRAWL_DELAY": False}
    urls = [sites.url("a", "/1"), sites.url("a", "/2")]
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == urls
    [extension] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    assert "crawl-delay 2 s read, not obeyed (REP_OBEY_CRAWL_DELAY is False)" in extension.text
    [middleware] = [
        m
        for m in crawler.engine.downloader.middleware.middlewares
        if isinstance(m, RobotsTxtMiddleware)
    ]  # and indeed no download slot got a crawl-delay floor
    assert middleware.slots.floors == {}
