"""SPEC §4 "Caching": lifetime, stale copies, the bounds in origins and in bytes."""

from __future__ import annotations

import zlib
from dataclasses import replace

import pytest

from rep_engine.fetch.cache import COMPRESSED_OVERHEAD, CacheEntry, DocumentCache, Freshness
from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, RobotsTxt, parse_robotstxt

BODY = b"User-agent: *\nDisallow: /x\n"


def absent_entry(at: float = 0, fresh: float = 100, stale: float = 1000) -> CacheEntry[RobotsTxt]:
    return CacheEntry(ALLOW_ALL, "404", at, at + fresh, at + stale)


def parsed(body: bytes = BODY, size: int = 1000) -> CacheEntry[RobotsTxt]:
    return CacheEntry(
        parse_robotstxt(body), "200", 0, 100, 1000, 200, zlib.compress(body), size=size
    )


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
    assert absent_entry().freshness(now) is freshness
    assert absent_entry().usable(now) is (freshness is not Freshness.EXPIRED)


def test_spec4_without_reparsing_the_lru_bound_drops_the_least_recently_used() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(2)
    cache.put("a", absent_entry())
    cache.put("b", absent_entry())
    cache.get("a")  # a is now the most recently used
    cache.put("c", absent_entry())
    assert "b" not in cache and "a" in cache and "c" in cache
    assert cache.evictions == 1 and len(cache) == 2


def test_spec4_beyond_max_origins_entries_are_compressed_and_parsed_again() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(1, reparse=parse_robotstxt)
    cache.put("a", parsed())
    cache.put("b", parsed(b"User-agent: *\nDisallow: /b\n"))
    assert cache.parsed == 1 and len(cache) == 2 and cache.evictions == 0
    again = cache.get("a")  # parsed again, no download needed
    assert again is not None and not again.rules.allowed("https://h/x", "bot")
    assert cache.reparsed == 1
    assert cache.peek("b") is not None and cache.peek("b").rules is None  # b is compressed now


def test_spec4_stand_ins_are_kept_as_they_are_when_compressed() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(1, reparse=parse_robotstxt)
    gave_up = CacheEntry(DISALLOW_ALL, "gave up", 0, 10, 10, None, b"", True)
    cache.put("dead", gave_up)
    cache.put("other", parsed())
    assert cache.get("dead") == gave_up
    assert cache.reparsed == 0


def test_spec4_the_byte_bound_drops_compressed_then_parsed_entries() -> None:
    body_zlib = zlib.compress(BODY)
    cold = len(body_zlib) + COMPRESSED_OVERHEAD
    cache: DocumentCache[RobotsTxt] = DocumentCache(1, 2000 + cold, parse_robotstxt)
    cache.put("a", parsed(size=2000))
    cache.put("b", parsed(size=2000))  # a is compressed: 2000 + cold bytes in all
    assert len(cache) == 2 and cache.bytes == 2000 + cold
    cache.put("c", parsed(size=2000))  # b compressed, a dropped
    assert "a" not in cache and len(cache) == 2 and cache.evictions == 1
    assert cache.bytes <= cache.max_bytes  # type: ignore[operator]


def test_spec4_an_entry_larger_than_the_byte_bound_is_still_kept() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(10, 100, parse_robotstxt)
    cache.put("a", parsed(size=50))
    cache.put("huge", parsed(size=10_000))
    assert "huge" in cache and "a" not in cache
    assert cache.get("huge") is not None


def test_spec4_replacing_an_entry_keeps_the_byte_count_right() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(10, 10_000, parse_robotstxt)
    for size in (100, 300, 200):
        cache.put("a", parsed(size=size))
    assert cache.bytes == 200
    cache.discard("a")
    assert cache.bytes == 0 and len(cache) == 0


def test_cache_bound_with_100000_origins() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(1000, 10_000_000, parse_robotstxt)
    rules = parse_robotstxt(BODY)
    body_zlib = zlib.compress(BODY)
    for n in range(100_000):
        cache.put(
            ("https", f"host{n}.example", None),
            CacheEntry(rules, "200", 0, 1, 2, 200, body_zlib, size=2000),
        )
    assert cache.parsed == 1000
    assert cache.bytes <= 10_000_000
    assert len(cache) == 1000 + (10_000_000 - 1000 * 2000) // (len(body_zlib) + COMPRESSED_OVERHEAD)


def test_cache_needs_room_for_one() -> None:
    with pytest.raises(ValueError, match="max_origins"):
        DocumentCache(0)


def test_spec4_one_large_parsed_entry_does_not_flush_the_compressed_tier() -> None:
    # Parsed entries take at most half the byte bound: a 3 MB estimate (a robots.txt
    # over 500 KiB) compresses older parsed entries instead of dropping every compressed
    # one, each of which would cost a robots.txt download when its origin comes back.
    cold = len(zlib.compress(BODY)) + COMPRESSED_OVERHEAD
    bound = 3_000_000 * 2 + 100 * cold
    cache: DocumentCache[RobotsTxt] = DocumentCache(100, bound, parse_robotstxt)
    for n in range(50):
        cache.put(n, parsed(size=2000))
    cache.put("huge", parsed(size=3_000_000))
    cache.put("huge2", parsed(size=3_000_000))
    assert cache.evictions == 0 and len(cache) == 52
    assert cache.parsed == 1  # the others were compressed, not dropped
    assert cache.bytes <= cache.max_bytes  # type: ignore[operator]


def test_a_compact_entry_is_given_back_by_the_cache_while_it_holds_it() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(1, reparse=parse_robotstxt)
    full = parsed()
    cache.put("a", full)
    kept = cache.compact(full)
    assert kept.rules is None and kept.body_zlib == full.body_zlib  # no parsed rules kept
    assert cache.restore("a", kept) is full  # the cache's own: nothing parsed
    assert cache.reparsed == 0


def test_a_compact_entry_the_cache_lost_is_parsed_again_the_same() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(1, max_bytes=1000, reparse=parse_robotstxt)
    full = parsed()
    cache.put("a", full)
    kept = cache.compact(full)
    cache.put("b", parsed(b"User-agent: *\nAllow: /\n"))  # "a" compressed, then dropped
    assert "a" not in cache and cache.evictions == 1
    again = cache.restore("a", kept)
    assert not again.rules.allowed("https://h/x", "bot")
    assert again.rules.allowed("https://h/y", "bot")
    assert replace(again, rules=None) == kept and cache.reparsed == 1


def test_a_compact_entry_is_never_answered_by_a_newer_version() -> None:
    """What released a request decides it, even when the origin's robots.txt was
    fetched again meanwhile (here: a newer file that allows everything)."""
    cache: DocumentCache[RobotsTxt] = DocumentCache(4, reparse=parse_robotstxt)
    old = parsed()
    kept = cache.compact(old)
    newer = replace(parsed(b"User-agent: *\nAllow: /\n"), fetched_at=50)
    cache.put("a", newer)
    again = cache.restore("a", kept)
    assert again is not newer and not again.rules.allowed("https://h/x", "bot")


def test_entries_without_a_body_are_kept_whole() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(1, reparse=parse_robotstxt)
    stand_in = CacheEntry(DISALLOW_ALL, "gave up", 0, 100, 1000, unreachable=True)
    assert cache.compact(stand_in) is stand_in and cache.restore("a", stand_in) is stand_in
    without_reparse: DocumentCache[RobotsTxt] = DocumentCache(1)
    full = parsed()
    assert without_reparse.compact(full) is full
