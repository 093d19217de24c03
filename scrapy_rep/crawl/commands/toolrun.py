"""What the tools' crawl (:mod:`scrapy_rep.crawl.commands.toolcrawl`) told of each URL a
tool asked about (:class:`ToolRun`), as the crawl's URL ledger settled it: each request's
entry carries the verdict it was decided with, a redirect's next request is an entry of
its own, and a fetched page's entry comes with the page's ledger. The documents' outcomes
come with ``robotstxt_fetched`` and ``document_fetched``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.records import Fate
from scrapy_rep.crawl.documents.engine_fetch import describe
from scrapy_rep.crawl.ledger import PageLedger

if TYPE_CHECKING:
    from scrapy.http import Response

    from rep_engine.records import UrlEntry
    from rep_engine.robotstxt import RobotsTxt
    from rep_engine.verdict.decide import Allowed, Refused, RequestFacts
    from scrapy_rep.crawl.media.filerecords import FileVerdict


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
    #: Why the page pass refused the page's item (``""``: it did not).
    dropped: str = ""
    #: Whether the page's item reached the end of the crawl (``item_scraped``): one the page
    #: pass let through that a later component (the project's spider middleware) dropped is not.
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
    """Everything one tool's crawl told, filled while it runs (a
    :class:`~scrapy_rep.crawl.auditing.UrlReader`)."""

    asked: list[Asked]
    #: By ``(document kind, key)`` (an origin, or a license's URL).
    documents: dict[tuple[str, str], Announced] = field(default_factory=dict)
    error: str = ""
    #: By URL requested, the index of the URL asked about and whether it is a redirect.
    _waiting: dict[str, list[tuple[int, bool]]] = field(default_factory=dict)

    def expect(self, url: str, index: int, hop: bool = False) -> None:
        """A request of ``url`` is made for the URL asked about at ``index``."""
        self._waiting.setdefault(url, []).append((index, hop))

    def settled(self, entry: UrlEntry, fate: Fate, added: Mapping[str, Any], cause: object) -> None:
        """A request's entry is settled: the verdict it was decided with (a redirect's:
        the hop), the next request of a redirect, and a fetched page's item."""
        waiting = self._waiting.get(entry.url)
        if not waiting:
            return
        index, hop = waiting.pop(0)
        asked = self.asked[index]
        if entry.decision is not None:
            verdict, facts = entry.decision
            if hop:
                asked.hop = (entry.url, verdict)
            else:
                asked.verdict, asked.facts = verdict, facts
        if fate is Fate.REDIRECTED:
            self.expect(str(added.get("to", "")), index, hop=True)
        elif isinstance(cause, PageLedger):  # fetched: its item refused, or kept to the end
            if cause.reason is not None:
                asked.dropped = cause.why
            asked.kept = cause.kept > 0

    def file_settled(self, url: str, fate: str, refusal: Refused | None, error: str) -> None:
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
        self.error = describe(error)
