"""A requested URL's entry: its ``url`` line both ways, and the state ``JOBDIR`` keeps of
it (this version's, its line; version 5's, by name; and the positional lists earlier
versions kept)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rep_engine.records import (
    STATE_VERSION,
    Fate,
    PageOutput,
    Reason,
    RobotsPart,
    UrlEntry,
    iso_time,
    response_fate,
)

SHA = "a" * 64
ENDS = 1_790_000_000.25


def _every_field() -> UrlEntry:
    robots = RobotsPart(
        SHA, "testbot", 3, "Disallow: /x", "", True, "permission (through 2026-12-01)", "",
        ("testbot", "Testbot/2.0"), ENDS, "http://b.test", "b" * 64,
    )  # fmt: skip
    return UrlEntry(
        "http://a.test/x", 2, 200, 1, robots, "c" * 64, True, {"http://a.test/l.xml": "d" * 64},
        "e" * 40 + "-1", "url changed", ENDS - 1.5, ENDS, True,
    )  # fmt: skip


@pytest.mark.parametrize(
    "entry",
    [
        UrlEntry("http://a.test/"),
        UrlEntry("http://a.test/", robots=RobotsPart("", "bot", None, None, "no robots", False)),
        UrlEntry("http://a.test/", robots=RobotsPart(SHA, "bot", None, None, "robots.txt 404")),
        UrlEntry("http://a.test/", tdm="", sent_at=ENDS),
        _every_field(),
    ],
)
def test_an_entry_written_as_a_url_line_reads_back_as_the_same_entry_and_line(
    entry: UrlEntry,
) -> None:
    entry.fate, entry.why, entry.usage = Fate.FETCHED, "because", {"ai-train": False}
    entry.output = PageOutput(2, 2, True)
    record = entry.line("r" * 32, "f" * 40 + "-7", "2026-11-26T10:00:00.000Z")
    assert record["robots" if entry.robots else "url"]  # the parts are written
    back = UrlEntry.from_line(json.loads(json.dumps(record)))
    assert (back.fate, back.why, back.usage, back.output) == (
        entry.fate, entry.why, entry.usage, entry.output,
    )  # fmt: skip
    again = back.line("r" * 32, "f" * 40 + "-7", record["time"])
    assert list(again.items()) == list(record.items())
    assert back.sent_at == (
        None if entry.sent_at is None else pytest.approx(entry.sent_at, abs=1e-3)
    )
    # the fields a line cannot say (why a decided line decided) are all it loses
    if entry.robots is not None and entry.robots.line is not None:
        assert back.robots == entry.robots._replace(override_ends=back.robots.override_ends)


def test_a_line_s_times_are_written_back_to_the_millisecond() -> None:
    for stamp in (
        "2026-11-26T10:00:00.999Z",
        "2026-11-26T10:00:00.001Z",
        "2026-11-26T10:00:00.000Z",
    ):
        entry = UrlEntry("http://a.test/", fate=Fate.FETCHED)
        record = entry.line("r", "k", stamp)
        record["sent_at"], record["expires"] = stamp, stamp
        back = UrlEntry.from_line(record)
        assert back.sent_at is not None and iso_time(back.sent_at) == stamp


@pytest.mark.parametrize("odd", ["x", 1.5, True, [1], {"a": 1}, None], ids=repr)
def test_a_line_of_odd_values_reads_as_a_missing_one_never_an_error(odd: Any) -> None:
    keys = ("url", "attempts", "status", "held", "robots", "tdmrep", "rsl", "again", "sent",
            "sent_at", "expires", "unscheduled", "fate", "refused_by", "to", "items_kept",
            "items_dropped", "usage", "page")  # fmt: skip
    entry = UrlEntry.from_line(dict.fromkeys(keys, odd))
    said = odd if isinstance(odd, str) else ""
    assert (entry.url, entry.attempts, entry.status, entry.held) == (said, 0, None, 0)
    assert (entry.tdm, entry.sent, entry.sent_at) == (said or None, said or None, None)
    assert entry.licenses == ({"a": ""} if odd == {"a": 1} else None)  # a value as ""
    assert entry.robots == (RobotsPart("", "", None, None, "") if odd == {"a": 1} else None)
    assert (entry.fate, entry.refused_by, entry.output) == (None, "", None)  # no fate's word
    assert entry.to == said and entry.usage == entry.page == (odd if odd == {"a": 1} else None)


def _open(entry: UrlEntry) -> UrlEntry:
    """``entry`` as it is open: its response not come (``JOBDIR`` keeps no other)."""
    entry.fetched = False
    return entry


def _kept(saved: Any, version: int = STATE_VERSION) -> UrlEntry:
    """The entry a state of ``version`` kept in ``JOBDIR`` (JSON both ways) reads back as."""
    return UrlEntry.from_state(json.loads(json.dumps(saved)), version)


def test_an_entry_kept_in_jobdir_reads_back_as_an_entry_writing_the_same_line() -> None:
    """``JOBDIR`` keeps an open entry as its ``url`` line: read back, it writes the same
    line (its times to the millisecond, as the line says them)."""
    entry = _open(_every_field())
    back = _kept(entry.line("r" * 32, "k-1", "2026-11-26T10:00:00.000Z"))
    assert back.line("r", "k", "t") == entry.line("r", "k", "t")
    assert back.sent_at == pytest.approx(entry.sent_at, abs=1e-3)
    assert back == UrlEntry(**{**vars_of(entry), "sent_at": back.sent_at, "expires": back.expires,
                               "robots": back.robots})  # fmt: skip
    assert back.robots == entry.robots._replace(override_ends=back.robots.override_ends)


def vars_of(entry: UrlEntry) -> dict[str, Any]:
    return {name: getattr(entry, name) for name in entry.__slots__}


_TEN = [
    "http://a.test/x",
    1,
    None,
    0,
    1,
    "",
    ["a" * 64, "bot", 2, "Allow: /", ""],
    "",
    False,
    False,
]
_FIFTEEN = [
    "http://a.test/", 2, 404, 0, 0, "", None, "", True, True, {"l": "s"}, "k-1", "moved", 5.0, 9.0,
]  # fmt: skip
_NOT_OBEYED = ["", "bot", None, None, "not obeyed", False, "", "", ["a", "b"]]
_TWELVE = ["http://a.test/z", 0, None, 0, 2, "", _NOT_OBEYED, None, False, False, None, ""]


@pytest.mark.parametrize(
    ("saved", "expected"),
    [
        # before schema 2: ten places, a tdmrep of "" meant none checked
        (_TEN, UrlEntry("http://a.test/x", 1, None, 1, RobotsPart(SHA, "bot", 2, "Allow: /", ""))),
        # the fifteen places of the last positional version: "" is a tdmrep given up on
        (
            _FIFTEEN,
            UrlEntry("http://a.test/", 2, 404, 0, None, "", True, {"l": "s"}, "k-1", "moved", 5, 9),
        ),
        # twelve: the earlier record's id and the licenses, nothing sent yet
        (
            _TWELVE,
            UrlEntry(
                "http://a.test/z", held=2,
                robots=RobotsPart("", "bot", None, None, "not obeyed", False, agents=("a", "b")),
            ),
        ),
    ],
)  # fmt: skip
def test_an_entry_an_earlier_version_kept_in_jobdir_is_read_by_place(
    saved: list[Any], expected: UrlEntry
) -> None:
    back = _kept(saved, 4)
    assert back.line("r", "k", "t") == expected.line("r", "k", "t")
    assert back == UrlEntry(**{**vars_of(expected), "sent_at": back.sent_at,
                               "expires": back.expires})  # fmt: skip
    assert (back.sent_at, back.expires) == (
        pytest.approx(expected.sent_at, abs=1e-3) if expected.sent_at else None,
        pytest.approx(expected.expires, abs=1e-3) if expected.expires else None,
    )


def test_an_entry_version_5_kept_in_jobdir_is_read_by_name() -> None:
    """Version 5 (27291d8, 237886c2) kept an open entry's fields by name, its robots part
    a list and its times as seconds."""
    saved = {"url": "http://a.test/", "attempts": 1, "status": None, "held": 2,
             "robots": [SHA, "bot", 3, "Allow: /", "", True, "why", "", ["a", "b"], ENDS, "", None],
             "tdm": "", "fetched": False, "licenses": {"http://a.test/l": SHA}, "earlier": "k-0",
             "sent": "url changed", "sent_at": ENDS - 1, "expires": None,
             "unscheduled": True}  # fmt: skip
    back = _kept(saved, 5)
    robots = RobotsPart(SHA, "bot", 3, "Allow: /", "", True, "why", "", ("a", "b"), ENDS, "", None)
    assert back.robots == robots._replace(override_ends=pytest.approx(ENDS, abs=1e-3))
    assert (back.url, back.attempts, back.held, back.tdm, back.licenses) == (
        "http://a.test/", 1, 2, "", {"http://a.test/l": SHA},
    )  # fmt: skip
    assert (back.earlier, back.sent, back.expires, back.unscheduled) == (
        "k-0", "url changed", None, True,
    )  # fmt: skip
    assert back.sent_at == pytest.approx(ENDS - 1, abs=1e-3)


@pytest.mark.parametrize(
    ("saved", "version", "read"),
    [
        ([*_FIFTEEN[:1], "1", *_FIFTEEN[2:]], 4, ("attempts", 0)),
        ([*_TEN[:8], 1, False], 4, ("fetched", False)),
        ([*_FIFTEEN[:13], float("inf"), 9.0], 4, ("sent_at", None)),
        ({"url": "http://a.test/", "held": None}, 5, ("held", 0)),
        ({"url": "http://a.test/", "robots": [1, 2, 3, 4, 5]}, 5,
         ("robots", RobotsPart("", "", 3, "", ""))),
        ({"url": "http://a.test/", "licenses": ["x"]}, 5, ("licenses", None)),
        ({"url": "http://a.test/", "sent_at": 1e300}, 5, ("sent_at", None)),
        ({"url": 5, "fate": "refused"}, 5, ("url", "")),
        ({"url": "http://a.test/", "attempts": "3"}, 6, ("attempts", 0)),
        ({"url": "http://a.test/", "robots": [SHA]}, 6, ("robots", None)),
        (["http://a.test/"], 4, ("url", "http://a.test/")),
        ("odd", 5, ("url", "")),
        ("odd", 6, ("url", "")),
    ],
)  # fmt: skip
def test_a_value_kept_in_jobdir_not_of_its_type_is_read_as_a_missing_one(
    saved: Any, version: int, read: tuple[str, Any]
) -> None:
    """A hand-edited state, of any version: a value not of its field's type is read as a
    missing one, as in every trail line (decision D2); never an entry whose field a later
    ``attempts += 1`` or line fails on, never an open entry with a fate."""
    name, value = read
    back = _kept(saved, version)
    assert getattr(back, name) == value
    assert back.fate is None
    back.attempts += 1
    back.fate = Fate.UNFINISHED
    assert json.loads(json.dumps(back.line("r", "k")))["url"] == back.url


def test_the_decision_an_entry_carries_for_the_readers_is_never_kept() -> None:
    """The verdict and facts on an entry are for the running crawl's readers (the tools):
    neither its ``url`` line nor its state in ``JOBDIR`` holds them."""
    from rep_engine.verdict.decide import UNCHECKED

    entry = _open(_every_field())
    entry.decision = (UNCHECKED, None)  # type: ignore[assignment]
    saved = json.loads(json.dumps(entry.line("r", "k-1")))  # nothing of it but JSON
    assert "decision" not in saved
    assert _kept(saved).decision is None
    entry.fate = Fate.FETCHED
    assert "decision" not in json.dumps(entry.line("r", "k-1"))


@pytest.mark.parametrize(
    "stamp", ["0001-01-01T00:00:00", "0001-01-01T00:00:00.000", "9999-12-31T23:59:59"]
)
def test_a_time_no_clock_can_hold_reads_as_a_missing_one_never_an_error(stamp: str) -> None:
    """A hand-edited time that parses but has no POSIX seconds (a year-1 time without its
    zone: the local clock may not hold it) is read as a missing one, as one that does not
    parse is: ``audit show``, ``list``, ``summary`` and ``export`` read every url line
    through :meth:`UrlEntry.from_line`."""
    part = {"snapshot": SHA, "line": 3, "rule": "Disallow: /x", "override_ends": stamp}
    record = {"url": "http://a.test/x", "sent": "GET", "sent_at": stamp, "expires": stamp,
              "robots": part}  # fmt: skip
    entry = UrlEntry.from_line(record)
    assert entry.url == "http://a.test/x" and entry.robots is not None
    assert entry.robots.line == 3
    for seconds in (entry.sent_at, entry.expires, entry.robots.override_ends):
        assert seconds is None or isinstance(seconds, float)  # None where the clock fails


@pytest.mark.parametrize(
    ("refused_by", "tdm", "reason"),
    [
        ("robots.txt", None, Reason.FORBIDDEN),
        ("unreachable", None, Reason.ROBOTSTXT_UNREACHABLE),
        ("unreachable", "", Reason.TDMREP_UNREACHABLE),  # the tdmrep.json it names, given up on
        ("purpose", "c" * 64, Reason.PURPOSE),
        ("closed", None, Reason.SPIDER_CLOSED),
        ("internal_error", None, Reason.INTERNAL_ERROR),
        ("another_add_on", None, "another_add_on"),
    ],
)
def test_a_refused_lines_reason_is_read_back_from_what_refused_it(
    refused_by: str, tdm: str | None, reason: str
) -> None:
    """The record says what refused it in the trail's words (``refused_by``); its entry
    reads the reason back, and writes the word as it was."""
    record = {"url": "http://a.test/x", "fate": "refused", "refused_by": refused_by}
    if tdm is not None:
        record["tdmrep"] = tdm
    entry = UrlEntry.from_line(record)
    assert (entry.fate, entry.reason, entry.refused_by) == (Fate.REFUSED, reason, refused_by)
    assert entry.line("r", "k-1")["refused_by"] == refused_by


def test_times_of_two_seconds_in_turn_are_each_formatted_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A recheck's lines say in turn the time now and a capture's: one second formatted
    at a time, each of them was formatted again every time."""
    from rep_engine import records

    formatted: list[float] = []
    real = records.datetime

    class Counting:
        @staticmethod
        def fromtimestamp(when: float, zone: Any) -> Any:
            formatted.append(when)
            return real.fromtimestamp(when, zone)

    monkeypatch.setattr(records, "datetime", Counting)
    records._SECONDS.clear()
    said = [records.iso_time(when) for when in (1743508800.25, 1764400000.5) * 50]
    assert said[:2] == ["2025-04-01T12:00:00.250Z", "2025-11-29T07:06:40.500Z"]
    assert said == said[:2] * 50 and formatted == [1743508800, 1764400000]


def test_a_page_answered_402_reads_back_with_its_fate_and_price() -> None:
    """``payment_required`` is a response's fate (``fetched`` stays true on the entry read
    back, its output counted, ``answered`` kept), its ``payment`` part both ways; a part
    not of its type (a hand-edited trail) reads as none, its non-string values dropped."""
    price = {"crawler-price": "USD 0.01"}
    entry = UrlEntry("http://a.test/p", 1, 402, fate=response_fate(402), payment=price)
    entry.output, entry.answered = PageOutput(1, 1, True), True
    record = entry.line("r" * 32, "k", "2026-11-26T10:00:00.000Z")
    assert (record["fate"], record["payment"], record["answered"]) == (
        "payment_required", price, True,
    )  # fmt: skip
    back = UrlEntry.from_line(json.loads(json.dumps(record)))
    assert (back.fate, back.fetched, back.payment, back.output, back.answered) == (
        Fate.PAYMENT_REQUIRED, True, price, entry.output, True,
    )  # fmt: skip
    assert list(back.line("r" * 32, "k", record["time"]).items()) == list(record.items())
    odd_parts = [("USD 1", None), ({"crawler-price": 1}, None), ({}, None),
                 ({"crawler-price": "USD 1", "x": 2}, {"crawler-price": "USD 1"})]  # fmt: skip
    for odd, read in odd_parts:
        assert UrlEntry.from_line({**record, "payment": odd}).payment == read
    assert [response_fate(status) for status in (200, 402, 404, None)] == [
        Fate.FETCHED, Fate.PAYMENT_REQUIRED, Fate.FETCHED, Fate.FETCHED,
    ]  # fmt: skip
