"""``scrapy rep-robots --page`` says what a page holds for other crawlers when none of its
directives apply to ours, instead of "no robots meta tag or header"."""

from __future__ import annotations

import pytest_twisted

from tests.support.localhttp import QuietHandler, port_fixture
from tests.support.tools import robots_async

PAGE = b'<html><head><meta name="googlebot" content="noindex, nofollow"></head></html>'


class ScopedPageHandler(QuietHandler):
    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self.send(404, b"", {"Content-Type": "text/plain"})
        elif self.path == "/scoped":
            headers = {"Content-Type": "text/html", "X-Robots-Tag": "otherbot: noindex"}
            self.send(200, PAGE, headers)
        else:
            self.send(200, b"<html></html>", {"Content-Type": "text/html"})


port = port_fixture(ScopedPageHandler)


@pytest_twisted.ensureDeferred
async def test_page_scoped_to_another_crawler_says_what_it_found(port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    status, output = await robots_async("--page", f"{base}/scoped", f"{base}/plain")
    assert status == 0, output
    assert "no robots meta tag or header" in output  # /plain has none
    assert (
        "(none for this crawler; for other crawlers: X-Robots-Tag: otherbot: noindex; "
        '<meta name="googlebot" content="noindex, nofollow">)'
    ) in output


@pytest_twisted.ensureDeferred
async def test_page_read_for_every_name_the_crawls_requests_are_held_to(port: int) -> None:
    """``ROBOTSTXT_USER_AGENT = TestBot`` with requests sent as otherbot: the page's
    ``otherbot: noindex`` applies, as in the crawl (docs/decisions.md, 'Every name a
    request can be held to'), which drops its items: exit 1."""
    base = f"http://127.0.0.1:{port}"
    status, output = await robots_async(
        "-s", "ROBOTSTXT_USER_AGENT=TestBot", "--page", f"{base}/scoped", user_agent="otherbot/1.0"
    )
    assert status == 1, output
    assert "crawler names testbot, otherbot" in output
    assert "directives: noindex (X-Robots-Tag: otherbot: noindex)" in output, output
    assert "=> not for this crawl: noindex by header X-Robots-Tag: otherbot: noindex" in output
