"""The command-line tools are a crawl (docs/decisions.md, 'The tools are a crawl'):
``scrapy rep-robots`` and ``python -m scrapy_rep check`` run a small Scrapy crawl with the
add-on and the crawl's own middlewares (decompression and its limits, redirects decided by
robots.txt, header handling, the page pass), and print what it decided, so that they cannot
read a site differently. :class:`ToolSpider` requests each URL once (every status but a
redirect goes to its callback, as with ``scrapy fetch``) and yields one item per page,
which the page pass keeps or drops;
nothing is written (no feed, pipeline, audit trail, report, ``JOBDIR`` or shared store),
the scheduler is Scrapy's own. An unreachable document is given up on at once, by the
crawl's give-up rule (:func:`unreachable_waits`): exit 3, as what they show is for now.

What the crawl told of each URL a tool asked about (:class:`ToolRun`) is read as the
crawl's URL ledger settled it: each request's entry, read as it is (the verdict it was
decided with, its fate, a fetched page's output), a redirect's next request an entry of
its own; the documents' outcomes come with ``robotstxt_fetched`` and ``document_fetched``.
What a tool prints of it (:class:`Printer`; docs/cli.md): a block per robots.txt, a line
per URL and, for a page fetched, what it says and what the crawl does with it; the exit
status, the worst of its URLs'. For ``scrapy rep-robots --page``, what a page says to
other crawlers (:func:`describe_sources`): the robots headers and meta tags present that
did not apply to ours (another crawler's scope), shown instead of "no robots meta tag or
header" (Google's robots meta specification: crawler-scoped ``X-Robots-Tag`` values and
``<meta name="googlebot">``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TextIO

from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.settings import Settings
from scrapy.settings import default_settings as scrapy_defaults
from scrapy.utils.datatypes import SequenceExclude

from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.records import NOT_KEPT, Fate, describe
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.usage.purpose import PURPOSES, UsageDecision
from scrapy_rep import signals as rep_signals
from scrapy_rep.checker import (
    EXIT_ALLOWED,
    EXIT_DISALLOWED,
    EXIT_UNREACHABLE,
    Announced,
    Asked,
    Report,
    ToolRequest,
    google_note,
    url_line,
    usage_error,
)
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.addon import DOWNLOADER_PRIORITY, with_ledger
from scrapy_rep.crawl.auditing import read_urls
from scrapy_rep.crawl.internals import crawler_process, error_line, on_start_failure
from scrapy_rep.crawl.media.pipelines import MediaGate
from scrapy_rep.crawl.page.pagestate import PageState
from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS
from scrapy_rep.crawl.requeststate import fetch_state_of

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler
    from twisted.python.failure import Failure

    from rep_engine.records import FileOutcome, UrlEntry
    from rep_engine.robotstxt import RobotsTxt
    from scrapy_rep.crawl.media.pipelines import FileVerdict


#: ``request.meta``: the index of the URL a tool asked about (it survives redirects).
ASKED: Final = "scrapy_rep_tools_url"
#: Above every priority Scrapy names (``cmdline`` is 40): what the tools' crawl must be.
TOOL_PRIORITY: Final = 50
#: What every tool's crawl (this one, and a recheck's: ``recheck_crawl``) sets over the
#: settings it is given, whatever the project says: the add-on's trail and report off (a
#: tool writes its own output, a recheck its own trail), none of the project's feeds or item
#: pipelines (a ``FEEDS`` entry, or the deprecated ``FEED_URI`` Scrapy 2.19 still reads,
#: that names ``items.jsonl`` would empty the very collection ``scrapy rep-recheck
#: items.jsonl`` re-checks, or be overwritten by the tools' items), and no console or
#: control server (Scrapy 2.19's RemoteControl would let a local client run code inside
#: the crawl whose documents a recheck's trail records: its header says it was off).
WRITES_NOTHING: Final[dict[str, Any]] = {
    "REP_AUDIT_FILE": "",
    "REP_REPORT": False,
    "REP_REPORT_FILE": "",
    "FEEDS": {},
    "FEED_URI": None,
    "ITEM_PIPELINES": {},
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
}
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
        **WRITES_NOTHING,
        "ADDONS": {**settings.getdict("ADDONS"), "scrapy_rep.Addon": 0},
        "DOWNLOADER_MIDDLEWARES": middlewares,
        "EXTENSIONS": extensions,
        "JOBDIR": None,
        "SCHEDULER": scrapy_defaults.SCHEDULER,
        "DUPEFILTER_CLASS": scrapy_defaults.DUPEFILTER_CLASS,
        **{name: 0 for name in settings if name.startswith("CLOSESPIDER_")},
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
    printer = Printer(request, settings, RepConfig.from_settings(settings), out)
    return printer.run(run.asked, run.documents, run.unchecked)


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


@dataclass
class ToolRun:
    """Everything one tool's crawl told, filled while it runs (a
    :class:`~scrapy_rep.crawl.auditing.UrlReader`)."""

    asked: list[Asked]
    #: By ``(document kind, key)`` (an origin, or a license's URL).
    documents: dict[tuple[str, str], Announced] = field(default_factory=dict)
    error: str = ""
    #: Nothing was obeyed (no robots.txt middleware in the crawl): no request was decided.
    unchecked: bool = False
    #: By URL requested, the index of the URL asked about and whether it is a redirect.
    _waiting: dict[str, list[tuple[int, bool]]] = field(default_factory=dict)

    def expect(self, url: str, index: int, hop: bool = False) -> None:
        """A request of ``url`` is made for the URL asked about at ``index``."""
        self._waiting.setdefault(url, []).append((index, hop))

    def settled(self, entry: UrlEntry) -> None:
        """A request's entry is settled: the URL asked about's own, or a redirect's (the hop,
        whose next request is expected in turn)."""
        waiting = self._waiting.get(entry.url)
        if not waiting:
            return
        index, hop = waiting.pop(0)
        asked = self.asked[index]
        if hop:
            asked.hop = entry
        else:
            asked.entry = entry
        if entry.fate is Fate.REDIRECTED:
            self.expect(entry.to, index, hop=True)

    def file_settled(self, url: str, outcome: FileOutcome) -> None:
        """A file an item pipeline downloaded (the tools have none)."""

    def downloaded_apart(self, url: str, status: int) -> None:
        """A download no entry follows (the tools have none)."""

    def robots_fetched(
        self, origin: str, rules: RobotsTxt, outcome: str, status: int | None, **_: Any
    ) -> None:
        first = self.documents.get((ROBOTS_TXT.name, origin))
        if first is not None:
            outcome, status = first.outcome, first.status
        self.documents[ROBOTS_TXT.name, origin] = Announced(outcome, status, rules)

    def document_fetched(
        self, origin: str, document: str, outcome: str, status: int | None, **_: Any
    ) -> None:
        self.documents.setdefault((document, origin), Announced(outcome, status))

    def not_started(self, error: BaseException) -> None:
        """The crawl could not start (a setting the add-on refuses)."""
        self.error = error_line(error)


class Printer(Report):
    """What a tool prints of its crawl (:class:`~scrapy_rep.checker.Report`), and for a
    page fetched, what it says and what the crawl does with it (docs/cli.md)."""

    def page(self, asked: Asked) -> int:
        """What the crawl got for an allowed URL, and what it does with it (its page's
        entry in the words of :func:`~rep_engine.records.describe`); its exit code."""
        hop = asked.hop
        if hop is not None and describe(hop).refused:
            _, why = url_line(hop, self.profile, "")
            self.say(f"      page: redirected to {hop.url}, which is not fetched: {why}",
                     "      => not for this crawl: the redirect is refused")  # fmt: skip
            return EXIT_DISALLOWED
        response = asked.response
        if response is None:
            self.say(f"      page: not fetched ({asked.failure or 'no response'})")
            return EXIT_UNREACHABLE
        directives = response.meta.get(meta.DIRECTIVES)
        where = describe_sources(directives.sources if directives else (), response)
        final = response.url
        moved = f" (redirected to {final})" if final != asked.url else ""
        self.say(f"      page: {response.status}{moved}, directives: {directives} ({where})")
        decision: UsageDecision | None = response.meta.get(meta.USAGE)
        if asked.file is not None:
            decision = asked.file.decision
            self.say(*self._file_lines(asked.file))
        elif self.policy is not None and not isinstance(response, HtmlResponse) and response.body:
            self.say("      file: statements inside files are read for ai-train / ai-input only")
        if self.policy is not None and decision is not None:
            self._usage(decision)
        page = asked.page
        said = describe(page) if page is not None else None
        refused = said.why if said is not None and said.dropped else ""
        if asked.file is not None:
            refused = asked.file.refusal.message if asked.file.refusal is not None else ""
        marked = asked.marked  # the crawl's verdict on its page, its items kept and marked
        if not refused and self.policy is not None and marked is not None:
            self.say(f"      => not for this crawl: {marked.message} (its items are "
                     'kept and marked: REP_PURPOSE_ACTION = "mark")')  # fmt: skip
            return EXIT_DISALLOWED
        if refused:
            self.say(f"      => not for this crawl: {refused}")
            return EXIT_DISALLOWED
        if said is not None and page is not None and page.fate is Fate.PAYMENT_REQUIRED:
            self.say(f"      => {said.said}")  # the site asked a price: its page, not its content
        else:
            self.say("      => kept" if said is not None and said.kept else f"      => {NOT_KEPT}")
        return EXIT_ALLOWED

    def _file_lines(self, verdict: FileVerdict) -> list[str]:
        reading = verdict.reading
        lines = [f"      file: {reading.format}, {len(reading.signals)} statement(s) inside"]
        lines += [f"      file: unreadable: {problem}" for problem in reading.problems]
        if reading.c2pa == "not read: not installed":
            lines.append("      file: C2PA not read (c2pa-python is not installed)")
        return lines

    def _usage(self, decision: UsageDecision) -> None:
        """Every usage signal about the page and the answer per purpose."""
        assert self.policy is not None
        self.say("      usage signals:" if decision.signals else "      usage signals: none")
        for signal in decision.signals:
            note = google_note(signal, self.profile)
            self.say(f"        {signal.source}  ({_answers(signal.answers)}){note}")
        for purpose in self.policy.purposes:
            by = decision.decided_by(purpose)
            said = f" by {by.source}" if by else ""
            self.say(f"      {purpose}: {decision.verdict(purpose)}{said}")


def _answers(answers: tuple[bool | None, ...]) -> str:
    said = [
        f"{purpose} {'yes' if answer else 'no'}"
        for purpose, answer in zip(PURPOSES, answers, strict=True)
        if answer is not None
    ]
    return ", ".join(said) or "says nothing about these purposes"


#: Words that make a meta tag's content read as robots directives.
DIRECTIVE_WORDS: Final = re.compile(
    r"\b(noindex|nofollow|none|noarchive|nocache|nosnippet|noimageindex|noai|noimageai|noml|"
    r"unavailable_after|max-snippet|notranslate)\b",
    re.IGNORECASE,
)


def other_directives(response: Any) -> list[str]:
    """Every ``X-Robots-Tag`` header of ``response`` and every meta tag whose content
    holds a robots directive, as written (used when none of them applied to us)."""
    found = [
        f"X-Robots-Tag: {value.decode('latin-1')}"
        for value in response.headers.getlist("X-Robots-Tag")
    ]
    if hasattr(response, "xpath"):
        try:
            metas = response.xpath("//meta[@name and @content]")
        except Exception:  # an unreadable page: the headers are all we can say
            metas = []
        for meta in metas:
            name, content = meta.attrib.get("name", ""), meta.attrib.get("content", "")
            if DIRECTIVE_WORDS.search(content):
                found.append(f'<meta name="{name}" content="{content}">')
    return found


def describe_sources(sources: tuple[str, ...], response: Any) -> str:
    """Where a page's directives came from, or what it holds for other crawlers."""
    if sources:
        return "; ".join(sources)
    others = other_directives(response)
    if others:
        return "none for this crawler; for other crawlers: " + "; ".join(others)
    return "no robots meta tag or header"
