"""The end-of-crawl report (REP_REPORT) of real crawls: the crawl-delay it did not apply, the
same URLs as the audit trail, the items dropped and why, and the per-origin lines at INFO
for the first few origins (the report fed with signals: tests/crawl/test_report.py)."""

from __future__ import annotations

import io
import logging
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider

from scrapy_rep.crawl.report import RepReport
from tests.support.robotsite import html_page


@pytest_twisted.ensureDeferred
async def test_a_real_crawl_reports_the_crawl_delay_it_did_not_apply() -> None:
    from scrapy_rep import RobotsTxtMiddleware
    from tests.support.robotsite import Sites, crawl, robots

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


class FollowLinksSpider(Spider):
    """One item per page, every link followed."""

    name = "follow"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = urls

    async def start(self) -> Any:
        for url in self.urls:  # as Scrapy's own start requests: dont_filter
            yield Request(url, dont_filter=True, errback=self.failed)

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, errback=self.failed)

    def failed(self, failure: Any) -> None:
        """A download that got no answer (``/lost``): expected, not an error."""


def a_site() -> Any:
    """A page of every kind the report and the trail tell: a redirect, a download that
    gets no answer, a page robots.txt forbids, noindex in a header and in a meta tag, a
    nofollow page and a rel="nofollow" link (never requested), a link back home (the
    start URL, sent with ``dont_filter``: downloaded twice)."""
    from tests.support.robotsite import Reply, Sites, redirect, robots

    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    links = ["/meta", "/header", "/nofollow", "/private/x", "/old", "/lost", "/"]
    anchors = "".join(f'<a href="{link}">x</a>' for link in links)
    site.script("/", html_page(f'{anchors}<a rel="nofollow" href="/ads">ad</a>'))
    site.script("/meta", html_page('<meta name="robots" content="noindex">'))
    site.script("/header", html_page("", **{"X-Robots-Tag": "noindex"}))
    site.script(
        "/nofollow", html_page('<meta name="robots" content="nofollow"><a href="/never">n</a>')
    )
    site.script("/old", redirect("/new"))
    site.script("/lost", Reply(reset=True))
    return sites


def sections(text: str) -> dict[str, dict[str, str]]:
    """The report's URL lists: heading -> {URL: its line}."""
    found: dict[str, dict[str, str]] = {}
    for block in text.split("\n\n"):
        heading, *rest = block.splitlines()
        if heading.endswith(":") and not heading.startswith(("robots.txt", "In short")):
            found[heading] = {rest[i].strip(): rest[i + 1].strip() for i in range(0, len(rest), 2)}
    return found


#: With the settings real projects use: both read each page's one ledger all the same.
WITH_PROJECT_SETTINGS = {
    "alone": {},
    "http cache": {"HTTPCACHE_ENABLED": True},
    "autothrottle, one at a time": {
        "AUTOTHROTTLE_ENABLED": True,
        "AUTOTHROTTLE_START_DELAY": 0.01,
        "CONCURRENT_REQUESTS": 1,
    },
}


@pytest.mark.parametrize("combined", list(WITH_PROJECT_SETTINGS))
@pytest_twisted.ensureDeferred
async def test_the_report_and_the_audit_trail_agree_on_every_url(
    tmp_path: Path, combined: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The report listed 10 URLs where the trail had 7 records: links not followed are
    no requests (a list of their own), and it missed the redirect and the download that
    got no answer. Now every request of the trail is a URL of the report's first list,
    counted alike, and the links not followed are the ones the pages' records name."""
    from rep_audit.cli import main
    from tests.support.audittrail import lines as trail_lines
    from tests.support.robotsite import crawl

    caplog.set_level(logging.INFO, logger="scrapy_rep")  # the crawl's closing INFO lines
    sites = a_site()
    trail = tmp_path / "audit.jsonl"
    settings = {"REP_REPORT": True, "REP_AUDIT_FILE": str(trail), "LOG_LEVEL": "INFO"}
    settings.update(WITH_PROJECT_SETTINGS[combined], HTTPCACHE_DIR=str(tmp_path / "cache"))
    base = sites.bases["a"]
    try:
        crawler, _ = await crawl([base + "/"], settings, spider=FollowLinksSpider)
    finally:
        await sites.close()
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    listed = sections(report.text)
    requested = listed["URLs requested (the audit trail has a record of each request):"]
    links = listed[
        "Links not followed (never requested, so no record of their own: the audit trail "
        "counts them on the page that held them):"
    ]
    records = [line for line in trail_lines(trail) if line["type"] == "url"]
    [end] = [line for line in trail_lines(trail) if line["type"] == "end"]
    assert set(requested) == {record["url"] for record in records}
    assert {path.removeprefix(base) for path in requested} == {
        "/", "/meta", "/header", "/nofollow", "/private/x", "/old", "/new", "/lost"
    }  # fmt: skip
    named = {url for record in records for url in record.get("not_followed", ())}
    assert set(links) == named == {base + "/ads", base + "/never"}
    # Counted alike: the start URL twice (two records), the links as the end line does.
    assert len(records) == 9
    # with the HTTP cache, the start URL's second request is the first's copy, replayed
    said = "1 no response, 1 replayed from the HTTP cache" if combined == "http cache" else (
        "1 no response"
    )  # fmt: skip
    downloaded = 5 if combined == "http cache" else 6
    assert report.summary().startswith(
        f"9 requests ({downloaded} downloaded, 1 redirected, 1 forbidden by robots.txt, {said}); "
    )
    assert report.summary().endswith(f"; {end['counts']['not_followed']} links not followed "
                                     "(never requested)")  # fmt: skip
    # Items kept and dropped: one ledger per page, read by both.
    kept = sum(record.get("items_kept", 0) for record in records)
    dropped = sum(record.get("items_dropped", 0) for record in records)
    assert kept > 0 and dropped == 2
    assert f"; {kept} items kept, {dropped} dropped (noindex); " in report.summary()
    # and as the crawl's closing INFO line counts them: the same items, whichever line
    closing = [r.getMessage() for r in caplog.records if " items dropped (" in r.getMessage()]
    assert [line.split(" items dropped (")[0] for line in closing] == [f"scrapy_rep: {dropped}"]
    kept_by_url: Counter[str] = Counter()
    for record in records:
        kept_by_url[record["url"]] += record.get("items_kept", 0)
    for url, count in kept_by_url.items():  # the start URL's two records on one line
        assert (f"; {count} item{'s' if count > 1 else ''} kept" in requested[url]) == bool(count)
    assert requested[base + "/old"] == f"redirected (301) to {base}/new"
    assert requested[base + "/lost"] == "not downloaded: no response after every attempt"
    # What said the noindex, in the report and in the trail alike.
    by_url = {record["url"]: record for record in records}
    for path, said in (
        ("/header", "noindex by header X-Robots-Tag: noindex"),
        ("/meta", 'noindex by <meta name="robots" content="noindex">'),
    ):
        assert requested[base + path] == f"downloaded (200); 1 item dropped ({said})"
        assert by_url[base + path]["item_why"] == said
        out = io.StringIO()
        main(["show", str(trail), base + path], out)
        assert f"  items: 0 kept, 1 dropped ({said})" in out.getvalue()
    # audit show on a link not followed: why it has no record, and the page's record.
    out = io.StringIO()
    assert main(["show", str(trail), base + "/never"], out) == 1
    shown = out.getvalue()
    assert f"no record of {base}/never in {trail}: the crawl neither sent nor refused a " in shown
    assert "it is a link not followed" in shown
    assert f"{base}/nofollow was fetched (1 attempt, HTTP 200)" in shown
    assert f"links not followed (never requested, no records of their own): 1: {base}/never" in (
        shown
    )


@pytest_twisted.ensureDeferred
async def test_a_crawl_says_at_info_how_many_items_it_dropped_and_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The same spider gave 4 items with the add-on and 9 without, and nothing at INFO
    said why: the items of noindex pages are dropped by default."""
    from tests.support.robotsite import crawl

    sites = a_site()
    base = sites.bases["a"]
    expired = html_page('<meta name="robots" content="unavailable_after: 2020-01-01">')
    sites.origins["a"].script("/meta", expired)
    caplog.set_level(logging.INFO)
    try:
        await crawl([base + "/"], {"LOG_LEVEL": "INFO"}, spider=FollowLinksSpider)
    finally:
        await sites.close()
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert (
        "scrapy_rep: 2 items dropped (1 from noindex pages, 1 past unavailable_after); "
        "REP_NOINDEX_ACTION = 'keep' keeps those of noindex pages"
    ) in said
    assert (
        'scrapy_rep: 3 links not followed (1 on nofollow pages, 2 rel="nofollow"); '
        "REP_NOFOLLOW_ACTION = 'keep' and REP_REL_NOFOLLOW = False follow them"
    ) in said  # the home page, downloaded twice, links /ads twice
    assert (  # /private/x was never fetched: said at INFO, without the report
        "scrapy_rep: 1 request not sent (1 forbidden by robots.txt); REP_REPORT = True names it"
    ) in said


@pytest_twisted.ensureDeferred
async def test_per_origin_lines_are_at_info_for_the_first_few_origins_then_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One INFO line per origin for Crawl-delay and for an unreachable robots.txt flooded
    a broad crawl's log: 7 origins, each with a crawl-delay and a robots.txt that answers
    503 once. The first 5 of each line are at INFO (the fifth says so), the other 2 at
    DEBUG, and one line at the end counts all 7."""
    from tests.support.robotsite import Reply, Sites, crawl, robots

    sites = Sites()
    for number in range(7):
        origin = sites.add(f"o{number}")
        origin.script("/robots.txt", Reply(503), robots("User-agent: *\nCrawl-delay: 0.01\n"))
    caplog.set_level(logging.DEBUG)
    try:
        await crawl([base + "/" for base in sites.bases.values()], {"LOG_LEVEL": "DEBUG"})
    finally:
        await sites.close()
    kinds = {
        "crawl-delay": lambda m: m.startswith("Crawl-delay of "),
        "unreachable": lambda m: " is unreachable (503); holding 1 request(s)" in m,
        "back": lambda m: " is back after 1 failed attempt(s)" in m,
    }
    for name, is_it in kinds.items():
        said = [(r.levelno, r.getMessage()) for r in caplog.records if is_it(r.getMessage())]
        assert [level for level, _ in said] == [logging.INFO] * 5 + [logging.DEBUG] * 2, name
        assert said[4][1].endswith("(the first 5 such lines are at INFO, the rest at DEBUG)"), name
    info = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert "scrapy_rep: crawl-delay applied to 7 origins (the first 5 said at INFO)" in info
    assert (
        "scrapy_rep: robots.txt of 7 origins was unreachable for a while (their requests "
        "held and retried)"
    ) in info
    assert "scrapy_rep: robots.txt of 7 origins came back after failed downloads" in info


@pytest_twisted.ensureDeferred
async def test_a_report_only_crawl_paused_and_resumed_tells_each_resumed_request_as_requested(
    tmp_path: Path,
) -> None:
    """REP_REPORT without REP_AUDIT_FILE, JOBDIR, a pause: the URL ledger keeps its open
    entries for the resume as it does with a trail, so the resumed run's report tells each
    request Scrapy's queue kept as a request of the crawl (``downloaded (200)``), not as a
    file an item pipeline fetched, nor leaves it out."""
    from scrapy.utils.test import get_crawler

    from tests.support.robotsite import (
        BASE_SETTINGS,
        ListSpider,
        Reply,
        Sites,
        robots_middleware,
        until,
    )
    from tests.support.scrapyversions import stop

    page = b"<html><body>p</body></html>"
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    up = sites.add("up")
    up.script("/robots.txt", Reply(200, b"User-agent: *\nAllow: /\n"))
    for p in range(5):
        up.script(f"/{p}", Reply(200, page, {"Content-Type": "text/html"}, delay=0.2))
    urls = [sites.url("down", "/1"), sites.url("down", "/2")]
    urls += [sites.url("up", f"/{p}") for p in range(5)]
    settings = {
        **BASE_SETTINGS,
        "JOBDIR": str(tmp_path / "job"),
        "REP_UNREACHABLE_MAX_WAIT": 600,
        "CONCURRENT_REQUESTS": 1,  # the pages of "up" wait in Scrapy's queue
        "REP_REPORT": True,
    }
    first = get_crawler(ListSpider, settings)
    running = first.crawl(urls=urls)
    held = robots_middleware
    await until(lambda: first.spider.downloaded and len(held(first).held) == 2)  # type: ignore[union-attr]
    await stop(first)
    await running
    down.script("/robots.txt", Reply(200, b"User-agent: *\nAllow: /\n"))
    second = get_crawler(ListSpider, settings)
    try:
        await second.crawl(urls=urls)
    finally:
        await sites.close()
    resumed = second.spider.downloaded  # type: ignore[union-attr]
    assert resumed
    [report] = [e for e in second.extensions.middlewares if isinstance(e, RepReport)]
    assert "item pipeline" not in report.text, report.text
    for url in resumed:
        assert f"  {url}\n    downloaded (200)\n" in report.text, report.text
    assert f"In short: {len(resumed)} requests ({len(resumed)} downloaded)" in report.text


@pytest_twisted.ensureDeferred
async def test_a_crawl_closed_early_with_jobdir_says_what_it_left_as_the_trail_keeps_it(
    tmp_path: Path,
) -> None:
    """CLOSESPIDER_PAGECOUNT with JOBDIR: Scrapy keeps its queue and scrapy_rep its held
    requests for the next run, and the trail keeps their records open (its end line's
    ``open``). The report said "In short: nothing happened" (it took only ``shutdown`` for
    a pause), leaving out every request the trail keeps."""
    from tests.support.audittrail import written_lines
    from tests.support.robotsite import Reply, Sites, crawl, robots

    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    for p in range(6):
        site.script(f"/{p}", Reply(200, b"<html>x</html>", {"Content-Type": "text/html"}))
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_REPORT": True,
        "REP_AUDIT_FILE": str(trail),
        "JOBDIR": str(tmp_path / "job"),
        "CLOSESPIDER_PAGECOUNT": 1,  # robots.txt's response is the first page counted
        "CONCURRENT_REQUESTS": 1,
    }
    try:
        crawler, _ = await crawl([sites.url("a", f"/{p}") for p in range(6)], settings)
    finally:
        await sites.close()
    end = written_lines(trail)[-1]
    assert end["reason"] == "closespider_pagecount"
    left = end["counts"]["open"]
    assert left >= 1
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    said = f"In short: ended (closespider_pagecount) with JOBDIR: {left} requests left ("
    assert said in report.text, report.text


class DropAfterThePagePass:
    """A project's spider middleware after the page pass (its order below the add-on's):
    it drops the item of ``/gone``, with no signal."""

    def process_spider_output(self, response: Any, result: Any, spider: Any = None) -> Any:
        for output in result:
            if not (isinstance(output, dict) and output["url"].endswith("/gone")):
                yield output

    async def process_spider_output_async(
        self, response: Any, result: Any, spider: Any = None
    ) -> Any:
        async for output in result:
            if not (isinstance(output, dict) and output["url"].endswith("/gone")):
                yield output


class DropInAPipeline:
    """A project's item pipeline that drops the item of ``/piped`` (``item_dropped``)."""

    def process_item(self, item: Any, spider: Any = None) -> Any:
        from scrapy.exceptions import DropItem

        if item["url"].endswith("/piped"):
            raise DropItem("not wanted")
        return item


@pytest_twisted.ensureDeferred
async def test_an_item_a_later_component_drops_is_not_kept_in_the_trail_nor_the_report(
    tmp_path: Path,
) -> None:
    """The page pass let each page's item through; the project's spider middleware after
    it dropped one, its item pipeline another. The trail's records and the report said
    "kept" of both (the page pass's word): kept is an item that reached the end of the
    crawl (``item_scraped``), as the URL ledger counts it; the others are
    ``items_not_kept``, and ``audit verify`` finds the trail clean."""
    from rep_audit.cli import main
    from tests.support.audittrail import by_url, written_lines
    from tests.support.robotsite import ItemSpider, Sites, crawl, robots

    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    paths = ("/kept", "/gone", "/piped")
    for path in paths:
        site.script(path, html_page(""))
    trail, report = tmp_path / "trail.jsonl", tmp_path / "report.txt"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_REPORT_FILE": str(report),
        "SPIDER_MIDDLEWARES": {f"{__name__}.DropAfterThePagePass": 100},
        "ITEM_PIPELINES": {f"{__name__}.DropInAPipeline": 300},
    }
    base = sites.bases["a"]
    try:
        _, spider = await crawl([base + path for path in paths], settings, ItemSpider)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(base + path for path in paths)
    records = by_url(trail)
    kept, gone, piped = (records[base + path] for path in paths)
    assert (kept["items_kept"], kept.get("items_not_kept")) == (1, None)
    for lost in (gone, piped):
        assert (lost["items_kept"], lost["items_dropped"], lost["items_not_kept"]) == (0, 0, 1)
    assert written_lines(trail)[-1]["type"] == "end"
    out = io.StringIO()
    assert main(["verify", str(trail)], out) == 0, out.getvalue()
    text = report.read_text()
    requested = sections(text)["URLs requested (the audit trail has a record of each request):"]
    assert requested[base + "/kept"] == "downloaded (200); 1 item kept"
    for path in ("/gone", "/piped"):
        said = requested[base + path]
        assert said == "downloaded (200); 1 item not kept by a component of the crawl", said
    assert text.rstrip().endswith(
        "In short: 3 requests (3 downloaded); 1 item kept, 2 not kept by a component of the crawl"
    ), text
    show = io.StringIO()
    assert main(["show", str(trail), base + "/gone"], show) == 0, show.getvalue()
    said = "items: 0 kept, 0 dropped, 1 not kept by a component of the crawl"
    assert said in show.getvalue(), show.getvalue()
    summary = io.StringIO()
    assert main(["summary", str(trail)], summary) == 0, summary.getvalue()
    said = "1 item(s) kept, 0 dropped, 2 not kept by a component of the crawl"
    assert said in summary.getvalue(), summary.getvalue()


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_page_replayed_from_the_http_cache_is_said_and_counted_as_a_replay(
    tmp_path: Path,
) -> None:
    """A crawl run again with Scrapy's HTTP cache (``HTTPCACHE_ENABLED``): its pages are
    replayed from the cache, nothing on the wire (the trail says ``attempts`` 0 and
    ``cached``). The report said "downloaded (200)" and counted them among the downloads.
    The report, its closing line, ``audit summary``, ``show`` and ``list`` say each is a
    replay from the cache, and count it so."""
    from tests.support.audittrail import by_url
    from tests.support.robotsite import ItemSpider, Sites, crawl, robots
    from tests.support.tools import audit_tool

    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    urls = [sites.url("a", path) for path in ("/1", "/2")]
    try:
        for run in ("first", "again"):
            trail, report = tmp_path / f"{run}.jsonl", tmp_path / f"{run}.txt"
            cache = {"HTTPCACHE_ENABLED": True, "HTTPCACHE_DIR": str(tmp_path / "cache")}
            settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT_FILE": str(report), **cache}
            crawler, _ = await crawl(urls, settings, ItemSpider)
    finally:
        await sites.close()
    assert crawler.stats.get_value("httpcache/hit") >= 2
    records = by_url(trail)
    assert [(records[u]["attempts"], "cached" in records[u]["page"]) for u in urls] == [
        (0, True)
    ] * 2
    text = report.read_text()
    for url in urls:
        assert (
            f"{url}\n    replayed from Scrapy's HTTP cache, not downloaded (200); 1 item kept\n"
            in text
        )
    assert "In short: 2 requests (2 replayed from the HTTP cache); 2 items kept" in text, text
    first = (tmp_path / "first.txt").read_text()
    assert "In short: 2 requests (2 downloaded); 2 items kept" in first, first
    status, out = audit_tool("summary", str(trail))
    assert status == 0 and "(2 fetched; of those fetched, 2 replayed from the HTTP cache)" in out
    status, out = audit_tool("show", str(trail), urls[0])
    assert status == 0 and "was replayed from Scrapy's HTTP cache after scrapy_rep's verdict" in out
    status, out = audit_tool("list", str(trail), "--format", "csv")
    assert out.count('fetched,"fetched, replayed from the HTTP cache"') == 2, out


class EveryRefusalSpider(Spider):
    """The pages of :func:`test_the_closing_lines_and_the_report_count_every_refusal_alike`:
    every link followed; the gallery page yields an item carrying an image URL."""

    name = "refusals"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = urls

    async def start(self) -> Any:
        for url in self.urls:
            yield Request(url)

    def parse(self, response: Any) -> Any:
        if response.url.endswith("/gallery"):
            yield {"url": response.url, "image_urls": [response.urljoin("/shown.png")]}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)


@pytest_twisted.ensureDeferred
async def test_the_closing_lines_and_the_report_count_every_refusal_alike(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each count is kept once, by its owner: the stats count refusals (the closing lines
    read them), the URL ledger counts records (the report's closing line reads it). One
    crawl with a request refused for every reason the closing lines name (before the
    scheduler and in the downloader; robots.txt and tdmrep.json given up on; a purpose's
    "no" before the fetch, an image of a ``noimageai`` page, an image URL its item
    carried) says the same number of each in both. The closing line said "denied for
    ai-train" of the requests refused before their fetch only, where the report counted
    the images of a ``noimageai`` page too."""
    from rep_engine.records import REASONS
    from tests.support.robotsite import HTML, Reply, Sites, crawl, links_page, robots

    sites = Sites()
    a = sites.add("a")
    a.script(
        "/robots.txt",
        robots("User-agent: *\nDisallow: /private\nContent-Usage: /noai train-ai=n\n"),
    )
    a.script("/", links_page("/private/1", "/private/2", "/noai/1", "/gallery"))
    gallery = '<html><head><meta name="robots" content="noimageai"></head><body>'
    a.script(
        "/gallery", Reply(200, f'{gallery}<a href="/pic.jpg">p</a></body></html>'.encode(), HTML)
    )
    sites.add("down").script("/robots.txt", Reply(503))
    t = sites.add("t")
    t.script("/robots.txt", Reply(404))
    t.script("/.well-known/tdmrep.json", Reply(503))
    urls = [sites.url("a", "/"), sites.url("a", "/private/0")]
    urls += [sites.url("down", "/x"), sites.url("t", "/x")]
    settings = {
        "REP_REPORT": True,
        "REP_PURPOSE": "ai-train",
        "REP_UNREACHABLE_ACTION": "drop",
        "REP_UNREACHABLE_MAX_WAIT": 1.0,
    }
    caplog.set_level(logging.INFO, logger="scrapy_rep")
    try:
        crawler, _ = await crawl(urls, settings, EveryRefusalSpider)
    finally:
        await sites.close()
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    [short] = [line for line in report.text.splitlines() if line.startswith("In short: ")]
    said = dict((words, int(n)) for n, words in (part.split(" ", 1) for part in _parts(short)))
    [closing] = [r.getMessage() for r in caplog.records if " not sent (" in r.getMessage()]
    not_sent = dict(
        (words, int(n.replace(",", "")))
        for n, words in (part.split(" ", 1) for part in _parts(closing))
    )
    named = {  # every reason of a request the closing lines name, and the report's words
        row.closing.format(purpose="ai-train"): row.report
        for row in REASONS.values()
        if row.closing and row.fate is not None
    }
    assert set(not_sent) == set(named), closing  # a refusal of every reason, said
    assert {words: said.get(report) for words, report in named.items()} == not_sent, short
    assert not_sent["denied for ai-train"] == 3  # /noai/1, /pic.jpg, /shown.png


def _parts(line: str) -> list[str]:
    """The ``N words`` parts of a closing line's first parentheses."""
    return line.split(" (", 1)[1].split(")", 1)[0].split(", ")
