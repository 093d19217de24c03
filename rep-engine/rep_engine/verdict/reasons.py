"""Why scrapy_rep refused a request, a link or an item: one enum (pure).

Every refusal carries a :class:`Reason`: :attr:`rep_engine.verdict.Refused.reason` (the
verdict before the fetch), the ``reason`` of the ``request_refused`` and ``item_refused``
signals (the page pass after the fetch, the requests dropped when the spider closes),
and the stats named after it (``rep/requests/dropped/<reason>``). A member is a ``str``
whose value is the word those have always said, so logs, stats, signal handlers that
compare with the word and every file format read the same; code compares members
(``reason is Reason.FORBIDDEN``), never words (``tests/project/test_architecture.py``).
"""

from __future__ import annotations

import enum
from typing import TypeVar

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

    # Requests refused before the fetch (:func:`rep_engine.verdict.decide`).
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
