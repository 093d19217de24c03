"""Memory per cached origin in the middleware's robots.txt cache (SPEC §4 "Caching").

Fills a :class:`rep_engine.fetch.cache.DocumentCache` the way the middleware does (parsed
rules, one group compiled by a lookup, the zlib-compressed body kept for sharing, for
re-parsing and for ``SitemapSpider``) with the real files of ``../shared/corpus``
(cycled), and reports bytes per cached origin from ``tracemalloc`` next to the estimate
the cache counts (``REP_CACHE_MAX_BYTES``): the median file, the largest file, the mean
over the corpus, and the bound at work (``max_origins`` smaller than the origins given:
the rest are kept compressed).

Usage: ``python benchmarks/cache_memory.py [--origins 20000] [--corpus DIR]``
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tracemalloc
import zlib
from pathlib import Path

from rep_engine.fetch.cache import CacheEntry, DocumentCache
from rep_engine.fetch.kinds import robots_size as _estimated_size
from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.urls.origins import Origin

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def entry_for(body: bytes) -> CacheEntry[RobotsTxt]:
    body = body[:MAX_BODY_BYTES]
    rules = parse_robotstxt(body)
    rules.allowed("https://example.com/some/page", "mybot")  # compile our group once
    body_zlib = zlib.compress(body)
    size = _estimated_size(rules, body) + len(body_zlib)
    return CacheEntry(rules, "200", 0.0, 86_400.0, 2_678_400.0, 200, body_zlib, size=size)


def bytes_per_origin(
    bodies: list[bytes], origins: int, max_origins: int
) -> tuple[float, int, float]:
    """Measured bytes per origin, origins cached, and the cache's own count per origin."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    cache: DocumentCache[RobotsTxt] = DocumentCache(max_origins, None, parse_robotstxt)
    for number in range(origins):
        cache.put(
            Origin("https", f"host{number}.example", None), entry_for(bodies[number % len(bodies)])
        )
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used / len(cache), len(cache), cache.bytes / len(cache)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--origins", type=int, default=20_000)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    files = sorted(p for p in (args.corpus / "real").rglob("*") if p.is_file())
    bodies = [p.read_bytes() for p in files]
    sizes = sorted(len(b) for b in bodies)
    median_body = min(bodies, key=lambda b: abs(len(b) - statistics.median(sizes)))
    print(f"{len(bodies)} real files, median {statistics.median(sizes):,.0f} bytes")
    largest = max(bodies, key=len)
    print("| cache content | origins cached | bytes per origin (measured) | counted |")
    print("|---|---|---|---|")
    rows = [
        (f"the median file ({len(median_body):,} bytes)", [median_body], args.origins, 1),
        (f"the largest file ({len(largest):,} bytes)", [largest], 200, 1),
        ("the corpus, cycled", bodies, args.origins, 1),
        (f"the median file, {args.origins // 4:,} parsed", [median_body], args.origins, 4),
    ]
    for name, files_given, origins, fraction in rows:
        per, count, counted = bytes_per_origin(files_given, origins, origins // fraction)
        print(f"| {name} | {count:,} | {per:,.0f} | {counted:,.0f} |")


if __name__ == "__main__":
    main()
