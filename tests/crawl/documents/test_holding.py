"""The held requests a paused crawl kept in ``JOBDIR`` go back to the scheduler at the
resume (:meth:`~scrapy_rep.crawl.documents.holding.HeldRequests.resume`), those kept in
memory and those spilled to disk alike: one the scheduler raises for is dropped, saying
why, and the others go on (SPEC §4: pausing with a JOBDIR loses no held request); those an
earlier version kept resume with their state. Bounded memory at a pause and a resume:
test_holding_pause_memory.py."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.documents.holding import HeldRequests
from scrapy_rep.crawl.requeststate import decided, recorded, state_of
from tests.support.requeststates import dumps_with_scheduled
from tests.support.scrapyversions import open_stats

LIMIT = 2


class RaisesFor:
    """An engine whose scheduler raises for some URLs (a custom scheduler's bug, a shared
    queue whose server went away), and notes the others."""

    def __init__(self, *urls: str) -> None:
        self.urls = set(urls)
        self.crawled: list[str] = []

    def crawl(self, request: Request) -> None:
        if request.url in self.urls:
            raise ConnectionError("the queue's server went away")
        self.crawled.append(request.url)


def kept_crawler(jobdir: Path) -> tuple[Any, Spider]:
    crawler = get_crawler(Spider, {"JOBDIR": str(jobdir)})
    open_stats(crawler)
    spider = Spider("held")
    crawler.spider = spider
    return crawler, spider


@pytest.mark.parametrize("fails", ["http://a.example/0", "http://a.example/3"])
def test_a_resumed_request_the_scheduler_will_not_take_is_dropped_not_lost(
    tmp_path: Path, fails: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Five kept (two in memory, three spilled): the scheduler raises for one, in memory
    or on disk; the four others go on, and that one is dropped with an ERROR and
    ``request_refused`` (its trail record is final)."""
    crawler, spider = kept_crawler(tmp_path)
    held = HeldRequests(crawler, LIMIT)
    urls = [f"http://a.example/{n}" for n in range(5)]
    for url in urls:
        held.add("http://a.example", Request(url))
    held.close(spider, "shutdown", None)
    crawler, spider = kept_crawler(tmp_path)
    refused: list[tuple[str, str]] = []

    def refused_here(request: Request, reason: str, **_: Any) -> None:
        refused.append((request.url, reason))

    crawler.signals.connect(refused_here, signal=rep_signals.request_refused, weak=False)
    engine = RaisesFor(fails)
    assert HeldRequests(crawler, LIMIT).resume(spider, engine) == 4
    assert engine.crawled == [url for url in urls if url != fails]
    assert refused == [(fails, "internal_error")]
    assert crawler.stats.get_value("rep/requests/dropped/internal_error") == 1
    assert "the scheduler did not take back" in caplog.text and "resumed" in caplog.text


def test_held_requests_an_earlier_version_kept_resume_with_their_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pause of an earlier version pickled each request's state with ``scheduled`` (the
    state file, the spilled requests' disk queues): the resume reads every one back, its
    state whole (its audit record's id, the names it was decided for, until when its
    verdict held) without it."""
    crawler, spider = kept_crawler(tmp_path)
    held = HeldRequests(crawler, LIMIT)
    requests = [Request(f"http://a.example/{n}") for n in range(5)]
    states = {}
    monkeypatch.setattr(pickle, "dumps", dumps_with_scheduled)  # the queues, the state file
    for n, request in enumerate(requests):
        recorded(request, f"record-{n}")
        decided(request, None, ("bot",), 10.0 + n, overridden=n == 3)
        states[request.url] = state_of(request)
        held.add("http://a.example", request)  # the third on: spilled to disk
    held.close(spider, "shutdown", None)
    monkeypatch.undo()
    crawler, spider = kept_crawler(tmp_path)
    resumed: list[Request] = []

    class Engine:
        crawl = resumed.append

    assert HeldRequests(crawler, LIMIT).resume(spider, Engine()) == 5
    assert [request.url for request in resumed] == list(states)
    assert {request.url: state_of(request) for request in resumed} == states


def test_the_held_requests_237886c2_kept_resume(tmp_path: Path) -> None:
    """The held requests' state a real paused crawl of 237886c2 (and 27291d8: the same
    version) kept: both resume, each with its state (its audit record's id, the one the
    URL ledger's state kept open)."""
    from tests.support.jobdirstates import audit_state, write_states
    from tests.support.robotsite import ListSpider

    write_states(tmp_path)
    crawler, _ = kept_crawler(tmp_path)
    spider = crawler.spider = ListSpider([])  # its callbacks: parse, failed
    resumed: list[Request] = []

    class Engine:
        crawl = resumed.append

    assert HeldRequests(crawler, LIMIT).resume(spider, Engine()) == 2
    down = [url for url in (e["url"] for e in audit_state()["open"].values()) if ":39019/" in url]
    assert [request.url for request in resumed] == down
    records = {e["url"]: key for key, e in audit_state()["open"].items()}
    assert [state_of(request).audit for request in resumed] == [records[url] for url in down]
    assert all(request.dont_filter for request in resumed)
