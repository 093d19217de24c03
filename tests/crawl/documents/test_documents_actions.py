"""The runner of the lifecycle's actions (scrapy_rep/crawl/documents/documents.py) performs the
store calls in the order the lifecycle gives them."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest_twisted
from twisted.internet import reactor
from twisted.internet.task import deferLater

from rep_engine.fetch.records import SharedRecord


@pytest_twisted.ensureDeferred
async def test_a_lease_is_released_only_after_the_record_it_guards_is_saved() -> None:
    """The lifecycle says "save the record, then release the lease"; the store calls run in
    that order even when saving is the slower call (concurrent calls let a lease go
    before its record was saved: another worker then saw neither and downloaded again)."""
    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    from rep_engine.fetch.lifecycle import events as do
    from scrapy_rep.crawl.documents.documents import ActionRunner

    done: list[str] = []

    class SlowSavingStore:
        async def save(self, record: Any, keep_for: float) -> None:
            await asyncio.sleep(0.2)  # Redis is slower to save than to delete a key
            done.append("save")

        async def release(self, name: str) -> None:
            done.append("release")

    record = SharedRecord("http://a", b"", True, 404, "404", 0.0, 1e18, 1e18)
    runner = ActionRunner(
        get_crawler(Spider),
        None,
        None,
        SlowSavingStore(),
        None,
        time.time,
        len,  # type: ignore[arg-type]
    )
    runner.perform([do.SaveRecord("http://a", record, 60.0), do.ReleaseLease("http://a", "a")])
    for _ in range(40):
        await deferLater(reactor, 0.05)
        if len(done) == 2:
            break
    assert done == ["save", "release"]


@pytest_twisted.ensureDeferred
async def test_the_close_lets_go_the_leases_the_lifecycle_still_holds() -> None:
    """At the close the runner releases the leases its lifecycle names, and
    :meth:`ActionRunner.settled` waits for them (the store is closed after: a lease
    kept made the other workers wait its time before they downloaded that robots.txt)."""
    from scrapy import Spider
    from scrapy.utils.defer import deferred_from_coro
    from scrapy.utils.test import get_crawler

    from rep_engine.fetch.lifecycle import events as do
    from scrapy_rep.crawl.documents.documents import ActionRunner

    done: list[str] = []

    class SlowReleasingStore:
        async def release(self, name: str) -> None:
            await asyncio.sleep(0.1)
            done.append(name)

    class Closing:
        def leases_held(self) -> list[do.Action]:
            return [do.ReleaseLease("http://a", "a"), do.ReleaseLease("http://b", "b")]

        def summary(self) -> list[do.Action]:
            return []

    runner = ActionRunner(
        get_crawler(Spider),
        Closing(),  # type: ignore[arg-type]
        None,
        SlowReleasingStore(),
        None,
        time.time,
        len,  # type: ignore[arg-type]
    )
    runner.close()
    await deferred_from_coro(runner.settled())  # as Scrapy runs a signal handler's coroutine
    assert done == ["a", "b"]


@pytest_twisted.ensureDeferred
async def test_a_lease_granted_after_the_close_is_let_go() -> None:
    """A lease asked for just before the close and granted after it is released at once
    (nothing will download under it), and :meth:`ActionRunner.settled` waits for that."""
    from scrapy import Spider
    from scrapy.utils.defer import deferred_from_coro
    from scrapy.utils.test import get_crawler

    from rep_engine.fetch.lifecycle import events as do
    from scrapy_rep.crawl.documents.documents import ActionRunner

    done: list[str] = []

    class SlowGrantingStore:
        async def acquire(self, name: str, seconds: float) -> bool:
            await asyncio.sleep(0.1)
            done.append(f"acquire {name}")
            return True

        async def release(self, name: str) -> None:
            done.append(f"release {name}")

    class Closing:
        def leases_held(self) -> list[do.Action]:
            return []  # its lease was not granted yet

        def summary(self) -> list[do.Action]:
            return []

    runner = ActionRunner(
        get_crawler(Spider),
        Closing(),  # type: ignore[arg-type]
        None,
        SlowGrantingStore(),
        None,
        time.time,
        len,  # type: ignore[arg-type]
    )
    runner.perform([do.AcquireLease("http://a", "a", 95.0)])
    runner.close()
    await deferred_from_coro(runner.settled())
    assert done == ["acquire a", "release a"]


@pytest_twisted.ensureDeferred
async def test_a_record_loaded_after_the_close_asks_for_no_lease() -> None:
    """A store look-up under way at the close answers after it: the lifecycle is not
    given the record, so it asks for no lease. Asked for then, the lease was started
    after :meth:`ActionRunner.settled` had taken its list of calls to wait for, the
    store was closed under it, and it was never let go: the other workers waited its
    time (95 s) before they downloaded that robots.txt."""
    from scrapy import Spider
    from scrapy.utils.defer import deferred_from_coro
    from scrapy.utils.test import get_crawler

    from rep_engine.fetch.cache import DocumentCache
    from rep_engine.fetch.kinds import ROBOTS_TXT
    from rep_engine.fetch.lifecycle import events as do
    from rep_engine.fetch.lifecycle.machine import Lifecycle
    from rep_engine.fetch.lifecycle.state import Step
    from rep_engine.fetch.rules import Policy
    from rep_engine.robotstxt import parse_robotstxt
    from scrapy_rep.crawl.documents.documents import ActionRunner

    done: list[str] = []

    class SlowLoadingStore:
        async def load(self, name: str) -> None:
            await asyncio.sleep(0.1)
            done.append(f"load {name}")

        async def acquire(self, name: str, seconds: float) -> bool:
            done.append(f"acquire {name}")
            return True

        async def release(self, name: str) -> None:
            done.append(f"release {name}")

    lifecycle = Lifecycle(
        Policy(store="redis"), ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt)
    )
    runner = ActionRunner(
        get_crawler(Spider),
        lifecycle,
        None,  # type: ignore[arg-type]
        SlowLoadingStore(),  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        time.time,
        None,  # type: ignore[arg-type]
    )
    key = "http://a.example"
    runner.handle(do.RequestSeen(key))
    assert lifecycle.step_of(key) is Step.LOOKUP
    runner.close()
    await deferred_from_coro(runner.settled())
    assert done == [f"load {key}"]
    assert lifecycle.leases_held() == []
