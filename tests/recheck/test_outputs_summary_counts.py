"""Every count a recheck prints agrees with the files it writes, with ``--keep-unknown``
and without: the summary's "Kept: …; removed: …" with ``--out`` and ``--removed``, its
table by status with ``--report`` and the trail's items, the origins that lost the most
items with ``--removed``, and ``audit summary`` of the trail. With ``--keep-unknown`` the
summary said "removed" of the unknown items it kept (written to ``--out``), and listed
their origins among those that lost the most items."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from rep_engine.urls.origins import origin_of
from tests.support.recheck import recheck_tool, report_lines, robots_capture, write_warc
from tests.support.tools import audit_tool

#: A Disallow (a.example), a 503 (b.example: refused), a 429 (c.example: refused), not
#: captured (d.example, e.example: unknown), one line that is not JSON (unreadable).
URLS = [
    "http://a.example/ok", "http://a.example/private/1", "http://a.example/private/2",
    "http://b.example/1", "http://b.example/2", "http://c.example/1",
    "http://d.example/1", "http://d.example/2", "http://d.example/3", "http://e.example/1",
]  # fmt: skip


def _recheck_counted(tmp_path: Path, *flags: str) -> tuple[str, dict[str, Path]]:
    warc = tmp_path / "robots.warc"
    write_warc(warc, [
        robots_capture("http://a.example", "User-agent: *\nDisallow: /private\n"),
        ("http://b.example/robots.txt", 503, b"<html>down</html>", {}),
        ("http://c.example/robots.txt", 429, b"", {"Retry-After": "60"}),
    ])  # fmt: skip
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(json.dumps({"url": url}).encode() + b"\n" for url in URLS)
                        + b"{not json\n")  # fmt: skip
    paths = {name: tmp_path / f"{name}.jsonl" for name in ("out", "removed", "report", "trail")}
    options = [f"--{name}={path}" for name, path in paths.items()]
    _, summary = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                              *options, *flags)  # fmt: skip
    return summary, paths


def _file_lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def _table(summary: str, title: str) -> list[list[str]]:
    """The rows of the summary's table under ``title``, or headed ``title`` (its head and
    rule left out)."""
    blocks = summary[summary.index(title) :].split("\n\n")
    rows = blocks[0 if title.startswith("|") else 1].splitlines()[2:]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


@pytest.mark.parametrize("flags", [(), ("--keep-unknown",)])
def test_each_count_the_summary_prints_is_the_lines_of_its_file(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    summary, paths = _recheck_counted(tmp_path, *flags)
    kept, removed = _file_lines(paths["out"]), _file_lines(paths["removed"])
    said = re.search(r"- Kept: (\d+)(?: \((\d+) of them unknown, kept by --keep-unknown\))?; "
                     r"removed: (\d+)", summary)  # fmt: skip
    assert said is not None, summary
    assert (int(said[1]), int(said[3])) == (len(kept), len(removed))
    assert said[2] == ("4" if flags else None)
    assert len(kept) == (1 + 4 if flags else 1)  # the unknown items kept by --keep-unknown
    # the table by status: the report's lines and the trail's items, status by status
    report = Counter(line["status"] for line in report_lines(paths["report"]))
    by_status = {row[0]: int(row[1]) for row in _table(summary, "| status |")}
    trail = [json.loads(line) for line in _file_lines(paths["trail"])]
    items = Counter(record["status"] for record in trail if record["type"] == "item")
    assert by_status == dict(report) == dict(items) | {"unreadable": 1}
    assert by_status == {"kept": 1, "refused": 5, "unknown": 4, "unreadable": 1}
    end = next(record for record in trail if record["type"] == "end")["counts"]
    assert (end["items_refused"], end["items_unknown"]) == (5, 4)
    # the origins that lost the most items: each one's items in --removed, and none kept
    removed_of = Counter(
        str(origin_of(json.loads(line)["url"])) for line in removed if line.startswith(b'{"url')
    )
    losing = {row[0]: int(row[2]) for row in _table(summary, "### The origins that lost")}
    assert losing == dict(removed_of)
    assert ("http://d.example" in losing) is not bool(flags)
    refusals = _table(summary, "### Refusals by signal")
    assert sum(int(row[1]) for row in refusals) == by_status["refused"]
    # every removed line carries its reason; the kept ones are as they were
    assert removed[-1] == b"{not json"  # written as it was
    reasons = Counter(json.loads(line)["rep_status"] for line in removed[:-1])
    assert reasons == Counter({"refused": 5} | ({} if flags else {"unknown": 4}))
    # audit summary of the trail: the same items, kept as --out holds them
    code, audited = audit_tool("summary", str(paths["trail"]))
    assert code == 0, audited
    line = next(line for line in audited.splitlines() if "re-checked" in line)
    assert "10 item(s) re-checked (recheck --trail): 1 kept, 5 refused, 4 unknown" in line
    if flags:
        assert line.endswith(f"(4 unknown kept by --keep-unknown: {len(kept)} kept in all)")
    else:
        assert "kept by --keep-unknown" not in line


@pytest.mark.parametrize(
    "agents", ["", "GPTBot", "preset:apertus-0943bfd"], ids=["own-name", "one-more", "preset"]
)
def test_a_filter_counts_what_a_report_counts_without_its_evidence(
    tmp_path: Path, agents: str
) -> None:
    """With ``--out`` alone, a kept item's evidence and a fast path refusal's verdict are
    never made (the counts need only its status, and a robots.txt refusal's signal and
    agent): the summary is the one the same run prints with ``--report``, which makes
    them all."""
    warc = tmp_path / "robots.warc"
    write_warc(warc, [
        robots_capture("http://a.example", "User-agent: *\nDisallow: /private\n"
                       "User-agent: GPTBot\nDisallow: /gpt\n"),
        robots_capture("http://f.example", "User-agent: *\nDisallow: /\nAllow: /open\n"),
        robots_capture("http://g.example", "User-agent: *\nContent-Signal: search=no\n"),
        ("http://b.example/robots.txt", 503, b"<html>down</html>", {}),
    ])  # fmt: skip
    urls = [*URLS, "http://a.example/gpt/1", "http://f.example/x", "http://f.example/open/1",
            "http://f.example/y", "http://g.example/1"]  # fmt: skip
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(json.dumps({"url": url}).encode() + b"\n" for url in urls))
    summaries = []
    settings = ["-s", f"REP_PURPOSE_AGENTS={agents}"] if agents else []
    for flags in ([], [f"--report={tmp_path / 'report.jsonl'}"]):
        code, summary = recheck_tool(str(dataset), "--purpose", "search", "--documents",
                                     str(warc), f"--out={tmp_path / 'out.jsonl'}", *flags,
                                     *settings)  # fmt: skip
        assert code == 1
        summaries.append(summary)
    assert summaries[0] == summaries[1]
    assert "| robots.txt Disallow | 4 |" in summaries[0] or agents, summaries[0]
