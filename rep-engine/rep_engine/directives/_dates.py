"""``unavailable_after`` dates: the forms sites write (:func:`parse_date`), read as UTC
(SPEC §6; pure). Re-exported by :mod:`rep_engine.directives` (``parse_date``).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Final

_WHITESPACE = re.compile(r"\s+")
#: An RFC 9651 Date (``@`` and an Integer: seconds since 1970) or an Integer.
_EPOCH = re.compile(r"@?-?[0-9]{1,15}")
#: A leap second (``23:59:60``): read as ``23:59:59``, which ``datetime`` can hold.
_LEAP_SECOND = re.compile(r"(\d{1,2}:\d{2}):60(?!\d)")


def parse_date(text: str) -> datetime | None:
    """An ``unavailable_after`` date in UTC, or None (SPEC §6: RFC 822/1123, RFC 850,
    ISO 8601 with date only = 00:00 UTC, and a few widely used forms). A leap second
    counts as the second before it; a date ``datetime`` cannot hold (year 10000, or
    year 1 before UTC) is no date. Never raises on content."""
    text = _LEAP_SECOND.sub(r"\1:59", text.strip())
    if not text:
        return None
    try:
        parsed = _parse_any(text)
        if parsed is None:
            return None
        return parsed.replace(tzinfo=parsed.tzinfo or timezone.utc).astimezone(timezone.utc)
    except (OverflowError, ValueError):  # out of datetime's range, in any parser
        return None


def epoch_date(text: str) -> datetime | None:
    """A Structured Field Date (RFC 9651 §3.3.7, ``@1577836800``) or Integer of seconds
    since 1970, in UTC; ``None`` for another value or one ``datetime`` cannot hold."""
    if _EPOCH.fullmatch(text) is None:
        return None
    try:
        return datetime.fromtimestamp(int(text.lstrip("@")), timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _parse_any(text: str) -> datetime | None:
    try:
        parsed = parsedate_to_datetime(text)  # RFC 822/1123/850 with zone names (PST…)
    except (TypeError, ValueError, IndexError):
        parsed = None
    return parsed or _parse_iso(text) or _parse_loose(text)


def _parse_iso(text: str) -> datetime | None:
    candidate = text.replace(" ", "T", 1) if re.match(r"\d{4}-\d\d-\d\d \d", text) else text
    if candidate.endswith(("Z", "z")):
        candidate = candidate[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(candidate)
    except ValueError:
        return None


_LOOSE_FORMATS: Final = (
    "%d %B %Y",
    "%d %b %Y",
    "%B %d %Y",
    "%b %d %Y",
    "%d-%b-%Y",
    "%Y/%m/%d",
    "%d %B %Y %H:%M:%S",
    "%d %b %Y %H:%M:%S",
    "%B %d %Y %H:%M:%S",
    "%b %d %Y %H:%M:%S",
    "%A %d %B %Y",
    "%A %B %d %Y",
)


def _parse_loose(text: str) -> datetime | None:
    """``25 June 2010``, ``June 25, 2010``, ``Friday, June 25, 2010 15:00:00``…"""
    cleaned = _WHITESPACE.sub(" ", text.replace(",", " ")).strip()
    cleaned = re.sub(r"\s+(UTC|GMT|Z)$", "", cleaned, flags=re.IGNORECASE)
    for form in _LOOSE_FORMATS:
        try:
            return datetime.strptime(cleaned, form)
        except ValueError:
            continue
    return None
