"""``python -m scrapy_rep audit …`` and ``scrapy rep-audit …`` (docs/audit-trail.md,
"Reading the trail"): exit codes, options, ``REP_AUDIT_FILE`` read by the Scrapy command,
a reader that goes away, a repair that lets the next crawl chain on, several trails,
crawled text escaped. Read in this process as their command lines are (``python -m
scrapy_rep``'s ``main``, Scrapy's ``scrapy.cmdline.execute``: :mod:`tests.support.tools`;
the entry points as processes: ``python -m scrapy_rep`` in tests/integration/test_check.py,
the ``scrapy`` commands' registration in tests/integration/test_commands.py); a process of
its own for a reader that goes away (the tools' own tests: tests/audit/)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted

from rep_audit.cli import main
from rep_audit.verify import verify
from tests.support.robotsite import crawl, refused_at_start
from tests.support.tools import (
    audit_streams,
    audit_tool,
    main_streams,
    scrapy_streams,
)
from tests.support.trailfactory import (
    OTHER_RUN,
    ROBOTS,
    RUN,
    SECOND_RUN,
    TITLE,
    assert_terminal_safe,
    cut_trail,
    end_line,
    hostile_trail,
    robots_part,
    run_line,
    sha,
    snapshot_line,
    snapshotted_records,
    url_line,
    worker_trails,
    write_trail,
)


@pytest.fixture
def trail(tmp_path: Path) -> Path:
    return write_trail(tmp_path / "trail.jsonl")


def test_verify_exit_codes_from_the_command_line(trail: Path, tmp_path: Path) -> None:
    status, out, err = main_streams("audit", "verify", str(trail))
    assert status == 0, err
    assert re.search(r"trail\.jsonl: clean: 6 line\(s\), 1 run\(s\), 3 record\(s\)", out)
    lines = trail.read_bytes().splitlines(keepends=True)
    trail.write_bytes(b"".join(lines[:3] + lines[4:]))  # a line deleted
    status, out, err = audit_streams("verify", str(trail))
    assert status == 1 and "line 4: chain broken" in out, out + err
    status, out, err = audit_streams("verify", str(tmp_path / "nothing.jsonl"))
    assert (status, out) == (2, "") and err.strip().count("\n") == 0 and "no such file" in err
    (tmp_path / "notes.txt").write_text("not a trail\n")
    status, out, err = audit_streams("verify", str(tmp_path / "notes.txt"))
    assert (
        status == 2 and err == f"scrapy_rep: error: {tmp_path / 'notes.txt'}: not an audit trail\n"
    )


def test_scrapy_audit_reads_rep_audit_file(trail: Path, tmp_path: Path) -> None:
    status, out, err = scrapy_streams("rep-audit", "verify", "-s", f"REP_AUDIT_FILE={trail}")
    assert status == 0 and "clean" in out, out + err
    status, out, err = scrapy_streams(
        "rep-audit", "show", "http://site.test/", "-s", f"REP_AUDIT_FILE={trail}"
    )
    assert status == 0 and "http://site.test/ was fetched" in out, out + err
    status, out, err = scrapy_streams("rep-audit", "verify")
    assert status == 2 and "give TRAIL, or set REP_AUDIT_FILE" in err
    status, out, err = scrapy_streams("rep-audit", "summary", str(tmp_path / "missing"))
    assert status == 2 and "no such file" in err


def test_verify_head_option(trail: Path) -> None:
    head = sha(trail.read_bytes().splitlines(keepends=True)[-1])
    assert audit_tool("verify", str(trail), "--head", head)[0] == 0
    status, out = audit_tool("verify", str(trail), "--head", head, "--head", "0" * 64)
    assert status == 1 and f"no line hashes to the head {'0' * 64}" in out
    status, out, err = scrapy_streams(
        "rep-audit", "verify", "--head", "0" * 64, "-s", f"REP_AUDIT_FILE={trail}"
    )
    assert status == 1 and "no line hashes to the head" in out, out + err


def test_verify_json(trail: Path) -> None:
    status, out = audit_tool("verify", str(trail), "--json")
    result = json.loads(out)
    assert status == 0 and result["clean"] is True and result["findings"] == []
    assert (result["lines"], result["runs"], result["records"], result["snapshots"]) == (6, 1, 3, 1)
    assert result["head"] == sha(trail.read_bytes().splitlines(keepends=True)[-1])
    (trail.parent / "trail.jsonl.d" / sha(ROBOTS)).unlink()
    status, out = audit_tool("verify", str(trail), "--json")
    result = json.loads(out)
    assert status == 1 and result["clean"] is False
    assert result["findings"][1] == {
        "line": 3,
        "url": "http://site.test/",
        "what": f"robots.txt snapshot {sha(ROBOTS)[:12]}… missing: no file {sha(ROBOTS)} in "
        f"{trail.parent / 'trail.jsonl.d'}",
    }
    status, out, err = scrapy_streams(
        "rep-audit", "verify", "--json", "-s", f"REP_AUDIT_FILE={trail}"
    )
    assert status == 1 and json.loads(out)["clean"] is False, err


def test_python_m_scrapy_rep_lists_and_runs_audit(trail: Path) -> None:
    status, out, err = main_streams("audit", "verify", str(trail))
    assert status == 0 and "clean" in out, err
    status, out, err = main_streams("--help")
    assert status == 0 and "audit" in out and "check" in out


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path: Path) -> None:
    """``audit verify trail | head``: the pipe closes early; exit 1, nothing on stderr."""
    body = [
        snapshot_line(),
        *(url_line(f"/p/{n}", robots=robots_part(None)) for n in range(3000)),
    ]
    trail = write_trail(tmp_path / "t.jsonl", [run_line(), *body, end_line(body)], bodies=())
    process = subprocess.Popen(
        [sys.executable, "-m", "scrapy_rep", "audit", "verify", str(trail)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(100)  # 3,001 findings: far more than a pipe holds
    process.stdout.close()
    with process.stderr:
        error = process.stderr.read()
    assert process.wait(timeout=120) == 1
    assert error == b""


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
@pytest.mark.trail_not_verified("the cut run stays a problem: the test verifies the trail")
@pytest_twisted.ensureDeferred
async def test_a_cut_trail_repaired_verifies_with_the_cut_as_an_event_and_a_crawl_chains_on(
    tmp_path: Path, name: str
) -> None:
    trail = tmp_path / name
    whole, cut = cut_trail(trail)
    status, out = audit_tool("verify", str(trail))
    assert status == 1 and "cut" in out
    # refused at start, as before: the chain cannot go on (in this process: the line)
    line = await refused_at_start(
        {"REP_AUDIT_FILE": str(trail)}, {"ADDONS": {"scrapy_rep.Addon": 0}}, urls=()
    )
    assert "\n" not in line
    assert line.startswith(f"scrapy_rep: error: REP_AUDIT_FILE: {trail} ")
    assert line.endswith(f"; repair it (python -m scrapy_rep audit repair {trail}) or move it away")

    status, out = audit_tool("repair", str(trail))
    assert status == 0
    assert out == (
        f"{trail}: repaired: {len(cut)} byte(s) of a cut line dropped, a repair line "
        "appended; `audit verify` lists it as an event, and reports run(s) ffffffff: without "
        "their end line, what they did after their last whole line cannot be accounted for\n"
    )
    data = trail.read_bytes()
    assert data.startswith(whole)  # the whole lines, as they were
    lines = (gzip.decompress(data) if name.endswith(".gz") else data).splitlines(keepends=True)
    record = json.loads(lines[-1])
    assert record["type"] == "repair" and record["dropped_bytes"] == len(cut)
    assert record["dropped_sha256"] == hashlib.sha256(cut).hexdigest()
    assert record["prev"] == sha(lines[-2]) and record["time"].endswith("Z")
    assert (record["kept_lines"], record["open_runs"]) == (11, [SECOND_RUN])

    # The cut took the second run's end line: the repair says so, it does not excuse it.
    status, out = audit_tool("verify", str(trail))
    assert status == 1, out
    assert out.splitlines()[:2] == [
        f"line 12: event: repaired on {record['time']}: {len(cut)} byte(s) of a cut line dropped",
        "line 7: run ffffffff has no end line: it was open when the repair at line 12 dropped "
        "a cut line (the crawl was killed, or lines were cut from the trail's end before the "
        "repair): nothing of it after line 11 is in the trail",
    ]
    assert f"{trail}: 1 problem(s), 1 event(s): 12 line(s), 2 run(s), 6 record(s)" in out
    status, out = audit_tool("verify", str(trail), "--json")
    assert status == 1 and json.loads(out)["events"] == [
        {"line": 12, "what": f"repaired on {record['time']}: {len(cut)} byte(s) of a cut line "
         "dropped"}
    ]  # fmt: skip
    assert audit_tool("repair", str(trail)) == (
        0,
        f"{trail}: nothing to repair: it ends with a whole line\n",
    )

    # the next crawl (in this process) chains on the repair line
    await crawl([], {"REP_AUDIT_FILE": str(trail)})
    status, out = audit_tool("verify", str(trail))
    assert status == 1, out  # the cut run stays a problem; the new run is whole
    # the new run: its site lines counting the two earlier runs' records, and its head
    assert "1 problem(s), 1 event(s): 17 line(s), 3 run(s)" in out


def test_scrapy_audit_repair_reads_rep_audit_file(tmp_path: Path) -> None:
    trail = tmp_path / "trail.jsonl"
    _, cut = cut_trail(trail)
    status, out, err = scrapy_streams("rep-audit", "repair", "-s", f"REP_AUDIT_FILE={trail}")
    assert status == 0, err
    assert f"{trail}: repaired: {len(cut)} byte(s) of a cut line dropped" in out
    assert [f.line for f in verify(trail).findings] == [7]  # the cut run has no end line


def test_scrapy_audit_passes_several_files_through(tmp_path: Path) -> None:
    trails = worker_trails(
        tmp_path, snapshotted_records(RUN, ["/1", "/2"]), snapshotted_records(OTHER_RUN, ["/3"])
    )
    for argv in (["verify", *trails], ["show", *trails, "http://site.test/3"]):
        status, out, err = scrapy_streams("rep-audit", *argv)
        assert status == 0, out + err
    assert out.startswith(f"{trails[1]}:\n")
    status, out, err = scrapy_streams("rep-audit", "summary", *trails)
    assert out.startswith("2 run(s), 3 requested URL(s)"), err


def test_scrapy_audit_and_errors_are_escaped(tmp_path: Path) -> None:
    trail = hostile_trail(tmp_path / "t.jsonl")
    status, out, err = scrapy_streams(
        "rep-audit", "show", "http://site.test/x", "-s", f"REP_AUDIT_FILE={trail}"
    )
    assert status == 0, err
    assert_terminal_safe(out)
    assert "RSL says no\\r\\nline 1" in out
    err = io.StringIO()
    missing = str(tmp_path / f"no{TITLE}.jsonl")
    sys_stderr, sys.stderr = sys.stderr, err
    try:
        assert main(["verify", missing], io.StringIO()) == 2
    finally:
        sys.stderr = sys_stderr
    assert_terminal_safe(err.getvalue().rstrip("\n"))
    assert "no\\x1b]0;pwned" in err.getvalue()


def test_rep_audit_names_itself_in_its_errors(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "rep_audit", "verify", str(tmp_path / "none")],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2 and done.stderr.startswith("rep-audit: error: "), done.stderr
    assert len(done.stderr.splitlines()) == 1
