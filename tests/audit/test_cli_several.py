"""Several trails read as one (scrapy-redis workers, each writing its own trail):
``audit verify|summary|report|show`` take several TRAIL files; each chain is verified on
its own, the records are read together (docs/audit-trail.md, "Several workers").
``scrapy rep-audit`` with several files: tests/integration/test_audit_cli.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.tools import audit_tool
from tests.support.trailfactory import (
    OTHER_RUN,
    ROBOTS,
    RUN,
    sha,
    snapshotted_records,
    url_line,
    worker_records,
    worker_trails,
)


def test_two_workers_verify_clean_with_a_snapshot_stored_by_the_other(tmp_path: Path) -> None:
    trails = worker_trails(
        tmp_path, snapshotted_records(RUN, ["/1", "/2"]), snapshotted_records(OTHER_RUN, ["/3"])
    )
    assert not (Path(trails[1] + ".d") / sha(ROBOTS)).exists()
    status, out = audit_tool("verify", *trails)
    assert status == 0, out
    assert out.splitlines()[-1] == "2 trails as one: clean"
    # alone, worker B's trail misses the snapshot
    status, out = audit_tool("verify", trails[1])
    assert status == 1 and "missing: no file" in out


def test_summary_counts_across_the_files(tmp_path: Path) -> None:
    trails = worker_trails(
        tmp_path, worker_records(RUN, ["/1", "/2"]), worker_records(OTHER_RUN, ["/3"])
    )
    status, out = audit_tool("summary", *trails)
    assert status == 0
    assert out.startswith("2 run(s), 3 requested URL(s) (3 fetched)")


def test_a_url_finished_twice_without_again_is_a_problem(tmp_path: Path) -> None:
    trails = worker_trails(
        tmp_path, worker_records(RUN, ["/1", "/2"]), worker_records(OTHER_RUN, ["/2"])
    )
    status, out = audit_tool("verify", *trails)
    assert status == 1, out
    assert "b.jsonl: line 2: http://site.test/2: a second final record of this URL " in out
    assert "(the first: a.jsonl line 3, fetched), not tied to it by `again`" in out
    assert out.splitlines()[-1] == "2 trails as one: 1 problem(s)"


def test_a_url_one_worker_downloaded_without_the_scheduler_is_another_request(
    tmp_path: Path,
) -> None:
    """A callback's ``download_async`` (or a media pipeline's file) in worker A and the
    scheduled request of the same URL in worker B are two requests: no shared dupefilter
    let A's through, so B's record needs no ``again`` (found by the whole-crawl harness's
    scrapy-redis and download_async dimensions). A scheduled duplicate still is
    a problem (the test above)."""
    first = worker_records(RUN, ["/1", "/2"])
    first[2] = unscheduled(first[2])
    second = worker_records(OTHER_RUN, ["/2"])
    status, out = audit_tool("verify", *worker_trails(tmp_path, first, second))
    assert status == 0, out
    assert out.splitlines()[-1] == "2 trails as one: clean"


def unscheduled(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` as the crawl writes a request downloaded without the scheduler: no
    callback of the crawl ran for it, so it says nothing of items or links."""
    output = ("items_kept", "items_dropped")
    return {**{k: v for k, v in record.items() if k not in output}, "unscheduled": True}


def test_unscheduled_does_not_hide_a_page_whose_callback_ran(tmp_path: Path) -> None:
    """A record that says ``unscheduled`` but has items of its own (a callback of the
    crawl ran for it: it went through the shared queue), and that no page's ``fetched``
    part nor ``file`` line of its run names, is compared as any record."""
    first = worker_records(RUN, ["/1", "/2"])
    second = worker_records(OTHER_RUN, ["/2"])
    assert second[1]["items_kept"] == 1
    second[1] = {**second[1], "unscheduled": True}
    status, out = audit_tool("verify", *worker_trails(tmp_path, first, second))
    assert status == 1 and "a second final record of this URL" in out, out


@pytest.mark.parametrize("by", ["fetched-part", "file-line"])
def test_an_unscheduled_record_named_by_what_fetched_it_is_another_request(
    tmp_path: Path, by: str
) -> None:
    """docs/audit-trail.md, "Several workers": an ``unscheduled`` record accounted for by
    the page whose callback fetched it (its part's ``fetched``) or by a ``file`` line of
    its run is not compared."""
    first = worker_records(RUN, ["/1", "/2"])
    second = worker_records(OTHER_RUN, ["/2", "/3"])
    second[1] = {**second[1], "unscheduled": True}
    url = second[1]["url"]
    if by == "file-line":
        second.insert(2, {"type": "file", "run": OTHER_RUN, "time": "2026-11-23T14:00:02.500Z",
                          "url": url, "fate": "stored"})  # fmt: skip
    else:
        second[2] = {**second[2], "page": {"fetched": [{"url": url}]}}
    _, out = audit_tool("verify", *worker_trails(tmp_path, first, second))
    assert "second final record" not in out, out  # (the hand-made part, file: not whole)


def test_a_url_sent_again_names_the_other_workers_record(tmp_path: Path) -> None:
    first = worker_records(RUN, ["/1", "/2"])
    second = worker_records(OTHER_RUN, ["/2"])
    second[1] = {**second[1], "again": first[2]["id"], "id": first[2]["id"] + "-2",
                 "time": "2026-11-23T14:00:05.000Z"}  # fmt: skip
    status, out = audit_tool("verify", *worker_trails(tmp_path, first, second))
    assert status == 0, out


def test_a_url_sent_again_whose_record_was_written_first_is_clean(tmp_path: Path) -> None:
    """A record is written when its fate is final (a page's once its callback is
    through): worker B's record of a URL sent again, tied by ``again`` to worker A's, is
    written first when A's callback is slow (or B's clock is behind): the pair is tied
    either way."""
    first = worker_records(RUN, ["/1", "/2"])
    first[2] = {**first[2], "time": "2026-11-23T14:00:08.000Z"}  # its callback was slow
    second = worker_records(OTHER_RUN, ["/2"])
    second[1] = {**second[1], "again": first[2]["id"], "id": first[2]["id"] + "-2",
                 "time": "2026-11-23T14:00:05.000Z"}  # fmt: skip
    status, out = audit_tool("verify", *worker_trails(tmp_path, first, second))
    assert status == 0, out


def test_two_requests_of_one_url_with_other_url_keys_are_two_requests(tmp_path: Path) -> None:
    """Two requests of one URL with other fingerprints (two POSTs with other bodies: the
    shared dupefilter let both through), one per worker, are compared by their URL key
    (the ``id`` before its ``-``), not by URL."""
    first = worker_records(RUN, ["/search"])
    second = worker_records(OTHER_RUN, ["/search"])
    second[1] = {**second[1], "id": "2" * 40 + "-1", "time": "2026-11-23T14:00:05.000Z"}
    status, out = audit_tool("verify", *worker_trails(tmp_path, first, second))
    assert status == 0, out
    # the same URL key under another request number is the same request sent twice
    second[1] = {**second[1], "id": first[1]["id"] + "-1"}
    status, out = audit_tool("verify", *worker_trails(tmp_path, first, second))
    assert status == 1 and "a second final record of this URL" in out, out


def test_a_requeue_after_a_crash_is_an_event(tmp_path: Path) -> None:
    crashed = worker_records(RUN, ["/1"])[:-1]  # killed: no end line
    crashed.append(url_line("/2", fate="unfinished", status=None, why="killed"))
    finished = worker_records(OTHER_RUN, ["/2"])
    finished[1] = {**finished[1], "time": "2026-11-23T14:05:00.000Z"}
    status, out = audit_tool("verify", *worker_trails(tmp_path, crashed, finished))
    assert "b.jsonl: line 2: event: http://site.test/2: re-queued after a crash: left " in out
    assert "unfinished in a.jsonl line 3, finished here" in out
    assert "second final record" not in out
    # the crashed run misses its end line: that stays a problem of worker A's trail
    assert status == 1 and "a.jsonl: line 1: run 01234567 has no end line" in out
    assert out.splitlines()[-1] == "2 trails as one: 1 problem(s), 1 event(s)"


def test_report_and_show_read_every_file(tmp_path: Path) -> None:
    trails = worker_trails(
        tmp_path, snapshotted_records(RUN, ["/1", "/2"]), snapshotted_records(OTHER_RUN, ["/3"])
    )
    page = tmp_path / "r.html"
    status, out = audit_tool("report", *trails, "--html", str(page))
    assert status == 0, out
    html = page.read_text()
    assert "<title>Audit trail: a.jsonl, b.jsonl</title>" in html
    assert "<td>a.jsonl:3</td>" in html and "<td>b.jsonl:3</td>" in html
    assert '<div class="total" id="total-0"><b>3</b>' in html
    status, out = audit_tool("show", *trails, "http://site.test/3")
    assert status == 0 and out.startswith(f"{trails[1]}:\n")
    status, out = audit_tool("show", *trails, "http://site.test/4")
    assert status == 1
    assert out.startswith(f"no record of http://site.test/4 in {trails[0]}, {trails[1]}: ")


SCRAPY_S = "scrapy.core.scheduler.Scheduler"
REDIS = "scrapy_redis.scheduler.Scheduler"
#: Workers given their URLs by hand share a robots.txt store (a Redis), not a queue.
STORE = {"settings": {"REP_PROFILE": "google", "REP_ROBOTSTXT_CACHE": "redis://127.0.0.1:6379/0"}}
MEMORY = {"settings": {"REP_PROFILE": "google", "REP_ROBOTSTXT_CACHE": "memory"}}


def crawl_records(run: str, paths: list[str], **head: Any) -> list[dict[str, Any]]:
    """A run's records (as :func:`worker_records`), its header saying ``head`` (its records
    decided for the crawler its ``agents`` names first)."""
    records = worker_records(run, paths)
    crawler = head.get("agents", ["testbot"])[0]
    for record in records[1:-1]:
        record["robots"]["agent"] = crawler
    return [{**records[0], "user_agent": f"{crawler}/1.0", **head}, *records[1:]]


@pytest.mark.parametrize(
    ("first", "second", "crawls"),
    [
        ({"purposes": ["search"]}, {"purposes": ["ai-train"]}, 2),  # purposes differ
        ({"spider": "a"}, {"spider": "b"}, 2),
        ({"agents": ["testbot"]}, {"agents": ["otherbot"]}, 2),
        ({"scheduler": SCRAPY_S}, {"scheduler": SCRAPY_S}, 2),  # no shared queue
        ({"scheduler": SCRAPY_S}, {}, 2),
        ({"scheduler": REDIS}, {"scheduler": REDIS}, 1),  # workers of one crawl
        ({}, {}, 1),  # a header that does not say: may share a queue
        ({"scheduler": SCRAPY_S}, {"scheduler": SCRAPY_S, "resumes": RUN}, 1),  # JOBDIR
        ({"scheduler": SCRAPY_S, **STORE}, {"scheduler": SCRAPY_S, **STORE}, 1),  # by hand
        ({"scheduler": SCRAPY_S, **STORE}, {"scheduler": SCRAPY_S, **MEMORY}, 2),
        ({"purposes": ["search"], **STORE}, {"purposes": ["ai-train"], **STORE}, 2),
    ],
)
def test_separate_crawls_are_told_from_workers_by_their_run_headers(
    tmp_path: Path, first: dict[str, Any], second: dict[str, Any], crawls: int
) -> None:
    """Two crawls of one site (one for search, one for ai-train) each fetched /2: given
    together, they are not read as workers of one crawl whose dupefilter let /2 through
    twice (docs/audit-trail.md, "Several workers"); workers of one crawl still are."""
    trails = worker_trails(
        tmp_path,
        crawl_records(RUN, ["/1", "/2"], **first),
        crawl_records(OTHER_RUN, ["/2"], **second),
    )
    status, out = audit_tool("verify", *trails)
    lines = out.splitlines()
    if crawls == 1:
        assert status == 1 and lines[-1] == "2 trails as one: 1 problem(s)", out
        assert "separate crawls" not in out
    else:
        assert status == 0 and lines[-1] == "2 trails: clean", out
        # after two lines a trail (its tree heads, its counts)
        assert lines[4].startswith("read as 2 separate crawls, by their runs' headers ")
        assert lines[5].startswith("  crawl 1: a.jsonl (spider ")
        assert lines[6].startswith("  crawl 2: b.jsonl (spider ")
        # an auditor who knows they are one crawl's workers checks them as one
        status, out = audit_tool("verify", "--workers", *trails)
        assert status == 1 and out.splitlines()[-1] == "2 trails as one: 1 problem(s)", out
    status, out = audit_tool("verify", "--separate", *trails)
    assert status == 0 and out.splitlines()[-1] == "2 trails: clean", out
    assert "read as 2 separate crawls, as --separate asks" in out
    html = tmp_path / "r.html"
    status, out = audit_tool("report", *trails, "--html", str(html))
    page = html.read_text()
    assert (status == 0) is (crawls == 2), out
    assert ('<p class="note">read as 2 separate crawls' in page) is (crawls == 2)
    assert ("verify: clean" in page) is (crawls == 2)


def test_a_trail_without_a_run_header_is_checked_against_every_other(tmp_path: Path) -> None:
    """A trail whose run line is gone cannot say it is of another crawl: in doubt, its
    records are compared with the others' (and its own verify reports what it lacks)."""
    headless = worker_records(OTHER_RUN, ["/2"])[1:]
    trails = worker_trails(tmp_path, crawl_records(RUN, ["/1", "/2"], scheduler=SCRAPY_S), headless)
    status, out = audit_tool("verify", *trails)
    assert status == 1 and "a second final record of this URL" in out, out
    assert "separate crawls" not in out


def test_workers_and_separate_together_are_refused(tmp_path: Path) -> None:
    trails = worker_trails(tmp_path, worker_records(RUN, ["/1"]), worker_records(OTHER_RUN, ["/2"]))
    status, out = audit_tool("verify", "--workers", "--separate", *trails)
    assert status == 2, out
