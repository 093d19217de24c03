"""The end-of-crawl report (REP_REPORT), fed with what a crawl tells it: the URL ledger's
settled entries, each page's ledger, its origins' documents (the report of real crawls:
tests/integration/test_report.py)."""

from __future__ import annotations

from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from rep_engine.records import REFUSED_BY_WORD, Fate, PageOutput, Reason, UrlEntry
from rep_engine.robotstxt import DISALLOW_ALL, parse_robotstxt
from scrapy_rep.crawl.audit.audit import url_ledger
from scrapy_rep.crawl.auditing import Waits
from scrapy_rep.crawl.report import RepReport
from tests.support.documents import CLOUDFLARE_USE_REFERENCE
from tests.support.fakes import settled_by_the_ledger

A = "http://a.example"


def report_of(**settings: object) -> RepReport:
    crawler = get_crawler(Spider, {"REP_REPORT": True, "USER_AGENT": "bot", **settings})
    return RepReport(crawler)


def settle(
    report: RepReport,
    url: str,
    fate: Fate,
    reason: str = "",
    status: int | None = None,
    unscheduled: bool = False,
    output: PageOutput | None = None,
    **fields: Any,
) -> None:
    """The URL ledger settles the request of ``url`` with ``fate`` (``reason``: a refusal's,
    written as the trail's ``refused_by``; ``fields``: what else its record says)."""
    by = REFUSED_BY_WORD.get(reason, reason)
    entry = UrlEntry(url, attempts=1, status=status, unscheduled=unscheduled, fate=fate,
                     reason=reason, refused_by=by, output=output, **fields)  # fmt: skip
    settled_by_the_ledger(report, entry)


def page_output(
    report: RepReport,
    response: HtmlResponse,
    kept: int = 0,
    dropped: tuple[tuple[Reason, str], ...] = (),
    links: tuple[tuple[str, Reason, str], ...] = (),
    status: int = 200,
    not_kept: int = 0,
) -> None:
    """A page's output through the page pass, its request settled ``fetched`` by the URL
    ledger with it: ``kept`` items (they reached the end of the crawl), one item refused
    per ``dropped`` (reason, message), ``not_kept`` items passed on that a later component
    dropped, the ``links`` not followed."""
    output = PageOutput(kept + not_kept, kept, True)
    for reason, message in dropped:
        output.item_refused(reason, message)
    for url, reason, message in links:
        output.link_refused(url, reason, message)
    settle(report, response.url, Fate.FETCHED, status=status, output=output)


def test_a_request_dropped_at_close_is_counted(capsys: pytest.CaptureFixture[str]) -> None:
    """A request dropped while the spider closes (held when CLOSESPIDER_PAGECOUNT stops
    the crawl) is counted: the report said "nothing happened"."""
    report = report_of()
    settle(
        report, f"{A}/held", Fate.REFUSED, Reason.SPIDER_CLOSED,
        why="Not downloaded: the spider closed",
    )  # fmt: skip
    report._closed()
    assert (
        capsys.readouterr()
        .err.rstrip()
        .endswith("In short: 1 request (1 dropped: the spider closed)")
    )


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


@pytest.mark.trail_not_verified  # its ledger settles entries outside a run: no header
def test_the_headings_name_the_audit_trail_only_when_the_crawl_writes_one(
    tmp_path: object,
) -> None:
    """A crawl without ``REP_AUDIT_FILE`` has no trail: its report's lists do not send
    the reader to one."""
    said = {}
    for audit in ("", f"{tmp_path}/trail.jsonl"):
        crawler = get_crawler(Spider, {"REP_REPORT": True, "REP_AUDIT_FILE": audit})
        report = RepReport(crawler)
        page = HtmlResponse(f"{A}/", body=b"", request=Request(f"{A}/"))
        page_output(report, page, links=((f"{A}/x", Reason.NOFOLLOW, "Not followed: x"),))
        settle(report, f"{A}/y", Fate.REFUSED, Reason.FORBIDDEN, why="Forbidden")
        said[bool(audit)] = [line for line in report.render().splitlines() if line.endswith(":")]
        url_ledger(crawler).writer.close()  # the trail its ledger opened

    assert said[False][1:3] == ["URLs requested:", "Links not followed (never requested):"]
    assert said[True][1:3] == [
        "URLs requested (the audit trail has a record of each request):",
        "Links not followed (never requested, so no record of their own: the audit trail "
        "counts them on the page that held them):",
    ]


def test_per_origin_and_per_url_lines() -> None:
    report = report_of(ROBOTSTXT_OBEY=True, REP_OBEY_CRAWL_DELAY=True)
    rules = parse_robotstxt(f"User-agent: *\nCrawl-delay: 2\nSitemap: {A}/map.xml\n")
    report._fetched(origin=A, rules=DISALLOW_ALL, outcome="503: down", sitemaps=())
    report._fetched(origin=A, rules=rules, outcome="200 (40 bytes)", sitemaps=rules.sitemaps)
    html_page = Request(f"{A}/page")
    waits = Waits()  # as the URL ledger keeps them
    waits.held(html_page, origin=A)
    waits.released(html_page, origin=A, failures=1)
    report.read_waits(waits)
    response = HtmlResponse(f"{A}/page", body=b"<html></html>", request=html_page)
    said = "noindex by header X-Robots-Tag: none"
    page_output(report, response, dropped=((Reason.NOINDEX, said),), status=200)
    settle(report, f"{A}/x", Fate.REFUSED, Reason.FORBIDDEN, why="Forbidden by line 2")
    text = report.render()
    assert f"  {A}\n    robots.txt: 503: down -> 200 (40 bytes)\n" in text
    assert "1 request(s) waited for it, 1 held while unreachable, crawl-delay 2 s" in text
    assert f"    sitemap: {A}/map.xml" in text
    assert (
        f"  {A}/page\n    held while robots.txt was unreachable (1 failed download), then "
        "released; downloaded (200); 1 item dropped (noindex by header X-Robots-Tag: none)\n"
    ) in text
    assert f"  {A}/x\n    Forbidden by line 2\n" in text
    assert text.endswith(
        "In short: 2 requests (1 downloaded, 1 forbidden by robots.txt); "
        "0 items kept, 1 dropped (noindex)\n"
    )


def test_a_request_held_twice_is_one_request_that_waited_twice() -> None:
    """8 requests each held twice (for robots.txt, then for its refresh
    as they were sent) were reported as "16 request(s) waited". The report counts the
    requests that waited, and says the waits apart when some waited more than once."""
    report = report_of()
    waits = Waits()  # as the URL ledger keeps them
    twice, once = Request(f"{A}/twice"), Request(f"{A}/once")
    for request in (twice, once, twice):
        waits.held(request, origin=A)
    waits.held(twice, origin=f"{A}/license.xml")  # another document's wait: its own line
    report.read_waits(waits)
    text = report.render()
    assert (
        f"  {A}\n    robots.txt: not downloaded\n    2 request(s) waited for it (3 waits in all)\n"
        in text
    )
    assert (
        f"  {A}/license.xml\n    robots.txt: not downloaded\n    1 request(s) waited for it\n"
        in text
    )


def test_a_url_downloaded_again_is_counted_not_listed_twice() -> None:
    """A start URL (``dont_filter``) that a page links back to is downloaded twice."""
    report = report_of()
    home = Request(f"{A}/")
    response = HtmlResponse(f"{A}/", body=b"<html></html>", request=home)
    for _ in range(2):
        page_output(report, response, kept=1, status=200)
    for _ in range(4):
        settle(report, f"{A}/again", Fate.FETCHED, status=200)
    text = report.render()
    assert f"  {A}/\n    downloaded twice (200); 2 items kept\n" in text
    assert f"  {A}/again\n    downloaded 4 times (200)\n" in text
    # Each download is a request of its own, as each is a record of the audit trail.
    assert text.endswith("In short: 6 requests (6 downloaded); 2 items kept\n")


def test_bounded_outcomes_and_urls() -> None:
    report = report_of(REP_REPORT_MAX_URLS=2)
    for number in range(10):
        report._fetched(origin=A, rules=DISALLOW_ALL, outcome=f"try {number}", sitemaps=())
    for number in range(5):
        settle(report, f"{A}/{number}", Fate.REFUSED, Reason.FORBIDDEN, why="Forbidden")
    text = report.render()
    assert "robots.txt: try 0 -> try 1 -> (5 more) -> try 7 -> try 8 -> try 9" in text
    assert "… and 3 more event(s) of other URLs (REP_REPORT_MAX_URLS)" in text


def test_a_report_file_that_fails_at_the_end_is_printed_instead(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    report = report_of(REP_REPORT_FILE="/dev/full")
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
    report = report_of(**{"ROBOTSTXT_OBEY": True, **settings})
    rules = parse_robotstxt("User-agent: *\nCrawl-delay: 2\n")
    report._fetched(origin=A, rules=rules, outcome="200 (30 bytes)", sitemaps=())
    lines = [line.strip() for line in report.render().splitlines() if "crawl-delay" in line]
    assert lines == [said]


# ---------------------------------------------------------------------- what it says


def robots_line(report: RepReport) -> str:
    [line] = [line for line in report.render().splitlines() if "robots.txt:" in line]
    return line.strip()


def test_the_same_outcome_in_a_row_is_said_once_with_its_count() -> None:
    """A host refusing connections said the same error four times on one line."""
    report = report_of()
    refused = (
        "unreachable (ConnectionRefusedError: Connection was refused by other side: 111: "
        "Connection refused.)"
    )
    for _ in range(4):
        report._fetched(origin=A, rules=DISALLOW_ALL, outcome=refused, sitemaps=())
    gave_up = f"unreachable for 10 s ({refused}): requests dropped"
    report._fetched(origin=A, rules=DISALLOW_ALL, outcome=gave_up, sitemaps=())
    # The give-up does not quote the failure the line has just said either.
    assert (
        robots_line(report)
        == f"robots.txt: {refused} (x4) -> unreachable for 10 s: requests dropped"
    )


def test_a_request_held_then_dropped_is_said_in_one_phrase() -> None:
    """It said "held while robots.txt was unreachable (4x), released; Dropped: …"."""
    report = report_of()
    html_page = Request(f"{A}/p")
    waits = Waits()  # as the URL ledger keeps them
    waits.held(html_page, origin=A)
    waits.released(html_page, origin=A, failures=4)
    report.read_waits(waits)
    message = f"Dropped: robots.txt of {A} unreachable for 600 s (503: …): requests dropped"
    settle(report, html_page.url, Fate.REFUSED, Reason.ROBOTSTXT_UNREACHABLE, why=message)
    text = report.render()
    assert (
        f"  {A}/p\n    held while robots.txt was unreachable (4 failed downloads), then dropped "
        "when robots.txt was given up on (see its origin above)\n"
    ) in text
    assert "released" not in text
    assert text.endswith("In short: 1 request (1 dropped: robots.txt unreachable)\n")


def test_the_closing_line_counts_pages_and_items_apart() -> None:
    """ "4 downloaded" counted pages whose items were not dropped, read as 4 items kept:
    here 4 pages, 4 items kept (3 of one page, none of another), 2 dropped."""
    report = report_of()
    for path, kept, dropped in (("/a", 3, 0), ("/b", 0, 0), ("/c", 1, 0), ("/d", 0, 2)):
        request = Request(A + path)
        response = HtmlResponse(request.url, body=b"", request=request)
        refused = ((Reason.PURPOSE, "ai-train denied by x"),) * dropped
        page_output(report, response, kept, refused, status=200)
    text = report.render()
    assert f"  {A}/a\n    downloaded (200); 3 items kept\n" in text
    assert f"  {A}/b\n    downloaded (200)\n" in text
    assert f"  {A}/d\n    downloaded (200); 2 items dropped (ai-train denied by x)\n" in text
    assert text.endswith("In short: 4 requests (4 downloaded); 4 items kept, 2 dropped (purpose)\n")


def test_an_item_a_later_component_dropped_is_not_counted_kept() -> None:
    """The page pass let the item through, but a project's spider middleware after it (or
    an item pipeline) dropped it: the URL ledger settles it not kept, and the report says
    so on its page's line and in the closing line, as the trail's record counts it
    (``items_not_kept``), never "kept"."""
    report = report_of()
    for path, kept, lost in (("/a", 0, 1), ("/b", 2, 1)):
        request = Request(A + path)
        response = HtmlResponse(request.url, body=b"", request=request)
        page_output(report, response, kept, not_kept=lost, status=200)
    text = report.render()
    assert f"  {A}/a\n    downloaded (200); 1 item not kept by a component of the crawl\n" in text
    assert (
        f"  {A}/b\n    downloaded (200); 2 items kept; 1 item not kept by a component of the "
        "crawl\n"
    ) in text
    assert text.endswith(
        "In short: 2 requests (2 downloaded); 2 items kept, 2 not kept by a component of the "
        "crawl\n"
    )


def test_a_download_without_a_response_and_a_redirect_are_requests() -> None:
    """What the trail records as ``failed`` and ``redirected`` the report listed not at all."""
    report = report_of()
    lost = TimeoutError("took too long")  # no response after every retry: failed
    settle(report, f"{A}/lost", Fate.FAILED, why=f"TimeoutError: {lost}")
    settle(report, f"{A}/old", Fate.REDIRECTED, status=301, to=f"{A}/new")
    settle(report, f"{A}/new", Fate.FETCHED)
    text = report.render()
    assert f"  {A}/lost\n    not downloaded: no response after every attempt\n" in text
    assert f"  {A}/old\n    redirected (301) to {A}/new\n" in text
    assert text.endswith("In short: 3 requests (1 downloaded, 1 redirected, 1 no response)\n")


def test_a_pipelines_download_is_no_request_of_the_crawl() -> None:
    report = report_of()
    # engine.download by a media pipeline, no verdict on it: no entry of the URL ledger
    image = Request(f"{A}/a.jpg")
    report.downloaded_apart(image.url, 200)
    text = report.render()
    assert "Other downloads (files an item pipeline fetched: no request of the crawl):\n" in text
    assert f"  {A}/a.jpg\n    downloaded by an item pipeline (200)\n" in text
    assert text.endswith("In short: nothing happened\n")


@pytest.mark.parametrize(
    ("stats", "lines"),
    [
        ({}, []),
        (
            {"rep/directives/items_dropped/noindex": 4,
             "rep/directives/items_dropped/unavailable_after": 1},
            ["scrapy_rep: 5 items dropped (4 from noindex pages, 1 past unavailable_after); "
             "REP_NOINDEX_ACTION = 'keep' keeps those of noindex pages"],
        ),
        (
            {"rep/purpose/items_dropped/ai-train": 2},
            ["scrapy_rep: 2 items dropped (2 denied for ai-train); REP_PURPOSE_ACTION = 'mark' "
             "keeps those denied for a purpose, marked"],
        ),
        (
            {"rep/directives/items_kept/noindex": 1},
            ["scrapy_rep: 1 item of noindex pages kept (REP_NOINDEX_ACTION = 'keep')"],
        ),
        (
            {"rep/directives/requests_dropped/nofollow": 1200,
             "rep/directives/requests_dropped/rel_nofollow": 1},
            ['scrapy_rep: 1,201 links not followed (1,200 on nofollow pages, 1 rel="nofollow"); '
             "REP_NOFOLLOW_ACTION = 'keep' and REP_REL_NOFOLLOW = False follow them"],
        ),
        (
            {"rep/requests/dropped/forbidden": 2, "rep/requests/dropped/purpose": 1,
             "rep/purpose/requests_dropped/ai-train": 1,
             "rep/requests/dropped/robotstxt_unreachable": 1,
             "rep/requests/dropped/spider_closed": 5},  # has its own WARNING
            ["scrapy_rep: 4 requests not sent (2 forbidden by robots.txt, 1 robots.txt given up "
             "on as unreachable, 1 denied for ai-train); REP_REPORT = True names them"],
        ),
    ],
)  # fmt: skip
def test_the_closing_lines_say_what_was_dropped_and_the_setting_that_keeps_it(
    stats: dict[str, int], lines: list[str]
) -> None:
    from scrapy.settings import Settings

    from rep_engine.settings import RepConfig
    from scrapy_rep.crawl.report import closing_lines

    keep = "keep" if "rep/directives/items_kept/noindex" in stats else "drop"
    config = RepConfig.from_settings(Settings({"REP_NOINDEX_ACTION": keep}))
    assert closing_lines(stats, config) == lines


def test_the_requests_not_sent_line_points_at_the_report_when_it_is_on() -> None:
    from scrapy.settings import Settings

    from rep_engine.settings import RepConfig
    from scrapy_rep.crawl.report import closing_lines

    config = RepConfig.from_settings(Settings({"REP_REPORT": True}))
    assert closing_lines({"rep/requests/dropped/tdmrep_unreachable": 1}, config) == [
        "scrapy_rep: 1 request not sent (1 tdmrep.json given up on as unreachable); the "
        "report names it"
    ]


def test_the_closing_lines_say_the_answers_that_asked_a_price() -> None:
    """A crawl without the report says at its end that sites asked a price, never paid."""
    from scrapy.settings import Settings

    from rep_engine.settings import RepConfig
    from scrapy_rep.crawl.report import closing_lines

    config = RepConfig.from_settings(Settings())
    assert closing_lines({"rep/responses/payment_required": 2}, config) == [
        "scrapy_rep: 2 responses answered 402 Payment Required (a price asked for the "
        "crawl): never paid, never retried"
    ]
    assert closing_lines({}, config) == []


# ---------------------------------------------------------------------- real crawls


def test_the_lifecycle_lines_counted_at_the_end_are_the_lifecycles_own() -> None:
    """The end-of-crawl counts are found by the lifecycle's messages: a message changed
    there must be changed here too."""
    import ast
    import inspect

    from rep_engine.fetch.lifecycle import machine
    from scrapy_rep.crawl.documents.documents import _SUMMARIES

    strings = {
        node.value
        for node in ast.walk(ast.parse(inspect.getsource(machine)))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert set(_SUMMARIES) <= strings


def test_a_link_not_followed_from_several_pages_is_one_line_with_its_count() -> None:
    report = report_of()
    home = HtmlResponse(f"{A}/", body=b"", request=Request(f"{A}/"))
    message = f'Not followed: {A}/ links to it only with rel="nofollow"'
    for _ in range(3):  # the home page downloaded three times
        page_output(report, home, links=((f"{A}/ads", Reason.REL_NOFOLLOW, message),))
    text = report.render()
    assert f"  {A}/ads\n    {message} (3 times)\n" in text
    assert f'  {A}/\n    downloaded 3 times (200); 3 links not followed (rel="nofollow")\n' in text
    assert text.endswith(
        "In short: 3 requests (3 downloaded); 3 links not followed (never requested)\n"
    )


def test_a_report_listed_by_hand_without_the_ledger_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The report reads every request's fate from the ledger (``scrapy_rep.AuditTrail``,
    which the add-on enables): listed by hand without it, it says what it cannot say."""
    from scrapy import signals

    from scrapy_rep.crawl.audit.audit import AuditTrail

    for with_ledger in (False, True):
        caplog.clear()
        crawler = get_crawler(Spider, {"REP_REPORT": True})
        if with_ledger:
            AuditTrail.from_crawler(crawler)
        RepReport(crawler)
        crawler.signals.send_catch_log(signals.spider_opened, spider=None)
        warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
        assert bool(warned) is not with_ledger
        assert with_ledger or "scrapy_rep.AuditTrail" in warned[0]


def test_a_request_a_middleware_ignored_without_a_message_is_not_said_to_have_had_attempts() -> (
    None
):
    """A downloader middleware raised a bare ``IgnoreRequest()`` from ``process_request``:
    the trail's record is failed, ``attempts`` 0, ``why`` "IgnoreRequest"; the report said
    "not downloaded: no response after every attempt" of a request never sent."""

    report = report_of()
    entry = UrlEntry(f"{A}/skip", fate=Fate.FAILED, why="IgnoreRequest")  # never attempted
    settled_by_the_ledger(report, entry)
    text = report.render()
    assert "after every attempt" not in text
    assert f"  {A}/skip\n    not downloaded: IgnoreRequest\n" in text


def test_the_closing_line_counts_every_request_as_the_trail_does_past_the_listed_urls() -> None:
    """A hostile first page with many nofollow links fills REP_REPORT_MAX_URLS with links
    never requested: the requests after it were left out of the closing line too, which
    said "0 requests" of a crawl whose trail holds three records (docs/behaviour.md: it
    counts them as the trail does)."""
    report = report_of(REP_REPORT_MAX_URLS=2)
    first = HtmlResponse(f"{A}/", body=b"<html></html>", request=Request(f"{A}/"))
    links = tuple((f"{A}/n{n}", Reason.NOFOLLOW, "Not followed (nofollow)") for n in range(5))
    page_output(report, first, kept=1, links=links, status=200)
    for n in range(3):
        settle(report, f"{A}/p{n}", Fate.FETCHED)
    settle(report, f"{A}/x", Fate.REFUSED, Reason.FORBIDDEN, why="Forbidden by robots.txt")
    text = report.render()
    assert "(REP_REPORT_MAX_URLS)" in text  # the list is cut
    assert "In short: 5 requests (4 downloaded, 1 forbidden by robots.txt); 1 item kept; " in text
    assert "5 links not followed (never requested)" in text


def test_the_report_names_an_origins_use_level() -> None:
    crawler = get_crawler(Spider, {"REP_REPORT": True, "USER_AGENT": "bot"})
    report = RepReport(crawler)
    origin = "http://a.example"
    report._fetched(
        origin=origin, rules=parse_robotstxt(CLOUDFLARE_USE_REFERENCE), outcome="200", sitemaps=()
    )
    entry = UrlEntry(f"{origin}/x", fate=Fate.REFUSED, why="Forbidden", reason=Reason.FORBIDDEN)
    settled_by_the_ledger(report, entry)
    text = report.render()
    assert (
        "    content use: at most reference (Content-Signal use=reference: a condition on how "
        "its content may be used, which refuses no purpose)\n"
    ) in text
    report = RepReport(crawler)
    report._fetched(origin=origin, rules=parse_robotstxt("User-agent: *\n"), outcome="200",
                    sitemaps=())  # fmt: skip
    assert "content use" not in report.render()
