"""``ROBOTSTXT_OBEY = False`` and ``dont_obey_robotstxt`` with a purpose
(docs/decisions.md, 'Not obeying robots.txt keeps the purpose's opt-outs').

They switch off robots.txt's Allow/Disallow (Scrapy's meaning) but not the opt-outs of a
purpose set in ``REP_PURPOSE``, and the crawl says so once. Without ``REP_PURPOSE`` they
switch everything off, as before. (The same settings through the tools:
``tests/integration/test_same_verdict.py``.)
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request

from rep_engine.fetch.kinds import TDMREP
from tests.support.robotsite import ListSpider, Reply, Sites, crawl, robots

ROBOTS = "User-agent: *\nDisallow: /\nContent-Usage: /nt/ train-ai=n\n"


class DontObeySpider(ListSpider):
    async def start(self) -> Any:
        for url in self.urls:
            meta = {"dont_obey_robotstxt": True}
            yield Request(url, callback=self.parse, errback=self.failed, meta=meta)


def purpose_site() -> tuple[Sites, list[str]]:
    sites = Sites()
    origin = sites.add("a")
    origin.script("/robots.txt", robots(ROBOTS))
    origin.script(TDMREP.path, Reply(200, b'[{"location": "/tdm/*", "tdm-reservation": 1}]'))
    return sites, [sites.url("a", path) for path in ("/free", "/nt/1", "/tdm/1")]


@pytest.mark.parametrize("switch", ["ROBOTSTXT_OBEY", "dont_obey_robotstxt"])
@pytest_twisted.ensureDeferred
async def test_a_purpose_set_keeps_its_opt_outs_when_robotstxt_is_not_obeyed(
    switch: str, caplog: pytest.LogCaptureFixture
) -> None:
    sites, urls = purpose_site()
    settings: dict[str, Any] = {"REP_PURPOSE": "ai-train", "LOG_LEVEL": "INFO"}
    spider_class: type[ListSpider] = ListSpider
    if switch == "ROBOTSTXT_OBEY":
        settings["ROBOTSTXT_OBEY"] = False
    else:
        spider_class = DontObeySpider
    caplog.set_level(logging.INFO, logger="scrapy_rep")
    try:
        crawler, spider = await crawl(urls, settings, spider_class)
    finally:
        await sites.close()
    # Disallow: / is not obeyed; the ai-train opt-outs of robots.txt and tdmrep.json are.
    assert spider.downloaded == [sites.url("a", "/free")]
    assert spider.dropped == {
        sites.url("a", "/nt/1"): "Not fetched: ai-train denied by robots.txt line 3: "
        "Content-Usage: /nt/ train-ai=n",
        sites.url(
            "a", "/tdm/1"
        ): 'Not fetched: ai-train denied by tdmrep.json entry 1 (location "/tdm/*")',
    }
    assert crawler.stats.get_value("robotstxt/forbidden") is None
    said = [r.getMessage() for r in caplog.records if "opt-outs for REP_PURPOSE" in r.getMessage()]
    assert len(said) == 1, said
    assert "(ai-train) still are" in said[0]


@pytest.mark.parametrize("switch", ["ROBOTSTXT_OBEY", "dont_obey_robotstxt"])
@pytest_twisted.ensureDeferred
async def test_without_a_purpose_set_the_switches_turn_everything_off(switch: str) -> None:
    sites, urls = purpose_site()
    settings: dict[str, Any] = {}
    spider_class: type[ListSpider] = ListSpider
    if switch == "ROBOTSTXT_OBEY":
        settings["ROBOTSTXT_OBEY"] = False
    else:
        spider_class = DontObeySpider
    try:
        _, spider = await crawl(urls, settings, spider_class)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(urls)
    assert "/robots.txt" not in sites.requested("a")


@pytest_twisted.ensureDeferred
async def test_a_robotstxt_given_up_on_still_drops_when_allow_disallow_is_off() -> None:
    """Its opt-outs are not known: nothing is let through on a guess."""
    sites = Sites()
    sites.add("a").script("/robots.txt", Reply(503))
    settings = {"ROBOTSTXT_OBEY": False, "REP_PURPOSE": "ai-train", "REP_UNREACHABLE_MAX_WAIT": 0}
    try:
        _, spider = await crawl([sites.url("a", "/x")], settings)
    finally:
        await sites.close()
    assert spider.downloaded == []
    assert list(spider.dropped) == [sites.url("a", "/x")]
