"""The cache's side of long-lived state out of the collector's sight (docs/decisions.md):
what the add-on keeps per origin for a whole broad crawl adds no object that each full
garbage collection walks, where a plain tuple of atoms can hold it."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Hashable
from dataclasses import replace

from rep_engine.fetch.cache import CacheEntry, DocumentCache
from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, RobotsTxt, parse_robotstxt
from rep_engine.urls.origins import Origin
from tests.support.counting import tracked_under


def parsed_robots_entry(number: int) -> CacheEntry[RobotsTxt]:
    body = f"User-agent: *\nDisallow: /private/{number}\n".encode()
    return CacheEntry(parse_robotstxt(body), "200", 0, 100, 1000, 200, zlib.compress(body))


def test_compressed_entries_add_no_tracked_object() -> None:
    """1,000 origins compressed beyond ``max_origins`` (with a body, a 404's stand-in and
    a gave-up stand-in) cost the collector what 10 do: nothing per entry."""

    def filled(origins: int) -> DocumentCache[RobotsTxt]:
        cache: DocumentCache[RobotsTxt] = DocumentCache(
            1, reparse=parse_robotstxt, standins=(ALLOW_ALL, DISALLOW_ALL)
        )
        for number in range(origins):
            if number % 3 == 0:
                cache.put(f"o{number}", parsed_robots_entry(number))
            elif number % 3 == 1:
                cache.put(f"o{number}", CacheEntry(ALLOW_ALL, "404", 0, 100, 1000, 404))
            else:
                gave_up = CacheEntry(DISALLOW_ALL, "gave up", 0, 10, 10, None, b"", True)
                cache.put(f"o{number}", gave_up)
        cache.put("last", parsed_robots_entry(-1))  # the one parsed entry, the same in both
        return cache

    small, large = filled(10), filled(1000)
    assert len(large) == 1001 and large.parsed == 1
    assert tracked_under(large) - tracked_under(small) == 0


def test_origin_keys_add_no_tracked_object() -> None:
    """Entries stored under ``Origin`` keys (a tuple subclass, always tracked) are kept
    under plain tuples, and found by the ``Origin``."""

    def filled(origins: int) -> DocumentCache[RobotsTxt]:
        cache: DocumentCache[RobotsTxt] = DocumentCache(1, reparse=parse_robotstxt)
        for number in range(origins):
            cache.put(Origin("https", f"h{number}.example", None), parsed_robots_entry(number))
        return cache

    small, large = filled(10), filled(1000)
    assert tracked_under(large) - tracked_under(small) == 0
    found = large.get(Origin("https", "h5.example", None))
    assert found is not None and not found.rules.allowed("https://h/private/5", "bot")
    assert Origin("https", "h999.example", None) in large


def test_compressed_entries_come_back_as_they_were() -> None:
    """Each kind of compressed entry thaws to the entry stored (the stand-in the very
    object the kind shares; a document without body that is not a stand-in kept as is);
    a body parses again."""
    odd = parse_robotstxt(b"User-agent: *\nDisallow: /odd\n")
    entries = {
        "body": parsed_robots_entry(1),
        "absent": CacheEntry(ALLOW_ALL, "404", 0, 100, 1000, 404),
        "gave up": CacheEntry(DISALLOW_ALL, "gave up", 0, 10, 10, None, b"", True),
        "other": CacheEntry(odd, "shared", 0, 10, 10, None, b""),
    }
    cache: DocumentCache[RobotsTxt] = DocumentCache(
        1, reparse=parse_robotstxt, standins=(ALLOW_ALL, DISALLOW_ALL)
    )
    for key, entry in entries.items():
        cache.put(key, entry)
    cache.put("last", parsed_robots_entry(2))
    peeked = {key: cache.peek(key) for key in entries}
    assert peeked["body"] is not None and peeked["body"].rules is None
    for key in ("absent", "gave up", "other"):
        found = peeked[key]
        assert found is not None and found == entries[key]
        assert found.rules is entries[key].rules
    again = cache.get("body")
    assert again is not None and not again.rules.allowed("https://h/private/1", "bot")
    assert again.outcome == "200" and again.body_zlib == entries["body"].body_zlib
    assert cache.reparsed == 1


def plain_robots_cache(max_origins: int, max_live: int) -> DocumentCache[RobotsTxt]:
    """A cache of robots.txt as the crawl builds it: parsed entries kept plain."""
    return DocumentCache(
        max_origins,
        reparse=parse_robotstxt,
        standins=(ALLOW_ALL, DISALLOW_ALL),
        plain=ROBOTS_TXT.plain,
        unplain=ROBOTS_TXT.unplain,
        max_live=max_live,
    )


def test_parsed_entries_kept_plain_add_no_tracked_object() -> None:
    """1,000 origins kept parsed (each asked twice under its ``Origin``, so its crawler's
    matcher was compiled and it was made objects again; a 404's stand-in among them) cost
    the collector what 10 asked under plain tuples do: only the ``max_live`` used most
    recently are objects, under plain keys."""

    def filled(origins: int, key: Callable[..., Hashable]) -> DocumentCache[RobotsTxt]:
        cache = plain_robots_cache(2000, max_live=5)
        for number in range(origins):
            origin = key("https", f"h{number}.example", None)
            if number % 10 == 9:
                cache.put(origin, CacheEntry(ALLOW_ALL, "404", 0, 100, 1000, 404))
            else:
                cache.put(origin, parsed_robots_entry(number))
        for _ in range(2):
            for number in range(origins):
                found = cache.get(key("https", f"h{number}.example", None))
                assert found is not None and found.rules.allowed("https://h/", "bot")
        return cache

    small, large = filled(10, lambda *parts: parts), filled(1000, Origin)
    assert large.parsed == 1000 and large.reparsed == 0 and large.unplained == 2000
    assert tracked_under(large) - tracked_under(small) == 0


def test_plain_entries_come_back_as_they_were_without_a_parse() -> None:
    """An entry made plain and an object again answers as the one stored, every field
    equal; a stand-in comes back as the very object the kind shares; compressed beyond
    ``max_origins``, its body is parsed again."""
    cache = plain_robots_cache(3, max_live=1)
    first = parsed_robots_entry(1)
    absent = CacheEntry(ALLOW_ALL, "404", 0, 100, 1000, 404)
    cache.put("first", first)
    cache.put("absent", absent)
    cache.put("last", parsed_robots_entry(2))
    peeked = cache.peek("first")
    assert peeked is not None and peeked.rules is None and peeked.outcome == "200"
    again = cache.get("first")
    assert again is not None and again.rules is not first.rules
    assert not again.rules.allowed("https://h/private/1", "bot")
    assert again.rules.allowed("https://h/private/2", "bot")
    assert again.rules.decide("https://h/private/1", "bot").line == 2
    assert [getattr(again, f) for f in ("outcome", "body_zlib", "size", "fetched_at")] == [
        getattr(first, f) for f in ("outcome", "body_zlib", "size", "fetched_at")
    ]
    assert cache.get("absent") == absent and cache.get("absent").rules is ALLOW_ALL  # type: ignore[union-attr]
    assert cache.reparsed == 0 and cache.unplained == 2
    cache.put("fourth", parsed_robots_entry(4))  # "last" is the least recently used
    assert cache.parsed == 3 and cache.peek("last") is not None
    assert cache.get("last").rules.allowed("https://h/private/1", "bot")  # type: ignore[union-attr]
    assert cache.reparsed == 1


def test_plain_entries_are_compressed_only_by_the_byte_bound() -> None:
    """Kept plain, parsed entries stay within half of ``max_bytes`` like objects: beyond
    it the least recently used are compressed and parsed again when asked for (the one
    re-parse), the byte count stays right, and a discarded entry is gone as an object
    too."""
    cache: DocumentCache[RobotsTxt] = DocumentCache(
        1_000_000,
        max_bytes=7000,  # parsed: at most 3,500 bytes, three entries of 1,000
        reparse=parse_robotstxt,
        plain=ROBOTS_TXT.plain,
        unplain=ROBOTS_TXT.unplain,
        max_live=2,
    )
    for number in range(5):
        cache.put(f"o{number}", replace(parsed_robots_entry(number), size=1000))
    assert cache.parsed == 3 and len(cache) == 5 and cache.evictions == 0
    assert cache.bytes <= cache.max_bytes  # type: ignore[operator]
    for number in (2, 3, 4, 2):
        found = cache.get(f"o{number}")
        assert found is not None and not found.rules.allowed(f"https://h/private/{number}", "b")
    assert cache.reparsed == 0
    again = cache.get("o0")  # compressed by the byte bound: parsed again
    assert again is not None and not again.rules.allowed("https://h/private/0", "b")
    assert cache.reparsed == 1 and cache.parsed == 3
    cache.discard("o2")  # kept as an object and plain
    assert "o2" not in cache and cache.get("o2") is None
    for number in (0, 1, 3, 4):
        cache.discard(f"o{number}")
    assert cache.bytes == 0 and len(cache) == 0 and cache.parsed == 0
