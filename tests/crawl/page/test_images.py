"""A page's ``noimageai`` (or ``noimageindex``) covers its images: the crawl's gate on fake
Scrapy responses (scrapy_rep/crawl/page/images.py; docs/decisions.md, 'A page's noimageai
covers the images it shows'; the pure record: tests/usage/test_imageusage.py, what the
words mean: tests/usage/test_purpose_asks.py)."""

from __future__ import annotations

from typing import Any

import scrapy
from scrapy.http import HtmlResponse, Request

from rep_engine.directives import PageDirectives, combine
from scrapy_rep.crawl.page.pagereader import page_directives
from tests.support.fakes import image_gate, page_verdict

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


GALLERY = b'<html><head><meta name="robots" content="noimageindex"></head><body><img src="/a.png">'


def test_a_noimageindex_page_covers_its_images_as_noimageai_does() -> None:
    url = "https://e.com/g/page"
    response = HtmlResponse(url, body=GALLERY, request=Request(url))
    directives = page_directives(response, "MyBot/1.0")
    images, refused, _ = image_gate(("ai-train",))
    page = images.page(response, page_verdict(directives))
    assert page is not None
    assert page.record["source"] == f'<meta name="robots" content="noimageindex"> on {url}'
    assert images.request(Request("https://e.com/a.png"), response, page) is None
    assert refused and "ai-train denied by <meta" in refused[0][2].message
    item = {"image_urls": ["https://e.com/a.png"]}
    images.item(item, response, page)
    assert item["image_urls"] == [] and item["rep_image_usage"]["urls"] == ["https://e.com/a.png"]
    # off: the page says nothing about its images; a search crawl is not affected either
    off, _, _ = image_gate(("ai-train",), REP_MEDIA_NOINDEX_MEANS_NO_AI=False)
    assert off.page(response, page_verdict(directives)) is None
    search, _, _ = image_gate(("search",))
    assert search.page(response, page_verdict(directives)) is None
