"""``scrapy rep-robots URL --purpose``: a page's ``noml``, ``noarchive`` and
``max-snippet:0``, and a file's ``X-Robots-Tag: noindex`` / ``noimageindex``, shown among
the page's signals with where each was said, and the answer they give
(docs/purpose-notes.md §4b-§4d)."""

from __future__ import annotations

import pytest_twisted

from tests.support.localhttp import QuietHandler, base_url_fixture
from tests.support.mediafiles import jpeg
from tests.support.tools import robots_async

PAGES = {
    "/noml": (b'<html><head><meta name="robots" content="noml"></head></html>', {}),
    "/noarchive": (b"<html><body>p</body></html>", {"X-Robots-Tag": "noarchive"}),
    "/nosnippet": (b"<html><body>p</body></html>", {"X-Robots-Tag": "max-snippet:0"}),
    "/noindex.jpg": (jpeg(), {"X-Robots-Tag": "noindex", "Content-Type": "image/jpeg"}),
    "/noimageindex.jpg": (
        jpeg(),
        {"X-Robots-Tag": "TestBot: noimageindex", "Content-Type": "image/jpeg"},
    ),
}


class AsksPagesHandler(QuietHandler):
    def do_GET(self) -> None:
        if self.path in PAGES:
            body, headers = PAGES[self.path]
            self.send(200, body, {"Content-Type": "text/html", **headers})
        else:
            self.send(404, b"", {"Content-Type": "text/plain"})


base = base_url_fixture(AsksPagesHandler)


@pytest_twisted.ensureDeferred
async def test_a_pages_noml_is_shown_and_denies_both_ai_purposes(base: str) -> None:
    status, output = await robots_async("--purpose", "ai-train,ai-input", f"{base}/noml")
    assert status == 1, output
    assert '<meta name="robots" content="noml">  (ai-train no, ai-input no)' in output
    assert 'ai-input: denied by <meta name="robots" content="noml">' in output


@pytest_twisted.ensureDeferred
async def test_a_pages_noarchive_is_shown_as_no_ai_training_unless_the_setting_is_off(
    base: str,
) -> None:
    status, output = await robots_async("--purpose", "ai-train", f"{base}/noarchive")
    assert status == 1, output
    said = "X-Robots-Tag: noarchive (REP_NOARCHIVE_MEANS_NO_AI_TRAIN)"
    assert f"{said}  (ai-train no)" in output
    assert f"=> not for this crawl: ai-train denied by {said}" in output
    status, output = await robots_async(
        "--purpose", "ai-train", "-s", "REP_NOARCHIVE_MEANS_NO_AI_TRAIN=False", f"{base}/noarchive"
    )
    assert status == 0, output
    assert "ai-train: unknown" in output  # its ai-input reading is still shown


@pytest_twisted.ensureDeferred
async def test_a_pages_noarchive_is_shown_as_no_ai_input_unless_its_setting_is_off(
    base: str,
) -> None:
    status, output = await robots_async("--purpose", "ai-input", f"{base}/noarchive")
    assert status == 1, output
    said = "X-Robots-Tag: noarchive (REP_NOARCHIVE_MEANS_NO_AI_INPUT)"
    assert f"{said}  (ai-input no)" in output
    assert f"=> not for this crawl: ai-input denied by {said}" in output
    status, output = await robots_async(
        "--purpose", "ai-input", "-s", "REP_NOARCHIVE_MEANS_NO_AI_INPUT=False", f"{base}/noarchive"
    )
    assert status == 0, output
    assert "ai-input: unknown" in output


@pytest_twisted.ensureDeferred
async def test_a_pages_max_snippet_0_is_shown_as_no_ai_input_unless_the_setting_is_off(
    base: str,
) -> None:
    status, output = await robots_async("--purpose", "ai-input", f"{base}/nosnippet")
    assert status == 1, output
    said = "X-Robots-Tag: max-snippet:0 (REP_NOSNIPPET_MEANS_NO_AI_INPUT)"
    assert f"{said}  (ai-input no)" in output
    assert f"=> not for this crawl: ai-input denied by {said}" in output
    status, output = await robots_async(
        "--purpose", "ai-input", "-s", "REP_NOSNIPPET_MEANS_NO_AI_INPUT=False", f"{base}/nosnippet"
    )
    assert status == 0, output
    assert "usage signals: none" in output and "ai-input: unknown" in output


@pytest_twisted.ensureDeferred
async def test_a_files_noindex_header_is_shown_with_the_setting_that_reads_it(base: str) -> None:
    status, output = await robots_async("--purpose", "ai-train", f"{base}/noindex.jpg")
    assert status == 1, output
    said = "X-Robots-Tag: noindex (REP_MEDIA_NOINDEX_MEANS_NO_AI)"
    assert f"{said}  (ai-train no, ai-input no)" in output
    assert f"=> not for this crawl: ai-train denied by {said}" in output
    status, output = await robots_async("--purpose", "ai-input", f"{base}/noimageindex.jpg")
    assert status == 1, output
    assert "X-Robots-Tag: TestBot: noimageindex (REP_MEDIA_NOINDEX_MEANS_NO_AI)" in output
    status, output = await robots_async(
        "--purpose", "ai-train", "-s", "REP_MEDIA_NOINDEX_MEANS_NO_AI=False", f"{base}/noindex.jpg"
    )
    assert status == 0, output
    assert "ai-train: unknown" in output
