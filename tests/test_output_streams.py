"""The end-of-crawl report never shares a stream with a feed: with ``-o -:jsonl`` the
items go to standard output as pure JSON lines, and the report to standard error.

A real ``scrapy runspider`` against a local server (the report is written when the
spider closes, so only a whole crawl shows where it goes)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from localhttp import QuietHandler, serving

SPIDER = """
import scrapy


class Items(scrapy.Spider):
    name = "items"
    custom_settings = {
        "ADDONS": {"scrapy_rep.Addon": 0},
        "REP_REPORT": True,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
    }

    def __init__(self, base, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [base + "/", base + "/private/x", base + "/other"]

    def parse(self, response):
        yield {"url": response.url, "status": response.status}
"""


class Handler(QuietHandler):
    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self.send(200, b"User-agent: *\nDisallow: /private/\n", {"Content-Type": "text/plain"})
        else:
            self.send(200, b"<html><body>hi</body></html>", {"Content-Type": "text/html"})


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serving(Handler) as free_port:
        yield free_port


def test_feed_on_stdout_is_pure_json_lines_and_report_goes_to_stderr(
    port: int, tmp_path: Path
) -> None:
    spider = tmp_path / "items_spider.py"
    spider.write_text(SPIDER)
    result = subprocess.run(
        [
            *(sys.executable, "-m", "scrapy", "runspider", str(spider)),
            *("-a", f"base=http://127.0.0.1:{port}", "-o", "-:jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    items = [json.loads(line) for line in lines]  # every line is JSON: nothing else
    assert sorted(item["url"].rsplit("/", 1)[1] for item in items) == ["", "other"]
    assert "scrapy_rep report" in result.stderr
    assert "Forbidden by" in result.stderr
