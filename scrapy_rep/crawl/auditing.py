"""The URL ledger of each running crawl (:class:`scrapy_rep.crawl.audit.audit.AuditTrail`):
what each event does to a request's entry in each of its phases (:data:`TRANSITIONS`), how
the parts that decide write it directly (a call costs less than a signal on the hot path:
:class:`LedgerCalls`), what its readers are told (:class:`UrlReader`), and
:class:`AuditMiddleware`, which tells it a request's final failure and response.

The ledger keeps the waits of the requests held for their origins' documents
(:class:`Waits`: ``request_held``, ``request_released``), per origin and per URL, for the
end-of-crawl report: its own, not an entry's, since a request held before it was decided
has no entry yet (a media pipeline's file), and its waits are counted all the same.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol
from weakref import WeakKeyDictionary

from scrapy.exceptions import IgnoreRequest, NotConfigured

from scrapy_rep.crawl.config import PerCrawler, config_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.records import Fate, FileOutcome, PageOutput, Reason, UrlEntry
    from rep_engine.verdict.decide import Allowed, Refused, RequestFacts
    from scrapy_rep.crawl.pages import Page


class Phase(enum.Enum):
    """Where a request's entry in the URL ledger stands."""

    #: No open entry: this worker never opened one, or its fate is final already.
    NONE = "none"
    #: Opened (scheduled, or decided without the scheduler): no response yet.
    OPEN = "open"
    #: Its response came: its fate waits for its page's output.
    FETCHED = "fetched"


class Event(enum.Enum):
    """What the URL ledger is told of a request: each one method of the ledger."""

    #: ``request_scheduled``: the scheduler takes it (Scrapy's filters first).
    SCHEDULED = enum.auto()
    #: A worker took it from a queue several workers share (scrapy-redis).
    TAKEN = enum.auto()
    #: A dupefilter of another class than ``RFPDupeFilter`` dropped it.
    DROPPED = enum.auto()
    #: The verdict on it (the performer), and an RSL license it was decided with.
    DECIDED = enum.auto()
    LICENSE = enum.auto()
    #: A download tried: as it leaves its slot (``sent_at``), or ``request_reached_downloader``.
    ATTEMPT = enum.auto()
    #: ``request_held``: it waits for its origin's documents.
    HELD = enum.auto()
    #: At its send: it left (``sent_at``), or was changed.
    SENT = enum.auto()
    #: ``request_refused``: final, refused.
    REFUSED = enum.auto()
    #: Its response came (``response_received``, or the outermost downloader middleware).
    RECEIVED = enum.auto()
    #: ``item_scraped``: an item of its page reached the end of the crawl.
    ITEM_SCRAPED = enum.auto()
    #: Its page's whole output went through the spider middleware: final, fetched.
    PAGE_DONE = enum.auto()
    #: No response after every attempt, or dropped at its send: final, failed.
    FAILED = enum.auto()
    #: The spider closes with it open: final (fetched, unfinished), or kept in ``JOBDIR``.
    CLOSED = enum.auto()


#: What an event does nothing to: a row that says so (h11's ``_state.py``), never a call
#: that happens to do nothing.
IGNORE: Final = "ignore"
#: :data:`Event.SCHEDULED` on an open entry: its record goes on.
GOES_ON: Final = "its record goes on: held, released, retried, resumed"
#: A new record: the request's own, or one of its own where another's state came with it.
OPENS: Final = "a new record"
#: Final: its fate settled, written, read by every reader.
SETTLES: Final = "settled"
#: The entry changed, and stays open.
CHANGES: Final = "changed"

_NONE, _OPEN, _FETCHED = Phase.NONE, Phase.OPEN, Phase.FETCHED
#: Every transition of a request's entry, in one table: (phase, event) -> what happens.
#: ``NONE`` and an event that settles nothing is ignored (a settled entry is no longer
#: open: its events after are ignored), but a download no entry follows (told to the
#: readers apart) and a request decided or refused without one (a record of its own). A
#: refusal's exception (:class:`Refusal`) is no failure: its refusal settled the entry
#: (or left it for its errback), its ``FAILED`` never sent.
TRANSITIONS: Final[Mapping[tuple[Phase, Event], str]] = {
    (_NONE, Event.SCHEDULED): OPENS,
    (_OPEN, Event.SCHEDULED): GOES_ON,
    (_FETCHED, Event.SCHEDULED): OPENS,  # another's meta, copied on a new request
    (_NONE, Event.TAKEN): OPENS,
    (_OPEN, Event.TAKEN): GOES_ON,
    (_FETCHED, Event.TAKEN): OPENS,
    (_NONE, Event.DROPPED): IGNORE,
    (_OPEN, Event.DROPPED): "undone, when it is the record just opened",
    (_FETCHED, Event.DROPPED): IGNORE,
    (_NONE, Event.DECIDED): OPENS,  # decided without the scheduler: a media file's...
    (_OPEN, Event.DECIDED): CHANGES,
    (_FETCHED, Event.DECIDED): OPENS,  # a copied meta, or sent again once its response came
    (_NONE, Event.LICENSE): IGNORE,
    (_OPEN, Event.LICENSE): CHANGES,
    (_FETCHED, Event.LICENSE): CHANGES,
    (_NONE, Event.ATTEMPT): IGNORE,
    (_OPEN, Event.ATTEMPT): CHANGES,
    (_FETCHED, Event.ATTEMPT): IGNORE,  # a copied meta: a callback's own fetch of its page
    (_NONE, Event.HELD): IGNORE,  # its waits are counted all the same
    (_OPEN, Event.HELD): CHANGES,
    (_FETCHED, Event.HELD): CHANGES,
    (_NONE, Event.SENT): IGNORE,
    (_OPEN, Event.SENT): CHANGES,
    (_FETCHED, Event.SENT): CHANGES,
    (_NONE, Event.REFUSED): OPENS,  # and settled: never scheduled, or a copied meta
    (_OPEN, Event.REFUSED): SETTLES,
    (_FETCHED, Event.REFUSED): OPENS,
    (_NONE, Event.RECEIVED): "told to the readers apart: a download no entry follows",
    (_OPEN, Event.RECEIVED): CHANGES,  # settled at once when the scheduler never had it
    (_FETCHED, Event.RECEIVED): IGNORE,  # a copied meta's
    (_NONE, Event.ITEM_SCRAPED): IGNORE,  # an item of no page, or of a page settled
    (_OPEN, Event.ITEM_SCRAPED): CHANGES,
    (_FETCHED, Event.ITEM_SCRAPED): CHANGES,
    (_NONE, Event.PAGE_DONE): IGNORE,  # its links are counted all the same
    (_OPEN, Event.PAGE_DONE): SETTLES,
    (_FETCHED, Event.PAGE_DONE): SETTLES,
    (_NONE, Event.FAILED): IGNORE,  # but a redirect's next URL the engine downloads for a
    # component, failed before it was decided: its record opens, then fails
    (_OPEN, Event.FAILED): SETTLES,
    (_FETCHED, Event.FAILED): IGNORE,  # its response came: a copied meta's failure
    (_NONE, Event.CLOSED): IGNORE,
    (_OPEN, Event.CLOSED): SETTLES,  # unfinished; kept in JOBDIR when paused
    (_FETCHED, Event.CLOSED): SETTLES,  # fetched: its page's output was not seen
}


class Refusal(IgnoreRequest):
    """The ``IgnoreRequest`` of a request refused in the downloader (raised for Scrapy: its
    errback and the ``process_exception`` chain get what Scrapy's own middleware gives),
    with its message and its ``verdict`` (when one refused it, set after it is made: no call
    of ours on a refusal's path) for whoever awaited the download (a media pipeline lists
    its file refused). Its refusal entered the URL ledger already
    (:meth:`LedgerCalls.refused`), so the readers of a download's final failure
    (:class:`AuditMiddleware`, the page pass) do not tell it again."""

    verdict: Refused | None = None


@dataclass
class Settled:
    """What the URL ledger settled, counted once as it settles each entry: the end line's
    counts of fates (:meth:`fates`) and the end-of-crawl report's closing line read it
    (the items passed on and the links not followed are the end line's own counts)."""

    #: Requests by fate, why one was refused, whether a failed one got its response, and
    #: whether a fetched one was answered without a download or replayed from Scrapy's
    #: HTTP cache: what its words depend on (:func:`~rep_engine.records.describe`'s phrase).
    requests: Counter[tuple[Fate | None, str, bool, bool, bool]] = field(default_factory=Counter)
    #: Of those, the requests an override let through (robots.txt disallowed them).
    overridden: int = 0
    #: The items of the pages settled that reached the end of the crawl, and those the
    #: page pass refused, by reason.
    items_kept: int = 0
    items_dropped: Counter[str] = field(default_factory=Counter)

    def fates(self) -> dict[str, int]:
        """The requests by fate, as the end line counts them."""
        fates: Counter[str] = Counter()
        for (fate, *_), count in self.requests.items():
            if fate is not None:
                fates[fate] += count
        return dict(fates)


class LedgerCalls(Protocol):
    """What the parts that decide (the performer of verdicts, the check at the send, the page's
    licenses), :class:`AuditMiddleware` and the page pass tell the crawl's URL ledger directly
    (a page's output, once it is through: :meth:`page_done`)."""

    #: The requests' waits for their origins' documents (the report's origin lines).
    waits: Waits
    #: What it settled, counted once (the report's closing line), and the end line's own
    #: counts (items passed on, links not followed...).
    settled: Settled
    counts: Counter[str]
    #: Whether the scraper tells it when it is through with each download's failure
    #: (:meth:`failure_scraped`, the page pass's hook): a failed request with an errback is
    #: settled then, with the items its errback yielded.
    failures_told: bool

    def decided(
        self, request: Request, facts: RequestFacts, verdict: Allowed | Refused
    ) -> None: ...

    def refused(
        self,
        request: Request,
        reason: Reason | str,
        message: str,
        verdict: Refused | None = None,
        facts: RequestFacts | None = None,
        admitted: bool = False,
    ) -> None:
        """``request`` is refused (or dropped without a ``verdict``), as the one performer of
        refusals tells it (:mod:`scrapy_rep.crawl.refusals`): its record settles, ``refused``,
        naming the versions it was decided with (``facts``: decided by the performer of
        verdicts); ``admitted``: refused before the scheduler, its record opened as the
        scheduler's would be."""

    def license_used(
        self, license_url: str, entry: CacheEntry[Any], request: Request | None = None
    ) -> None: ...

    def failed(self, request: Request, exception: BaseException) -> None: ...

    def failure_scraped(self, request: Request, failure: Any) -> None: ...

    def downloaded(self, request: Request, response: Response, told: bool = False) -> None: ...

    def sent_changed(self, request: Request, record: str, sent: str, moved: bool) -> None: ...

    def attempted(self, request: Request) -> None: ...

    def attempts_at_send(self) -> None: ...

    def sent_at(self, record: str, now: float, expires: float) -> None: ...

    def page_done(self, response: Response, output: PageOutput, page: Page | None = None) -> None:
        """A page's whole output went through the page pass (``page``: what it read of the
        page): its entry settles, ``fetched``, with it."""


LEDGERS: PerCrawler[LedgerCalls] = PerCrawler("url_ledger")


def ledger_of(crawler: Crawler) -> LedgerCalls | None:
    """The crawl's URL ledger, if it keeps one (:attr:`~rep_engine.settings.RepConfig.ledger`)."""
    return LEDGERS.get(crawler)


#: The readers of each running crawl's settled entries (:func:`read_urls`).
URL_READERS: PerCrawler[list[UrlReader]] = PerCrawler("url_readers")


def read_urls(crawler: Crawler, reader: UrlReader) -> None:
    """``reader`` reads every entry the URL ledger settles (:class:`scrapy_rep.AuditTrail`)."""
    URL_READERS.setdefault(crawler, []).append(reader)


class UrlReader(Protocol):
    """A reader of the URL ledger's settled entries (the end-of-crawl report, the tools)."""

    def settled(self, entry: UrlEntry) -> None:
        """A request's fate is final: its ``entry``, as its ``url`` record says it (its fate,
        ``why``, what refused it, its page's output), with the verdict it was decided with
        (:attr:`~rep_engine.records.UrlEntry.decision`)."""

    def file_settled(self, url: str, outcome: FileOutcome) -> None:
        """A file an item pipeline downloaded was held against the crawl's purposes: what
        became of it (its ``file`` record)."""

    def downloaded_apart(self, url: str, status: int) -> None:
        """A download no entry follows (a file an item pipeline fetched without a verdict);
        ``status``: its response's."""


class AuditMiddleware:
    """The outermost downloader middleware (with a URL ledger: ``REP_AUDIT_FILE``, ``REP_REPORT``,
    :attr:`~rep_engine.settings.RepConfig.ledger`): an exception that reaches it is the request's
    final failure (retries and redirects are inside; a request dropped at its send too); the
    response that leaves it, the engine's."""

    def __init__(self, crawler: Crawler) -> None:
        if not config_of(crawler).ledger:
            raise NotConfigured
        self.crawler = crawler
        #: The crawl's URL ledger once found (made after this middleware may be).
        self._ledger: LedgerCalls | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_exception(
        self, request: Request, exception: Exception, spider: object = None
    ) -> None:
        ledger = LEDGERS.get(self.crawler)
        if ledger is not None and not isinstance(exception, Refusal):
            ledger.failed(request, exception)

    def process_response(
        self, request: Request, response: Response, spider: object = None
    ) -> Response:
        """The response Scrapy's engine gets, when this is the outermost
        ``process_response`` (what ``response_received`` tells, one signal less a page)."""
        ledger = self._ledger
        if ledger is None:  # looked up until found: one call fewer a page
            ledger = self._ledger = LEDGERS.get(self.crawler)
        if ledger is not None:
            ledger.downloaded(request if response.request is None else response.request, response)
        return response


@dataclass
class OriginWaits:
    """The requests that waited for one origin's documents (or a document keyed by its
    URL: an RSL license)."""

    #: The requests that waited for it, and their waits (a request may wait more than
    #: once: for robots.txt, then for its refresh as it is sent).
    waited: int = 0
    waits: int = 0
    #: The requests released (or dropped) after robots.txt downloads that failed.
    held_unreachable: int = 0


class Waits:
    """The crawl's waits, by origin and, for those held through failures, by URL."""

    def __init__(self) -> None:
        self.origins: dict[str, OriginWaits] = {}
        #: URL -> the most failed robots.txt downloads a request of it was held through.
        self.failures: dict[str, int] = {}
        #: The requests held so far that are still alive, and what they waited for: a
        #: request held again for the same origin's documents is one more wait, not one
        #: more request (weak: a request gone is never held again; one that waited on
        #: disk, ``rep/requests/spilled``, comes back as another object).
        self._held_for: WeakKeyDictionary[Request, set[str]] = WeakKeyDictionary()

    def held(self, request: Request, origin: str) -> None:
        """``request`` waits for ``origin``'s documents (``request_held``)."""
        waits = self.origins.setdefault(origin, OriginWaits())
        waits.waits += 1
        held_for = self._held_for.setdefault(request, set())
        if origin not in held_for:
            held_for.add(origin)
            waits.waited += 1

    def released(self, request: Request, origin: str, failures: int, **_: Any) -> None:
        """``request`` goes on after ``failures`` robots.txt downloads failed meanwhile
        (``request_released``)."""
        if failures:
            self.origins.setdefault(origin, OriginWaits()).held_unreachable += 1
            url = request.url
            self.failures[url] = max(self.failures.get(url, 0), failures)
