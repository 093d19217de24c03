"""The audit trail's contract (docs/audit-trail.md): the words its records say and the
records both ways, one module for the four parts (pure: it imports nothing of the engine
but :mod:`rep_engine.urls`).

The crawl that writes a trail, the end-of-crawl report, the audit tools and the re-check
read the same words from here: why a request, a link or an item was refused
(:class:`Reason`, or :class:`Dropped` for a request dropped without a verdict), what
became of a request (:class:`Fate`), of a file a media pipeline downloaded
(:class:`FileFate`) and of a re-checked item (:class:`ItemStatus`), and what refused it
(:class:`RefusedBy`). Each reason is one row of :data:`REASONS` (:class:`ReasonRow`) and
each fate one row of :data:`FATE_ROWS` or :data:`FILE_FATE_ROWS`, saying what it refuses,
what it counts and how each reader words it: a new reason is one row here, not four
bookkeepers (``tests/test_records.py`` keeps every member in its table), and no other
module keeps a table or an enum of these words (``tests/project/test_reasons.py``).

The records: a ``url`` record both ways (:class:`UrlEntry`: :meth:`UrlEntry.line` writes
it, :meth:`UrlEntry.from_line` reads it back; ``JOBDIR`` keeps an open one as its line),
a ``url`` or ``file`` line as every audit command reads it (:class:`FateRecord`: the entry
it was written from, and what the line holds beside it: its run, time and id, a file
record's fate and error; ``audit verify`` re-derives a record from it and reads the line
as written only where it checks what is written: a count that is not one, ``answered``
not ``true``, the robots.txt line named), and a re-check's ``item`` record read
(:class:`ItemRecord`, by :func:`item_of`), with the readers of a field that never raise
(:func:`text`, :func:`whole`, :func:`items`, :func:`mapping`).
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any, Final, Literal, NamedTuple, Protocol, TypeVar

from rep_engine.urls.origins import origin_of

# A record's fields: read, a value not of its type as a missing one; a time, written.


def text(value: Any) -> str:
    """A field that must be a string: ``""`` when it is anything else."""
    return value if isinstance(value, str) else ""


def items(value: Any) -> list[Any]:
    """A field that must be a list: ``[]`` when it is anything else."""
    return value if isinstance(value, list) else []


def mapping(value: Any) -> dict[Any, Any]:
    """A field that must be an object: ``{}`` when it is anything else."""
    return value if isinstance(value, dict) else {}


def whole(value: Any) -> int | None:
    """A field that must be a whole number: ``None`` when it is anything else (a bool)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


#: The seconds formatted last (a few: a recheck's lines say the time now and a capture's).
_SECONDS: dict[int, str] = {}
_SECONDS_KEPT: Final = 64


def iso_time(now: float | None = None) -> str:
    """ISO 8601 UTC with milliseconds: ``2026-11-23T14:05:09.123Z``."""
    now = time.time() if now is None else now
    second = int(now)
    stamp = _SECONDS.get(second)
    if stamp is None:  # each second formatted once while it is one of the last met
        if len(_SECONDS) >= _SECONDS_KEPT:
            _SECONDS.clear()
        stamp = datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        _SECONDS[second] = stamp
    return f"{stamp}.{int((now - second) * 1000):03d}Z"


# The words. Every refusal carries a :class:`Reason`:
# :attr:`rep_engine.verdict.decide.Refused.reason` (the verdict before the fetch), the
# ``reason`` of the ``request_refused`` and ``item_refused`` signals (the page pass after
# the fetch, the requests dropped when the spider closes), and the stats named after it
# (``rep/requests/dropped/<reason>``). A member of each enum is a ``str`` whose value is
# the word those have always said, so logs, stats, signal handlers that compare with the
# word and every file format read the same; code compares members (``reason is
# Reason.FORBIDDEN``), never words (``tests/project/test_reasons.py``).

W = TypeVar("W", bound="Word")


class Word(str, enum.Enum):
    """A ``str`` enum whose members format as their value (what ``enum.StrEnum`` does
    from Python 3.11; the package supports 3.10): ``f"{Reason.FORBIDDEN}"`` is
    ``"forbidden"``, as stats names, logs and JSON have always said it."""

    # str's own slots: no Python call where a member is formatted.
    __str__ = str.__str__
    __format__ = str.__format__  # type: ignore[assignment]

    @classmethod
    def of(cls: type[W], word: object) -> W | None:
        """The member a file or a handler wrote as ``word``; ``None`` for any other value
        (a hand-edited trail, another add-on's word): never an error."""
        try:
            return cls(word)
        except (ValueError, TypeError):
            return None


class Reason(Word):
    """Why a request, a link or an item was refused; its value is the word that logs,
    stats and signals say."""

    # Requests refused before the fetch (:func:`rep_engine.verdict.decide.decide`).
    #: robots.txt disallows it, for the crawler or a ``REP_PURPOSE_AGENTS`` token.
    FORBIDDEN = "forbidden"
    #: Its robots.txt was given up on as unreachable (SPEC §4): its opt-outs are not known.
    ROBOTSTXT_UNREACHABLE = "robotstxt_unreachable"
    #: Its tdmrep.json was given up on as unreachable (``REP_UNREACHABLE_ACTION = "drop"``).
    TDMREP_UNREACHABLE = "tdmrep_unreachable"
    #: An explicit "no" for a purpose of the crawl (before the fetch, or a page's image
    #: or item after it).
    PURPOSE = "purpose"
    #: Held for a document when the spider closed: never sent.
    SPIDER_CLOSED = "spider_closed"
    #: A bug of ours while deciding: dropped, never sent unchecked (docs/decisions.md,
    #: 'A bug of ours while deciding drops the request').
    INTERNAL_ERROR = "internal_error"
    #: Sent with another User-Agent, URL or ``Host`` than it was decided for, while a
    #: document the site it is sent to needs is not known: refused, never sent unchecked
    #: (the check as it is sent cannot wait: docs/decisions.md).
    SENT_UNKNOWN = "sent_unknown"

    # Links the page pass does not follow (SPEC §6).
    #: The page says nofollow (robots meta, ``X-Robots-Tag``).
    NOFOLLOW = "nofollow"
    #: The page links to it only with ``rel="nofollow"``.
    REL_NOFOLLOW = "rel_nofollow"

    # Items the page pass drops (``item_refused``).
    #: The page says noindex.
    NOINDEX = "noindex"
    #: The page's ``unavailable_after`` date has passed.
    UNAVAILABLE_AFTER = "unavailable_after"


#: The links the page pass keeps from being requested: no request, so no record.
LINK_REASONS: frozenset[Reason] = frozenset({Reason.NOFOLLOW, Reason.REL_NOFOLLOW})
#: The items a page's directives drop (a header or a meta tag said them); a purpose
#: drops items too, said by purpose.
ITEM_REASONS: frozenset[Reason] = frozenset({Reason.NOINDEX, Reason.UNAVAILABLE_AFTER})


class Action(Word):
    """What a statement may refuse."""

    FETCH = "fetch"
    KEEP = "keep"
    FOLLOW = "follow"
    STORE = "store"


class Fate(Word):
    """A request's fate, as its audit record's ``fate`` says it (in the order of the
    ``end`` line's counts)."""

    #: Its response came (its page's output went through, or an item pipeline's file).
    FETCHED = "fetched"
    #: Not sent: scrapy_rep refused it (``refused_by`` says what).
    REFUSED = "refused"
    #: No response after every attempt, or dropped at its send; or its response dropped
    #: by a downloader middleware (the record keeps its status).
    FAILED = "failed"
    #: Redirected by Scrapy (``to``: the next URL, a record of its own).
    REDIRECTED = "redirected"
    #: The crawl ended first.
    UNFINISHED = "unfinished"
    #: Its response came with HTTP 402 Payment Required: the site asks a price for the
    #: crawl (pay per crawl), which scrapy_rep never pays; never retried nor followed
    #: (``payment``: the ``crawler-price`` or ``crawler-error`` the site said).
    PAYMENT_REQUIRED = "payment_required"


#: The status a site asks a price for the crawl with (RFC 9110 §15.5.3, "reserved for
#: future use"; Cloudflare's pay per crawl answers AI crawlers with it).
PAYMENT_REQUIRED_STATUS: Final = 402


def response_fate(status: int | None) -> Fate:
    """The fate of a request whose response came with ``status``: its own for a 402 (the
    site asks a price, never paid), else ``fetched``."""
    return Fate.PAYMENT_REQUIRED if status == PAYMENT_REQUIRED_STATUS else Fate.FETCHED


#: A ``failed`` request that was tried: what the readers say of it (its record's ``why``
#: names the exception, which a network's failure words for a programmer).
NO_RESPONSE: Final = "no response after every attempt"


@dataclass(frozen=True)
class FateRow:
    """How each reader says a request's fate."""

    #: What ``audit show`` says a record of it did (``was fetched``).
    story: str
    #: What the end-of-crawl report calls its requests (its closing line's words; ``""``:
    #: a refused request is named by its reason's row).
    report: str = ""
    #: Its colour in the HTML report (a class of its legend).
    colour: str = "other"
    #: Its request was sent: robots.txt allowed it (``audit verify`` holds it to that).
    sent: bool = False
    #: Its response came and the page pass read it: its record says what the page said
    #: and counts its output.
    responded: bool = False


#: Every fate, in the order of :class:`Fate`.
FATE_ROWS: Final[Mapping[Fate, FateRow]] = MappingProxyType(
    {
        Fate.FETCHED: FateRow("was fetched", "downloaded", "fetched", sent=True, responded=True),
        Fate.REFUSED: FateRow("was refused", colour="refused"),
        Fate.FAILED: FateRow(f"failed: {NO_RESPONSE}", "no response", sent=True),
        Fate.REDIRECTED: FateRow("was redirected", "redirected", sent=True),
        Fate.UNFINISHED: FateRow("was left unfinished when the crawl ended", "unfinished"),
        Fate.PAYMENT_REQUIRED: FateRow(
            "was answered 402 Payment Required: a price asked for the crawl, never paid",
            "payment required",
            sent=True,
            responded=True,
        ),
    }
)
#: What the end-of-crawl report calls the requests of each fate no reason names (its
#: closing line's words; a refused request is named by its reason's row).
FATE_PHRASES: Final[Mapping[Fate, str]] = MappingProxyType(
    {fate: row.report for fate, row in FATE_ROWS.items() if row.report}
)
#: The fates of a ``url`` record, in the order of the ``end`` line's counts: the words of
#: :class:`Fate`, as plain strings (what a user types and reads).
FATES: Final[tuple[str, ...]] = tuple(map(str, Fate))
#: The fates of a request that was sent for: robots.txt allowed it.
SENT_FATES: Final = frozenset(fate for fate, row in FATE_ROWS.items() if row.sent)
#: The fates of a request whose response came and whose page the page pass read.
RESPONSE_FATES: Final = frozenset(fate for fate, row in FATE_ROWS.items() if row.responded)
#: A ``failed`` record with a status: its response came, and a downloader middleware's
#: ``process_response`` dropped it (docs/audit-trail.md, ``failed``).
RESPONSE_DROPPED: Final = FateRow(
    "failed: its response was dropped by a downloader middleware", "response dropped", sent=True
)
#: A ``fetched`` record that says ``answered``: a downloader middleware placed before
#: scrapy_rep's robots.txt one answered the request itself (a mock, a local mirror): no
#: download was made and no verdict reached it (docs/audit-trail.md, ``answered``). Not sent:
#: no robots.txt had to allow it, and the record says what its crawl's robots.txt said.
ANSWERED: Final = FateRow(
    "was answered by a downloader middleware before scrapy_rep's verdict, without a download",
    "answered without a download",
)
#: A ``fetched`` page Scrapy's HTTP cache replayed after the verdict (``HTTPCACHE_ENABLED``;
#: its ``page`` part says ``cached``): nothing went on the wire (docs/audit-trail.md,
#: ``page``).
REPLAYED: Final = FateRow(
    "was replayed from Scrapy's HTTP cache after scrapy_rep's verdict, without a download",
    "replayed from the HTTP cache",
    "fetched",
    sent=True,
)
#: The fetched records no download made, by the row that says them (the closing line and
#: ``audit summary`` count them apart from those downloaded).
NOT_DOWNLOADED: Final = (ANSWERED, REPLAYED)
#: The fates whose record counts items: a fetched page's output, and the items the errback
#: of a download failed or refused yielded (``items_kept``).
_WITH_OUTPUT: Final = RESPONSE_FATES | {Fate.FAILED, Fate.REFUSED}
#: The fates of a record that may say ``answered``: a response that came, or a redirect.
_ANSWERABLE: Final = RESPONSE_FATES | {Fate.REDIRECTED}
#: A record whose fate is no word of :class:`Fate` (a hand-edited trail), as ``audit show``
#: says it (the word as written).
UNKNOWN_FATE: Final = "has the unknown fate {!r}"
#: The state of a fetched page whose items the crawl dropped (some, or all), and its colour
#: in the HTML report, that of a fetched page whose file the media gate refused or marked.
ITEM_DROPPED: Final = "item dropped"
DROPPED_COLOUR: Final = "dropped"
#: How a record robots.txt disallowed and an authorized override let through is said
#: (its deciding signal; the end-of-crawl report says it the same way).
OVERRIDDEN_BY: Final = "overridden by REP_OVERRIDES: "
#: A page's items the page pass passed on that never reached the end of the crawl (a
#: project's spider middleware after it, or an item pipeline, dropped them).
NOT_KEPT: Final = "not kept by a component of the crawl"
#: The columns the audit tools count requests in (``audit summary``'s tables, the HTML
#: report's charts and their legend), in the charts' order, each with its label: a fate's
#: column is its row's :attr:`FateRow.colour` (``other``: every fate whose row says no
#: colour of its own), and a fetched page whose items were dropped has one of its own.
FATE_COLUMNS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "refused": Fate.REFUSED,
        "fetched": Fate.FETCHED,
        DROPPED_COLOUR: f"{Fate.FETCHED}, {ITEM_DROPPED}",
        "other": ", ".join(fate for fate, row in FATE_ROWS.items() if row.colour == "other"),
    }
)


class Dropped(Word):
    """Why a request was dropped without a verdict: nothing refused it, it could not go
    on (``rep/requests/dropped/<word>``)."""

    #: Held when the spider closed, and it cannot be kept in ``JOBDIR`` (or read back).
    NOT_SERIALIZABLE = "not_serializable"


class RefusedBy(Word):
    """What refused a request or an item, as a ``url`` or ``item`` record's ``refused_by``
    says it (docs/audit-trail.md): the trail's words for a :class:`Reason`, and the
    documents an item names (:attr:`ItemRecord.documents`)."""

    ROBOTS_TXT = "robots.txt"
    UNREACHABLE = "unreachable"
    PURPOSE = "purpose"
    CLOSED = "closed"
    #: Never written as what refused a request; ``audit verify`` has always read it as a
    #: refusal for a purpose. The name of the tdmrep.json an item names.
    TDMREP_JSON = "tdmrep.json"
    #: An item refused after the fetch: its page said no (a re-check's ``--pages``).
    PAGE = "page"


#: ``refused_by`` values that a "no" of the usage signals explains.
USAGE_REFUSALS: Final = frozenset({RefusedBy.PURPOSE, RefusedBy.TDMREP_JSON})
#: Why a request's robots.txt Allow/Disallow lines were not obeyed, by what said so (a
#: ``robots`` part's ``why`` with ``obeyed`` false, as the crawl, the re-check and the
#: checker say it): the crawl's ``ROBOTSTXT_OBEY`` setting, or the request's
#: ``dont_obey_robotstxt`` meta key.
NOT_OBEYED: Final[Mapping[str, str]] = MappingProxyType(
    {
        "ROBOTSTXT_OBEY": "ROBOTSTXT_OBEY is False: robots.txt Allow/Disallow not obeyed",
        "dont_obey_robotstxt": "dont_obey_robotstxt: robots.txt Allow/Disallow not obeyed",
    }
)

#: The default of :attr:`ReasonRow.counts`: it refuses a request's fetch, and counts no
#: stat but its ``rep/requests/dropped/<reason>``.
_FETCH: Final[Mapping[Action, tuple[str, ...]]] = MappingProxyType({Action.FETCH: ()})
#: Every request, and every item, not taken further, by its reason's word.
_REQUESTS: Final = "rep/requests/dropped/{reason}"
_ITEMS: Final = "rep/items/dropped/{reason}"


def _fetch() -> Mapping[Action, tuple[str, ...]]:
    return _FETCH


def dropped_stat(action: Action) -> tuple[str, ...]:
    """The stat every refusal of ``action`` counts under its reason's word: every request
    (a fetch, a follow) and every item not taken further; a file's store refused counts its
    reason's own stats only (``rep/media/refused/<purpose>``)."""
    if action is Action.STORE:
        return ()
    return (_ITEMS if action is Action.KEEP else _REQUESTS,)


@dataclass(frozen=True)
class ReasonRow:
    """One reason a request, a link or an item went no further; by default a request
    refused before its fetch."""

    #: What it refuses (a request's fetch, a link's follow, an item's keep, a downloaded
    #: file's store), each with the stats a refusal of it counts besides
    #: ``rep/…/dropped/<reason>`` (a file's: none; ``{purpose}``: the purpose refused); the
    #: names users have always read (docs/reference.md 'Stats').
    counts: Mapping[Action, tuple[str, ...]] = field(default_factory=_fetch)
    #: The fate a request it stops leaves in the trail (``None``: no request of its own,
    #: a link or an item, counted on its page's record).
    fate: Fate | None = Fate.REFUSED
    #: The trail's ``refused_by`` word (``""``: it writes none).
    refused_by: str = ""
    #: The report's phrase: a request's fate in its closing line, or a link's line.
    report: str = ""
    #: The closing lines' phrase (``""``: not said there; those of a purpose are said by
    #: purpose).
    closing: str = ""
    #: The stat an item it would drop counts when the crawl keeps it instead
    #: (``REP_NOINDEX_ACTION = "keep"``; ``""``: it drops what it refuses).
    kept: str = ""
    #: It says nothing of what the site wants: the site's answer was never known (a
    #: document unreachable, the crawl closing, a bug of ours).
    unknown: bool = False
    #: A robots.txt that could not be had: "the crawler MUST assume complete disallow"
    #: (RFC 9309 §2.3.1.4), so a re-checked item it decides is refused, never unknown.
    complete_disallow: bool = False

    @property
    def refuses(self) -> frozenset[Action]:
        """What it refuses: a request's fetch, a link's follow, an item's keep."""
        return frozenset(self.counts)

    @property
    def stats(self) -> tuple[str, ...]:
        """Every stat it counts (``{reason}``: its word; ``{purpose}``: the purpose
        refused), each once."""
        return tuple(
            dict.fromkeys(
                stat
                for action, details in self.counts.items()
                for stat in (*dropped_stat(action), *details)
            )
        )


#: A request dropped as the spider closed (held for a document, or not kept in ``JOBDIR``).
_CLOSED: Final = ReasonRow(
    refused_by=RefusedBy.CLOSED, report="dropped: the spider closed", unknown=True
)

#: Every reason, by its word (docs/reference.md 'Stats'), refusals first in the order the
#: closing line says them.
REASONS: Final[Mapping[str, ReasonRow]] = MappingProxyType(
    {
        Reason.FORBIDDEN: ReasonRow(
            counts={Action.FETCH: ("robotstxt/forbidden",)},
            refused_by=RefusedBy.ROBOTS_TXT,
            report="forbidden by robots.txt",
            closing="forbidden by robots.txt",
        ),
        Reason.PURPOSE: ReasonRow(
            counts={
                Action.FETCH: ("rep/purpose/requests_dropped/{purpose}",),
                Action.FOLLOW: ("rep/purpose/images_refused/{purpose}",),
                Action.KEEP: ("rep/purpose/items_dropped/{purpose}",),
                Action.STORE: ("rep/media/refused/{purpose}",),
            },
            refused_by=RefusedBy.PURPOSE,
            report="not fetched for the crawl's purpose",
            closing="denied for {purpose}",
        ),
        Reason.ROBOTSTXT_UNREACHABLE: ReasonRow(
            refused_by=RefusedBy.UNREACHABLE,
            report="dropped: robots.txt unreachable",
            closing="robots.txt given up on as unreachable",
            unknown=True,
            complete_disallow=True,
        ),
        Reason.TDMREP_UNREACHABLE: ReasonRow(
            refused_by=RefusedBy.UNREACHABLE,
            report="dropped: tdmrep.json unreachable",
            closing="tdmrep.json given up on as unreachable",
            unknown=True,
        ),
        Reason.SPIDER_CLOSED: _CLOSED,
        Reason.INTERNAL_ERROR: ReasonRow(
            counts={Action.FETCH: ("rep/requests/internal_errors",)},
            refused_by=Reason.INTERNAL_ERROR,  # no RefusedBy member: written as its word
            report="dropped",
            unknown=True,
        ),
        Reason.SENT_UNKNOWN: ReasonRow(
            refused_by=Reason.SENT_UNKNOWN,  # no RefusedBy member: written as its word
            report="dropped: sent unchecked, a document it needs not known",
            unknown=True,
        ),
        Reason.NOFOLLOW: ReasonRow(
            counts={Action.FOLLOW: ("rep/directives/requests_dropped/nofollow",)},
            fate=None,
            report="not followed (the page says nofollow)",
            closing="on nofollow pages",
        ),
        Reason.REL_NOFOLLOW: ReasonRow(
            counts={Action.FOLLOW: ("rep/directives/requests_dropped/rel_nofollow",)},
            fate=None,
            report='not followed (rel="nofollow")',
            closing='rel="nofollow"',
        ),
        Reason.NOINDEX: ReasonRow(
            counts={Action.KEEP: ("rep/directives/items_dropped/noindex",)},
            fate=None,
            closing="from noindex pages",
            kept="rep/directives/items_kept/noindex",
        ),
        Reason.UNAVAILABLE_AFTER: ReasonRow(
            counts={Action.KEEP: ("rep/directives/items_dropped/unavailable_after",)},
            fate=None,
            closing="past unavailable_after",
            kept="rep/directives/items_kept/unavailable_after",
        ),
        # Dropped without a verdict: refused as closed (signalled as ``spider_closed``).
        Dropped.NOT_SERIALIZABLE: _CLOSED,
    }
)


#: The reason the ``request_refused`` signal says of a request dropped without a verdict
#: (its handlers, the trail's ``refused_by`` and the report read it): it was dropped as
#: the spider closed.
SIGNALLED_AS: Final[Mapping[Dropped, Reason]] = MappingProxyType(
    {Dropped.NOT_SERIALIZABLE: Reason.SPIDER_CLOSED}
)


#: A refused request's reason (the ``request_refused`` signal's) -> the trail's
#: ``refused_by``; another add-on's reason is written as its own word.
REFUSED_BY_WORD: Final[Mapping[str, str]] = MappingProxyType(
    {word: row.refused_by for word, row in REASONS.items() if row.refused_by}
)
#: A refused request's :class:`Reason` (the ``request_refused`` signal's) -> ``refused_by``
#: (:data:`REASONS`' rows). Keyed by members, which are ``str``: another add-on's reason
#: is looked up as a word, and written as its word when missing.
REFUSED_BY: Final[Mapping[str, RefusedBy]] = {
    word: by for word, said in REFUSED_BY_WORD.items() if (by := RefusedBy.of(said)) is not None
}
#: The refusals that mean a document could not be had (the site's answer is not known).
NOT_HAD: Final = frozenset(
    reason for reason in Reason if REASONS[reason].refused_by is RefusedBy.UNREACHABLE
)
#: Those of :data:`NOT_HAD` whose item is unknown, not refused (a re-check's item, an item
#: ``audit verify`` re-derives): all but a robots.txt not had, a complete disallow.
ITEM_NOT_HAD: Final = frozenset(
    reason for reason in NOT_HAD if not REASONS[reason].complete_disallow
)
#: The closing line's fates of requests, in its order (the rest after them).
REPORT_FATES: Final[tuple[str, ...]] = (
    FATE_PHRASES[Fate.FETCHED],
    FATE_PHRASES[Fate.PAYMENT_REQUIRED],
    FATE_PHRASES[Fate.REDIRECTED],
    *dict.fromkeys(
        row.report for row in REASONS.values() if row.fate is Fate.REFUSED and row.report
    ),
    FATE_PHRASES[Fate.FAILED],
)


class FileFate(Word):
    """A ``file`` record's fate: what became of a file a media pipeline downloaded
    (docs/media.md)."""

    STORED = "stored"
    #: Not stored: the media gate refused it.
    REFUSED = "refused"
    #: Stored and marked (``REP_MEDIA_PURPOSE_ACTION = "mark"``).
    MARKED = "marked"
    #: Not stored: the pipeline failed.
    FAILED = "failed"


@dataclass(frozen=True)
class FileFateRow:
    """How each reader says a file's fate."""

    #: What ``audit show`` says of it.
    story: str
    #: What ``audit summary``, ``audit list`` and the HTML report say of a file a purpose
    #: decided (the media gate's refusal; ``""``: none decided it).
    decided: str = ""
    #: The file was stored (``audit export`` lists it).
    stored: bool = False


#: Every fate of a file, in the order of :class:`FileFate`; the end-of-crawl report says
#: its story on its download's line, with the sentence that refused or marked it.
FILE_FATE_ROWS: Final[Mapping[FileFate, FileFateRow]] = MappingProxyType(
    {
        FileFate.STORED: FileFateRow("stored", stored=True),
        FileFate.REFUSED: FileFateRow("not stored", "file refused"),
        FileFate.MARKED: FileFateRow("stored and marked", "file marked", stored=True),
        FileFate.FAILED: FileFateRow("not stored: the pipeline failed"),
    }
)


class ItemStatus(Word):
    """What became of a stored item a re-check decided, as its ``item`` record's
    ``status`` says it (docs/recheck.md)."""

    KEPT = "kept"
    REFUSED = "refused"
    #: A document it needs was not had (or its page could not be fetched again).
    UNKNOWN = "unknown"

    @property
    def colour(self) -> str:
        """Its colour in the HTML report (a class of its legend): a kept item's is a
        fetched page's, a refused one's a refused request's."""
        return _ITEM_COLOURS[self]


_ITEM_COLOURS: Final = {
    ItemStatus.KEPT: FATE_ROWS[Fate.FETCHED].colour,
    ItemStatus.REFUSED: FATE_ROWS[Fate.REFUSED].colour,
    ItemStatus.UNKNOWN: "other",
}
#: The statuses of an ``item`` record, as plain strings.
ITEM_STATUSES: Final[tuple[str, ...]] = tuple(map(str, ItemStatus))
#: The words of an ``item`` record's ``then`` when no capture of its origin's robots.txt
#: precedes its date (docs/recheck.md, "Since when"): the date follows them, and
#: `` (--as-of)`` when ``--as-of`` came before the date.
NO_CAPTURE_BEFORE: Final = "no capture before "


class SnapshotOutcome(Word):
    """What a ``snapshot`` line says its document's download came to (its ``outcome``)."""

    #: Its body was read: its rules decide (written).
    PARSED = "parsed"
    #: No file (``404``): nothing is reserved (written, with the empty body).
    ABSENT = "absent"
    #: Earlier trails only (read, never written since): a download given up on as
    #: unreachable, a give-up verdict (``gave-up``) and a body cut at its size limit.
    UNREACHABLE = "unreachable"
    GAVE_UP = "gave-up"
    CUT = "cut"


class EndReason(Word):
    """Why a run ended, as its ``end`` line's ``reason`` says it: Scrapy's close reason
    for a crawl (``finished``, ``shutdown``: paused, ``closespider_…``: another add-on's
    words, read as ``None``), or a re-check's."""

    FINISHED = "finished"
    #: Stopped (Ctrl-C, SIGTERM), paused with ``JOBDIR``.
    SHUTDOWN = "shutdown"
    #: A second Ctrl-C (an unclean shutdown): the open records written ``unfinished``.
    SHUTDOWN_FORCED = "shutdown_forced"
    #: A re-check stopped before every item was decided (its ``error`` says why).
    FAILED = "failed"
    #: A re-check whose fetch ended before every document was had.
    INTERRUPTED = "interrupted"


# The records: a ``url`` record both ways, a re-check's ``item`` record read.


def robots_part(
    sha256: str,
    agent: str,
    line: int | None,
    rule: str | None,
    why: str,
    obeyed: bool = True,
    overridden: str = "",
    override_expired: str = "",
    agents: Sequence[str] = (),
    override_ends: float | None = None,
    addressed: str = "",
    also: str | None = None,
) -> dict[str, Any]:
    """The robots.txt line that decided a URL for ``agent`` (or why none did); the
    robots.txt is the URL's origin's, not said on every line. ``obeyed=False``: its
    Allow/Disallow lines were not obeyed for the request (``ROBOTSTXT_OBEY = False``,
    ``dont_obey_robotstxt``; ``why`` says which; its snapshot, if any, is the one whose
    AI-usage opt-outs were obeyed). ``overridden``: robots.txt disallows it, and an
    authorized override (``REP_OVERRIDES``) let it through: its reason and expiry, in
    words; ``override_ends``: the instant that override stops covering a request (POSIX
    seconds), written as a value (ISO 8601 UTC) for ``audit verify`` to hold ``sent_at``
    to, never read back from the words. ``override_expired``: robots.txt disallows it and
    its host's override had expired when it was to be sent (its reason and expiry): refused.

    ``agents``: every crawler name it was held to, when more than one (the declared name,
    then the name it was sent as; docs/decisions.md, 'Every name a request can be held
    to'); ``agent`` is then the one whose group refused it, or the declared name.
    ``addressed``: the site (origin) the request's ``Host`` header addressed, when another
    than its URL's: the snapshot is that site's robots.txt, or its URL's own origin's when
    that one refused it; ``also``: the URL's own origin's robots.txt, when it allowed the
    request too (``""``: given up on as unreachable; docs/decisions.md, 'A request sent
    with another Host is decided by both sites')."""
    part: dict[str, Any] = {"snapshot": sha256, "agent": agent} if sha256 else {"agent": agent}
    if len(agents) > 1:
        part["agents"] = list(agents)
    if addressed:
        part["addressed"] = addressed
        if also is not None:
            part["also"] = also
    if not obeyed:
        part["obeyed"] = False
    if overridden:
        part["overridden"] = overridden
        if override_ends is not None and math.isfinite(override_ends):
            part["override_ends"] = iso_time(override_ends)
    if override_expired:
        part["override_expired"] = override_expired
    part.update({"line": line, "rule": rule} if line is not None else {"why": why})
    return part


#: The version of the state ``JOBDIR`` keeps of an open entry: its ``url`` line
#: (:meth:`UrlEntry.line`, its fate ``null``); version 5 kept its fields by name, earlier
#: ones a list read by place (:meth:`UrlEntry.from_state` reads them all).
STATE_VERSION: Final = 6
#: At most this many links not followed are named in a page's record (``not_followed``;
#: ``links_not_followed`` counts them all), so that ``audit show`` finds the page of one.
NOT_FOLLOWED_KEPT: Final = 20


class RobotsPart(NamedTuple):
    """What robots.txt said of a request: the arguments of :func:`robots_part`, which
    writes them as the record's ``robots`` part (its docstring says each)."""

    sha256: str
    agent: str
    line: int | None
    rule: str | None
    why: str
    obeyed: bool = True
    overridden: str = ""
    override_expired: str = ""
    agents: tuple[str, ...] = ()
    override_ends: float | None = None
    addressed: str = ""
    also: str | None = None

    def part(self) -> dict[str, Any]:
        return robots_part(*self)

    @classmethod
    def from_part(cls, part: Mapping[str, Any]) -> RobotsPart:
        """The values a record's ``robots`` part was written from (``why`` is written only
        when no line decided: ``""`` otherwise), each not of its type as a missing one."""
        line = whole(part.get("line"))
        return cls(
            text(part.get("snapshot")),
            text(part.get("agent")),
            line,
            text(part.get("rule")) if line is not None else None,
            text(part.get("why")),
            part.get("obeyed", True) is not False,
            text(part.get("overridden")),
            text(part.get("override_expired")),
            _strings(part.get("agents")),
            _seconds(part.get("override_ends")),
            text(part.get("addressed")),
            also if isinstance(also := part.get("also"), str) else None,
        )


class Link(NamedTuple):
    """A link a page's nofollow or ``rel="nofollow"`` kept from being requested: no
    request, so no record of its own (its page's record names it)."""

    url: str
    #: Why (:data:`LINK_REASONS`) and the sentence that said it (``""``: read from a
    #: record, which names its URL only).
    reason: str = ""
    why: str = ""


@dataclass(slots=True)
class PageOutput:
    """What a fetched page's output came to (docs/audit-trail.md, ``items_kept``...): the
    items the page pass passed on and those of them that reached the end of the crawl, the
    items it refused (by reason and the sentence that said it), the links it did not
    follow. The page pass writes it while the output goes through (the performer of
    refusals its refusals), the URL ledger settles its items kept; a record holds its
    counts (:meth:`part`) and reads them back (:meth:`from_part`)."""

    #: Items the page pass passed on, toward the end of the crawl.
    passed: int = 0
    #: Of those, the items that reached it (``item_scraped``), as the URL ledger settles
    #: them once the page's whole output is through: the others a later component did not
    #: keep (a project's spider middleware after the page pass, an item pipeline dropped
    #: them), the record's ``items_not_kept``.
    kept: int = 0
    #: Handed over once the scraper said the response's whole output is through (its items'
    #: fates known: the URL ledger counts them); ``False``: at the end of one pass of it
    #: (Scrapy moved what says when all of it is), every item passed on taken as kept.
    through: bool = False
    #: Items refused, by reason and the sentence that said it, in the order met (read from a
    #: record: all under its ``item_reason`` and ``item_why``).
    dropped: dict[tuple[str, str], int] = field(default_factory=dict)
    #: The reason and sentence of the latest item refused (``""``: none was).
    reason: str = ""
    why: str = ""
    #: The links not followed, in the order met (read from a record: those it names), and
    #: how many more a record counts without naming them.
    links: list[Link] = field(default_factory=list)
    unnamed: int = 0

    def item_refused(self, reason: str, why: str) -> None:
        key = (reason, why)
        self.dropped[key] = self.dropped.get(key, 0) + 1
        self.reason, self.why = key

    def link_refused(self, url: str, reason: str, why: str) -> None:
        self.links.append(Link(url, reason, why))

    @property
    def items_dropped(self) -> int:
        return sum(self.dropped.values())

    @property
    def not_kept(self) -> int:
        """Items passed on that a later component of the crawl did not keep."""
        return self.passed - self.kept

    def part(self) -> dict[str, Any]:
        """Its fields of a ``url`` record, in the order they are written."""
        part: dict[str, Any] = {
            "items_kept": self.kept,
            "items_dropped": sum(self.dropped.values()),
        }
        if self.kept < self.passed:
            part["items_not_kept"] = self.passed - self.kept
        if self.reason:
            part["item_reason"] = self.reason
            if self.why:
                part["item_why"] = self.why
        links = self.links
        if links or self.unnamed:
            part["links_not_followed"] = len(links) + self.unnamed
            if links:
                part["not_followed"] = [link.url for link in links[:NOT_FOLLOWED_KEPT]]
        return part

    @classmethod
    def from_part(cls, record: Mapping[str, Any]) -> PageOutput | None:
        """The output a ``fetched`` record counts (``None``: it counts none, as a download no
        page pass read; a count not of its type is a missing one)."""
        kept, dropped = _count(record.get("items_kept")), _count(record.get("items_dropped"))
        if kept is None and dropped is None:
            return None
        reason, why = text(record.get("item_reason")), text(record.get("item_why"))
        named = [Link(url) for url in items(record.get("not_followed")) if isinstance(url, str)]
        links = _count(record.get("links_not_followed")) or 0
        return cls(
            (kept or 0) + (_count(record.get("items_not_kept")) or 0),
            kept or 0,
            True,
            {(reason, why): dropped} if dropped else {},
            reason,
            why,
            named,
            max(links - len(named), 0),
        )


def _count(value: Any) -> int | None:
    """A count of a page's output: a whole number of 0 or more, else ``None``."""
    number = whole(value)
    return number if number is not None and number >= 0 else None


class FileOutcome(NamedTuple):
    """What became of the file a request downloaded for a media pipeline, as its ``file``
    record says it (docs/media.md): its fate (a :class:`FileFate` word), the sentence that
    refused or marked it, and the pipeline's error."""

    fate: str
    why: str = ""
    error: str = ""


#: A refused request's ``refused_by`` (the trail's word) -> the reason it stands for: the
#: first of :data:`REASONS`' rows that writes it (``unreachable``: robots.txt's, unless the
#: record names a tdmrep.json given up on).
REASON_OF: Final[Mapping[str, str]] = MappingProxyType(
    {
        row.refused_by: word
        for word, row in reversed(list(REASONS.items()))
        if row.refused_by and word in set(Reason)
    }
)


@dataclass(slots=True)
class UrlEntry:
    """One request, from the moment it is scheduled (or decided, unscheduled) to its fate."""

    #: The URL requested (the URL it was sent as, when a component changed it after its
    #: decision and it was decided again: ``sent``).
    url: str
    #: Downloads tried (a try held or refused as it was to be sent is taken back).
    attempts: int = 0
    #: The status of the latest response (``None``: none, or a redirect's reason unknown).
    status: int | None = None
    #: How many times it waited for its origin's documents.
    held: int = 0
    #: What robots.txt said (``None``: no robots.txt decided it).
    robots: RobotsPart | None = None
    #: The tdmrep.json snapshot it was decided with (``None``: none checked; ``""``:
    #: given up on as unreachable).
    tdm: str | None = None
    #: Its response came: the fate waits for its page's output.
    fetched: bool = False
    #: RSL license URL -> the snapshot it was decided with (``None``: none checked).
    licenses: dict[str, str] | None = None
    #: The id of the earlier record of the same URL in this crawl (``again``).
    earlier: str = ""
    #: How the request as sent differs from the one decided (``None``: it does not).
    sent: str | None = None
    #: When it last left for the network (POSIX seconds; ``None``: never), and until when
    #: the verdict it was sent under held then (``None``: no end).
    sent_at: float | None = None
    expires: float | None = None
    #: Downloaded without the scheduler (a media pipeline's file, a callback's own fetch).
    unscheduled: bool = False
    #: Its fate, once final (``None``: open), and the record's own sentence (``why``: the
    #: refusal's, the failure's, why the crawl ended first).
    fate: Fate | None = None
    why: str = ""
    #: Why it was refused (a :class:`Reason`, or another add-on's word; read back from a
    #: record by :func:`reason_of`), and what refused it in the trail's words (its
    #: ``refused_by``: a :class:`RefusedBy` word, or the reason's own where it has none).
    reason: str = ""
    refused_by: str = ""
    #: Where a redirect went (``to``).
    to: str = ""
    #: A fetched page's output: its items kept and dropped, its links not followed
    #: (``None``: no page pass read it, as a file a media pipeline downloaded); of a download
    #: failed or refused, the items its errback yielded that were kept.
    output: PageOutput | None = None
    #: The ``usage`` part (the usage decision, with every signal) and a fetched page's
    #: ``page`` part (what it said), as written (:mod:`rep_engine.trail.lines`).
    usage: dict[str, Any] | None = None
    page: dict[str, Any] | None = None
    #: What a 402 answer said of its price, by field (``crawler-price``,
    #: ``crawler-error``), each cut as :func:`rep_engine.trail.lines.payment_part` cuts it
    #: (``None``: it said neither, or no 402 came).
    payment: dict[str, str] | None = None
    #: What became of the file it downloaded for a media pipeline (its ``file`` record,
    #: read beside it): never written in its line.
    file: FileOutcome | None = None
    #: Its response came from a downloader middleware before scrapy_rep's verdict, which
    #: answered it itself: no download, no verdict (``answered``: :data:`ANSWERED`); its
    #: ``robots`` part says what the crawl's robots.txt said of it then, if it had one
    #: (``fetched``, or ``redirected``: a redirect it answered so).
    answered: bool = False
    #: When that response was decided (POSIX seconds; ``None``: not answered so): when it
    #: came, or, come before its origin's documents were had, once they were (``held``):
    #: the documents its ``robots`` part and its page were decided with are those the
    #: crawl had then.
    answered_at: float | None = None
    #: The verdict it was last decided with and the facts it was decided on (``None``: not
    #: decided), for the ledger's readers (the command-line tools print them): never
    #: written, neither in its line nor in its state. A :class:`~rep_engine.verdict.decide.Allowed`
    #: or :class:`~rep_engine.verdict.decide.Refused` and its
    #: :class:`~rep_engine.verdict.decide.RequestFacts`, held as values here: the verdict's floor
    #: is above the contract's, which imports none of it.
    decision: tuple[Any, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def replayed(self) -> bool:
        """Whether Scrapy's HTTP cache replayed its page (its ``page`` part says
        ``cached``): nothing went on the wire."""
        page = self.page
        return page is not None and page.get("cached", False) is not False

    def line(self, run: str, key: str, now: str = "") -> dict[str, Any]:
        """The ``url`` record of this entry, whose fate is final, written at ``now`` (ISO
        8601; ``""``: the clock's): its request, then what its fate says (``to``,
        ``refused_by``, ``why``, the page's output, ``usage``, ``page``), then its history
        and the document versions that decided it."""
        record: dict[str, Any] = {
            "type": "url", "run": run, "time": now or iso_time(), "id": key, "url": self.url,
            "fate": self.fate, "attempts": self.attempts, "status": self.status,
        }  # fmt: skip
        if self.to:
            record["to"] = self.to
        if self.fate is Fate.REFUSED:
            record["refused_by"] = self.refused_by
        if self.why:
            record["why"] = self.why
        if self.output is not None:
            record.update(self.output.part())
        if self.usage is not None:
            record["usage"] = self.usage
        if self.page is not None:
            record["page"] = self.page
        if self.payment:
            record["payment"] = self.payment
        # its history, and the document versions that decided it
        if self.unscheduled:  # downloaded without the scheduler: no dupefilter let it through
            record["unscheduled"] = True
        if self.answered:  # a response no download made, no verdict reached
            record["answered"] = True
            if self.answered_at is not None:
                record["answered_at"] = iso_time(self.answered_at)
        if self.earlier:
            record["again"] = self.earlier
        if self.held:
            record["held"] = self.held
        if self.robots is not None:
            record["robots"] = self.robots.part()
        if self.tdm is not None:
            record["tdmrep"] = self.tdm
        if self.licenses:
            record["rsl"] = self.licenses
        if self.sent:
            record["sent"] = self.sent
        if self.sent_at is not None:
            record["sent_at"] = iso_time(self.sent_at)
            if self.expires is not None:
                record["expires"] = iso_time(self.expires)
        return record

    @classmethod
    def from_line(cls, record: Mapping[str, Any]) -> UrlEntry:
        """The entry a ``url`` (or ``file``) record was written from: ``entry.line(the
        record's run, id, time)`` is the record again, without ``prev``. A value not of its
        type is read as a missing one: never raises."""
        get = record.get
        robots, sent_at, expires, usage, page, payment = (
            get(name) for name in ("robots", "sent_at", "expires", "usage", "page", "payment")
        )
        fate = Fate.of(get("fate"))
        tdm = tdm if isinstance(tdm := get("tdmrep"), str) else None
        by = text(get("refused_by")) if fate is Fate.REFUSED else ""
        return cls(
            text(get("url")),
            whole(get("attempts")) or 0,
            whole(get("status")),
            whole(get("held")) or 0,
            RobotsPart.from_part(robots) if isinstance(robots, Mapping) else None,
            tdm,
            fate in RESPONSE_FATES,
            {text(k): text(v) for k, v in mapping(get("rsl")).items()} or None,
            text(get("again")),
            text(get("sent")) or None,
            _seconds(sent_at),
            _seconds(expires) if sent_at else None,
            get("unscheduled") is True,
            fate,
            text(get("why")),
            reason_of(by, tdm) if by else "",
            by,
            text(get("to")),
            PageOutput.from_part(record) if fate in _WITH_OUTPUT else None,
            usage if isinstance(usage, dict) else None,
            page if isinstance(page, dict) else None,
            {k: v for k, v in payment.items() if isinstance(v, str)} or None
            if isinstance(payment, dict)
            else None,
            answered=(answered := get("answered") is True and fate in _ANSWERABLE),
            answered_at=_seconds(get("answered_at")) if answered else None,
        )

    @classmethod
    def from_state(cls, saved: Any, version: int = STATE_VERSION) -> UrlEntry:
        """An open entry ``JOBDIR`` kept, by its state's ``version``: its ``url`` line (read
        by :meth:`from_line`); before version 6 its fields by name (version 5), or a list
        read by place (url, attempts, status, -, held, -, robots, tdmrep, fetched,
        dont_filter, then licenses, earlier, sent, sent_at, expires as they were added;
        before the earlier's id, a ``""`` tdmrep meant none), each said as its line says it
        (a robots part as its ``robots`` part, seconds as ISO 8601) and read by
        :meth:`from_line` too. A value not of its field's type (a hand-edited state) is read
        as a missing one, as in every trail line: never raises."""
        if version >= 6:
            return cls.from_line(mapping(saved))
        if isinstance(saved, list):  # an earlier version's places, as its fields by name
            old = [*saved, *[None] * 15]
            tdm = old[7] if len(saved) > 10 else (old[7] or None)
            places = (*old[:3], old[4], old[6], tdm, old[8], *old[10:15])
            saved = dict(zip(_STATE_FIELDS, places, strict=False))
        kept = mapping(saved)
        line = {_LINE_NAMES.get(name, name): kept.get(name) for name in _STATE_FIELDS}
        robots = line["robots"]
        if isinstance(robots, list):  # a RobotsPart's values in order
            line["robots"] = robots = dict(zip(_ROBOTS_NAMES, robots, strict=False))
            robots["override_ends"] = _iso_or_none(robots.get("override_ends"))
        line["sent_at"], line["expires"] = map(_iso_or_none, (line["sent_at"], line["expires"]))
        entry = cls.from_line(line)
        entry.fetched = kept.get("fetched") is True
        return entry


def reason_of(refused_by: str, tdm: str | None) -> str:
    """Why a record was refused, read from its ``refused_by``: the :class:`Reason` the
    word stands for (``unreachable``: robots.txt's, but a tdmrep.json's where the record
    names one given up on, ``tdm == ""``), another add-on's word as written."""
    reason = REASON_OF.get(refused_by, refused_by)
    if reason == Reason.ROBOTSTXT_UNREACHABLE and tdm == "":
        return Reason.TDMREP_UNREACHABLE
    return reason


#: An open entry's fields ``JOBDIR`` kept before version 6 (by name; before version 5, by
#: place in this order), and the names its ``url`` line gives those it names otherwise.
_FIELDS: Final = tuple(one.name for one in fields(UrlEntry))
_STATE_FIELDS: Final = _FIELDS[: _FIELDS.index("fate")]
_LINE_NAMES: Final = {"tdm": "tdmrep", "licenses": "rsl", "earlier": "again"}
#: A robots part's names in its ``robots`` part, in the order of :class:`RobotsPart`.
_ROBOTS_NAMES: Final = ("snapshot", *RobotsPart._fields[1:])


def _iso_or_none(seconds: Any) -> str | None:
    """POSIX seconds kept in ``JOBDIR`` before version 6, as a line writes them (``None``:
    not a number a clock can hold)."""
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
        try:
            return iso_time(seconds)
        except (ValueError, OverflowError, OSError):  # not finite, or past any clock
            pass
    return None


def seconds_of(stamp: Any, naive: Literal["utc", "local"] | None = None) -> float | None:
    """POSIX seconds of an ISO 8601 time (``Z`` or an offset), the one reader of a time
    of the four parts; ``naive`` says what a time without its zone is: ``None`` refuses
    it (a trail's times are written with theirs), ``"utc"`` reads it in UTC (a
    ``WARC-Date``, ``--as-of``), ``"local"`` in the machine's zone. ``None``: not a
    string, not a time, or one no clock can hold (year 1 read in the machine's zone)."""
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        if moment.tzinfo is None and naive != "local":
            if naive is None:
                return None
            moment = moment.replace(tzinfo=timezone.utc)
        seconds = moment.timestamp()
    except (ValueError, OverflowError, OSError):
        return None
    return seconds if math.isfinite(seconds) else None


def _seconds(stamp: Any) -> float | None:
    """A time of a record as :func:`iso_time` wrote it (a hand-edited one without its zone:
    the machine's), half a millisecond past the one written, so that :func:`iso_time`
    (which cuts to the millisecond) writes it back the same."""
    seconds = seconds_of(stamp, "local")
    return None if seconds is None else seconds + 0.0005


# The words of a fate: one description of an entry, for every reader that says it.


@dataclass(frozen=True, slots=True)
class Described:
    """The words of a request's fate (:func:`describe`), for every reader that says it: the
    end-of-crawl report, ``audit show``, ``summary``, ``list``, the HTML report, ``export``,
    the command-line tools. They lay the words out (text, CSV, HTML); none words a fate.
    What a reader may not need (:attr:`story`, :attr:`signal`, :attr:`rule`) is said when
    asked (the report asks none of them, once per request)."""

    entry: UrlEntry
    #: The crawl's purposes, of which the first a usage signal denied names the signal
    #: that decided it.
    purposes: Sequence[str]
    #: The fate's word as the trail writes it (``""``: none: a download no entry follows).
    word: str
    #: The fate with what became of what it fetched (``fetched, item dropped``, ``fetched,
    #: file refused``, ``fetched, file marked``), else its word: what ``audit list`` and the
    #: HTML report show, and ``audit list --fate`` matches; and its colour in the HTML report.
    state: str
    colour: str
    #: The end-of-crawl report's words: the request in its closing line (``downloaded``,
    #: ``forbidden by robots.txt``), what happened to it on its URL's line, and the words of
    #: that a count follows (``downloaded`` in ``downloaded (200)``: ``downloaded twice
    #: (200)``).
    phrase: str
    said: str
    head: str
    #: What refused it, its items or its file (``refused_by``, ``item_reason``,
    #: ``purpose``), and the sentence that said it (``why``, ``item_why``, the file's).
    reason: str
    why: str
    #: The items of its page the crawl kept (a page ``audit export`` lists as an asset).
    kept: int
    #: What the crawl refused: the request, or the file it downloaded (the media gate's
    #: refusal); what it dropped after the fetch: items of its page, or that file.
    refused: bool
    dropped: bool
    #: The row of its fate (``None``: no word of :class:`Fate`) and of its file's.
    row: FateRow | None
    filed: FileFateRow | None

    @property
    def story(self) -> str:
        """What ``audit show`` says the record did (``was refused by robots.txt``; ``""``:
        no fate's word, :data:`UNKNOWN_FATE`)."""
        entry, row = self.entry, self.row
        if row is None:
            return ""
        if entry.fate is Fate.REFUSED:
            return f"{row.story} by {entry.refused_by or 'an unnamed check'}"
        if entry.fate is Fate.REDIRECTED:
            return f"{row.story} to {entry.to or None}"
        return row.story

    @property
    def signal(self) -> str:
        """What decided it (``audit summary``'s rows): ``refused by robots.txt``, ``refused
        by purpose (header …)``, ``denied by …``, ``overridden by REP_OVERRIDES: …``,
        ``allowed by a robots.txt rule``, ``no rule (allowed)``, ``file refused: …``."""
        return _deciding(self.entry, self.purposes, self.filed)

    @property
    def answers(self) -> list[str]:
        """Each of the crawl's purposes, its answer and the line that decided it
        (:func:`answers_said`): what ``audit show`` and ``audit check-bundle`` say."""
        return answers_said(self.entry.usage, self.purposes)

    @property
    def rule(self) -> str:
        """The robots.txt line that decided it (``line 2: Disallow: /private``), or why none
        did (``""``: no robots.txt part)."""
        robots = self.entry.robots
        if robots is None:
            return ""
        return f"line {robots.line}: {robots.rule}" if robots.line is not None else robots.why


def describe(entry: UrlEntry, purposes: Sequence[str] = ()) -> Described:
    """The words of ``entry``'s fate (``purposes``: the crawl's, of which the first a usage
    signal denied names the signal that decided it), from its fields alone: an entry the
    crawl settled and one read back from its line are said alike."""
    fate, output, file = entry.fate, entry.output, entry.file
    responded, answered, replayed = entry.status is not None, entry.answered, entry.replayed
    row = _fate_row(fate, responded, answered, replayed)
    filed = None if file is None else _file_row(file)
    word = str(fate or "")
    state, colour = word, row.colour if row is not None else "other"
    if row in NOT_DOWNLOADED:
        state = f"{word}, {row.report}"
    reason, why = entry.refused_by, entry.why
    refused, dropped = fate is Fate.REFUSED, False
    if fate is Fate.FETCHED and output is not None and output.dropped:
        state, colour, dropped = f"{word}, {ITEM_DROPPED}", DROPPED_COLOUR, True
        reason, why = output.reason, output.why
    elif fate is Fate.FETCHED and file is not None and filed is not None and filed.decided:
        state, colour = f"{word}, {filed.decided}", DROPPED_COLOUR
        reason, why = RefusedBy.PURPOSE, file.why
        refused = dropped = not filed.stored  # refused, not stored and marked
    phrase = phrase_of(fate, entry.reason, responded, answered, replayed)
    head, rest = _said(entry, filed)
    kept = output.kept if output is not None else 0
    return Described(
        entry, purposes, word, state, colour, phrase, head + rest, head, reason, why, kept,
        refused, dropped, row, filed,
    )  # fmt: skip


def _fate_row(fate: Fate | None, responded: bool, answered: bool, replayed: bool) -> FateRow | None:
    """The row that says a request of ``fate`` (``None``: no fate's word): a failed one
    whose response came, a fetched one answered without a download or replayed from the
    HTTP cache, each has its own."""
    if fate is Fate.FAILED and responded:  # its response came, then dropped
        return RESPONSE_DROPPED
    if fate is Fate.FETCHED and answered:  # a response no download made
        return ANSWERED
    if fate is Fate.FETCHED and replayed:  # a copy the HTTP cache kept
        return REPLAYED
    return FATE_ROWS[fate] if fate is not None else None


def phrase_of(
    fate: Fate | None,
    reason: str,
    responded: bool = False,
    answered: bool = False,
    replayed: bool = False,
) -> str:
    """The end-of-crawl report's words for a request of ``fate`` in its closing line
    (:attr:`Described.phrase`): a refused one's reason's row's (another add-on's reason:
    ``dropped``), else its fate's row's; what they depend on (the URL ledger counts its
    requests by them): why it was refused, whether its response came (a failed one),
    whether it was answered without a download or replayed (a fetched one)."""
    if fate is Fate.REFUSED:
        row = REASONS.get(reason)
        return (row.report if row is not None and row.fate is fate else "") or "dropped"
    said = _fate_row(fate, responded, answered, replayed)
    return said.report if said is not None else ""


def _file_row(file: FileOutcome) -> FileFateRow | None:
    """The row of a file's fate (``None``: no word of :class:`FileFate`)."""
    fate = FileFate.of(file.fate)
    return FILE_FATE_ROWS[fate] if fate is not None else None


def _said(entry: UrlEntry, filed: FileFateRow | None) -> tuple[str, str]:
    """What happened to the request, on its URL's line in the report, as the words a count
    follows (``downloaded``) and the rest (`` (200)``): its refusal's or failure's sentence,
    its download and status, where it was redirected; with the file it downloaded for a
    media pipeline, what became of that."""
    fate, why, status = entry.fate, entry.why, entry.status
    head, rest = why, ""
    if fate is Fate.REFUSED:
        head = _GIVEN_UP if entry.reason == Reason.ROBOTSTXT_UNREACHABLE else why
    elif fate is Fate.FETCHED and entry.answered:
        head, rest = _ANSWERED, f" ({status}){_robots_said(entry.robots)}"
    elif fate is Fate.FETCHED and entry.replayed:
        head, rest = "replayed from Scrapy's HTTP cache, not downloaded", f" ({status})"
    elif fate is Fate.FETCHED:
        head, rest = f"downloaded{_WITHOUT if entry.unscheduled else ''}", f" ({status})"
    elif fate is Fate.PAYMENT_REQUIRED:
        head, rest = FATE_ROWS[fate].report, f" ({_payment_said(entry)}): not paid, not retried"
    elif fate is Fate.REDIRECTED:
        head, rest = "redirected", f"{f' ({status})' if status is not None else ''} to {entry.to}"
    elif fate is Fate.FAILED and status is not None:
        head, rest = "downloaded", f" ({status}), then dropped by a downloader middleware: {why}"
    elif fate is None:  # a download no entry follows: an item pipeline's, without a verdict
        head, rest = "downloaded by an item pipeline", f" ({status})"
    elif fate is Fate.FAILED and entry.attempts:  # tried: no response (its why: the exception)
        head = f"not downloaded: {NO_RESPONSE}"
    else:  # dropped before its download (a component's IgnoreRequest), or the crawl ended
        head = f"not downloaded: {why}"
    file = entry.file
    if file is None or filed is None:
        return head, rest
    if filed is FILE_FATE_ROWS[FileFate.FAILED]:
        return head, f"{rest}; {filed.story} ({file.error})"
    return head, f"{rest}; {filed.story}: {file.why}" if file.why else rest


#: A request downloaded without the scheduler (a media pipeline's file, a callback's own
#: fetch), and one dropped when its robots.txt was given up on (its hold says the rest).
_WITHOUT: Final = " without the scheduler"
_GIVEN_UP: Final = "dropped when robots.txt was given up on (see its origin above)"
#: A response a downloader middleware before scrapy_rep's made itself (:data:`ANSWERED`).
_ANSWERED: Final = "answered by a downloader middleware, not downloaded: no verdict reached it"


def payment_said(payment: Mapping[str, str] | None) -> str:
    """What a 402 answer said of its price (``crawler-price: USD 0.01``; ``""``: nothing)."""
    return "; ".join(f"{name}: {value}" for name, value in (payment or {}).items())


def _payment_said(entry: UrlEntry) -> str:
    """A 402 answer, as the report says it: its status, whether Scrapy's HTTP cache
    replayed it, what it said of its price."""
    said = [f"{entry.status}" + (" replayed from Scrapy's HTTP cache" if entry.replayed else "")]
    price = payment_said(entry.payment)
    return "; ".join([*said, price] if price else said)


def _robots_said(robots: RobotsPart | None) -> str:
    """What the crawl's robots.txt said of a request a downloader middleware answered
    before the verdict (its line, or why none decided), as the report adds it."""
    if robots is None:
        return "; its robots.txt was not known then"
    if robots.line is not None:
        return f"; robots.txt line {robots.line}: {robots.rule}"
    return f"; robots.txt: {robots.why}" if robots.why else ""


def _deciding(entry: UrlEntry, purposes: Sequence[str], filed: FileFateRow | None) -> str:
    """What decided ``entry`` (:attr:`Described.signal`)."""
    fate, usage, robots, file = entry.fate, entry.usage, entry.robots, entry.file
    if fate is Fate.FETCHED and file is not None and filed is not None and filed.decided:
        return f"{filed.decided}: {file.why}" if file.why else filed.decided
    if fate is Fate.FETCHED and entry.answered:
        return f"{ANSWERED.report} (no verdict)"
    no = denied_purposes(usage, tuple(purposes)) if purposes else []
    if fate is Fate.REFUSED:
        by = entry.refused_by or "unknown"  # as written, for the reader
        said = (
            decider(usage, no[0]) if no and RefusedBy.of(by) is not RefusedBy.ROBOTS_TXT else None
        )
        if said:
            return f"refused by {by} ({named(said)})"
        expired = robots.override_expired if robots else ""
        return f"refused by {by} (override expired: {expired})" if expired else f"refused by {by}"
    if no:
        said = decider(usage, no[0])
        return f"denied by {named(said) if said else 'a usage signal'}"
    if robots is not None and robots.overridden:
        return f"{OVERRIDDEN_BY}{robots.overridden}"
    if robots is not None and robots.line is not None:
        return "allowed by a robots.txt rule"
    return "no rule (allowed)"


class TrailLine(Protocol):
    """A line of a trail as :class:`rep_engine.trail.read.Line` holds it: what
    :func:`item_of` reads of it."""

    @property
    def number(self) -> int: ...

    @property
    def record(self) -> dict[str, Any] | None: ...

    @property
    def type(self) -> str: ...


def decider(usage: Any, purpose: str) -> dict[str, Any] | None:
    """The signal that decided ``purpose`` in a recorded usage decision (a ``url`` or
    ``item`` record's ``usage``)."""
    index = mapping(mapping(usage).get("decided_by")).get(purpose)
    signals = items(mapping(usage).get("signals"))  # a hand-edited record's may be anything
    if isinstance(index, int) and 0 <= index < len(signals) and isinstance(signals[index], dict):
        return signals[index]  # type: ignore[no-any-return]
    return None


def named(signal: dict[str, Any]) -> str:
    """What a deciding signal's site said (its ``source``: ``header Content-Usage:
    train-ai=n``), else its vocabulary (a record without its source)."""
    return str(signal.get("source") or signal.get("vocabulary"))


def answers_said(usage: Any, purposes: Sequence[str] = ()) -> list[str]:
    """Each purpose's answer in a recorded usage decision (a ``url``, ``file`` or ``item``
    record's ``usage``) and what decided it: ``ai-train: denied by robots.txt line 3:
    Content-Usage: train-ai=n``, ``search: unknown``; of ``purposes`` (none: every purpose
    it answers; one it does not answer is unknown)."""
    answers = mapping(mapping(usage).get("answers"))
    said = []
    for purpose in purposes or tuple(map(str, answers)):
        answer, signal = answers.get(purpose), decider(usage, purpose)
        verdict = "unknown" if answer is None else "allowed" if answer else "denied"
        said.append(f"{purpose}: {verdict}{f' by {named(signal)}' if signal else ''}")
    return said


def denied_purposes(usage: Any, purposes: tuple[str, ...]) -> list[str]:
    """Of ``purposes`` (none: every purpose the decision answers), those it says no to."""
    answers = mapping(mapping(usage).get("answers"))
    return [p for p in purposes or tuple(map(str, answers)) if answers.get(p) is False]


@dataclass(frozen=True, slots=True)
class SnapshotLine:
    """A trail's ``snapshot`` line, read once (:meth:`of`): a document body that decided
    something (``<trail>.d/<sha256>``), where it came from and what its download came to
    (:func:`rep_engine.trail.lines.snapshot_line` writes it), each field not of its type
    read as a missing one."""

    run: str
    sha256: str
    #: ``robots.txt``, ``tdmrep.json``, ``rsl`` or ``page``, as written.
    kind: str
    url: str
    final_url: str
    status: int | None
    #: Its outcome (``None``: no word of :class:`SnapshotOutcome`), and the word as written
    #: (``""``: none; an earlier trail's give-up verdict is quoted in it).
    outcome: SnapshotOutcome | None
    said: str
    detail: str
    #: When the line was written and its body fetched (POSIX seconds; ``None``: not said,
    #: or not a time with its zone).
    time: float | None
    fetched: float | None
    #: Its body's size (``bytes``; ``None``: not said).
    size: int | None
    #: The record as stored.
    record: dict[str, Any]

    @classmethod
    def of(cls, record: dict[str, Any]) -> SnapshotLine:
        """The line ``record`` says (never raises)."""
        get = record.get
        said = text(get("outcome"))
        return cls(
            text(get("run")), text(get("sha256")), text(get("kind")), text(get("url")),
            text(get("final_url")), whole(get("status")), SnapshotOutcome.of(said), said,
            text(get("detail")), seconds_of(get("time")), seconds_of(get("fetched")),
            whole(get("bytes")), record,
        )  # fmt: skip


#: A re-check's header's ``recheck`` part says ``documents`` so when it fetched each
#: document again (else it names the WARC files it read them from).
DOCUMENTS_FETCHED: Final = "fetched"


@dataclass(frozen=True, slots=True)
class RunHeader:
    """A trail's ``run`` header, read once (:meth:`of`): what was crawled (or re-checked),
    by whom, under which rules (docs/audit-trail.md, ``run``), each field not of its type
    read as a missing one."""

    run: str
    #: When the run started (ISO 8601, as written).
    time: str
    spider: str
    #: The release that wrote it, and the trail's schema (``None``: not said, schema 1).
    version: str
    schema: int | None
    purposes: tuple[str, ...]
    #: Every crawler name its requests were held to, and its ``User-Agent``.
    agents: tuple[str, ...]
    user_agent: str
    profile: str
    #: The settings in force, by name (``{}``: none said).
    settings: dict[str, Any]
    #: The paused run a run resumed from ``JOBDIR`` carries on, its trail and the SHA-256
    #: of its end line (``""``: none said).
    resumes: str
    resumes_trail: str
    resumes_head: str
    #: The scheduler it ran with (``None``: a header of an earlier release, which did not
    #: say it).
    scheduler: str | None
    #: How it signed its requests (``None``: it did not), and a re-check's own part.
    web_bot_auth: dict[str, Any] | None
    recheck: dict[str, Any] | None
    #: The record as stored.
    record: dict[str, Any]

    @classmethod
    def of(cls, record: dict[str, Any]) -> RunHeader:
        """The header ``record`` says (never raises)."""
        get = record.get
        scheduler, signed, recheck = get("scheduler"), get("web_bot_auth"), get("recheck")
        return cls(
            text(get("run")), text(get("time")), text(get("spider")), text(get("version")),
            whole(get("schema")), _strings(get("purposes")), _strings(get("agents")),
            text(get("user_agent")), text(get("profile")), mapping(get("settings")),
            text(get("resumes")), text(get("resumes_trail")), text(get("resumes_head")),
            scheduler if isinstance(scheduler, str) else None,
            signed if isinstance(signed, dict) else None,
            recheck if isinstance(recheck, dict) else None,
            record,
        )  # fmt: skip

    @property
    def store(self) -> str:
        """The robots.txt store it shared (``REP_ROBOTSTXT_CACHE``: a Redis URL; ``""``:
        its own memory, or not said)."""
        store = text(self.settings.get("REP_ROBOTSTXT_CACHE"))
        return "" if store == "memory" else store

    def said(self) -> str:
        """The crawl it belongs to, in words: its spider, purposes, agents, scheduler and
        shared robots.txt store (``audit verify``'s lines on trails of several crawls)."""
        scheduler = self.scheduler or "not recorded"
        store = f", robots.txt store {self.store}" if self.store else ""
        purposes, agents = ", ".join(self.purposes) or "-", ", ".join(self.agents) or "-"
        return (
            f"spider {self.spider or '?'}, purposes {purposes}, agents {agents}, "
            f"scheduler {scheduler}{store}"
        )


def _strings(value: Any) -> tuple[str, ...]:
    """A field that must be a list of strings: its strings."""
    return tuple(one for one in items(value) if isinstance(one, str))


class FateRecord(NamedTuple):
    """A ``url`` or ``file`` record, read (:meth:`of`; a tuple: ``audit verify`` reads one
    per record)."""

    #: ``url`` or ``file``.
    kind: str
    run: str
    time: str
    id: str
    #: The entry it was written from (:meth:`UrlEntry.from_line`): its URL, status, fate,
    #: ``refused_by``, ``why``, ``to``, its page's output, ``robots`` part, ``usage``...
    entry: UrlEntry
    #: The fate's word (``""``: none, or not a string: :attr:`written` says it).
    word: str
    #: Its attempts as written (``None``: not said, where the entry counts ``0``).
    attempts: int | None
    #: The record as stored (its ``page`` part, links, for a re-derivation).
    record: dict[str, Any]

    @classmethod
    def of(cls, record: dict[str, Any]) -> FateRecord:
        """``record`` read; never raises."""
        get = record.get
        kind = text(get("type"))
        # a file's fate is a word of FileFate, never the entry's (its download's record says it)
        entry = UrlEntry.from_line(record if kind != "file" else {**record, "fate": None})
        return cls(kind, text(get("run")), text(get("time")), text(get("id")), entry,
                   text(get("fate")), whole(get("attempts")), record)  # fmt: skip

    @property
    def fate(self) -> Fate | None:
        """A ``url`` record's fate (``None``: no word of :class:`Fate`)."""
        return self.entry.fate

    @property
    def file_fate(self) -> FileFate | None:
        """A ``file`` record's fate (``None``: no word of :class:`FileFate`)."""
        return FileFate.of(self.word)

    @property
    def outcome(self) -> FileOutcome:
        """A ``file`` record's fate, with the sentence that refused or marked the file and the
        pipeline's error: what the ``url`` record of its download reads beside it."""
        return FileOutcome(self.word, self.entry.why, text(self.record.get("error")))

    @property
    def written(self) -> str:
        """The fate as written: its word, else the value's ``str`` (``None``: missing)."""
        return self.word or str(self.record.get("fate"))

    @property
    def origin(self) -> str:
        """The origin its robots.txt part names, else its URL's (``(no origin)``)."""
        return named_origin(self.record, self.entry.url) or "(no origin)"


def named_origin(record: dict[str, Any], url: str) -> str:
    """The origin a record's ``robots`` part names (an earlier release wrote it as
    ``origin``), else ``url``'s (``""``: none)."""
    return text(mapping(record.get("robots")).get("origin")) or str(origin_of(url) or "")


@dataclass(frozen=True, slots=True)
class ItemRecord:
    """A recheck's ``item`` line, read (:func:`item_of`)."""

    #: Its line in the trail.
    number: int
    run: str
    time: str
    url: str
    #: The item's line or row in the dataset (``None``: not said), and the file it is in
    #: when the collection is several (its shard; ``""``: one file).
    line: int | None
    shard: str
    #: ``kept``, ``refused`` or ``unknown`` (:class:`ItemStatus`); as written when it is
    #: none of them (a hand-edited trail).
    status: str
    #: What refused it (``robots.txt``, ``purpose``, ``page``), or left it unknown
    #: (``unreachable``); ``""`` for a kept item.
    refused_by: str
    #: What its page said, for a refusal by its page (``noindex``, ``purpose``…).
    item_reason: str
    #: The record's own sentence (``Forbidden by … (line 2: Disallow: /private)``).
    why: str
    #: The signal that decided, in the trail's words: ``robots.txt`` (its Allow or
    #: Disallow line), what a usage signal's site said (``robots.txt line 3:
    #: Content-Usage: /train train-ai=n``, ``tdmrep.json entry 1 (location "/tdm/*")``),
    #: the page's own statement; ``""`` when no document spoke (no rule, not had).
    signal: str
    #: Its ``robots`` part (:meth:`RobotsPart.from_part`: the line that decided for the
    #: item's agent and its rule, or why none did; all ``""`` and ``None`` when it has none).
    robots: RobotsPart
    #: Each document version it names: (``robots.txt``, ``tdmrep.json`` or the RSL
    #: license's URL, its snapshot); ``""``: the document was not had.
    documents: tuple[tuple[str, str], ...]
    #: With a trail or an export as the recheck's input: its status then (``""``: not
    #: said) and whether it changed.
    then: str
    changed: bool | None
    #: The record as stored (its ``usage`` and ``page`` parts, for a re-derivation).
    record: dict[str, Any]

    @property
    def origin(self) -> str:
        """The item's origin (``(no origin)`` for a URL without one)."""
        return str(origin_of(self.url) or "(no origin)")

    @property
    def reason(self) -> str:
        """What refused it or left it unknown: ``refused_by``, or the page's
        ``item_reason`` for a refusal by its page (as ``audit list`` filters by)."""
        if self.refused_by == RefusedBy.PAGE:
            return self.item_reason or self.refused_by
        return "" if self.status == ItemStatus.KEPT else self.refused_by

    @property
    def decided(self) -> str:
        """What decided it, in a few words: ``refused by robots.txt line 2 (Disallow:
        /private)``, ``refused by purpose (tdmrep.json entry 1 (location "/tdm/*"))``,
        ``allowed by robots.txt line 4 (Allow: /a)``, ``allowed: no rule matches`` (kept),
        ``not had: tdmrep.json`` (unknown)."""
        robots = self.robots
        if self.status == ItemStatus.REFUSED:
            by = self.refused_by or "an unnamed check"
            if self.refused_by == RefusedBy.ROBOTS_TXT and robots.line is not None:
                return f"refused by robots.txt line {robots.line} ({robots.rule})"
            if self.refused_by == RefusedBy.PAGE:
                said = self.signal or self.item_reason
                return f"refused by its page ({said})" if said else "refused by its page"
            return f"refused by {by} ({self.signal})" if self.signal else f"refused by {by}"
        if self.status == ItemStatus.KEPT:
            if robots.overridden:
                return f"overridden by REP_OVERRIDES: {robots.overridden}"
            if robots.line is not None:
                return f"allowed by robots.txt line {robots.line} ({robots.rule})"
            return f"allowed: {robots.why or 'no rule'}"
        if self.status == ItemStatus.UNKNOWN:
            missing = [name for name, sha in self.documents if not sha]
            if missing:
                return f"not had: {', '.join(missing)}"
            return self.why or self.refused_by or "undecided"
        return f"status {self.status!r}"

    @property
    def snapshots(self) -> tuple[str, ...]:
        """The snapshots it names (each once, in its record's order)."""
        return tuple(dict.fromkeys(sha for _, sha in self.documents if sha))


def _documents(
    record: dict[str, Any], robots: dict[str, Any], status: str
) -> tuple[tuple[str, str], ...]:
    """The (name, digest) of each document an ``item`` record read: robots.txt,
    tdmrep.json, then each RSL document by its address."""
    documents: list[tuple[str, str]] = []
    if robots or status == ItemStatus.UNKNOWN:  # an unknown item without one: robots.txt not had
        documents.append((RefusedBy.ROBOTS_TXT, text(robots.get("snapshot"))))
    if "tdmrep" in record:
        documents.append((RefusedBy.TDMREP_JSON, text(record.get("tdmrep"))))
    rsl = record.get("rsl")
    if isinstance(rsl, dict):
        documents += [(text(url), text(sha)) for url, sha in rsl.items()]
    return tuple(documents)


def _signal(
    record: dict[str, Any],
    purposes: tuple[str, ...],
    status: str,
    refused_by: str,
    robots_line: int | None,
) -> str:
    """The signal that refused (or kept by robots.txt) an ``item`` record ("": none)."""
    usage = record.get("usage")
    no = denied_purposes(usage, purposes)
    said = decider(usage, no[0]) if no else None
    if refused_by == RefusedBy.ROBOTS_TXT or (
        robots_line is not None and status == ItemStatus.KEPT
    ):
        return RefusedBy.ROBOTS_TXT if robots_line is not None else ""
    if said is not None and status != ItemStatus.KEPT:
        return named(said)
    if refused_by == RefusedBy.PAGE:
        return text(record.get("why"))
    return ""


def item_of(line: TrailLine, purposes: tuple[str, ...] = ()) -> ItemRecord | None:
    """The ``item`` record of ``line`` (``None``: the line is no ``item`` line);
    ``purposes``: those of its run, of which the first a signal denied names the signal
    that refused it by purpose (none: the first its usage part denies)."""
    record = line.record
    if record is None or line.type != "item":
        return None
    robots = mapping(record.get("robots"))
    said = RobotsPart.from_part(robots)
    status = text(record.get("status")) or str(record.get("status"))
    refused_by = text(record.get("refused_by"))
    signal = _signal(record, purposes, status, refused_by, said.line)
    changed = record.get("changed")
    return ItemRecord(
        number=line.number,
        run=text(record.get("run")),
        time=text(record.get("time")),
        url=text(record.get("url")),
        line=whole(record.get("line")),
        shard=text(record.get("shard")),
        status=status,
        refused_by=refused_by,
        item_reason=text(record.get("item_reason")),
        why=text(record.get("why")),
        signal=signal,
        robots=said,
        documents=_documents(record, robots, status),
        then=text(record.get("then")),
        changed=changed if isinstance(changed, bool) else None,
        record=record,
    )
