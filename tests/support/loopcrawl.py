"""Crawls without a Twisted reactor (``TWISTED_REACTOR_ENABLED = False``, Scrapy 2.15) in
the test's own process: each on an asyncio event loop of its own, in a thread of its own,
while the test's reactor goes on serving the sites (:mod:`tests.support.robotsite`).

Scrapy, and the add-on, ask whether a reactor runs a crawl by asking whether one is
installed in the process (``twisted.internet.reactor`` imported: Scrapy's
``scrapy.utils.reactor.is_reactor_installed``, the add-on's
:func:`scrapy_rep.crawl.internals.reactor_installed`): the test's process has one
(pytest-twisted). Here the question is asked of the thread: in the thread of a crawl
without a reactor both answer no (:func:`without_a_reactor_here`: each function wrapped,
once, in every module that holds it), and ``from twisted.internet import reactor`` fails
there as Scrapy's import hook has it fail in a process without one
(``install_reactor_import_hook``). What only a process without a reactor shows (that no
module such a crawl imports installs a reactor as it is imported) is tested in a process
of its own: tests/integration/test_reactorless.py.

:func:`crawl_without_reactor` is what :func:`tests.support.robotsite.crawl` runs when the
test runs in the mode without a reactor (the ``both_modes`` fixture of
tests/integration/conftest.py); :func:`run_without_reactor` runs any function so (a
command-line tool's ``main``).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

#: The threads that run without a reactor (their ``threading.get_ident()``).
_THREADS: set[int] = set()
#: A crawl (or a tool) without a reactor that takes longer than this is a failure.
LOOP_TIMEOUT = 120
#: What the robotsite settings name the timed handler by.
TIMED_PATH = "tests.support.robotsite.TimedHandler"

T = TypeVar("T")


def in_a_reactorless_thread() -> bool:
    """Whether this thread runs without a reactor."""
    return threading.get_ident() in _THREADS


def _asked_of_the_thread(installed: Callable[[], bool]) -> Callable[[], bool]:
    def installed_here() -> bool:
        return not in_a_reactorless_thread() and installed()

    installed_here.__wrapped__ = installed  # type: ignore[attr-defined]
    installed_here.__name__ = installed.__name__
    installed_here.__doc__ = installed.__doc__
    return installed_here


class _NoReactorHere(types.ModuleType):
    """``twisted.internet``, whose ``reactor`` a thread without one cannot import."""

    def __getattribute__(self, name: str) -> Any:
        if name == "reactor" and in_a_reactorless_thread():
            raise ImportError(
                "Import of twisted.internet.reactor is forbidden when running without a "
                "Twisted reactor, as importing it installs the reactor, which can lead to "
                "unexpected behavior."
            )
        return super().__getattribute__(name)


def _ask_of_the_thread() -> None:
    """Scrapy's ``is_reactor_installed`` and the add-on's ``reactor_installed`` asked of
    the thread, in every module that holds them (a module imported later takes the wrapped
    one from where it is defined); ``twisted.internet``'s ``reactor`` kept from the
    threads without one. Once per process."""
    import scrapy.utils.reactor
    import twisted.internet

    from scrapy_rep.crawl import internals

    if isinstance(twisted.internet, _NoReactorHere):
        return
    wrapped = {
        id(function): _asked_of_the_thread(function)
        for function in (scrapy.utils.reactor.is_reactor_installed, internals.reactor_installed)
    }
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for name, value in list(namespace.items()):
            if callable(value) and id(value) in wrapped:
                setattr(module, name, wrapped[id(value)])
    twisted.internet.__class__ = _NoReactorHere


@contextmanager
def without_a_reactor_here() -> Iterator[None]:
    """This thread (not the reactor's) runs without a reactor while the block runs."""
    _ask_of_the_thread()
    ident = threading.get_ident()
    _THREADS.add(ident)
    try:
        yield
    finally:
        _THREADS.discard(ident)


async def run_without_reactor(function: Callable[[], T]) -> T:
    """``function()`` in a thread of its own that runs without a reactor (it runs its own
    asyncio loop, if any), while the test's reactor runs on; its result, or its
    exception."""
    from twisted.internet import reactor
    from twisted.internet.defer import Deferred
    from twisted.python.failure import Failure

    done: Deferred[T] = Deferred()

    def run() -> None:
        try:
            with without_a_reactor_here():
                result = function()
        except BaseException:  # handed to the test: the thread would only print it
            failure = Failure()
            reactor.callFromThread(done.errback, failure)  # type: ignore[attr-defined]
        else:
            reactor.callFromThread(done.callback, result)  # type: ignore[attr-defined]

    thread = threading.Thread(target=run, name="without a reactor", daemon=True)
    thread.start()
    done.addTimeout(LOOP_TIMEOUT, reactor)  # type: ignore[arg-type]
    try:
        return await done
    finally:
        thread.join(timeout=5)


def child_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` as a crawl without a reactor takes them: downloading with the handler
    Scrapy uses then (aiohttp's from 2.19, httpx's from 2.15 to 2.18; the tests that crawl
    so are skipped where it cannot download:
    :func:`tests.support.scrapyversions.needs_no_reactor`)."""
    return {**settings, "TWISTED_REACTOR_ENABLED": False}


class _ThreadLines(logging.Handler):
    """The log lines at WARNING and above that one thread writes."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}"[:2000])


def _timed_reactorless() -> type[Any]:
    """The handler Scrapy downloads with without a reactor (aiohttp's, or httpx's before
    2.19), noting when the download slot released each request in
    :attr:`TimedHandler.sent`, as ``TimedHandler`` does."""
    from scrapy.utils.misc import load_object

    from scrapy_rep.crawl.internals import REACTORLESS_HANDLER
    from tests.support.robotsite import TimedHandler

    handler: Any = load_object(REACTORLESS_HANDLER)

    class TimedReactorless(handler):  # type: ignore[misc,valid-type]
        sent = TimedHandler.sent
        _note = TimedHandler._note

        def __init__(self, crawler: Any) -> None:
            super().__init__(crawler)
            self._timed_crawler = crawler
            self.sent.clear()

        async def download_request(self, request: Any) -> Any:
            self._note(request)
            return await super().download_request(request)

    return TimedReactorless


@dataclass
class LoopCrawl:
    """A crawl without a reactor, run to its end: its crawler and spider, and the log
    lines at WARNING and above its thread wrote, ``LEVEL logger: message``."""

    crawler: Any
    spider: Any
    log: list[str] = field(default_factory=list)


async def crawl_without_reactor(
    urls: list[str],
    settings: dict[str, Any],
    spider: type[Any],
    on_crawler: Callable[[Any], None] | None = None,
    stop_when_held: tuple[str, int] | None = None,
) -> LoopCrawl:
    """``spider`` over ``urls`` without a reactor (on ``BASE_SETTINGS``), as ``scrapy
    crawl`` runs it then: an ``AsyncCrawlerRunner`` on an asyncio loop of its own.
    ``on_crawler`` is called with the crawler before it starts; ``stop_when_held``:
    ``(origin, count)``, the crawl is stopped as Ctrl-C stops it once that many requests
    are held for that origin (a ``JOBDIR`` pause)."""
    from tests.support.robotsite import BASE_SETTINGS

    given = {**BASE_SETTINGS, **child_settings(settings)}
    handlers = dict(given.get("DOWNLOAD_HANDLERS") or {})

    def crawl() -> LoopCrawl:
        from scrapy.crawler import AsyncCrawlerRunner

        if handlers.get("http") == TIMED_PATH:
            given["DOWNLOAD_HANDLERS"] = {**handlers, "http": _timed_reactorless()}
        lines = _ThreadLines()
        logging.getLogger().addHandler(lines)
        try:
            runner = AsyncCrawlerRunner(given)
            crawler = runner.create_crawler(spider)
            if on_crawler is not None:
                on_crawler(crawler)
            if stop_when_held:
                _stop_when_held(runner, crawler, *stop_when_held)

            async def main() -> None:
                await runner.crawl(crawler, urls=urls)

            asyncio.run(main())
        finally:
            logging.getLogger().removeHandler(lines)
        return LoopCrawl(crawler, crawler.spider, lines.lines)

    return await run_without_reactor(crawl)


def _stop_when_held(runner: Any, crawler: Any, origin: str, count: int) -> None:
    """Stop the crawl (as a first Ctrl-C does) once ``count`` requests are held for
    ``origin``."""
    from scrapy_rep.signals import request_held

    held: list[Any] = []
    stop_origin = origin

    def on_held(origin: str, **_: Any) -> None:
        if origin != stop_origin:
            return
        held.append(1)
        if len(held) == count:
            asyncio.get_running_loop().create_task(runner.stop())

    crawler.signals.connect(on_held, signal=request_held, weak=False)
