"""The package's timers and threads (scrapy_rep/crawl/internals.py: ``call_later``,
``in_thread``) on the reactor, and on the asyncio loop of a crawl without one
(``TWISTED_REACTOR_ENABLED = False``): the same answers either way."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import pytest_twisted
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import defer, error
from twisted.internet.defer import Deferred

from scrapy_rep.crawl import internals
from tests.support.paths import checkout_environment
from tests.support.scrapyversions import needs_scrapy


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


@needs_scrapy((2, 15), "its hook that forbids importing the reactor")
def test_without_a_reactor_the_loop_runs_them_and_no_reactor_is_imported() -> None:
    """In a process where importing Twisted's reactor is forbidden (Scrapy's hook for a
    crawl without one), both run on the asyncio loop."""
    script = textwrap.dedent(
        """
        import asyncio, threading
        from scrapy.utils.reactorless import install_reactor_import_hook
        install_reactor_import_hook()
        from scrapy_rep.crawl.internals import call_later, in_thread, reactor_installed

        async def main():
            fired = asyncio.get_running_loop().create_future()
            timer = call_later(0, fired.set_result, "fired")
            cancelled = call_later(0, print, "never")
            cancelled.cancel()
            assert await fired == "fired" and not timer.active()
            assert await in_thread(threading.get_ident) != threading.get_ident()
            print("ok", reactor_installed())

        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=checkout_environment(),
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok False\n", "")
