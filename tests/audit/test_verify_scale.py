"""``audit verify`` and ``report`` on trails of many origins and many findings: each
snapshot is parsed once while the parsed documents fit the cache's bound in bytes (a
count of 256 emptied when full parsed one per record past 256 origins), and findings are
streamed as found, the result keeping their count and a bounded sample."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import rep_audit.documents as documents
from rep_audit.cli import main
from rep_audit.findings import KEEP_FINDINGS, Finding
from rep_audit.verify import verify
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.trail.read import SnapshotStore, parsed_size
from tests.support.trailfactory import origin_robots, sha, write_many_origins


def counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]

    def parse(body: bytes, profile: Any = "google", *, truncated: bool = False) -> Any:
        calls[0] += 1
        return parse_robotstxt(body, profile, truncated=truncated)

    monkeypatch.setattr(documents, "parse_robotstxt", parse)
    return calls


def test_each_snapshot_is_parsed_once_past_256_origins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = counting_parses(monkeypatch)
    trail = write_many_origins(tmp_path / "t.jsonl", origins=300, records=1200)
    result = verify(trail)
    assert result.clean, result.findings[:3]
    assert (result.records, result.snapshots) == (1200, 300)
    assert calls[0] == 300  # the records take the 300 origins in turn, four times
    calls[0] = 0
    page = tmp_path / "r.html"
    assert main(["report", str(trail), "--html", str(page)], io.StringIO()) == 0
    assert calls[0] == 300


def test_the_cache_is_bounded_in_bytes_and_keeps_documents_under_origins_in_turn(
    tmp_path: Path,
) -> None:
    bodies = [origin_robots(n) for n in range(40)]
    for body in bodies:
        (tmp_path / sha(body)).write_bytes(body)
    size = parsed_size(bodies[0])
    store = SnapshotStore(tmp_path, max_bytes=20 * size)  # room for half of them
    for _ in range(25):  # the 40 documents taken in turn, as a crawl's origins are
        for body in bodies:
            assert store.parsed(sha(body), "robots", parse_robotstxt) is not None
            assert store._bytes <= 20 * size
    # least recently used out, every one of the 1,000 uses would parse again
    assert 40 < store.parses < 850, store.parses


def test_findings_are_streamed_and_the_result_keeps_a_bounded_sample(tmp_path: Path) -> None:
    trail = write_many_origins(tmp_path / "t.jsonl", origins=7, records=700, wrong=True)
    seen: list[Finding] = []
    result = verify(trail, sink=seen.append, keep=5)
    assert result.problems == len(seen) == 1400 and not result.clean
    assert result.findings == seen[:5]
    assert [f.line for f in seen] == sorted(f.line for f in seen)  # in file order
    assert "recorded refused by robots.txt, but it allows it" in seen[0].what
    result = verify(trail)  # the default: the first KEEP_FINDINGS
    assert result.problems == 1400 and result.findings == seen[:KEEP_FINDINGS]


def test_verify_json_is_written_as_found_and_stays_one_object(tmp_path: Path) -> None:
    trail = write_many_origins(tmp_path / "t.jsonl", origins=7, records=700, wrong=True)
    out = io.StringIO()
    assert main(["verify", str(trail), "--json"], out) == 1
    result = json.loads(out.getvalue())
    assert result["clean"] is False and result["problems"] == len(result["findings"]) == 1400
    assert result["findings"][0]["url"] == "http://o0.test/0"
    assert (result["records"], result["snapshots"], result["lines"]) == (700, 7, 709)


class Discard(io.StringIO):
    """Output that keeps nothing (a terminal, a pipe), counting its lines."""

    lines = 0

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        return len(text)


def peak(argv: list[str]) -> tuple[int, int, int]:
    """The exit status, lines printed and tracemalloc peak of ``audit`` with ``argv``."""
    out = Discard()
    tracemalloc.start()
    try:
        status = main(argv, out)
        return status, out.lines, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_verify_memory_does_not_grow_with_the_findings(tmp_path: Path) -> None:
    clean = write_many_origins(tmp_path / "clean.jsonl", origins=7, records=7_500)
    wrong = write_many_origins(tmp_path / "wrong.jsonl", origins=7, records=7_500, wrong=True)
    status, printed, clean_peak = peak(["verify", str(clean)])
    assert (status, printed) == (0, 2)  # its tree head (none), its verdict
    status, printed, wrong_peak = peak(["verify", str(wrong)])
    assert (status, printed) == (1, 15_002)
    # 15,000 findings kept would take 3 MB and more; streamed, the peak is the clean one's
    assert wrong_peak < clean_peak + 1_000_000, (clean_peak, wrong_peak)
