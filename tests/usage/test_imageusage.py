"""``noimageai`` covers the images of its page (docs/decisions.md, 'A page's noimageai
covers the images it shows'): the pure record (:mod:`rep_engine.usage.imageusage`; the
crawl's gate on fake Scrapy responses: tests/crawl/page/test_images.py)."""

from __future__ import annotations

import pytest

from rep_engine.usage.imageusage import IMAGE_PURPOSES, is_image_url, page_record, record_for


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://e.com/a.PNG", True),
        ("https://e.com/a.jpg?x=1", True),
        ("https://e.com/dir.jpg/page", False),
        ("https://e.com/a.pdf", False),
        ("https://e.com/", False),
        ("https://[bad/a.png", False),
    ],
)
def test_is_image_url(url: str, expected: bool) -> None:
    assert is_image_url(url) is expected


def test_the_record_names_the_purposes_of_the_purpose_table() -> None:
    assert IMAGE_PURPOSES == ("ai-train", "ai-input")
    record = page_record("https://e.com/p", '<meta name="robots" content="noimageai">')
    assert record == {
        "purposes": ["ai-train", "ai-input"],
        "source": '<meta name="robots" content="noimageai"> on https://e.com/p',
        "page": "https://e.com/p",
    }


def test_a_record_is_only_its_own_requests() -> None:
    record = {"purposes": ["ai-train"], "source": "s", "page": "p", "url": "https://e.com/a.png"}
    meta = {"rep_image_usage": record}
    assert record_for(meta, "https://e.com/a.png") is record
    assert record_for(meta, "https://e.com/other.png") is None  # a copied meta
    assert record_for(meta, "https://cdn.e.com/a.png", ["https://e.com/a.png"]) is record
    assert record_for({"rep_image_usage": "junk"}, "https://e.com/a.png") is None
    assert record_for(meta, "https://cdn.e.com/a.png", 7) is None  # type: ignore[arg-type]
    assert record_for(meta, "https://cdn.e.com/a.png", [[1]]) is None
