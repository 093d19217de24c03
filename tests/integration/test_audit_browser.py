"""The HTML report of ``audit report --html`` in a real browser: headless Chromium
(Debian's ``chromium``, which ``.ci/run`` installs) loads the page offline, runs its
script, and we assert on the DOM it ends with and on a screenshot (docs/audit-trail.md,
"Reading the trail").

Without Chromium the tests skip, saying so, unless ``REP_REQUIRE_CHROMIUM=1`` (CI sets it
when the package is installed) makes that a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from scrapy_rep.audit.cli import main
from tests.support.trailfactory import (
    end_line,
    robots,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)

HOSTILE = '/q"><img src=x onerror="document.title=1">'
WIDTH, HEIGHT = 1200, 900


def chromium() -> str:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        message = "chromium is not installed (Debian: apt-get install chromium)"
        if os.environ.get("REP_REQUIRE_CHROMIUM") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return binary


def browse(tmp_path: Path, url: str, *options: str) -> str:
    """Run headless Chromium on ``url`` with ``options``; its stdout."""
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    command = [
        chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={profile}", *options, url,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.fixture
def page(tmp_path: Path) -> Path:
    body = [snapshot_line()]
    body += [url_line(f"/docs/{n}", robots=robots(None)) for n in range(6)]
    body += [url_line(f"/private/{n}", fate="refused", refused_by="robots.txt",
                      robots=robots(2, "Disallow: /private")) for n in range(4)]  # fmt: skip
    body += [url_line(HOSTILE, robots=robots(None))]
    trail = write_trail(tmp_path / "trail.jsonl", [run_line(), *body, end_line(body)])
    html = tmp_path / "report.html"
    assert main(["report", str(trail), "--html", str(html)]) == 0
    return html


def rows(dom: str) -> list[str]:
    dom = dom.replace("<wbr>", "")  # where a long URL may wrap
    table = re.split(r'<table id="records"[^>]*>', dom, maxsplit=1)[1].split("</table>", 1)[0]
    return re.findall(r"<tr[^>]*>.*?</tr>", table.split("<tbody>", 1)[1], re.S)


def test_report_filter_runs_in_the_browser(page: Path, tmp_path: Path) -> None:
    dom = browse(tmp_path, f"{page.as_uri()}#q=private", "--dump-dom")
    assert 'data-ready="1"' in dom  # the script ran to its end
    shown = [row for row in rows(dom) if not row.startswith("<tr hidden")]
    assert len(rows(dom)) == 11 and len(shown) == 4
    assert all("/private/" in row for row in shown)
    assert re.search(r'<span id="shown">4</span>', dom)
    assert '<table id="records" data-filter="private">' in dom


def test_report_unfiltered_shows_every_row_and_hostile_url_as_text(
    page: Path, tmp_path: Path
) -> None:
    dom = browse(tmp_path, page.as_uri(), "--dump-dom")
    assert len(rows(dom)) == 11 and not any(row.startswith("<tr hidden") for row in rows(dom))
    assert '<span id="shown">11</span>' in dom and 'data-filter=""' in dom
    assert "<img" not in dom  # the hostile URL stayed text
    assert '/q"&gt;&lt;img src=x onerror="document.title=1"&gt;' in dom.replace("<wbr>", "")
    assert "<title>Audit trail: trail.jsonl</title>" in dom


def test_report_screenshot(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    browse(tmp_path, page.as_uri(), f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}")
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
