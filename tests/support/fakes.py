"""Fake Scrapy objects for the unit tests of the crawl: responses, and the components built
on a crawler of their own (what a page says, as the engine's tests give it:
tests/support/statements.py)."""

from __future__ import annotations

from typing import Any

from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from rep_engine.directives import PageDirectives
from rep_engine.records import Action
from rep_engine.settings import RepConfig
from rep_engine.usage.purpose import usage_decision
from rep_engine.verdict.decide import Refused
from rep_engine.verdict.page import PageVerdict
from scrapy_rep.crawl.page.images import ImageGate
from scrapy_rep.crawl.page.pagestate import PageState
from scrapy_rep.crawl.refusals import refuse_request
from tests.support.scrapyversions import open_stats
from tests.support.statements import ARTICLE


def article_page(head: str = "", headers: dict[str, str] | None = None) -> HtmlResponse:
    """The article at :data:`ARTICLE`, whose ``<head>`` holds ``head``."""
    body = f"<html><head>{head}</head><body>art</body></html>".encode()
    return HtmlResponse(url=ARTICLE, body=body, headers=headers or {})


def image_gate(
    purposes: tuple[str, ...], mark: bool = False, **settings: Any
) -> tuple[ImageGate, list[Any], Any]:
    """The gate of a ``noimageai`` page's images for ``purposes`` on a crawler of its own:
    the gate, the images it refused (as the refusal callback got them, then performed as
    the page pass performs them), the stats."""
    crawler = get_crawler(settings_dict=settings)
    open_stats(crawler)
    refused: list[Any] = []

    def refuse(request: Any, response: Any, verdict: Refused, sources: str) -> None:
        refused.append((request, response, verdict, sources))
        refuse_request(crawler, Action.FOLLOW, request, verdict, response, sources)

    pages = PageState(crawler, RepConfig.from_settings(crawler.settings))
    images = ImageGate(crawler, purposes, mark, refuse, pages)
    return images, refused, crawler.stats


def page_verdict(directives: PageDirectives, agent: str = "mybot") -> PageVerdict:
    """A page's verdict that carries only its ``directives`` (read for ``agent``)."""
    return PageVerdict(directives, usage_decision(()), agent=agent)
