"""What the crawl adds to each document kind: how Scrapy hears of it (SPEC §4, §5).

A :class:`~rep_engine.fetch.kinds.DocumentKind` is pure; a :class:`CrawlKind` pairs it
with its Scrapy side: the prefix of its download stats, the signals sent once it is
known, and how a crawl parses it. The middleware builds one
:class:`~scrapy_rep.crawl.documents.documents.OriginDocument` per kind of :data:`CRAWL_KINDS`
its requests may need: adding a kind is adding a value here (and its step in
:func:`rep_engine.verdict.decide.decide`).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP, DocumentKind
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from rep_engine.usage.rsl.document import RslDocument
from rep_engine.usage.tdmrep import TdmRepFile, parse_tdmrep
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.internals import ROBOTS_PARSED, send_catch_log_async
from scrapy_rep.crawl.robotparser import RobotParser

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from rep_engine.fetch.lifecycle.events import Announce
    from rep_engine.settings import RepConfig

D = TypeVar("D")
#: ``announce(crawler, kind, action, trigger)``: send the signals of a known or failed
#: document; a coroutine to await (handlers that may be async) or ``None``.
Announcer = Callable[
    ["Crawler", DocumentKind[Any], "Announce", "Request | None"],
    "Coroutine[Any, Any, Any] | None",
]


def announce_document(
    crawler: Crawler, kind: DocumentKind[Any], action: Announce, trigger: Request | None
) -> None:
    """scrapy_rep's ``document_fetched`` signal, for any kind."""
    crawler.signals.send_catch_log(
        signal=rep_signals.document_fetched,
        origin=str(action.key),
        document=kind.name,
        url=kind.url(action.key),
        outcome=action.outcome,
        status=action.status,
    )


def announce_robots(
    crawler: Crawler, kind: DocumentKind[Any], action: Announce, trigger: Request | None
) -> Coroutine[Any, Any, Any] | None:
    """``robotstxt_fetched``, then Scrapy's own ``robots_parsed`` (as Scrapy's middleware,
    with the request that made it be fetched) once the rules are known."""
    rules: RobotsTxt = action.rules
    crawler.signals.send_catch_log(
        signal=rep_signals.robotstxt_fetched,
        origin=str(action.key),
        robots_url=kind.url(action.key),
        rules=rules,
        outcome=action.outcome,
        status=action.status,
        sitemaps=rules.sitemaps,
    )
    if not action.known or ROBOTS_PARSED is None:  # no such signal before Scrapy 2.18
        return None
    return send_catch_log_async(
        crawler.signals, ROBOTS_PARSED, robotparser=RobotParser.from_rules(rules), request=trigger
    )


def _no_parser(crawler: Crawler, config: RepConfig) -> None:
    return None


@dataclass(frozen=True)
class CrawlKind(Generic[D]):
    """One document kind as a crawl fetches, announces and counts it."""

    kind: DocumentKind[D]
    #: Prefix of its download stats (``…/request_count``); ``None``: the kind's own.
    download_stats: str | None = None
    announce: Announcer = announce_document
    #: The crawl's parser of it (``None``: the kind's own).
    parser: Callable[[Crawler, RepConfig], Callable[[bytes], D] | None] = _no_parser
    #: The crawl's parser of a body the download cut short (``None``: the kind's own).
    parser_cut: Callable[[Crawler, RepConfig], Callable[[bytes], D] | None] = _no_parser

    @property
    def name(self) -> str:
        return self.kind.name

    @property
    def stats(self) -> str:
        """Where its download stats go."""
        return self.download_stats or self.kind.stat_prefix

    def for_crawl(self, crawler: Crawler, config: RepConfig) -> DocumentKind[D]:
        """The kind with the crawl's parsers."""
        parse, parse_cut = self.parser(crawler, config), self.parser_cut(crawler, config)
        if parse is None and parse_cut is None:
            return self.kind
        return self.kind.parsed_with(parse or self.kind.parse, parse_cut)


def _robots_parser(crawler: Crawler, config: RepConfig) -> Callable[[bytes], RobotsTxt]:
    profile = config.profile

    def parse(body: bytes) -> RobotsTxt:
        return parse_robotstxt(body, profile)

    return parse


def _robots_parser_cut(crawler: Crawler, config: RepConfig) -> Callable[[bytes], RobotsTxt]:
    profile = config.profile

    def parse_cut(body: bytes) -> RobotsTxt:
        """A robots.txt the download cut (docs/decisions.md, 'A cut robots.txt reads no
        part of a line that could allow')."""
        return parse_robotstxt(body, profile, truncated=True)

    return parse_cut


def _tdmrep_parser(crawler: Crawler, config: RepConfig) -> Callable[[bytes], TdmRepFile]:
    return _tdmrep_counting(crawler, truncated=False)


def _tdmrep_parser_cut(crawler: Crawler, config: RepConfig) -> Callable[[bytes], TdmRepFile]:
    return _tdmrep_counting(crawler, truncated=True)


def _tdmrep_counting(crawler: Crawler, truncated: bool) -> Callable[[bytes], TdmRepFile]:
    stats = crawler.stats

    def parse(body: bytes) -> TdmRepFile:
        """tdmrep.json (``truncated``: the download cut it), its invalid (skipped)
        entries counted."""
        tdm = parse_tdmrep(body, truncated)
        if tdm.skipped and stats is not None:
            stats.inc_value("rep/tdmrep/entries_skipped", tdm.skipped)
        return tdm

    return parse


#: robots.txt: Scrapy's own download stats (``robotstxt/request_count``) and signals.
ROBOTS_CRAWL: CrawlKind[RobotsTxt] = CrawlKind(
    ROBOTS_TXT,
    download_stats="robotstxt",
    announce=announce_robots,
    parser=_robots_parser,
    parser_cut=_robots_parser_cut,
)
#: tdmrep.json, for AI purposes.
TDMREP_CRAWL: CrawlKind[TdmRepFile] = CrawlKind(
    TDMREP, parser=_tdmrep_parser, parser_cut=_tdmrep_parser_cut
)
#: RSL licenses, keyed by their URL, for crawls with a ``REP_PURPOSE`` (docs/purpose-notes.md §9).
RSL_CRAWL: CrawlKind[RslDocument] = CrawlKind(RSL)
#: Every kind a crawl may fetch, robots.txt first; a crawl builds those its requests may
#: need (:meth:`rep_engine.verdict.decide.RequestRules.documents`).
CRAWL_KINDS: tuple[CrawlKind[Any], ...] = (ROBOTS_CRAWL, TDMREP_CRAWL, RSL_CRAWL)
