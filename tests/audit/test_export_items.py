"""``audit export`` of a recheck's trail: the items it kept are assets (with the documents
they were decided against and their lines in the dataset), and the header counts its
items by status; ``verify --export`` holds the export to the trail."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.recheck import RECHECKED, recheck_trail
from tests.support.tools import audit_tool
from tests.support.trailfactory import ROBOTS, TDMREP, sha, write_trail


def _exported(tmp_path: Path, trail: Path) -> tuple[list[dict[str, object]], str]:
    out, summary = tmp_path / "export.jsonl", tmp_path / "export.md"
    code, _ = audit_tool("export", str(trail), "--out", str(out), "--summary", str(summary))
    assert code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    return lines, summary.read_text()


def test_export_has_each_kept_item_and_counts_every_item(tmp_path: Path) -> None:
    trail = recheck_trail(tmp_path)
    (header, *assets), summary = _exported(tmp_path, trail)
    assert header["assets"] == {"pages": 0, "files": 0, "items": 1}
    assert header["items"] == {"kept": 1, "refused": 2, "unknown": 1}
    (kept,) = assets
    assert kept["asset"] == "item" and kept["url"] == RECHECKED["kept"]
    assert kept["dataset_lines"] == [1] and kept["records"] == []
    assert kept["documents"] == {"robots.txt": sha(ROBOTS), "tdmrep": sha(TDMREP)}
    assert kept["preferences"] == {"search": "unknown", "ai-train": "unknown",
                                   "ai-input": "unknown"}  # fmt: skip
    assert "- Assets kept: 0 page(s), 0 file(s), 1 re-checked item(s)" in summary
    assert "- Stored items re-checked: 4 (1 kept, 2 refused, 1 unknown)" in summary
    code, out = audit_tool("verify", str(trail), "--export", str(tmp_path / "export.jsonl"))
    assert code == 0 and out.splitlines()[-1].endswith("1 asset match the trail"), out


def test_export_of_a_crawl_and_its_recheck_has_the_pages_and_the_items(tmp_path: Path) -> None:
    """The crawl's trail alone exports as before (no ``items``); with a recheck appended,
    its kept item too."""
    crawl = write_trail(tmp_path / "crawl.jsonl")
    (header, *_), summary = _exported(tmp_path, crawl)
    assert header["assets"] == {"pages": 2, "files": 0} and "items" not in header
    assert "re-checked" not in summary
    recheck_trail(tmp_path, crawl)
    (header, *assets), _ = _exported(tmp_path, crawl)
    assert header["assets"] == {"pages": 2, "files": 0, "items": 1}
    assert [asset["asset"] for asset in assets] == ["page", "page", "item"]
