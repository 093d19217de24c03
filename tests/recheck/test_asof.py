"""Captures dated (rep_recheck.asof): the captures as they stood at a date, an
item's date read, and what the capture nearest before it said."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from rep_engine.records import ItemStatus
from rep_engine.urls.origins import origin_of
from rep_recheck.asof import (
    Then,
    Timeline,
    item_date,
    no_capture_before,
    parse_as_of,
)
from rep_recheck.command import read_settings
from rep_recheck.rechecker import Rechecker
from rep_recheck.warc import Capture, WarcDocuments, captures
from tests.support.recheck import robots_capture, write_warc

ROBOTS = "https://a.example/robots.txt"
JAN, JUN = "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z"


def _at(text: str) -> float:
    return parse_as_of(text)


def _capture(date: str, record: str) -> Capture:
    return Capture(200, None, None, b"", _at(date), record)


def test_as_of_is_the_newest_capture_at_or_before_the_date() -> None:
    timeline = Timeline.of([
        (ROBOTS, _capture(JUN, "june")),
        (ROBOTS, _capture(JAN, "january")),
    ])  # fmt: skip
    assert ROBOTS not in timeline.at(_at("2024-12-31"))  # before every capture: none
    assert timeline.at(_at(JAN))[ROBOTS].record_id == "january"  # exactly at it
    assert timeline.at(_at("2025-03-01"))[ROBOTS].record_id == "january"
    assert timeline.at(_at(JUN))[ROBOTS].record_id == "june"
    assert timeline.at(_at("2026-01-01T10:00"))[ROBOTS].record_id == "june"
    assert timeline.at()[ROBOTS].record_id == "june"  # no date: the newest
    assert dict(timeline.at(_at("2025-02-01"))) == {ROBOTS: timeline.by_url[ROBOTS][0]}
    assert timeline.dated()


def test_captures_of_equal_dates_that_disagree_are_not_had(tmp_path: Path) -> None:
    """Two captures at one date that answer otherwise: neither is known to be the newer,
    so the document is not had, whichever is later in the file."""
    path = tmp_path / "same.warc"
    write_warc(path, [
        robots_capture("https://a.example", "User-agent: *\nDisallow: /\n"),
        robots_capture("https://a.example", "User-agent: *\nAllow: /\n"),
    ])  # fmt: skip
    timeline = Timeline.read([path])
    assert "2 captures dated alike" in timeline.at()[ROBOTS].problem
    assert captures(path)[ROBOTS] == timeline.at()[ROBOTS]  # what a WARC's recheck reads
    assert not timeline.dated()


def _dated_rechecker(as_of: str, *captured: tuple[str, Capture]) -> Rechecker:
    """A search recheck's, on ``captured`` as they stood at ``as_of``."""
    config, identity, _ = read_settings({"REP_PURPOSE": "search", "USER_AGENT": "mybot"})
    rechecker = Rechecker(config, identity, lambda origin: None)
    rechecker.documents = WarcDocuments(
        Timeline.of(captured).at(_at(as_of)), rechecker.rules, rechecker.names
    )
    return rechecker


def test_a_first_capture_at_the_epoch_is_counted_as_its_items_say() -> None:
    """A first capture dated 1970-01-01T00:00:00Z (POSIX 0) after ``--as-of``: the items
    say so and the summary's count holds it (a date of 0 is a date)."""
    rechecker = _dated_rechecker("1969-12-31", (ROBOTS, _capture("1970-01-01T00:00:00Z", "a")))
    outcome = rechecker.decide("https://a.example/x")
    assert outcome.status is ItemStatus.UNKNOWN
    assert outcome.why.endswith("first captured on 1970-01-01T00:00:00Z")
    documents = rechecker.documents
    assert isinstance(documents, WarcDocuments)
    assert documents.captured_later == 1


def test_a_url_of_no_origin_is_unknown_beside_dated_captures() -> None:
    """What has no origin (no robots.txt to look for) is unknown, never an error."""
    rechecker = _dated_rechecker(JAN, (ROBOTS, _capture(JUN, "june")))
    assert origin_of("mailto:x@a.example") is None
    assert rechecker.decide("mailto:x@a.example").status is ItemStatus.UNKNOWN


def test_an_as_of_date_is_iso_in_utc() -> None:
    assert parse_as_of("2025-01-01") == datetime(2025, 1, 1, tzinfo=timezone.utc).timestamp()
    assert parse_as_of("2025-01-01T02:00:00+02:00") == parse_as_of("2025-01-01")
    with pytest.raises(ValueError):
        parse_as_of("last tuesday")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-03-01", "2025-03-01"),
        ("2025-03-01T00:00:00Z", "2025-03-01"),
        (1740787200, "2025-03-01"),  # an epoch in seconds
        ("1740787200", "2025-03-01"),
        (1740787200000, "2025-03-01"),  # in milliseconds
        (datetime(2025, 3, 1), "2025-03-01"),  # a Parquet timestamp, naive: UTC
    ],
)
def test_an_item_date_is_iso_or_epoch(value: object, expected: str) -> None:
    assert item_date(value) == parse_as_of(expected)


@pytest.mark.parametrize("value", [None, "", "soon", "nan", True, [2025]])
def test_a_missing_or_garbled_item_date_is_none(value: object) -> None:
    assert item_date(value) is None


def _then(tmp_path: Path, *robots: tuple[str, str]) -> Then:
    """What says ``then`` from one WARC per (date, robots.txt)."""
    paths = []
    for n, (date, text) in enumerate(robots):
        path = tmp_path / f"{n}.warc"
        write_warc(path, [robots_capture("https://a.example", text)], date=date)
        paths.append(path)
    config, identity, _ = read_settings({"REP_PURPOSE": "search", "USER_AGENT": "mybot"})
    timeline = Timeline.read(paths)

    def dated(captured: object) -> Rechecker:
        rechecker = Rechecker(config, identity, lambda origin: None)
        rechecker.documents = WarcDocuments(captured, rechecker.rules, rechecker.names)  # type: ignore[arg-type]
        return rechecker

    return Then(timeline, dated)


def test_then_is_what_the_capture_nearest_before_the_date_said(tmp_path: Path) -> None:
    then = _then(tmp_path, (JAN, "User-agent: *\nAllow: /\n"),
                 (JUN, "User-agent: *\nDisallow: /\n"))  # fmt: skip
    url = "https://a.example/x"
    assert then.of(url, "2025-03-01", by_date=True) == "kept"
    assert then.of(url, JAN, by_date=True) == "kept"
    assert then.of(url, "2025-07-01", by_date=True) == "refused"
    assert then.of(url, None, by_date=False) == "kept"  # undated: the oldest capture
    early = "2024-06-01T00:00:00Z"
    assert then.of(url, early, by_date=True) == no_capture_before(_at(early))
    assert no_capture_before(_at(early)) == f"no capture before {early}"
    assert then.undated == 0
    assert then.of(url, "garbled", by_date=True) == "unknown"
    assert then.of(url, None, by_date=True) == "unknown"
    assert then.undated == 2
    assert then.of("https://never.example/x", JUN, by_date=True) == "unknown"


def test_a_warc_date_without_an_offset_is_utc_as_an_as_of_date_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``WARC-Date`` written without its ``Z`` is read in UTC, as ``--as-of`` reads a
    date without an offset, never in the machine's time zone: ``--as-of`` at the very
    date of the capture sees it, wherever the recheck runs."""
    import time

    path = tmp_path / "naive.warc"
    write_warc(path, [robots_capture("https://a.example", "User-agent: *\nDisallow: /\n")],
               date="2024-01-01T00:00:00")  # fmt: skip
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        timeline = Timeline.read([path])
        as_of = parse_as_of("2024-01-01T00:00:00")
        assert ROBOTS in timeline.at(as_of)
        assert timeline.before(ROBOTS, as_of) == as_of
    finally:
        monkeypatch.undo()
        time.tzset()
