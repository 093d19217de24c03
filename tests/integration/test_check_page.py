"""``python -m scrapy_rep check --page`` prints under each URL robots.txt allows what
``scrapy rep-robots --page`` prints, by the same code: the page's directives, and with
``--purpose`` its usage signals and the page's verdict (the crawl's decision after the
fetch)."""

from __future__ import annotations

import pytest_twisted

from tests.support.localhttp import QuietHandler, port_fixture
from tests.support.tools import check_async, robots_async

ROBOTS = b"User-agent: *\nDisallow: /private\n"
META = b'<html><head><meta name="robots" content="nofollow"></head><body>x</body></html>'


class PagesHandler(QuietHandler):
    def do_GET(self) -> None:
        html = {"Content-Type": "text/html"}
        if self.path == "/robots.txt":
            self.send(200, ROBOTS, {"Content-Type": "text/plain"})
        elif self.path == "/noindex":
            self.send(200, b"<html></html>", {**html, "X-Robots-Tag": "noindex"})
        elif self.path == "/meta":
            self.send(200, META, html)
        elif self.path == "/notrain":
            self.send(200, b"<html></html>", {**html, "Content-Usage": "train-ai=n"})
        elif self.path == "/gone":
            self.close_connection = True  # no answer at all: the page cannot be had
        else:
            self.send(200, b"<html></html>", html)


port = port_fixture(PagesHandler)


def page_lines(output: str) -> list[str]:
    """Each URL's line and the lines under it (the block's head left out)."""
    lines = output.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  allowed"))
    return [line for line in lines[first:] if line.startswith("  ")]


@pytest_twisted.ensureDeferred
async def test_check_page_prints_what_rep_robots_prints(port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    urls = [f"{base}/noindex", f"{base}/meta", f"{base}/plain", f"{base}/private/x"]
    status, checked = await check_async("--page", "-A", "TestBot", *urls)
    robots_status, printed = await robots_async("--page", "-A", "TestBot", *urls)
    assert status == robots_status == 1, checked  # /private/x is disallowed
    assert page_lines(checked) == page_lines(printed), printed
    noindex = checked.split(f"{base}/noindex")[1].split(f"{base}/meta")[0]
    assert "      page: 200, directives: noindex (X-Robots-Tag: noindex)" in noindex
    # what the crawl does with the page: its items dropped
    assert "      => not for this crawl: noindex by header X-Robots-Tag: noindex" in noindex
    meta = checked.split(f"{base}/meta")[1].split(f"{base}/plain")[0]
    assert "nofollow" in meta and "      => kept" in meta
    # a URL robots.txt disallows is not fetched
    assert checked.rstrip().splitlines()[-1].startswith("  DISALLOWED")


@pytest_twisted.ensureDeferred
async def test_check_page_with_a_purpose_gives_the_pages_verdict(port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    urls = [f"{base}/notrain", f"{base}/plain"]
    purpose = ("--purpose", "ai-train", "-A", "TestBot")
    status, checked = await check_async("--page", *purpose, *urls)
    robots_status, printed = await robots_async("--page", *purpose, *urls)
    assert status == robots_status == 1, checked
    assert page_lines(checked) == page_lines(printed), printed
    assert "        header Content-Usage: train-ai=n  (ai-train no" in checked
    assert "      => not for this crawl: ai-train denied by header Content-Usage" in checked
    # without --page, check says only what the origin said: the page's "no" is not seen
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
