"""The end-of-crawl report never shares a stream with a feed: with ``-o -:jsonl`` the
items go to standard output as pure JSON lines, and the report to standard error.

A real ``scrapy runspider`` against a local server (the report is written when the
spider closes, so only a whole crawl shows where it goes)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.support.localhttp import QuietHandler, port_fixture

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


class SlowLocalhostHandler(QuietHandler):
    def do_GET(self) -> None:
        if self.path == "/robots.txt" and self.headers.get("Host", "").startswith("localhost"):
            time.sleep(3)  # still downloading when the first page closes the spider
            self.send(200, b"User-agent: *\nAllow: /\n", {"Content-Type": "text/plain"})
        elif self.path == "/robots.txt":
            self.send(200, b"User-agent: *\nDisallow: /private/\n", {"Content-Type": "text/plain"})
        else:
            self.send(200, b"<html><body>hi</body></html>", {"Content-Type": "text/html"})


port = port_fixture(SlowLocalhostHandler)


def runspider(tmp_path: Path, port: int, *args: str) -> subprocess.CompletedProcess[str]:
    spider = tmp_path / "items_spider.py"
    spider.write_text(SPIDER)
    return subprocess.run(
        [
            *(sys.executable, "-m", "scrapy", "runspider", str(spider)),
            *("-a", f"base=http://127.0.0.1:{port}", *args),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )


def test_feed_on_stdout_is_pure_json_lines_and_report_goes_to_stderr(
    port: int, tmp_path: Path
) -> None:
    result = runspider(tmp_path, port, "-o", "-:jsonl")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    items = [json.loads(line) for line in lines]  # every line is JSON: nothing else
    assert sorted(item["url"].rsplit("/", 1)[1] for item in items) == ["", "other"]
    assert "scrapy_rep report" in result.stderr
    assert "Forbidden by" in result.stderr


def test_the_report_comes_last_after_scrapys_stats_and_spider_closed(
    port: int, tmp_path: Path
) -> None:
    """docs/settings.md (REP_REPORT): the report is printed after Scrapy's log, so it does
    not scroll away above the stats."""
    result = runspider(tmp_path, port, "-o", "items.jsonl")
    assert result.returncode == 0, result.stderr
    report = result.stderr.index("scrapy_rep report")
    assert result.stderr.index("Dumping Scrapy stats") < report
    assert result.stderr.index("Spider closed (finished)") < report
    assert result.stderr.rstrip().endswith(
        "In short: 3 requests (2 downloaded, 1 forbidden by robots.txt); 2 items kept"
    )


def test_a_report_file_alone_turns_the_report_on(port: int, tmp_path: Path) -> None:
    """REP_REPORT_FILE without REP_REPORT = True writes the report (it said nothing)."""
    result = runspider(tmp_path, port, "-s", "REP_REPORT=False", "-s", "REP_REPORT_FILE=report.txt")
    assert result.returncode == 0, result.stderr
    assert "scrapy_rep report" not in result.stderr
    text = (tmp_path / "report.txt").read_text()
    assert text.startswith("scrapy_rep report")
    assert "Forbidden by" in text


def test_a_crawl_closed_early_names_its_held_requests_truly(port: int, tmp_path: Path) -> None:
    """CLOSESPIDER_PAGECOUNT closes the crawl while an origin's robots.txt (which answers
    200, slowly) is still downloading: the WARNING says the request was held until its
    documents (not "for unreachable robots.txt"), and the report, printed after the drop,
    counts what was dropped (it said "nothing happened")."""
    spider = tmp_path / "early_spider.py"
    spider.write_text(
        SPIDER.replace(
            'base + "/private/x", base + "/other"',
            'base.replace("127.0.0.1", "localhost") + "/slow"',
        )
    )
    result = subprocess.run(
        [
            *(sys.executable, "-m", "scrapy", "runspider", str(spider)),
            *("-a", f"base=http://127.0.0.1:{port}", "-s", "CLOSESPIDER_PAGECOUNT=1"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "unreachable" not in result.stderr
    assert "still held, waiting for their origin's robots.txt" in result.stderr
    [warning] = re.findall(
        r"WARNING: scrapy_rep: the spider closed .* (\d+) request", result.stderr
    )
    assert re.search(rf"In short: .*\b{warning} dropped: the spider closed\)\n", result.stderr)
