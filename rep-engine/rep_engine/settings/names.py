"""Setting names that look like ours but are not (SPEC §5: a setting the crawl ignores
must not pass silently; docs/decisions.md, 'An unknown REP_ setting stops the crawl').
Pure: reads names only.

A ``REP_*`` or ``ROBOTSTXT_*`` name (compared case-insensitively) that is not one of the
settings in :data:`rep_engine.settings.SETTINGS` (or one of Scrapy's own ``ROBOTSTXT_*``
settings) is named with the closest real name, so that ``REP_PURPOSES``, ``rep_purpose``
or ``REP_AUDIT`` never leave a crawl running for another purpose, or without its trail:

- a ``REP_*`` name is an error, close to a real name or not (the prefix is ours: a name
  nothing defines is a typo or a guess, and either way the crawl is not the one asked for);
- a ``ROBOTSTXT_*`` name close to a real one is an error (``ROBOTSTXT_USERAGENT`` would
  crawl under another identity); one close to none is a WARNING (the prefix is Scrapy's,
  where another package may define its own);
- ``REP_UNKNOWN_SETTINGS = "warn"`` makes every error a WARNING.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from rep_engine.settings import SETTINGS
from rep_engine.settings.readers import RepSettingError, closest

#: The prefixes of the names we check: ours, and Scrapy's robots.txt settings.
PREFIXES: Final = ("REP_", "ROBOTSTXT_")
#: Our own prefix: every unknown name with it is an error.
OURS: Final = "REP_"
#: Scrapy's own robots.txt settings (read by Scrapy, by us, or both).
SCRAPY_ROBOTSTXT: Final = ("ROBOTSTXT_OBEY", "ROBOTSTXT_PARSER", "ROBOTSTXT_USER_AGENT")
#: How an error ends: the way to let the crawl go on.
HOW_TO_WARN: Final = 'REP_UNKNOWN_SETTINGS = "warn" ignores unknown names with a WARNING'


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
        near = closest(upper, known)
        found.append((name, near[0] if near else None))
    return found


def is_error(name: str, closest: str | None) -> bool:
    """Whether an unknown name stops the crawl (under ``REP_UNKNOWN_SETTINGS = "error"``):
    every ``REP_*`` one, and a ``ROBOTSTXT_*`` one close to a real name."""
    return name.upper().startswith(OURS) or closest is not None


def check_names(
    names: Iterable[str], known: frozenset[str], unknown_settings: str = "error"
) -> list[str]:
    """The WARNING lines for the unknown names that do not stop the crawl; raise
    :class:`RepSettingError` naming every one that does (one line: each name and the
    closest real one), unless ``unknown_settings`` is ``"warn"``."""
    found = unknown_names(names, known)
    if unknown_settings == "error":
        errors = [(name, closest) for name, closest in found if is_error(name, closest)]
        if errors:
            named = "; ".join(_error(name, closest) for name, closest in errors)
            raise RepSettingError(f"{named} ({HOW_TO_WARN})")
        found = [(name, closest) for name, closest in found if not is_error(name, closest)]
    return [warning(name, closest) for name, closest in found]


def _error(name: str, closest: str | None) -> str:
    if closest is None:
        return f"{name}: unknown setting, close to no scrapy_rep setting"
    return f"{name}: unknown setting, did you mean {closest}?"


def warning(name: str, closest: str | None) -> str:
    """The one line logged for an unknown name that does not stop the crawl."""
    hint = f"did you mean {closest}?" if closest else "it is not a scrapy_rep setting"
    return f"Unknown setting {name} is ignored: {hint}"
