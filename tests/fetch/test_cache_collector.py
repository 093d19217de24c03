"""The cache's side of long-lived state out of the collector's sight (docs/decisions.md):
what the add-on keeps per origin for a whole broad crawl adds no object that each full
garbage collection walks, where a plain tuple of atoms can hold it."""

from __future__ import annotations

import zlib

from scrapy_rep.fetch.cache import CacheEntry, DocumentCache
from scrapy_rep.robotstxt import ALLOW_ALL, DISALLOW_ALL, RobotsTxt, parse_robotstxt
from scrapy_rep.urls.origins import Origin
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
        assert peeked[key] == entries[key] and peeked[key].rules is entries[key].rules
    again = cache.get("body")
    assert again is not None and not again.rules.allowed("https://h/private/1", "bot")
    assert again.outcome == "200" and again.body_zlib == entries["body"].body_zlib
    assert cache.reparsed == 1
