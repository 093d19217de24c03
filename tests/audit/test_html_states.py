"""What the HTML report says (issue: the report misled): a page whose items were dropped
after the fetch has a state and colour of its own, a usage signal is named by what the
site said, each record shows its run and purposes, and long URLs wrap while timestamps do
not. Checked in the page; that its tables fit a 1280 px window, in headless Chromium:
tests/integration/test_audit_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.tools import html_report
from tests.support.trailfactory import AIPREF_SOURCE, NOAI_META, report_states_records


@pytest.fixture
def report(tmp_path: Path) -> tuple[Path, str]:
    html = html_report(tmp_path, report_states_records(), clean=False)
    return html, html.read_text(encoding="utf-8")


def table(page: str, name: str) -> str:
    return re.split(rf'<table id="{name}"[^>]*>', page, maxsplit=1)[1].split("</table>", 1)[0]


def test_fetched_with_items_dropped_has_a_state_colour_and_legend_of_its_own(
    report: tuple[Path, str],
) -> None:
    _, page = report
    assert ".dropped{background:#e67e22}" in page
    assert '<span class="dropped"></span>fetched, item dropped' in page  # the legend
    chart = re.split(r'<div class="chart" id="by-signal">', page)[1].split("</div></div>")[0]
    assert 'title="3 dropped"' in page and 'class="dropped"' in chart
    records_ = table(page, "records")
    assert records_.count('<span class="dropped"></span>fetched, item dropped') == 5
    assert records_.count('<span class="fetched"></span>fetched<') == 4
    assert "fetched, item dropped" in page.split('id="total-2"')[1].split("</div>")[0]


def test_usage_signals_are_named_by_what_the_site_said_escaped(report: tuple[Path, str]) -> None:
    _, page = report
    escaped = "&lt;meta name=&quot;robots&quot; content=&quot;noai&quot;&gt;"
    assert f"denied by {AIPREF_SOURCE}" in page and f"denied by {escaped}" in page
    assert "denied by aipref" not in page and "denied by robots-meta" not in page
    assert NOAI_META not in page  # escaped, never markup


def test_records_have_a_run_and_a_purpose_column(report: tuple[Path, str]) -> None:
    _, page = report
    heads = re.findall(r"<th>([^<]*)</th>", table(page, "records").split("</thead>")[0])
    assert heads[:6] == ["line", "time", "run", "purposes", "URL", "fate"]
    rows = re.findall(r"<tr>.*?</tr>", table(page, "records").split("<tbody>")[1], re.S)
    assert all('<td class="run" title="0123456789abcdef0123456789abcdef">01234567</td>' in r
               for r in rows)  # fmt: skip
    assert sum("<td>ai-train (denied)</td>" in r for r in rows) == 5
    assert sum("<td>ai-train</td>" in r for r in rows) == 5


def test_long_urls_wrap_at_separators_and_timestamps_do_not(report: tuple[Path, str]) -> None:
    _, page = report
    assert "section-<wbr>one/<wbr>sub-<wbr>section" in page
    assert "td.time,td.run{white-space:nowrap" in page
    assert '<td class="time">2026-11-23T14:00:02.000Z</td>' in page
    runs = table(page, "runs")
    assert '<td class="time">2026-11-23T14:00:00.000Z</td>' in runs
    assert '<td class="run" title="fedcba9876543210fedcba9876543210">fedcba98</td>' in runs
    assert "(compatible;<wbr> testbot/<wbr>1.<wbr>0;" in runs


def test_the_page_counts_the_items_a_later_component_did_not_keep(tmp_path: Path) -> None:
    """audit summary and show say a page's items not kept by a later component of the
    crawl (``items_not_kept``); the HTML report's totals said only its items kept."""
    from tests.support.trailfactory import (
        end_line,
        robots_part,
        run_line,
        snapshot_line,
        url_line,
    )

    allowed = robots_part(None)
    body = [snapshot_line(), url_line("/", items_kept=0, items_not_kept=2, robots=allowed),
            url_line("/b", items_kept=1, robots=allowed)]  # fmt: skip
    page = html_report(tmp_path, [run_line(), *body, end_line(body)]).read_text()
    totals = dict(
        (label, int(n))
        for n, label in re.findall(
            r'<div class="total" id="total-\d+"><b>(\d+)</b>([^<]+)</div>', page
        )
    )
    assert totals["items kept"] == 1
    assert totals["items not kept by a component of the crawl"] == 2
