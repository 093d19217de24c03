"""A real crawl paused with more held requests than ``REP_MAX_HELD_REQUESTS`` resumes every
one of them from the disk queues its JOBDIR keeps (SPEC §4, §7; docs/decisions.md, 'A
pause leaves spilled requests on disk'; the memory bound: tests/crawl/documents/
test_holding_pause_memory.py)."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest_twisted
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl.documents.holding import STATE_FILE
from tests.support.robotsite import BASE_SETTINGS, ListSpider, Reply, Sites, robots
from tests.support.scrapyversions import stop


@pytest_twisted.ensureDeferred
async def test_a_real_crawl_paused_with_spilled_requests_resumes_them_all(
    tmp_path: Path,
) -> None:
    """robots.txt is down; 600 requests are held, 560 of them spilled; the crawl is
    paused, the site comes back, the resumed crawl downloads every one of them."""
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    n = 600
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    urls = [sites.url("down", f"/{i}") for i in range(n)]
    settings = {
        **BASE_SETTINGS,
        "JOBDIR": str(tmp_path),
        "REP_UNREACHABLE_MAX_WAIT": 600,
        "REP_MAX_HELD_REQUESTS": 40,
        "LOG_LEVEL": "INFO",
    }
    first = get_crawler(ListSpider, settings)
    running = first.crawl(urls=urls)
    stats: dict[str, Any] = {}
    for _ in range(400):  # until every request is held (at most 20 s)
        await deferLater(reactor, 0.05)
        stats = first.stats.get_stats() if first.stats is not None else {}
        if stats.get("rep/requests/held", 0) == n:
            break
    assert stats.get("rep/requests/held") == n
    await stop(first)
    await running
    assert stats.get("rep/requests/spilled") == n - 40
    state = pickle.loads((tmp_path / STATE_FILE).read_bytes())
    assert len(state["held"]) == 40 and len(state["spilled"]) == 1

    down.script("/robots.txt", robots("User-agent: *\nDisallow: /1$\n"))
    second = get_crawler(ListSpider, settings)
    try:
        await second.crawl(urls=urls)
    finally:
        await sites.close()
    assert second.stats is not None and second.spider is not None
    assert second.stats.get_value("rep/requests/resumed") == n
    assert sorted(second.spider.downloaded) == sorted(u for u in urls if not u.endswith("/1"))
    assert list(second.spider.dropped) == [sites.url("down", "/1")]
    pages = [p for p in sites.requested("down") if p != "/robots.txt"]
    assert sorted(pages) == sorted(f"/{i}" for i in range(n) if i != 1)  # each once
