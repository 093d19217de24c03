"""robots.txt is parsed once per origin in a broad crawl with the default settings
(docs/decisions.md, 'Parsed once per origin'): the cache the crawl builds keeps every
parsed file as a plain value, so a crawl that comes back to 3,000 hosts in turn asks the
cache for each of them five times and never parses a file again."""

from __future__ import annotations

import zlib
from typing import Any

from scrapy_rep.crawl.documents.kinds import ROBOTS_CRAWL, TDMREP_CRAWL
from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.fetch.kinds import robots_size
from scrapy_rep.robotstxt import RobotsTxt
from tests.crawl.documents.test_kinds import origin_document


def test_default_settings_parse_each_robots_txt_once_over_3000_origins_path_major() -> None:
    """3,000 origins, five asks each, path-major (every origin's first, then every
    origin's second…, as benchmarks/broad.py crawls): 3,000 parses in all, each ask
    answered by its origin's own rules."""
    document, _, _ = origin_document(ROBOTS_CRAWL, [0.0])
    cache = document.cache
    parse = document.document.parse
    parses = 0
    for number in range(3000):
        body = f"User-agent: *\nDisallow: /private/{number}\n".encode()
        rules = parse(body)
        parses += 1
        entry: CacheEntry[RobotsTxt] = CacheEntry(
            rules, "200", 0, 1e9, 2e9, 200, zlib.compress(body), size=robots_size(rules, body)
        )
        cache.put(("https", f"o{number}.test", None), entry)
    for _page in range(5):
        for number in range(3000):
            found = cache.get(("https", f"o{number}.test", None))
            assert found is not None
            assert not found.rules.allowed(f"https://o/private/{number}", "bot")
            assert found.rules.allowed(f"https://o/private/{number + 1}", "bot")
    parses += cache.reparsed
    assert parses / 3000 <= 1.05, f"{parses} parses for 3,000 origins"


def test_a_kind_without_a_plain_form_keeps_at_most_1000_parsed() -> None:
    """tdmrep.json has no plain form: its parsed entries are objects, bounded as they were
    before REP_CACHE_MAX_ORIGINS' default was raised."""
    document: Any = origin_document(TDMREP_CRAWL, [0.0])[0]
    assert document.cache.max_origins == 1000
    robots: Any = origin_document(ROBOTS_CRAWL, [0.0])[0]
    assert robots.cache.max_origins == 1_000_000
