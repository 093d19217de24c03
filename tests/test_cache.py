"""SPEC §4 "Caching": lifetime, stale copies, LRU bound."""

from __future__ import annotations

import pytest

from scrapy_rep.cache import CacheEntry, Freshness, RobotsCache
from scrapy_rep.robotstxt import ALLOW_ALL, parse_robotstxt


def entry(at: float = 0, fresh: float = 100, stale: float = 1000) -> CacheEntry:
    return CacheEntry(ALLOW_ALL, "404", at, at + fresh, at + stale)


@pytest.mark.parametrize(
    ("now", "freshness"),
    [
        (0, Freshness.FRESH),
        (99.9, Freshness.FRESH),
        (100, Freshness.STALE),
        (999, Freshness.STALE),
        (1000, Freshness.EXPIRED),
    ],
)
def test_spec4_entry_fresh_then_stale_then_expired(now: float, freshness: Freshness) -> None:
    assert entry().freshness(now) is freshness


def test_spec4_stale_entry_is_kept_but_not_usable_without_refresh() -> None:
    cache = RobotsCache(10)
    cache.put("a", entry())
    assert cache.usable("a", 50) is not None
    assert cache.usable("a", 500) is None
    assert cache.get("a") is not None  # still there, for a failed refresh


def test_spec4_lru_bound_evicts_least_recently_used() -> None:
    cache = RobotsCache(2)
    cache.put("a", entry())
    cache.put("b", entry())
    cache.get("a")  # a is now the most recently used
    cache.put("c", entry())
    assert "b" not in cache and "a" in cache and "c" in cache
    assert cache.evictions == 1 and len(cache) == 2


def test_cache_bound_with_100000_origins() -> None:
    cache = RobotsCache(1000)
    rules = parse_robotstxt(b"User-agent: *\nDisallow: /x\n")
    for n in range(100_000):
        cache.put(("https", f"host{n}.example", None), CacheEntry(rules, "200", 0, 1, 2))
    assert len(cache) == 1000 and cache.evictions == 99_000


def test_cache_needs_room_for_one() -> None:
    with pytest.raises(ValueError, match="max_origins"):
        RobotsCache(0)
