"""What a robots.txt download means (SPEC §4): pure, no Scrapy or Twisted imports.

| outcome | effect |
|---|---|
| 2xx | parse the body (first 500 KiB) |
| 3xx | follow, at most 5 hops, any host; more hops or a loop: as 404 |
| 4xx except 429 | no robots.txt: everything allowed |
| 429, 5xx, network error | everything temporarily disallowed; retry later |
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Final
from urllib.parse import urlsplit

#: SPEC §4 / RFC 9309 §2.3.1.2: at least five redirect hops are followed.
MAX_REDIRECTS: Final = 5
#: Schemes a robots.txt redirect may lead to (SPEC §7: a site must not make the crawler
#: read local files through ``file:`` or ``data:``); any other target counts as 404.
REDIRECT_SCHEMES: Final = frozenset({"http", "https"})
_MAX_AGE = re.compile(r"(?:^|[,\s])(s-maxage|max-age)\s*=\s*\"?(\d{1,12})\"?", re.IGNORECASE)
_NO_CACHE = re.compile(r"(?:^|[,\s])(no-store|no-cache)(?:$|[,\s=])", re.IGNORECASE)


class Effect(enum.Enum):
    """What the rules of an origin become after a download."""

    PARSE = "parse"
    FOLLOW = "follow"
    ALLOW_ALL = "allow_all"
    UNREACHABLE = "unreachable"


def effect_of_status(status: int, has_location: bool = True) -> Effect:
    """SPEC §4 for an HTTP status (a 3xx without ``Location`` cannot be followed: as 404)."""
    if 200 <= status < 300:
        return Effect.PARSE
    if 300 <= status < 400:
        return Effect.FOLLOW if has_location else Effect.ALLOW_ALL
    if status == 429 or status >= 500:
        return Effect.UNREACHABLE
    return Effect.ALLOW_ALL  # 4xx (401 and 403 included), and 1xx nonsense


def may_follow(url: str) -> bool:
    """Whether a robots.txt redirect to ``url`` is followed: an http(s) URL with a host
    and a valid port (anything else: the redirect has no usable target, as a 404)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a bad port)
    except ValueError:
        return False
    return parts.scheme.lower() in REDIRECT_SCHEMES and bool(parts.hostname)


#: The longest wait a ``Retry-After`` can ask for; a larger value is cut to this.
MAX_RETRY_AFTER: Final = 365 * 86_400.0
_DELTA_SECONDS = re.compile(r"[0-9]+")


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds from ``now`` (delta-seconds or an HTTP date), at most a
    year; ``None`` when it is absent or neither (never raises on content)."""
    if value is None:
        return None
    text = value.strip()
    if _DELTA_SECONDS.fullmatch(text):  # ASCII digits only: "²" is no number of seconds
        return MAX_RETRY_AFTER if len(text) > 12 else min(float(text), MAX_RETRY_AFTER)
    try:
        when = parsedate_to_datetime(text)
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        now = now if now is not None else datetime.now(timezone.utc)
        seconds = (when - now).total_seconds()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return min(max(0.0, seconds), MAX_RETRY_AFTER)


def retry_delay(attempt: int, base: float, maximum: float, retry_after: float | None) -> float:
    """Backoff before robots.txt retry number ``attempt`` (0-based): ``base × 2^attempt``,
    at least what ``Retry-After`` asked for, at most ``maximum``."""
    delay = base * math.pow(2, min(attempt, 60))
    if retry_after is not None:
        delay = max(delay, retry_after)
    return min(delay, maximum)


def cache_lifetime(
    cache_control: str | None, default: float, minimum: float, maximum: float
) -> float:
    """How long a fetched robots.txt stays fresh (SPEC §4 "Caching").

    ``max-age`` (or ``s-maxage``) shortens or lengthens ``default`` within
    ``[minimum, maximum]``; ``no-store``/``no-cache`` mean ``minimum``.
    """
    lifetime = default
    if cache_control:
        if _NO_CACHE.search(cache_control):
            lifetime = minimum
        else:
            ages: dict[str, float] = {
                name.lower(): float(age) for name, age in _MAX_AGE.findall(cache_control)
            }
            lifetime = ages.get("s-maxage", ages.get("max-age", default))
    return min(max(lifetime, minimum), maximum)


@dataclass(frozen=True)
class Policy:
    """The numbers of SPEC §4, from the ``REP_*`` settings, and what follows from them."""

    #: First wait before retrying an unreachable document (doubles with each failure).
    retry_delay: float = 30.0
    #: How long requests are held for an unreachable document before giving up.
    max_wait: float = 600.0
    #: ``"drop"`` or ``"allow"`` the held requests after giving up.
    unreachable_action: str = "drop"
    #: Lifetime without ``Cache-Control``, and the bounds of ``max-age``.
    cache_ttl: float = 86_400.0
    min_ttl: float = 60.0
    max_ttl: float = 7 * 86_400.0
    #: How long an expired copy is used while refreshes fail.
    stale_max: float = 30 * 86_400.0
    #: Downloads at once.
    concurrency: int = 8
    #: How long one process may hold an origin's download lease.
    lease_seconds: float = 185.0
    #: The shared store asked before downloading (its name), or ``None``.
    store: str | None = None

    def lifetime(self, cache_control: str | None) -> float:
        return cache_lifetime(cache_control, self.cache_ttl, self.min_ttl, self.max_ttl)

    def backoff(self, failures: int, retry_after: float | None) -> float:
        """The wait after ``failures`` failed downloads in a row."""
        upper = max(self.retry_delay, self.max_wait)
        return retry_delay(failures - 1, self.retry_delay, upper, retry_after)

    def gave_up_lifetime(self, times: int) -> float:
        """How long a give-up verdict lasts: ``max_wait``, doubling each time the same
        origin is given up on again (a dead site is not probed every few seconds all
        crawl long), at most the cache lifetime."""
        base = max(self.max_wait, self.retry_delay)
        return min(base * math.pow(2, min(times - 1, 30)), max(base, self.cache_ttl))
