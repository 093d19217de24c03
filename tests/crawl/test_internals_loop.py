"""The package's timers and threads (scrapy_rep/crawl/internals.py: ``call_later``,
``in_thread``) on the reactor, and on the asyncio loop of a crawl without one
(``TWISTED_REACTOR_ENABLED = False``): the same answers either way. In a process that
forbids the reactor: tests/integration/test_reactorless.py."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import pytest_twisted
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import defer, error
from twisted.internet.defer import Deferred

from scrapy_rep.crawl import internals


@pytest.fixture(params=["reactor", "loop"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``loop``: the primitives as a crawl without a reactor runs them (on the asyncio
    loop the tests' asyncio reactor runs)."""
    if request.param == "loop":
        monkeypatch.setattr(internals, "reactor_installed", lambda: False)
    yield request.param


def fired_by(timer_calls: list[Any]) -> tuple[Deferred[None], Any]:
    """A Deferred that fires when the returned function is called (and records its
    argument in ``timer_calls``)."""
    done: Deferred[None] = Deferred()

    def call(value: Any) -> None:
        timer_calls.append(value)
        done.callback(None)

    return done, call


@pytest_twisted.ensureDeferred
async def test_a_timer_fires_once_and_is_then_no_longer_active(mode: str) -> None:
    calls: list[Any] = []
    done, call = fired_by(calls)
    timer = internals.call_later(0, call, "fired")
    assert timer.active()
    await done
    assert calls == ["fired"] and not timer.active()
    timer.cancel()  # after it fired: nothing
    assert calls == ["fired"]


@pytest_twisted.ensureDeferred
async def test_a_cancelled_timer_never_fires(mode: str) -> None:
    calls: list[Any] = []
    cancelled = internals.call_later(0, calls.append, "cancelled")
    cancelled.cancel()
    assert not cancelled.active()
    done, call = fired_by(calls)
    internals.call_later(0.01, call, "later")  # scheduled after the cancelled one's time
    await done
    assert calls == ["later"]


@pytest_twisted.ensureDeferred
async def test_in_thread_runs_off_the_calling_thread_and_hands_back_the_result(
    mode: str,
) -> None:
    here = threading.get_ident()
    there = await deferred_from_coro(internals.in_thread(threading.get_ident))
    assert there != here
    assert await deferred_from_coro(internals.in_thread(divmod, 7, 2)) == (3, 1)


@pytest_twisted.ensureDeferred
async def test_in_thread_raises_what_the_function_raised_and_ends_a_wait_past_its_timeout(
    mode: str,
) -> None:
    def failing() -> None:
        raise LookupError("from the thread")

    with pytest.raises(LookupError, match="from the thread"):
        await deferred_from_coro(internals.in_thread(failing))
    release = threading.Event()
    try:
        with pytest.raises((TimeoutError, defer.TimeoutError, error.TimeoutError)):
            await deferred_from_coro(internals.in_thread(release.wait, 10, timeout=0.05))
    finally:
        release.set()
