"""``audit report --html`` of a recheck's trail: the items' totals by status and a table
of them, each with its status, reason, what decided it and its snapshots (not 0)."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from rep_audit.html import url_html
from tests.support.recheck import RECHECKED, recheck_trail
from tests.support.tools import audit_tool
from tests.support.trailfactory import ROBOTS, sha, write_trail


def _cells(page: str) -> dict[str, list[str]]:
    """The items table's rows, by URL: each cell's text."""
    body = page.split('<table id="items">', 1)[1].split("</table>", 1)[0]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1]):
        cells = [
            unescape(re.sub(r"<[^>]+>", "", cell))
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)
        ]
        rows[cells[3]] = cells
    return rows


def test_report_draws_every_item_with_its_status_and_what_decided_it(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    code, said = audit_tool("report", str(recheck_trail(tmp_path)), "--html", str(html))
    assert code == 0 and said.strip() == f"{html}: 0 record(s), 4 item(s), verify: clean"
    page = html.read_text(encoding="utf-8")
    totals = re.findall(r'<div class="total" id="total-\d+"><b>(\d+)</b>([^<]+)</div>', page)
    assert [(label, int(n)) for n, label in totals if label.startswith("items re-")] == [
        ("items re-checked", 4),
        ("items re-checked, kept", 1),
        ("items re-checked, refused", 2),
        ("items re-checked, unknown", 1),
    ]
    assert "1 kept, 2 refused, 1 unknown" in page
    rows = _cells(page)
    assert list(rows) == list(RECHECKED.values())
    # dataset line, status, reason, decided by
    assert [rows[url][4:8] for url in RECHECKED.values()] == [
        ["1", "kept", "", "allowed: no rule matches"],
        ["2", "refused", "robots.txt", "refused by robots.txt line 2 (Disallow: /private)"],
        ["3", "refused", "purpose", "refused by purpose (robots.txt line 4: Content-Usage: "
                                    "/nottrain train-ai=n)"],
        ["4", "unknown", "unreachable", "not had: robots.txt"],
    ]  # fmt: skip
    robots = rows[RECHECKED["robots"]]
    assert robots[9] == "line 2: Disallow: /private"
    assert robots[10] == f"robots.txt {sha(ROBOTS)[:12]}"
    assert rows[RECHECKED["unknown"]][10] == "robots.txt not had"


def test_report_of_a_crawl_and_its_recheck_draws_both(tmp_path: Path) -> None:
    crawl = write_trail(tmp_path / "crawl.jsonl")
    recheck_trail(tmp_path, crawl)
    html = tmp_path / "report.html"
    code, said = audit_tool("report", str(crawl), "--html", str(html))
    assert code == 0 and said.strip() == f"{html}: 3 record(s), 4 item(s), verify: clean"
    page = html.read_text(encoding="utf-8")
    assert page.count(url_html(RECHECKED["robots"])) == 2  # its record and its item
    assert '<span id="shown">7</span>' in page
