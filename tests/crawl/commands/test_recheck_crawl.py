"""The crawl of a recheck asks for its origins' documents in a sliding window: a slow
origin (a 503 waited on) holds one place, and the others start and finish
past it; in blocks of 512, each block waited for its slowest."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest
import pytest_twisted
from twisted.internet.defer import Deferred, DeferredList, ensureDeferred

from scrapy_rep.crawl.commands.recheck_crawl import in_window


async def _finish_order(names: list[str], at_once: int, stuck: str) -> list[str]:
    """The order ``names`` finish in, ``at_once`` at a time, when ``stuck`` finishes only
    once every other one has (a fake fetch: no clock, no network)."""
    done: list[str] = []
    others_done: Deferred[None] = Deferred()
    others = len([name for name in names if name not in (stuck, "bad")])

    async def one(name: str) -> None:
        if name == stuck:
            await others_done
        if name == "bad":
            raise ValueError("a fetch that failed")
        done.append(name)
        if len(done) == others:
            others_done.callback(None)

    await DeferredList([ensureDeferred(w) for w in in_window(names, at_once, one)])
    return done


@pytest_twisted.ensureDeferred
async def test_a_slow_origin_does_not_hold_back_the_others() -> None:
    names = ["slow", *(f"https://{n}.example" for n in range(6))]
    assert await _finish_order(names, 2, "slow") == [*names[1:], "slow"]


@pytest_twisted.ensureDeferred
async def test_an_origin_that_fails_is_logged_and_the_window_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    names = ["slow", "bad", "https://a.example", "https://b.example"]
    with caplog.at_level(logging.ERROR):
        done = await _finish_order(names, 2, "slow")
    assert done == ["https://a.example", "https://b.example", "slow"]
    assert "documents of bad could not be had" in caplog.text
    assert in_window([], 512, _never) == []


async def _never(name: str) -> None:
    raise AssertionError(name)


class _Document:
    """A document kind of the middleware whose answers the test gives (a fake fetch)."""

    def __init__(self) -> None:
        self.asked: list[Deferred[Any]] = []

    def when_known(self, key: Any, trigger: Any) -> Deferred[Any]:
        self.asked.append(Deferred())
        return self.asked[-1]


@pytest_twisted.ensureDeferred
async def test_the_origins_waiting_and_on_what_are_known_while_they_wait() -> None:
    """Three origins answering 503 held a run 10 minutes with no line. What
    the progress line says (:func:`fetch_progress`) is kept as the crawl waits."""
    from rep_engine.verdict.decide import ROBOTS
    from rep_recheck.command import FetchRequest, FetchResult
    from scrapy_rep.crawl.commands.recheck_crawl import RecheckSpider

    robots = _Document()
    owner = SimpleNamespace(documents={ROBOTS: robots})
    spider = RecheckSpider(FetchRequest(["https://a.example"], {}), FetchResult())
    fetching = ensureDeferred(spider._origin(owner, "https://a.example"))
    assert [(name, kind) for name, (kind, _) in spider.waiting.items()] == [
        ("https://a.example", "robots.txt")
    ]
    assert spider.done == 0
    robots.asked[0].callback(None)  # given up on / the spider closed: nothing had
    await fetching
    assert (spider.waiting, spider.done) == ({}, 1)
