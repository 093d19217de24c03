"""A ``url`` or ``file`` record's fate read into a typed record (rep-engine/rep_engine/
records.py, :class:`FateRecord`, its entry by :meth:`UrlEntry.from_line`), never raising:
what the crawl writes, an earlier version's words, and hand-edited odd values (each ``""``
or ``None``, so every reader says what it says of a missing one)."""

from __future__ import annotations

from typing import Any

import pytest

from rep_engine.records import (
    Fate,
    FateRecord,
    FileFate,
    Reason,
    RefusedBy,
    RobotsPart,
    denied_purposes,
    describe,
)

#: The records as the crawl writes them (docs/audit-trail.md, ``url``), written out here:
#: tests/support/trailfactory.py reaches the audit tools, which an engine test may not.
ORIGIN, RUN = "http://site.test", "0123456789abcdef0123456789abcdef"
FETCHED = {"type": "url", "run": RUN, "time": "2026-11-23T14:00:02.000Z", "url": ORIGIN + "/",
           "fate": "fetched", "attempts": 1, "status": 200}  # fmt: skip


def test_a_refused_record_is_read_with_its_fate_what_refused_it_and_its_robots_line() -> None:
    robots = {"origin": ORIGIN, "snapshot": "ab" * 32, "agent": "testbot", "line": 2,
              "rule": "Disallow: /private"}  # fmt: skip
    record = {**FETCHED, "url": ORIGIN + "/private/x", "fate": "refused", "status": None,
              "refused_by": "robots.txt", "why": "Forbidden", "robots": robots}  # fmt: skip
    read = FateRecord.of(record)
    entry = read.entry
    assert (read.kind, read.run, entry.url, read.fate, RefusedBy.of(entry.refused_by)) == (
        "url", RUN, ORIGIN + "/private/x", Fate.REFUSED, RefusedBy.ROBOTS_TXT
    )  # fmt: skip
    assert (read.attempts, entry.status, entry.why, entry.output) == (1, None, "Forbidden", None)
    assert entry.reason == Reason.FORBIDDEN
    robots = entry.robots
    assert robots is not None and (robots.line, robots.rule) == (
        2, "Disallow: /private"
    )  # fmt: skip
    assert read.origin == ORIGIN and read.record is record


def test_a_page_whose_items_were_dropped_is_said_dropped_and_its_denials_read() -> None:
    usage = {"answers": {"ai-train": False, "search": True}}
    read = FateRecord.of({**FETCHED, "items_kept": 0, "items_dropped": 2,
                          "item_reason": "purpose", "usage": usage})  # fmt: skip
    said = describe(read.entry, ["ai-train"])
    assert said.dropped and said.state == "fetched, item dropped" and said.reason == "purpose"
    assert denied_purposes(read.entry.usage, ("ai-train", "search", "ai-input")) == ["ai-train"]
    kept_some = FateRecord.of({**FETCHED, "items_kept": 1, "items_dropped": 2})
    assert describe(kept_some.entry).dropped and describe(kept_some.entry).kept == 1


ODD: list[Any] = ["x", 1.5, True, [1], {"a": 1}, None]


@pytest.mark.parametrize("odd", ODD, ids=repr)
def test_an_odd_value_in_any_field_is_empty_or_none_never_an_error(odd: Any) -> None:
    record = {key: odd for key in ("type", "run", "time", "id", "url", "fate", "refused_by",
                                   "why", "to", "error", "attempts", "status", "items_kept",
                                   "items_dropped", "item_reason", "item_why", "robots",
                                   "usage")}  # fmt: skip
    read = FateRecord.of(record)
    entry = read.entry
    said = odd if isinstance(odd, str) else ""  # a string is as written, whatever it says
    assert (read.word, entry.url, entry.why, entry.to) == (said,) * 4
    assert entry.refused_by == ""  # said only of a refused record
    assert (read.attempts, entry.status, entry.output) == (None,) * 3
    assert read.fate is None and read.file_fate is None
    assert read.written == str(odd)  # the fate as written, for the reader
    assert entry.robots == (RobotsPart("", "", None, None, "") if odd == {"a": 1}
                            else None)  # fmt: skip
    assert entry.usage == ({"a": 1} if odd == {"a": 1} else None)
    assert read.origin == "(no origin)" and not describe(entry, ["ai-train"]).dropped


def test_a_robots_part_with_odd_values_keeps_those_of_their_type() -> None:
    part = {"origin": 7, "snapshot": "ab", "line": "3", "rule": None, "why": "no rule matches",
            "overridden": ["x"]}  # fmt: skip
    said = FateRecord.of({"robots": part})
    assert said.entry.robots == RobotsPart("ab", "", None, None, "no rule matches")
    assert said.origin == "(no origin)"  # an origin that is no string is not said
    for odd in ("robots", None):
        assert FateRecord.of({"robots": odd}).entry.robots is None


def test_the_words_of_earlier_trails_and_of_files_are_read_as_members() -> None:
    # never written by a crawl, read as a refusal for a purpose by verify: still a member
    earlier = FateRecord.of({"fate": "refused", "refused_by": "tdmrep.json"}).entry
    assert RefusedBy.of(earlier.refused_by) is RefusedBy.TDMREP_JSON
    another = FateRecord.of({"fate": "refused", "refused_by": "another_addon"}).entry
    assert RefusedBy.of(another.refused_by) is None and another.reason == "another_addon"
    for word in ("stored", "refused", "marked", "failed"):
        file = FateRecord.of({"type": "file", "fate": word, "why": "w", "error": "e"})
        assert file.file_fate is FileFate(word) and file.fate is None  # a file's, not a url's
        assert file.outcome == (word, "w", "e")
    # a record from before items were counted on it: nothing said, not zero
    old = FateRecord.of({"type": "url", "fate": "fetched", "url": ORIGIN + "/"})
    assert (old.fate, old.entry.output, old.entry.robots) == (Fate.FETCHED, None, None)
    assert old.origin == ORIGIN and not describe(old.entry).dropped
