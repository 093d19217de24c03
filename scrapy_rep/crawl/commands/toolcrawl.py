"""The command-line tools are a crawl (docs/decisions.md, 'The tools are a crawl'):
``scrapy rep-robots`` and ``python -m scrapy_rep check`` run a small Scrapy crawl with the
add-on and the crawl's own middlewares (decompression and its limits, redirects decided by
robots.txt, header handling, the page pass), and print what it decided, so that they cannot
read a site differently. :class:`ToolSpider` requests each URL once (every status but a
redirect goes to its callback, as with ``scrapy fetch``) and yields one item per page,
which the page pass keeps or drops;
nothing is written (no feed, pipeline, audit trail, report, ``JOBDIR`` or shared store),
the scheduler is Scrapy's own; :class:`~scrapy_rep.crawl.commands.toolrun.ToolRun` reads
the URL ledger's settled entries, :mod:`~scrapy_rep.crawl.commands.toolprint` prints them.
An unreachable document is given up on at once, by the crawl's give-up rule
(:func:`unreachable_waits`): exit 3, as what they show is for now.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Final, TextIO

from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.settings import Settings
from scrapy.settings import default_settings as scrapy_defaults
from scrapy.utils.datatypes import SequenceExclude

from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from scrapy_rep import signals as rep_signals
from scrapy_rep.checker.exits import EXIT_USAGE
from scrapy_rep.checker.report import ToolRequest
from scrapy_rep.crawl.addon import DOWNLOADER_PRIORITY, with_ledger
from scrapy_rep.crawl.auditing import read_urls
from scrapy_rep.crawl.commands.toolprint import Printer
from scrapy_rep.crawl.commands.toolrun import Asked, ToolRun
from scrapy_rep.crawl.internals import crawler_process, error_line, on_start_failure
from scrapy_rep.crawl.media.pipelines import MediaGate
from scrapy_rep.crawl.page.pagestate import PageState
from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS
from scrapy_rep.crawl.requeststate import fetch_state_of

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler
    from twisted.python.failure import Failure

#: ``request.meta``: the index of the URL a tool asked about (it survives redirects).
ASKED: Final = "scrapy_rep_tools_url"
#: Above every priority Scrapy names (``cmdline`` is 40): what the tools' crawl must be.
TOOL_PRIORITY: Final = 50
#: The wait a tool's crawl holds an unreachable document for, when the give-up rule tells
#: a host that cannot be connected to from every other failure (:func:`unreachable_waits`).
SHORT_WAIT: Final = 0.001


class NotFetched(IgnoreRequest):
    """An allowed request whose page the tool does not fetch."""


class StopAfterVerdict:
    """Right after the robots.txt middleware, without pages (``check`` without ``--page``):
    a tool's request has its verdict, its page is not fetched (documents only)."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StopAfterVerdict:
        return cls()

    def process_request(self, request: Request, spider: Any = None) -> None:
        if ASKED in request.meta:
            raise NotFetched("allowed; the page is not fetched")


class LocalRobotsTxt:
    """First of the downloader middlewares: every robots.txt request is answered with the tool's
    local file (``--robots-file``; the crawl's own parse, 500 KiB cut and decision follow)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LocalRobotsTxt:
        return cls(crawler)

    def process_request(self, request: Request, spider: Any = None) -> Response | None:
        state = fetch_state_of(request)
        served = {ROBOTS_TXT.name: getattr(self.crawler.spider, "robots_body", b"")}
        body = served.get(state.kind) if state is not None else None
        if body is None:  # a page, or another kind's document: fetched as the crawl does
            return None
        headers = {"Content-Type": "text/plain"}
        return TextResponse(request.url, body=body, headers=headers, request=request)


class ToolSpider(Spider):
    """Requests each URL a tool asks about, once."""

    name = "scrapy_rep-tools"
    #: What a local robots.txt file holds (:class:`LocalRobotsTxt`).
    robots_body: bytes = b""

    def __init__(self, run: ToolRun, robots_body: bytes = b"", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.robots_body = robots_body
        self._gate: MediaGate | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> ToolSpider:
        spider: ToolSpider = super().from_crawler(crawler, *args, **kwargs)
        run = spider.run
        connect = crawler.signals.connect
        connect(run.robots_fetched, signal=rep_signals.robotstxt_fetched)
        connect(run.document_fetched, signal=rep_signals.document_fetched)
        read_urls(crawler, run)  # each request's verdict and fate: the URL ledger's
        return spider

    async def start(self) -> AsyncIterator[Any]:
        if OWNERS.get(self.crawler) is None:  # nothing obeyed: no request is decided
            self.run.unchecked = True
        for index, asked in enumerate(self.run.asked):
            request = Request(
                asked.url,
                callback=self.parse,
                errback=self.failed,
                dont_filter=True,
                meta={ASKED: index, "handle_httpstatus_list": SequenceExclude(range(300, 400))},
            )
            self.run.expect(request.url, index)
            yield request

    def parse(self, response: Response) -> Any:
        index = response.meta[ASKED]
        asked = self.run.asked[index]
        asked.response = response
        pages = PageState.of(self.crawler)
        verdict = pages.decided(response).verdict if pages.mark else None
        if verdict is not None:  # its items kept and marked for the purpose it refused
            asked.marked = verdict.purpose
        if not isinstance(response, HtmlResponse) and response.body and response.request:
            if self._gate is None:
                self._gate = MediaGate(self.crawler)
            gate = self._gate
            if gate.enabled:  # as FilesPipeline / ImagesPipeline hold a file (docs/media.md)
                asked.file = gate.check(response, response.request, None)
        yield {ASKED: index}

    def failed(self, failure: Failure) -> None:
        request = getattr(failure, "request", None)
        index = None if request is None else request.meta.get(ASKED)
        if index is None or isinstance(failure.value, NotFetched | None):
            return
        # (a refusal's IgnoreRequest too: its verdict was told, and says more)
        self.run.asked[index].failure = error_line(failure.value)


def unreachable_waits(config: RepConfig) -> dict[str, float]:
    """The ``REP_UNREACHABLE_*`` waits under which the crawl gives up on an unreachable document
    at once with the verdict it gives after its own waits: the give-up rule lets requests
    through under ``"allow"`` after the long wait only, so a shorter connect wait stays shorter
    (:meth:`~rep_engine.fetch.rules.Policy.allows_after_giving_up`), and every other failure is
    tried once more after :data:`SHORT_WAIT`."""
    waits = {"REP_UNREACHABLE_MAX_WAIT": 0.0, "REP_UNREACHABLE_CONNECT_MAX_WAIT": 0.0}
    shorter = config.unreachable_connect_max_wait < config.unreachable_max_wait
    if config.unreachable_action == "allow" and shorter:
        waits["REP_UNREACHABLE_MAX_WAIT"] = SHORT_WAIT
        waits["REP_UNREACHABLE_RETRY_DELAY"] = SHORT_WAIT
    return waits


def tool_settings(settings: Settings, request: ToolRequest) -> dict[str, Any]:
    """What a tool's crawl must be whatever the project says: the add-on on, nothing written
    or shared, no spider closed early, the tool's timeout, the unreachable waits at once; a local
    robots.txt (``check FILE … --page``, ``--robots-file``) served by :class:`LocalRobotsTxt`."""
    config = RepConfig.from_settings(settings)
    middlewares = settings.getdict("DOWNLOADER_MIDDLEWARES")
    if not request.pages:
        middlewares[_path(StopAfterVerdict)] = DOWNLOADER_PRIORITY + 1
    if request.local is not None:
        middlewares[_path(LocalRobotsTxt)] = 1
    # what it prints is the URL ledger's: on, whatever the project switched off
    middlewares, extensions = with_ledger(middlewares, settings.getdict("EXTENSIONS"))
    return {
        "ADDONS": {**settings.getdict("ADDONS"), "scrapy_rep.Addon": 0},
        "DOWNLOADER_MIDDLEWARES": middlewares,
        "EXTENSIONS": extensions,
        "ITEM_PIPELINES": {},
        "FEEDS": {},
        "JOBDIR": None,
        "SCHEDULER": scrapy_defaults.SCHEDULER,
        "DUPEFILTER_CLASS": scrapy_defaults.DUPEFILTER_CLASS,
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,  # Scrapy 2.19's control server: none for a tool
        **{name: 0 for name in settings if name.startswith("CLOSESPIDER_")},
        "REP_AUDIT_FILE": "",
        "REP_REPORT": False,
        "REP_REPORT_FILE": "",
        "REP_LEDGER": True,  # what it prints: each request's ledger entry
        "REP_ROBOTSTXT_CACHE": "memory",
        "REP_ROBOTSTXT_TIMEOUT": request.timeout,
        "DOWNLOAD_TIMEOUT": request.timeout,
        **unreachable_waits(config),
    }


def _path(component: type) -> str:
    return f"{component.__module__}.{component.__qualname__}"


def tools_settings(request: ToolRequest, base: Settings | None = None) -> Settings:
    """The settings of the tools' crawl on ``request``: ``base`` (else Scrapy's defaults without
    a log), then the tool's options and :func:`tool_settings`. Raises :class:`RepSettingError`."""
    # without a project, no log: what the crawl decided is printed
    settings = base.copy() if base is not None else Settings({"LOG_ENABLED": False})
    settings.setdict(dict(request.settings), priority=TOOL_PRIORITY)
    settings.setdict(tool_settings(settings, request), priority=TOOL_PRIORITY)
    RepConfig.from_settings(settings)
    return settings


def crawl_tools(runner: Any, request: ToolRequest) -> tuple[ToolRun, Any]:
    """Start the tools' crawl on ``request`` with ``runner`` (a ``CrawlerRunner``, a
    ``CrawlerProcess`` or, without a reactor, an ``AsyncCrawlerProcess``, of
    :func:`tools_settings`): what it will have told, and what its ``crawl()`` answered (a
    Deferred, or an asyncio task; :attr:`ToolRun.error`: not started)."""
    run = ToolRun([Asked(url) for url in request.urls])
    body = request.local.body if request.local is not None else b""
    started = runner.crawl(ToolSpider, run=run, robots_body=body)
    on_start_failure(started, run.not_started)
    return run, started


def print_tools(request: ToolRequest, settings: Settings, run: ToolRun, out: TextIO) -> int:
    """Print what the tools' crawl decided (or why it did not start); the exit status."""
    if run.error:
        return usage_error(run.error)
    return Printer(request, settings, RepConfig.from_settings(settings), out).run(run)


def usage_error(error: object) -> int:
    """Say ``error`` on standard error; the usage exit status."""
    print(f"scrapy_rep: error: {error}", file=sys.stderr)
    return EXIT_USAGE


async def tools_in_reactor(request: ToolRequest, out: TextIO, base: Settings | None = None) -> int:
    """:func:`run_tools` under the reactor that is running already (a ``CrawlerRunner``
    instead of the ``CrawlerProcess`` that starts and stops one): the tools' whole body
    (settings, crawl, output, exit status) in the caller's process."""
    from scrapy.crawler import CrawlerRunner

    try:
        settings = tools_settings(request, base)
    except RepSettingError as error:
        return usage_error(error)
    run, started = crawl_tools(CrawlerRunner(settings), request)
    await started
    return print_tools(request, settings, run, out)


def run_tools(request: ToolRequest, out: TextIO, base: Settings | None = None) -> int:
    """Run the tools' crawl on ``request`` in a ``CrawlerProcess`` and print what it decided;
    the exit status. ``base``: the project's settings (``scrapy rep-robots``)."""
    try:
        settings = tools_settings(request, base)
        # the add-on checks the settings as it builds one (Scrapy 2.15+ without a reactor: a
        # crawl that cannot download)
        process = crawler_process(settings)
    except RepSettingError as error:
        return usage_error(error)
    run, _ = crawl_tools(process, request)
    process.start()
    return print_tools(request, settings, run, out)
