"""The audit trail of real crawls holds one record per request sent, names every document
version each decision was made against, and verifies clean: a site whose pages link
home (its start URL, sent with ``dont_filter`` as Scrapy's own start requests are, is
downloaded again), three runs appended to one file, a tdmrep.json that changes mid-crawl."""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider

from rep_audit.cli import main
from rep_audit.verify import verify
from rep_engine.records import RobotsPart
from scrapy_rep.crawl.report import RepReport
from tests.support.audittrail import lines, url_records, written_lines
from tests.support.documents import rsl_license
from tests.support.robotsite import HTML, Reply, Sites, crawl, links_page, robots


class StartUrlsFollowSpider(Spider):
    """Scrapy's own start requests (``start_urls``, ``dont_filter=True``), then every link."""

    name = "follow"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = urls
        self.downloaded: list[str] = []

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {"url": response.url}
        for link in response.css("a::attr(href)").getall():
            yield response.follow(link, callback=self.parse)


def home_site() -> Sites:
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    a.script("/", links_page("/one", "/two", "/private/x"))
    a.script("/one", links_page("/", "/two"))
    a.script("/two", links_page("/", "/one"))
    return sites


def clean(trail: Path) -> None:
    result = verify(trail)
    assert result.clean, [str(finding) for finding in result.findings]


@pytest_twisted.ensureDeferred
async def test_a_start_url_linked_back_to_is_two_records_and_verifies_clean(
    tmp_path: Path,
) -> None:
    sites = home_site()
    trail = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT": True, "LOG_LEVEL": "INFO"}
    try:
        crawler, _ = await crawl([sites.url("a", "/")], settings, StartUrlsFollowSpider)
    finally:
        await sites.close()
    clean(trail)
    home = sites.url("a", "/")
    assert sites.requested("a").count("/") == 2  # the start request, then a link back home
    records = url_records(trail)
    assert Counter(r["url"] for r in records) == {
        home: 2,
        sites.url("a", "/one"): 1,
        sites.url("a", "/two"): 1,
        sites.url("a", "/private/x"): 1,
    }
    assert len({r["id"] for r in records}) == len(records)  # each request its own id
    first, second = (r for r in records if r["url"] == home)
    assert first["fate"] == second["fate"] == "fetched"
    assert second["again"] == first["id"] and "again" not in first
    url_key = first["id"].rsplit("-", 1)[0]
    assert (
        second["id"].rsplit("-", 1)[0]
        == url_key
        == crawler.request_fingerprinter.fingerprint(Request(home)).hex()
    )
    assert written_lines(trail)[-1]["counts"]["repeated"] == 1
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    assert f"  {home}\n    downloaded twice (200); 2 items kept\n" in report.text


@pytest_twisted.ensureDeferred
async def test_three_runs_appended_to_one_trail_verify_clean_each_with_its_own_fetches(
    tmp_path: Path,
) -> None:
    sites = home_site()
    trail = tmp_path / "trail.jsonl.gz"
    settings = {"REP_AUDIT_FILE": str(trail), "LOG_LEVEL": "INFO"}
    try:
        for _ in range(3):
            await crawl([sites.url("a", "/")], settings, StartUrlsFollowSpider)
    finally:
        await sites.close()
    clean(trail)
    assert sites.requested("a").count("/robots.txt") == 3
    everything = lines(trail)
    runs = [line["run"] for line in everything if line["type"] == "run"]
    assert len(runs) == 3
    for run in runs:
        mine = [line for line in everything if line.get("run") == run]
        [header] = [line for line in mine if line["type"] == "run"]
        [fetch] = [line for line in mine if line["type"] == "snapshot"]  # this run's own
        assert fetch["kind"] == "robots.txt" and fetch["status"] == 200
        assert fetch["fetched"] >= header["time"]  # this run's download, not the first's
        named = {r["robots"]["snapshot"] for r in mine if r["type"] == "url"}
        assert named == {fetch["sha256"]}
        assert len([r for r in mine if r["type"] == "url"]) == 5
    assert len(list((tmp_path / "trail.jsonl.gz.d").iterdir())) == 1  # one shared body


V1 = json.dumps([{"location": "/books/*", "tdm-reservation": 1}]).encode()
V2 = json.dumps([{"location": "/*", "tdm-reservation": 1}]).encode()


@pytest_twisted.ensureDeferred
async def test_a_tdmrep_json_changed_mid_crawl_each_record_names_its_version(
    tmp_path: Path,
) -> None:
    """/first and /link are sent under version 1 (no entry matches them); /link's page
    links to /second, sent for after version 1 expired: version 2 (everything reserved)
    refuses it. /first's page answers last, so its record is written after version 2's
    snapshot line: it names version 1, and verify does not read it against version 2."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    json_type = {"Content-Type": "application/json"}
    a.script("/.well-known/tdmrep.json", Reply(200, V1, json_type), Reply(200, V2, json_type))
    a.script("/link", Reply(200, b'<html><a href="/second">2</a></html>', HTML, delay=0.5))
    a.script("/first", Reply(200, b"<html>first</html>", HTML, delay=2.0))
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_PURPOSE": ["ai-train"],
        "REP_CACHE_TTL": 0.2,
        "REP_CACHE_MIN_TTL": 0.1,
        "REP_CACHE_STALE_MAX": 0,
        "ITEM_PIPELINES": {},
        "LOG_LEVEL": "INFO",
    }
    try:
        await crawl(
            [sites.url("a", "/first"), sites.url("a", "/link")], settings, StartUrlsFollowSpider
        )
    finally:
        await sites.close()
    clean(trail)
    assert sites.requested("a").count("/.well-known/tdmrep.json") >= 2
    records = {r["url"]: r for r in url_records(trail)}
    first, second = records[sites.url("a", "/first")], records[sites.url("a", "/second")]
    sha = {body: hashlib.sha256(body).hexdigest() for body in (V1, V2)}
    for record in (first, records[sites.url("a", "/link")]):
        assert (record["fate"], record["tdmrep"]) == ("fetched", sha[V1])
        assert "usage" not in record or not record["usage"]["signals"]  # nothing matched
    assert (second["fate"], second["refused_by"], second["tdmrep"]) == (
        "refused",
        "purpose",
        sha[V2],
    )


@pytest_twisted.ensureDeferred
async def test_a_robots_txt_fetched_again_unchanged_has_a_line_per_fetch_and_show_names_it(
    tmp_path: Path,
) -> None:
    """The same robots.txt body fetched again once its copy expired: a ``snapshot`` line
    per fetch the run used (docs/audit-trail.md), so ``audit show`` of /second, sent
    after /link's slow answer, names the fetch in force when it was sent (the latest
    fetched no later than its ``sent_at``), not the body's first, and prints its
    ``sent_at``, the time the site's access log shows."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    a.script("/link", Reply(200, b'<html><a href="/second">2</a></html>', HTML, delay=1.0))
    trail = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_CACHE_TTL": 0.3, "REP_CACHE_MIN_TTL": 0,
                "REP_CACHE_STALE_MAX": 0, "LOG_LEVEL": "INFO"}  # fmt: skip
    try:
        await crawl([sites.url("a", "/link")], settings, StartUrlsFollowSpider)
    finally:
        await sites.close()
    clean(trail)
    fetches = [line for line in lines(trail) if line["type"] == "snapshot"]
    assert len({line["sha256"] for line in fetches}) == 1
    assert len({line["fetched"] for line in fetches}) == len(fetches) >= 2
    second = {r["url"]: r for r in url_records(trail)}[sites.url("a", "/second")]
    in_force = max(f["fetched"] for f in fetches if f["fetched"] <= second["sent_at"])
    assert in_force != fetches[0]["fetched"]
    out = io.StringIO()
    assert main(["show", str(trail), sites.url("a", "/second")], out) == 0
    assert f"  sent at {second['sent_at']} (its last attempt left" in out.getvalue()
    assert f"/robots.txt fetched {in_force}, HTTP 200" in out.getvalue()


PERMITS = rsl_license('<permits type="usage">all</permits>')
PROHIBITS = rsl_license('<prohibits type="usage">ai-train</prohibits>')


@pytest_twisted.ensureDeferred
async def test_an_rsl_license_changed_mid_crawl_each_record_names_its_version(
    tmp_path: Path,
) -> None:
    """As for tdmrep.json: /first and /link are sent under the license that permits
    everything, /second under its new version that prohibits ai-train. /first's record,
    written last, names the version it was decided with, not the crawl's latest. The
    license's lifetime (0.6 s) is shorter than /link's answer takes (1.5 s) and longer than
    a loaded machine takes from the license's fetch to the first two sends."""
    sites = Sites()
    lic = sites.add("lic")
    xml = {"Content-Type": "application/rsl+xml"}
    lic.script("/license.xml", Reply(200, PERMITS, xml), Reply(200, PROHIBITS, xml))
    a = sites.add("a")
    license_url = sites.url("lic", "/license.xml")
    a.script("/robots.txt", robots(f"User-agent: *\nAllow: /\nLicense: {license_url}\n"))
    a.script("/link", Reply(200, b'<html><a href="/second">2</a></html>', HTML, delay=1.5))
    a.script("/first", Reply(200, b"<html>first</html>", HTML, delay=2.5))
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_PURPOSE": ["ai-train"],
        "REP_CACHE_TTL": 0.6,
        "REP_CACHE_MIN_TTL": 0.1,
        "REP_CACHE_STALE_MAX": 0,
        "ITEM_PIPELINES": {},
        "LOG_LEVEL": "INFO",
    }
    try:
        await crawl(
            [sites.url("a", "/first"), sites.url("a", "/link")], settings, StartUrlsFollowSpider
        )
    finally:
        await sites.close()
    clean(trail)
    assert sites.requested("lic").count("/license.xml") >= 2
    records = {r["url"]: r for r in url_records(trail)}
    sha = {body: hashlib.sha256(body).hexdigest() for body in (PERMITS, PROHIBITS)}
    for path in ("/first", "/link"):
        record = records[sites.url("a", path)]
        assert (record["fate"], record["rsl"]) == ("fetched", {license_url: sha[PERMITS]})
        named = [s["snapshot"] for s in record["usage"]["signals"] if s["vocabulary"] == "rsl"]
        assert named == [sha[PERMITS]]
    second = records[sites.url("a", "/second")]
    assert (second["fate"], second["refused_by"]) == ("refused", "purpose")
    assert second["rsl"] == {license_url: sha[PROHIBITS]}


class DontObeyFollowSpider(StartUrlsFollowSpider):
    """Its requests carry Scrapy's ``dont_obey_robotstxt``."""

    name = "dont-obey"

    async def start(self) -> Any:
        for url in self.start_urls:
            yield Request(url, meta={"dont_obey_robotstxt": True})


@pytest.mark.parametrize(
    ("settings", "spider", "why"),
    [
        (
            {"ROBOTSTXT_OBEY": False, "REP_PURPOSE": ["ai-train"]},
            StartUrlsFollowSpider,
            "ROBOTSTXT_OBEY",
        ),
        ({"REP_PURPOSE": ["ai-train"]}, DontObeyFollowSpider, "dont_obey_robotstxt"),
        ({}, DontObeyFollowSpider, "dont_obey_robotstxt"),  # no purpose: robots.txt not even read
    ],
    ids=["robotstxt-obey-false", "dont-obey-with-a-purpose", "dont-obey"],
)
@pytest_twisted.ensureDeferred
async def test_a_page_whose_robots_txt_is_not_obeyed_says_so_and_verifies_clean(
    tmp_path: Path, settings: dict[str, Any], spider: type[StartUrlsFollowSpider], why: str
) -> None:
    """Allow/Disallow not obeyed: the record says so (``obeyed: false``), names the
    robots.txt whose AI-usage opt-outs were obeyed, and verify does not read it as a
    disallowed page fetched."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    trail = tmp_path / "trail.jsonl"
    urls = [sites.url("a", "/private/a")]
    try:
        await crawl(urls, {"REP_AUDIT_FILE": str(trail), "ITEM_PIPELINES": {}, **settings}, spider)
    finally:
        await sites.close()
    clean(trail)
    [record] = url_records(trail)
    assert record["fate"] == "fetched"
    assert record["robots"]["obeyed"] is False and why in record["robots"]["why"]
    assert ("snapshot" in record["robots"]) is bool(settings)


class AgainSpider(StartUrlsFollowSpider):
    """Sends its start URL again once, with the response's meta (a common pattern)."""

    name = "again"

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        if len(self.downloaded) == 1:
            yield Request(response.url, meta=response.meta, dont_filter=True, callback=self.parse)


@pytest_twisted.ensureDeferred
async def test_a_request_sent_again_with_the_responses_meta_has_its_own_record(
    tmp_path: Path,
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    trail = tmp_path / "trail.jsonl"
    try:
        _, spider = await crawl([sites.url("a", "/")], {"REP_AUDIT_FILE": str(trail)}, AgainSpider)
    finally:
        await sites.close()
    clean(trail)
    assert spider.downloaded == [sites.url("a", "/")] * 2
    first, second = url_records(trail)
    assert first["fate"] == second["fate"] == "fetched"
    assert second["again"] == first["id"] != second["id"]


def test_a_jobdir_state_saved_before_schema_2_is_resumed(tmp_path: Path) -> None:
    """A paused crawl's open records, saved by the version before (ten fields, keyed by
    the bare fingerprint, the final dont_filter ids as a list), go on in the resumed run."""
    from rep_engine.records import RobotsPart
    from scrapy_rep.crawl.audit.auditfile import Paused, resume

    robots_part = ["a" * 64, "testbot", 2, "Allow: /", ""]
    old = ["http://a.test/x", 1, None, 0, 1, "", robots_part, "", False, False]
    saved = {"run": "f" * 32, "open": {"b" * 40: old}, "final_unfiltered": ["c" * 40]}
    (tmp_path / "scrapy_rep.audit.json").write_text(json.dumps(saved))
    open_records: dict[str, Any] = {}
    unfiltered: dict[str, str] = {}
    assert resume(str(tmp_path), open_records, unfiltered) == (Paused("f" * 32), 0)
    state = open_records["b" * 40]
    assert (state.url, state.attempts, state.held, state.tdm) == ("http://a.test/x", 1, 1, None)
    assert state.robots == RobotsPart("a" * 64, "testbot", 2, "Allow: /", "")
    assert (state.licenses, state.earlier, state.sent_at) == (None, "", None)
    assert unfiltered == {"c" * 40: "c" * 40}


def test_the_jobdir_state_237886c2_kept_resumes_every_open_entry(tmp_path: Path) -> None:
    """The URL ledger's state a real paused crawl of 237886c2 (and 27291d8: the same
    version) kept: every open entry resumes with what it held (the one decided and sent
    once, waiting for its retry: its robots.txt line, tdmrep.json, attempt and times)."""
    from rep_engine.records import RobotsPart, iso_time
    from scrapy_rep.crawl.audit.auditfile import Paused, resume
    from tests.support.jobdirstates import audit_state, write_states

    write_states(tmp_path)
    saved = audit_state()
    open_records: dict[str, Any] = {}
    unfiltered: dict[str, str] = {}
    paused = Paused(saved["run"], "/tmp/paused/trail.jsonl", saved["head"])
    assert resume(str(tmp_path), open_records, unfiltered) == (paused, 7)
    assert unfiltered == saved["unfiltered"]
    assert {key: e.url for key, e in open_records.items()} == {
        key: e["url"] for key, e in saved["open"].items()
    }
    retried = open_records["21c5278894ac8968e30c8d9b392abf32261d36f2-3"]
    assert (retried.attempts, retried.held, retried.fetched) == (1, 1, False)
    sha = "12ac685152c019807b53ec43dbe9029c19bbbc40454943b87c1b30aa85b56d89"
    assert retried.robots is not None
    assert retried.robots[:4] == RobotsPart(sha, "testbot", 3, "Allow: /", "")[:4]
    assert retried.tdm == "8f3ac600d9d7498296711d1e96db1ca3b0619d4bd773e55e1bbc06a382d78438"
    assert retried.sent_at is not None and retried.expires is not None
    assert (iso_time(retried.sent_at), iso_time(retried.expires)) == (
        "2026-11-29T02:52:45.908Z",
        "2026-11-30T02:52:43.877Z",
    )
    held = open_records["bda3399dd1f190c7480878cf612fc4715c3bcbc1-1"]
    assert (held.attempts, held.held, held.robots, held.tdm, held.sent_at) == (
        0,
        1,
        None,
        None,
        None,
    )


def test_a_jobdir_state_saved_by_a_later_version_is_not_resumed_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from scrapy_rep.crawl.audit.auditfile import resume

    saved = {"version": 99, "run": "f" * 32, "open": {"k-1": {"url": "http://a.test/"}}}
    (tmp_path / "scrapy_rep.audit.json").write_text(json.dumps(saved))
    open_records: dict[str, Any] = {}
    assert resume(str(tmp_path), open_records, {}) == (None, 0)
    assert open_records == {}
    assert "saved by a later version" in caplog.text and "not resumed" in caplog.text


def test_a_jobdir_state_of_this_version_resumes_every_field(tmp_path: Path) -> None:
    from rep_engine.records import STATE_VERSION, RobotsPart, UrlEntry
    from scrapy_rep.crawl.audit.auditfile import Paused, resume

    entry = UrlEntry("http://a.test/", 1, None, 2, RobotsPart("a" * 64, "bot", 1, "Allow: /", ""))
    saved = {"version": STATE_VERSION, "run": "f" * 32, "open": {"k-1": entry.line("r", "k-1")},
             "unfiltered": {}, "sequence": 4}  # fmt: skip
    (tmp_path / "scrapy_rep.audit.json").write_text(json.dumps(saved))
    open_records: dict[str, Any] = {}
    assert resume(str(tmp_path), open_records, {}) == (Paused("f" * 32), 4)
    assert open_records == {"k-1": entry}


def test_a_jobdir_state_names_the_requests_a_worker_took_that_another_queued(
    tmp_path: Path,
) -> None:
    """A paused worker's open records of requests another worker queued in the shared
    queue (scrapy-redis) are kept as such: the run that resumes it counts none of them
    ``left_in_queue`` (their queuer does), as the paused run did not."""
    from rep_engine.records import STATE_VERSION, UrlEntry
    from scrapy_rep.crawl.audit.auditfile import resume

    saved = {"version": STATE_VERSION, "run": "f" * 32, "sequence": 1, "unfiltered": {},
             "open": {key: UrlEntry("http://a.test/").line("r", key) for key in ("k-1", "k-2")},
             "left_in_queue": ["k-1"], "taken_from_others": ["k-2", "gone-3"]}  # fmt: skip
    (tmp_path / "scrapy_rep.audit.json").write_text(json.dumps(saved))
    left: set[str] = set()
    others: set[str] = set()
    resume(str(tmp_path), {}, {}, left, others)
    assert (left, others) == ({"k-1"}, {"k-2"})


@pytest.mark.parametrize(
    ("place", "value", "read"),
    [(1, "1", 0), (1, None, 0), (2, "200", None), (4, 1.5, 0), (6, ["a", "b", "1", "c", ""],
     RobotsPart("a", "b", None, None, "")),
     (8, "no", False), (10, ["x"], None), (13, "soon", None)],
)  # fmt: skip
def test_a_positional_jobdir_state_edited_by_hand_is_resumed_its_value_read_as_missing(
    tmp_path: Path, place: int, value: Any, read: Any
) -> None:
    """A state of version 4 (each open entry a list read by place) is read as this
    version's is, as every trail line: a value not of its field's type (``attempts``
    ``"1"``) is read as a missing one (decision D2); never an entry a later ``attempts +=
    1`` fails on (an internal error) nor one whose record writes the string."""
    from scrapy_rep.crawl.audit.auditfile import Paused, resume

    entry: list[Any] = ["http://a.test/", 1, None, 0, 0, "", None, "", False, False, None, "",
                        None, None, None]  # fmt: skip
    entry[place] = value
    saved = {"version": 4, "run": "f" * 32, "open": {"k-1": entry}, "unfiltered": {},
             "sequence": 1}  # fmt: skip
    (tmp_path / "scrapy_rep.audit.json").write_text(json.dumps(saved))
    open_records: dict[str, Any] = {}
    assert resume(str(tmp_path), open_records, {}) == (Paused("f" * 32), 1)
    field = {1: "attempts", 2: "status", 4: "held", 6: "robots", 8: "fetched", 10: "licenses",
             13: "sent_at"}[place]  # fmt: skip
    assert getattr(open_records["k-1"], field) == read


@pytest.mark.parametrize(
    ("entry", "field", "read"),
    [
        ({"url": "http://a.test/", "attempts": "3"}, "attempts", 0),
        ({"url": "http://a.test/", "held": None}, "held", 0),
        ({"url": 5}, "url", ""),
        ({"url": "http://a.test/", "robots": ["a", "b", 1, "c", "", True, "", "", [], "soon"]},
         "robots", RobotsPart("a", "b", 1, "c", "")),
        ({"url": "http://a.test/", "licenses": ["x"]}, "licenses", None),
        ({"url": "http://a.test/", "fetched": "no"}, "fetched", False),
    ],
)  # fmt: skip
def test_a_jobdir_state_edited_by_hand_is_resumed_its_value_read_as_missing(
    tmp_path: Path, entry: dict[str, Any], field: str, read: Any
) -> None:
    """An open entry of a state (version 5: by field name) whose value is not of its
    field's type (a hand-edited ``scrapy_rep.audit.json``) is read as a missing one, as in
    every trail line (decision D2): resumed, never an exception out of the ledger's start
    nor an entry whose field a later ``+= 1`` or line would fail on."""
    from scrapy_rep.crawl.audit.auditfile import Paused, resume

    saved = {"version": 5, "run": "f" * 32, "open": {"k-1": entry}, "unfiltered": {},
             "sequence": 1}  # fmt: skip
    (tmp_path / "scrapy_rep.audit.json").write_text(json.dumps(saved))
    open_records: dict[str, Any] = {}
    assert resume(str(tmp_path), open_records, {}) == (Paused("f" * 32), 1)
    assert getattr(open_records["k-1"], field) == read


@pytest.mark.parametrize(
    "edited",
    [
        {"sequence": float("inf")},  # JSON's Infinity, which Python's json reads
        {"sequence": float("nan")},
        {"left_in_queue": "k-1"},
        {"left_in_queue": [1]},
        {"taken_from_others": "k-1"},
    ],
)
def test_a_jobdir_state_edited_by_hand_is_not_resumed_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, edited: dict[str, Any]
) -> None:
    """A state of this version whose own values (not an entry's) are not of their type (a
    hand-edited ``scrapy_rep.audit.json``): not resumed, said, as an unreadable one is;
    never an exception out of the ledger's start (the crawl would not start)."""
    from rep_engine.records import STATE_VERSION
    from scrapy_rep.crawl.audit.auditfile import resume

    saved = {"version": STATE_VERSION, "run": "f" * 32, "open": {}, "unfiltered": {},
             "sequence": 1, **edited}  # fmt: skip
    (tmp_path / "scrapy_rep.audit.json").write_text(json.dumps(saved))
    open_records: dict[str, Any] = {}
    assert resume(str(tmp_path), open_records, {}) == (None, 0)
    assert open_records == {}
    assert "is unreadable" in caplog.text
