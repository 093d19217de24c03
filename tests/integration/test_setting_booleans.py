"""A boolean setting that is no boolean stops ``scrapy crawl`` at start naming the setting
(exit 2), and one given on the command line is read as in settings.py (docs/settings.md,
"Booleans"); real ``scrapy`` processes (the readers: tests/settings/test_readers_booleans.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scrapyproject import crawl_with


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            'REP_OBEY_CRAWL_DELAY = "no"',
            "REP_OBEY_CRAWL_DELAY: expected a boolean (True, False, 1, 0, 'true', 'false', "
            "'1' or '0'), got 'no'",
        ),
        (
            'ROBOTSTXT_OBEY = "no"',  # it ended in a traceback from Scrapy's getbool
            "ROBOTSTXT_OBEY: expected a boolean (True, False, 1, 0, 'true', 'false', "
            "'1' or '0'), got 'no'",
        ),
    ],
)
def test_a_wrong_boolean_stops_scrapy_crawl(tmp_path: Path, line: str, error: str) -> None:
    crawl = crawl_with(tmp_path, line)
    assert crawl.status == 2, crawl.stderr
    assert "Traceback" not in crawl.stderr
    assert crawl.error_lines() == [f"scrapy_rep: error: {error}"]
    assert "Spider opened" not in crawl.stderr


def test_a_boolean_on_the_command_line(tmp_path: Path) -> None:
    """``-s NAME=true`` is a string: accepted, and the crawl runs."""
    crawl = crawl_with(tmp_path, "", "-s", "REP_OBEY_CRAWL_DELAY=false", "-s", "REP_REPORT=1")
    assert crawl.status == 0, crawl.stderr
    assert "Spider closed (finished)" in crawl.stderr
    assert "In short: nothing happened" in crawl.stderr  # the report, turned on by "1"
