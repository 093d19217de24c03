"""The robots.txt middleware's settings under the ``scrapy`` command: a real ``scrapy
runspider`` process (SPEC §5; unit tests: tests/crawl/requests/test_downloadermiddlewares.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SPIDER = """
import scrapy
class S(scrapy.Spider):
    name = "s"
    custom_settings = {"ADDONS": {"scrapy_rep.Addon": 0}, %s}
    start_urls = ["http://127.0.0.1:1/"]
"""


@pytest.mark.parametrize(
    ("where", "line"),
    [
        ("custom", "scrapy_rep: error: REP_CACHE_TTL: expected a number, got 'a day'"),
        ("command", "scrapy_rep: error: REP_PROFILE: expected one of 'google', 'rfc9309', "
         "'legacy', got 'gogle'"),
    ],
)  # fmt: skip
def test_spec5_a_wrong_setting_under_the_scrapy_command_is_one_line_and_exit_2(
    tmp_path: Path, where: str, line: str
) -> None:
    custom = '"REP_CACHE_TTL": "a day"' if where == "custom" else ""
    (tmp_path / "spider.py").write_text(SPIDER % custom)
    extra = ["-s", "REP_PROFILE=gogle"] if where == "command" else []
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "runspider", "spider.py", "-s", "LOG_ENABLED=0", *extra],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [line]
