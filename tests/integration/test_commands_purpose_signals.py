"""``scrapy rep-robots URL --purpose``: each newer signal (vocab-08 ``ai-use``,
``DisallowAITraining``, Content-Signal ``use=``; docs/purpose-notes.md), with its source
line: the one that refuses a URL before its fetch on its line (the page is not fetched,
as in the crawl), every one about a page fetched in its list of signals."""

from __future__ import annotations

import pytest_twisted

from tests.support.localhttp import QuietHandler, port_fixture
from tests.support.tools import robots_async

ROBOTS = b"""User-agent: GPTBot
Content-Usage: /gpt train-ai=n

User-agent: *
Allow: /
DisallowAITraining: /ms
Content-Usage: /rag ai-use=n
Content-Signal: search=yes, use=reference
"""


class NewerSignalsHandler(QuietHandler):
    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self.send(200, ROBOTS, {"Content-Type": "text/plain"})
        elif self.path == "/.well-known/tdmrep.json":
            self.send(404, b"", {"Content-Type": "text/plain"})
        else:
            self.send(200, b"<html><body>p</body></html>", {"Content-Type": "text/html"})


port = port_fixture(NewerSignalsHandler)


@pytest_twisted.ensureDeferred
async def test_scrapy_robots_shows_each_newer_signal_with_its_source_line(port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    status, output = await robots_async(
        "--purpose", "ai-train,ai-input", "--rep-profile", "rfc9309",
        "-s", "REP_PURPOSE_AGENTS=GPTBot",
        f"{base}/ms/1", f"{base}/rag/1", f"{base}/gpt/1",
    )  # fmt: skip
    assert status == 1, output
    assert (
        f"DISALLOWED  {base}/ms/1   Not fetched: ai-train denied by robots.txt line 6: "
        "DisallowAITraining: /ms"
    ) in output
    assert (
        f"DISALLOWED  {base}/rag/1  Not fetched: ai-input denied by robots.txt line 7: "
        "Content-Usage: /rag ai-use=n"
    ) in output
    assert (
        f"DISALLOWED  {base}/gpt/1  Not fetched: ai-train denied by robots.txt line 2: "
        "Content-Usage: /gpt train-ai=n (for GPTBot)"
    ) in output
    assert "page:" not in output  # none fetched
    status, output = await robots_async(
        "--purpose", "ai-train,ai-input", "--rep-profile", "rfc9309", f"{base}/page"
    )
    assert status == 0, output
    # use= is a condition on use, not an answer (docs/purpose-notes.md §2)
    assert "robots.txt line 8: Content-Signal: search=yes, use=reference  (search yes)" in output
