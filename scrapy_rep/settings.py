"""All ``REP_*`` settings, read once and validated (SPEC §5).

Every setting is read here and nowhere else; each component calls
:meth:`RepConfig.from_settings` in its ``from_crawler``. A wrong value raises
:class:`RepSettingError`, which names the setting and the accepted values, so the crawl
stops at start instead of misbehaving later.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike
from typing import Any, Protocol

PROFILES = ("google", "rfc9309", "legacy")
ACTIONS = ("drop", "keep")
UNREACHABLE_ACTIONS = ("drop", "allow")
DAY = 86_400.0


class RepSettingError(ValueError):
    """A ``REP_*`` (or related Scrapy) setting has a value we cannot use."""


class SettingsLike(Protocol):
    """The part of :class:`scrapy.settings.BaseSettings` we read (keeps this module testable)."""

    def get(self, name: str, default: Any = None) -> Any: ...


def read_choice(settings: SettingsLike, name: str, default: str, choices: Iterable[str]) -> str:
    """A string setting that must be one of ``choices`` (compared case-insensitively)."""
    accepted = tuple(choices)
    value = settings.get(name, default)
    if value is None:
        return default
    if isinstance(value, str) and value.strip().lower() in accepted:
        return value.strip().lower()
    raise RepSettingError(
        f"{name}: expected one of {', '.join(map(repr, accepted))}, got {value!r}"
    )


def read_bool(settings: SettingsLike, name: str, default: bool) -> bool:
    """A boolean setting: True/False, 1/0, or the strings true/false/1/0/yes/no/on/off."""
    value = settings.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off"):
            return False
    raise RepSettingError(f"{name}: expected a boolean (True or False), got {value!r}")


def read_number(
    settings: SettingsLike,
    name: str,
    default: float,
    *,
    minimum: float = 0.0,
    maximum: float | None = None,
) -> float:
    """A number setting (int, float or numeric string) within ``[minimum, maximum]``."""
    value = settings.get(name, default)
    if value is None:
        return default
    try:
        if isinstance(value, bool):
            raise TypeError
        number = float(value)
    except (TypeError, ValueError):
        raise RepSettingError(f"{name}: expected a number, got {value!r}") from None
    if number != number or number < minimum or (maximum is not None and number > maximum):
        upper = "" if maximum is None else f" and at most {maximum:g}"
        raise RepSettingError(
            f"{name}: expected a number of at least {minimum:g}{upper}, got {value!r}"
        )
    return number


def read_int(
    settings: SettingsLike, name: str, default: int, *, minimum: int = 0, maximum: int | None = None
) -> int:
    """A whole-number setting within ``[minimum, maximum]``."""
    number = read_number(settings, name, default, minimum=minimum, maximum=maximum)
    if number != int(number):
        raise RepSettingError(f"{name}: expected a whole number, got {settings.get(name)!r}")
    return int(number)


def read_str(settings: SettingsLike, name: str, default: str = "") -> str:
    """A string setting (a path or a name)."""
    value = settings.get(name, default)
    if value is None:
        return default
    if isinstance(value, (str, PathLike)):
        return str(value)
    raise RepSettingError(f"{name}: expected a string, got {value!r}")


def read_store(settings: SettingsLike, name: str) -> str:
    """``"memory"`` or a Redis URL (``redis://``, ``rediss://``, ``unix://``)."""
    value = settings.get(name, "memory")
    if value is None or value == "memory":
        return "memory"
    if isinstance(value, str) and value.split("://", 1)[0] in ("redis", "rediss", "unix"):
        return value
    raise RepSettingError(
        f"{name}: expected 'memory' or a Redis URL (redis://host:port/db), got {value!r}"
    )


def read_str_list(settings: SettingsLike, name: str) -> tuple[str, ...]:
    """A list of strings: a list/tuple of str, or one comma-separated string."""
    value = settings.get(name)
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    raise RepSettingError(
        f"{name}: expected a list of strings or a comma-separated string, got {value!r}"
    )


@dataclass(frozen=True)
class RepConfig:
    """Every ``REP_*`` setting, validated. Defaults are the README's defaults."""

    #: ``REP_PROFILE``: the robots.txt engine profile (SPEC §2).
    profile: str = "google"
    #: ``REP_NOINDEX_ACTION``: what happens to items of a noindex page (SPEC §6).
    noindex_action: str = "drop"
    #: ``REP_NOFOLLOW_ACTION``: what happens to requests from a nofollow page (SPEC §6).
    nofollow_action: str = "drop"
    #: ``REP_REL_NOFOLLOW``: skip ``rel="nofollow"`` links from Scrapy's link extraction.
    rel_nofollow: bool = True
    #: ``REP_DIRECTIVE_TOKENS``: more crawler tokens whose page directives apply to us.
    directive_tokens: tuple[str, ...] = ()
    #: ``REP_META_IN_NOSCRIPT``: robots meta tags inside ``<noscript>`` count.
    meta_in_noscript: bool = True
    #: ``REP_OBEY_CRAWL_DELAY``: honour ``Crawl-delay``; ``None`` = the profile's default.
    obey_crawl_delay: bool | None = None
    #: ``REP_CRAWL_DELAY_MAX``: the longest ``Crawl-delay`` honoured (seconds).
    crawl_delay_max: float = 60.0
    #: ``REP_UNREACHABLE_RETRY_DELAY``: first wait before retrying an unreachable robots.txt.
    unreachable_retry_delay: float = 30.0
    #: ``REP_UNREACHABLE_MAX_WAIT``: how long requests are held before giving up (seconds).
    unreachable_max_wait: float = 600.0
    #: ``REP_UNREACHABLE_ACTION``: what happens to held requests after giving up.
    unreachable_action: str = "drop"
    #: ``REP_CACHE_TTL``: how long a robots.txt is fresh without ``Cache-Control``.
    cache_ttl: float = DAY
    #: ``REP_CACHE_MIN_TTL`` / ``REP_CACHE_MAX_TTL``: bounds for ``Cache-Control: max-age``.
    cache_min_ttl: float = 60.0
    cache_max_ttl: float = 7 * DAY
    #: ``REP_CACHE_STALE_MAX``: how long an expired copy is used while refreshes fail.
    cache_stale_max: float = 30 * DAY
    #: ``REP_CACHE_MAX_ORIGINS``: at most this many origins are cached (LRU beyond).
    cache_max_origins: int = 100_000
    #: ``REP_ROBOTSTXT_TIMEOUT``: download timeout of robots.txt requests (seconds).
    robotstxt_timeout: float = 30.0
    #: ``REP_MAX_HELD_REQUESTS``: at most this many requests are held at once.
    max_held_requests: int = 100_000
    #: ``REP_ROBOTSTXT_CONCURRENCY``: robots.txt downloads at once (``None``: half of
    #: ``CONCURRENT_REQUESTS``).
    robotstxt_concurrency: int | None = None
    #: ``REP_ROBOTSTXT_CACHE``: ``"memory"`` or a ``redis://`` URL shared by processes.
    robotstxt_cache: str = "memory"
    #: ``REP_LEASE_TIMEOUT``: how long one process may hold an origin's download lease
    #: (``None``: long enough for six robots.txt requests).
    lease_timeout: float | None = None

    @classmethod
    def from_settings(cls, settings: SettingsLike) -> RepConfig:
        """Read and validate every ``REP_*`` setting; raise :class:`RepSettingError` if wrong."""
        min_ttl = read_number(settings, "REP_CACHE_MIN_TTL", 60.0)
        return cls(
            profile=read_choice(settings, "REP_PROFILE", "google", PROFILES),
            noindex_action=read_choice(settings, "REP_NOINDEX_ACTION", "drop", ACTIONS),
            nofollow_action=read_choice(settings, "REP_NOFOLLOW_ACTION", "drop", ACTIONS),
            rel_nofollow=read_bool(settings, "REP_REL_NOFOLLOW", True),
            directive_tokens=read_str_list(settings, "REP_DIRECTIVE_TOKENS"),
            meta_in_noscript=read_bool(settings, "REP_META_IN_NOSCRIPT", True),
            obey_crawl_delay=(
                None
                if settings.get("REP_OBEY_CRAWL_DELAY") is None
                else read_bool(settings, "REP_OBEY_CRAWL_DELAY", False)
            ),
            crawl_delay_max=read_number(settings, "REP_CRAWL_DELAY_MAX", 60.0),
            unreachable_retry_delay=read_number(
                settings, "REP_UNREACHABLE_RETRY_DELAY", 30.0, minimum=0.001
            ),
            unreachable_max_wait=read_number(settings, "REP_UNREACHABLE_MAX_WAIT", 600.0),
            unreachable_action=read_choice(
                settings, "REP_UNREACHABLE_ACTION", "drop", UNREACHABLE_ACTIONS
            ),
            cache_ttl=read_number(settings, "REP_CACHE_TTL", DAY),
            cache_min_ttl=min_ttl,
            cache_max_ttl=read_number(settings, "REP_CACHE_MAX_TTL", 7 * DAY, minimum=min_ttl),
            cache_stale_max=read_number(settings, "REP_CACHE_STALE_MAX", 30 * DAY),
            cache_max_origins=read_int(settings, "REP_CACHE_MAX_ORIGINS", 100_000, minimum=1),
            robotstxt_timeout=read_number(settings, "REP_ROBOTSTXT_TIMEOUT", 30.0, minimum=0.001),
            max_held_requests=read_int(settings, "REP_MAX_HELD_REQUESTS", 100_000, minimum=1),
            robotstxt_concurrency=(
                None
                if settings.get("REP_ROBOTSTXT_CONCURRENCY") is None
                else read_int(settings, "REP_ROBOTSTXT_CONCURRENCY", 8, minimum=1)
            ),
            robotstxt_cache=read_store(settings, "REP_ROBOTSTXT_CACHE"),
            lease_timeout=(
                None
                if settings.get("REP_LEASE_TIMEOUT") is None
                else read_number(settings, "REP_LEASE_TIMEOUT", 60.0, minimum=0.1)
            ),
        )
