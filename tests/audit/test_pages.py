"""audit verify decides a fetched page again from the statements its record keeps
(rep_audit.pages) and holds every field the decision gives against it: a record
that kept a noindex page's or a denied page's items, that blames a reason the page never
gave, whose usage decision lost one of the page's "no"s or flipped an answer, whose names
are not those its request was held to, or that omits a short part, is a finding; a forged
trail cannot pass by leaving the page part out of a run that wrote it."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from rep_audit.pages import page_differences
from rep_audit.runcontext import PageRun
from rep_audit.verify import verify
from rep_engine.trail.lines import (
    MAX_PAGE_PART_CHARS,
    WHOLE_PAGE_PARTS,
    page_part,
    page_snapshot,
    snapshotted,
)
from tests.support.trailfactory import (
    ORIGIN,
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)

SETTINGS = {"REP_PROFILE": "google", "REP_NOINDEX_ACTION": "drop", "REP_PURPOSE": ["search"]}
RUN = PageRun.of({"settings": SETTINGS})
AGENTS = ("testbot",)


def run_page_rules(settings: dict[str, Any], parts: Any = None) -> PageRun:
    return PageRun.of({"settings": settings, "page_parts": parts})


def noindex_page(**extra: Any) -> dict[str, Any]:
    part = page_part(["testbot"], [("x-robots-tag", "noindex")], [])
    return url_line("/", robots=robots_part(None), page=part, **extra)


CASES = [
    ("clean: noindex, its item dropped", noindex_page(items_kept=0, items_dropped=1,
     item_reason="noindex", item_why="noindex by header X-Robots-Tag: noindex"), []),
    ("noindex, its item kept", noindex_page(items_kept=1, items_dropped=0),
     ["the page says noindex by header X-Robots-Tag: noindex, but the record kept 1 item(s)"]),
    ("noindex, its item let through, not kept later", noindex_page(items_kept=0,
     items_dropped=0, items_not_kept=2),
     ["the page says noindex by header X-Robots-Tag: noindex, but the record let 2 item(s) "
      "through (items_not_kept: a later component did not keep them)"]),
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
    ("omitted (an older run): taken as recorded", url_line(
        "/", page={"names": ["testbot"], "omitted": "x"}, items_kept=1), []),
    ("dropped for a noindex of a page its callback fetched", url_line("/", page={
        **page_part(["testbot"], [], []), "fetched": [{"url": "https://e.com/d",
        **page_part(["testbot"], [("x-robots-tag", "noindex")], [])}]}, items_kept=1,
        items_dropped=1, item_reason="noindex"), []),
    ("dropped for a noindex a fetched page never said", url_line("/", page={
        **page_part(["testbot"], [("x-robots-tag", "nofollow")], []), "fetched": [
        {"url": "https://e.com/d", **page_part(["testbot"], [("robots-tag", "otherbot;noindex")],
        [])}]}, items_kept=0, items_dropped=1, item_reason="noindex"),
     ["the record drops its items for noindex, which its statements do not say"]),
    ("no page part (an older run): taken as recorded", url_line("/", items_kept=1), []),
]  # fmt: skip


@pytest.mark.parametrize(("record", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_fetched_page_is_decided_again_from_its_statements(
    record: dict[str, Any], expected: list[str]
) -> None:
    assert page_differences(record, RUN, AGENTS) == expected


def test_noindex_kept_under_its_keep_setting_is_no_finding() -> None:
    run = run_page_rules({**SETTINGS, "REP_NOINDEX_ACTION": "keep"})
    assert page_differences(noindex_page(items_kept=1), run, AGENTS) == []


def test_unavailable_after_is_held_at_the_records_time() -> None:
    part = page_part(["testbot"], [], [("robots", "unavailable_after: 2026-11-23T15:00:00Z")])
    before = url_line("/", page=part, items_kept=1, time="2026-11-23T14:00:02.000Z")
    after = url_line("/", page=part, items_kept=1, time="2026-11-23T16:00:02.000Z")
    assert page_differences(before, RUN, AGENTS) == []
    assert page_differences(after, RUN, AGENTS) == [
        'the page says unavailable_after by <meta name="robots" content="unavailable_after: '
        '2026-11-23T15:00:00Z">, but the record kept 1 item(s)'
    ]


def test_unavailable_after_is_held_at_the_time_the_page_was_decided() -> None:
    """A page decided before its ``unavailable_after`` and written after it (a slow
    callback): decided again at the time its part says, not the record's."""
    decided = datetime(2026, 11, 23, 14, 59, 59, 123000, timezone.utc)
    said = [("robots", "unavailable_after: 2026-11-23T15:00:00Z")]
    part = page_part(["testbot"], [], said, decided=decided)
    assert part["decided"] == "2026-11-23T14:59:59.123Z"
    record = url_line("/", page=part, items_kept=1, time="2026-11-23T15:00:04.000Z")
    assert page_differences(record, RUN, AGENTS) == []
    late = {**part, "decided": "2026-11-23T15:00:00.000Z"}
    assert page_differences({**record, "page": late}, RUN, AGENTS) == [
        'the page says unavailable_after by <meta name="robots" content="unavailable_after: '
        '2026-11-23T15:00:00Z">, but the record kept 1 item(s)'
    ]


def test_a_long_page_part_is_kept_whole_in_a_snapshot() -> None:
    long = page_part(["testbot"], [("x-robots-tag", "x" * (MAX_PAGE_PART_CHARS + 1))], [])
    body = page_snapshot(long)
    assert body is not None and b"x" * MAX_PAGE_PART_CHARS in body
    assert set(snapshotted(long, "ab" * 32)) == {"names", "snapshot"}
    short = page_part(["testbot"], [("x-robots-tag", "noindex")], [("robots", "nofollow")])
    assert page_snapshot(short) is None
    assert short == {
        "names": ["testbot"],
        "headers": [["x-robots-tag", "noindex"]],
        "meta": [["robots", "nofollow"]],
    }


def test_a_run_whose_override_has_expired_since_is_still_checked() -> None:
    """A trail is verified after its run: an override's expiry that has passed since (the
    crawl refuses such a setting at start) must not turn the page checks off."""
    old = {"host": "a.example", "reason": "permission", "expires": "2020-01-01"}
    run = run_page_rules({**SETTINGS, "REP_OVERRIDES": [old]})
    assert run.rules is not None and run.noindex_drops
    assert page_differences(noindex_page(items_kept=1), run, AGENTS) != []


def test_an_unreadable_run_header_takes_its_pages_as_recorded() -> None:
    run = run_page_rules({"REP_NOINDEX_ACTION": "sometimes"})
    assert run.rules is None
    assert page_differences(noindex_page(items_kept=1), run, AGENTS) == []


def test_a_run_that_wrote_page_parts_loses_none() -> None:
    bare = url_line("/", items_kept=1)
    assert page_differences(bare, run_page_rules(SETTINGS, True), AGENTS) == [
        "the record has lost what its page said (no page part)"
    ]
    assert page_differences(url_line("/x", fate="fetched"), RUN, AGENTS) == []


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


# The edits a forger who recomputes the chain makes: each is found.
AI = {**SETTINGS, "REP_PURPOSE": ["ai-train"], "REP_PURPOSE_ACTION": "drop"}
AI_RUN = PageRun.of({"settings": AI, "page_parts": WHOLE_PAGE_PARTS})


def ai_page(**extra: Any) -> dict[str, Any]:
    """An honest record of a page saying ``Content-Usage: train-ai=n`` in an ai-train crawl."""
    from rep_engine.trail.lines import usage_part
    from rep_engine.verdict.page import PageFacts, PageStatements, decide_page

    part = page_part(["testbot"], [("content-usage", "train-ai=n")], [])
    assert AI_RUN.rules is not None
    verdict = decide_page(
        PageFacts("http://site.test/", ("testbot",)),
        PageStatements((("content-usage", "train-ai=n"),)),
        AI_RUN.rules,
    )
    assert verdict.purpose is not None
    record = url_line(
        "/", robots=robots_part(None), page=part, usage=usage_part(verdict.usage, "", ""),
        items_kept=0, items_dropped=1, item_reason="purpose", item_why=verdict.purpose.message,
    )  # fmt: skip
    record.update(extra)
    return record


def test_an_honest_denied_page_is_clean() -> None:
    assert page_differences(ai_page(), AI_RUN, AGENTS) == []


def test_a_denied_page_edited_to_keep_its_item_is_found() -> None:
    found = page_differences(ai_page(items_kept=1, items_dropped=0), AI_RUN, AGENTS)
    assert found and "but the record kept 1 item(s)" in found[0], found
    # the same page under REP_PURPOSE_ACTION = "mark" keeps its items honestly
    marked = PageRun.of({"settings": {**AI, "REP_PURPOSE_ACTION": "mark"}})
    honest = ai_page(items_kept=1, items_dropped=0)
    del honest["item_reason"], honest["item_why"]
    assert page_differences(honest, marked, AGENTS) == []


def test_usage_answers_flipped_to_yes_are_found() -> None:
    record = ai_page(items_kept=1, items_dropped=0)
    del record["item_reason"], record["item_why"]
    usage = record["usage"]
    usage["signals"][0]["answers"] = {"ai-train": True}
    usage["answers"]["ai-train"] = True
    found = page_differences(record, AI_RUN, AGENTS)
    assert found, found
    assert any("does not list" in f or "lists" in f for f in found), found
    # the overall answer alone flipped
    record = ai_page()
    record["usage"]["answers"]["ai-train"] = True
    assert page_differences(record, AI_RUN, AGENTS) == [
        'the record\'s usage decision gives answers {"ai-input": null, "ai-train": true, '
        '"search": null}, its signals give {"ai-input": null, "ai-train": false, "search": null}'
    ]


def test_names_edited_or_a_name_removed_are_found() -> None:
    other = ai_page()
    other["page"]["names"] = ["otherbot"]
    assert page_differences(other, AI_RUN, AGENTS)[0] == (
        "its statements were recorded as read for otherbot, but its request was held to testbot"
    )
    sent_as = ai_page()  # held to two names; the part lists only the declared one
    assert page_differences(sent_as, AI_RUN, ("testbot", "googlebot"))[0] == (
        "its statements were recorded as read for testbot, but its request was held to "
        "testbot, googlebot"
    )
    tokens = PageRun.of({"settings": {**AI, "REP_DIRECTIVE_TOKENS": ["ExtraBot"]}})
    assert page_differences(ai_page(), tokens, AGENTS)[0].endswith("held to testbot, extrabot")


def test_a_short_part_replaced_by_omitted_is_found() -> None:
    record = ai_page(page={"names": ["testbot"], "omitted": "its statements run past 16384"})
    assert page_differences(record, AI_RUN, AGENTS) == [
        "the record omits what its page said, which this run never does"
    ]


def test_a_purpose_reason_on_a_page_nothing_denies_is_found() -> None:
    record = url_line(
        "/", robots=robots_part(None), page=page_part(["testbot"], [], []),
        items_kept=0, items_dropped=1, item_reason="purpose",
    )  # fmt: skip
    assert page_differences(record, AI_RUN, AGENTS) == [
        "the record drops its items for purpose, which its statements do not say"
    ]
    # a signal the page never gave, added to its usage
    forged = ai_page()
    forged["page"]["headers"] = []
    found = page_differences(forged, AI_RUN, AGENTS)
    assert found[1].startswith(
        "the record's usage decision lists 'header Content-Usage: train-ai=n'"
    ), found


def test_a_long_part_is_decided_from_its_snapshot() -> None:
    headers = [("x-robots-tag", "noindex"), ("x-robots-tag", "x" * MAX_PAGE_PART_CHARS)]
    part = page_part(["testbot"], headers, [])
    body = page_snapshot(part)
    assert body is not None
    stored = {"ab" * 32: body}
    record = url_line("/", robots=robots_part(None), page=snapshotted(part, "ab" * 32),
                      items_kept=1)  # fmt: skip
    import json

    def read(sha: str) -> dict[str, Any] | None:
        return json.loads(stored[sha]) if sha in stored else None

    found = page_differences(record, AI_RUN, AGENTS, read_part=read)
    assert found and "but the record kept 1 item(s)" in found[0], found
    unreadable = page_differences(record, AI_RUN, AGENTS)
    assert unreadable == ["page part snapshot abababababab… is unreadable"]


# A forger who recomputes the chain: a page its callback fetched, its time, its run's settings.
WHY_D = (
    "noindex by header X-Robots-Tag: noindex of http://site.test/d, which the page's "
    "callback fetched"
)


def _fetcher_trail(
    tmp_path: Path, fetched: dict[str, Any] | None, sub: dict[str, Any], **header: Any
) -> list[str]:
    """Verify a run of a page ``/`` whose callback fetched ``/d`` (``sub``: its sub-part)
    and dropped its one item for it; ``fetched``: ``/d``'s own page part (``None``: no
    record); the findings."""
    body: list[dict[str, Any]] = [snapshot_line()]
    if fetched is not None:
        record = url_line("/d", robots=robots_part(None), page=fetched)
        del record["items_kept"], record["items_dropped"]
        body.append(record)
    page = {**page_part(["testbot"], [], []), "fetched": [{"url": ORIGIN + "/d", **sub}]}
    body.append(url_line("/", robots=robots_part(None), page=page, items_kept=0,
                         items_dropped=1, item_reason="noindex", item_why=WHY_D))  # fmt: skip
    settings = header.pop("settings", SETTINGS)
    records = [run_line(settings=settings, page_parts=WHOLE_PAGE_PARTS, **header), *body,
               end_line(body)]  # fmt: skip
    return [str(f) for f in verify(write_trail(tmp_path / "t.jsonl", records)).findings]


def test_a_page_a_callback_fetched_has_its_own_record_saying_the_same(tmp_path: Path) -> None:
    """A ``fetched`` sub-part excused dropping a page's items with a page nobody fetched:
    verify decided the sub-part alone. Now the page it names has its own record before
    it in the run, whose page part says what the sub-part says."""
    noindex = page_part(["testbot"], [("x-robots-tag", "noindex")], [])
    assert _fetcher_trail(tmp_path, noindex, noindex) == []
    missing = "a page its callback fetched, http://site.test/d, has no record of its own"
    for fetched in (None, page_part(["testbot"], [], []), {**noindex, "names": ["otherbot"]}):
        found = _fetcher_trail(tmp_path, fetched, noindex)
        assert any(missing in finding for finding in found), (fetched, found)


def test_a_pages_decided_time_lies_between_its_run_start_its_sending_and_its_record(
    tmp_path: Path,
) -> None:
    """``decided`` moved before the page's ``unavailable_after`` kept its items: verify
    decided it at whatever time the part said. It is held between the run's start (and
    the request's ``sent_at``) and the record's time."""
    said = [("robots", "unavailable_after: 2026-11-23T14:00:01Z")]
    decided = datetime(2026, 11, 23, 14, 0, 1, 500000, timezone.utc)
    kept = {"items_kept": 1, "items_dropped": 0}
    dropped = {"items_kept": 0, "items_dropped": 1, "item_reason": "unavailable_after"}
    cases = [
        ("2026-11-23T14:00:01.500Z", dropped, None, []),
        ("2026-11-23T13:59:00.000Z", kept, None, ["before its run started"]),
        ("2026-11-23T14:00:00.500Z", kept, "2026-11-23T14:00:00.900Z",
         ["before its request was sent"]),
        ("2026-11-23T14:00:05.000Z", dropped, None, ["after its record was written"]),
    ]  # fmt: skip
    for when, fate, sent_at, expected in cases:
        part = {**page_part(["testbot"], [], said, decided=decided), "decided": when}
        extra = {"sent_at": sent_at} if sent_at else {}
        body = [snapshot_line(), url_line("/", robots=robots_part(None), page=part,
                                          **fate, **extra)]  # fmt: skip
        records = [run_line(settings=SETTINGS, page_parts=WHOLE_PAGE_PARTS), *body,
                   end_line(body)]  # fmt: skip
        found = [str(f) for f in verify(write_trail(tmp_path / "t.jsonl", records)).findings]
        assert len(found) == len(expected), (when, found)
        for finding, words in zip(found, expected, strict=True):
            assert words in finding and f"decided at {when}" in finding, finding


def test_a_run_that_wrote_page_parts_has_settings_its_pages_are_decided_by(
    tmp_path: Path,
) -> None:
    """A header edited so that its settings no longer read (a bad value, not an object)
    turned every page check off, a kept noindex page passing; and its ``REP_PURPOSE``
    could say another purpose than its ``purposes``. Both are findings of a run that
    wrote page parts."""
    noindex = page_part(["testbot"], [("x-robots-tag", "noindex")], [])
    for settings, words in (
        ({**SETTINGS, "REP_NOINDEX_ACTION": "sometimes"}, "its settings cannot be read"),
        ("REP_NOINDEX_ACTION=drop", "its settings cannot be read (settings is no object)"),
        ({**SETTINGS, "REP_PURPOSE": ["ai-train"]}, "REP_PURPOSE (ai-train) is not its purposes"),
    ):
        found = _fetcher_trail(tmp_path, noindex, noindex, settings=settings)
        assert len(found) == 1 and words in found[0], (settings, found)


def test_a_run_from_before_noarchive_meant_no_ai_input_is_decided_as_it_was() -> None:
    """REP_NOARCHIVE_MEANS_NO_AI_INPUT is newer than some trails: a header without it is of
    a crawl that did not read noarchive as a no for ai-input, and its ai-input pages that
    said noarchive kept their items honestly; a header with it is held to it."""
    ai_input = {**SETTINGS, "REP_PURPOSE": ["ai-input"], "REP_PURPOSE_ACTION": "drop"}
    older = run_page_rules(ai_input)
    assert older.rules is not None and not older.rules.policy.readings.noarchive_no_input
    from rep_engine.trail.lines import usage_part
    from rep_engine.verdict.page import PageFacts, PageStatements, decide_page

    said = (("x-robots-tag", "noarchive"),)
    verdict = decide_page(PageFacts("http://site.test/", AGENTS), PageStatements(said), older.rules)
    assert verdict.purpose is None  # its ai-train reading says nothing about ai-input
    part = page_part(["testbot"], list(said), [])
    kept = url_line(
        "/", robots=robots_part(None), page=part, usage=usage_part(verdict.usage, "", ""),
        items_kept=1, items_dropped=0,
    )  # fmt: skip
    assert page_differences(kept, older, AGENTS) == []
    newer = run_page_rules({**ai_input, "REP_NOARCHIVE_MEANS_NO_AI_INPUT": True})
    found = page_differences(kept, newer, AGENTS)
    assert found and "but the record kept 1 item(s)" in " ".join(found), found


def test_a_replayed_pages_cached_time_is_held_before_its_replay() -> None:
    """A page Scrapy's HTTP cache replayed says when its copy was really fetched
    (``cached``): a time not after its request was sent, it was decided, nor its record
    was written; ``true`` when the cache did not say (Scrapy before 2.19)."""

    def replayed(cached: object, decided: str = "2026-11-26T12:00:05.000Z") -> dict[str, Any]:
        part = page_part(["testbot"], [], [])
        part.update(cached=cached, decided=decided)
        sent, written = "2026-11-26T12:00:04.000Z", "2026-11-26T12:00:06.000Z"
        return url_line(
            "/", robots=robots_part(None), page=part, items_kept=1, sent_at=sent, time=written
        )

    run = run_page_rules(SETTINGS, WHOLE_PAGE_PARTS)
    for honest in ("2026-11-20T08:00:00.000Z", True):
        assert not [f for f in page_differences(replayed(honest), run, AGENTS) if "cached" in f]
    found = page_differences(replayed("2026-11-26T12:00:04.500Z"), run, AGENTS)
    assert (
        "replayed from a copy fetched at 2026-11-26T12:00:04.500Z, after its request was sent"
        in (" ".join(found))
    ), found
    found = page_differences(replayed("yesterday"), run, AGENTS)
    assert "its page part's cached time 'yesterday' is no time" in found, found
    assert page_part(["testbot"], [], [], cached=None) == {"names": ["testbot"]}
    when = datetime(2026, 11, 20, 8, 0, 0, 123000, tzinfo=timezone.utc)
    assert page_part(["t"], [], [], cached=when)["cached"] == "2026-11-20T08:00:00.123Z"
    assert page_part(["t"], [], [], cached=True)["cached"] is True


@pytest.mark.parametrize(
    "usage",
    [
        {"answers": [1]},  # no signal: verify asserted that a usage part had some
        {"answers": {"ai-train": False}, "signals": [5]},
        {
            "answers": {"ai-train": False},
            "decided_by": {"ai-train": 0},
            "signals": [{"answers": [1], "source": "x"}],  # a signal's answers a list
        },
    ],
)
def test_a_forged_usage_part_of_a_page_is_a_finding_not_a_traceback(
    tmp_path: Path, usage: Any
) -> None:
    """A page's record (its ``page`` part) whose ``usage`` part a forger wrote with values
    of the wrong shape: audit verify names it, it does not stop with an AssertionError or
    a TypeError (a verify that crashes verifies nothing)."""
    from tests.support.trailfactory import standard_records

    records = standard_records()
    for record in records:
        if record["type"] == "url":
            record.update(usage=usage, page={})
    found = [str(f) for f in verify(write_trail(tmp_path / "u.jsonl", records)).findings]
    assert any("usage decision" in finding for finding in found), found
