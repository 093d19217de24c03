"""A record of a response a downloader middleware placed before scrapy_rep's answered
itself (``answered``, docs/audit-trail.md; rep-audit/rep_audit/rederive.py): ``audit
verify`` accepts it as what it is (no download, so no robots.txt had to allow it), holds
it to what the crawl writes of one, and does not let a refusal relabelled ``answered``
hide its "no": the robots.txt line that disallows it stays in the record (held to its
snapshot), or its crawl's snapshot left out is found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rep_audit.findings import Verification
from rep_audit.runcontext import PageRun
from rep_audit.verify import verify
from rep_engine.records import UrlEntry, describe
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.trail.lines import WHOLE_PAGE_PARTS, page_part, usage_part
from rep_engine.verdict.page import SAYS_NOTHING, PageFacts, decide_page
from tests.support.trailfactory import (
    ORIGIN,
    ROBOTS,
    end_line,
    robots_part,
    run_line,
    sha,
    snapshot_line,
    url_line,
    write_trail,
)

PRIVATE = "/private/x"


def _answered_run(
    tmp_path: Path, answered: dict[str, Any], before_snapshot: bool = False
) -> Verification:
    """What ``audit verify`` finds in a run of a page allowed by robots.txt and the record
    ``answered`` of :data:`PRIVATE` (robots.txt's ``Disallow: /private`` line 2), after the
    robots.txt snapshot (``before_snapshot``: before it)."""
    record = url_line(PRIVATE, **{"attempts": 0, "answered": True, **answered})
    for name, value in answered.items():
        if value is None:
            del record[name]
    body = [snapshot_line(), url_line("/", robots=robots_part(None))]
    body.insert(0 if before_snapshot else len(body), record)
    return verify(write_trail(tmp_path / "t.jsonl", [run_line(), *body, end_line(body)]))


def _problems(tmp_path: Path, answered: dict[str, Any], before_snapshot: bool = False) -> list[str]:
    return [finding.what for finding in _answered_run(tmp_path, answered, before_snapshot).findings]


def test_an_answered_record_that_says_what_robots_txt_said_verifies(tmp_path: Path) -> None:
    """What the crawl writes: ``fetched``, no attempt, no send, and the line of its crawl's
    robots.txt that applies to it (a ``Disallow``: a response no download made); or no
    robots.txt where its crawl had none of its origin before it. Clean; the "no" of its
    robots.txt is an event: a refusal relabelled ``answered`` with its line kept shows."""
    result = _answered_run(tmp_path, {"robots": robots_part(2, "Disallow: /private")})
    assert result.findings == []
    [event] = [finding.what for finding in result.events]
    assert event == (
        "its robots.txt says no (Forbidden by http://site.test/robots.txt (line 2: Disallow: "
        "/private)), and a downloader middleware before scrapy_rep's answered it without a "
        "download: nothing was sent, 1 item(s) kept"
    )
    allowed = _answered_run(tmp_path, {"url": "http://site.test/open", "robots": robots_part(None)})
    assert (allowed.findings, allowed.events) == ([], [])
    # its Allow/Disallow not obeyed (ROBOTSTXT_OBEY = False): its copy named all the same
    not_obeyed = {**robots_part(2, "Disallow: /private"), "obeyed": False}
    result = _answered_run(tmp_path, {"robots": not_obeyed})
    assert (result.findings, result.events) == ([], [])
    assert _problems(tmp_path, {"robots": None}, before_snapshot=True) == []


@pytest.mark.parametrize(
    ("forged", "found"),
    [
        # a refusal relabelled: the snapshot that refused it left out
        ({"robots": None}, "names no robots.txt of http://site.test, though its crawl had one "
                           "before it"),
        ({"robots": robots_part(None)}, "recorded as said by no line of its robots.txt, the "
                                        "snapshot gives line 2 (line 2: Disallow: /private)"),
        # a download relabelled: it was sent
        ({"attempts": 1, "robots": robots_part(2, "Disallow: /private")},
         "recorded answered without a download, but it says 1 attempt(s): a request sent"),
        ({"sent_at": "2026-11-23T14:00:01.500Z", "robots": robots_part(2, "Disallow: /private")},
         "recorded answered without a download, but it says sent_at: a request sent"),
        ({"fate": "refused", "refused_by": "robots.txt", "items_kept": None,
          "items_dropped": None, "robots": robots_part(2, "Disallow: /private")},
         "recorded refused and answered: only a response that came (fetched) is answered"),
        ({"answered": "yes", "robots": robots_part(2, "Disallow: /private")},
         "answered 'yes': the crawl writes answered only as true"),
        # read for a name no group of it refuses, or said not obeyed with its copy left out
        ({"robots": {**robots_part(None), "agent": "otherbot"}},
         "its robots.txt part is read for 'otherbot', not for the crawler's 'testbot'"),
        ({"robots": {"agent": "testbot", "obeyed": False, "why": "ROBOTSTXT_OBEY = False"}},
         "names no robots.txt of http://site.test, though its crawl had one before it"),
    ],
)  # fmt: skip
def test_a_record_relabelled_answered_is_found(
    tmp_path: Path, forged: dict[str, Any], found: str
) -> None:
    problems = _problems(tmp_path, forged)
    assert any(found in problem for problem in problems), problems


def test_an_answered_record_says_the_line_that_disallows_it() -> None:
    """Every reader says it was not downloaded, and the robots.txt line that applied to
    it: a relabelled refusal that keeps its line keeps its "no" in sight."""
    record = url_line(PRIVATE, attempts=0, answered=True, robots=robots_part(2, "Disallow: /p"))
    said = describe(UrlEntry.from_line(record))
    assert said.story == (
        "was answered by a downloader middleware before scrapy_rep's verdict, without a download"
    )
    assert (said.word, said.state, said.phrase) == (
        "fetched", "fetched, answered without a download", "answered without a download"
    )  # fmt: skip
    assert said.said == (
        "answered by a downloader middleware, not downloaded: no verdict reached it (200); "
        "robots.txt line 2: Disallow: /p"
    )
    assert said.signal == "answered without a download (no verdict)"
    assert UrlEntry.from_line(record).line("r", "k", record["time"])["answered"] is True


def test_a_usage_no_of_an_answered_records_robots_txt_is_an_event(tmp_path: Path) -> None:
    """A refusal for the run's purpose relabelled ``answered`` (its robots.txt line kept:
    none decides it) still shows: the ``Content-Usage`` "no" its snapshot says for the
    URL is an event."""
    record = url_line("/nottrain/1", attempts=0, answered=True, robots=robots_part(None))
    body = [snapshot_line(), record]
    header = run_line(purposes=["ai-train"])
    result = verify(write_trail(tmp_path / "t.jsonl", [header, *body, end_line(body)]))
    assert result.findings == []
    [event] = [finding.what for finding in result.events]
    assert event.startswith("its robots.txt says no (Not fetched: ai-train denied by ")
    assert "Content-Usage: /nottrain train-ai=n" in event and event.endswith("1 item(s) kept")


def _answered_page_findings(tmp_path: Path, **answered: Any) -> list[str]:
    """What ``audit verify`` finds in an ai-train run of the record of ``/nottrain/1``
    (robots.txt's ``Content-Usage: /nottrain train-ai=n``) a downloader middleware
    answered, whose page said nothing, with ``answered`` (its items and usage part)."""
    part = page_part(["testbot"], [], [])
    record = url_line(
        NOTTRAIN, attempts=0, answered=True, robots=robots_part(None), page=part, **answered
    )
    body = [snapshot_line(), record]
    header = run_line(purposes=["ai-train"], settings=AI, page_parts=WHOLE_PAGE_PARTS)
    found = verify(write_trail(tmp_path / "t.jsonl", [header, *body, end_line(body)]))
    return [finding.what for finding in found.findings]


NOTTRAIN = "/nottrain/1"
AI = {"REP_PROFILE": "google", "REP_PURPOSE": ["ai-train"], "REP_PURPOSE_ACTION": "drop"}


def test_an_answered_pages_items_are_held_to_its_origins_usage_no(tmp_path: Path) -> None:
    """The items of a page a downloader middleware answered are decided with what its
    origin's documents say of it for the run's purposes (the crawl's page pass reads the
    signals its verdict would have read): dropped for the ``Content-Usage`` "no" of its
    robots.txt, the record is clean; kept despite it (what the crawl wrote when that "no"
    was lost), it is a finding."""
    rules = PageRun.of({"settings": AI, "page_parts": WHOLE_PAGE_PARTS}).rules
    assert rules is not None
    url = ORIGIN + NOTTRAIN
    before = rules.policy.before_fetch(parse_robotstxt(ROBOTS), url, "testbot")
    verdict = decide_page(PageFacts(url, ("testbot",), before), SAYS_NOTHING, rules)
    assert verdict.purpose is not None
    dropped = {
        "items_kept": 0, "items_dropped": 1, "item_reason": "purpose",
        "item_why": verdict.purpose.message, "usage": usage_part(verdict.usage, sha(ROBOTS), ""),
    }  # fmt: skip
    assert _answered_page_findings(tmp_path, **dropped) == []
    assert _answered_page_findings(tmp_path, items_kept=1, items_dropped=0) == [
        "the page says no ai-train by robots.txt line 4: Content-Usage: /nottrain train-ai=n, "
        "but the record kept 1 item(s)",
        "the page says robots.txt line 4: Content-Usage: /nottrain train-ai=n, which the "
        "record's usage decision does not list",
    ]
