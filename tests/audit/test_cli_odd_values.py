"""Every audit command reads a ``url`` record of odd values (hand-edited: a count that is
no number, a robots part whose fields are of other types, a time no clock can hold) as it
reads one without them (:class:`rep_engine.records.FateRecord` reads it for each), never
with a traceback; ``audit verify`` reports the value as it is."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rep_audit.cli import main
from tests.support.trailfactory import (
    ORIGIN,
    encode,
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)


def test_every_command_reads_a_record_of_odd_values_as_it_reads_a_missing_one(
    tmp_path: Path,
) -> None:
    odd = url_line("/odd", fate="fetched", attempts="x", status="200", items_kept="1",
                   items_dropped=None, robots={"origin": 5, "line": "2"})  # fmt: skip
    body = [snapshot_line(), odd]
    path = write_trail(tmp_path / "t.jsonl", lines=encode([run_line(), *body, end_line(body)]))
    outs = {}
    for argv in (["show", str(path), ORIGIN + "/odd"], ["list", str(path), "--format", "jsonl"],
                 ["summary", str(path)]):  # fmt: skip
        out = io.StringIO()
        assert main(argv, out) in (0, 1)
        outs[argv[0]] = out.getvalue()
    assert f"{ORIGIN}/odd was fetched: " not in outs["show"]  # no attempts, no status said
    assert f"{ORIGIN}/odd was fetched\n" in outs["show"]
    assert f"robots.txt of {ORIGIN}: no line decided it" in outs["show"]
    [row] = [json.loads(line) for line in outs["list"].splitlines()]
    assert (row["fate"], row["reason"], row["why"]) == ("fetched", "", "no rule (allowed)")
    assert "1 requested URL(s) (1 fetched), 0 item(s) kept, 0 dropped" in outs["summary"]
    html = tmp_path / "r.html"
    assert main(["report", str(path), "--html", str(html)], io.StringIO()) in (0, 1)
    assert "fetched</td>" in html.read_text(encoding="utf-8")


def test_every_command_reads_a_time_no_clock_can_hold_as_a_missing_one(tmp_path: Path) -> None:
    """A hand-edited ``sent_at``, ``expires`` or override end of year 1 without its zone
    (it parses, but the local clock may not hold it): ``show``, ``list``, ``summary`` and
    ``export`` tell the record as they tell one without the time, never a traceback
    (``audit verify`` reports the value as it is)."""
    robots = robots_part(2, "Disallow: /private")
    robots["override_ends"] = stamp = "0001-01-01T00:00:00"
    odd = url_line("/odd", fate="fetched", sent="GET", sent_at=stamp, expires=stamp,
                   robots=robots)  # fmt: skip
    body = [snapshot_line(), odd]
    path = write_trail(tmp_path / "t.jsonl", lines=encode([run_line(), *body, end_line(body)]))
    outs = {}
    for argv in (["show", str(path), ORIGIN + "/odd"], ["list", str(path), "--format", "jsonl"],
                 ["summary", str(path)], ["export", str(path)], ["verify", str(path)]):  # fmt: skip
        out = io.StringIO()
        assert main(argv, out) in (0, 1)
        outs[argv[0]] = out.getvalue()
    assert f"{ORIGIN}/odd was fetched" in outs["show"]
    assert [json.loads(line)["url"] for line in outs["list"].splitlines()] == [ORIGIN + "/odd"]
    assert "1 requested URL(s) (1 fetched)" in outs["summary"]
    assert f"its sent_at {stamp!r} is no time" in outs["verify"]
