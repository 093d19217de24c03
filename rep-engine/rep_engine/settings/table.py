"""The table of every ``REP_*`` setting (SPEC §5), its first part (docs/settings.md, up
to 'Report'): each field of :class:`FetchSettings` is a :func:`setting`, with its default,
reader and docs; :class:`~rep_engine.settings.config.RepConfig` adds the rest, and
:data:`rep_engine.settings.SETTINGS` is the rows (:class:`Setting`). Values only."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Final, Literal

from rep_engine.robotstxt import profiles
from rep_engine.settings.readers import (
    Reader,
    _choice,
    _number,
    _optional,
    _whole,
    read_bool,
    read_store,
    read_str,
)

#: The ``REP_PROFILE`` names: those of :data:`rep_engine.robotstxt.profiles.PROFILES`.
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
    """One ``REP_*`` setting: its :class:`~rep_engine.settings.config.RepConfig` field,
    default and reader, and how docs/settings.md's table shows it (written from these,
    ``docs/_ext/rep_tables.py``): ``help``, one line of what it does; ``unit``, what a
    number counts; ``shown``, the default in words where the value cannot say it
    (``None``: derived; ``""``: off)."""

    name: str
    field: str
    default: Any
    read: Reader
    help: str
    unit: Unit = ""
    shown: str = ""


def setting(
    default: Any, read: Reader, *, help: str, unit: Unit = "", shown: str = "", name: str = ""
) -> Any:
    """A field of the table: its default, reader and docs (:class:`Setting`). The setting's
    name is the field's, in capitals after ``REP_``, unless ``name`` says another."""
    return field(default=default, metadata={"setting": (name, read, help, unit, shown)})


def settings_of(table: type) -> tuple[Setting, ...]:
    """The rows of a table of :func:`setting` fields, in their order."""
    return tuple(
        Setting(name or "REP_" + f.name.upper(), f.name, f.default, read, help, unit, shown)
        for f in fields(table)
        for name, read, help, unit, shown in (f.metadata["setting"],)
    )


@dataclass(frozen=True)
class FetchSettings:
    """The first part of the table, in the order of docs/settings.md: the settings that
    check the others, fetch and cache robots.txt, share its cache and write the report.
    ``REP_CACHE_MAX_TTL`` after ``REP_CACHE_MIN_TTL`` (it may not be smaller); ``None``:
    derived from others."""

    unknown_settings: str = setting(
        "error",
        _choice(UNKNOWN_SETTING_ACTIONS),
        help="What a misspelled `REP_*` name does: stop the crawl, or a WARNING",
    )
    profile: str = setting(
        "google",
        _choice(PROFILES),
        help="How robots.txt is read: as Google does, as RFC 9309 says, or the 1990s drafts",
    )
    #: ``Crawl-delay`` obeyed (capped by ``REP_CRAWL_DELAY_MAX``) in every profile unless
    #: ``False`` (Google's behaviour).
    obey_crawl_delay: bool = setting(
        True,
        read_bool,
        help="Obey robots.txt's `Crawl-delay` between an origin's requests",
    )
    crawl_delay_max: float = setting(
        60.0,
        _number(),
        help="The longest `Crawl-delay` obeyed; a longer one is cut to it",
        unit="seconds",
    )
    unreachable_retry_delay: float = setting(
        30.0,
        _number(0.001),
        help="The wait before a robots.txt that failed is tried again (then doubled)",
        unit="seconds",
    )
    unreachable_max_wait: float = setting(
        600.0,
        _number(),
        help="How long requests wait for an unreachable robots.txt, then give up",
        unit="seconds",
    )
    #: How long a host that cannot be connected to (refused, no such host, TLS) holds
    #: its requests; at most ``unreachable_max_wait``.
    unreachable_connect_max_wait: float = setting(
        10.0,
        _number(),
        help="The same wait for a host that cannot be connected to at all",
        unit="seconds",
    )
    unreachable_action: str = setting(
        "drop",
        _choice(UNREACHABLE_ACTIONS),
        help="Once given up on: drop the waiting requests, or let them through",
    )
    robotstxt_timeout: float = setting(
        30.0,
        _number(0.001),
        help="The download timeout of a robots.txt request",
        unit="seconds",
    )
    max_held_requests: int = setting(
        100_000,
        _whole(1),
        help="Requests waiting for a robots.txt kept in memory; more are spilled to disk",
    )
    cache_ttl: float = setting(
        DAY,
        _number(),
        help="How long a robots.txt stays fresh when its response has no `Cache-Control`",
        unit="seconds",
    )
    cache_min_ttl: float = setting(
        60.0,
        _number(),
        help="The shortest freshness `Cache-Control` can give a robots.txt",
        unit="seconds",
    )
    #: At least ``REP_CACHE_MIN_TTL``: checked by :class:`RepConfig`.
    cache_max_ttl: float = setting(
        7 * DAY,
        _number(),
        help="The longest freshness `Cache-Control` can give a robots.txt",
        unit="seconds",
    )
    cache_stale_max: float = setting(
        30 * DAY,
        _number(),
        help="How long an expired robots.txt is still used while its refresh fails",
        unit="seconds",
    )
    cache_max_origins: int = setting(
        1_000_000,
        _whole(1),
        help="Origins whose robots.txt is kept parsed; the others are kept compressed",
    )
    cache_max_bytes: int = setting(
        512 * MIB,
        _whole(1),
        help="The memory every cached robots.txt may take together",
        unit="bytes",
    )
    robotstxt_concurrency: int | None = setting(
        None,
        _optional(_whole(1)),
        help="robots.txt downloads at a time",
        shown="half of `CONCURRENT_REQUESTS`",
    )
    robotstxt_cache: str = setting(
        "memory",
        read_store,
        help="Where robots.txt copies are kept: in memory, or in a Redis shared by processes",
    )
    lease_timeout: float | None = setting(
        None,
        _optional(_number(0.1)),
        help="How long one process may hold an origin's download (shared cache)",
        unit="seconds",
        shown="six robots.txt timeouts plus 5 s",
    )
    report: bool = setting(
        False,
        read_bool,
        help="At the end, a report of what happened to each origin and URL, and why",
    )
    report_file: str = setting(
        "",
        read_str,
        help="The file the report is written to (setting it turns the report on)",
        shown="standard error",
    )
    report_max_urls: int = setting(
        200,
        _whole(1),
        help="URLs the report lists one by one",
    )
    #: Keep the ledger of each request's fate without a trail or report: a program that
    #: reads it (:func:`scrapy_rep.crawl.auditing.read_urls`: the command-line tools).
    keep_ledger: bool = setting(
        False,
        read_bool,
        help="Keep the ledger of each request's fate for a program that reads it",
        name="REP_LEDGER",
    )
