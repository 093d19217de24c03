"""The trail's other lines read once into their records (rep-engine/rep_engine/records.py):
a ``run`` header (:class:`RunHeader`), a ``snapshot`` line (:class:`SnapshotLine`), and
the one reader of a time (:func:`seconds_of`); each value not of its type read as a
missing one, never an error."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest

from rep_engine.records import (
    RunHeader,
    SnapshotLine,
    SnapshotOutcome,
    seconds_of,
)
from rep_engine.settings import RepConfig
from rep_engine.trail.lines import run_line, snapshot_line

NOON = datetime(2026, 11, 26, 12, tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize(
    ("stamp", "naive", "seconds"),
    [
        ("2026-11-26T12:00:00Z", None, NOON),
        ("2026-11-26T12:00:00.250Z", None, NOON + 0.25),
        ("2026-11-26T14:00:00+02:00", None, NOON),
        ("2026-11-26T12:00:00", None, None),  # no zone: refused
        ("2026-11-26T12:00:00", "utc", NOON),  # a WARC-Date, --as-of
        ("2026-11-26", "utc", NOON - 12 * 3600),  # a date alone: its midnight
        ("2026-11-26T12:00:00", "local", datetime(2026, 11, 26, 12).timestamp()),
        ("0001-01-01T00:00:00", "local", None),  # before the machine's clock
        ("soon", "utc", None),
        ("", "utc", None),
        (None, "utc", None),
        (1795920765.9, "utc", None),  # a number is no ISO time
    ],
)
def test_a_time_is_read_once_with_what_its_missing_zone_means(
    stamp: Any, naive: Any, seconds: float | None
) -> None:
    assert seconds_of(stamp, naive) == seconds


def test_a_run_header_is_read_once_into_its_fields() -> None:
    settings = {"USER_AGENT": "Bot/1.0"}
    config = RepConfig(purpose=("ai-train",), purpose_agents=("gptbot",))
    written = run_line("r" * 32, config, settings, "spider", "p" * 32, "/job", "/t.jsonl", "h")
    written["settings"]["REP_ROBOTSTXT_CACHE"] = "redis://cache:6379/0"  # a shared store
    header = RunHeader.of(json.loads(json.dumps(written)))
    assert (header.run, header.spider, header.schema, header.purposes) == (
        "r" * 32, "spider", written["schema"], ("ai-train",),
    )  # fmt: skip
    assert (header.agents, header.user_agent, header.profile) == (
        ("bot", "gptbot"), "Bot/1.0", config.profile,
    )  # fmt: skip
    assert (header.resumes, header.resumes_trail, header.resumes_head) == (
        "p" * 32,
        "/t.jsonl",
        "h",
    )
    assert header.time == written["time"] and header.version == written["version"]
    assert header.settings == written["settings"] and header.scheduler is None
    assert header.store == "redis://cache:6379/0" and header.web_bot_auth is None
    assert header.said() == (
        "spider spider, purposes ai-train, agents bot, gptbot, scheduler not recorded, "
        "robots.txt store redis://cache:6379/0"
    )


@pytest.mark.parametrize("odd", [None, 3, "x", ["a", 1], {"a": 1}, True], ids=repr)
def test_a_run_header_of_odd_values_reads_them_as_missing(odd: Any) -> None:
    names = ("run", "time", "spider", "version", "schema", "purposes", "agents", "user_agent",
             "profile", "settings", "resumes", "scheduler", "web_bot_auth", "recheck")  # fmt: skip
    header = RunHeader.of(dict.fromkeys(names, odd))
    said = odd if isinstance(odd, str) else ""
    assert (header.run, header.spider, header.profile, header.resumes) == (said,) * 4
    assert header.schema == (3 if odd == 3 else None)
    assert header.purposes == header.agents == (("a",) if odd == ["a", 1] else ())
    assert header.settings == (odd if isinstance(odd, dict) else {})
    assert header.scheduler == (odd if isinstance(odd, str) else None)
    assert header.web_bot_auth == header.recheck == (odd if isinstance(odd, dict) else None)
    assert header.said().startswith(f"spider {said or '?'}, purposes ")


@pytest.mark.parametrize(
    ("sha", "outcome"), [("a" * 64, SnapshotOutcome.PARSED), ("", SnapshotOutcome.ABSENT)]
)
def test_a_snapshot_line_is_written_with_its_outcome_and_read_once(
    sha: str, outcome: SnapshotOutcome
) -> None:
    written = snapshot_line(
        "r", sha, "robots.txt", "http://a.test/robots.txt", "", 404, "404", NOON, 0
    )
    assert written["outcome"] == outcome
    line = SnapshotLine.of(json.loads(json.dumps(written)))
    assert (line.run, line.kind, line.url, line.final_url, line.status) == (
        "r", "robots.txt", "http://a.test/robots.txt", "", 404,
    )  # fmt: skip
    assert (line.outcome, line.said, line.detail, line.size) == (outcome, outcome, "404", 0)
    assert line.sha256 == written["sha256"] and line.fetched == pytest.approx(NOON)
    written_at = datetime.fromisoformat(written["time"].replace("Z", "+00:00"))
    assert line.time == pytest.approx(written_at.timestamp(), abs=1e-3)


@pytest.mark.parametrize(
    ("said", "outcome"),
    [
        ("gave-up", SnapshotOutcome.GAVE_UP),  # earlier trails' words, read
        ("unreachable", SnapshotOutcome.UNREACHABLE),
        ("cut", SnapshotOutcome.CUT),
        ("robots.txt unreachable for 3600 s: gave up, allowed", None),  # quoted, as written
        (7, None),
    ],
)
def test_a_snapshot_lines_outcome_of_an_earlier_trail_or_another_word(
    said: Any, outcome: SnapshotOutcome | None
) -> None:
    line = SnapshotLine.of({"outcome": said, "status": "200", "time": "x", "bytes": -1.5})
    assert (line.outcome, line.said) == (outcome, said if isinstance(said, str) else "")
    assert (line.status, line.time, line.fetched, line.size, line.sha256) == (
        None, None, None, None, "",
    )  # fmt: skip
