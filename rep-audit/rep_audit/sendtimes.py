"""When a record's request was sent, held against what bounds it (pure): its ``sent_at``
against its ``expires`` and the end of the override it went past, its crawl's start and
its record's ``time``; its ``expires`` against the longest a crawl uses a document
version (docs/audit-trail.md, ``audit verify``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from rep_audit.pages import instant
from rep_engine.records import SENT_FATES, mapping, text
from rep_engine.urls.origins import origin_of
from rep_engine.verdict.decide import Override


def sent_after_expiry(record: dict[str, Any], overrides: Sequence[Override] = ()) -> list[str]:
    """A request sent after what its verdict rests on stopped holding: its ``sent_at``
    past its ``expires`` (the freshness of the document versions it was decided with, or
    an override's expiry), or past the expiry of the override it went past
    (:func:`override_end`), whatever ``expires`` says. Times are read to the millisecond
    written: one in the same millisecond as its expiry is not after it."""
    sent = instant(text(record.get("sent_at")))
    if sent is None:
        return []
    found = []
    expires = text(record.get("expires"))
    if (until := instant(expires)) is not None and sent > until:
        found.append(f"sent at {record['sent_at']}, after what its verdict rests on had "
                     f"stopped holding ({expires})")  # fmt: skip
    robots = record.get("robots")
    if not isinstance(robots, dict) or not text(robots.get("overridden")):
        return found
    ends, written = override_end(record, overrides)
    if ends is None:
        found.append(f"sent at {record['sent_at']} past robots.txt by an override "
                     f"({text(robots.get('overridden'))}) whose expiry is given as no value: "
                     f"{written}; whether it had expired cannot be checked")  # fmt: skip
    elif sent > ends:
        found.append(f"sent at {record['sent_at']}, after the override it went past had "
                     f"expired ({written})")  # fmt: skip
    return found


def when_sent(
    record: dict[str, Any], start: str = "", overrides: Sequence[Override] = (),
    longest_use: float | None = None,
) -> list[str]:  # fmt: skip
    """What bounds a record's ``sent_at`` and ``expires`` (docs/audit-trail.md, ``audit
    verify``): ``sent_at`` not before its crawl started (``start``, the first run's
    header ``time``) nor after its record was written (``time``); without one, a request
    sent past robots.txt by an override, recorded after that override ended, cannot be
    checked (:func:`_not_sent_past_override`; a page Scrapy's HTTP cache replayed was not
    sent); and
    ``expires`` no later than the crawl could write it: the freshness of a document
    version fetched no later than the request was sent, at most ``REP_CACHE_MAX_TTL``,
    then its use while stale, at most ``REP_CACHE_STALE_MAX`` (``longest_use``: their
    sum in the run's settings, ``None``: not known), counted from ``sent_at``, else
    from the record's ``time`` (no request is sent after its record is written)."""
    written = text(record.get("sent_at"))
    if not written:  # sent, if at all, before its record was written
        written_at = text(record.get("time"))
        at = instant(written_at)
        unsent = _not_sent_past_override(record, overrides)
        if at is not None:
            unsent += _expires_bound(record, at, f"recorded at {written_at}", longest_use)
        return unsent
    sent = instant(written)
    if sent is None:
        return [f"its sent_at {record.get('sent_at')!r} is no time"]
    found = []
    begun, recorded = instant(start), instant(text(record.get("time")))
    if begun is not None and sent < begun:
        found.append(f"sent at {written}, before its crawl started ({start})")
    if recorded is not None and sent > recorded:
        found.append(f"sent at {written}, after its record was written ({record['time']})")
    return found + _expires_bound(record, sent, f"sent at {written}", longest_use)


def _expires_bound(
    record: dict[str, Any], sent: float, when: str, longest_use: float | None
) -> list[str]:
    """A record's ``expires`` no later than ``longest_use`` after ``sent`` (when the
    request was sent, or at the latest, with no ``sent_at``, its record's ``time``)."""
    expires = text(record.get("expires"))
    until = instant(expires)
    if until is not None and longest_use is not None and until > sent + longest_use + 0.001:
        return [f"its expires ({expires}) is later than any the crawl could write for a "
                f"request {when}: a document version is used {longest_use:g} s at most "
                "(REP_CACHE_MAX_TTL + REP_CACHE_STALE_MAX)"]  # fmt: skip
    return []


def _not_sent_past_override(record: dict[str, Any], overrides: Sequence[Override]) -> list[str]:
    """A record of a request sent past robots.txt by an override, with no ``sent_at``,
    written after that override ended: when it was sent cannot be checked."""
    robots = record.get("robots")
    if text(record.get("fate")) not in SENT_FATES or not isinstance(robots, dict):
        return []
    if not text(robots.get("overridden")):
        return []
    page = record.get("page")
    if isinstance(page, dict) and page.get("cached") is not None:
        return []  # replayed by Scrapy's HTTP cache: never sent
    ends, _ = override_end(record, overrides)
    recorded = instant(text(record.get("time")))
    if ends is None or recorded is None or recorded <= ends:
        return []  # no end known: said by sent_after_expiry; recorded in time: sent in time
    return [f"sent past robots.txt by an override ({text(robots.get('overridden'))}) that "
            f"ended before its record was written ({record['time']}), and it has no "
            "sent_at: whether it was sent before the override ended cannot be checked"]  # fmt: skip


#: How an earlier release wrote an override's expiry, within ``overridden``:
#: ``… (until 2027-07-01T00:00:00+00:00)``. Read only for its records, which have no
#: ``override_ends``; a crawl writes that value beside the words.
_LEGACY_UNTIL: Final = re.compile(r".*\(until ([^()]+)\)", re.ASCII)


def override_end(
    record: dict[str, Any], overrides: Sequence[Override] = ()
) -> tuple[float | None, str]:
    """When the override a record went past stopped covering a request (POSIX seconds;
    ``None``: no value says it), and that instant as written, or why none is known.
    docs/audit-trail.md, ``override_ends``: first the record's ``override_ends``; for a
    record written without it, the expiry the run's ``REP_OVERRIDES`` (``overrides``)
    gives the record's host, else an earlier release's ``(until …)`` at the end of its
    ``overridden``. The words of this release (``…, until DATE``, ``…, through DATE,
    UTC``) are never read: they are for people, and a record that has only them, in a run
    whose overrides do not name its host, is reported."""
    robots = mapping(record.get("robots"))
    if "override_ends" in robots:
        written = text(robots.get("override_ends"))
        ends = instant(written)
        return (ends, written) if ends is not None else (None, f"override_ends {written!r}"
                                                             " is no time")  # fmt: skip
    origin = origin_of(str(record.get("url", "")))
    host = origin.host if origin is not None else ""
    for override in overrides:
        if host and override.host == host:
            return override.ends, f"{override.expires}, as the run's REP_OVERRIDES says"
    legacy = _LEGACY_UNTIL.fullmatch(text(robots.get("overridden")))
    if legacy is not None and (ends := instant(legacy.group(1))) is not None:
        return ends, legacy.group(1)
    return None, ("the record has no override_ends, and the run's REP_OVERRIDES has no "
                  f"override of {host or 'its host'}")  # fmt: skip
