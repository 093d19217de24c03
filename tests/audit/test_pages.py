"""audit verify decides a fetched page again from the statements its record keeps
(scrapy_rep.audit.pages): a record that kept a noindex page's items, that blames a
noindex the page never said, or whose usage decision lost one of the page's "no"s, is a
finding; a forged trail cannot pass by leaving the page part out of a run that wrote it."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from scrapy_rep.audit.lines import MAX_PAGE_PART_CHARS, page_part
from scrapy_rep.audit.pages import page_differences, run_page_rules
from scrapy_rep.audit.verify import verify
from tests.support.trailfactory import (
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)

SETTINGS = {"REP_PROFILE": "google", "REP_NOINDEX_ACTION": "drop", "REP_PURPOSE": ["search"]}
RULES, DROPS = run_page_rules(SETTINGS)


def noindex_page(**extra: Any) -> dict[str, Any]:
    part = page_part(["testbot"], [("x-robots-tag", "noindex")], [])
    return url_line("/", robots=robots_part(None), page=part, **extra)


CASES = [
    ("clean: noindex, its item dropped", noindex_page(items_kept=0, items_dropped=1,
     item_reason="noindex", item_why="noindex by header X-Robots-Tag: noindex"), []),
    ("noindex, its item kept", noindex_page(items_kept=1, items_dropped=0),
     ["the page says noindex by header X-Robots-Tag: noindex, but the record kept 1 item(s)"]),
    ("another crawler's noindex: kept", url_line("/", page=page_part(
        ["testbot"], [("robots-tag", "otherbot;noindex")], []), items_kept=1), []),
    ("the Robots-Tag header's noindex: kept", url_line("/", page=page_part(
        ["testbot"], [("robots-tag", "*;noindex")], []), items_kept=1),
     ["the page says noindex by header Robots-Tag: *;noindex, but the record kept 1 item(s)"]),
    ("blamed on a noindex never said", url_line("/", page=page_part(["testbot"], [], []),
     items_kept=0, items_dropped=1, item_reason="noindex"),
     ["the record drops its items for noindex, which its statements do not say"]),
    ("a meta tag's noai missing from the usage", url_line("/", page=page_part(
        ["testbot"], [], [("robots", "noai")]), usage={"signals": []}),
     ['the page says <meta name="robots" content="noai">, which the record\'s usage '
      "decision does not list"]),
    ("dropped for a noindex of a page its callback fetched", url_line("/", page={
        **page_part(["testbot"], [], []), "fetched": [{"url": "https://e.com/d",
        **page_part(["testbot"], [("x-robots-tag", "noindex")], [])}]}, items_kept=1,
        items_dropped=1, item_reason="noindex"), []),
    ("dropped for a noindex a fetched page never said", url_line("/", page={
        **page_part(["testbot"], [("x-robots-tag", "nofollow")], []), "fetched": [
        {"url": "https://e.com/d", **page_part(["testbot"], [("robots-tag", "otherbot;noindex")],
        [])}]}, items_kept=0, items_dropped=1, item_reason="noindex"),
     ["the record drops its items for noindex, which its statements do not say"]),
    ("omitted: taken as recorded", url_line("/", page={"names": ["testbot"], "omitted": "x"},
     items_kept=1), []),
    ("no page part (an older run): taken as recorded", url_line("/", items_kept=1), []),
]  # fmt: skip


@pytest.mark.parametrize(("record", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_fetched_page_is_decided_again_from_its_statements(
    record: dict[str, Any], expected: list[str]
) -> None:
    assert page_differences(record, RULES, DROPS) == expected


def test_noindex_kept_under_its_keep_setting_is_no_finding() -> None:
    rules, drops = run_page_rules({**SETTINGS, "REP_NOINDEX_ACTION": "keep"})
    assert page_differences(noindex_page(items_kept=1), rules, drops) == []


def test_unavailable_after_is_held_at_the_records_time() -> None:
    part = page_part(["testbot"], [], [("robots", "unavailable_after: 2026-11-23T15:00:00Z")])
    before = url_line("/", page=part, items_kept=1, time="2026-11-23T14:00:02.000Z")
    after = url_line("/", page=part, items_kept=1, time="2026-11-23T16:00:02.000Z")
    assert page_differences(before, RULES, DROPS) == []
    assert page_differences(after, RULES, DROPS) == [
        'the page says unavailable_after by <meta name="robots" content="unavailable_after: '
        '2026-11-23T15:00:00Z">, but the record kept 1 item(s)'
    ]


def test_unavailable_after_is_held_at_the_time_the_page_was_decided() -> None:
    """A page decided before its ``unavailable_after`` and written after it (a slow
    callback): decided again at the time its part says, not the record's."""
    decided = datetime(2026, 11, 23, 14, 59, 59, 123000, timezone.utc)
    said = [("robots", "unavailable_after: 2026-11-23T15:00:00Z")]
    part = page_part(["testbot"], [], said, decided)
    assert part["decided"] == "2026-11-23T14:59:59.123Z"
    record = url_line("/", page=part, items_kept=1, time="2026-11-23T15:00:04.000Z")
    assert page_differences(record, RULES, DROPS) == []
    late = {**part, "decided": "2026-11-23T15:00:00.000Z"}
    assert page_differences({**record, "page": late}, RULES, DROPS) == [
        'the page says unavailable_after by <meta name="robots" content="unavailable_after: '
        '2026-11-23T15:00:00Z">, but the record kept 1 item(s)'
    ]


def test_a_long_page_part_is_kept_as_omitted() -> None:
    long = page_part(["testbot"], [("x-robots-tag", "x" * (MAX_PAGE_PART_CHARS + 1))], [])
    assert set(long) == {"names", "omitted"}
    short = page_part(["testbot"], [("x-robots-tag", "noindex")], [("robots", "nofollow")])
    assert short == {
        "names": ["testbot"],
        "headers": [["x-robots-tag", "noindex"]],
        "meta": [["robots", "nofollow"]],
    }


def test_a_run_whose_override_has_expired_since_is_still_checked() -> None:
    """A trail is verified after its run: an override's expiry that has passed since (the
    crawl refuses such a setting at start) must not turn the page checks off."""
    old = {"host": "a.example", "reason": "permission", "expires": "2020-01-01"}
    rules, drops = run_page_rules({**SETTINGS, "REP_OVERRIDES": [old]})
    assert rules is not None and drops
    assert page_differences(noindex_page(items_kept=1), rules, drops) != []


def test_an_unreadable_run_header_takes_its_pages_as_recorded() -> None:
    rules, _ = run_page_rules({"REP_NOINDEX_ACTION": "sometimes"})
    assert rules is None
    assert page_differences(noindex_page(items_kept=1), rules, True) == []


def test_a_run_that_wrote_page_parts_loses_none() -> None:
    bare = url_line("/", items_kept=1)
    assert page_differences(bare, RULES, DROPS, parts=True) == [
        "the record has lost what its page said (no page part)"
    ]
    assert page_differences(url_line("/x", fate="fetched"), RULES, DROPS, parts=False) == []


def test_verify_reports_a_kept_noindex_page(tmp_path: Path) -> None:
    body = [snapshot_line(), noindex_page(items_kept=1, items_dropped=0)]
    records = [run_line(settings=SETTINGS), *body, end_line(body)]
    found = [
        str(finding) for finding in verify(write_trail(tmp_path / "t.jsonl", records)).findings
    ]
    assert any("but the record kept 1 item(s)" in finding for finding in found), found
    clean = [snapshot_line(), noindex_page(items_kept=0, items_dropped=1, item_reason="noindex")]
    records = [run_line(settings=SETTINGS), *clean, end_line(clean)]
    assert verify(write_trail(tmp_path / "c.jsonl", records)).findings == []
    # A forger who drops the page part of a run that writes them is found too.
    forged = [snapshot_line(), url_line("/", robots=robots_part(None), items_kept=1)]
    records = [run_line(settings=SETTINGS, page_parts=True), *forged, end_line(forged)]
    found = [str(f) for f in verify(write_trail(tmp_path / "f.jsonl", records)).findings]
    assert any("lost what its page said" in finding for finding in found), found
