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


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds from ``now``: delta-seconds or an HTTP date; else None."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(int(text))
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now if now is not None else datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())


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
