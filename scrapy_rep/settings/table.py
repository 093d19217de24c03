"""The table of every ``REP_*`` setting (SPEC §5), its first part: the names, defaults and
readers of the settings that check the others, fetch and cache robots.txt, share the
cache and write the report (docs/settings.md, up to 'Report'). :class:`Setting` is a
row; :data:`scrapy_rep.settings.SETTINGS` is the whole table, this part and
:data:`scrapy_rep.settings.page_table.PAGE_SETTINGS`. Values only, no procedure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from scrapy_rep.robotstxt import profiles
from scrapy_rep.settings.readers import (
    Reader,
    _choice,
    _number,
    _optional,
    _whole,
    read_bool,
    read_store,
    read_str,
)

#: The ``REP_PROFILE`` names: those of :data:`scrapy_rep.robotstxt.profiles.PROFILES`.
PROFILES: Final = tuple(profiles.PROFILES)
ACTIONS: Final = ("drop", "keep")
UNREACHABLE_ACTIONS: Final = ("drop", "allow")
PURPOSE_ACTIONS: Final = ("drop", "mark")
UNKNOWN_ANSWERS: Final = ("allow", "deny")
#: ``REP_UNKNOWN_SETTINGS``: what an unknown ``REP_*`` name does (settings/names.py).
UNKNOWN_SETTING_ACTIONS: Final = ("error", "warn")
DAY: Final = 86_400.0
MIB: Final = 1024 * 1024

# --------------------------------------------------------------------------- the table


#: What a number counts, for the settings table (``30 s``, ``512 MiB``).
Unit = Literal["", "seconds", "bytes"]


@dataclass(frozen=True)
class Setting:
    """One ``REP_*`` setting: its default and reader, and how docs/settings.md's table
    shows it (written from these, ``docs/_ext/rep_tables.py``): ``help``, one line of
    what it does; ``unit``, what a number counts; ``shown``, the default in words where
    the value cannot say it (``None``: derived; ``""``: off)."""

    name: str
    default: Any
    read: Reader
    help: str
    unit: Unit = ""
    shown: str = ""
    #: Its :class:`RepConfig` field where that is not :attr:`field`'s derivation.
    other_field: str = ""

    @property
    def field(self) -> str:
        """Its :class:`RepConfig` field: the name without ``REP_``, lowercased."""
        return self.other_field or self.name[len("REP_") :].lower()


#: The settings that check the others, fetch and cache robots.txt, share its cache and
#: write the report, in the order of docs/settings.md.
#: ``REP_CACHE_MAX_TTL`` must come after ``REP_CACHE_MIN_TTL`` (it may not be smaller).
FETCH_SETTINGS: Final = (
    Setting(
        "REP_UNKNOWN_SETTINGS",
        "error",
        _choice(UNKNOWN_SETTING_ACTIONS),
        help="What a misspelled `REP_*` name does: stop the crawl, or a WARNING",
    ),
    Setting(
        "REP_PROFILE",
        "google",
        _choice(PROFILES),
        help="How robots.txt is read: as Google does, as RFC 9309 says, or the 1990s drafts",
    ),
    Setting(
        "REP_OBEY_CRAWL_DELAY",
        True,
        read_bool,
        help="Obey robots.txt's `Crawl-delay` between an origin's requests",
    ),
    Setting(
        "REP_CRAWL_DELAY_MAX",
        60.0,
        _number(),
        help="The longest `Crawl-delay` obeyed; a longer one is cut to it",
        unit="seconds",
    ),
    Setting(
        "REP_UNREACHABLE_RETRY_DELAY",
        30.0,
        _number(0.001),
        help="The wait before a robots.txt that failed is tried again (then doubled)",
        unit="seconds",
    ),
    Setting(
        "REP_UNREACHABLE_MAX_WAIT",
        600.0,
        _number(),
        help="How long requests wait for an unreachable robots.txt, then give up",
        unit="seconds",
    ),
    Setting(
        "REP_UNREACHABLE_CONNECT_MAX_WAIT",
        10.0,
        _number(),
        help="The same wait for a host that cannot be connected to at all",
        unit="seconds",
    ),
    Setting(
        "REP_UNREACHABLE_ACTION",
        "drop",
        _choice(UNREACHABLE_ACTIONS),
        help="Once given up on: drop the waiting requests, or let them through",
    ),
    Setting(
        "REP_ROBOTSTXT_TIMEOUT",
        30.0,
        _number(0.001),
        help="The download timeout of a robots.txt request",
        unit="seconds",
    ),
    Setting(
        "REP_MAX_HELD_REQUESTS",
        100_000,
        _whole(1),
        help="Requests waiting for a robots.txt kept in memory; more are spilled to disk",
    ),
    Setting(
        "REP_CACHE_TTL",
        DAY,
        _number(),
        help="How long a robots.txt stays fresh when its response has no `Cache-Control`",
        unit="seconds",
    ),
    Setting(
        "REP_CACHE_MIN_TTL",
        60.0,
        _number(),
        help="The shortest freshness `Cache-Control` can give a robots.txt",
        unit="seconds",
    ),
    Setting(
        "REP_CACHE_MAX_TTL",  # at least REP_CACHE_MIN_TTL: checked by RepConfig
        7 * DAY,
        _number(),
        help="The longest freshness `Cache-Control` can give a robots.txt",
        unit="seconds",
    ),
    Setting(
        "REP_CACHE_STALE_MAX",
        30 * DAY,
        _number(),
        help="How long an expired robots.txt is still used while its refresh fails",
        unit="seconds",
    ),
    Setting(
        "REP_CACHE_MAX_ORIGINS",
        1_000_000,
        _whole(1),
        help="Origins whose robots.txt is kept parsed; the others are kept compressed",
    ),
    Setting(
        "REP_CACHE_MAX_BYTES",
        512 * MIB,
        _whole(1),
        help="The memory every cached robots.txt may take together",
        unit="bytes",
    ),
    Setting(
        "REP_ROBOTSTXT_CONCURRENCY",
        None,
        _optional(_whole(1)),
        help="robots.txt downloads at a time",
        shown="half of `CONCURRENT_REQUESTS`",
    ),
    Setting(
        "REP_ROBOTSTXT_CACHE",
        "memory",
        read_store,
        help="Where robots.txt copies are kept: in memory, or in a Redis shared by processes",
    ),
    Setting(
        "REP_LEASE_TIMEOUT",
        None,
        _optional(_number(0.1)),
        help="How long one process may hold an origin's download (shared cache)",
        unit="seconds",
        shown="six robots.txt timeouts plus 5 s",
    ),
    Setting(
        "REP_REPORT",
        False,
        read_bool,
        help="At the end, a report of what happened to each origin and URL, and why",
    ),
    Setting(
        "REP_REPORT_FILE",
        "",
        read_str,
        help="The file the report is written to (setting it turns the report on)",
        shown="standard error",
    ),
    Setting(
        "REP_REPORT_MAX_URLS",
        200,
        _whole(1),
        help="URLs the report lists one by one",
    ),
    Setting(
        "REP_LEDGER",
        False,
        read_bool,
        help="Keep the ledger of each request's fate for a program that reads it",
        other_field="keep_ledger",
    ),
)
