"""``python -m scrapy_rep check --page``: under each URL robots.txt allows, the page's
directives, and with ``--purpose`` its usage signals and the page's verdict (the crawl's
decision after the fetch), as ``scrapy rep-robots --page`` prints them, by the same code
(both tools' lines: tests/integration/test_tools_agree.py); a page that cannot be had,
and ``--page`` against a local file."""

from __future__ import annotations

import pytest_twisted

from tests.support.localhttp import QuietHandler, port_fixture
from tests.support.tools import check_async

ROBOTS = b"User-agent: *\nDisallow: /private\n"


class PagesHandler(QuietHandler):
    def do_GET(self) -> None:
        html = {"Content-Type": "text/html"}
        if self.path == "/robots.txt":
            self.send(200, ROBOTS, {"Content-Type": "text/plain"})
        elif self.path == "/notrain":
            self.send(200, b"<html></html>", {**html, "Content-Usage": "train-ai=n"})
        elif self.path == "/gone":
            self.close_connection = True  # no answer at all: the page cannot be had
        else:
            self.send(200, b"<html></html>", html)


port = port_fixture(PagesHandler)


@pytest_twisted.ensureDeferred
async def test_check_without_page_says_only_what_the_origin_said(port: int) -> None:
    """Without ``--page``, ``check`` says only what the origin said: the page's "no" (its
    ``Content-Usage`` header) is not seen (with ``--page``, and the same lines as ``scrapy
    rep-robots --page``: tests/integration/test_tools_agree.py)."""
    base = f"http://127.0.0.1:{port}"
    urls = [f"{base}/notrain", f"{base}/plain"]
    purpose = ("--purpose", "ai-train", "-A", "TestBot")
    status, origin_only = await check_async(*purpose, *urls)
    assert status == 0 and "Content-Usage" not in origin_only


@pytest_twisted.ensureDeferred
async def test_a_page_that_cannot_be_had_is_exit_status_3(port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    status, checked = await check_async("--page", "-A", "TestBot", f"{base}/plain", f"{base}/gone")
    assert status == 3, checked
    assert f"{base}/gone   no rule matches\n      page: not fetched (" in checked
    status, output = await check_async("--page", "-A", "TestBot", f"{base}/plain")  # a URL alone
    assert status == 0, output


@pytest_twisted.ensureDeferred
async def test_page_takes_urls_only_against_a_local_file(tmp_path: object) -> None:
    from pathlib import Path

    robots = Path(str(tmp_path)) / "robots.txt"
    robots.write_bytes(ROBOTS)
    status, _ = await check_async("--page", str(robots), "/a")
    assert status == 2
