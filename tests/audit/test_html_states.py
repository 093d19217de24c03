"""What the HTML report says (issue: the report misled): a page whose items were dropped
after the fetch has a state and colour of its own, a usage signal is named by what the
site said, each record shows its run and purposes, and the tables fit a 1280 px window
with timestamps on one line. Checked in the page and in headless Chromium (a screenshot
per state, kept under ``tmp_path``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from scrapy_rep.audit.cli import main
from tests.integration.test_audit_browser import browse
from tests.support.trailfactory import (
    end_line,
    robots,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)

WIDTH, HEIGHT = 1280, 900
AIPREF = "header Content-Usage: train-ai=n"
META = '<meta name="robots" content="noai">'
LONG = (
    "/catalogue/section-one/sub-section-two/a-rather-long-product-name"
    "?colour=red&size=xl&ref=abcdef"
)


def usage(vocabulary: str, source: str) -> dict[str, Any]:
    return {
        "answers": {"search": None, "ai-train": False, "ai-input": None},
        "decided_by": {"ai-train": 0},
        "signals": [{"vocabulary": vocabulary, "answers": {"ai-train": False}, "source": source}],
    }


def dropped(path: str, vocabulary: str, source: str) -> dict[str, Any]:
    return url_line(path, robots=robots(None), items_kept=0, items_dropped=1,
                    item_reason="purpose", usage=usage(vocabulary, source))  # fmt: skip


def records() -> list[dict[str, Any]]:
    run = run_line(
        purposes=["ai-train"],
        agents=["testbot", "Google-Extended", "GPTBot", "CCBot", "anthropic-ai"],
        user_agent="Mozilla/5.0 (compatible; testbot/1.0; +https://example.test/bot-info-page)",
        profile="google",
        resumes="fedcba9876543210fedcba9876543210",
        spider="a_spider_with_a_long_descriptive_name",
    )
    body = [snapshot_line()]
    body += [url_line(f"/docs/{n}", robots=robots(None)) for n in range(3)]
    body += [dropped(f"/aipref/{n}", "aipref", AIPREF) for n in range(3)]
    body += [dropped(f"/meta/{n}", "robots-meta", META) for n in range(2)]
    body += [url_line("/private/1", fate="refused", status=None, refused_by="robots.txt",
                      robots=robots(2, "Disallow: /private"))]  # fmt: skip
    body += [url_line(LONG, robots=robots(None))]
    return [run, *body, end_line(body, reason="closespider_itemcount")]


@pytest.fixture
def report(tmp_path: Path) -> tuple[Path, str]:
    trail = write_trail(tmp_path / "trail.jsonl", records())
    html = tmp_path / "report.html"
    main(["report", str(trail), "--html", str(html)])
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
    assert f"denied by {AIPREF}" in page and f"denied by {escaped}" in page
    assert "denied by aipref" not in page and "denied by robots-meta" not in page
    assert META not in page  # escaped, never markup


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


MEASURE = """<script>(function(){var d=document.documentElement,out={page:d.scrollWidth,
view:d.clientWidth,tables:{},wrapped:0};document.querySelectorAll("table").forEach(function(t){
out.tables[t.id]=[t.scrollWidth,t.parentElement.clientWidth];});
document.querySelectorAll("td.time").forEach(function(c){var r=document.createRange();
r.selectNodeContents(c);if(r.getClientRects().length>1)out.wrapped++;});
document.body.setAttribute("data-measure",JSON.stringify(out));})();</script></body>"""


def test_in_chromium_the_tables_fit_1280_px_with_a_screenshot_per_state(
    report: tuple[Path, str], tmp_path: Path
) -> None:
    html, page = report
    # The page's own CSP allows its inline scripts: a copy with a measuring one added.
    measured = tmp_path / "measured.html"
    measured.write_text(page.replace("</body>", MEASURE, 1), encoding="utf-8")
    dom = browse(tmp_path, measured.as_uri(), f"--window-size={WIDTH},{HEIGHT}", "--dump-dom")
    found = re.search(r'data-measure="([^"]*)"', dom)
    assert found is not None, dom[-2000:]
    out = json.loads(found.group(1).replace("&quot;", '"'))
    assert out["page"] <= WIDTH, out
    for name, (width, room) in out["tables"].items():
        assert width <= room, (name, out)
    assert out["wrapped"] == 0, out
    tall = 1700  # the filtered table shows below the charts
    for query in ("", "item dropped", "private", "noai"):
        shot = tmp_path / f"report-{query.replace(' ', '-') or 'all'}.png"
        url = html.as_uri() + (f"#q={query}" if query else "")
        browse(tmp_path, url, f"--screenshot={shot}", f"--window-size={WIDTH},{tall}")
        with Image.open(shot) as image:
            assert image.size == (WIDTH, tall)
            colours = {c for _, c in image.convert("RGB").getcolors(WIDTH * HEIGHT) or []}
        assert (230, 126, 34) in colours  # the orange of "fetched, item dropped" (legend, bars)
