"""``audit repair``: a trail cut in the middle of a line stops the next crawl (its chain
cannot go on) and reads as a damaged file; repaired, its whole lines are kept, the cut is
recorded in a ``repair`` line chained on them, ``verify`` lists it as an event, and the
next crawl chains on. A repair launders nothing: what it cannot account for (a run
without its end line, lines after the repair, a trail with nothing whole before it)
stays a problem of ``verify``, and a file that is not a trail, or is damaged otherwise
than by a cut at its end, is left as it was. The next crawl and ``scrapy rep-audit repair``:
tests/integration/test_audit_cli.py."""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rep_audit.repair import repair
from rep_audit.verify import verify
from rep_engine.trail.file import TrailFile, TrailFileError
from rep_engine.trail.read import TrailError
from tests.support.tools import audit_tool
from tests.support.trailfactory import (
    RUN,
    SECOND_RUN,
    cut_trail,
    encode,
    end_line,
    sha,
    standard_records,
    stored_lines,
    url_line,
    write_trail,
)


def test_a_run_left_open_after_a_repair_is_still_a_problem(tmp_path: Path) -> None:
    trail = tmp_path / "trail.jsonl"
    cut_trail(trail)
    repair(trail)
    with trail.open("rb") as file:
        prev = sha(file.read().splitlines(keepends=True)[-1])
    third = [{**record, "run": "e" * 32} for record in standard_records()][:-1]
    with trail.open("ab") as file:
        file.write(b"".join(encode(third, prev=prev)))
    result = verify(trail)
    assert [f.what for f in result.findings] == [
        "run ffffffff has no end line: it was open when the repair at line 12 dropped a cut "
        "line (the crawl was killed, or lines were cut from the trail's end before the "
        "repair): nothing of it after line 11 is in the trail",
        "run eeeeeeee has no end line: the crawl was killed, or the trail was cut after it",
    ]
    assert len(result.events) == 1


def test_repair_refuses_what_it_must_not_touch(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"a note\nwithout an end")
    assert audit_tool("repair", str(notes))[0] == 2
    assert notes.read_bytes() == b"a note\nwithout an end"
    assert audit_tool("repair", str(tmp_path / "missing.jsonl"))[0] == 2
    trail = tmp_path / "trail.jsonl"
    whole, cut = cut_trail(trail)
    with trail.open("rb") as held:  # a crawl is writing it
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        with pytest.raises(TrailError, match="is being written by another crawl"):
            repair(trail)
    assert trail.read_bytes() == whole + cut
    with pytest.raises(TrailFileError, match="cut line"):
        TrailFile(trail)
    clean = write_trail(tmp_path / "clean.jsonl")
    before = clean.read_bytes()
    assert repair(clean).record is None and clean.read_bytes() == before


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
def test_a_trail_cut_in_its_first_line_is_not_repaired(tmp_path: Path, name: str) -> None:
    """Nothing whole to keep: a repair line alone would stand for the whole trail (the
    file might have held a whole crawl before it was cut to a few bytes)."""
    trail = tmp_path / name
    first = encode(standard_records())[0][:30]
    trail.write_bytes(gzip.compress(first)[:-3] if name.endswith(".gz") else first)
    before = trail.read_bytes()
    with pytest.raises(TrailError, match="no whole line in it"):
        repair(trail)
    assert trail.read_bytes() == before
    with pytest.raises(TrailError, match="not an audit trail"):
        verify(trail)


# ------------------------------------------------------------------ a repair launders nothing


def two_runs() -> list[bytes]:
    """Two whole runs, chained: 12 lines."""
    lines = encode(standard_records())
    return lines + encode(
        [{**r, "run": SECOND_RUN} for r in standard_records()], prev=sha(lines[-1])
    )


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
@pytest.mark.parametrize("deleted", [1, 3, 5, 7, 11])
def test_lines_deleted_from_the_end_then_junk_stay_a_problem_after_the_repair(
    tmp_path: Path, name: str, deleted: int
) -> None:
    """Whole lines cut from the end, a few junk bytes appended, repaired: the runs the
    deletion left without their end line are still reported (exit 1), as they were
    before the repair; only the junk bytes are what the repair accounts for."""
    trail = tmp_path / name
    lines = two_runs()
    write_trail(trail, lines=lines)
    trail.write_bytes(b"".join(stored_lines(lines[:-deleted], name.endswith(".gz"))) + b"junk")
    status, out = audit_tool("verify", str(trail))
    assert status == 1 and "has no end line" in out, out
    status, out = audit_tool("repair", str(trail))
    assert status == 0 and "repaired: 4 byte(s) of a cut line dropped" in out, out
    open_run = "ffffffff" if deleted < 7 else "01234567"
    assert f"and reports run(s) {open_run}: without their end line" in out
    status, out = audit_tool("verify", str(trail))
    assert status == 1, out
    kept = 12 - deleted
    assert f"run {open_run} has no end line: it was open when the repair at line {kept + 1}" in out
    assert f"nothing of it after line {kept} is in the trail" in out
    assert f"1 problem(s), 1 event(s): {kept + 1} line(s)" in out


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
def test_a_trail_cut_to_20_bytes_and_junk_is_refused_not_repaired(
    tmp_path: Path, name: str
) -> None:
    trail = tmp_path / name
    write_trail(trail, lines=two_runs())
    data = gzip.decompress(trail.read_bytes()) if name.endswith(".gz") else trail.read_bytes()
    trail.write_bytes((gzip.compress(data)[:20] if name.endswith(".gz") else data[:20]) + b"xx")
    before = trail.read_bytes()
    status, _ = audit_tool("repair", str(trail))
    assert status == 2 and trail.read_bytes() == before
    assert audit_tool("verify", str(trail))[0] == 2


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
def test_lines_appended_after_a_repair_are_reported_even_with_its_head(
    tmp_path: Path, name: str
) -> None:
    """A repair line ends the runs it cut short, as an end line does: a line of theirs
    after it is no part of them, whatever head was written down; a new run is fine."""
    trail = tmp_path / name
    cut_trail(trail)
    repair(trail)
    data = trail.read_bytes()
    lines = (gzip.decompress(data) if name.endswith(".gz") else data).splitlines(keepends=True)
    head = sha(lines[-1])
    second = [{**r, "run": SECOND_RUN} for r in standard_records()]
    forged = encode([url_line("/forged", run=SECOND_RUN), second[-1]], prev=head)
    third = encode([{**r, "run": "e" * 32} for r in standard_records()], prev=sha(forged[-1]))
    trail.write_bytes(data + b"".join(stored_lines(forged + third, name.endswith(".gz"))))
    result = verify(trail, [head])
    assert [str(f) for f in result.findings][1:] == [
        "line 13: http://site.test/forged: url line of run ffffffff after the repair at line "
        "12 that ended it: appended after the repair",
        "line 14: end line of run ffffffff after the repair at line 12 that ended it: "
        "appended after the repair",
    ]
    assert "run ffffffff has no end line" in result.findings[0].what  # still
    assert result.runs == 3 and len(result.events) == 1


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
def test_a_repair_line_appended_to_a_whole_trail_is_a_problem_even_with_its_head(
    tmp_path: Path, name: str
) -> None:
    """A repair line written by hand after whole runs, every field consistent (its
    ``prev``, the lines it kept, no open run): no run was left open for it to cut short,
    so it accounts for nothing the trail shows and is reported, not listed as an event
    only; the head written down before it does not excuse it."""
    trail = tmp_path / name
    lines = two_runs()
    write_trail(trail, lines=lines)
    head = verify(trail).head
    forged = {"type": "repair", "time": "2026-11-24T09:12:40.118Z", "version": "0.1.0",
              "dropped_bytes": 1, "dropped_sha256": sha(b"x"), "kept_lines": 12,
              "open_runs": []}  # fmt: skip
    appended = encode([forged], prev=sha(lines[-1]))
    trail.write_bytes(b"".join(stored_lines(lines + appended, name.endswith(".gz"))))
    result = verify(trail, [head])
    assert [str(f) for f in result.findings] == [
        "line 13: the repair line does not follow a run left open (line 12 is the end line "
        "of run ffffffff): a repair is valid only right after a run left without its end "
        "line; here it accounts for no line of a run (junk after whole runs, the cut first "
        "line of a run, or a line written by hand)"
    ]
    assert len(result.events) == 1


#: Files that are not trails: repair leaves each as it was (exit 2, one line on stderr).
NOT_TRAILS = {
    "one-line-json.json": b'{"name": "x", "items": [1, 2]}',
    "one-line-json-newline.json": b'{"name": "x"}\n',
    "json-of-a-type-not-ours.jsonl": b'{"type":"page","url":"http://a.test/"}',
    "notes.txt": b"a note\nwithout an end",
    "notes-whole.txt": b"a note\nwith an end\n",
    "array.jsonl": b"[1, 2]\n[3",
    "empty.jsonl": b"",
    "plain-in-a-gz-name.jsonl.gz": b'{"type":"run","run":"x"}\n{"type":"url"',
    "gzip-of-text.jsonl.gz": gzip.compress(b"just text\n") + b"junk",
    "trail-then-text.jsonl": b"".join(encode(standard_records())[:3]) + b"a line\nand a cut",
    "text-then-trail.jsonl": b"a line\n" + b"".join(encode(standard_records())[1:3]) + b"{",
}


@pytest.mark.parametrize("name", sorted(NOT_TRAILS))
def test_repair_leaves_a_file_that_is_not_a_trail_as_it_was(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    path.write_bytes(NOT_TRAILS[name])
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = path.stat()
    assert audit_tool("repair", str(path))[0] == 2
    [said] = capsys.readouterr().err.splitlines()
    assert said.startswith(f"scrapy_rep: error: {path}: ")
    assert "not repaired: " in said and "not an audit trail" in said, said
    after = path.stat()
    assert path.read_bytes() == NOT_TRAILS[name]
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


def test_a_gzip_trail_damaged_inside_is_not_repaired(tmp_path: Path) -> None:
    """Damage before whole members is not a cut at the end: dropping it and everything
    after it would drop whole lines (here a whole run)."""
    trail = tmp_path / "trail.jsonl.gz"
    members = stored_lines(two_runs(), gz=True)
    members[5] = members[5][:10] + bytes(b ^ 0xFF for b in members[5][10:20]) + members[5][20:]
    trail.write_bytes(b"".join(members))
    with pytest.raises(TrailError, match="damaged inside, not cut at its end"):
        repair(trail)
    assert trail.read_bytes() == b"".join(members)
    assert not verify(trail).clean


def test_what_the_repair_line_claims_is_checked_not_trusted(tmp_path: Path) -> None:
    """The repair line is the last line: nothing chains on it. Edited to claim that no
    run was open, it changes nothing: verify finds the open run itself, and says the
    claim is not what the trail holds."""
    trail = tmp_path / "trail.jsonl"
    cut_trail(trail)
    repair(trail)
    lines = trail.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[-1])
    edited = {**record, "open_runs": [], "kept_lines": 12, "prev": record["prev"]}
    trail.write_bytes(b"".join(lines[:-1]) + json.dumps(edited).encode() + b"\n")
    found = [f.what for f in verify(trail).findings]
    assert found == [
        "the repair line says it kept 12 whole line(s), 11 come before it: lines were added "
        "or deleted",
        "the repair line names the open run(s) , the trail has ffffffff open there",
        "run ffffffff has no end line: it was open when the repair at line 12 dropped a cut "
        "line (the crawl was killed, or lines were cut from the trail's end before the "
        "repair): nothing of it after line 11 is in the trail",
    ]
    missing = {k: v for k, v in record.items() if not k.startswith("dropped")}
    trail.write_bytes(b"".join(lines[:-1]) + json.dumps(missing).encode() + b"\n")
    assert "the repair line does not say what it dropped (dropped_bytes, dropped_sha256)" in [
        f.what for f in verify(trail).findings
    ]


def test_a_trail_that_starts_with_a_repair_line_is_a_problem(tmp_path: Path) -> None:
    """The version before wrote a repair line alone for a trail cut in its first line:
    nothing of what the file held can be checked, whatever runs follow."""
    repaired = {"type": "repair", "time": "2026-11-24T09:12:40.118Z", "version": "0.1.0",
                "dropped_bytes": 20, "dropped_sha256": "a" * 64}  # fmt: skip
    lines = encode([repaired])
    lines += encode(standard_records(), prev=sha(lines[0]))
    result = verify(write_trail(tmp_path / "trail.jsonl", lines=lines))
    assert [str(f) for f in result.findings] == [
        "line 1: the trail starts with a repair: its first line was cut, and nothing of what "
        "it held can be checked"
    ]


def test_summary_show_report_and_export_say_a_repaired_trail_is_not_whole(
    tmp_path: Path,
) -> None:
    """None of the other tools presents a repaired trail as whole: each names the repair
    and the run it cut short."""
    trail = tmp_path / "trail.jsonl"
    cut_trail(trail)
    record = repair(trail).record
    assert record is not None
    status, out = audit_tool("summary", str(trail))
    assert status == 0
    assert (
        f"run {SECOND_RUN} 2026-11-23T14:00:00.000Z spider test purposes search profile google "
        "(no end line: cut short, repaired at line 12)"
    ) in out.splitlines()
    assert (
        f"line 12: repaired on {record['time']} after a cut ({record['dropped_bytes']} byte(s) "
        "dropped): the trail is not whole; `audit verify` says what cannot be accounted for"
    ) in out.splitlines()
    status, out = audit_tool("show", str(trail), "http://site.test/")
    assert status == 0 and out.splitlines()[-2:] == [
        "note: run ffffffff has no end line (cut short, repaired at line 12): a later record "
        "of this URL may be lost; `audit verify` reports it",
        "note: the trail was repaired after a cut (line(s) 12): the line the cut took is "
        "lost, and it may have been about this URL",
    ]
    html = tmp_path / "report.html"
    status, out = audit_tool("report", str(trail), "--html", str(html))
    assert status == 1 and out.endswith("verify: 1 problem(s)\n")
    page = html.read_text(encoding="utf-8")
    assert '<p class="bad" id="verify">verify: 1 problem(s)</p>' in page
    assert "no end line: cut short, repaired at line 12" in page
    export, summary = tmp_path / "export.jsonl", tmp_path / "export.md"
    assert audit_tool("export", str(trail), "--out", str(export), "--summary", str(summary))[0] == 0
    header = json.loads(export.read_text().splitlines()[0])
    assert header["repairs"] == [
        {"line": 12, "time": record["time"], "dropped_bytes": record["dropped_bytes"],
         "open_runs": [SECOND_RUN]}
    ]  # fmt: skip
    # its bytes as every release writes them (verify --export holds an export to its bytes)
    assert (
        f'"repairs":[{{"line":12,"time":"{record["time"]}","dropped_bytes":'
        f'{record["dropped_bytes"]},"open_runs":["{SECOND_RUN}"]}}]'
    ) in export.read_text()
    assert header["to"] == "2026-11-23T14:00:02.000Z"  # the crawl's, not the repair's time
    assert (
        "- **The trail is not whole**: repaired after a cut at line 12 "
        f"({record['dropped_bytes']} byte(s) dropped); run(s) `ffffffff` without their end "
        "line: what they did after their last line is not in the trail (`audit verify` "
        "reports it)"
    ) in summary.read_text().splitlines()
    status, out = audit_tool("verify", str(trail), "--export", str(export))
    # the export is the trail's (no difference); the trail is cut
    assert status == 1 and out.splitlines()[-1].endswith(" assets match the trail")
    assert [line for line in out.splitlines() if "export" in line] == [out.splitlines()[-1]]


# ------------------------------------------------------------------ the property


#: The findings that come from a cut at the end of the file, the one thing a repair is for.
CUT_FINDINGS = (
    "cut: the line has no end",
    "the file is cut (no newline at its end)",
    "the gzip stream is cut",
    "damaged gzip data",
)


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
@pytest.mark.parametrize("damage", ["junk", "a cut run line"])
def test_a_cut_after_whole_runs_is_repaired_and_the_repair_reported(
    tmp_path: Path, name: str, damage: str
) -> None:
    """Junk after whole runs (a disk's zeroes after a power cut), or the first line of a
    run cut (a crawl killed as it started): the cut is the only problem; repaired, the
    trail is usable (the repair an event), and the repair itself is the one problem: it
    follows no run left open, so it accounts for no line of a run."""
    trail = tmp_path / name
    lines = two_runs()
    write_trail(trail, lines=lines)
    gz = name.endswith(".gz")
    if damage == "junk":
        trail.write_bytes(b"".join(stored_lines(lines, gz)) + bytes(9))
    else:
        trail.write_bytes(
            b"".join(stored_lines(lines[:6], gz)) + stored_lines(lines[6:7], gz)[0][:40]
        )
    found = [f.what for f in verify(trail).findings]
    assert found and all(any(cut in what for cut in CUT_FINDINGS) for what in found), found
    status, out = audit_tool("repair", str(trail))
    assert status == 0 and "reports run(s)" not in out, out  # no run was open
    assert out.endswith(
        "; it reports the repair too: it follows no run left open, so the cut was no line of "
        "a run the trail holds (junk, or a run's first line)\n"
    )
    result = verify(trail)
    kept, run = (12, "ffffffff") if damage == "junk" else (6, "01234567")
    assert [str(f) for f in result.findings] == [
        f"line {kept + 1}: the repair line does not follow a run left open (line {kept} is the "
        f"end line of run {run}): a repair is valid only right after a run left without its "
        "end line; here it accounts for no line of a run (junk after whole runs, the cut "
        "first line of a run, or a line written by hand)"
    ]
    assert len(result.events) == 1


def verify_outcome(path: Path) -> tuple[bool, bool]:
    """Whether ``verify`` fails on the trail at ``path``, and whether for a reason other
    than a cut at its end (a file that is not a trail at all counts as one)."""
    try:
        result = verify(path)
    except TrailError:
        return True, True
    others = [f for f in result.findings if not any(cut in f.what for cut in CUT_FINDINGS)]
    return not result.clean, bool(others)


@st.composite
def trails(draw: st.DrawFn) -> list[bytes]:
    """One to three runs of the standard records (some records left out), each ended or
    not (killed), a later one perhaps resuming an earlier one: chained lines."""
    lines: list[bytes] = []
    ids = []
    for number in range(draw(st.integers(1, 3))):
        run = f"{number + 1:032x}"
        records = [{**r, "run": run} for r in standard_records()]
        body = [records[1], *draw(st.lists(st.sampled_from(records[2:5]), unique_by=id))]
        resumes = draw(st.sampled_from([None, *ids]))
        head = {**records[0], "resumes": resumes}
        ended = draw(st.booleans()) or draw(st.booleans())
        run_records = [head, *body] + ([end_line(body, run=run)] if ended else [])
        lines += encode(run_records, prev=sha(lines[-1]) if lines else "")
        ids.append(run)
    return lines


@settings(max_examples=400, deadline=None)
@given(
    lines=trails(),
    gz=st.booleans(),
    deleted=st.integers(0, 6),
    damage=st.one_of(
        st.tuples(st.just("cut"), st.integers(1, 900)),
        st.tuples(st.just("junk"), st.binary(min_size=1, max_size=12)),
    ),
)
def test_a_repair_never_turns_a_failing_trail_into_a_passing_one(
    lines: list[bytes], gz: bool, deleted: int, damage: tuple[str, Any]
) -> None:
    """For random trails and random damage (whole lines deleted from the end, then the
    last bytes of what is left cut off, up to 900: anywhere in the last lines, or junk
    appended), ``verify(repair(damaged))`` fails
    whenever ``verify(damaged)`` fails for a reason other than the cut at the end; when
    that cut is the only reason, the repair makes the trail usable, its cut an event, but
    never whole (a run it cut short has no end line; a repair after whole runs follows no
    run left open); the whole lines are kept byte for byte, and a file repair refuses is
    left as it was."""
    with tempfile.TemporaryDirectory() as folder:
        path = write_trail(Path(folder) / ("t.jsonl.gz" if gz else "t.jsonl"), lines=lines)
        data = b"".join(stored_lines(lines[: max(len(lines) - deleted, 0)], gz))
        kind, value = damage
        data = data[: max(len(data) - value, 0)] if kind == "cut" else data + value
        path.write_bytes(data)
        fails, other_reasons = verify_outcome(path)
        try:
            done = repair(path)
        except TrailError:
            done = None
            assert path.read_bytes() == data
        fails_after, _ = verify_outcome(path)
        if other_reasons:
            assert fails_after
        elif fails:  # only the cut: the repair is for that
            assert done is not None and done.record is not None and fails_after
            assert len(verify(path).events) == 1
        else:
            assert not fails_after and (done is None or done.record is None)
        if done is not None and done.record is not None:
            assert path.read_bytes()[: len(data) - done.dropped] == data[: len(data) - done.dropped]


def test_a_run_cut_after_its_setting_lines_is_repaired(tmp_path: Path) -> None:
    """A crawl killed as it wrote its first record, after its header's ``setting`` lines
    (schema 3): the last whole line is a trail line, the cut is repaired."""
    trail = tmp_path / "trail.jsonl"
    entry = ["a.test", "permission", "2030-01-01"]
    setting = {"type": "setting", "run": RUN, "name": "REP_OVERRIDES", "entry": entry}
    lines = encode([standard_records()[0], setting, standard_records()[1]])
    write_trail(trail, lines=[*lines[:2], lines[2][:30]])
    status, out = audit_tool("repair", str(trail))
    assert status == 0, out
    assert json.loads(trail.read_text().splitlines()[-1])["type"] == "repair"
