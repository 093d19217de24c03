"""``audit repair``: a trail cut in the middle of a line stops the next crawl (its chain
cannot go on) and reads as a damaged file; repaired, its whole lines are kept, the cut is
recorded in a ``repair`` line chained on them, ``verify`` lists it as an event and exits
0, and the next crawl chains on."""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from trailfactory import encode, sha, standard_records, write_trail

from scrapy_rep.trail.cli import main
from scrapy_rep.trail.file import TrailFile, TrailFileError
from scrapy_rep.trail.read import TrailError
from scrapy_rep.trail.repair import repair
from scrapy_rep.trail.verification import verify

SPIDER = """
import scrapy
class S(scrapy.Spider):
    name = "s"
    custom_settings = {"ADDONS": {"scrapy_rep.Addon": 0}}
    start_urls: list[str] = []
"""
SECOND = "f" * 32


def audit(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def crawl(trail: Path) -> subprocess.CompletedProcess[str]:
    (trail.parent / "spider.py").write_text(SPIDER)
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "runspider", "spider.py", "-s", "LOG_ENABLED=0",
         "-s", f"REP_AUDIT_FILE={trail}"],
        capture_output=True, text=True, timeout=120, check=False, cwd=trail.parent,
    )  # fmt: skip


def cut_trail(path: Path) -> tuple[bytes, bytes]:
    """Two runs, the second cut in the middle of its last line (its end line); the bytes
    kept and the bytes of the cut line, as stored."""
    lines = encode(standard_records())
    second = [{**record, "run": SECOND} for record in standard_records()]
    lines += encode(second, prev=sha(lines[-1]))
    stored = [gzip.compress(line) for line in lines] if path.name.endswith(".gz") else lines
    whole, last = b"".join(stored[:-1]), stored[-1][: len(stored[-1]) // 2]
    write_trail(path, lines=lines)
    path.write_bytes(whole + last)
    return whole, last


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
def test_a_cut_trail_repaired_verifies_with_the_cut_as_an_event_and_a_crawl_chains_on(
    tmp_path: Path, name: str
) -> None:
    trail = tmp_path / name
    whole, cut = cut_trail(trail)
    status, out = audit("verify", str(trail))
    assert status == 1 and "cut" in out
    result = crawl(trail)  # refused at start, as before: the chain cannot go on
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"scrapy_rep: error: REP_AUDIT_FILE: {trail} ")
    assert line.endswith(f"; repair it (python -m scrapy_rep audit repair {trail}) or move it away")

    status, out = audit("repair", str(trail))
    assert status == 0
    assert out == (
        f"{trail}: repaired: {len(cut)} byte(s) of a cut line dropped, a repair line "
        "appended; `audit verify` lists it as an event\n"
    )
    data = trail.read_bytes()
    assert data.startswith(whole)  # the whole lines, as they were
    lines = (gzip.decompress(data) if name.endswith(".gz") else data).splitlines(keepends=True)
    record = json.loads(lines[-1])
    assert record["type"] == "repair" and record["dropped_bytes"] == len(cut)
    assert record["dropped_sha256"] == hashlib.sha256(cut).hexdigest()
    assert record["prev"] == sha(lines[-2]) and record["time"].endswith("Z")

    status, out = audit("verify", str(trail))
    assert status == 0, out
    assert out.splitlines()[0] == (
        f"line 12: event: repaired on {record['time']}: {len(cut)} byte(s) of a cut line "
        "dropped; run(s) ffffffff end here, without their end line"
    )
    assert f"{trail}: clean, 1 event(s): 12 line(s), 2 run(s), 6 record(s)" in out
    status, out = audit("verify", str(trail), "--json")
    assert status == 0 and json.loads(out)["events"] == [
        {"line": 12, "what": out.split('"what": "')[1].split('"')[0]}
    ]
    assert audit("repair", str(trail)) == (
        0,
        f"{trail}: nothing to repair: it ends with a whole line\n",
    )

    result = crawl(trail)  # the next crawl chains on the repair line
    assert result.returncode == 0, result.stderr
    status, out = audit("verify", str(trail))
    assert status == 0, out
    assert "clean, 1 event(s): 14 line(s), 3 run(s)" in out


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
        "run eeeeeeee has no end line: the crawl was killed, or the trail was cut after it"
    ]
    assert len(result.events) == 1


def test_repair_refuses_what_it_must_not_touch(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"a note\nwithout an end")
    assert audit("repair", str(notes))[0] == 2
    assert notes.read_bytes() == b"a note\nwithout an end"
    assert audit("repair", str(tmp_path / "missing.jsonl"))[0] == 2
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


def test_a_trail_cut_in_its_first_line(tmp_path: Path) -> None:
    trail = tmp_path / "trail.jsonl"
    trail.write_bytes(encode(standard_records())[0][:30])
    done = repair(trail)
    assert done.dropped == 30 and done.record is not None and done.record["prev"] == ""
    result = verify(trail)
    assert result.clean and len(result.events) == 1


def test_scrapy_audit_repair_reads_rep_audit_file(tmp_path: Path) -> None:
    trail = tmp_path / "trail.jsonl"
    _, cut = cut_trail(trail)
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "rep-audit", "repair", "-s", f"REP_AUDIT_FILE={trail}"],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"{trail}: repaired: {len(cut)} byte(s) of a cut line dropped" in result.stdout
    assert verify(trail).clean
