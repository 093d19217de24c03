"""What the tools' crawl (:mod:`scrapy_rep.crawl.commands.toolcrawl`) told of each URL a
tool asked about (:class:`ToolRun`), as the crawl's URL ledger settled it: each request's
entry, read as it is (the verdict it was decided with, its fate, a fetched page's output),
a redirect's next request an entry of its own. The documents' outcomes come with
``robotstxt_fetched`` and ``document_fetched``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.records import Fate
from scrapy_rep.crawl.internals import error_line

if TYPE_CHECKING:
    from scrapy.http import Response

    from rep_engine.records import FileOutcome, UrlEntry
    from rep_engine.robotstxt import RobotsTxt
    from rep_engine.verdict.decide import Refused
    from scrapy_rep.crawl.media.pipelines import FileVerdict


@dataclass
class Asked:
    """What the crawl did with one URL a tool asked about."""

    url: str
    #: Its request's entry, as the URL ledger settled it (``None``: none was: nothing was
    #: obeyed, or the crawl did not get that far).
    entry: UrlEntry | None = None
    #: The entry of the last redirect followed from it (``None``: none).
    hop: UrlEntry | None = None
    #: Its page, as the spider got it (after redirects).
    response: Response | None = None
    #: Why its page could not be had.
    failure: str = ""
    #: A downloaded file held against the crawl's AI purposes by the media gate.
    file: FileVerdict | None = None
    #: Its page's verdict refused a purpose of the crawl, whose items the page pass kept and
    #: marked (``REP_PURPOSE_ACTION = "mark"``): that refusal (``None``: none).
    marked: Refused | None = None

    @property
    def page(self) -> UrlEntry | None:
        """The entry of the request that got its page: the last redirect's, else its own."""
        return self.hop if self.hop is not None else self.entry


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
