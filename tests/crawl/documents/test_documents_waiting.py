"""The requests waiting for a document (:class:`~scrapy_rep.crawl.documents.documents.
OriginDocument`): each held request released once, and none after the spider closed
(its own ``closed`` flag, set by the document's close): a document that arrives after the
close leaves them held, for the close of the held requests to keep or drop (SPEC §4)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.task import deferLater

from rep_engine.fetch.lifecycle import events as document_events
from rep_engine.fetch.procedure import FetchProcedure
from rep_engine.urls.origins import Origin
from scrapy_rep.crawl.auditing import Refusal
from scrapy_rep.crawl.documents.documents import HOLD
from scrapy_rep.crawl.documents.kinds import CRAWL_KINDS, CrawlKind
from scrapy_rep.crawl.requeststate import update
from tests.support.documents import KIND_BODIES
from tests.support.origindocuments import KEY, KIND_IDS, T0, entry_or_hold, origin_document
from tests.support.robotsite import until


async def _let_the_reactor_run() -> None:
    from twisted.internet import reactor

    await deferLater(reactor, 0.2)


def _held_for_key(document: Any, count: int) -> list[Request]:
    requests = [Request(f"{KEY}/{n}") for n in range(count)]
    for request in requests:
        entry_or_hold(document, KEY, request)
        update(request, hold=None)  # what request_scheduled does
        document.hold(KEY, request)
    return requests


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_document_that_arrives_after_the_close_releases_nothing(
    crawl_kind: CrawlKind[Any],
) -> None:
    """The download was under way when the spider closed, and the site answered: the
    document is known, but nothing goes to an engine that has closed; those held stay
    held (the close of the held requests drops or keeps them), and a request awaiting it
    in place is dropped with its reason at once, not left hanging."""
    clock = [T0]
    document, fetcher, crawler = origin_document(crawl_kind, clock)
    kind = crawl_kind.kind
    _held_for_key(document, 2)
    in_place = Request(f"{KEY}/in-place")
    waiting = deferred_from_coro(document.wait(KEY, in_place))
    await until(lambda: bool(fetcher.asked))
    document.close()
    assert document.closed and document.runner.closed
    with pytest.raises(Refusal):
        await waiting
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(
        200, KIND_BODIES[kind.name]
    )
    await until(lambda: not fetcher.answers)
    await _let_the_reactor_run()  # the answer handled, and anything it scheduled run
    entry = document.usable_entry(KEY)
    if entry is not None:  # known after all: a release now still sends nothing
        document.release(KEY, entry, 0)
        document.idle(KEY)
    assert crawler.engine.crawled == []
    assert document.held_count(KEY) == 2
    assert crawler.stats.get_value("rep/requests/released") is None


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_held_request_is_released_once_whatever_releases_it_again(
    crawl_kind: CrawlKind[Any],
) -> None:
    """The lifecycle's release, then the idle spider's and a second release of the same
    version: each held request goes back to the engine once."""
    clock = [T0]
    document, fetcher, crawler = origin_document(crawl_kind, clock)
    kind = crawl_kind.kind
    requests = _held_for_key(document, 3)
    await until(lambda: bool(fetcher.asked))
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(
        200, KIND_BODIES[kind.name]
    )
    engine = crawler.engine
    await until(lambda: len(engine.crawled) >= 3)
    entry = document.usable_entry(KEY)
    assert entry is not None
    document.release(KEY, entry, 0)
    document.idle(KEY)
    assert [r.url for r in engine.crawled] == [r.url for r in requests]
    assert crawler.stats.get_value("rep/requests/released") == 3
    assert document.held_count(KEY) == 0


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_request_held_after_the_document_is_known_is_released_once(
    crawl_kind: CrawlKind[Any],
) -> None:
    """Held while the download finished in between (its release is on a timer), then
    released by the idle spider before that timer fires: it goes on once."""
    clock = [T0]
    document, fetcher, crawler = origin_document(crawl_kind, clock)
    kind = crawl_kind.kind
    first = Request(f"{KEY}/first")
    assert entry_or_hold(document, KEY, first) is not None  # the fetch starts
    await until(lambda: bool(fetcher.asked))
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(
        200, KIND_BODIES[kind.name]
    )
    await until(lambda: document.usable_entry(KEY) is not None)
    late = Request(f"{KEY}/late")
    document.hold(KEY, late)  # the release is called later (call_later 0)
    document.idle(KEY)  # and the idle spider releases it now
    engine = crawler.engine
    await until(lambda: len(engine.crawled) >= 1)
    await _let_the_reactor_run()  # the timer's release run too
    assert [r.url for r in engine.crawled] == [late.url]


@pytest.mark.parametrize("released", [False, True], ids=["wait", "wait_released"])
@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_request_awaiting_a_document_in_place_carries_the_version_it_woke_with(
    crawl_kind: CrawlKind[Any], released: bool
) -> None:
    """A request awaiting the document in place (``engine.download_async``) is decided
    by the version it is woken with, as a released held request is by the one it
    carries, even once the cache has let it go (a cache too small for every document the
    request needs drops one as it parses another again): no fetch starts again for it
    (the request waited for it again, fetched again, for ever: whole-crawl seed 1574)."""
    clock = [T0]
    document, fetcher, _ = origin_document(crawl_kind, clock)
    kind = crawl_kind.kind
    in_place = Request(f"{KEY}/in-place")
    if released:  # handed back to be held, it came straight back: the fetch starts first
        assert entry_or_hold(document, KEY, in_place) is HOLD
        waiting = deferred_from_coro(document.wait_released(KEY, in_place))
    else:
        waiting = deferred_from_coro(document.wait(KEY, in_place))
    await until(lambda: bool(fetcher.asked))
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(
        200, KIND_BODIES[kind.name]
    )
    woken = await waiting
    document.cache.discard(KEY)  # let go by the cache before the request is decided
    assert document.entry_for(KEY, in_place) is woken
    await _let_the_reactor_run()
    assert fetcher.asked == [KEY]


class RefusingScheduler:
    """An engine whose scheduler raises for one request (a custom scheduler's bug, a
    shared queue whose server went away)."""

    def __init__(self, engine: Any, refused: str) -> None:
        self.engine = engine
        self.refused = refused

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def crawl(self, request: Request) -> None:
        if request.url == self.refused:
            raise ConnectionError("the queue's server went away")
        self.engine.crawl(request)


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_released_request_the_scheduler_will_not_take_is_dropped_not_lost(
    crawl_kind: CrawlKind[Any],
) -> None:
    """The scheduler raises for the first of three released requests: the other two go
    on all the same, and that one is dropped saying why (counted, ``request_refused``:
    its trail record is final), not lost with the rest after it."""
    from scrapy_rep.signals import request_refused

    clock = [T0]
    document, fetcher, crawler = origin_document(crawl_kind, clock)
    kind = crawl_kind.kind
    engine = crawler.engine
    requests = _held_for_key(document, 3)
    crawler.engine = RefusingScheduler(engine, requests[0].url)
    refused: list[tuple[str, str]] = []

    def refused_one(request: Request, reason: str, **_: Any) -> None:
        refused.append((request.url, reason))

    crawler.signals.connect(refused_one, signal=request_refused, weak=False)
    await until(lambda: bool(fetcher.asked))
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(
        200, KIND_BODIES[kind.name]
    )
    await until(lambda: len(engine.crawled) >= 2)
    await _let_the_reactor_run()
    assert [r.url for r in engine.crawled] == [r.url for r in requests[1:]]
    assert refused == [(requests[0].url, "internal_error")]
    assert crawler.stats.get_value("rep/requests/dropped/internal_error") == 1
    assert crawler.stats.get_value("rep/requests/released") == 2
    assert document.held_count(KEY) == 0


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_no_fetch_starts_for_a_document_the_closing_crawl_will_not_know(
    crawl_kind: CrawlKind[Any],
) -> None:
    """Its download was cut as the crawl stopped (:meth:`never_known`): neither a request
    coming for it meanwhile nor the idle spider starts another, which nothing could use
    and the close would wait for; the held requests stay held, for the close."""
    clock = [T0]
    document, fetcher, crawler = origin_document(crawl_kind, clock)
    _held_for_key(document, 1)
    await until(lambda: bool(fetcher.asked))
    asked = len(fetcher.asked)
    document.never_known(KEY)
    document.runner.handle(document_events.DownloadStopped(KEY))  # the stop's cut
    assert entry_or_hold(document, KEY, Request(f"{KEY}/late")) is HOLD
    document.idle(KEY)
    await _let_the_reactor_run()
    assert len(fetcher.asked) == asked
    assert document.held_count(KEY) == 1 and crawler.engine.crawled == []
    _end_the_cut_fetch(fetcher, crawl_kind.kind)
    await until(lambda: KEY not in fetcher.answers)


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_stale_copy_decides_when_the_closing_crawl_cut_its_refresh(
    crawl_kind: CrawlKind[Any],
) -> None:
    """The stop cut the refresh of a stale copy: the copy goes on deciding the requests
    that come for it meanwhile (SPEC §4), as while the refresh ran; no refresh starts."""
    clock = [T0]
    document, fetcher, _crawler = origin_document(crawl_kind, clock)
    kind = crawl_kind.kind
    assert entry_or_hold(document, KEY, Request(f"{KEY}/first")) is HOLD
    await until(lambda: bool(fetcher.asked))
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(
        200, KIND_BODIES[kind.name]
    )
    await until(lambda: document.usable_entry(KEY) is not None)
    await _let_the_reactor_run()
    known = document.usable_entry(KEY)
    assert known is not None
    clock[0] = known.fresh_until + 1  # stale: a request starts its refresh
    assert entry_or_hold(document, KEY, Request(f"{KEY}/stale")) is known
    await until(lambda: len(fetcher.asked) == 2)
    document.never_known(KEY)
    document.runner.handle(document_events.DownloadStopped(KEY))  # the stop's cut
    assert entry_or_hold(document, KEY, Request(f"{KEY}/late")) is known
    await _let_the_reactor_run()
    assert len(fetcher.asked) == 2
    _end_the_cut_fetch(fetcher, kind)
    await until(lambda: KEY not in fetcher.answers)


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_as_the_crawl_closes_a_queued_document_is_downloaded_only_if_awaited_in_place(
    crawl_kind: CrawlKind[Any],
) -> None:
    """One download slot; two documents queued for it, one for a held request, one for a
    request awaiting it in place; the engine begins to close, and the running download
    ends: the slot skips the first (its held request stays held, for the close to keep or
    drop: it could not go on now) and goes to the second, whose request goes on with
    it (it would otherwise keep the close waiting)."""
    clock = [T0]
    document, fetcher, crawler = origin_document(crawl_kind, clock)
    kind = crawl_kind.kind
    lifecycle = document.lifecycle
    lifecycle.policy = replace(lifecycle.policy, concurrency=1)
    held_only, in_place = Origin("http", "b.example", 80), Origin("http", "c.example", 80)
    _held_for_key(document, 1)
    held = Request(f"{held_only}/held")
    assert entry_or_hold(document, held_only, held) is HOLD
    update(held, hold=None)
    document.hold(held_only, held)
    waiting = deferred_from_coro(document.wait(in_place, Request(f"{in_place}/in-place")))
    await until(lambda: bool(fetcher.asked))
    crawler.engine._slot.closing = object()
    for key in (KEY, held_only, in_place):  # each would be answered
        fetcher.answers[key] = FetchProcedure(kind, kind.url(key)).on_response(
            200, KIND_BODIES[kind.name]
        )
    assert await waiting is not None
    await _let_the_reactor_run()
    assert fetcher.asked == [KEY, in_place]
    assert document.held_count(held_only) == 1 and crawler.engine.crawled == []


def _end_the_cut_fetch(fetcher: Any, kind: Any) -> None:
    """The fake download the test cut is answered, so that it ends within the test (left
    waiting, it raises 10 s later, into whichever test runs then)."""
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(
        200, KIND_BODIES[kind.name]
    )
