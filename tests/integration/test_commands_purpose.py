"""``scrapy rep-robots URL --purpose``: every AI-usage signal about a URL, and the answer."""

from __future__ import annotations

from typing import ClassVar

import pytest_twisted

from tests.support.localhttp import QuietHandler, port_fixture
from tests.support.tools import robots_async

ROBOTS = b"""User-agent: *
Allow: /
Content-Usage: /articles/ train-ai=n
Content-Signal: search=yes, ai-input=no
"""
TDMREP = b'[{"location": "/books/*", "tdm-reservation": 1}]'
PAGE = b'<html><head><meta name="robots" content="noai"></head><body>p</body></html>'


class PurposeSignalsHandler(QuietHandler):
    #: The paths asked for.
    served: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.served.append(self.path)
        if self.path == "/robots.txt":
            self.send(200, ROBOTS, {"Content-Type": "text/plain"})
        elif self.path == "/.well-known/tdmrep.json":
            self.send(200, TDMREP, {"Content-Type": "application/json"})
        elif self.path == "/header":
            headers = {"Content-Type": "text/html", "Content-Usage": "train-ai=y"}
            self.send(200, b"<html></html>", headers)
        else:
            self.send(200, PAGE, {"Content-Type": "text/html"})


port = port_fixture(PurposeSignalsHandler)


@pytest_twisted.ensureDeferred
async def test_purpose_explains_every_signal_and_the_answer(port: int) -> None:
    """A URL the origin's signals refuse is not fetched, and its line names the one that
    said no (it was fetched and shown as a page); a page fetched lists
    every signal about it, the origin's and its own, and what the crawl does with it."""
    base = f"http://127.0.0.1:{port}"
    PurposeSignalsHandler.served.clear()
    status, output = await robots_async(
        "--purpose", "ai-train", f"{base}/articles/1", f"{base}/other"
    )
    assert status == 1, output  # denied for the purpose: exit 1, as disallowed
    assert f"tdmrep.json {base}/.well-known/tdmrep.json: 200 (" in output
    assert (
        f"DISALLOWED  {base}/articles/1  Not fetched: ai-train denied by robots.txt line 3: "
        "Content-Usage: /articles/ train-ai=n"
    ) in output
    assert "/articles/1" not in PurposeSignalsHandler.served
    assert PurposeSignalsHandler.served.count("/other") == 1
    page = output.split(f"{base}/other")[1]
    said = "robots.txt line 4: Content-Signal: search=yes, ai-input=no  (search yes, ai-input no)"
    assert said in page
    assert '<meta name="robots" content="noai">  (ai-train no, ai-input no)' in page
    assert 'ai-train: denied by <meta name="robots" content="noai">' in page
    assert page.rstrip().endswith(
        '=> not for this crawl: ai-train denied by <meta name="robots" content="noai">'
    )


@pytest_twisted.ensureDeferred
async def test_purpose_tdmrep_and_header(port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    books, header = f"{base}/books/1", f"{base}/header"
    status, output = await robots_async("--purpose", "ai-train,search", books, header)
    assert status == 1, output
    assert (
        f"DISALLOWED  {books}  Not fetched: ai-train denied by tdmrep.json entry 1 "
        '(location "/books/*")'
    ) in output
    assert "search: allowed by robots.txt line 4: Content-Signal" in output.split(header)[1]
    status, output = await robots_async("--purpose", "search", header)
    assert status == 0, output  # Content-Usage train-ai=y says nothing about search
    assert "header Content-Usage: train-ai=y  (ai-train yes)" in output
    assert "tdmrep.json" not in output  # not fetched for search


@pytest_twisted.ensureDeferred
async def test_purpose_unknown_value_is_a_usage_error(port: int) -> None:
    status, output = await robots_async("--purpose", "training", f"http://127.0.0.1:{port}/x")
    assert status == 2, output
    assert "--purpose: 'training' is not a purpose (did you mean 'ai-train'?); expected" in output


@pytest_twisted.ensureDeferred
async def test_rep_purpose_setting_explains_as_much_as_the_option(port: int) -> None:
    """``-s REP_PURPOSE=ai-train`` tells what ``--purpose ai-train`` tells, and the
    tdmrep.json line comes under the origin's robots.txt header, not above it."""
    base = f"http://127.0.0.1:{port}"
    by_option = await robots_async("--purpose", "ai-train", f"{base}/articles/1")
    by_setting = await robots_async("-s", "REP_PURPOSE=ai-train", f"{base}/articles/1")
    assert by_setting == by_option
    status, output = by_setting
    assert status == 1, output
    robots_header = output.index(f"robots.txt {base}/robots.txt: 200")
    assert robots_header < output.index(f"tdmrep.json {base}/.well-known/tdmrep.json: 200 (")
    assert "Not fetched: ai-train denied by robots.txt line 3" in output


@pytest_twisted.ensureDeferred
async def test_google_profile_says_google_ignores_content_usage_and_content_signal(
    port: int,
) -> None:
    """google/robotstxt (reporting_robots.cc, commit 4af32e5) lists content-signal and
    content-usage among its unsupported tags: the google profile says so for those lines."""
    base = f"http://127.0.0.1:{port}"
    note = "(read by scrapy_rep, ignored by Google's parser)"
    status, output = await robots_async(
        "--purpose", "ai-train", f"{base}/articles/1", f"{base}/other"
    )
    assert status == 1, output
    assert (
        "robots.txt line 4: Content-Signal: search=yes, ai-input=no  (search yes, ai-input no) "
        f"{note}"
    ) in output
    assert '<meta name="robots" content="noai">  (ai-train no, ai-input no)\n' in output
    assert (
        f"Not fetched: ai-train denied by robots.txt line 3: Content-Usage: /articles/ "
        f"train-ai=n {note}"
    ) in output
    status, output = await robots_async(
        "--purpose", "ai-train", "--rep-profile", "rfc9309", f"{base}/articles/1"
    )
    assert status == 1, output
    assert "ignored by Google's parser" not in output
