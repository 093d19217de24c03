"""The command-line tools are a crawl (docs/decisions.md, 'The tools are a crawl'):
``scrapy rep-robots`` and ``python -m scrapy_rep check`` run a small Scrapy crawl with the
add-on and the crawl's own downloader and spider middlewares (decompression and its
limits, redirects decided by robots.txt, header handling, the page pass), and print what
it decided, so that they cannot read a site differently.

- :class:`ToolSpider` requests each URL once, as the crawler (every status but a redirect
  goes to its callback, as with ``scrapy fetch``), and yields one item per page, which
  the page pass keeps or drops. The settings are the project's (``scrapy rep-robots``) or
  Scrapy's defaults with ``check``'s options, with :func:`tool_settings` over them:
  nothing is written (no feed, pipeline, audit trail, report, ``JOBDIR`` or shared store),
  the scheduler is Scrapy's own.
- Each verdict the robots.txt middleware performs is told to the :class:`ToolRun`
  (:attr:`~scrapy_rep.crawl.requests.perform.Performer.told`), a redirect's too; the
  documents' outcomes come with ``robotstxt_fetched`` and ``document_fetched``, an item
  the page pass drops with ``item_refused``.
- Without pages (``check`` without ``--page``), :class:`StopAfterVerdict`, right after the
  robots.txt middleware, stops each allowed request: only robots.txt, and the documents
  the purposes need, are fetched.
- A local robots.txt (``check FILE … --page``, ``rep-robots --robots-file``): every
  robots.txt request is answered with the file (:class:`LocalRobotsTxt`).
- An unreachable document: a crawl holds its requests for ``REP_UNREACHABLE_*`` and then
  gives up by its give-up rule; the tools run the same rule at once
  (:func:`unreachable_waits`) and exit 3, as what they show is for now.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TextIO

from scrapy import Request, Spider, signals
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.settings import Settings
from scrapy.settings import default_settings as scrapy_defaults
from scrapy.utils.datatypes import SequenceExclude

from scrapy_rep import signals as rep_signals
from scrapy_rep.audit.terminal import printable
from scrapy_rep.checker.exits import (
    EXIT_ALLOWED,
    EXIT_DISALLOWED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
)
from scrapy_rep.checker.report import (
    NOTHING_OBEYED,
    ToolRequest,
    google_note,
    held_reason,
    origin_head,
    url_line,
    user_agent_line,
)
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.addon import DOWNLOADER_PRIORITY
from scrapy_rep.crawl.documents.engine_fetch import describe
from scrapy_rep.crawl.internals import crawler_process, on_start_failure
from scrapy_rep.crawl.media.mediagate import FileVerdict, MediaGate
from scrapy_rep.crawl.page.otherdirectives import describe_sources
from scrapy_rep.crawl.requests.owners import owner_of
from scrapy_rep.crawl.requeststate import fetch_state_of
from scrapy_rep.fetch.kinds import ROBOTS_TXT, TDMREP
from scrapy_rep.fetch.rsl_kind import RSL
from scrapy_rep.robotstxt import ALLOW_ALL, RobotsTxt
from scrapy_rep.robotstxt.useragent import held_names
from scrapy_rep.settings import RepConfig, RepSettingError, robots_agent, usage_policy
from scrapy_rep.urls.origins import origin_of
from scrapy_rep.usage.purpose import PURPOSES, UsageDecision
from scrapy_rep.verdict import UNCHECKED, Allowed, Reason, Refused, RequestFacts

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler
    from twisted.python.failure import Failure

    from scrapy_rep.verdict.policy import UsagePolicy

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
    """Right after the robots.txt middleware: a tool's request has its verdict; its page is
    not fetched (``check`` without ``--page``)."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StopAfterVerdict:
        return cls()

    def process_request(self, request: Request, spider: Any = None) -> None:
        if ASKED in request.meta:
            raise NotFetched("allowed; the page is not fetched")


class LocalRobotsTxt:
    """First of the downloader middlewares: every robots.txt request of the crawl is
    answered with the local file the tool was given (the crawl's own parse, 500 KiB cut
    and decision follow)."""

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


@dataclass
class Asked:
    """What the crawl did with one URL a tool asked about."""

    url: str
    #: The verdict on its request (``None``: none was performed).
    verdict: Allowed | Refused | None = None
    facts: RequestFacts | None = None
    #: The last redirect followed from it, and that request's verdict.
    hop: tuple[str, Allowed | Refused] | None = None
    #: Its page, as the spider got it (after redirects).
    response: Response | None = None
    #: Why its page could not be had.
    failure: str = ""
    #: The refusal of the page's item by the page pass, or the item went on.
    dropped: Refused | None = None
    kept: bool = False
    #: A downloaded file held against the crawl's AI purposes by the media gate.
    file: FileVerdict | None = None


@dataclass(frozen=True)
class Announced:
    """A document's first outcome in the crawl (a later one may be its give-up)."""

    outcome: str
    status: int | None
    #: robots.txt's rules (the last announced).
    rules: RobotsTxt | None = None


@dataclass
class ToolRun:
    """Everything one tool's crawl told, filled while it runs."""

    asked: list[Asked]
    #: By ``(document kind, key)`` (an origin, or a license's URL).
    documents: dict[tuple[str, str], Announced] = field(default_factory=dict)
    error: str = ""

    def told(self, request: Request, facts: RequestFacts, verdict: Allowed | Refused) -> None:
        """A verdict performed by the crawl's robots.txt middleware."""
        index = request.meta.get(ASKED)
        if index is None:
            return
        asked = self.asked[index]
        if request.meta.get("redirect_urls"):
            asked.hop = (request.url, verdict)
        else:
            asked.verdict, asked.facts = verdict, facts

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

    def item_refused(self, item: Any, verdict: Refused | None = None, **_: Any) -> None:
        index = item.get(ASKED) if isinstance(item, dict) else None
        if index is not None and verdict is not None:
            self.asked[index].dropped = verdict

    def not_started(self, error: BaseException) -> None:
        """The crawl could not start (a setting the add-on refuses)."""
        self.error = describe(error)

    def item_scraped(self, item: Any, **_: Any) -> None:
        index = item.get(ASKED) if isinstance(item, dict) else None
        if index is not None:
            self.asked[index].kept = True


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
        connect(run.item_refused, signal=rep_signals.item_refused)
        connect(run.item_scraped, signal=signals.item_scraped)
        return spider

    async def start(self) -> AsyncIterator[Any]:
        owner = owner_of(self.crawler)
        if owner is None:  # nothing obeyed: no request is decided
            for asked in self.run.asked:
                asked.verdict = UNCHECKED
        else:
            owner.perform.told = self.run.told
        for index, asked in enumerate(self.run.asked):
            yield Request(
                asked.url,
                callback=self.parse,
                errback=self.failed,
                dont_filter=True,
                meta={ASKED: index, "handle_httpstatus_list": SequenceExclude(range(300, 400))},
            )

    def parse(self, response: Response) -> Any:
        index = response.meta[ASKED]
        asked = self.run.asked[index]
        asked.response = response
        if not isinstance(response, HtmlResponse) and response.body and response.request:
            gate = self._media_gate()
            if gate.enabled:  # as FilesPipeline / ImagesPipeline hold a file (docs/media.md)
                asked.file = gate.check(response, response.request, None)
        yield {ASKED: index}

    def failed(self, failure: Failure) -> None:
        request = getattr(failure, "request", None)
        index = None if request is None else request.meta.get(ASKED)
        if index is None or isinstance(failure.value, NotFetched | None):
            return
        # (a refusal's IgnoreRequest too: its verdict was told, and says more)
        self.run.asked[index].failure = describe(failure.value)

    def _media_gate(self) -> MediaGate:
        if self._gate is None:
            self._gate = MediaGate(self.crawler)
        return self._gate


# --------------------------------------------------------------------------- the crawl


def unreachable_waits(config: RepConfig) -> dict[str, float]:
    """The ``REP_UNREACHABLE_*`` waits under which the crawl gives up on an unreachable
    document at once with the verdict it gives after its own waits: the give-up rule
    (:meth:`~scrapy_rep.fetch.rules.Policy.allows_after_giving_up`) lets the requests
    through under ``"allow"`` after the long wait only, so where the shorter wait of a host
    that cannot be connected to is shorter, it stays so (and every other failure is tried
    once more after :data:`SHORT_WAIT`)."""
    waits = {"REP_UNREACHABLE_MAX_WAIT": 0.0, "REP_UNREACHABLE_CONNECT_MAX_WAIT": 0.0}
    shorter = config.unreachable_connect_max_wait < config.unreachable_max_wait
    if config.unreachable_action == "allow" and shorter:
        waits["REP_UNREACHABLE_MAX_WAIT"] = SHORT_WAIT
        waits["REP_UNREACHABLE_RETRY_DELAY"] = SHORT_WAIT
    return waits


def tool_settings(settings: Settings, request: ToolRequest) -> dict[str, Any]:
    """What a tool's crawl must be whatever the project says: the add-on on, nothing
    written or shared (feeds, pipelines, audit trail, report, ``JOBDIR``, the robots.txt
    store, a shared scheduler), no spider closed early, the tool's timeout and the
    unreachable waits run at once; the stop after the verdict without pages, and the local
    robots.txt."""
    config = RepConfig.from_settings(settings)
    middlewares = settings.getdict("DOWNLOADER_MIDDLEWARES")
    if not request.pages:
        middlewares[_path(StopAfterVerdict)] = DOWNLOADER_PRIORITY + 1
    if request.local is not None:
        middlewares[_path(LocalRobotsTxt)] = 1
    return {
        "ADDONS": {**settings.getdict("ADDONS"), "scrapy_rep.Addon": 0},
        "DOWNLOADER_MIDDLEWARES": middlewares,
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
        "REP_ROBOTSTXT_CACHE": "memory",
        "REP_ROBOTSTXT_TIMEOUT": request.timeout,
        "DOWNLOAD_TIMEOUT": request.timeout,
        **unreachable_waits(config),
    }


def _path(component: type) -> str:
    return f"{component.__module__}.{component.__qualname__}"


def tools_settings(request: ToolRequest, base: Settings | None = None) -> Settings:
    """The settings of the tools' crawl on ``request``: ``base`` (the project's settings,
    ``scrapy rep-robots``; else Scrapy's defaults without a log), the tool's options over
    them and :func:`tool_settings` over those. Raises :class:`RepSettingError`."""
    # Without a project, no log (as scrapy rep-robots): what the crawl decided is printed.
    settings = base.copy() if base is not None else Settings({"LOG_ENABLED": False})
    settings.setdict(dict(request.settings), priority=TOOL_PRIORITY)
    settings.setdict(tool_settings(settings, request), priority=TOOL_PRIORITY)
    RepConfig.from_settings(settings)
    return settings


def crawl_tools(runner: Any, request: ToolRequest) -> tuple[ToolRun, Any]:
    """Start the tools' crawl on ``request`` with ``runner`` (a ``CrawlerRunner``, a
    ``CrawlerProcess`` or, without a reactor, an ``AsyncCrawlerProcess``, whose settings
    are :func:`tools_settings`): what it will have told, and what its ``crawl()``
    answered (a Deferred, or an asyncio task), done once it has ended
    (:attr:`ToolRun.error`: it could not start)."""
    run = ToolRun([Asked(url) for url in request.urls])
    body = request.local.body if request.local is not None else b""
    started = runner.crawl(ToolSpider, run=run, robots_body=body)
    on_start_failure(started, run.not_started)
    return run, started


def print_tools(request: ToolRequest, settings: Settings, run: ToolRun, out: TextIO) -> int:
    """Print what the tools' crawl decided (or why it did not start); the exit status."""
    if run.error:
        print(f"scrapy_rep: error: {run.error}", file=sys.stderr)
        return EXIT_USAGE
    return Printer(request, settings, RepConfig.from_settings(settings), out).run(run)


def _settings_error(error: RepSettingError) -> int:
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
        return _settings_error(error)
    run, started = crawl_tools(CrawlerRunner(settings), request)
    await started
    return print_tools(request, settings, run, out)


def run_tools(request: ToolRequest, out: TextIO, base: Settings | None = None) -> int:
    """Run the tools' crawl on ``request`` and print what it decided; the exit status.
    ``base``: the project's settings (``scrapy rep-robots``), else Scrapy's defaults. The
    command lines' wrapper: a ``CrawlerProcess`` (an ``AsyncCrawlerProcess`` without a
    reactor) starts and stops the crawl (:func:`tools_in_reactor`: the same under a
    running reactor)."""
    try:
        settings = tools_settings(request, base)
        # AsyncCrawlerProcess without a reactor; the add-on checks the settings as it
        # builds one (a crawl without a reactor that cannot download, Scrapy 2.15+)
        process = crawler_process(settings)
    except RepSettingError as error:
        return _settings_error(error)
    run, _ = crawl_tools(process, request)
    process.start()
    return print_tools(request, settings, run, out)


# --------------------------------------------------------------------------- the output


class Printer:
    """What a tool prints of its crawl: a block per robots.txt, a line per URL and, for a
    page fetched, what it says and what the crawl does with it (docs/cli.md)."""

    def __init__(
        self, request: ToolRequest, settings: Settings, config: RepConfig, out: TextIO
    ) -> None:
        self.request = request
        self.config = config
        self.out = out
        self.agent = robots_agent(settings)
        self.names = held_names(self.agent, str(settings.get("USER_AGENT") or ""))
        #: The purposes whose usage signals are listed (a purpose was asked about).
        self.policy: UsagePolicy | None = usage_policy(config) if request.explain_usage else None
        self.profile = config.profile

    def say(self, *lines: str) -> None:
        """Print each line, every character a site could control made visible
        (:func:`~scrapy_rep.audit.terminal.printable`: a CR, LF or ESC in a header or a
        meta tag prints as an escape, never as a line of its own)."""
        for line in lines:
            print(printable(line), file=self.out)

    def run(self, run: ToolRun) -> int:
        """Print the whole output; the exit status (the worst)."""
        self.say(user_agent_line(self.agent, self.profile, self.names))
        by_origin: dict[str, list[Asked]] = {}
        for asked in run.asked:
            by_origin.setdefault(str(origin_of(asked.url)), []).append(asked)
        code = EXIT_ALLOWED
        local = self.request.local
        if local is not None:  # one file for every origin
            blocks = [("", [asked for group in by_origin.values() for asked in group])]
        else:
            blocks = list(by_origin.items())
        for origin, group in blocks:
            code = max(code, self.block(run, origin, group))
        return code

    def block(self, run: ToolRun, origin: str, group: list[Asked]) -> int:
        """One robots.txt's block (its head, then a line per URL); its exit code."""
        local = self.request.local
        robots = run.documents.get((ROBOTS_TXT.name, origin))
        code = EXIT_ALLOWED
        if local is not None:
            title, notes, rules = local.title, list(local.notes), local.rules
        else:
            outcome = robots.outcome if robots else f"not fetched ({NOTHING_OBEYED})"
            title = f"{origin}/robots.txt: {outcome}"
            notes, rules = [], (robots.rules if robots and robots.rules else ALLOW_ALL)
            notes += self._unreachable_notes(group)
        origins = dict.fromkeys(str(origin_of(asked.url)) for asked in group)
        documents = [
            f"tdmrep.json {key}{TDMREP.path}: {tdm.outcome}"
            for key in origins
            if (tdm := run.documents.get((TDMREP.name, key))) is not None
        ]
        documents += [
            f"RSL license {url}: {announced.outcome}"
            for url in rules.licenses
            if (announced := run.documents.get((RSL.name, url))) is not None
        ]
        self.say(*origin_head(title, notes, rules, self.agent, documents))
        held = ""
        if robots is not None and _unreachable(group, ROBOTS_TXT.name):
            held = held_reason(robots.status)
        width = max(len(asked.url) for asked in group)
        for asked in group:
            verdict = asked.verdict
            allowed, why = url_line(verdict, asked.url, asked.facts, self.profile, held)
            word = "allowed   " if allowed else "DISALLOWED"
            self.say(f"  {word}  {asked.url:<{width}}  {why}")
            if not allowed:
                code = max(code, EXIT_DISALLOWED)
            elif self.request.pages:
                code = max(code, self.page(asked))
        if _unreachable(group, None):
            code = EXIT_UNREACHABLE
        return code

    def _unreachable_notes(self, group: list[Asked]) -> list[str]:
        """What the crawl does, once it gives up on an unreachable robots.txt, under
        ``REP_UNREACHABLE_ACTION = "allow"``."""
        if self.config.unreachable_action != "allow" or not _unreachable(group, ROBOTS_TXT.name):
            return []
        if any(isinstance(asked.verdict, Allowed) for asked in group):
            return ["note: unreachable: the crawl holds its requests, then lets them through "
                    "(REP_UNREACHABLE_ACTION = allow)"]  # fmt: skip
        return ["note: unreachable, and the host cannot be connected to: the crawl gives up "
                "on it after REP_UNREACHABLE_CONNECT_MAX_WAIT and drops its requests, even "
                "with REP_UNREACHABLE_ACTION = allow"]  # fmt: skip

    def page(self, asked: Asked) -> int:
        """What the crawl got for an allowed URL, and what it does with it; its exit code."""
        if asked.hop is not None and isinstance(asked.hop[1], Refused):
            url, hop = asked.hop
            _, why = url_line(hop, url, asked.facts, self.profile, "")
            self.say(f"      page: redirected to {url}, which is not fetched: {why}",
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
        refused = asked.file.refusal if asked.file is not None else asked.dropped
        if refused is None and self.policy is not None and decision is not None:
            denial = self.policy.refusal(decision)  # REP_PURPOSE_ACTION = "mark": kept, marked
            if denial is not None:
                self.say(f"      => not for this crawl: {denial.message} (its items are "
                         'kept and marked: REP_PURPOSE_ACTION = "mark")')  # fmt: skip
                return EXIT_DISALLOWED
        if refused is not None:
            self.say(f"      => not for this crawl: {refused.message}")
            return EXIT_DISALLOWED
        self.say("      => kept" if asked.kept else "      => not kept by a component of the crawl")
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


def _unreachable(group: list[Asked], kind: str | None) -> bool:
    """Whether a document of ``kind`` (``None``: any) the group's requests were decided
    with could not be had (the crawl gave up on it)."""
    for asked in group:
        used = asked.verdict.used if asked.verdict is not None else ()
        if any(entry.unreachable for name, _, entry in used if kind in (None, name)):
            return True
        if kind is None and isinstance(asked.verdict, Refused) and asked.verdict.reason in (
            Reason.ROBOTSTXT_UNREACHABLE, Reason.TDMREP_UNREACHABLE
        ):  # fmt: skip
            return True
    return False


def _answers(answers: tuple[bool | None, ...]) -> str:
    said = [
        f"{purpose} {'yes' if answer else 'no'}"
        for purpose, answer in zip(PURPOSES, answers, strict=True)
        if answer is not None
    ]
    return ", ".join(said) or "says nothing about these purposes"
