"""A resumed crawl does not download again a robots.txt its JOBDIR store still had
(docs/deployment.md, 'Pause and resume with `JOBDIR`'): the store is bounded by
``REP_CACHE_MAX_BYTES``, not by ``REP_CACHE_MAX_ORIGINS`` (the parsed tier of the cache only)."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from tests.support.robotsite import Sites, crawl, robots

NAMES = ("a", "b", "c", "d")


@pytest_twisted.ensureDeferred
async def test_a_resumed_crawl_keeps_every_origin_its_cache_kept(tmp_path: Path) -> None:
    sites = Sites()
    for name in NAMES:
        sites.add(name).script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    # One origin parsed at a time: the others are compressed in the cache, not forgotten.
    settings = {"JOBDIR": str(tmp_path), "REP_CACHE_MAX_ORIGINS": 1}
    try:
        await crawl([sites.url(name, "/first") for name in NAMES], settings)
        crawler, spider = await crawl([sites.url(name, "/second") for name in NAMES], settings)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(sites.url(name, "/second") for name in NAMES)
    for name in NAMES:  # once, in the first run (it was twice for 3 origins in 4)
        assert sites.requested(name).count("/robots.txt") == 1, name
    assert crawler.stats is not None
    assert crawler.stats.get_value("rep/robotstxt/store_hits") == len(NAMES)
