"""``audit list`` of a recheck's trail: one row per item, its status as the fate, what
refused it as the reason, filtered by them, as text, CSV and JSON Lines."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tests.support.recheck import RECHECKED, recheck_trail
from tests.support.tools import audit_tool
from tests.support.trailfactory import write_trail


def test_list_names_every_item_with_its_status_reason_and_why(tmp_path: Path) -> None:
    trail = recheck_trail(tmp_path)
    code, out = audit_tool("list", str(trail))
    assert code == 0, out
    rows = out.splitlines()
    assert rows[-1] == "4 record(s)"
    said = [row.split(": ", 1)[1] for row in rows[:-1]]
    assert said == [
        f"{RECHECKED['kept']} item (dataset line 1) kept: allowed: no rule matches",
        f"{RECHECKED['robots']} item (dataset line 2) refused (robots.txt): Forbidden by "
        "http://site.test/robots.txt (line 2: Disallow: /private)",
        f"{RECHECKED['purpose']} item (dataset line 3) refused (purpose): Not fetched: "
        "ai-train denied by robots.txt line 4: Content-Usage: /nottrain train-ai=n",
        f"{RECHECKED['unknown']} item (dataset line 4) unknown (unreachable): no robots.txt "
        "of http://other.test was had",
    ]


def test_list_filters_items_by_status_and_reason_in_each_format(tmp_path: Path) -> None:
    trail = recheck_trail(tmp_path)
    _, out = audit_tool("list", str(trail), "--fate", "refused", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert [(r["url"], r["fate"], r["reason"], r["record"], r["dataset_line"]) for r in table] == [
        (RECHECKED["robots"], "refused", "robots.txt", "item", "2"),
        (RECHECKED["purpose"], "refused", "purpose", "item", "3"),
    ]
    _, out = audit_tool("list", str(trail), "--fate", "kept,unknown", "--format", "jsonl")
    found = [json.loads(line) for line in out.splitlines()]
    assert [(r["url"], r["fate"], r["dataset_line"]) for r in found] == [
        (RECHECKED["kept"], "kept", 1),
        (RECHECKED["unknown"], "unknown", 4),
    ]
    _, out = audit_tool("list", str(trail), "--reason", "purpose")
    assert out.splitlines()[-1] == "1 record(s)" and RECHECKED["purpose"] in out


def test_list_of_a_crawl_and_its_recheck_lists_both(tmp_path: Path) -> None:
    crawl = write_trail(tmp_path / "crawl.jsonl")
    recheck_trail(tmp_path, crawl)
    _, out = audit_tool("list", str(crawl), "--fate", "refused", "--format", "jsonl")
    found = [json.loads(line) for line in out.splitlines()]
    assert [(r["url"], r["record"]) for r in found] == [
        (RECHECKED["robots"], "url"),
        (RECHECKED["robots"], "item"),
        (RECHECKED["purpose"], "item"),
    ]
