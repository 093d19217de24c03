"""``audit export`` of a trail holding several re-checks: each item as the latest run
that re-checked it decided it (an item a later run refused is no asset, and is counted
once), a run for other purposes leaving an earlier "no" standing, and ``--run`` for one
run's own export; ``verify --export`` holds each to the trail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.recheck import recheck_tool, robots_capture, write_jsonl, write_warc
from tests.support.tools import audit_streams, audit_tool

ORIGIN = "https://a.example"
#: Eight items: four under /a/, four under /b/.
URLS = [f"{ORIGIN}/{part}/{n}" for part in "ab" for n in range(1, 5)]


def _recheck_into(tmp_path: Path, trail: Path, robots: str, purpose: str = "search",
             tdmrep: bytes = b"[]") -> None:  # fmt: skip
    """The eight items re-checked into ``trail`` (appended to) against ``robots``."""
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, URLS)
    warc = tmp_path / "documents.warc"
    write_warc(warc, [
        robots_capture(ORIGIN, robots),
        (f"{ORIGIN}/.well-known/tdmrep.json", 200, tdmrep, {}),
    ])  # fmt: skip
    recheck_tool(str(dataset), "--purpose", purpose, "--documents", str(warc),
                 f"--trail={trail}")  # fmt: skip


def _exported_checked(tmp_path: Path, trail: Path, *argv: str) -> tuple[list[dict[str, Any]], str]:
    out, summary = tmp_path / "export.jsonl", tmp_path / "export.md"
    code, said = audit_tool("export", str(trail), "--out", str(out), "--summary", str(summary),
                            *argv)  # fmt: skip
    assert code == 0, said
    code, said = audit_tool("verify", str(trail), "--export", str(out))
    assert code == 0, said
    return [json.loads(line) for line in out.read_text().splitlines()], summary.read_text()


def _run_ids(trail: Path) -> list[str]:
    lines = [json.loads(line) for line in trail.read_text().splitlines()]
    return [line["run"] for line in lines if line["type"] == "run"]


def test_an_item_a_later_run_refused_is_not_exported(tmp_path: Path) -> None:
    """Two re-checks of one 8-item dataset: the first keeps all, the second refuses
    /b/. The export holds the four /a/ items, as the second run kept them, and counts 8
    items, not 16."""
    trail = tmp_path / "recheck.jsonl"
    _recheck_into(tmp_path, trail, "User-agent: *\nAllow: /\n")
    _recheck_into(tmp_path, trail, "User-agent: *\nDisallow: /b/\n")
    (header, *assets), summary = _exported_checked(tmp_path, trail)
    assert sorted(asset["url"] for asset in assets) == URLS[:4]
    assert header["assets"]["items"] == 4
    assert header["items"] == {"kept": 4, "refused": 4, "unknown": 0}
    assert header["items_superseded"] == 8
    items = [n for n, line in enumerate(trail.read_text().splitlines(), 1)
             if json.loads(line).get("type") == "item"]  # fmt: skip
    assert sorted(n for asset in assets for n in asset["lines"]) == items[8:12]  # the second's
    assert "- Stored items re-checked: 8 (4 kept, 4 refused, 0 unknown)" in summary
    assert "8 record(s) of earlier runs decided again by a later run" in summary


def test_one_run_is_exported_on_its_own_with_run(tmp_path: Path) -> None:
    trail = tmp_path / "recheck.jsonl"
    _recheck_into(tmp_path, trail, "User-agent: *\nAllow: /\n")
    _recheck_into(tmp_path, trail, "User-agent: *\nDisallow: /b/\n")
    first, second = _run_ids(trail)
    (header, *assets), _ = _exported_checked(tmp_path, trail, "--run", first[:8])
    assert header["only_run"] == first
    assert [run["run"] for run in header["runs"]] == [first]
    assert sorted(asset["url"] for asset in assets) == URLS
    assert header["items"] == {"kept": 8, "refused": 0, "unknown": 0}
    assert "items_superseded" not in header
    (header, *assets), _ = _exported_checked(tmp_path, trail, f"--run={second}")
    assert sorted(asset["url"] for asset in assets) == URLS[:4]
    code, _, err = audit_streams("export", str(trail), "--run", "f" * 32)
    assert code == 2 and f"no run {'f' * 32} in the trail (its runs: {first}, {second})" in err


def test_a_later_run_for_another_purpose_leaves_an_earlier_no_standing(tmp_path: Path) -> None:
    """An ai-train re-check refused every item (tdmrep.json reserves); a later one for
    search keeps them: it said nothing of ai-train, so they are not exported, and both
    runs' records are counted."""
    trail = tmp_path / "recheck.jsonl"
    reserved = b'[{"location": "/", "tdm-reservation": 1}]'
    _recheck_into(tmp_path, trail, "User-agent: *\nAllow: /\n", "ai-train", reserved)
    _recheck_into(tmp_path, trail, "User-agent: *\nAllow: /\n", "search", reserved)
    (header, *assets), _ = _exported_checked(tmp_path, trail)
    assert assets == []
    assert header["items"] == {"kept": 8, "refused": 8, "unknown": 0}
    assert header["items_withheld"] == 8 and "items_superseded" not in header
    # the other way round: the ai-train run re-checked what the search run kept
    trail = tmp_path / "other.jsonl"
    _recheck_into(tmp_path, trail, "User-agent: *\nAllow: /\n", "search", reserved)
    _recheck_into(tmp_path, trail, "User-agent: *\nAllow: /\n", "ai-train,search", reserved)
    (header, *assets), _ = _exported_checked(tmp_path, trail)
    assert assets == [] and header["items"] == {"kept": 0, "refused": 8, "unknown": 0}
