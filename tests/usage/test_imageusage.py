"""``noimageai`` covers the images of its page (docs/decisions.md, 'A page's noimageai
covers the images it shows'): the pure record (:mod:`rep_engine.usage.imageusage`) and the
gate on fake Scrapy responses."""

from __future__ import annotations

from typing import Any

import pytest
import scrapy
from scrapy.http import HtmlResponse, Request

from rep_engine.directives import PageDirectives, combine
from rep_engine.usage.imageusage import IMAGE_PURPOSES, is_image_url, page_record, record_for
from tests.support.fakes import image_gate, page_verdict


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


PAGE = (
    b'<html><head><meta name="robots" content="noimageai"></head><body>'
    b'<img src="/a.png"><picture><source srcset="/b 1x, /c,d 2x"></picture>'
    b'<img data-src="img/e"></body></html>'
)


class Declared(scrapy.Item):
    url = scrapy.Field()
    image_urls = scrapy.Field()
    file_urls = scrapy.Field()


def meta_directives(word: str) -> PageDirectives:
    return combine([word], [f'<meta name="robots" content="{word}">'])


def noimageai_page() -> tuple[HtmlResponse, Any]:
    url = "https://e.com/g/page"
    return HtmlResponse(url, body=PAGE, request=Request(url)), meta_directives("noimageai")


def test_the_images_of_the_page_are_refused_for_an_ai_crawl() -> None:
    images, refused, stats = image_gate(("search", "ai-input"), FILES_URLS_FIELD="files_to_get")
    response, directives = noimageai_page()
    found = images.page(response, page_verdict(directives))
    assert found is not None
    urls = ("https://e.com/b", "https://e.com/c,d", "https://e.com/g/img/e", "https://x.org/z.gif")
    for url in urls:
        assert images.request(Request(url), response, found) is None
    assert len(refused) == 4 and refused[0][2].reason == "purpose"
    assert "ai-input denied by" in refused[0][2].message
    other = Request("https://e.com/page2")
    assert images.request(other, response, found) is other
    assert stats.get_value("rep/purpose/images_refused/ai-input") == 4


def test_an_item_loses_its_image_urls_and_keeps_the_others() -> None:
    images, _, stats = image_gate(("ai-train",), FILES_URLS_FIELD="files_to_get")
    response, directives = noimageai_page()
    found = images.page(response, page_verdict(directives))
    assert found is not None
    item = {
        "image_urls": ["https://e.com/x"],
        "files_to_get": ["https://e.com/doc.pdf", "https://e.com/a.png", "https://e.com/b"],
    }
    images.item(item, response, found)
    assert item["image_urls"] == [] and item["files_to_get"] == ["https://e.com/doc.pdf"]
    assert item["rep_image_usage"]["urls"] == [
        "https://e.com/x", "https://e.com/a.png", "https://e.com/b"
    ]  # fmt: skip
    # each URL taken out is a refusal the performer counts and signals, as the image
    # requests of the page are: the URL ledger records it refused (it had none)
    assert stats.get_value("rep/purpose/image_urls_refused/ai-train") == 3
    # An item class without the field: URLs still refused, the record counted as missing.
    declared = Declared(url="u", image_urls=["https://e.com/y.png"])
    images.item(declared, response, found)
    assert declared["image_urls"] == []
    assert stats.get_value("rep/purpose/items_not_marked") == 1


def test_a_search_crawl_under_drop_changes_nothing() -> None:
    images, _, _ = image_gate(("search",), FILES_URLS_FIELD="files_to_get")
    response, directives = noimageai_page()
    assert images.page(response, page_verdict(directives)) is None


def test_mark_keeps_the_images_with_the_record() -> None:
    for purposes, mark in ((("ai-train",), True), (("search",), True)):
        images, refused, _ = image_gate(purposes, mark, FILES_URLS_FIELD="files_to_get")
        response, directives = noimageai_page()
        found = images.page(response, page_verdict(directives))
        assert found is not None
        request = images.request(Request("https://e.com/a.png"), response, found)
        assert request is not None and not refused
        assert request.meta["rep_image_usage"]["url"] == "https://e.com/a.png"
        item = {"image_urls": ["https://e.com/a.png"]}
        images.item(item, response, found)
        assert item["image_urls"] == ["https://e.com/a.png"]
        assert item["rep_image_usage"]["urls"] == ["https://e.com/a.png"]


def test_a_page_without_noimageai_is_not_one() -> None:
    images, _, _ = image_gate(("ai-train",), FILES_URLS_FIELD="files_to_get")
    response, _ = noimageai_page()
    assert images.page(response, page_verdict(meta_directives("noai"))) is None
