"""The end-of-crawl report never shares a stream with a feed: with ``-o -:jsonl`` the
items go to standard output as pure JSON lines, and the report to standard error.

Against a local server (the report is written when the spider closes, so only a whole
crawl shows where it goes): standard output against standard error in a real ``scrapy
runspider`` process; the report's place among Scrapy's log lines, the report file and the
crawl closed early in this process, Scrapy's log written to the captured standard error
in its own format as ``scrapy`` writes it (:func:`scrapy_log_on_stderr`)."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted
from scrapy import Spider
from scrapy.settings import default_settings

from tests.support.localhttp import QuietHandler, port_fixture
from tests.support.robotsite import command_crawler

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


class Items(Spider):
    """The process's spider, in this process."""

    name = "items"
    custom_settings: ClassVar[dict[str, Any]] = {
        "ADDONS": {"scrapy_rep.Addon": 0},
        "REP_REPORT": True,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
    }

    def __init__(self, base: str, early: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        others = [base.replace("127.0.0.1", "localhost") + "/slow"] if early else [
            base + "/private/x", base + "/other"
        ]  # fmt: skip
        self.start_urls = [base + "/", *others]

    def parse(self, response: Any) -> Any:
        yield {"url": response.url, "status": response.status}


@contextmanager
def scrapy_log_on_stderr() -> Iterator[None]:
    """Scrapy's log at INFO on ``sys.stderr`` (the captured one), in the format ``scrapy``
    writes it in (``LOG_FORMAT``): the report's lines and the log's in one stream."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter(default_settings.LOG_FORMAT, default_settings.LOG_DATEFORMAT)
    )
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.INFO)  # LOG_LEVEL = "INFO", as scrapy's own handler has it
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


async def crawl_items(port: int, early: bool = False, **given: Any) -> None:
    """``scrapy runspider`` of :class:`Items` with ``given`` (as ``-s`` and ``-o`` give
    them) in this process, from the test's folder, to its end (no ERROR)."""
    crawler = command_crawler(given, {}, Items)
    await crawler.crawl(base=f"http://127.0.0.1:{port}", early=early)
    assert crawler.stats is not None
    assert crawler.stats.get_value("log_count/ERROR") is None


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


@pytest_twisted.ensureDeferred
async def test_the_report_comes_last_after_scrapys_stats_and_spider_closed(
    port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/settings.md (REP_REPORT): the report is printed after Scrapy's log, so it does
    not scroll away above the stats."""
    monkeypatch.chdir(tmp_path)
    with scrapy_log_on_stderr():
        await crawl_items(port, FEEDS={"items.jsonl": {"format": "jsonl"}})  # -o items.jsonl
    stderr = capsys.readouterr().err
    report = stderr.index("scrapy_rep report")
    assert stderr.index("Dumping Scrapy stats") < report
    assert stderr.index("Spider closed (finished)") < report
    assert stderr.rstrip().endswith(
        "In short: 3 requests (2 downloaded, 1 forbidden by robots.txt); 2 items kept"
    )


@pytest_twisted.ensureDeferred
async def test_a_report_file_alone_turns_the_report_on(
    port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """REP_REPORT_FILE without REP_REPORT = True writes the report (it said nothing)."""
    monkeypatch.chdir(tmp_path)
    with scrapy_log_on_stderr():
        await crawl_items(port, REP_REPORT="False", REP_REPORT_FILE="report.txt")
    assert "scrapy_rep report" not in capsys.readouterr().err
    text = (tmp_path / "report.txt").read_text()
    assert text.startswith("scrapy_rep report")
    assert "Forbidden by" in text


@pytest_twisted.ensureDeferred
async def test_a_crawl_closed_early_names_its_held_requests_truly(
    port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLOSESPIDER_PAGECOUNT closes the crawl while an origin's robots.txt (which answers
    200, slowly) is still downloading: the WARNING says the request was held until its
    documents (not "for unreachable robots.txt"), and the report, printed after the drop,
    counts what was dropped (it said "nothing happened")."""
    monkeypatch.chdir(tmp_path)
    with scrapy_log_on_stderr():
        await crawl_items(port, early=True, CLOSESPIDER_PAGECOUNT="1")
    stderr = capsys.readouterr().err
    assert "unreachable" not in stderr
    assert "still held, waiting for their origin's robots.txt" in stderr
    # one WARNING (a handler a test before this one left on the root logger may print it
    # twice in this process: the same line, the same count)
    [warning] = set(re.findall(r"WARNING: scrapy_rep: the spider closed .* (\d+) request", stderr))
    assert re.search(rf"In short: .*\b{warning} dropped: the spider closed\)\n", stderr)
