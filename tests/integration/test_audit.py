"""The audit trail as evidence (docs/audit-trail.md), in real crawls against local sites:
one record per requested URL whatever the duplicates, retries, redirects and pauses; small
requests; a trail that cannot be written stops the crawl; the content an auditor needs."""

from __future__ import annotations

import gzip
import json
import logging
import pickle
import re
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, signals
from scrapy.utils.test import get_crawler

from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.settings.readers import RepSettingError
from scrapy_rep.crawl.audit.audit import AuditTrail
from scrapy_rep.crawl.auditing import ledger_of
from scrapy_rep.crawl.internals import error_line
from scrapy_rep.crawl.requeststate import state_of
from tests.support.audittrail import (
    by_url,
    chain_breaks,
    lines,
    paused_and_resumed,
    url_records,
    written_lines,
)
from tests.support.robotsite import (
    BASE_SETTINGS,
    HTML,
    ItemSpider,
    ListSpider,
    Reply,
    Sites,
    crawl,
    paused_once_queued,
    redirect,
    refused_at_start,
    robots,
)
from tests.support.workers import run_config

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


class MenuSpider(ListSpider):
    """Every page links to every page of a menu: the duplicates of an ordinary site."""

    menu: tuple[str, ...] = ()

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {"url": response.url}
        for path in self.menu:
            yield response.follow(path, callback=self.parse, errback=self.failed)


def menu_site(pages: int) -> tuple[Sites, list[str]]:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    paths = [f"/p{n}" for n in range(pages)] + ["/private/1", "/private/2"]
    return sites, paths


@pytest_twisted.ensureDeferred
async def test_duplicates_are_counted_not_recorded_and_memory_stays_flat(
    tmp_path: Path,
) -> None:
    sites, paths = menu_site(30)
    MenuSpider.menu = tuple(paths) * 3  # each page links to each page three times
    audit = tmp_path / "trail.jsonl"
    widest = [0]

    def watch(crawler: Any) -> None:
        def scheduled(**_: Any) -> None:
            trail = ledger_of(crawler)
            widest[0] = max(widest[0], len(trail.open) if trail else 0)

        crawler.signals.connect(scheduled, signal=signals.request_scheduled, weak=False)

    try:
        crawler, _ = await crawl(
            [sites.url("a", "/p0")], {"REP_AUDIT_FILE": str(audit)}, MenuSpider, watch
        )
    finally:
        await sites.close()
    records = by_url(audit)  # one record per URL
    assert sorted(records) == sorted(sites.url("a", path) for path in paths)
    assert Counter(r["fate"] for r in records.values()) == {"fetched": 30, "refused": 2}
    end = written_lines(audit)[-1]
    filtered = crawler.stats.get_value("dupefilter/filtered")
    assert filtered > 2000
    assert end["counts"]["duplicates_dropped"] == filtered
    assert crawler.stats.get_value("rep/audit/duplicates_dropped") == filtered
    assert widest[0] <= len(paths)  # never more open records than URLs
    trail = ledger_of(crawler)
    assert trail is not None and trail.open == {}


class UrlDupeFilter:
    """A dupefilter of the project's own (not Scrapy's RFPDupeFilter): by URL."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Any) -> UrlDupeFilter:
        return cls()

    def request_seen(self, request: Request) -> bool:
        if request.url in self.seen:
            return True
        self.seen.add(request.url)
        return False

    def open(self) -> None:
        pass

    def close(self, reason: str) -> None:
        pass

    def log(self, request: Request, spider: Any) -> None:
        pass


@pytest_twisted.ensureDeferred
async def test_another_dupefilters_drops_are_counted_not_recorded(tmp_path: Path) -> None:
    sites, paths = menu_site(10)
    MenuSpider.menu = tuple(paths) * 2
    audit = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(audit), "DUPEFILTER_CLASS": UrlDupeFilter}
    try:
        crawler, _ = await crawl([sites.url("a", "/p0")], settings, MenuSpider)
    finally:
        await sites.close()
    records = by_url(audit)
    assert sorted(records) == sorted(sites.url("a", path) for path in paths)
    # 10 pages x 24 links, less the 11 URLs let through the first time
    assert written_lines(audit)[-1]["counts"]["duplicates_dropped"] == 10 * 24 - 11
    trail = ledger_of(crawler)
    assert trail is not None and trail.open == {}


@pytest_twisted.ensureDeferred
async def test_retries_are_one_record_with_the_final_fate_and_attempts(
    tmp_path: Path,
) -> None:
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    a.script("/flaky", Reply(503), Reply(200, b"<html>ok</html>", HTML))
    a.script("/down", Reply(503))
    a.script("/then-reset", Reply(503), Reply(reset=True))
    a.script("/reset", Reply(reset=True))
    audit = tmp_path / "trail.jsonl"
    urls = [sites.url("a", p) for p in ("/flaky", "/down", "/then-reset", "/reset")]
    settings = {"REP_AUDIT_FILE": str(audit), "RETRY_ENABLED": True, "RETRY_TIMES": 2}
    try:
        crawler = get_crawler(ListSpider, {**BASE_SETTINGS, **settings})
        await crawler.crawl(urls=urls)
    finally:
        await sites.close()
    records = by_url(audit)
    assert sorted(records) == sorted(urls)
    flaky, down, then_reset, reset = (records[url] for url in urls)
    assert (flaky["fate"], flaky["attempts"], flaky["status"]) == ("fetched", 2, 200)
    # Scrapy hands the last 503 to the spider: fetched, with its status.
    assert (down["fate"], down["attempts"], down["status"]) == ("fetched", 3, 503)
    # A 503 then network errors: failed (a stale download_latency hid it before).
    assert (then_reset["fate"], then_reset["attempts"], then_reset["status"]) == ("failed", 3, None)
    assert "ResponseNeverReceived" in then_reset["why"] or "Connection" in then_reset["why"]
    assert (reset["fate"], reset["attempts"]) == ("failed", 3)
    assert written_lines(audit)[-1]["counts"]["failed"] == 2


class DownloadsOneMore(ListSpider):
    """Each page's callback has the engine download ``more`` itself (``download_async``)."""

    more = ""

    async def parse(self, response: Any) -> Any:
        from scrapy_rep.crawl.internals import download

        fetched = await download(self.crawler, Request(self.more, dont_filter=True))
        self.downloaded.append(fetched.url)
        yield {"url": response.url}


@pytest.mark.parametrize("path", ["/flaky", "/moved"])
@pytest_twisted.ensureDeferred
async def test_a_download_of_the_engine_is_one_record_over_retries_and_ends_at_a_redirect(
    tmp_path: Path, path: str
) -> None:
    """A request the engine downloads without scheduling it goes through the downloader
    middlewares again when retried or redirected: a retry is the same record (its
    attempts), a redirect ends its record (``redirected``, with ``to``) and the URL it
    redirected to has its own."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    a.script("/flaky", Reply(503), Reply(200, b"<html>ok</html>", HTML))
    a.script("/moved", redirect("/new"))
    audit = tmp_path / "trail.jsonl"

    class Spider(DownloadsOneMore):
        more = sites.url("a", path)

    try:
        await crawl([sites.url("a", "/page")],
                    {"REP_AUDIT_FILE": str(audit), "RETRY_ENABLED": True}, Spider)  # fmt: skip
    finally:
        await sites.close()
    records = {url: (r["fate"], r["attempts"], r["status"], r.get("to"), r.get("unscheduled"))
               for url, r in by_url(audit).items()}  # fmt: skip
    expected = {
        "/flaky": {sites.url("a", "/flaky"): ("fetched", 2, 200, None, True)},
        "/moved": {
            sites.url("a", "/moved"): ("redirected", 1, 301, sites.url("a", "/new"), True),
            sites.url("a", "/new"): ("fetched", 1, 200, None, True),
        },
    }[path]
    assert records == {sites.url("a", "/page"): ("fetched", 1, 200, None, None), **expected}


@pytest_twisted.ensureDeferred
async def test_a_redirected_request_carries_a_small_reference(tmp_path: Path) -> None:
    sites = Sites()
    a = sites.add("a")
    rules = "".join(f"Disallow: /secret/{n}/*.pdf$\n" for n in range(8000))  # ~230 KB
    a.script("/robots.txt", robots(f"User-agent: *\n{rules}"))
    a.script("/old", redirect("/new"))
    audit = tmp_path / "trail.jsonl"
    redirected: list[Request] = []

    def watch(crawler: Any) -> None:
        def scheduled(request: Request, **_: Any) -> None:
            if request.meta.get("redirect_urls"):
                redirected.append(request)

        crawler.signals.connect(scheduled, signal=signals.request_scheduled, weak=False)

    try:
        await crawl([sites.url("a", "/old")], {"REP_AUDIT_FILE": str(audit)}, on_crawler=watch)
    finally:
        await sites.close()
    assert len(redirected) == 1
    meta = {k: v for k, v in redirected[0].meta.items() if k != "download_slot"}
    assert len(pickle.dumps(meta)) < 2048  # was 188 KiB: the parsed robots.txt
    state = state_of(redirected[0])
    assert state is not None
    assert (state.audit, state.url) == (
        by_url(audit)[sites.url("a", "/new")]["id"],
        sites.url("a", "/new"),
    )


@pytest_twisted.ensureDeferred
async def test_jobdir_resume_one_record_per_url_never_a_forbidden_fetch(
    tmp_path: Path,
) -> None:
    sites, paths = menu_site(60)
    slow = sites.add("slow")  # its robots.txt answers late: requests are held at the pause
    slow.script("/robots.txt", Reply(200, b"User-agent: *\nDisallow: /private\n", delay=0.5))
    MenuSpider.menu = tuple(paths)
    starts = [sites.url("a", "/p0")] + [sites.url("slow", p) for p in paths]
    audit = tmp_path / "trail.jsonl"
    settings = {
        **BASE_SETTINGS,
        "REP_AUDIT_FILE": str(audit),
        "JOBDIR": str(tmp_path / "job"),
        "REP_MAX_HELD_REQUESTS": 5,
        "CONCURRENT_REQUESTS": 4,
    }
    try:  # pause once some pages are in (at most 20 s)
        await paused_and_resumed(MenuSpider, settings, starts, pause_after=10, wait=20)
    finally:
        await sites.close()
    records = url_records(audit)
    requested = {sites.url(name, p) for name in ("a", "slow") for p in paths}
    assert Counter(r["url"] for r in records) == Counter(requested)  # exactly one each
    assert len({r["id"] for r in records}) == len(records)
    for record in records:
        forbidden = "/private" in record["url"]
        assert record["fate"] == ("refused" if forbidden else "fetched"), record
    runs = [line for line in lines(audit) if line["type"] == "run"]
    assert len(runs) == 2 and runs[1]["resumes"] == runs[0]["run"]
    assert [line["reason"] for line in lines(audit) if line["type"] == "end"] == [
        "shutdown",
        "finished",
    ]
    assert chain_breaks(audit) == []
    first_run = [r for r in records if r["run"] == runs[0]["run"]]
    assert 0 < len(first_run) < len(records)


async def _paused_before_sending(settings: dict[str, Any], urls: list[str]) -> None:
    """A crawl with ``settings`` (a ``JOBDIR``) paused as it opens, stopped once its start
    requests are queued on disk: every one of them open at the pause."""
    await paused_once_queued(settings, urls, "disk")


@pytest_twisted.ensureDeferred
async def test_a_resume_without_the_paused_runs_trail_stops_at_start_or_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A crawl paused with its trail and resumed without ``REP_AUDIT_FILE`` sent the pages
    it carried on with no record ever naming them, silently. The crawl needs its trail
    (``REP_AUDIT_REQUIRED``, the default): it stops at start, naming the trail and how to
    resume it; with ``REP_AUDIT_REQUIRED = False`` a WARNING says what goes unrecorded."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    urls = [sites.url("a", f"/{n}") for n in range(12)]
    trail = tmp_path / "trail.jsonl"
    job = {"JOBDIR": str(tmp_path / "job")}
    try:
        await _paused_before_sending({**BASE_SETTINGS, **job, "REP_AUDIT_FILE": str(trail)}, urls)
        (end,) = (line for line in lines(trail) if line["type"] == "end")
        assert end["counts"]["open"] == len(urls)
        line = await refused_at_start(job, urls=urls)
        assert [path for path in sites.requested("a") if path != "/robots.txt"] == []
        caplog.clear()
        _, spider = await crawl(urls, {**job, "REP_AUDIT_REQUIRED": False})
    finally:
        await sites.close()
    assert line == (
        f"scrapy_rep: error: REP_AUDIT_FILE: the crawl in JOBDIR {job['JOBDIR']} was paused "
        f"with its audit trail {trail} (12 request(s) of it open), and this run has no "
        f"REP_AUDIT_FILE: what it sends would have no record; resume it with REP_AUDIT_FILE "
        f"= {str(trail)!r} (or another file), or set REP_AUDIT_REQUIRED = False to resume it "
        "without one"
    )
    assert sorted(spider.downloaded) == sorted(urls)  # resumed, without its trail
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("12 request(s) of it open" in m and "no record" in m for m in warned), warned


def _warned(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The WARNING lines of a crawl, in either mode (each runs in this process)."""
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_resume_without_the_paused_runs_state_still_names_its_trail(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A crawl paused with its trail whose saved state is gone (a killed run leaves none)
    and resumed without ``REP_AUDIT_FILE`` sent the pages it carried on with no record,
    without a word. The trail its first run had (the settings ``JOBDIR`` keeps) is named:
    the crawl stops at start, or with ``REP_AUDIT_REQUIRED = False`` a WARNING says so."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    urls = [sites.url("a", f"/{n}") for n in range(4)]
    trail = tmp_path / "trail.jsonl"
    job = {"JOBDIR": str(tmp_path / "job")}
    try:
        await _paused_before_sending({**BASE_SETTINGS, **job, "REP_AUDIT_FILE": str(trail)}, urls)
        (tmp_path / "job" / "scrapy_rep.audit.json").unlink()
        line = await refused_at_start(job, urls=urls)
        caplog.clear()
        _, spider = await crawl(urls, {**job, "REP_AUDIT_REQUIRED": False})
    finally:
        await sites.close()
    assert line.startswith(
        f"scrapy_rep: error: REP_AUDIT_FILE: the crawl in JOBDIR {job['JOBDIR']} was paused "
        f"with its audit trail {trail} (its saved state is gone), and this run has no "
        "REP_AUDIT_FILE: what it sends would have no record; resume it with REP_AUDIT_FILE"
    ), line
    assert sorted(spider.downloaded) == sorted(urls)  # resumed, without its trail
    warned = _warned(caplog)
    assert any(f"audit trail {trail} (its saved state is gone)" in m for m in warned), warned


@pytest.mark.trail_not_verified("the resumed run's trail lacks its paused run, on purpose")
@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_resume_whose_paused_trail_is_missing_says_so_and_records_its_requests(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A crawl paused with its trail, resumed with another ``REP_AUDIT_FILE`` while the
    paused run's trail is gone: nothing said it. A WARNING at start names the missing
    trail, and every request the paused run left open has its record in the new one."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    urls = [sites.url("a", f"/{n}") for n in range(4)]
    trail, other = tmp_path / "trail.jsonl", tmp_path / "other.jsonl"
    job = {"JOBDIR": str(tmp_path / "job")}
    try:
        await _paused_before_sending({**BASE_SETTINGS, **job, "REP_AUDIT_FILE": str(trail)}, urls)
        trail.rename(tmp_path / "moved.jsonl")
        caplog.clear()
        await crawl(urls, {**job, "REP_AUDIT_FILE": str(other)})
    finally:
        await sites.close()
    said = (
        f"scrapy_rep: the crawl in JOBDIR {job['JOBDIR']} was paused with its audit trail "
        f"{trail}, which is missing: this run's records (the 4 request(s) it left open among "
        f"them) are in {other} alone, without its earlier runs' records"
    )
    warned = _warned(caplog)
    assert any(said in m for m in warned), warned
    assert sorted(by_url(other)) == sorted(urls)


# --------------------------------------------------------------------------- fail fast


def unusable(tmp_path: Path, kind: str) -> Path:
    if kind == "directory":
        return tmp_path
    if kind == "under a file":
        (tmp_path / "file").write_text("x")
        return tmp_path / "file" / "trail.jsonl"
    path = tmp_path / "read-only.jsonl"
    path.write_text("")
    path.chmod(0o444)
    return path


@pytest.mark.parametrize("kind", ["directory", "under a file", "read-only"])
@pytest.mark.parametrize("setting", ["REP_AUDIT_FILE", "REP_REPORT_FILE"])
@pytest_twisted.ensureDeferred
async def test_an_unusable_output_file_stops_the_crawl_at_start(
    tmp_path: Path, kind: str, setting: str
) -> None:
    """One line naming the setting and the file (``scrapy`` prints it alone and exits 2:
    tests/integration/test_setting_names.py), in this process."""
    path = unusable(tmp_path, kind)
    given = {setting: str(path), "REP_REPORT": "True"}  # as -s gives them
    line = await refused_at_start(given, {"ADDONS": {"scrapy_rep.Addon": 0}}, urls=())
    assert line.startswith(f"scrapy_rep: error: {setting}: {path}")
    assert "\n" not in line
    with pytest.raises(RepSettingError, match=setting):
        get_crawler(ListSpider, {**BASE_SETTINGS, setting: str(path), "REP_REPORT": True})


@pytest_twisted.ensureDeferred
async def test_a_write_error_closes_the_spider_saying_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    urls = [sites.url("a", f"/{n}") for n in range(20)]
    crawler = get_crawler(ListSpider, {**BASE_SETTINGS, "REP_AUDIT_FILE": "/dev/full"})
    try:
        await crawler.crawl(urls=urls)
    finally:
        await sites.close()
    assert crawler.stats is not None
    assert crawler.stats.get_value("finish_reason") == "audit_trail_unwritable"
    assert crawler.stats.get_value("rep/audit/write_errors") == 1
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "REP_AUDIT_FILE" in errors[0].getMessage()
    assert errors[0].exc_info is None  # one line, no traceback
    assert crawler.spider is not None and len(crawler.spider.downloaded) < len(urls)


@pytest_twisted.ensureDeferred
async def test_audit_not_required_the_crawl_goes_on_without_its_trail(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    urls = [sites.url("a", f"/{n}") for n in range(20)]
    settings = {"REP_AUDIT_FILE": "/dev/full", "REP_AUDIT_REQUIRED": False}
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(urls)
    assert crawler.stats.get_value("finish_reason") == "finished"
    warnings = [r for r in caplog.records if "REP_AUDIT_FILE" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelname == "WARNING"


#: A collection written earlier (an items feed), named as the trail by mistake.
COLLECTION = b'{"url": "https://x.example/1", "title": "t"}\n'


@pytest.mark.parametrize("required", [True, False])
@pytest_twisted.ensureDeferred
async def test_a_trail_is_not_chained_onto_a_collection(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, required: bool
) -> None:
    """Required, the crawl stops at start naming the file; not required, it goes on
    without its trail, said once; the collection is left as it was either way."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    items = tmp_path / "items.jsonl"
    items.write_bytes(COLLECTION)
    settings = {"REP_AUDIT_FILE": str(items), "REP_AUDIT_REQUIRED": required}
    try:
        if required:
            with pytest.raises(RepSettingError, match=r"^REP_AUDIT_FILE: .* is not an audit trail"):
                await crawl([sites.url("a", "/p")], settings)
        else:
            _, spider = await crawl([sites.url("a", "/p")], settings)
            assert spider.downloaded == [sites.url("a", "/p")]
    finally:
        await sites.close()
    assert items.read_bytes() == COLLECTION
    if not required:
        [warning] = [r for r in caplog.records if "REP_AUDIT_FILE" in r.getMessage()]
        assert warning.levelname == "WARNING" and "is not an audit trail" in warning.getMessage()


@pytest_twisted.ensureDeferred
async def test_a_trail_that_is_a_feed_of_the_same_crawl_is_refused(tmp_path: Path) -> None:
    """``FEEDS`` and ``REP_AUDIT_FILE`` naming one file (a careless copy of one path): the
    items were written between the trail's lines (the other spellings of the feed:
    tests/crawl/test_startup_files.py)."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    both = tmp_path / "items.jsonl"
    settings = {"REP_AUDIT_FILE": str(both), "FEEDS": {both.as_uri(): {"format": "jsonlines"}}}
    try:
        with pytest.raises(RepSettingError, match=r"^REP_AUDIT_FILE: .* is also the feed "):
            await crawl([sites.url("a", "/p")], settings, ItemSpider)
    finally:
        await sites.close()
    assert not both.exists()


# --------------------------------------------------------------------------- content


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_header_times_snapshots_chain_and_a_second_run_chained_on(
    tmp_path: Path, name: str
) -> None:
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    sites.add("none")  # no robots.txt: 404, everything allowed
    audit = tmp_path / name
    urls = [sites.url("a", "/x"), sites.url("a", "/private/y"), sites.url("none", "/z")]
    settings = {"REP_AUDIT_FILE": str(audit), "REP_CACHE_TTL": 3600}
    try:
        await crawl(urls, settings)
        await crawl(urls, settings)
    finally:
        await sites.close()
    everything = lines(audit)
    assert [line["type"] for line in everything].count("run") == 2
    assert [line["type"] for line in everything].count("end") == 2
    assert chain_breaks(audit) == []  # the second run chains on from the first
    header = everything[0]
    assert header["schema"] == 3 and re.fullmatch(r"[0-9a-f]{32}", header["run"])
    assert header["user_agent"] == BASE_SETTINGS["USER_AGENT"]
    # its queue is this process's alone: another trail's crawl is not one of its workers
    assert header["scheduler"] == "scrapy.core.scheduler.Scheduler"
    assert header["settings"]["REP_CACHE_TTL"] == 3600 and "REP_PROFILE" in header["settings"]
    assert header["standards"]["robots.txt"].startswith("RFC 9309")
    assert all(ISO.match(line["time"]) for line in everything)
    snapshots = {line["sha256"]: line for line in everything if line["type"] == "snapshot"}
    folder = tmp_path / f"{name}.d"
    for record in url_records(audit):
        snapshot = snapshots[record["robots"]["snapshot"]]
        assert (folder / snapshot["sha256"]).exists()
        assert ISO.match(snapshot["fetched"]) and snapshot["kind"] == "robots.txt"
    robots_a = (folder / by_url_first(audit, urls[1])["robots"]["snapshot"]).read_bytes()
    assert robots_a == b"User-agent: *\nDisallow: /private\n"
    if name.endswith(".gz"):  # one gzip member per line: a cut file loses one line
        data = audit.read_bytes()
        cut = data[: last_member_start(data)]
        (tmp_path / "cut.gz").write_bytes(cut)
        assert len(gzip.decompress(cut).splitlines()) == len(everything) - 1


@pytest_twisted.ensureDeferred
async def test_the_run_header_says_whether_scrapys_remote_control_was_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Scrapy 2.19's RemoteControl (on by default; Scrapy's test crawler turns it off) lets
    a local client run code inside the crawl: the header's settings say what the crawl had,
    so a trail kept as evidence says whether that door was open; and the crawl warns as it
    starts, naming the setting that closes it."""
    from scrapy.settings import default_settings

    if not hasattr(default_settings, "REMOTE_CONTROL_ENABLED"):  # pragma: no cover
        pytest.skip("this Scrapy has no RemoteControl (tests/settings/test_in_force.py)")
    assert default_settings.REMOTE_CONTROL_ENABLED is True  # a crawl's default
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    url = sites.url("a", "/x")
    on = {
        "REP_AUDIT_FILE": str(tmp_path / "on.jsonl"),
        "REMOTE_CONTROL_ENABLED": True,
        "REMOTE_CONTROL_JOBS_DIR": str(tmp_path / "jobs"),  # its job file, not the user's
    }
    warned = "scrapy_rep: REMOTE_CONTROL_ENABLED is on while the crawl writes its audit trail"
    try:
        with caplog.at_level(logging.WARNING, logger="scrapy_rep"):
            crawler, _ = await crawl([url], on)
            said = [r for r in caplog.records if r.getMessage().startswith(warned)]
            assert [r.levelno for r in said] == [logging.WARNING], caplog.messages
            assert "set REMOTE_CONTROL_ENABLED = False" in said[0].getMessage()
            caplog.clear()
            await crawl([url], {"REP_AUDIT_FILE": str(tmp_path / "off.jsonl")})
            assert not [m for m in caplog.messages if m.startswith(warned)]
    finally:
        await sites.close()
    assert any(type(e).__name__ == "RemoteControl" for e in crawler.extensions.middlewares)
    header = lines(tmp_path / "on.jsonl")[0]
    assert header["type"] == "run" and header["settings"]["REMOTE_CONTROL_ENABLED"] is True
    header = lines(tmp_path / "off.jsonl")[0]
    assert header["settings"]["REMOTE_CONTROL_ENABLED"] is False


def last_member_start(data: bytes) -> int:
    """Where the last gzip member of ``data`` starts, found by decompressing member after
    member (a search for the gzip magic bytes could land inside compressed data)."""
    start = offset = 0
    while offset < len(data):
        start = offset
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        member.decompress(data[offset:])
        offset = len(data) - len(member.unused_data)
    return start


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_new_trail_beside_an_old_snapshot_folder_has_its_snapshot_lines(
    tmp_path: Path,
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    audit = tmp_path / "trail.jsonl"
    urls = [sites.url("a", "/x")]
    try:
        await crawl(urls, {"REP_AUDIT_FILE": str(audit)})
        audit.unlink()  # a new file of the same name; trail.jsonl.d stays
        await crawl(urls, {"REP_AUDIT_FILE": str(audit)})
    finally:
        await sites.close()
    kinds = [line["type"] for line in lines(audit)]
    assert kinds == ["run", "snapshot", "url", "end", "site", "head"]


def by_url_first(path: Path, url: str) -> dict[str, Any]:
    return next(record for record in url_records(path) if record["url"] == url)


@pytest.mark.trail_not_verified("lines of no run, written to test the chain")
def test_tampering_breaks_the_chain(tmp_path: Path) -> None:
    audit = tmp_path / "t.jsonl"
    from rep_engine.trail.file import TrailFile

    trail = TrailFile(audit)
    for n in range(5):
        trail.write({"type": "url", "n": n})
    trail.close()
    assert chain_breaks(audit) == []
    original = audit.read_bytes()
    audit.write_bytes(original.replace(b'"n":2', b'"n":7'))
    assert chain_breaks(audit) == [3]
    kept = original.splitlines(keepends=True)
    audit.write_bytes(b"".join(kept[:2] + kept[3:]))
    assert chain_breaks(audit) == [2]
    json.loads(kept[0])


# --------------------------------------------------------------------------- 10,000 URLs


def plan_10000(sites: Sites, origins: int = 10, per_origin: int = 1000) -> dict[str, str]:
    """URL -> expected fate: pages, forbidden pages, redirects (whose targets are requested
    URLs too) and pages that answer 503 once."""
    expected = {}
    for o in range(origins):
        name = f"o{o}"
        origin = sites.add(name)
        origin.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
        for n in range(per_origin):
            if n % 10 in (0, 2, 5, 7, 9):  # refused before any download: cheap to crawl
                expected[sites.url(name, f"/private/{n}")] = "refused"
            elif n % 25 == 1:
                origin.script(f"/r{n}", redirect(f"/t{n}"))
                expected[sites.url(name, f"/r{n}")] = "redirected"
                expected[sites.url(name, f"/t{n}")] = "fetched"
            elif n % 50 == 3:
                origin.script(f"/f{n}", Reply(503), Reply(200, b"<html>back</html>", HTML))
                expected[sites.url(name, f"/f{n}")] = "fetched"
            else:
                expected[sites.url(name, f"/p{n}")] = "fetched"
    return expected


@pytest.mark.parametrize(
    "per_origin, pause_after",
    [
        pytest.param(100, 200, id="1000"),
        # About 3.5 minutes on a busy 2-core machine: the same as the run above, 10 times over.
        pytest.param(1000, 2000, id="10000", marks=pytest.mark.soak(cost="about 3.5 min")),
    ],
)
@pytest_twisted.ensureDeferred
async def test_urls_paused_and_resumed_one_final_record_each(
    tmp_path: Path, per_origin: int, pause_after: int
) -> None:
    """10 origins of ``per_origin`` URLs each (1,000 in the suite; 10,000 in the soak run),
    paused after ``pause_after`` downloads (about 40 % of them) and resumed."""
    from rep_engine.robotstxt import parse_robotstxt

    sites = Sites()
    expected = plan_10000(sites, per_origin=per_origin)
    starts = [url for url in expected if "/t" not in url]
    starts += starts[::3]  # duplicates: dropped by the dupefilter, never recorded
    audit = tmp_path / "trail.jsonl.gz"
    settings = {
        **BASE_SETTINGS,
        "REP_AUDIT_FILE": str(audit),
        "JOBDIR": str(tmp_path / "job"),
        "RETRY_ENABLED": True,
        "RETRY_TIMES": 2,
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "LOG_LEVEL": "WARNING",
    }
    try:  # pause a third of the way (at most 60 s)
        await paused_and_resumed(ListSpider, settings, starts, pause_after=pause_after, wait=60)
    finally:
        await sites.close()
    records = url_records(audit)
    assert Counter(r["url"] for r in records) == Counter(list(expected))  # one each
    assert {r["url"]: r["fate"] for r in records} == expected
    assert len({r["id"] for r in records}) == len(records) == len(expected) >= 10 * per_origin
    flaky = [r for r in records if "/f" in r["url"]]
    assert flaky and all(r["attempts"] == 2 and r["status"] == 200 for r in flaky)
    assert all(r["to"] == r["url"].replace("/r", "/t") for r in records if "/r" in r["url"])
    everything = lines(audit)
    assert chain_breaks(audit) == []
    runs = [line for line in everything if line["type"] == "run"]
    assert len(runs) == 2 and runs[1]["resumes"] == runs[0]["run"]
    ends = [line for line in everything if line["type"] == "end"]
    assert sum(end["counts"]["duplicates_dropped"] for end in ends) >= len(starts[::3]) // 4
    assert 0 < sum(r["run"] == runs[0]["run"] for r in records) < len(records)
    # Every decision re-derived from its snapshot agrees with the record.
    folder = tmp_path / "trail.jsonl.gz.d"
    parsed = {sha.name: parse_robotstxt(sha.read_bytes()) for sha in folder.iterdir()}
    for record in records:
        robots_part = record["robots"]
        allowed = parsed[robots_part["snapshot"]].decide(record["url"], robots_part["agent"])
        assert allowed.allowed == (record["fate"] != "refused"), record
        assert allowed.line == robots_part.get("line"), record


@pytest.mark.trail_not_verified("a full disk cuts the trail")
@pytest_twisted.ensureDeferred
async def test_a_full_disk_mid_crawl_keeps_the_pages_already_fetched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import errno

    from rep_engine.trail.file import TrailFile

    write = TrailFile.write

    def filling(self: TrailFile, record: dict[str, Any]) -> None:
        if self.lines >= 6:  # the run line, a snapshot, then four records
            raise OSError(errno.ENOSPC, "No space left on device")
        write(self, record)

    monkeypatch.setattr(TrailFile, "write", filling)
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    urls = [sites.url("a", f"/{n}") for n in range(200)]
    items: list[Any] = []
    audit = tmp_path / "trail.jsonl"
    settings = {**BASE_SETTINGS, "REP_AUDIT_FILE": str(audit), "CONCURRENT_REQUESTS": 2}

    class ItemSpider(ListSpider):
        def parse(self, response: Any) -> Any:
            self.downloaded.append(response.url)
            yield {"url": response.url}

    crawler = get_crawler(ItemSpider, settings)
    crawler.signals.connect(lambda item, **_: items.append(item), signals.item_scraped, weak=False)
    try:
        await crawler.crawl(urls=urls)
    finally:
        await sites.close()
    assert crawler.stats is not None and crawler.spider is not None
    assert crawler.stats.get_value("finish_reason") == "audit_trail_unwritable"
    assert crawler.stats.get_value("rep/audit/write_errors") >= 1
    assert crawler.stats.get_value("log_count/ERROR") == 1
    downloaded = crawler.spider.downloaded
    assert 4 <= len(downloaded) < len(urls)
    assert sorted(item["url"] for item in items) == sorted(downloaded)  # output kept
    assert len(url_records(audit)) == 4


def test_a_snapshot_folder_that_is_a_file_stops_the_crawl_at_start(tmp_path: Path) -> None:
    (tmp_path / "trail.jsonl.d").write_text("not a folder")
    audit = tmp_path / "trail.jsonl"
    with pytest.raises(RepSettingError, match=r"REP_AUDIT_FILE: .*trail.jsonl.d is not a folder"):
        get_crawler(ListSpider, {**BASE_SETTINGS, "REP_AUDIT_FILE": str(audit)})


def test_a_trail_whose_last_line_is_cut_cannot_be_chained_on(tmp_path: Path) -> None:
    audit = tmp_path / "trail.jsonl"
    audit.write_bytes(b'{"type":"run","prev":""}\n{"type":"url","pr')
    with pytest.raises(RepSettingError, match=r"REP_AUDIT_FILE: .* cut line"):
        get_crawler(ListSpider, {**BASE_SETTINGS, "REP_AUDIT_FILE": str(audit)})


@pytest.mark.trail_not_verified("snapshot lines written without a run")
def test_snapshots_keep_no_body_alive(tmp_path: Path) -> None:
    """The trail remembers snapshot names, never bodies: REP_CACHE_MAX_BYTES holds."""
    import hashlib
    import os
    import tracemalloc
    import zlib

    from rep_engine.fetch.cache import CacheEntry
    from scrapy_rep.crawl.audit.audit import url_ledger

    crawler = get_crawler(ListSpider, {"REP_AUDIT_FILE": str(tmp_path / "t.jsonl")})
    trail = url_ledger(crawler)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for n in range(300):
        body = os.urandom(100_000)
        entry: CacheEntry[None] = CacheEntry(
            None, "200", 0.0, 1.0, 1.0, 200, zlib.compress(body),
            sha256=hashlib.sha256(body).hexdigest(),
        )  # fmt: skip
        trail.writer.snapshot(ROBOTS_TXT, f"http://o{n}", entry)
        del entry, body
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    trail.writer.close()
    assert kept < 2_000_000  # 300 bodies of 100 KB went by
    assert len(list((tmp_path / "t.jsonl.d").iterdir())) == 300


@pytest_twisted.ensureDeferred
async def test_requests_held_when_the_spider_closes_are_refused_closed(
    tmp_path: Path,
) -> None:
    sites = Sites()
    sites.add("down").script("/robots.txt", Reply(503))  # held, retried later
    urls = [sites.url("down", f"/{n}") for n in range(3)]
    audit = tmp_path / "trail.jsonl"
    settings = {
        **BASE_SETTINGS,
        "REP_AUDIT_FILE": str(audit),
        "CLOSESPIDER_TIMEOUT": 1,
        "REP_UNREACHABLE_RETRY_DELAY": 30,
        "REP_UNREACHABLE_MAX_WAIT": 600,
    }
    crawler = get_crawler(ListSpider, settings)
    try:
        await crawler.crawl(urls=urls)
    finally:
        await sites.close()
    records = by_url(audit)
    assert sorted(records) == sorted(urls)
    for record in records.values():
        assert (record["fate"], record["refused_by"]) == ("refused", "closed"), record
        assert record["held"] == 1
    assert written_lines(audit)[-1]["reason"] == "closespider_timeout"


@pytest_twisted.ensureDeferred
async def test_the_trail_keeps_the_cache_within_rep_cache_max_bytes(
    tmp_path: Path,
) -> None:
    """50 origins with distinct 80 KB robots.txt files (4 MB, about 2.6 MB compressed)
    under REP_CACHE_MAX_BYTES = 1 MB: after the crawl the trail keeps none of them alive
    (an lru_cache of SHA-256 by compressed body kept them all: 2.6 MB more than the cache;
    about 0.56 MB is kept in a process of its own). Each file is 260 rules of 300
    characters: under tracemalloc every small object a parse makes costs, and 2,600
    rules of 30 characters (and 64 frames of tracemalloc) made the crawl 80 s long
    alone; 16 frames 12 s; 4 frames after an untraced warm-up crawl of 8 other origins
    (which imports what the crawl imports on first use) 3 s, the bytes the same (a list
    keeping every stored body fails it: 4.6 MB).

    Measured in a crawler process of its own, blocks allocated by an import left out: in
    the suite's long-lived worker, what other code allocated during the crawl depends on
    the tests before it (a module imported for the first time then), and it was counted
    as kept too (5.2 MB once, on Python 3.13 in CI; 1.35 MB every time in a
    process of its own, where the first import of aiohttp alone is a 1.9 MB block). The
    download timeout is long: tracemalloc slows a busy machine's crawl a lot."""
    import random

    rng = random.Random(20)
    sites = Sites()
    urls = []
    for n in range(50):
        rules = "".join(
            f"Disallow: /{''.join(rng.choices('abcdefghijklmnopqrstuvwxyz0123456789', k=300))}\n"
            for _ in range(260)
        )
        sites.add(f"o{n}").script("/robots.txt", robots(f"User-agent: *\n{rules}"))
        urls.append(sites.url(f"o{n}", "/page"))
    warm_up = []  # other origins, other files: nothing of theirs is the crawl's
    for n in range(8):
        sites.add(f"w{n}").script("/robots.txt", robots(f"User-agent: *\nDisallow: /w{n}\n"))
        warm_up.append(sites.url(f"w{n}", "/page"))
    settings = {
        "REP_AUDIT_FILE": str(tmp_path / "trail.jsonl"),
        "REP_CACHE_MAX_BYTES": 1_000_000,
        "REP_CACHE_MAX_ORIGINS": 5,
        "CONCURRENT_REQUESTS": 32,
        "DOWNLOAD_TIMEOUT": 120,
        "LOG_LEVEL": "INFO",
    }
    try:
        # Blocks over 20 KB still alive: robots.txt bodies, compressed or not (imports
        # and the crawl's small objects are left out).
        warm = {"REP_AUDIT_FILE": str(tmp_path / "warm-up.jsonl")}
        result = await run_config(
            {
                "urls": urls,
                "settings": settings,
                "kept_over": 20_000,
                "warm_up": {"urls": warm_up, "settings": warm},
            }
        )
    finally:
        await sites.close()
    assert result["downloaded"] == sorted(urls)
    assert len(list((tmp_path / "trail.jsonl.d").iterdir())) == 50  # every body stored
    assert result["stats"]["rep/robotstxt/cache_evictions"] > 0
    kept = result["kept"]
    # The 1 MB cache; about 3.6 MB if the trail kept them.
    assert kept["bytes"] < 1_500_000, json.dumps(kept, indent=1)


class _IgnoresMissing:
    """A project's downloader middleware that ignores 404 responses (``process_response``
    raising IgnoreRequest: Scrapy then calls no ``process_exception``)."""

    def process_response(self, request: Request, response: Any, spider: Any = None) -> Any:
        if response.status == 404:
            from scrapy.exceptions import IgnoreRequest

            raise IgnoreRequest("ignored: 404")
        return response


class _FailsOnMissing:
    """A project's downloader middleware whose ``process_response`` fails on a 404 (a
    bug of its own: ValueError)."""

    def process_response(self, request: Request, response: Any, spider: Any = None) -> Any:
        if response.status == 404:
            raise ValueError("cannot read a 404")
        return response


def _missing_page_crawled(
    tmp_path: Path, middleware: type, priority: int = 600
) -> tuple[Sites, Path, dict[str, Any]]:
    """A site whose ``/missing`` is a 404, and the settings of a crawl of it with a trail,
    the report and ``middleware`` at ``priority``."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    site.script("/missing", Reply(404, b"no"))
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_REPORT": True,
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}.{middleware.__name__}": priority},
    }
    return sites, trail, settings


def _told_alike(
    trail: Path,
    url: str,
    report: str,
    why: str,
    short: str = "1 request (1 response dropped)",
    summary: str = "1 requested URL(s) (1 failed)",
) -> None:
    """The trail's record of ``url`` is ``failed`` with its response's status (404) and
    ``why``; ``audit verify`` takes it, and the report (its line says that ``why``, as the
    trail and ``audit show`` do; ``short``: its closing line's count), ``audit show`` and
    ``audit summary`` (``summary``: its count) say that fate of it. The trail holds that
    one record unless ``short`` counts more requests."""
    import io

    from rep_audit.cli import main

    records = url_records(trail)
    if short.startswith("1 request "):
        assert len(records) == 1, records
    [record] = [record for record in records if record["url"] == url]
    assert (record["fate"], record["status"], record["why"]) == ("failed", 404, why), record
    assert "unfinished" not in report and "before its fate was known" not in report
    line = f"  {url}\n    downloaded (404), then dropped by a downloader middleware: {why}\n"
    assert line in report, report
    assert f"In short: {short}" in report, report
    out = io.StringIO()
    assert main(["verify", str(trail)], out) == 0, out.getvalue()
    out = io.StringIO()
    assert main(["show", str(trail), url], out) == 0, out.getvalue()
    said = f"{url} failed: its response was dropped by a downloader middleware"
    said += f" (1 attempt, HTTP 404): {why}"
    assert said in out.getvalue(), out.getvalue()
    out = io.StringIO()
    assert main(["summary", str(trail)], out) == 0, out.getvalue()
    assert summary in out.getvalue(), out.getvalue()


@pytest_twisted.ensureDeferred
async def test_a_response_a_middleware_ignored_is_not_unfinished(tmp_path: Path) -> None:
    """A 404 came, and a downloader middleware's ``process_response`` ignored it
    (IgnoreRequest): the crawl finished with the request's fate known to Scrapy (its
    errback ran). The trail and the report said "unfinished: the crawl ended (finished)
    before its fate was known", status none, of a request that had a response. Now it is
    ``failed`` (as an IgnoreRequest that reaches the audit middleware is), with its
    status: told once the scraper is through with the failure."""
    from scrapy_rep.crawl.report import RepReport

    sites, trail, settings = _missing_page_crawled(tmp_path, _IgnoresMissing)
    try:
        crawler, spider = await crawl([sites.url("a", "/missing")], settings)
    finally:
        await sites.close()
    assert spider.dropped == {sites.url("a", "/missing"): "ignored: 404"}
    [record] = url_records(trail)
    assert record["fate"] != "unfinished", record
    # read on the failure's traceback, which pytest-twisted keeps on Scrapy 2.13 too (a
    # crawl outside it has none there: null; docs/decisions.md)
    assert record["status"] == 404, record
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    assert "unfinished" not in report.text and "before its fate was known" not in report.text
    why = "IgnoreRequest: ignored: 404"
    _told_alike(trail, sites.url("a", "/missing"), report.text, why)
    assert crawler.stats.get_value("rep/audit/errors") is None


@pytest.mark.parametrize("priority", [600, 5], ids=["inside the audit middleware", "outside it"])
@pytest_twisted.ensureDeferred
async def test_a_response_a_middleware_failed_on_is_not_unfinished(
    tmp_path: Path, priority: int
) -> None:
    """A downloader middleware's ``process_response`` raised another exception than
    IgnoreRequest on a 404 (its own bug), inside the audit middleware or outside it (its
    ``process_response`` saw the response, and is not the last): the record is ``failed``
    with its status, the exception reaches the spider's errback as it was raised, and
    nothing of ours fails."""
    from scrapy_rep.crawl.report import RepReport

    sites, trail, settings = _missing_page_crawled(tmp_path, _FailsOnMissing, priority)
    try:
        crawler, spider = await crawl([sites.url("a", "/missing")], settings)
    finally:
        await sites.close()
    assert spider.dropped == {sites.url("a", "/missing"): "cannot read a 404"}
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    why = "ValueError: cannot read a 404"
    _told_alike(trail, sites.url("a", "/missing"), report.text, why)
    assert crawler.stats.get_value("rep/audit/errors") is None


class _IgnoresWithAFileName:
    """A project's downloader middleware that ignores a request naming a file in its
    message, as ``os.fsdecode`` gives a name that is not UTF-8 (a lone surrogate)."""

    def process_request(self, request: Request, spider: Any = None) -> None:
        from scrapy.exceptions import IgnoreRequest

        raise IgnoreRequest(
            "already saved as " + b"caf\xe9.html".decode("utf-8", "surrogateescape")
        )


@pytest_twisted.ensureDeferred
async def test_a_failure_whose_message_is_not_utf8_is_recorded_and_reaches_the_spider(
    tmp_path: Path,
) -> None:
    """The failure's message (the record's ``why``) holds a lone surrogate: the trail
    could not encode the line (UnicodeEncodeError, not an OSError), the record was lost
    (taken out of the open ones before the write), and the error escaped the audit
    middleware's ``process_exception``, so the spider's errback got a UnicodeEncodeError
    instead of the IgnoreRequest."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}._IgnoresWithAFileName": 600},
    }
    url = sites.url("a", "/x")
    try:
        crawler, spider = await crawl([url], settings)
    finally:
        await sites.close()
    assert spider.dropped[url].startswith("already saved as caf"), spider.dropped
    [record] = url_records(trail)
    assert record["fate"] == "failed" and record["why"].startswith("IgnoreRequest: already")
    assert crawler.stats.get_value("rep/audit/errors") is None


class _FetchesWhileResponding:
    """A project's downloader middleware whose ``process_response`` of ``/outer`` awaits a
    download of its own (``engine.download_async``: a captcha, a token) of ``/missing``,
    which :class:`_IgnoresMissing` drops: the IgnoreRequest leaves ``/outer``'s
    ``process_response`` too."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> _FetchesWhileResponding:
        return cls(crawler)

    async def process_response(self, request: Request, response: Any, spider: Any = None) -> Any:
        if request.url.endswith("/outer"):
            inner = Request(request.url.replace("/outer", "/missing"), dont_filter=True)
            await self.crawler.engine.download_async(inner)
        return response


@pytest_twisted.ensureDeferred
async def test_a_response_dropped_while_its_middleware_awaited_another_has_its_own_status(
    tmp_path: Path,
) -> None:
    """The response a middleware's ``process_response`` was handed when it raised is read
    on the failure's traceback, which here holds two loops over those methods: the
    request's (``/outer``, a 200) and, deeper, that of the download the middleware
    awaited (``/missing``, a 404), whose IgnoreRequest left both. The deepest was taken:
    ``/outer``'s record said the 404 of another response."""
    from scrapy_rep.crawl.internals import SCRAPY

    if SCRAPY < (2, 14):
        pytest.skip("Scrapy 2.13 keeps no response on a dropped response's failure")
    sites, trail, settings = _missing_page_crawled(tmp_path, _IgnoresMissing)
    settings["DOWNLOADER_MIDDLEWARES"][f"{__name__}._FetchesWhileResponding"] = 500
    outer = sites.url("a", "/outer")
    try:
        _, spider = await crawl([outer], settings)
    finally:
        await sites.close()
    assert spider.dropped == {outer: "ignored: 404"}
    records = by_url(trail)
    record = records[outer]
    assert (record["fate"], record["status"]) == ("failed", 200), record
    # the download the middleware awaited has its own fate: its response dropped (it
    # reached no scraper, and was unfinished)
    inner = records[sites.url("a", "/missing")]
    assert (inner["fate"], inner["status"], inner["why"]) == (
        "failed",
        404,
        "IgnoreRequest: ignored: 404",
    ), inner


# ---------------------------------------------------------------------- a callback's own fetches


async def _fetched_by_the_engine(crawler: Any, request: Request) -> Any:
    """``request`` downloaded as a callback asks the engine itself: awaiting
    ``crawler.engine.download_async`` (Scrapy 2.14+), or the Deferred of
    ``crawler.engine.download`` (2.13)."""
    from scrapy.utils.defer import maybe_deferred_to_future

    engine = crawler.engine
    if hasattr(engine, "download_async"):
        return await engine.download_async(request)
    return await maybe_deferred_to_future(engine.download(request))


class _FetchesItself(ListSpider):
    """A callback that downloads :attr:`FETCHES` itself, one after the other (neither
    scheduled nor scraped: the engine's own download), noting each response in
    ``downloaded`` and each exception in ``dropped`` (in one line, as the add-on says one),
    then yields one item."""

    FETCHES: tuple[str, ...] = ()

    async def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        for path in self.FETCHES:
            request = Request(response.urljoin(path))
            try:
                fetched = await _fetched_by_the_engine(self.crawler, request)
            except Exception as error:
                self.dropped[request.url] = error_line(error)
            else:
                self.downloaded.append(fetched.url)
        yield {"url": response.url}


@pytest.mark.parametrize("fetched", ["/missing", "/moved"], ids=["its URL", "redirected to it"])
@pytest_twisted.ensureDeferred
async def test_a_response_a_middleware_ignored_of_a_callbacks_own_fetch_is_not_unfinished(
    tmp_path: Path, fetched: str
) -> None:
    """A callback downloads ``/missing`` itself (``engine.download_async``), a 404 that a
    downloader middleware's ``process_response`` ignores (IgnoreRequest). That download
    never reaches the scraper, which told the ledger of a scheduled request's: the
    callback got the exception, and the trail and the report said "unfinished: the crawl
    ended (finished) before its fate was known". Now it is ``failed``, with its status,
    as the scheduled request's is, and the report, ``audit show``, ``audit summary`` and
    ``audit verify`` say so alike. So is it when the callback fetched ``/moved``, which
    redirects to ``/missing``: the engine downloaded the redirect's request in the
    callback's (``/moved``'s record ``redirected``)."""
    from scrapy_rep.crawl.report import RepReport

    sites, trail, settings = _missing_page_crawled(tmp_path, _IgnoresMissing)
    sites.origins["a"].script("/moved", redirect("/missing"))
    _FetchesItself.FETCHES = (fetched,)
    hub, missing = sites.url("a", "/hub"), sites.url("a", "/missing")
    try:
        crawler, spider = await crawl([hub], settings, _FetchesItself)
    finally:
        await sites.close()
    assert spider.dropped == {sites.url("a", fetched): "IgnoreRequest: ignored: 404"}
    records = by_url(trail)
    assert records[hub]["fate"] == "fetched", records
    record = records[missing]
    assert record["fate"] != "unfinished", record
    assert record["unscheduled"] is True, record
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    why = "IgnoreRequest: ignored: 404"
    short = "2 requests (1 downloaded, 1 response dropped)"
    summary = "2 requested URL(s) (1 failed, 1 fetched)"
    if fetched == "/moved":
        moved = records[sites.url("a", "/moved")]
        assert (moved["fate"], moved["to"]) == ("redirected", missing), moved
        short = "3 requests (1 downloaded, 1 redirected, 1 response dropped)"
        summary = "3 requested URL(s) (1 failed, 1 fetched, 1 redirected)"
    _told_alike(trail, missing, report.text, why, short, summary)
    assert crawler.stats.get_value("rep/audit/errors") is None


@pytest_twisted.ensureDeferred
async def test_a_callbacks_own_fetch_that_failed_or_came_has_its_fate(tmp_path: Path) -> None:
    """A callback downloads three pages itself: ``/reset``, whose connection the site
    drops (no response: the exception reaches the audit middleware's
    ``process_exception``), a page of an origin that refuses connections (its robots.txt
    unreachable: the request is refused as it waits for it), and ``/ok``, a 200 (its
    ``process_response``). The first is ``failed``, ``why`` naming the exception, with no
    status; the second ``refused`` (``unreachable``), never sent; the third ``fetched``
    with its status; each is one record, and ``audit verify`` takes the trail."""
    import io

    from rep_audit.cli import main
    from scrapy_rep.crawl.report import RepReport
    from tests.support.localhttp import free_port

    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    site.script("/reset", Reply(reset=True))
    trail = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT": True, "REP_UNREACHABLE_MAX_WAIT": 0.5}
    refused = f"http://127.0.0.1:{free_port()}/refused"
    _FetchesItself.FETCHES = ("/reset", refused, "/ok")
    hub, reset, ok = (sites.url("a", path) for path in ("/hub", "/reset", "/ok"))
    try:
        crawler, spider = await crawl([hub], settings, _FetchesItself)
    finally:
        await sites.close()
    assert list(spider.dropped) == [reset, refused], spider.dropped
    assert spider.downloaded == [hub, ok]
    records = by_url(trail)
    assert set(records) == {hub, reset, refused, ok}, records
    failed = records[reset]
    assert (failed["fate"], failed["status"], failed["attempts"]) == ("failed", None, 1), failed
    assert failed["why"] == spider.dropped[reset], failed
    never = records[refused]
    assert (never["fate"], never["refused_by"], never["attempts"]) == ("refused", "unreachable", 0)
    assert (records[ok]["fate"], records[ok]["status"]) == ("fetched", 200), records[ok]
    assert all(records[url]["unscheduled"] is True for url in (reset, refused, ok)), records
    assert records[hub]["fate"] == "fetched", records[hub]
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    # a callback's own download is said as one, not as an item pipeline's
    assert f"  {ok}\n    downloaded without the scheduler (200)\n" in report.text, report.text
    assert "item pipeline" not in report.text, report.text
    out = io.StringIO()
    assert main(["verify", str(trail)], out) == 0, out.getvalue()
    assert crawler.stats.get_value("rep/audit/errors") is None


class _DropsBeforeTheCheck:
    """A project's downloader middleware before the robots.txt one (priority 50, where
    Scrapy's OffsiteMiddleware is) that drops ``/missing`` in its ``process_request``: the
    request is never decided, never sent."""

    def process_request(self, request: Request, spider: Any = None) -> Any:
        if request.url.endswith("/missing"):
            from scrapy.exceptions import IgnoreRequest

            raise IgnoreRequest("not there")
        return None


@pytest.mark.parametrize("asked", ["scheduled", "fetched by its callback"])
@pytest_twisted.ensureDeferred
async def test_a_redirect_dropped_before_it_was_decided_has_its_record(
    tmp_path: Path, asked: str
) -> None:
    """``/moved`` redirects to ``/missing``, which a downloader middleware before the
    robots.txt one drops as it is sent (``process_request``: IgnoreRequest). Scheduled,
    ``/moved`` is ``redirected`` and ``/missing`` ``failed`` with no attempt, and ``audit
    verify`` took that record for a page sent with no robots.txt snapshot to allow it.
    Fetched by a callback itself (``engine.download_async``), the redirect's request had no
    record (it opens when the request is decided): ``/missing`` was not in the trail at
    all, and ``/moved`` was "unfinished: the crawl ended before its fate was known"."""
    import io

    from rep_audit.cli import main
    from scrapy_rep.crawl.report import RepReport

    sites, trail, settings = _missing_page_crawled(tmp_path, _DropsBeforeTheCheck, 50)
    sites.origins["a"].script("/moved", redirect("/missing"))
    moved, missing = sites.url("a", "/moved"), sites.url("a", "/missing")
    if asked == "scheduled":
        _FetchesItself.FETCHES = ()
        urls = [moved]
    else:
        _FetchesItself.FETCHES = ("/moved",)
        urls = [sites.url("a", "/hub")]
    try:
        crawler, spider = await crawl(urls, settings, _FetchesItself)
    finally:
        await sites.close()
    assert list(spider.dropped) == [missing if asked == "scheduled" else moved], spider.dropped
    records = by_url(trail)
    assert (records[moved]["fate"], records[moved]["to"]) == ("redirected", missing), records
    record = records[missing]
    assert (record["fate"], record["attempts"], record["why"]) == (
        "failed", 0, "IgnoreRequest: not there"
    ), record  # fmt: skip
    assert "unfinished" not in {r["fate"] for r in records.values()}, records
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    assert "before its fate was known" not in report.text, report.text
    assert f"  {missing}\n    not downloaded: IgnoreRequest: not there\n" in report.text, (
        report.text
    )
    out = io.StringIO()
    assert main(["verify", str(trail)], out) == 0, out.getvalue()


class _GivesUpOnItsFetch(ListSpider):
    """``/hub``'s callback gives up on the page it downloads itself (``/slow``) after 0.3 s
    (``asyncio.wait_for``: the download is cancelled), noting the exception it got."""

    async def parse(self, response: Any) -> Any:
        import asyncio

        if response.url.endswith("/hub"):
            request = Request(response.urljoin("/slow"))
            try:
                await asyncio.wait_for(_fetched_by_the_engine(self.crawler, request), 0.3)
            except (Exception, asyncio.CancelledError) as error:
                self.dropped[request.url] = type(error).__name__
        yield {"url": response.url}


@pytest_twisted.ensureDeferred
async def test_a_callbacks_own_fetch_it_gave_up_on_is_failed_not_unfinished(
    tmp_path: Path,
) -> None:
    """A callback cancels the download it asked the engine for itself (a timeout of its
    own) while the crawl goes on (``/later`` takes longer): the response never comes. On
    Scrapy 2.14+ the cancellation (``asyncio.CancelledError``, no ``Exception``) was not
    told, and the record said "unfinished: the crawl ended before its fate was known";
    on 2.13 (a Deferred's cancellation) it was ``failed``. Now it is ``failed`` on both,
    ``why`` naming the cancellation, and the report says so."""
    from scrapy_rep.crawl.report import RepReport

    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    site.script("/slow", Reply(200, b"slow", delay=1.5))
    site.script("/later", Reply(200, b"later", delay=2.0))
    trail = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT": True}
    slow = sites.url("a", "/slow")
    try:
        urls = [sites.url("a", "/hub"), sites.url("a", "/later")]
        crawler, spider = await crawl(urls, settings, _GivesUpOnItsFetch)
    finally:
        await sites.close()
    assert spider.dropped == {slow: "TimeoutError"}, spider.dropped
    [record] = [record for record in url_records(trail) if record["url"] == slow]
    assert (record["fate"], record["status"]) == ("failed", None), record
    assert "CancelledError" in record["why"], record
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    assert "before its fate was known" not in report.text, report.text


@pytest_twisted.ensureDeferred
async def test_a_refused_request_enters_the_ledger_once_per_event_that_changes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decided, then refused: a request its robots.txt disallows, decided once the document
    is known, is never told to the ledger as a failure after (its ``failed`` was a call
    that found no open entry); its errback's end is told (its record is final then, with
    the errback's items), once."""
    entered: list[str] = []
    for name in ("_scheduled", "decided", "refused", "failed", "failure_scraped", "attempted"):
        original = getattr(AuditTrail, name)

        def spy(self: AuditTrail, *args: Any, _name: str = name, _f: Any = original,
                **kwargs: Any) -> Any:  # fmt: skip
            entered.append(_name)
            return _f(self, *args, **kwargs)

        monkeypatch.setattr(AuditTrail, name, spy)
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    try:
        await crawl([sites.url("a", "/private/x")], {"REP_AUDIT_FILE": str(tmp_path / "t")})
    finally:
        await sites.close()
    # held for its robots.txt, it was scheduled again (its record goes on) and tried once
    assert entered.count("decided") == entered.count("refused") == 1
    assert entered[-3:] == ["refused", "decided", "failure_scraped"]
    assert "failed" not in entered and entered.count("failure_scraped") == 1
