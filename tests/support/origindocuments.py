"""An :class:`~scrapy_rep.crawl.documents.documents.OriginDocument` of one kind outside a
crawl, for the tests of the documents and of the requests waiting for them: an engine
that notes what it is given, a fetcher the test answers, a clock the test moves."""

from __future__ import annotations

import asyncio
from typing import Any

from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from rep_engine.fetch.kinds import DocumentKind
from rep_engine.fetch.rules import Policy
from rep_engine.settings import RepConfig
from rep_engine.urls.origins import Origin
from scrapy_rep.crawl.documents.documents import OriginDocument
from scrapy_rep.crawl.documents.holding import HeldRequests
from scrapy_rep.crawl.documents.kinds import CRAWL_KINDS, CrawlKind
from scrapy_rep.crawl.documents.stores import LocalStore, StoreClient
from tests.support.scrapyversions import open_stats

T0 = 1_000_000.0
KEY = Origin("http", "a.example", 80)
KIND_IDS = [kind.name for kind in CRAWL_KINDS]


class FakeFetcher:
    """Answers each download when the test says so."""

    def __init__(self, kind: DocumentKind[Any]) -> None:
        self.kind = kind
        self.asked: list[Any] = []
        self.answers: dict[Any, Any] = {}

    async def fetch(self, key: Any) -> Any:
        self.asked.append(key)
        for _ in range(1000):  # at most 10 s
            if key in self.answers:
                return self.answers.pop(key)
            await asyncio.sleep(0.01)
        raise AssertionError("the test never answered")

    def bytes_received(self, *args: Any, **kwargs: Any) -> None:
        return None


class FakeEngine:
    def __init__(self) -> None:
        self.crawled: list[Request] = []
        self._slot = type("Slot", (), {"closing": None})()

    def crawl(self, request: Request) -> None:
        self.crawled.append(request)


def origin_document(
    crawl_kind: CrawlKind[Any], clock: list[float], shared: LocalStore | None = None
) -> Any:
    crawler = get_crawler(Spider)
    crawler.engine = FakeEngine()  # type: ignore[assignment]
    open_stats(crawler)
    config = RepConfig.from_settings(crawler.settings)
    store = StoreClient(shared or LocalStore(), lambda: clock[0], lambda name: None)
    held = HeldRequests(crawler, 10)
    policy = Policy(store=None if shared is None else shared.name)
    document = OriginDocument(
        crawler, crawl_kind, config, policy, 10.0, store, held, lambda: clock[0]
    )
    fetcher = FakeFetcher(crawl_kind.kind)
    document.runner.fetcher = fetcher  # type: ignore[assignment]
    return document, fetcher, crawler


def entry_or_hold(document: Any, key: Any, request: Request) -> Any:
    """What the middleware asks of a document: the entry that decides ``request``, else
    whether it is held (handed back) or waits in place (it came straight back)."""
    entry = document.entry_for(key, request)
    return entry if entry is not None else document.hold_or_wait(key, request)
