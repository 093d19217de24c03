"""Issue 22 in real crawls: every opt-out the standards review found lost, and the newer
vocabulary, each on its own local origin.

One crawl per purpose over all the origins; each asserts the exact sets of URLs fetched,
URLs not fetched, and items kept. The crawler is ``TestBot`` (robotsite.BASE_SETTINGS).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from robotsite import ListSpider, Reply, Sites, crawl, robots

HTML = {"Content-Type": "text/html"}


def build() -> tuple[Sites, dict[str, str]]:
    sites = Sites()
    paths: dict[str, list[str]] = {}
    # 1. attach-05 §3: Content-Usage ends a run of user-agent lines. Only otherbot's
    # group allows /a; TestBot falls back to "*" (train-ai=n, except /free).
    sites.add("groups").script(
        "/robots.txt",
        robots(
            "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /free train-ai=y\n\n"
            "User-agent: otherbot\nContent-Usage: /a train-ai=y\n"
        ),
    )
    paths["groups"] = ["/a/x", "/free/x"]
    # 2. A line before the first group only adds restrictions: its /a y does not lift
    # the group's n; its /b n adds one.
    sites.add("filewide").script(
        "/robots.txt",
        robots(
            "Content-Usage: /a train-ai=y\nContent-Usage: /b train-ai=n\n"
            "User-agent: *\nContent-Usage: /a train-ai=n\nContent-Usage: /c train-ai=y\n"
        ),
    )
    paths["filewide"] = ["/a/x", "/b/x", "/c/x", "/d"]
    # 3. A bad tdmrep.json entry is skipped (and counted): the next one reserves /a.
    sites.add("tdmbad").script(
        "/.well-known/tdmrep.json",
        Reply(
            200,
            b'[{"location":"/free","tdm-reservation":0},'
            b'{"location":"/a","tdm-reservation":"yes"},{"location":"/","tdm-reservation":1}]',
            {"Content-Type": "application/json"},
        ),
    )
    paths["tdmbad"] = ["/a/x", "/free"]
    # 4. REP_PURPOSE_AGENTS = ["GPTBot"]: its group's Content-Usage and Content-Signal
    # speak for this crawl too, not only its Disallow lines.
    sites.add("agents").script(
        "/robots.txt",
        robots(
            "User-agent: GPTBot\nDisallow: /gpt-no\nContent-Usage: train-ai=n\n"
            "Content-Usage: /free train-ai=y\nContent-Signal: ai-input=no\n\n"
            "User-agent: *\nAllow: /\n"
        ),
    )
    paths["agents"] = ["/page", "/free/x", "/gpt-no"]
    urls = {
        f"{name} {path}": sites.url(name, path) for name, some in paths.items() for path in some
    }
    return sites, urls


class ItemSpider(ListSpider):
    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {"url": response.url}


#: purpose -> (not fetched, fetched but items dropped); the rest is fetched and kept.
EXPECTED: dict[str, tuple[set[str], set[str]]] = {
    "search": ({"agents /gpt-no"}, set()),
    "ai-train": (
        {"groups /a/x", "filewide /a/x", "filewide /b/x", "tdmbad /a/x"}
        | {"agents /page", "agents /gpt-no"},
        set(),
    ),
    "ai-input": ({"tdmbad /a/x", "agents /page", "agents /free/x", "agents /gpt-no"}, set()),
}


async def run(purpose: str, **extra: Any) -> tuple[Any, Any, dict[str, str], Sites, list[Any]]:
    sites, urls = build()
    items: list[Any] = []
    settings = {
        "REP_PURPOSE": purpose,
        "REP_PURPOSE_AGENTS": ["GPTBot"],
        "ITEM_PIPELINES": {},
        **extra,
    }

    def connect(crawler: Any) -> None:
        from scrapy import signals

        crawler.signals.connect(
            lambda item, **_: items.append(item), signal=signals.item_scraped, weak=False
        )

    try:
        crawler, spider = await crawl(list(urls.values()), settings, ItemSpider, connect)
    finally:
        await sites.close()
    return crawler, spider, urls, sites, items


def names(urls: dict[str, str], found: Any) -> set[str]:
    by_url = {url: name for name, url in urls.items()}
    return {by_url[url] for url in found if url in by_url}


@pytest.mark.parametrize("purpose", ["search", "ai-train", "ai-input"])
@pytest_twisted.ensureDeferred
async def test_issue22_fetched_not_fetched_kept(purpose: str, tmp_path: Path) -> None:
    crawler, spider, urls, sites, items = await run(purpose)
    every = set(urls)
    not_fetched, items_dropped = EXPECTED[purpose]
    assert names(urls, spider.downloaded) == every - not_fetched
    assert names(urls, spider.dropped) == not_fetched
    assert names(urls, [item["url"] for item in items]) == every - not_fetched - items_dropped
    fetched = set(sites.log)
    for name in not_fetched:
        origin, path = name.split(" ")
        assert (origin, path) not in fetched
    skipped = crawler.stats.get_value("rep/tdmrep/entries_skipped")
    assert skipped == (None if purpose == "search" else 1)
