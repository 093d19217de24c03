"""Fake Scrapy objects for the unit tests: responses, and the components built on a
crawler of their own."""

from __future__ import annotations

from typing import Any

from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl.page.images import ImageGate
from scrapy_rep.crawl.page.pagestate import PageState
from scrapy_rep.settings import RepConfig
from tests.support.scrapyversions import open_stats

#: The URL of the article page.
ARTICLE = "https://example.com/art/1"


def article_page(head: str = "", headers: dict[str, str] | None = None) -> HtmlResponse:
    """The article at :data:`ARTICLE`, whose ``<head>`` holds ``head``."""
    body = f"<html><head>{head}</head><body>art</body></html>".encode()
    return HtmlResponse(url=ARTICLE, body=body, headers=headers or {})


def image_gate(
    purposes: tuple[str, ...], mark: bool = False, **settings: Any
) -> tuple[ImageGate, list[Any], Any]:
    """The gate of a ``noimageai`` page's images for ``purposes`` on a crawler of its own:
    the gate, the images it refused (as the refusal callback got them), the stats."""
    crawler = get_crawler(settings_dict=settings)
    open_stats(crawler)
    refused: list[Any] = []
    pages = PageState(crawler, RepConfig.from_settings(crawler.settings))
    images = ImageGate(crawler, purposes, mark, lambda *args: refused.append(args), pages)
    return images, refused, crawler.stats
