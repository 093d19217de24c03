"""Setting names in real ``scrapy crawl`` processes (the readings: tests/settings/test_names.py):
the add-on's defaults in a real project, a misspelled setting stops the crawl at start
with the closest real one, and ``REP_UNKNOWN_SETTINGS = "warn"`` lets it go on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.scrapyproject import crawl_with, make_project

#: The closing words of the error line: how to let the crawl go on.
GO_ON = '(REP_UNKNOWN_SETTINGS = "warn" ignores unknown names with a WARNING)'


def test_defaults_in_a_real_project(tmp_path: Path) -> None:
    """``scrapy shell -c`` (a crawler's settings) shows the default."""
    project = make_project(tmp_path, "", process=True)  # the one startproject process
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "shell", "-c", 'settings.get("REP_PROFILE")'],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "google"


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            'REP_PURPOSES = "ai-train"',
            "REP_PURPOSES: unknown setting, did you mean REP_PURPOSE?",
        ),
        ('rep_purpose = "ai-train"', "rep_purpose: unknown setting, did you mean REP_PURPOSE?"),
        (
            'REP_AUDIT_FLIE = "trail.jsonl"',
            "REP_AUDIT_FLIE: unknown setting, did you mean REP_AUDIT_FILE?",
        ),
    ],
)
def test_a_misspelled_setting_stops_scrapy_crawl(tmp_path: Path, line: str, error: str) -> None:
    """``scrapy crawl`` in a real project: exit status 2 and the "did you mean" line, and
    no crawl (it used to run, for search, or without a trail)."""
    crawl = crawl_with(tmp_path, line)
    assert crawl.status == 2, crawl.stderr
    assert "Traceback" not in crawl.stderr
    assert crawl.error_lines() == [f"scrapy_rep: error: {error} {GO_ON}"]
    assert "Spider opened" not in crawl.stderr
    assert not list(tmp_path.rglob("trail.jsonl"))


def test_warn_lets_scrapy_crawl_go_on(tmp_path: Path) -> None:
    crawl = crawl_with(tmp_path, 'REP_UNKNOWN_SETTINGS = "warn"\nREP_PURPOSES = "ai-train"')
    assert crawl.status == 0, crawl.stderr
    assert crawl.error_lines() == []
    assert "WARNING: Unknown setting REP_PURPOSES is ignored: did you mean REP_PURPOSE?" in (
        crawl.stderr
    )
    assert "Spider closed (finished)" in crawl.stderr
