"""The end-of-crawl report (REP_REPORT), fed with the signals a crawl sends."""

from __future__ import annotations

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from scrapy_rep.report import RepReport
from scrapy_rep.robotstxt import DISALLOW_ALL, parse_robotstxt

A = "http://a.example"


def make(**settings: object) -> RepReport:
    crawler = get_crawler(Spider, {"REP_REPORT": True, "USER_AGENT": "bot", **settings})
    return RepReport(crawler)


def test_off_by_default_and_silent() -> None:
    with pytest.raises(NotConfigured) as raised:
        RepReport(get_crawler(Spider))
    assert raised.value.args == ()  # Scrapy would log a message as a WARNING


def test_per_origin_and_per_url_lines() -> None:
    report = make()
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
