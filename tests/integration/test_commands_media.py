"""``scrapy rep-robots --purpose ai-train FILE_URL``: what a file says inside itself."""

from __future__ import annotations

import pytest_twisted

from tests.support.localhttp import QuietHandler, base_url_fixture
from tests.support.mediafiles import jpeg, png, xmp_packet
from tests.support.tools import robots_async

FILES = {
    "/prohibited.jpg": (jpeg(xmp_packet("DMI-PROHIBITED-AIMLTRAINING")), "image/jpeg"),
    "/search-only.png": (png(xmp_packet("DMI-PROHIBITED-EXCEPTSEARCHENGINEINDEXING")), "image/png"),
    "/plain.jpg": (jpeg(), "image/jpeg"),
    "/broken.jpg": (jpeg(xmp_packet("DMI-ALLOWED").replace(b"</rdf:RDF>", b"")), "image/jpeg"),
}


class MediaFilesHandler(QuietHandler):
    def do_GET(self) -> None:
        if self.path in FILES:
            body, kind = FILES[self.path]
            self.send(200, body, {"Content-Type": kind})
        else:
            self.send(404, b"", {"Content-Type": "text/plain"})


base = base_url_fixture(MediaFilesHandler)


@pytest_twisted.ensureDeferred
async def test_a_file_that_prohibits_training_is_denied(base: str) -> None:
    status, output = await robots_async("--purpose", "ai-train", f"{base}/prohibited.jpg")
    assert status == 1, output
    assert "file: jpeg, 1 statement(s) inside" in output
    assert "XMP plus:DataMining DMI-PROHIBITED-AIMLTRAINING  (ai-train no)" in output
    assert "=> not for this crawl: ai-train denied by XMP plus:DataMining" in output


@pytest_twisted.ensureDeferred
async def test_search_only_is_allowed_for_search_and_denied_for_ai_input(base: str) -> None:
    status, output = await robots_async("--purpose", "ai-input", f"{base}/search-only.png")
    assert status == 1, output
    assert "(search yes, ai-train no, ai-input no)" in output
    status, output = await robots_async("--purpose", "search", f"{base}/search-only.png")
    assert status == 0, output
    assert "file: statements inside files are read for ai-train / ai-input only" in output


@pytest_twisted.ensureDeferred
async def test_a_plain_file_and_an_unreadable_one(base: str) -> None:
    status, output = await robots_async("--purpose", "ai-train", f"{base}/plain.jpg")
    assert status == 0, output
    assert "file: jpeg, 0 statement(s) inside" in output and "ai-train: unknown" in output
    status, output = await robots_async("--purpose", "ai-train", f"{base}/broken.jpg")
    assert status == 0, output
    assert "file: unreadable: XMP packet 1 unreadable (XML:" in output
