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


def settled_by_the_ledger(report: Any, entry: Any) -> None:
    """``entry``, whose fate is final, settled by the crawl's URL ledger as a crawl settles
    it (a fetched page's, with its output, once its output is through: ``page_done``):
    counted once by the ledger, and read by its readers (``report``: the end-of-crawl
    report of that crawl)."""
    from scrapy import Request

    from rep_engine.records import Fate
    from scrapy_rep.crawl.audit.audit import url_ledger
    from scrapy_rep.crawl.requeststate import recorded

    ledger = url_ledger(report.crawler)
    ledger.sequence += 1
    key = f"{ledger.sequence:040x}-{ledger.sequence}"
    ledger.open[key] = entry
    output = entry.output
    if entry.fate is not Fate.FETCHED or output is None:
        ledger._final(key, entry)
        return
    request = Request(entry.url)
    recorded(request, key)
    response = HtmlResponse(entry.url, body=b"", request=request, status=entry.status or 200)
    entry.fate, entry.output, entry.fetched = None, None, True
    ledger.scraped[key] = output.kept  # the items that reached the end of the crawl
    ledger.page_done(response, output)
