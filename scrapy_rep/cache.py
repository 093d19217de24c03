"""The per-origin robots.txt cache (SPEC §4 "Caching"): pure, no Scrapy imports.

- An entry is fresh for its lifetime (24 h by default, ``Cache-Control`` within bounds).
- When a refresh fails (5xx, 429, network error), the old entry stays in use until its
  stale limit (30 days by default).
- At most ``max_origins`` entries; beyond that the least recently used one is evicted.
"""

from __future__ import annotations

import enum
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from scrapy_rep.robotstxt import RobotsTxt


class Freshness(enum.Enum):
    FRESH = "fresh"
    #: Past its lifetime but within the stale limit: usable while a refresh fails.
    STALE = "stale"
    #: Past the stale limit: unusable.
    EXPIRED = "expired"


@dataclass(frozen=True)
class CacheEntry:
    """One origin's robots.txt as fetched."""

    rules: RobotsTxt
    #: Human-readable outcome of the download ("200", "404", "redirected to …").
    outcome: str
    fetched_at: float
    fresh_until: float
    stale_until: float
    #: The HTTP status of the last response (``None``: network error or gave up).
    status: int | None = None
    #: The robots.txt body as downloaded (first 500 KiB), zlib-compressed; ``b""`` when
    #: there was none (404, unreachable). Kept to persist the cache and to serve a
    #: spider's own request for robots.txt without a second download.
    body_zlib: bytes = b""
    #: ``True`` for the verdict of an origin given up on after its robots.txt stayed
    #: unreachable (SPEC §4): requests it refuses are "unreachable", not "forbidden".
    unreachable: bool = False

    def freshness(self, now: float) -> Freshness:
        if now < self.fresh_until:
            return Freshness.FRESH
        if now < self.stale_until:
            return Freshness.STALE
        return Freshness.EXPIRED


class RobotsCache:
    """An LRU map origin → :class:`CacheEntry`, bounded by ``max_origins``."""

    def __init__(self, max_origins: int) -> None:
        if max_origins < 1:
            raise ValueError(f"max_origins must be at least 1, got {max_origins}")
        self.max_origins = max_origins
        self._entries: OrderedDict[Hashable, CacheEntry] = OrderedDict()
        #: Entries evicted because the cache was full (for stats).
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, origin: Hashable) -> bool:
        return origin in self._entries

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._entries)

    def get(self, origin: Hashable) -> CacheEntry | None:
        """The entry of ``origin`` (any freshness), marking it recently used."""
        entry = self._entries.get(origin)
        if entry is not None:
            self._entries.move_to_end(origin)
        return entry

    def usable(self, origin: Hashable, now: float) -> CacheEntry | None:
        """The entry if it is fresh, else None (a stale one needs a refresh first)."""
        entry = self.get(origin)
        return entry if entry is not None and entry.freshness(now) is Freshness.FRESH else None

    def put(self, origin: Hashable, entry: CacheEntry) -> None:
        """Store ``entry``; evict the least recently used entries beyond the bound."""
        self._entries[origin] = entry
        self._entries.move_to_end(origin)
        while len(self._entries) > self.max_origins:
            self._entries.popitem(last=False)
            self.evictions += 1

    def discard(self, origin: Hashable) -> None:
        self._entries.pop(origin, None)

    def items(self) -> list[tuple[Hashable, CacheEntry]]:
        """All entries, least recently used first (for persistence)."""
        return list(self._entries.items())
