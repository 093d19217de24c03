"""What becomes of a request, and how each reader says it: one table (pure).

A request's :class:`Fate` is the word its audit record ends with (``fate``,
docs/audit-trail.md); the end-of-crawl report, ``audit summary``, ``audit list``, ``audit
show`` and the HTML report say the same fate of it. Why a request, a link or an item went
no further is one row of :data:`REASONS` (:class:`ReasonRow`), keyed by its word: a
:class:`Reason` (a refusal) or a :class:`Dropped` (a request dropped without a verdict).
Every reader looks its words up here, so that a new reason is one row, not four
bookkeepers (``tests/verdict/test_fates.py`` keeps every member in the table).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from rep_engine.verdict.reasons import Reason, Word
from rep_engine.verdict.signals import Action


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


#: What the end-of-crawl report calls the requests of each fate no reason names (its
#: closing line's words; a refused request is named by its reason's row).
FATE_PHRASES: Final[Mapping[Fate, str]] = MappingProxyType(
    {
        Fate.FETCHED: "downloaded",
        Fate.REDIRECTED: "redirected",
        Fate.FAILED: "no response",
        Fate.UNFINISHED: "unfinished",
    }
)


class Dropped(Word):
    """Why a request was dropped without a verdict: nothing refused it, it could not go
    on (``rep/requests/dropped/<word>``)."""

    #: Held when the spider closed, and it cannot be kept in ``JOBDIR`` (or read back).
    NOT_SERIALIZABLE = "not_serializable"


_FETCH: Final = frozenset({Action.FETCH})
#: Every request, and every item, not taken further, by its reason's word.
_REQUESTS: Final = "rep/requests/dropped/{reason}"
_ITEMS: Final = "rep/items/dropped/{reason}"


@dataclass(frozen=True)
class ReasonRow:
    """One reason a request, a link or an item went no further; by default a request
    refused before its fetch."""

    #: What it refuses: a request's fetch, a link's follow, an item's keep.
    refuses: frozenset[Action] = _FETCH
    #: The fate a request it stops leaves in the trail (``None``: no request of its own,
    #: a link or an item, counted on its page's record).
    fate: Fate | None = Fate.REFUSED
    #: The trail's ``refused_by`` word (``""``: it writes none).
    refused_by: str = ""
    #: The stats it counts (``{reason}``: its word; ``{purpose}``: the purpose refused).
    stats: tuple[str, ...] = ()
    #: The report's phrase: a request's fate in its closing line, or a link's line.
    report: str = ""
    #: The closing lines' phrase (``""``: not said there; those of a purpose are said by
    #: purpose).
    closing: str = ""
    #: It says nothing of what the site wants: the site's answer was never known (a
    #: document unreachable, the crawl closing, a bug of ours).
    unknown: bool = False


#: A request dropped as the spider closed (held for a document, or not kept in ``JOBDIR``).
_CLOSED: Final = ReasonRow(
    refused_by="closed", stats=(_REQUESTS,), report="dropped: the spider closed", unknown=True
)

#: Every reason, by its word (docs/reference.md 'Stats'), refusals first in the order the
#: closing line says them.
REASONS: Final[Mapping[str, ReasonRow]] = MappingProxyType(
    {
        Reason.FORBIDDEN: ReasonRow(
            refused_by="robots.txt",
            stats=(_REQUESTS, "robotstxt/forbidden"),
            report="forbidden by robots.txt",
            closing="forbidden by robots.txt",
        ),
        Reason.PURPOSE: ReasonRow(
            refuses=frozenset({Action.FETCH, Action.FOLLOW, Action.KEEP}),
            refused_by="purpose",
            stats=(
                _REQUESTS,
                "rep/purpose/requests_dropped/{purpose}",
                "rep/purpose/images_refused/{purpose}",
                _ITEMS,
                "rep/purpose/items_dropped/{purpose}",
            ),
            report="not fetched for the crawl's purpose",
            closing="denied for {purpose}",
        ),
        Reason.ROBOTSTXT_UNREACHABLE: ReasonRow(
            refused_by="unreachable",
            stats=(_REQUESTS,),
            report="dropped: robots.txt unreachable",
            closing="robots.txt given up on as unreachable",
            unknown=True,
        ),
        Reason.TDMREP_UNREACHABLE: ReasonRow(
            refused_by="unreachable",
            stats=(_REQUESTS,),
            report="dropped: tdmrep.json unreachable",
            closing="tdmrep.json given up on as unreachable",
            unknown=True,
        ),
        Reason.SPIDER_CLOSED: _CLOSED,
        Reason.INTERNAL_ERROR: ReasonRow(
            refused_by="internal_error",  # no RefusedBy member: written as the reason's word
            stats=(_REQUESTS, "rep/requests/internal_errors"),
            report="dropped",
            unknown=True,
        ),
        Reason.SENT_UNKNOWN: ReasonRow(
            refused_by="sent_unknown",  # no RefusedBy member: written as the reason's word
            stats=(_REQUESTS,),
            report="dropped: sent unchecked, a document it needs not known",
            unknown=True,
        ),
        Reason.NOFOLLOW: ReasonRow(
            refuses=frozenset({Action.FOLLOW}),
            fate=None,
            stats=(_REQUESTS, "rep/directives/requests_dropped/nofollow"),
            report="not followed (the page says nofollow)",
            closing="on nofollow pages",
        ),
        Reason.REL_NOFOLLOW: ReasonRow(
            refuses=frozenset({Action.FOLLOW}),
            fate=None,
            stats=(
                _REQUESTS,
                "rep/directives/requests_dropped/rel_nofollow",
            ),
            report='not followed (rel="nofollow")',
            closing='rel="nofollow"',
        ),
        Reason.NOINDEX: ReasonRow(
            refuses=frozenset({Action.KEEP}),
            fate=None,
            stats=(_ITEMS, "rep/directives/items_dropped/noindex"),
            closing="from noindex pages",
        ),
        Reason.UNAVAILABLE_AFTER: ReasonRow(
            refuses=frozenset({Action.KEEP}),
            fate=None,
            stats=(
                _ITEMS,
                "rep/directives/items_dropped/unavailable_after",
            ),
            closing="past unavailable_after",
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
#: The closing line's fates of requests, in its order (the rest after them).
REPORT_FATES: Final[tuple[str, ...]] = (
    FATE_PHRASES[Fate.FETCHED],
    FATE_PHRASES[Fate.REDIRECTED],
    *dict.fromkeys(
        row.report for row in REASONS.values() if row.fate is Fate.REFUSED and row.report
    ),
    FATE_PHRASES[Fate.FAILED],
)
