"""The HTML report of ``audit report --html`` in a real browser: headless Chromium
(Debian's ``chromium``, which ``.ci/run`` installs) loads the page offline, runs its
script, and we assert on the DOM it ends with and on a screenshot (docs/audit-trail.md,
"Reading the trail").

Without Chromium the tests skip, saying so, unless ``REP_REQUIRE_CHROMIUM=1`` (CI sets it
when the package is installed) makes that a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
from pathlib import Path

import pytest
from PIL import Image

from tests.support.browser import browse, chromium
from tests.support.tools import html_report
from tests.support.trailfactory import (
    end_line,
    report_states_records,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
)

HOSTILE = '/q"><img src=x onerror="document.title=1">'
WIDTH, HEIGHT = 1200, 900


@pytest.fixture
def report_page(tmp_path: Path) -> Path:
    body = [snapshot_line()]
    body += [url_line(f"/docs/{n}", robots=robots_part(None)) for n in range(6)]
    body += [url_line(f"/private/{n}", fate="refused", refused_by="robots.txt",
                      robots=robots_part(2, "Disallow: /private")) for n in range(4)]  # fmt: skip
    body += [url_line(HOSTILE, robots=robots_part(None))]
    return html_report(tmp_path, [run_line(), *body, end_line(body)])


def rows(dom: str) -> list[str]:
    dom = dom.replace("<wbr>", "")  # where a long URL may wrap
    table = re.split(r'<table id="records"[^>]*>', dom, maxsplit=1)[1].split("</table>", 1)[0]
    return re.findall(r"<tr[^>]*>.*?</tr>", table.split("<tbody>", 1)[1], re.S)


def test_report_filter_runs_in_the_browser(report_page: Path, tmp_path: Path) -> None:
    dom = browse(tmp_path, f"{report_page.as_uri()}#q=private", "--dump-dom")
    assert 'data-ready="1"' in dom  # the script ran to its end
    shown = [row for row in rows(dom) if not row.startswith("<tr hidden")]
    assert len(rows(dom)) == 11 and len(shown) == 4
    assert all("/private/" in row for row in shown)
    assert re.search(r'<span id="shown">4</span>', dom)
    assert '<table id="records" data-filter="private">' in dom


def test_report_unfiltered_shows_every_row_and_hostile_url_as_text(
    report_page: Path, tmp_path: Path
) -> None:
    dom = browse(tmp_path, report_page.as_uri(), "--dump-dom")
    assert len(rows(dom)) == 11 and not any(row.startswith("<tr hidden") for row in rows(dom))
    assert '<span id="shown">11</span>' in dom and 'data-filter=""' in dom
    assert "<img" not in dom  # the hostile URL stayed text
    assert '/q"&gt;&lt;img src=x onerror="document.title=1"&gt;' in dom.replace("<wbr>", "")
    assert "<title>Audit trail: trail.jsonl</title>" in dom


def test_report_screenshot(report_page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    browse(
        tmp_path, report_page.as_uri(), f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}"
    )
    data = shot.read_bytes()
    if os.environ.get("REP_KEEP_SCREENSHOT"):
        Path(os.environ["REP_KEEP_SCREENSHOT"]).write_bytes(data)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (WIDTH, HEIGHT)
    with Image.open(shot) as image:
        assert image.size == (WIDTH, HEIGHT)
        counts = image.convert("RGB").getcolors(WIDTH * HEIGHT)
    assert counts is not None
    background = max(counts)[0]
    assert WIDTH * HEIGHT - background > WIDTH * HEIGHT // 100  # not blank: text, boxes, bars
    colours = {colour for _, colour in counts}
    assert (192, 57, 43) in colours and (39, 174, 96) in colours  # the red and green bars


def test_without_chromium_the_tests_skip_saying_why_unless_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("REP_REQUIRE_CHROMIUM", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        chromium()
    monkeypatch.setenv("REP_REQUIRE_CHROMIUM", "1")
    with pytest.raises(pytest.fail.Exception, match="chromium is not installed"):
        chromium()


#: The window the report's tables must fit.
STATES_WIDTH, STATES_HEIGHT = 1280, 900


MEASURE = """<script>(function(){var d=document.documentElement,out={page:d.scrollWidth,
view:d.clientWidth,tables:{},wrapped:0};document.querySelectorAll("table").forEach(function(t){
out.tables[t.id]=[t.scrollWidth,t.parentElement.clientWidth];});
document.querySelectorAll("td.time").forEach(function(c){var r=document.createRange();
r.selectNodeContents(c);if(r.getClientRects().length>1)out.wrapped++;});
document.body.setAttribute("data-measure",JSON.stringify(out));})();</script></body>"""


def test_in_chromium_the_tables_fit_1280_px_with_a_screenshot_per_state(tmp_path: Path) -> None:
    """The report of a run in every state (tests/audit/test_html_states.py reads its
    page): its tables fit a 1280 px window, timestamps on one line, and each state's
    colour shows in a screenshot per filter (kept under ``tmp_path``)."""
    html = html_report(tmp_path, report_states_records(), clean=False)
    text = html.read_text(encoding="utf-8")
    # The page's own CSP allows its inline scripts: a copy with a measuring one added.
    measured = tmp_path / "measured.html"
    measured.write_text(text.replace("</body>", MEASURE, 1), encoding="utf-8")
    dom = browse(
        tmp_path, measured.as_uri(), f"--window-size={STATES_WIDTH},{STATES_HEIGHT}", "--dump-dom"
    )
    found = re.search(r'data-measure="([^"]*)"', dom)
    assert found is not None, dom[-2000:]
    out = json.loads(found.group(1).replace("&quot;", '"'))
    assert out["page"] <= STATES_WIDTH, out
    for name, (width, room) in out["tables"].items():
        assert width <= room, (name, out)
    assert out["wrapped"] == 0, out
    tall = 1700  # the filtered table shows below the charts
    for query in ("", "item dropped", "private", "noai"):
        shot = tmp_path / f"report-{query.replace(' ', '-') or 'all'}.png"
        url = html.as_uri() + (f"#q={query}" if query else "")
        browse(tmp_path, url, f"--screenshot={shot}", f"--window-size={STATES_WIDTH},{tall}")
        with Image.open(shot) as image:
            assert image.size == (STATES_WIDTH, tall)
            colours = {
                c for _, c in image.convert("RGB").getcolors(STATES_WIDTH * STATES_HEIGHT) or []
            }
        assert (230, 126, 34) in colours  # the orange of "fetched, item dropped" (legend, bars)
