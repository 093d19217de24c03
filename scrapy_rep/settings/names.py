"""Setting names that look like ours but are not (SPEC §5: a setting the crawl ignores
must not pass silently). Pure: reads names only.

A ``REP_*`` or ``ROBOTSTXT_*`` name (compared case-insensitively) that is not one of the
settings in :data:`scrapy_rep.settings.SETTINGS` (or one of Scrapy's own ``ROBOTSTXT_*``
settings) is reported with the closest real name, so ``REP_PURPOSES``, ``rep_purpose``
or ``REP_AUDIT`` do not leave a crawl running for the wrong purpose unnoticed.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Final

from scrapy_rep.settings import SETTINGS

#: The prefixes of the names we check.
PREFIXES: Final = ("REP_", "ROBOTSTXT_")
#: Scrapy's own robots.txt settings (read by Scrapy, by us, or both).
SCRAPY_ROBOTSTXT: Final = ("ROBOTSTXT_OBEY", "ROBOTSTXT_PARSER", "ROBOTSTXT_USER_AGENT")


def known_names(extra: Iterable[str] = ()) -> frozenset[str]:
    """Every real name: the table's ``REP_*`` settings, Scrapy's ``ROBOTSTXT_*`` ones and
    ``extra`` (more that the running Scrapy defines)."""
    return frozenset((*(s.name for s in SETTINGS), *SCRAPY_ROBOTSTXT, *extra))


def unknown_names(names: Iterable[str], known: frozenset[str]) -> list[tuple[str, str | None]]:
    """``(name, closest real name or None)`` for each name with one of our prefixes that
    is not a real setting, in sorted order."""
    found: list[tuple[str, str | None]] = []
    for name in sorted(set(names)):
        upper = name.upper()
        if name in known or not upper.startswith(PREFIXES):
            continue
        if upper in known:
            found.append((name, upper))
            continue
        close = difflib.get_close_matches(upper, sorted(known), n=1, cutoff=0.6)
        found.append((name, close[0] if close else None))
    return found


def warning(name: str, closest: str | None) -> str:
    """The one line logged for an unknown name."""
    hint = f"did you mean {closest}?" if closest else "it is not a scrapy_rep setting"
    return f"Unknown setting {name} is ignored: {hint}"
