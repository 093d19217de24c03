"""Scripted local sites for real crawls: several twisted.web origins on 127.0.0.1.

Importing this module installs no reactor (the reactor is imported where it is used): a
crawl without one (tests/support/loopcrawl.py) runs its spiders.

Each origin (one port) answers from a script: per path, a list of replies consumed in
order (the last one repeats). Every request is written to a shared access log, so tests
can assert exactly what reached the servers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, ClassVar

from scrapy import Request, Spider
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler
from twisted.internet.task import deferLater
from twisted.python.failure import Failure
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Site
from twisted.web.server import Request as WebRequest

from scrapy_rep.crawl.internals import ASYNC_ENGINE, SCRAPY
from tests.support.documents import rsl_license


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    #: Never answer (the client times out).
    hang: bool = False
    #: Drop the connection without an answer (a reset).
    reset: bool = False
    #: Answer only after this many seconds.
    delay: float = 0.0


def robots(text: str, **headers: str) -> Reply:
    return Reply(200, text.encode(), {"Content-Type": "text/plain", **headers})


def redirect(location: str, status: int = 301) -> Reply:
    return Reply(status, b"", {"Location": location})


#: The headers of an HTML page.
HTML = {"Content-Type": "text/html"}


def html_page(head: str = "", **headers: str) -> Reply:
    """An HTML page whose ``<head>`` holds ``head`` (a meta tag, a link), with ``headers``."""
    return Reply(
        200, f"<html><head>{head}</head><body>p</body></html>".encode(), {**HTML, **headers}
    )


def links_page(*links: str) -> Reply:
    """An HTML page that links to each of ``links``."""
    anchors = "".join(f'<a href="{link}">{link}</a>' for link in links)
    return Reply(200, f"<html><body>{anchors}</body></html>".encode(), HTML)


class ScriptedOrigin(Resource):
    isLeaf = True

    def __init__(self, name: str, log: list[tuple[str, str]]) -> None:
        super().__init__()
        self.name = name
        self.log = log
        self.routes: dict[str, list[Reply]] = {}
        self.hanging: list[WebRequest] = []
        #: When each request arrived, by path (``time.monotonic()``).
        self.times: dict[str, list[float]] = {}
        #: Each request as it arrived: its method, request target and header lines.
        self.received: list[tuple[str, str, list[tuple[str, str]]]] = []

    def script(self, path: str, *replies: Reply) -> None:
        self.routes[path] = list(replies)

    def answer_hanging(self, reply: Reply | None = None) -> None:
        """Answer every request still hanging with ``reply`` (``None``: a 404 without a
        body): a test that saw what it waited for ends its crawl now instead of after its
        downloads' timeout, or answers only once the others have arrived."""
        reply = reply or Reply(404)
        for request in self.hanging:
            if not request.finished and not request._disconnected:
                request.setResponseCode(reply.status)
                for name, value in reply.headers.items():
                    request.setHeader(name, value)
                if reply.body:
                    request.write(reply.body)
                request.finish()

    def render_GET(self, request: WebRequest) -> bytes | int:
        path = request.uri.decode()
        self.log.append((self.name, path))
        self.times.setdefault(path, []).append(time.monotonic())
        lines = request.requestHeaders.getAllRawHeaders()
        heard = [
            (name.decode(), value.decode("latin-1")) for name, values in lines for value in values
        ]
        self.received.append((request.method.decode(), path, heard))
        script = self.routes.get(path)
        if script is None:
            request.setHeader("Content-Type", "text/html")
            return f"<html><body>page {path}</body></html>".encode()
        reply = script[0] if len(script) == 1 else script.pop(0)
        if reply.hang:
            self.hanging.append(request)
            return NOT_DONE_YET
        if reply.reset:
            request.channel.transport.abortConnection()  # type: ignore[union-attr]
            return NOT_DONE_YET
        request.setResponseCode(reply.status)
        for name, value in reply.headers.items():
            request.setHeader(name, value)
        if reply.delay:
            from twisted.internet import reactor

            self.hanging.append(request)
            reactor.callLater(reply.delay, _finish, request, reply.body)  # type: ignore[attr-defined]
            return NOT_DONE_YET
        return reply.body


def _finish(request: WebRequest, body: bytes) -> None:
    if not request.finished and not request._disconnected:
        request.write(body)
        request.finish()


class HeaderPages(Resource):
    """A site of HTML pages by path, each with its own response headers: ``pages`` maps a
    path to ``(headers, body)`` (a body without a ``Content-Type`` header is wrapped in an
    HTML page titled by its path); other paths are 404. ``requested``: every path asked."""

    isLeaf = True

    def __init__(self, pages: dict[str, tuple[dict[str, str], str]]) -> None:
        super().__init__()
        self.pages = pages
        self.requested: list[str] = []

    def render_GET(self, request: WebRequest) -> bytes:
        path = request.path.decode()
        self.requested.append(path)
        if path not in self.pages:
            request.setResponseCode(404)
            return b""
        headers, body = self.pages[path]
        request.setHeader("Content-Type", headers.get("Content-Type", "text/html"))
        for name, value in headers.items():
            request.setHeader(name, value)
        if headers.get("Content-Type", "text/html") == "text/html":
            return f"<html><head><title>{path}</title></head><body>{body}</body></html>".encode()
        return body.encode()


class Sites:
    """Origins listening on free 127.0.0.1 ports; ``await sites.close()`` at the end."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []
        self.origins: dict[str, ScriptedOrigin] = {}
        self.bases: dict[str, str] = {}
        self._ports: list[Any] = []

    def add(self, name: str) -> ScriptedOrigin:
        from twisted.internet import reactor

        origin = ScriptedOrigin(name, self.log)
        port = reactor.listenTCP(0, Site(origin), interface="127.0.0.1")  # type: ignore[attr-defined]
        self._ports.append(port)
        self.origins[name] = origin
        self.bases[name] = f"http://127.0.0.1:{port.getHost().port}"
        return origin

    def url(self, name: str, path: str) -> str:
        return self.bases[name] + path

    def requested(self, name: str) -> list[str]:
        return [path for origin, path in self.log if origin == name]

    async def close(self) -> None:
        for origin in self.origins.values():
            origin.answer_hanging(Reply(200))
        for port in self._ports:
            await port.stopListening()


class ListSpider(Spider):
    """Requests a fixed list of URLs; records what was downloaded and what was dropped."""

    name = "list"

    def __init__(self, urls: Sequence[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = list(urls)
        self.downloaded: list[str] = []
        self.dropped: dict[str, str] = {}

    async def start(self) -> Any:
        for url in self.urls:
            yield Request(url, callback=self.parse, errback=self.failed)

    def parse(self, response: Any) -> None:
        self.downloaded.append(response.url)

    def failed(self, failure: Failure) -> None:
        self.dropped[failure.request.url] = str(failure.value)  # type: ignore[attr-defined]


class ItemSpider(ListSpider):
    """ListSpider that yields one item per page, ``{"url": ...}``."""

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {"url": response.url}


class BothSpider(ListSpider):
    """One item with files for FilesPipeline and images for ImagesPipeline."""

    file_urls: ClassVar[list[str]] = []
    image_urls: ClassVar[list[str]] = []

    def parse(self, response: Any) -> Any:
        yield {"file_urls": list(self.file_urls), "image_urls": list(self.image_urls)}


#: Settings for test crawls: the add-on, short waits, no noise.
BASE_SETTINGS: dict[str, Any] = {
    "ADDONS": {"scrapy_rep.Addon": 0},
    "USER_AGENT": "TestBot/1.0 (+https://example.com/bot)",
    "REP_UNREACHABLE_RETRY_DELAY": 0.2,
    "REP_UNREACHABLE_MAX_WAIT": 3.0,
    "DOWNLOAD_TIMEOUT": 3,
    "RETRY_ENABLED": False,
    "LOG_LEVEL": "DEBUG",
    "TELNETCONSOLE_ENABLED": False,
}


class TimedHandler(HTTP11DownloadHandler):
    """Scrapy's HTTP handler, noting when the download slot released each request.

    That moment (the slot's ``lastseen``) is where Scrapy measures a slot's delay from,
    so it is what the delay a crawl keeps is read from. Arrival times at the servers are
    not: they share the crawl's reactor, so a busy reactor can deliver one request late
    and make the gap to the next one look shorter than the delay kept. Neither is the
    moment this handler is called: the downloader starts each download as a task, and a
    busy loop can start one late (CI once saw a 1.0 s delay as a 0.83 s gap)."""

    #: URL -> when (``time.monotonic()``) its download slot released each request for it.
    sent: ClassVar[dict[str, list[float]]] = {}

    def __init__(self, *args: Any) -> None:
        # (crawler) since Scrapy 2.14; (settings, crawler) before.
        super().__init__(*args)
        self._timed_crawler: Crawler = args[-1]
        self.sent.clear()  # one crawl at a time: its own times only

    def _note(self, request: Request, where: str = "transferring") -> None:
        engine = self._timed_crawler.engine
        assert engine is not None
        slots = [s for s in engine.downloader.slots.values() if request in getattr(s, where)]
        assert len(slots) == 1, f"no single download slot is transferring {request}"
        self.sent.setdefault(request.url, []).append(slots[0].lastseen)

    if ASYNC_ENGINE:  # Scrapy 2.14: a coroutine, without the spider

        async def download_request(self, request: Request) -> Response:
            self._note(request)
            return await super().download_request(request)

    else:  # Scrapy 2.13: a Deferred

        def download_request(self, request: Request, spider: Spider) -> Any:  # type: ignore[override]
            self._note(request, "active")  # "transferring" only once this returns
            return super().download_request(request, spider)  # type: ignore[call-arg]


#: Settings that make a crawl record its send times in :attr:`TimedHandler.sent`.
TIMED = {"DOWNLOAD_HANDLERS": {"http": "tests.support.robotsite.TimedHandler"}}


def page_gaps(base: str) -> list[float]:
    """The gaps between consecutive page requests the crawl sent to the origin at ``base``
    (robots.txt left out), from :attr:`TimedHandler.sent`."""
    sent = sorted(
        t
        for url, times in TimedHandler.sent.items()
        if url.startswith(base) and not url.endswith("/robots.txt")
        for t in times
    )
    return [later - earlier for earlier, later in pairwise(sent)]


@dataclass
class Recorder:
    """An ``on_crawler`` for :func:`crawl` that records what the crawl scraped and
    signalled, in either mode: every item into ``items``, and for each signal named by its
    import path in ``signals`` (``"scrapy_rep.signals.file_refused"``), the keyword
    arguments of each sending."""

    items: list[Any] = field(default_factory=list)
    signals: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __call__(self, crawler: Crawler) -> None:
        from scrapy import signals
        from scrapy.utils.misc import load_object

        crawler.signals.connect(
            lambda item, **_: self.items.append(item), signal=signals.item_scraped, weak=False
        )
        for path, events in self.signals.items():
            crawler.signals.connect(
                lambda events=events, **kw: events.append(kw),
                signal=load_object(path),
                weak=False,
            )


def collecting_items(items: list[Any]) -> Recorder:
    """An ``on_crawler`` for :func:`crawl` that appends every scraped item to ``items``."""
    return Recorder(items)


class CrawlMode:
    """How :func:`crawl` runs its crawl: on the test's reactor, or (``reactorless``, set
    by the ``both_modes`` fixture of tests/integration/conftest.py) without a reactor
    (``TWISTED_REACTOR_ENABLED = False``), on an asyncio loop in a thread of the test's
    process (tests/support/loopcrawl.py)."""

    reactorless = False


async def crawl(
    urls: Sequence[str],
    settings: dict[str, Any] | None = None,
    spider: type[Spider] = ListSpider,
    on_crawler: Callable[[Crawler], None] | None = None,
) -> tuple[Crawler, Any]:
    """Run ``spider`` over ``urls`` to the end; return the crawler and the spider.

    ``on_crawler`` is called with the crawler before it starts (to connect signals)."""
    if CrawlMode.reactorless:
        from tests.support.loopcrawl import crawl_without_reactor

        done = await crawl_without_reactor(list(urls), settings or {}, spider, on_crawler)
        errors = [line for line in done.log if line.startswith(("ERROR", "CRITICAL"))]
        assert done.crawler.stats.get_value("log_count/ERROR") is None, (
            "the crawl logged an error:\n" + "\n".join(errors[:10])
        )
        return done.crawler, done.spider
    crawler = get_crawler(spider, {**BASE_SETTINGS, **(settings or {})})
    if on_crawler is not None:
        on_crawler(crawler)
    await crawler.crawl(urls=urls)
    assert crawler.stats is not None
    assert crawler.stats.get_value("log_count/ERROR") is None, "the crawl logged an error"
    return crawler, crawler.spider


def command_crawler(
    settings: dict[str, Any],
    base: dict[str, Any] | Settings | None = None,
    spider: type[Spider] = ListSpider,
) -> Crawler:
    """A crawler of ``spider`` (:class:`ListSpider`'s kind), not started, with
    ``settings`` given as ``-s`` and ``-o`` give them (at the ``cmdline`` priority) over
    ``base``: the project's settings
    (:data:`BASE_SETTINGS` by default; a project's own as Scrapy read them:
    :func:`tests.support.scrapyproject.project_settings`)."""
    from scrapy.crawler import CrawlerRunner
    from scrapy.utils.test import get_reactor_settings

    if isinstance(base, Settings):
        project = base.copy()
        project.setdict(get_reactor_settings(), priority="project")
    else:
        project = Settings({**get_reactor_settings(), **(BASE_SETTINGS if base is None else base)})
    project.setdict(settings, priority="cmdline")
    return CrawlerRunner(project).create_crawler(spider)


async def refused_at_start(
    settings: dict[str, Any],
    base: dict[str, Any] | Settings | None = None,
    urls: Sequence[str] = ("http://127.0.0.1:9/",),
    spider: type[Spider] = ListSpider,
) -> str:
    """The line ``scrapy`` would print for the crawl of :func:`command_crawler` stopped at
    its start by a wrong setting: the crawl, run in this process, raises
    :class:`~rep_engine.settings.readers.RepSettingError` (never another exception) before its
    spider opens, and the line is the error as
    :func:`~scrapy_rep.crawl.startup.stop_at_start` prints it under the ``scrapy``
    command (which then exits 2: the one process of
    tests/integration/test_setting_names.py)."""
    from scrapy import signals

    from rep_engine.settings.readers import RepSettingError

    opened: list[Spider] = []
    try:
        crawler = command_crawler(settings, base, spider)
        crawler.signals.connect(
            lambda spider: opened.append(spider), signal=signals.spider_opened, weak=False
        )
        await crawler.crawl(urls=list(urls))
    except RepSettingError as error:
        assert not opened, "the spider opened before the setting stopped the crawl"
        return f"scrapy_rep: error: {error}"
    except AttributeError as error:
        # Scrapy 2.13: an error raised while the engine builds its downloader (a
        # downloader middleware's) is followed by ExecutionEngine.close's own
        # AttributeError (no downloader yet), the error as its context; under the
        # ``scrapy`` command, stop_at_start ends the process before that.
        setting_error = error.__context__
        if SCRAPY >= (2, 14) or not isinstance(setting_error, RepSettingError):
            raise
        assert not opened, "the spider opened before the setting stopped the crawl"
        return f"scrapy_rep: error: {setting_error}"
    raise AssertionError(f"the crawl was not stopped at its start (settings {settings})")


def stat(crawler: Crawler, key: str) -> Any:
    """The crawl's stat ``key`` (``None`` when it was never counted)."""
    assert crawler.stats is not None
    return crawler.stats.get_value(key)


#: The headers of an RSL license document.
RSL_XML = {"Content-Type": "application/rsl+xml"}


def rsl_reply(body: str, content: str = '<content url="/">') -> Reply:
    """An RSL license document (tests/support/documents.py's ``rsl_license``) served."""
    return Reply(200, rsl_license(body, content), RSL_XML)


async def until(condition: Callable[[], Any], seconds: float = 10.0) -> None:
    """Wait (in the reactor) until ``condition()`` is true; fail after ``seconds``."""
    from twisted.internet import reactor

    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await deferLater(reactor, 0.01)
    raise AssertionError(f"never happened within {seconds} s")


def robots_middleware(crawler: Crawler) -> Any:
    """scrapy_rep's downloader middleware as the crawl's downloader holds it."""
    from scrapy_rep import RobotsTxtMiddleware

    assert crawler.engine is not None
    for middleware in crawler.engine.downloader.middleware.middlewares:
        if isinstance(middleware, RobotsTxtMiddleware):
            return middleware
    raise AssertionError("scrapy_rep's middleware is not enabled")


def paths_of(sites: Sites, urls: Iterable[str], name: str = "a") -> set[str]:
    """The paths of the ``urls`` on origin ``name``."""
    base = sites.bases[name]
    return {url[len(base) :] for url in urls if url.startswith(base)}


async def paused_once_queued(settings: dict[str, Any], urls: list[str], queue: str) -> None:
    """A crawl of ``urls`` with ``settings`` (a ``JOBDIR``) paused as it opens, so that it
    sends nothing, and stopped once its start requests are queued in ``queue`` (``disk``:
    Scrapy's own, ``redis``: scrapy-redis's shared one; at most 30 s): every one of them
    open at the pause."""
    from scrapy import signals
    from twisted.internet import reactor

    from tests.support.scrapyversions import stop

    first = get_crawler(ListSpider, settings)

    def pause(**_: Any) -> None:
        assert first.engine is not None
        first.engine.pause()

    first.signals.connect(pause, signal=signals.spider_opened, weak=False)
    running = first.crawl(urls=urls)
    assert first.stats is not None
    for _ in range(600):
        await deferLater(reactor, 0.05)  # type: ignore[arg-type]
        if first.stats.get_value(f"scheduler/enqueued/{queue}") == len(urls):
            break
    await stop(first)
    await running
