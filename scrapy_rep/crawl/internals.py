"""What scrapy_rep depends on in Scrapy beyond its stable public API, in one place: the
differences between the Scrapy releases it supports, and every private attribute it reads.

One module, not two: the private attributes are where the releases differ most
(``Crawler._engine`` appeared in 2.18, the dupefilter's fingerprints moved in 2.19), so a
split would put half of each difference on each side. Each name below covers one
difference or one read, says the release that brought it, and answers the safe default
(``None``, nothing) when an attribute is not there, so a Scrapy that moved one degrades
to the slower path instead of failing. The rest of the package calls these names and
never asks which Scrapy it runs on; when the lowest supported release passes a point's
version, the point goes and its callers use Scrapy's own name (docs/installation.md has
the table for users).

scrapy_rep supports Scrapy 2.13 and newer (:data:`LOWEST`): Scrapy 2.12 and older import
``w3lib.url._safe_chars``, which w3lib 2.5 (our lowest, for its reading of UTF-16 pages)
no longer has. ``tests/integration/test_scrapy_internals.py`` checks each read against a running
crawl of the installed Scrapy; they were checked against the releases in
:data:`CHECKED_WITH` (``.ci/run`` tests the lowest declared and the newest, and 2.15 without a
reactor).

One difference is not here but in the signatures: Scrapy 2.13 passes ``spider=`` to
every component method (``process_request``, ``process_response``, ``process_exception``,
``process_spider_output``…); 2.14 and newer call them without it, and warn only about a
method that *requires* it. So each of our component methods takes an optional ``spider``
that it ignores (``tests/crawl/test_internals_compat.py`` checks them all).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeVar, cast

import scrapy
from scrapy.dupefilters import RFPDupeFilter
from scrapy.http import Request, Response
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import load_object
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
    from scrapy.settings import BaseSettings, Settings
    from scrapy.signalmanager import SignalManager

_T = TypeVar("_T")


def release_of(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a Scrapy version string (``"2.13.3"``, ``"2.20.0.dev0"``)."""
    major, minor = version.split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


#: The installed Scrapy, as ``(major, minor)``.
SCRAPY: Final = release_of(scrapy.__version__)
#: The oldest Scrapy release scrapy_rep supports (setup.cfg's ``scrapy>=`` says the same;
#: ``tests/crawl/test_internals_compat.py`` checks it).
LOWEST: Final = (2, 13)
#: The Scrapy releases the reads and differences below were checked against: the lowest
#: declared (``.ci/lowest-constraints.txt``) and the newest, which CI runs, and 2.15.2
#: and 2.18.0 (``tests/integration/test_scrapy_internals.py`` and the crawls run in both
#: modes, by hand on 2026-11-26; CI runs their half without a reactor on 2.15).
CHECKED_WITH: Final = ("2.13.0", "2.15.2", "2.18.0", "2.19.0")

# ---------------------------------------------------------------------- Scrapy 2.14

#: Scrapy 2.14: ``ExecutionEngine.download_async``, ``SignalManager.send_catch_log_async``,
#: ``ExecutionEngine.close_spider_async``; 2.13 has only their Deferred forms.
ASYNC_ENGINE: Final = SCRAPY >= (2, 14)


async def download(crawler: Crawler, request: Request) -> Response:
    """``request`` downloaded through the engine (its downloader middlewares, not the
    scheduler): ``engine.download_async`` (Scrapy 2.14), ``engine.download`` before."""
    engine = running_engine(crawler)
    if engine is None:
        raise RuntimeError("the crawl's engine is not running")
    if ASYNC_ENGINE:
        response: Response = await engine.download_async(request)
        return response
    return await maybe_deferred_to_future(engine.download(request))


async def send_catch_log_async(signals: SignalManager, signal: object, **kwargs: Any) -> Any:
    """Send ``signal`` (when awaited), awaiting the handlers that return a coroutine or a
    Deferred: ``send_catch_log_async`` (Scrapy 2.14), ``send_catch_log_deferred`` before."""
    if ASYNC_ENGINE:
        return await signals.send_catch_log_async(signal=signal, **kwargs)
    return await maybe_deferred_to_future(signals.send_catch_log_deferred(signal=signal, **kwargs))


def close_spider(crawler: Crawler, reason: str) -> None:
    """Ask the running engine to close the spider (``close_spider_async``, Scrapy 2.14;
    ``close_spider(spider, reason)`` before); nothing when the crawl is not running.

    Scrapy 2.13 cannot close a spider before its engine runs (from a ``spider_opened``
    handler: its ``Crawler.stop`` then fails, "Engine not running"), so there the spider
    is closed as soon as the engine runs."""
    from scrapy import signals
    from scrapy.utils.defer import deferred_from_coro

    engine = running_engine(crawler)
    if engine is None:
        return
    if ASYNC_ENGINE:
        deferred_from_coro(engine.close_spider_async(reason=reason))
        return
    if engine.running:
        engine.close_spider(crawler.spider, reason)
        return

    def close_once_running() -> None:
        if engine.running:
            engine.close_spider(crawler.spider, reason)

    def engine_started(**_: Any) -> None:
        call_later(0, close_once_running)

    crawler.signals.connect(engine_started, signal=signals.engine_started, weak=False)


async def awaited(value: Any) -> Any:
    """``value``, awaited if it is a coroutine or a Deferred (Scrapy 2.14's
    ``ensure_awaitable``, which 2.13 lacks)."""
    if isinstance(value, Deferred):
        return await maybe_deferred_to_future(value)
    if inspect.isawaitable(value):
        return await value
    return value


#: Scrapy 2.14 starts a crawl (and runs the add-ons' ``update_settings``) in a coroutine,
#: out of which ``SystemExit`` ends the ``scrapy`` command; 2.13 in a Deferred, which
#: catches it (the command then goes on and exits 0, with a traceback). So does 2.14+
#: under a reactor that is not asyncio's (``TWISTED_REACTOR = …SelectReactor``).
EXIT_FROM_THE_CRAWL: Final = ASYNC_ENGINE


def scrapy_command_frame() -> FrameType | None:
    """The frame of Scrapy's command line (``scrapy.cmdline.execute``) running us, if it
    is: ``None`` in a program that runs a crawl itself."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "execute" and Path(code.co_filename).parts[-2:] == (
            "scrapy",
            "cmdline.py",
        ):
            return frame
        frame = frame.f_back
    return None


def _in_a_deferred_crawl() -> bool:
    """Whether the ``scrapy`` command running us runs its crawls in Scrapy's
    ``CrawlerProcess`` (under a reactor that is not asyncio's: Scrapy 2.14+ starts them in
    a Deferred there, which catches ``SystemExit``), not its ``AsyncCrawlerProcess``."""
    frame = scrapy_command_frame()
    if frame is None:
        return False
    process = getattr(frame.f_locals.get("cmd"), "crawler_process", None)
    return type(process).__name__ == "CrawlerProcess"


def exit_command(status: int) -> NoReturn:
    """End the ``scrapy`` command with ``status`` (a wrong setting, its line printed):
    ``SystemExit`` (Scrapy 2.14+, its ``AsyncCrawlerProcess``), or at once on 2.13 and
    in the ``CrawlerProcess`` 2.14+ runs under another reactor, where nothing else can
    end it from inside the crawl's start (the crawl has opened nothing yet: no file, no
    connection)."""
    if EXIT_FROM_THE_CRAWL and not _in_a_deferred_crawl():
        raise SystemExit(status)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


# ---------------------------------------------------------------------- Scrapy 2.15

#: Scrapy 2.15 wraps the download handler's errors in its own exceptions (the original
#: as ``__cause__``); 2.13 and 2.14 raise Twisted's own (``DNSLookupError``,
#: ``TimeoutError``, ``ResponseFailed``…), which :mod:`~scrapy_rep.crawl.documents.engine_fetch`
#: reads as well. Each tuple is empty before 2.15.
LOOKUP_ERRORS: tuple[type[Exception], ...] = ()
TIMEOUT_ERRORS: tuple[type[Exception], ...] = ()
LOST_ERRORS: tuple[type[Exception], ...] = ()
if SCRAPY >= (2, 15):
    from scrapy.exceptions import (
        CannotResolveHostError,
        DownloadFailedError,
        DownloadTimeoutError,
        ResponseDataLossError,
    )

    LOOKUP_ERRORS = (CannotResolveHostError,)
    TIMEOUT_ERRORS = (DownloadTimeoutError,)
    LOST_ERRORS = (DownloadFailedError, ResponseDataLossError)

#: Scrapy 2.15 merges a component priority setting with its ``_BASE`` by the class each
#: key names (``get_component_priority_dict_with_base``); 2.13 and 2.14 by the key as
#: written, so a component of ``DOWNLOADER_MIDDLEWARES_BASE`` is switched off only under
#: the import path that setting names it by.
COMPONENTS_BY_CLASS: Final = SCRAPY >= (2, 15)


def switch_off_base_component(settings: BaseSettings, name: str, path: str) -> None:
    """Switch off the component a ``_BASE`` setting lists as ``path`` (``name``:
    ``DOWNLOADER_MIDDLEWARES``…): under its class (Scrapy 2.15+), else under ``path``
    (one key only: two keys for the same class at one priority are an error in 2.15+)."""
    if COMPONENTS_BY_CLASS:
        settings.set_in_component_priority_dict(name, load_object(path), None)
        return
    components = settings.getdict(name)
    components[path] = None
    settings.set(name, components, settings.getpriority(name) or 0)


# ---------------------------------------------------------------------- Scrapy 2.15: no reactor

#: Scrapy 2.15 crawls without a Twisted reactor when ``TWISTED_REACTOR_ENABLED`` is
#: ``False``: on an asyncio event loop, with ``twisted.internet.reactor`` forbidden to
#: import (it would install one). Every timer and thread of the package goes through
#: :func:`call_later` and :func:`in_thread`, the one place that asks which of the two runs
#: the crawl: the reactor when one is installed (its ``callLater`` and its thread pool,
#: which ``REACTOR_THREADPOOL_MAXSIZE`` sizes and Scrapy's DNS resolver shares, as
#: before), else the running asyncio loop (its ``call_later`` and default executor, which
#: the loop's own name lookups share). Scrapy's ``scrapy.utils.asyncio.call_later``
#: (2.14) and ``run_in_thread`` (2.15) pick the asyncio loop under the asyncio reactor
#: too, and 2.13 has neither; their handle has no ``active()``, which the lifecycle's
#: timers ask.
REACTORLESS: Final = SCRAPY >= (2, 15)


#: Scrapy's httpx download handler (2.15, private), the one it downloads ``http`` and
#: ``https`` with in a crawl without a reactor from 2.15 to 2.18 when the project names
#: none; the httpx library it needs is not a dependency of Scrapy.
HTTPX_HANDLER: Final = "scrapy.core.downloader.handlers._httpx.HttpxDownloadHandler"
#: The handler Scrapy downloads ``http`` and ``https`` with in a crawl without a reactor
#: when the project names none (it sets it in ``DOWNLOAD_HANDLERS_BASE`` then): aiohttp's
#: from 2.19 (aiohttp is a dependency of Scrapy there), httpx's from 2.15 to 2.18.
REACTORLESS_HANDLER: Final = (
    "scrapy.core.downloader.handlers._aiohttp.AiohttpDownloadHandler"
    if SCRAPY >= (2, 19)
    else HTTPX_HANDLER
)


def httpx_missing() -> bool:
    """Whether Scrapy's httpx handler (:data:`HTTPX_HANDLER`) is there but lacks the
    library it downloads with (its module sets ``httpx`` to ``None`` then: httpx, or
    httpx2 from 2.18; every download fails with ``NotSupported``)."""
    import importlib

    try:
        module = importlib.import_module(HTTPX_HANDLER.rpartition(".")[0])
    except ImportError:
        return False
    return getattr(module, "httpx", None) is None


def reactor_installed() -> bool:
    """Whether a Twisted reactor runs this process's crawls (it is installed: imported;
    Scrapy's ``is_reactor_installed``)."""
    return "twisted.internet.reactor" in sys.modules


def reactorless_setting(settings: Any) -> bool:
    """Whether ``settings`` ask for a crawl without a reactor (``TWISTED_REACTOR_ENABLED =
    False``, Scrapy 2.15); ``False`` before 2.15, which has no such setting."""
    return REACTORLESS and not settings.getbool("TWISTED_REACTOR_ENABLED", True)


class Timer:
    """A call :func:`call_later` scheduled, on the reactor or the asyncio loop alike."""

    __slots__ = ("_cancel", "_pending")

    def __init__(self) -> None:
        self._pending = True
        self._cancel: Callable[[], object] = _nothing

    def active(self) -> bool:
        """Whether the call is still to come (neither made nor cancelled)."""
        return self._pending

    def cancel(self) -> None:
        """The call is not made (nothing if it was made or cancelled already)."""
        if self._pending:
            self._pending = False
            self._cancel()


def call_later(delay: float, function: Callable[..., object], *args: Any) -> Timer:
    """``function(*args)`` in ``delay`` seconds: ``reactor.callLater`` when a reactor is
    installed, else the running asyncio loop's ``call_later`` (a crawl without a reactor).
    ``twisted.internet.reactor`` is imported here only, late: importing this module never
    installs a reactor."""
    timer = Timer()

    def fire() -> None:
        if timer._pending:
            timer._pending = False
            function(*args)

    if reactor_installed():
        from twisted.internet import reactor

        timer._cancel = cast(Any, reactor).callLater(delay, fire).cancel
    else:
        timer._cancel = asyncio.get_running_loop().call_later(delay, fire).cancel
    return timer


async def in_thread(function: Callable[..., _T], *args: Any, timeout: float | None = None) -> _T:
    """``function(*args)`` run in a thread: the reactor's pool (``deferToThread``) when a
    reactor is installed, else the asyncio loop's default executor
    (``asyncio.to_thread``). ``timeout``: seconds after which the wait ends with an
    exception (the thread runs on: neither can stop it)."""
    if reactor_installed():
        from twisted.internet import reactor
        from twisted.internet.threads import deferToThread

        running: Deferred[_T] = deferToThread(function, *args)
        if timeout is not None:
            running.addTimeout(timeout, reactor)
        result: _T = await maybe_deferred_to_future(running)
        return result
    if timeout is None:
        return await asyncio.to_thread(function, *args)
    try:
        return await asyncio.wait_for(asyncio.to_thread(function, *args), timeout)
    except asyncio.TimeoutError as error:  # Python 3.10: not yet the built-in TimeoutError
        raise TimeoutError(f"no answer within {timeout} s") from error


def asyncio_usable() -> bool:
    """Whether asyncio code (``redis.asyncio``…) can run in the crawl: under Scrapy's
    asyncio reactor, or without a reactor (the crawl runs on an asyncio loop)."""
    if not reactor_installed():
        return True
    from scrapy.utils.reactor import is_asyncio_reactor_installed

    return bool(is_asyncio_reactor_installed())


def crawler_process(settings: Settings) -> Any:
    """The ``CrawlerProcess`` a tool runs its crawl in: Scrapy's ``AsyncCrawlerProcess``
    when ``settings`` ask for no reactor (``CrawlerProcess`` refuses
    ``TWISTED_REACTOR_ENABLED = False``), else ``CrawlerProcess``, as before."""
    import scrapy.crawler

    if reactorless_setting(settings):  # Scrapy 2.15 and newer only
        return scrapy.crawler.AsyncCrawlerProcess(settings)
    return scrapy.crawler.CrawlerProcess(settings)


@contextmanager
def stopping_at_once(process: Any, signals: Sequence[int]) -> Iterator[list[int]]:
    """While ``process`` (a ``CrawlerProcess``, started with
    ``install_signal_handlers=False``: Scrapy's own first handler waits for the requests
    under way) runs its crawl, ``signals`` (SIGINT, SIGTERM) stop it at once: its reactor
    crashed (stopped without its shutdown triggers, where Scrapy's ``_stop_dfd`` waits for
    the downloads under way, whatever Ctrl-C it follows), then its thread pool stopped; or
    without a reactor its loop's main task cancelled (Scrapy's second Ctrl-C,
    ``_signal_kill_reactorless``). The signals received, in the list yielded (the first
    stops, the others are ignored); the handlers before restored after, and the crawl's
    logging off after a stop (the process ends)."""
    received: list[int] = []
    reactorless = getattr(process, "_reactorless_loop", None) is not None

    def stop(signum: int, frame: FrameType | None) -> None:
        if not received:
            received.append(signum)
            if reactorless:
                process._signal_kill_reactorless(signum, frame)
                return
            from twisted.internet import reactor

            running = cast(Any, reactor)
            running.callFromThread(running.crash)

    previous = [(number, signal.signal(number, stop)) for number in signals]
    try:
        yield received
    finally:
        for number, handler in previous:
            signal.signal(number, handler)
        if received:
            # what the crawl cut short leaves behind (Scrapy's engine schedules its close as
            # the loop closes, coroutines never awaited) would be logged as the process
            # ends: the stop is said in its own line
            logging.disable(logging.CRITICAL)
        if received and not reactorless:
            from twisted.internet import reactor

            cast(Any, reactor).getThreadPool().stop()  # a crash leaves its threads running


def crawler_runner(settings: Settings, what: str) -> Any:
    """The runner of a crawl in the reactor or asyncio loop that runs already (a program
    that runs Scrapy itself; ``what`` names the call, for its errors): Scrapy's
    ``AsyncCrawlerRunner`` when ``settings`` ask for no reactor, else ``CrawlerRunner``.

    Raises ``RuntimeError`` at once, in one line naming ``TWISTED_REACTOR_ENABLED``, when
    the process cannot run that crawl: no reactor asked for but one is installed (Scrapy
    refuses it), or no running asyncio loop; a reactor asked for but none is installed
    (the crawl would wait for one forever)."""
    import scrapy.crawler

    if reactorless_setting(settings):  # Scrapy 2.15 and newer only
        if reactor_installed():
            raise RuntimeError(
                f"{what}: TWISTED_REACTOR_ENABLED = False, but this process has a Twisted "
                f"reactor installed: leave the setting out to crawl in that reactor"
            )
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                f"{what}: TWISTED_REACTOR_ENABLED = False crawls on the running asyncio "
                f"loop, and none runs: call it from a coroutine (asyncio.run)"
            ) from None
        return scrapy.crawler.AsyncCrawlerRunner(settings)
    if not reactor_installed():
        without = (
            ", or set TWISTED_REACTOR_ENABLED = False to crawl on the running asyncio loop"
            if REACTORLESS
            else ""
        )
        raise RuntimeError(
            f"{what}: no Twisted reactor is installed in this process: call it under a "
            f"reactor{without}"
        )
    return scrapy.crawler.CrawlerRunner(settings)


def forbid_reactor_import() -> Any:
    """Have an import of ``twisted.internet.reactor`` fail, as ``AsyncCrawlerProcess``
    has it fail for its crawl (``scrapy.utils.reactorless.install_reactor_import_hook``,
    Scrapy 2.15): a crawl on an asyncio loop that a program of its own runs. What
    :func:`allow_reactor_import` takes to undo it."""
    from scrapy.utils.reactorless import install_reactor_import_hook

    return install_reactor_import_hook()


def allow_reactor_import(hook: Any) -> None:
    """Undo :func:`forbid_reactor_import`: the hook out of ``sys.meta_path``, as the
    ``uninstall_reactor_import_hook`` of later releases (2.18 has it) takes it out.
    Scrapy 2.15's ``install_reactor_import_hook`` returns no hook (``None``) and has no
    uninstall: the first of its hooks in ``sys.meta_path`` is taken out then."""
    import contextlib

    if hook is None:
        from scrapy.utils.reactorless import ReactorImportHook

        hook = next((h for h in sys.meta_path if isinstance(h, ReactorImportHook)), None)
    with contextlib.suppress(ValueError):
        sys.meta_path.remove(hook)


def on_start_failure(started: Any, told: Callable[[BaseException], None]) -> None:
    """Have ``told(error)`` called if the crawl ``started`` (what ``crawl()`` of a
    ``CrawlerProcess`` answers, a Deferred, or of an ``AsyncCrawlerProcess``, an asyncio
    task) fails."""
    if isinstance(started, Deferred):

        def failed(failure: Any) -> None:
            told(failure.value)

        started.addErrback(failed)
        return

    def done(task: asyncio.Future[Any]) -> None:
        if not task.cancelled() and task.exception() is not None:
            told(cast(BaseException, task.exception()))

    started.add_done_callback(done)


# ---------------------------------------------------------------------- Scrapy 2.16

#: Scrapy 2.16 gives every spider middleware the spider's output as an async iterable
#: (its ``process_spider_output_async``); 2.13 to 2.15 give a middleware that has both
#: methods the sync one when the callback's output is sync (a plain generator).
ASYNC_SPIDER_OUTPUT: Final = SCRAPY >= (2, 16)

# ---------------------------------------------------------------------- Scrapy 2.18

#: Scrapy 2.18: ``Crawler.engine`` (and ``stats``…) raise ``RuntimeError`` until the crawl
#: starts, their value kept in ``Crawler._engine``; before, ``engine`` is a plain
#: attribute, ``None`` until then.
LATE_ATTRIBUTES: Final = SCRAPY >= (2, 18)


def running_engine(crawler: Crawler) -> Any:
    """The crawl's engine, or ``None`` before the crawl starts and after it ends, on every
    release: ``Crawler._engine`` (private, Scrapy 2.18+) or ``Crawler.engine`` before."""
    if LATE_ATTRIBUTES:
        return getattr(crawler, "_engine", None)
    return getattr(crawler, "engine", None)


#: Scrapy 2.18: the ``robots_parsed`` signal (sent by its robots.txt middleware once a
#: robots.txt is parsed; scrapy_rep sends it too). Before, there is no such signal and
#: nothing to send.
ROBOTS_PARSED: object | None = getattr(scrapy.signals, "robots_parsed", None)

#: Scrapy 2.18: ``scrapy.pipelines.media._MediaRequestFiltered`` (private), the media
#: request failure the media pipelines neither log as an error nor put in the item.
#: Before, every failure is logged with its traceback: :func:`quiet_media_failures`
#: silences ours.
MEDIA_REQUEST_FILTERED: Final = SCRAPY >= (2, 18)
if TYPE_CHECKING or MEDIA_REQUEST_FILTERED:
    from scrapy.pipelines.media import _MediaRequestFiltered as _Filtered
else:
    from scrapy.pipelines.files import FileException as _Filtered
MediaRequestFiltered = _Filtered


class _DropFiltered(logging.Filter):
    """Drops the pipeline's ERROR line for a file request scrapy_rep refused (its own
    log line, stat and audit record say it already)."""

    def __init__(self, refused: type[BaseException]) -> None:
        super().__init__()
        self.refused = refused

    def filter(self, record: logging.LogRecord) -> bool:
        # Logged from an errback (Scrapy 2.13), the message is the Failure and exc_info
        # holds whatever else was being handled.
        errors = (
            record.exc_info[1] if record.exc_info else None,
            getattr(record.msg, "value", None),
        )
        return not any(isinstance(error, self.refused) for error in errors)


def quiet_media_failures(refused: type[BaseException]) -> None:
    """Before Scrapy 2.18, have ``scrapy.pipelines.media`` log no error for a refusal of
    ours (``refused``), as 2.18 does not for ``_MediaRequestFiltered``; once per process."""
    if MEDIA_REQUEST_FILTERED:
        return
    media_logger = logging.getLogger("scrapy.pipelines.media")
    if not any(isinstance(f, _DropFiltered) for f in media_logger.filters):
        media_logger.addFilter(_DropFiltered(refused))


# ---------------------------------------------------------------------- Scrapy 2.19

#: Scrapy 2.19: ``DOWNLOAD_DELAY_JITTER`` and the per-slot ``jitter``; before, only
#: ``RANDOMIZE_DOWNLOAD_DELAY`` and the per-slot ``randomize_delay`` (±50 % or nothing).
#: :mod:`~scrapy_rep.crawl.documents.slots` reads either.
DELAY_JITTER: Final = SCRAPY >= (2, 19)


def seen_fingerprints(scheduler: Any, fingerprinter: Any) -> Callable[[bytes], bool] | None:
    """Whether Scrapy's ``RFPDupeFilter`` has seen a fingerprint of ``fingerprinter`` (the
    crawl's), or ``None`` when the dupefilter's answer may be another: a dupefilter of
    another class, a subclass (its ``request_seen`` may ignore the query string), or one
    with another fingerprinter; its drops are then known from ``request_dropped``. Scrapy
    2.19 keeps them as bytes in its private ``_fingerprints`` (the public
    ``fingerprints`` is a deprecated copy); before, as hex strings in the public, live
    ``fingerprints`` set."""
    dupefilter = getattr(scheduler, "df", None)
    if type(dupefilter) is not RFPDupeFilter or dupefilter.fingerprinter is not fingerprinter:
        return None
    if SCRAPY >= (2, 19):
        seen = getattr(dupefilter, "_fingerprints", None)
        return seen.__contains__ if isinstance(seen, set) else None
    hex_seen = getattr(dupefilter, "fingerprints", None)
    if not isinstance(hex_seen, set):
        return None
    return lambda fingerprint: fingerprint.hex() in hex_seen


# ---------------------------------------------------------------------- every release
# Private attributes that are the same in every supported release (2.13 to 2.19). One
# more is not read here but inherited: ``BaseSpiderMiddleware._get_processed`` (its
# dispatch to ``get_processed_request`` / ``get_processed_item``), which the page pass's
# own output loops call (crawl/page/spidermiddlewares.py), the same in 2.13 to 2.19.


def explicit_encoding(response: Response) -> str | None:
    """The encoding a response's creator named (``TextResponse(encoding=…)``, kept in
    ``TextResponse._encoding``), which overrides what its headers and body declare;
    ``None`` when none was named (every downloaded response)."""
    encoding = getattr(response, "_encoding", None)
    return encoding if isinstance(encoding, str) else None


def error_line(error: BaseException) -> str:
    """An exception in one short line, as every log line, record and message of the add-on
    says one: ``Name: message`` (at most 200 characters). Twisted's ``ResponseFailed``
    wraps a list of failures: the first is named; Scrapy 2.15's download errors wrap
    Twisted's (``__cause__``): the one it wraps is named, as 2.13 and 2.14 raise it."""
    while error.__cause__ is not None and type(error).__module__ == "scrapy.exceptions":
        error = error.__cause__
    reasons = getattr(error, "reasons", None)
    if reasons:
        first = reasons[0]
        error = getattr(first, "value", first)
    text = str(error).strip()
    name = type(error).__name__
    line = f"{name}: {text}" if text and not text.startswith(name) else (text or name)
    return line if len(line) <= 200 else line[:199] + "…"


def engine_scheduler(engine: Any) -> Any:
    """The crawl's scheduler (``ExecutionEngine._slot.scheduler``), or ``None``."""
    return getattr(getattr(engine, "_slot", None), "scheduler", None)


def engine_closing(engine: Any) -> bool:
    """Whether the engine is closing the spider (``ExecutionEngine._slot.closing`` is set,
    or the slot is gone)."""
    slot = getattr(engine, "_slot", None)
    return slot is None or getattr(slot, "closing", None) is not None


def downloader_middleware(engine: Any) -> Any:
    """The downloader's ``DownloaderMiddlewareManager`` (``engine.downloader.middleware``:
    its ``middlewares`` and ``methods``), or ``None``."""
    return getattr(getattr(engine, "downloader", None), "middleware", None)


def in_downloader(crawler: Crawler, request: Request) -> bool:
    """Whether ``request`` is in the crawl's downloader now (``Downloader.active``: from its
    downloader middlewares' ``process_request`` to their ``process_exception``, the same in
    2.13 to 2.19): a refusal raised there reaches its errback. ``False`` when it cannot
    tell."""
    active = getattr(getattr(running_engine(crawler), "downloader", None), "active", None)
    return isinstance(active, set) and request in active


def downloader_methods(engine: Any, name: str) -> list[Any]:
    """The bound methods the downloader calls for ``name`` (``process_request``…), in the
    order it calls them (``DownloaderMiddlewareManager.methods``)."""
    methods = getattr(downloader_middleware(engine), "methods", None)
    return list(methods.get(name) or ()) if isinstance(methods, dict) else []


def offsite_middleware(engine: Any) -> OffsiteMiddleware | None:
    """The crawl's offsite filter (Scrapy's downloader middleware ``OffsiteMiddleware``, or a
    subclass: the same in 2.13 to 2.19), or ``None``."""
    from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware

    for method in downloader_methods(engine, "process_request"):
        component = getattr(method, "__self__", None)
        if isinstance(component, OffsiteMiddleware):
            return component
    return None


def offsite_filter(crawler: Crawler, engine: Any) -> Callable[..., None] | None:
    """Scrapy's offsite filter's ``request_scheduled`` handler (:func:`offsite_middleware`'s),
    taken off the signal for the caller to run in its own handler, or ``None``. The filter
    drops an offsite request by raising ``IgnoreRequest`` there, which the engine tells no
    one (no ``request_dropped``), and another handler of the signal cannot see; run by the
    caller, its own answer is known. Left as it is when it is not connected."""
    from scrapy import signals

    handler = getattr(offsite_middleware(engine), "request_scheduled", None)
    try:
        if handler is not None:
            crawler.signals.disconnect(handler, signal=signals.request_scheduled)
    except Exception:  # not connected (pydispatch: DispatcherKeyError)
        return None
    return handler


def append_downloader_method(engine: Any, name: str, method: Callable[..., Any]) -> bool:
    """Put ``method`` last in the downloader's ``name`` chain
    (``DownloaderMiddlewareManager.methods[name]``, called in order); whether it could."""
    methods = getattr(downloader_middleware(engine), "methods", None)
    chain = methods.get(name) if isinstance(methods, dict) else None
    if chain is None or not hasattr(chain, "append"):
        return False
    chain.append(method)
    return True


def send_through(engine: Any, sending: Callable[..., Any]) -> Callable[..., Any] | None:
    """Have ``sending`` called for each request as it leaves its download slot for the
    network (after the slot's delay and queue), in place of the download handlers' method
    the downloader calls then (``Downloader._download``: ``DownloadHandlers
    .download_request_async(request)`` from Scrapy 2.14, ``download_request(request,
    spider)`` in 2.13, whose arguments ``sending`` passes on); returns that method, for
    ``sending`` to call, or ``None`` when it cannot be reached. What ``sending`` raises is
    the download's exception (the downloader middlewares' ``process_exception``, then the
    request's errback)."""
    handlers = getattr(getattr(engine, "downloader", None), "handlers", None)
    name = "download_request_async" if ASYNC_ENGINE else "download_request"
    original = getattr(handlers, name, None)
    if original is None:
        return None
    setattr(handlers, name, sending)
    return cast("Callable[..., Any]", original)


class _FirstIn(deque):  # type: ignore[type-arg]
    """A download slot's queue that puts one request first when it is appended, then puts
    a plain queue back in the slot (:func:`first_in_slot`)."""

    def __init__(self, items: deque[Any], slot: Any, request: Request) -> None:
        super().__init__(items)
        self.slot = slot
        self.request = request

    def append(self, item: Any) -> None:
        if item[0] is not self.request:
            super().append(item)
            return
        plain = deque(self)
        plain.appendleft(item)
        self.slot.queue = plain  # read again by the downloader's _process_queue


def first_in_slot(crawler: Crawler, request: Request) -> Callable[[], None]:
    """Have ``request`` go first in its download slot's queue when the downloader queues
    it, ahead of the requests waiting there for the slot's delay or concurrency
    (``Downloader.slots[key].queue``, a deque of ``(request, deferred)`` popped from the
    left, and ``Downloader.get_slot_key``: the same in every supported release); nothing
    when the slot has no queue yet. Returns what puts a plain queue back if ``request``
    never reached it (an HTTP cache answered it)."""
    downloader = getattr(running_engine(crawler), "downloader", None)
    slots = getattr(downloader, "slots", None)
    slot_key = getattr(downloader, "get_slot_key", None)
    if not isinstance(slots, dict) or slot_key is None:
        return _nothing
    slot: Any = slots.get(slot_key(request))
    queue = getattr(slot, "queue", None)
    if type(queue) is not deque or not queue:
        return _nothing  # nothing waits there: it goes first anyway
    armed = _FirstIn(queue, slot, request)
    slot.queue = armed

    def disarm() -> None:
        if slot.queue is armed:
            slot.queue = deque(armed)

    return disarm


def _nothing() -> None:
    return None


def scrapys_slot_key(downloader: Any, request: Request) -> str | None:
    """The download slot Scrapy's downloader gives ``request`` when it names none
    (``Downloader.get_slot_key`` without the ``download_slot`` meta: the URL's hostname,
    or its IP address with ``CONCURRENT_REQUESTS_PER_IP``; the same in every supported
    release). The downloader writes that key in the meta of every request it queues, so
    a request that was in the downloader once (held or handed back at its send, retried)
    names it as if the project had; ``None`` when the downloader has no such method."""
    slot_key = getattr(downloader, "get_slot_key", None)
    if slot_key is None:
        return None
    meta = request.meta
    named = meta.pop("download_slot", None)
    try:
        return str(slot_key(request))
    finally:
        if named is not None:
            meta["download_slot"] = named


def after_each_scrape(engine: Any, done: Callable[[Any, Any], None]) -> bool:
    """Have ``done(result, request)`` called once the spider's whole output for a
    downloaded response (or a download's failure: the engine hands the scraper both, and
    the request it scheduled) is through: its callback's or errback's, every spider
    middleware's and ``process_spider_exception``'s, and the item pipelines'
    (``Scraper.slot.finish_response``, which Scrapy calls then); whether it could."""
    slot: Any = getattr(getattr(engine, "scraper", None), "slot", None)
    finish = getattr(slot, "finish_response", None)
    if finish is None:
        return False

    def finish_response(result: Any, request: Any) -> None:
        try:
            done(result, request)
        finally:
            finish(result, request)

    slot.finish_response = finish_response
    return True


#: The module and functions of Scrapy's loop over the downloader middlewares'
#: ``process_response`` methods: ``DownloaderMiddlewareManager._process_response``
#: (Scrapy 2.14+), the ``process_response`` that ``download`` nests before (2.13), or
#: ``download_async`` nests (2.15).
_RESPONSE_LOOP: Final = (
    "scrapy.core.downloader.middleware",
    ("_process_response", "process_response"),
)


def dropped_response(failure: Any, request: Request | None = None) -> Response | None:
    """The response a downloader middleware's ``process_response`` was handed when it
    raised the exception of ``failure`` (a Twisted ``Failure``; ``IgnoreRequest`` to drop
    it, or any other): the ``response`` of Scrapy's loop over those methods, on the
    exception's traceback (Scrapy tells no middleware and sends no signal of it); given
    the failed ``request``, the loop's over that request only (a middleware that awaited
    a download of its own while handling it puts that download's loop deeper on the same
    traceback, with another response). ``None`` when the exception came from elsewhere
    (the download, a ``process_request`` or ``process_exception``) or its traceback is
    gone (``Failure.cleanFailure``): always on Scrapy 2.13, whose loop is an
    ``inlineCallbacks`` generator whose failure Twisted cleans as it is made
    (pytest-twisted keeps every traceback: the suite finds it there); found on 2.15 and
    2.19, an HTTP cache's response too."""
    traceback = getattr(failure, "tb", None) or getattr(
        getattr(failure, "value", None), "__traceback__", None
    )
    module, names = _RESPONSE_LOOP
    found = None
    while traceback is not None:
        frame = traceback.tb_frame
        if frame.f_code.co_name in names and frame.f_globals.get("__name__") == module:
            local = frame.f_locals
            response = local.get("response")
            if isinstance(response, Response) and (
                request is None or local.get("request", request) is request
            ):
                found = response
        traceback = traceback.tb_next
    return found


def watch_downloads(
    engine: Any,
    watcher: Callable[[Any], Callable[[Any], None] | None],
    failed: Callable[[Any, Any], None] | None = None,
) -> bool:
    """Have ``watcher(request)`` called as a component (a spider's callback, an item
    pipeline, a downloader middleware) asks the engine to download ``request`` itself
    (``engine.download_async``, Scrapy 2.14; ``engine.download`` before, and the
    deprecated one after, which calls it), in the caller's context, when it asks; what it
    answers, if anything, is called with the response before the caller gets it. Given
    ``failed``, ``failed(request, failure)`` is called when the download raises instead
    (or its caller cancels it: the engine drops it), before the caller gets the
    exception (``failure``: a Twisted ``Failure`` of it, its traceback kept, which
    :func:`dropped_response` reads): such a download never reaches
    the scraper (:func:`after_each_scrape`), so nothing else tells of a response a
    downloader middleware dropped. ``request`` is the one that failed: on Scrapy 2.13 the
    engine downloads the request a downloader middleware returned (a redirect's) through
    the same attribute; from 2.14 ``download_async`` loops over it, and the engine's
    frame on the exception's traceback names it. What ``failed`` raises is logged, never
    raised in the download's place. Whether it could (the engine's own attribute
    replaced, the only way in: Scrapy calls no component for these)."""
    name = "download_async" if ASYNC_ENGINE else "download"
    original = getattr(engine, name, None)
    if original is None:
        return False
    watched = _WatchedDownloads(original, watcher, failed)
    setattr(engine, name, watched.download_async if ASYNC_ENGINE else watched.download)
    return True


class _WatchedDownloads:
    """The engine's own method of downloading a request for a component, watched
    (:func:`watch_downloads`): ``original``, ``watcher`` and ``failed`` as it says."""

    __slots__ = ("failed", "original", "watcher")

    def __init__(
        self,
        original: Callable[[Any], Any],
        watcher: Callable[[Any], Callable[[Any], None] | None],
        failed: Callable[[Any, Any], None] | None,
    ) -> None:
        self.original = original
        self.watcher = watcher
        self.failed = failed

    def download_async(self, request: Any) -> Any:
        """``engine.download_async`` (Scrapy 2.14+): a coroutine."""
        then = self.watcher(request)
        if then is None and self.failed is None:
            return self.original(request)
        return self._answered(self.original(request), request, then)

    async def _answered(
        self, response: Any, request: Any, then: Callable[[Any], None] | None
    ) -> Any:
        try:
            answer = await response
        except (Exception, asyncio.CancelledError) as error:  # the caller gave up on it too
            self._told(request, error)
            raise
        if then is not None:
            then(answer)
        return answer

    def download(self, request: Any) -> Any:
        """``engine.download`` (Scrapy 2.13): a Deferred, which the engine calls again for
        the request a downloader middleware returned."""
        then = self.watcher(request)
        deferred = self.original(request)
        if then is not None:

            def came(answer: Any) -> Any:
                then(answer)
                return answer

            deferred.addCallback(came)
        if self.failed is not None:

            def went(failure: Any) -> Any:
                self._told(request, failure)
                return failure

            deferred.addErrback(went)
        return deferred

    def _told(self, request: Any, error: Any) -> None:
        """``failed`` told of the download's exception (``error``, or its ``Failure``);
        what that raises is logged: the caller gets the download's own exception."""
        try:
            if self.failed is None:
                return
            if isinstance(error, Failure):
                self.failed(request, error)
            else:
                failure = Failure(error)  # type: ignore[no-untyped-call]
                self.failed(_looped_request(error, request), failure)
        except Exception:
            logging.getLogger(__name__).exception(
                "scrapy_rep internal error on the failed download of %s", request
            )


#: The module and function of the engine's loop over the requests that the downloader
#: middlewares return for a request downloaded with ``download_async`` (a redirect's):
#: ``ExecutionEngine.download_async`` (Scrapy 2.14+), whose ``request`` is the one it
#: downloads last.
_DOWNLOAD_LOOP: Final = ("scrapy.core.engine", "download_async")


def _looped_request(error: BaseException, request: Any) -> Any:
    """The request whose download raised ``error`` when ``engine.download_async`` was
    asked for ``request``: the ``request`` of the engine's outermost loop on the
    exception's traceback (a downloader middleware may have returned another, which the
    engine downloads in its place), else ``request``."""
    module, name = _DOWNLOAD_LOOP
    traceback = error.__traceback__
    while traceback is not None:
        frame = traceback.tb_frame
        if frame.f_code.co_name == name and frame.f_globals.get("__name__") == module:
            looped = frame.f_locals.get("request")
            return looped if isinstance(looped, Request) else request
        traceback = traceback.tb_next
    return request


def spider_middlewares(engine: Any) -> tuple[Any, ...] | None:
    """The spider middlewares, from the engine's side (``engine.scraper.spidermw
    .middlewares``), or ``None``."""
    manager = getattr(getattr(engine, "scraper", None), "spidermw", None)
    middlewares = getattr(manager, "middlewares", None)
    return tuple(middlewares) if middlewares is not None else None
