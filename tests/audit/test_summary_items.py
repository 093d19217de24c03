"""``audit summary`` of a recheck's trail: its items counted by status, per origin and
per what decided them (not 0)."""

from __future__ import annotations

from pathlib import Path

from tests.support.recheck import recheck_trail
from tests.support.tools import audit_tool
from tests.support.trailfactory import write_trail


def _rows(out: str, title: str) -> dict[str, list[str]]:
    """The rows of the table headed ``title`` (its name cell, then its counts)."""
    block = out.split(f"\n{title}  ", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    rows = {}
    for row in block:
        name, *counts = row.rsplit(None, 4)
        rows[name.strip()] = counts
    return rows


def test_summary_counts_each_item_by_status_origin_and_deciding_signal(tmp_path: Path) -> None:
    code, out = audit_tool("summary", str(recheck_trail(tmp_path)))
    assert code == 0, out
    assert "4 item(s) re-checked (recheck --trail): 1 kept, 2 refused, 1 unknown" in out
    assert _rows(out, "item origin") == {
        "http://site.test": ["3", "1", "2", "0"],
        "http://other.test": ["1", "0", "0", "1"],
    }
    assert _rows(out, "item decided by") == {
        "allowed: no rule matches": ["1", "1", "0", "0"],
        "not had: robots.txt": ["1", "0", "0", "1"],
        "refused by purpose (robots.txt line 4: Content-Usage: /nottrain train-ai=n)": [
            "1", "0", "1", "0",
        ],
        "refused by robots.txt line 2 (Disallow: /private)": ["1", "0", "1", "0"],
    }  # fmt: skip


def test_summary_of_a_crawl_and_its_recheck_counts_both(tmp_path: Path) -> None:
    crawl = write_trail(tmp_path / "crawl.jsonl")
    recheck_trail(tmp_path, crawl)
    code, out = audit_tool("summary", str(crawl))
    assert code == 0
    first, items = out.splitlines()[:2]
    assert first.startswith("2 run(s), 3 requested URL(s) (2 fetched, 1 refused)")
    assert items == "4 item(s) re-checked (recheck --trail): 1 kept, 2 refused, 1 unknown"
    assert "\ndeciding signal  " in out and "\nitem decided by  " in out
