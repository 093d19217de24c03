"""The captures of a WARC beyond ``REP_RECHECK_PARSED_ORIGINS`` URLs are kept in an SQLite
file, not a dict: a WARC of many origins (captures at two dates, of an unreadable date, a
redirect, tdmrep.json) gives the same captures, the same decisions, the same summary and
report with a tiny bound as with a large one."""

from __future__ import annotations

import math
from pathlib import Path

from rep_recheck.asof import Timeline, parse_as_of
from rep_recheck.capture_index import CaptureFile
from tests.support.recheck import recheck_tool, report_lines, write_jsonl, write_warc

ORIGINS = [f"http://o{n}.example" for n in range(40)]
OLD, NEW = "2024-01-01T00:00:00Z", "2025-06-01T00:00:00Z"


def _robots(number: int) -> bytes:
    rules = ["Disallow: /private", "Disallow: /", "Allow: /", "Content-Usage: train-ai=n"]
    return f"User-agent: *\n{rules[number % len(rules)]}\n".encode()


def _two_dated_warcs(tmp_path: Path) -> tuple[Path, Path]:
    """An older WARC of every origin, and a newer one of some, with their odd captures."""
    old, new = tmp_path / "old.warc", tmp_path / "new.warc"
    text = {"Content-Type": "text/plain"}
    write_warc(old, [
        (f"{origin}/robots.txt", 200, _robots(n + 1), text) for n, origin in enumerate(ORIGINS)
    ], date=OLD)  # fmt: skip
    newer = []
    for n, origin in enumerate(ORIGINS):
        if n % 3 == 0:
            newer.append((f"{origin}/robots.txt", 200, _robots(n), text))
        if n % 5 == 0:
            reserved = b'[{"location": "/", "tdm-reservation": %d}]' % (n % 2 == 0)
            newer.append((f"{origin}/.well-known/tdmrep.json", 200, reserved, {}))
        if n % 7 == 0:  # an unreadable date, answering otherwise: not had
            newer.append((f"{origin}/robots.txt", 200, b"User-agent: *\nAllow: /\n",
                          {**text, "WARC-Date": "not a date"}))  # fmt: skip
        if n == 4:  # a redirect to another captured robots.txt
            newer.append((f"{origin}/robots.txt", 301, b"",
                          {"Location": f"{ORIGINS[1]}/robots.txt"}))  # fmt: skip
    write_warc(new, newer, date=NEW)
    return old, new


def test_a_tiny_bound_reads_the_captures_a_large_one_does(tmp_path: Path) -> None:
    warcs = _two_dated_warcs(tmp_path)
    small, large = Timeline.read(warcs, held=1), Timeline.read(warcs, held=100_000)
    assert isinstance(small.file, CaptureFile) and large.file is None
    assert small.dated() and large.dated()
    urls = sorted(set(large.by_url) | set(large.undated))
    assert sorted(set(small.by_url) | set(small.undated)) == urls
    assert dict(small.undated) == dict(large.undated)
    for when in (math.inf, parse_as_of("2025-01-01"), parse_as_of(NEW), parse_as_of("2023-01-01")):
        assert dict(small.at(when)) == dict(large.at(when)), when
        for url in [*urls, "http://never.example/robots.txt"]:
            assert (url in small.at(when)) == (url in large.at(when))
            assert small.before(url, when) == large.before(url, when)
            assert small.oldest(url) == large.oldest(url)
    assert len(small.by_url) == len(large.by_url)
    assert small.file is not None
    small.file.close()


def _lasting(line: dict[str, object]) -> dict[str, object]:
    """A trail line without what differs from run to run (its run, time and chain, and the
    tree head's hashes of them)."""
    differ = {"run", "time", "prev", "started", "root", "frontier"}
    return {k: v for k, v in line.items() if k not in differ}


def test_a_recheck_with_a_tiny_bound_says_what_a_large_one_does(tmp_path: Path) -> None:
    """The whole recheck (its captures, its counts' names, its origins and its trail's
    snapshots all beyond the bound of 2): the same exit status, summary, report and trail
    (each snapshot written once)."""
    old, new = _two_dated_warcs(tmp_path)
    dataset = tmp_path / "items.jsonl"
    paths = ["/", "/private/x", "/page"]
    write_jsonl(dataset, [f"{origin}{path}" for path in paths for origin in ORIGINS])
    said, trails = [], []
    for bound in ("2", "100000"):
        report, trail = tmp_path / f"report-{bound}.jsonl", tmp_path / f"trail-{bound}.jsonl"
        status, summary = recheck_tool(
            str(dataset), "--purpose", "ai-train", "--documents", str(old), "--documents",
            str(new), f"--report={report}", f"--trail={trail}", "-s",
            f"REP_RECHECK_PARSED_ORIGINS={bound}",
        )  # fmt: skip
        said.append((status, summary.split("Trail: ")[0], report_lines(report)))
        trails.append([_lasting(line) for line in report_lines(trail)[1:]])  # its settings aside
    assert said[0] == said[1]
    assert trails[0] == trails[1]
    snapshots = [line for line in trails[0] if line["type"] == "snapshot"]
    assert len(snapshots) == len({(line["sha256"], line["url"]) for line in snapshots}) > 40
    status, summary, lines = said[0]
    assert status == 1 and len(lines) == len(ORIGINS) * len(paths)
    assert {line["status"] for line in lines} == {"kept", "refused", "unknown"}
    assert any("then" in line for line in lines)
    assert "### The origins that lost the most items" in summary
