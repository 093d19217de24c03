"""One crawl, every reader of it: the end-of-crawl report (REP_REPORT), the audit trail's
records and end line, ``audit summary``, ``audit list`` and ``audit report --html`` say
the same fate of each request: one crawl with a fate of every kind, read by each."""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted
from scrapy import Request, signals
from scrapy.utils.test import get_crawler
from twisted.internet.task import LoopingCall

from rep_engine.records import UrlEntry, describe
from rep_engine.trail.file import encode_line
from rep_engine.trail.read import Trail
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.internals import close_spider
from scrapy_rep.crawl.report import RepReport
from tests.support.audittrail import lines as trail_lines
from tests.support.mediafiles import jpeg, xmp_packet
from tests.support.robotsite import (
    BASE_SETTINGS,
    ListSpider,
    Reply,
    Sites,
    crawl,
    html_page,
    robots,
)
from tests.support.tools import audit_tool

# One worker runs the module's tests: its crawl (a module fixture) runs once.
pytestmark = pytest.mark.xdist_group("fates_agree")

JPEG = {"Content-Type": "image/jpeg"}
PERMISSION = "written permission of the site owner, 2026-11-01"
RULES = "User-agent: *\nDisallow: /private\n"


class Mover:
    """A downloader middleware after scrapy_rep's robots.txt middleware that moves
    ``/move`` in place to an origin whose robots.txt the crawl has not read: the request
    cannot be decided again as it is sent, so it is dropped there (``sent_unknown``)."""

    target: ClassVar[str] = ""

    def process_request(self, request: Request, spider: Any = None) -> None:
        if request.url.endswith("/move"):
            request._set_url(self.target)


class FatesSpider(ListSpider):
    """The pages of :func:`fate_sites`; the gallery page yields one item with two files."""

    files: ClassVar[list[str]] = []

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        if response.url.endswith("/gallery"):
            yield {"file_urls": list(self.files)}


@dataclass
class FatesRun:
    bases: dict[str, str]
    trail: Path
    #: The report as printed, and each URL's requests by fate (the closing line's words).
    report: str = ""
    fates: dict[str, Counter[str]] = field(default_factory=dict)
    #: What ``audit summary``, ``audit list`` (and with ``--fate refused``, ``--fate
    #: dropped``) and ``audit report --html`` printed.
    summary: str = ""
    listed: str = ""
    listed_refused: str = ""
    listed_dropped: str = ""
    html: str = ""

    def url(self, name: str, path: str) -> str:
        return self.bases[name] + path

    def records(self) -> dict[str, dict[str, Any]]:
        """The trail's ``url`` records, by URL (one request each in this crawl)."""
        records = [line for line in trail_lines(self.trail) if line["type"] == "url"]
        found = {record["url"]: record for record in records}
        assert len(found) == len(records)
        return found

    def said(self, url: str) -> str:
        """The report's line of ``url`` (under its URL in one of the report's lists)."""
        lines = self.report.splitlines()
        [at] = [n for n, line in enumerate(lines) if line == f"  {url}"]
        return lines[at + 1].strip()


#: The report's fates (its closing line's words) as the trail writes them (``fate``).
TRAIL_FATE = {
    "downloaded": "fetched",
    "redirected": "redirected",
    "forbidden by robots.txt": "refused",
    "not fetched for the crawl's purpose": "refused",
    "dropped: robots.txt unreachable": "refused",
    "dropped: tdmrep.json unreachable": "refused",
    "dropped: the spider closed": "refused",
    "dropped: sent unchecked, a document it needs not known": "refused",
    "dropped": "refused",
    "no response": "failed",
}


def fate_sites() -> Sites:
    """Origin a: a page with two files (one whose XMP says no to AI training), a page its
    robots.txt forbids, one moved at its send, one that gets no response; b (reached as
    localhost): a page its robots.txt forbids that an override lets through; hang: a
    robots.txt that never answers; c: where the moved page goes (never read)."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots(RULES))
    a.script("/gallery", html_page())
    a.script("/no-train.jpg", Reply(200, jpeg(xmp_packet("DMI-PROHIBITED"), (9, 9, 9)), JPEG))
    a.script("/train.jpg", Reply(200, jpeg(xmp_packet("DMI-ALLOWED"), (7, 7, 7)), JPEG))
    a.script("/lost", Reply(reset=True))
    sites.add("b").script("/robots.txt", robots(RULES))
    sites.add("hang").script("/robots.txt", Reply(hang=True))
    sites.add("c").script("/robots.txt", robots(RULES))
    return sites


@pytest_twisted.async_fixture(scope="module")
async def fates_run(tmp_path_factory: pytest.TempPathFactory) -> FatesRun:
    folder = tmp_path_factory.mktemp("fates")
    sites = fate_sites()
    bases = dict(sites.bases)
    bases["b"] = bases["b"].replace("127.0.0.1", "localhost")
    run = FatesRun(bases, folder / "trail.jsonl")
    Mover.target = run.url("c", "/moved")
    FatesSpider.files = [run.url("a", "/no-train.jpg"), run.url("a", "/train.jpg")]
    urls = [
        run.url("a", "/gallery"),
        run.url("a", "/private/x"),
        run.url("a", "/move"),
        run.url("a", "/lost"),
        run.url("b", "/private/y"),
        run.url("hang", "/held"),
    ]
    settings = {
        "REP_REPORT": True,
        "REP_AUDIT_FILE": str(run.trail),
        "REP_PURPOSE": "ai-train",
        "REP_OVERRIDES": [{"host": "localhost", "reason": PERMISSION, "expires": "2099-01-01"}],
        "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 1},
        "FILES_STORE": str(folder / "files"),
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}.Mover": 450},
        "REP_UNREACHABLE_MAX_WAIT": 60,
        "CLOSESPIDER_TIMEOUT": 60,  # only if the close below never comes
    }
    files: list[str] = []

    def close_when_only_the_held_one_is_left(crawler: Any) -> None:
        """Close the spider once every request but the held one has its fate (however
        slowly a loaded machine got there): that one is dropped as the spider closes."""

        def check() -> None:
            spider = crawler.spider
            done = {run.url("a", "/gallery"), run.url("b", "/private/y")}
            dropped = {run.url(*u) for u in (("a", "/private/x"), ("a", "/lost"), ("c", "/moved"))}
            if (
                len(files) == 2
                and done <= set(spider.downloaded)
                and dropped <= set(spider.dropped)
            ):
                loop.stop()
                close_spider(crawler, "all_but_the_held_one")

        def opened(**_: Any) -> None:
            loop.start(0.05, now=False)

        def closed(**_: Any) -> None:
            if loop.running:
                loop.stop()

        loop = LoopingCall(check)
        crawler.signals.connect(
            lambda url, **_: files.append(url), signal=rep_signals.file_checked, weak=False
        )
        crawler.signals.connect(opened, signal=signals.spider_opened, weak=False)
        crawler.signals.connect(closed, signal=signals.spider_closed, weak=False)

    try:
        crawler, _ = await crawl(urls, settings, FatesSpider, close_when_only_the_held_one_is_left)
    finally:
        await sites.close()
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    run.report = report.text
    run.fates = {
        url: Counter(describe(entry).phrase for entry in record.entries)
        for url, record in report.urls.items()
    }
    run.summary = audit_tool("summary", str(run.trail))[1]
    run.listed = audit_tool("list", str(run.trail))[1]
    run.listed_refused = audit_tool("list", str(run.trail), "--fate", "refused")[1]
    run.listed_dropped = audit_tool("list", str(run.trail), "--fate", "dropped")[1]
    page = folder / "report.html"
    audit_tool("report", str(run.trail), "--html", str(page))
    run.html = page.read_text(encoding="utf-8")
    return run


def html_rows(page: str) -> dict[str, tuple[str, str]]:
    """The HTML report's records table: URL -> (its state, its deciding signal)."""
    body = page.split('<table id="records">', 1)[1]
    found = {}
    for row in re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], flags=re.S):
        url = re.search(r'<td class="url">(.*?)</td>', row, flags=re.S)
        fate = re.search(r'<td class="fate"[^>]*><span[^>]*></span>(.*?)</td>', row, flags=re.S)
        said = re.search(r'<td class="said">(.*?)</td>', row, flags=re.S)
        assert url and fate and said, row
        found[html.unescape(url[1].replace("<wbr>", ""))] = (
            html.unescape(fate[1]),
            html.unescape(said[1]),
        )
    return found


def listed_rows(listed: str) -> dict[str, tuple[str, str]]:
    """``audit list``'s lines: URL -> (its state: its fate, or ``fetched, file refused``…;
    what it says after the colon)."""
    found = {}
    for line in listed.splitlines():
        match = re.match(r"line \d+: (\S+) (\w+(?:, [\w ]+)?)(?: \([^)]*\))?: (.*)$", line)
        if match:
            found[match[1]] = (match[2], match[3])
    return found


# ----------------------------------------------------------------- the guards


def test_every_request_is_counted_alike_by_the_report_the_trail_and_audit_summary(
    fates_run: FatesRun,
) -> None:
    """The report's "In short: N requests" said 5 where the trail's end line and ``audit
    summary`` said 8 (a file an item pipeline downloaded, a request dropped at its send
    were requests of the trail only)."""
    [end] = [line for line in trail_lines(fates_run.trail) if line["type"] == "end"]
    counts = end["counts"]
    assert counts["url"] == 8
    by_fate: Counter[str] = Counter()
    for fates in fates_run.fates.values():
        for fate, n in fates.items():
            by_fate[TRAIL_FATE[fate]] += n
    assert dict(by_fate) == {fate: n for fate, n in counts.items() if fate in by_fate}
    assert sum(by_fate.values()) == counts["url"]
    [short] = [line for line in fates_run.report.splitlines() if line.startswith("In short: ")]
    assert short.startswith(
        "In short: 8 requests (4 downloaded, 1 forbidden by robots.txt, 1 dropped: the spider "
        "closed, 1 dropped: sent unchecked, a document it needs not known, 1 no response), 1 of "
        "them overridden by REP_OVERRIDES; "
    )
    first = fates_run.summary.splitlines()[0]
    assert first.startswith("1 run(s), 8 requested URL(s) (1 failed, 4 fetched, 3 refused), ")
    assert '<div class="total" id="total-0"><b>8</b>requested URLs</div>' in fates_run.html


def test_each_url_has_one_fate_in_the_report_the_trail_audit_list_and_the_html(
    fates_run: FatesRun,
) -> None:
    records = fates_run.records()
    requested = {url for url, fates in fates_run.fates.items() if fates}
    assert requested == set(records)
    listed, rows = listed_rows(fates_run.listed), html_rows(fates_run.html)
    assert set(listed) == set(rows) == set(records)
    for url, record in records.items():
        [(fate, n)] = fates_run.fates[url].items()
        assert n == 1 and TRAIL_FATE[fate] == record["fate"], url
        assert listed[url][0].partition(",")[0] == record["fate"], url
        assert rows[url][0].partition(",")[0] == record["fate"], url
        assert f"  {url}" in fates_run.report.splitlines(), url  # listed in the report


def test_every_url_line_of_the_trail_reads_back_to_the_same_bytes(fates_run: FatesRun) -> None:
    """A ``url`` line of every fate the trail writes (fetched, an override's, an item
    pipeline's file, refused by robots.txt, at close and at its send, failed at its
    download), parsed as the audit readers parse it and written as the writer writes it,
    is the same line: the hash chain holds across a parse and a serialise."""
    seen: Counter[str] = Counter()
    for line in Trail(fates_run.trail).lines():
        if line.type == "url":
            assert line.record is not None
            seen[str(line.record["fate"])] += 1
            assert encode_line(line.record, compressed=False)[0] == line.raw
            # and read as the entry it was written from, written again: the same record
            # (prev and site_prev aside: the file's, from where the line is)
            record = line.record
            again = UrlEntry.from_line(record).line(record["run"], record["id"], record["time"])
            file_fields = ("prev", "site_prev")
            assert list(again.items()) == [
                (k, v) for k, v in record.items() if k not in file_fields
            ]
    assert seen == {"fetched": 4, "refused": 3, "failed": 1}


# ----------------------------------------------------------------- what a user sees


def test_a_file_the_media_gate_refused_is_said_refused_in_the_report_and_the_html(
    fates_run: FatesRun,
) -> None:
    """The report said "downloaded by an item pipeline (200)" and ``audit report --html``
    "fetched", "no rule (allowed)" of an image whose XMP says no AI training, refused
    for ai-train (the trail's ``file`` record said ``refused``)."""
    refused, stored = fates_run.url("a", "/no-train.jpg"), fates_run.url("a", "/train.jpg")
    why = "ai-train denied by XMP plus:DataMining DMI-PROHIBITED"
    assert fates_run.said(refused) == f"downloaded without the scheduler (200); not stored: {why}"
    assert fates_run.said(stored) == "downloaded without the scheduler (200)"
    rows = html_rows(fates_run.html)
    assert rows[refused] == ("fetched, file refused", f"file refused: {why}")
    assert rows[stored] == ("fetched", "no rule (allowed)")
    assert f"file refused: {why}" in fates_run.summary  # its deciding-signal row


def test_a_file_the_media_gate_refused_is_listed_refused_and_dropped(fates_run: FatesRun) -> None:
    """``audit list`` said "fetched: no rule (allowed)" of the image the media gate refused
    (``show`` and ``summary`` said refused), and ``--fate refused`` and ``--fate dropped``
    left it out: what a photo site asks about. Its ``file`` record follows its download's,
    and is read with it, as ``summary`` and the HTML report read it."""
    refused, stored = fates_run.url("a", "/no-train.jpg"), fates_run.url("a", "/train.jpg")
    why = "ai-train denied by XMP plus:DataMining DMI-PROHIBITED"
    listed = listed_rows(fates_run.listed)
    assert listed[refused] == ("fetched, file refused", why)
    assert listed[stored] == ("fetched", "no rule (allowed)")
    assert f"{refused} fetched, file refused (purpose): {why}" in fates_run.listed
    for chosen in (fates_run.listed_refused, fates_run.listed_dropped):
        assert listed_rows(chosen)[refused] == ("fetched, file refused", why), chosen
        assert stored not in listed_rows(chosen), chosen
    assert fates_run.url("a", "/private/x") in listed_rows(fates_run.listed_refused)


def test_a_request_an_override_let_through_is_said_overridden_in_the_report(
    fates_run: FatesRun,
) -> None:
    url = fates_run.url("b", "/private/y")
    overridden = f"overridden by REP_OVERRIDES: {PERMISSION}, through 2099-01-01, UTC"
    assert fates_run.said(url) == f"downloaded (200); {overridden}"
    assert fates_run.records()[url]["robots"]["overridden"] == overridden.split(": ", 1)[1]
    assert listed_rows(fates_run.listed)[url] == ("fetched", overridden)
    assert html_rows(fates_run.html)[url] == ("fetched", overridden)


def test_a_request_dropped_at_its_send_is_refused_in_the_trail_and_the_report(
    fates_run: FatesRun,
) -> None:
    """Moved at its send to an origin whose robots.txt is not known (``sent_unknown``):
    refused, never sent unchecked, in the trail and in the report alike (it was
    ``failed`` in the trail and missing from the report)."""
    url = fates_run.url("c", "/moved")
    record = fates_run.records()[url]
    assert (record["fate"], record["refused_by"]) == ("refused", "sent_unknown")
    assert fates_run.fates[url] == {"dropped: sent unchecked, a document it needs not known": 1}
    assert record["why"] == (
        "Dropped: sent with another User-Agent, URL or Host than it was checked for; the "
        f"robots.txt of {fates_run.bases['c']} it needs is not known"
    )
    assert fates_run.said(url) == record["why"]
    assert fates_run.url("a", "/move") not in fates_run.fates  # one request, one URL


def test_a_request_held_when_the_spider_closed_is_refused_alike(fates_run: FatesRun) -> None:
    url = fates_run.url("hang", "/held")
    record = fates_run.records()[url]
    assert (record["fate"], record["refused_by"]) == ("refused", "closed")
    assert fates_run.fates[url] == {"dropped: the spider closed": 1}
    assert fates_run.said(url) == record["why"]


@pytest_twisted.ensureDeferred
async def test_a_bug_of_ours_at_the_send_is_refused_in_the_trail_and_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An internal error deciding a request again as it leaves its slot refuses it (never
    sent unchecked): ``refused`` by ``internal_error`` in the trail and in the report,
    which says why (it was ``failed``, "no response after every attempt" of a request
    never sent)."""
    from scrapy_rep.crawl.requests import perform
    from scrapy_rep.crawl.requests.downloadermiddlewares import RobotsTxtMiddleware
    from scrapy_rep.crawl.requeststate import decided

    def at_once(
        request: Request, before: Any, names: Any, until: float, overridden: bool = False
    ) -> bool:
        return decided(request, before, names, 0.0, overridden)  # it no longer holds at its send

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(perform, "decided", at_once)
    monkeypatch.setattr(RobotsTxtMiddleware, "decide_at_send", broken)
    sites = Sites()
    sites.add("a").script("/robots.txt", robots(RULES))
    trail = tmp_path / "trail.jsonl"
    url = sites.url("a", "/x")
    settings = {"REP_REPORT": True, "REP_AUDIT_FILE": str(trail)}
    crawler = get_crawler(ListSpider, {**BASE_SETTINGS, **settings})
    try:
        await crawler.crawl(urls=[url])
    finally:
        await sites.close()
    assert "/x" not in sites.requested("a")
    assert crawler.stats is not None
    assert crawler.stats.get_value("rep/requests/dropped/internal_error") == 1
    assert crawler.stats.get_value("rep/requests/internal_errors") == 1
    [record] = [line for line in trail_lines(trail) if line["type"] == "url"]
    assert (record["fate"], record["refused_by"]) == ("refused", "internal_error")
    why = (
        "Dropped: scrapy_rep could not decide it at its send (internal error: RuntimeError: a bug)"
    )
    assert record["why"] == why
    assert record["attempts"] == 0  # never sent
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    assert f"  {url}\n    {why}\n" in report.text
    assert "In short: 1 request (1 dropped)" in report.text
