"""Memory per cached origin in the middleware's robots.txt cache (SPEC §4 "Caching").

Fills a :class:`scrapy_rep.cache.RobotsCache` the way the middleware does (parsed rules,
one group compiled by a lookup, the zlib-compressed body kept for JOBDIR and for
``SitemapSpider``) with the real files of ``../shared/corpus`` (cycled), and reports
bytes per cached origin from ``tracemalloc``: the median file, the mean over the corpus,
and the cache bound at work (``max_origins`` smaller than the files given).

Usage: ``python benchmarks/cache_memory.py [--origins 20000] [--corpus DIR]``
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tracemalloc
import zlib
from pathlib import Path

from scrapy_rep.cache import CacheEntry, RobotsCache
from scrapy_rep.origins import Origin
from scrapy_rep.robotstxt import MAX_BODY_BYTES, parse_robotstxt

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def entry_for(body: bytes) -> CacheEntry:
    body = body[:MAX_BODY_BYTES]
    rules = parse_robotstxt(body)
    rules.allowed("https://example.com/some/page", "mybot")  # compile our group once
    return CacheEntry(rules, "200", 0.0, 86_400.0, 2_678_400.0, 200, zlib.compress(body))


def bytes_per_origin(bodies: list[bytes], origins: int, max_origins: int) -> tuple[float, int]:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    cache = RobotsCache(max_origins)
    for number in range(origins):
        cache.put(
            Origin("https", f"host{number}.example", None), entry_for(bodies[number % len(bodies)])
        )
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used / len(cache), len(cache)


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
    print("| cache content | origins cached | bytes per origin |")
    print("|---|---|---|")
    per, count = bytes_per_origin([median_body], args.origins, args.origins)
    print(f"| the median file ({len(median_body):,} bytes) | {count:,} | {per:,.0f} |")
    per, count = bytes_per_origin(bodies, args.origins, args.origins)
    print(f"| the corpus, cycled | {count:,} | {per:,.0f} |")
    per, count = bytes_per_origin([median_body], args.origins, args.origins // 4)
    print(f"| the median file, bound {args.origins // 4:,} | {count:,} | {per:,.0f} |")


if __name__ == "__main__":
    main()
