"""The page's RSL licenses as the spider middleware reads them (crawl/page/pagelicenses.py),
with a stand-in for the crawl's RSL document: which licenses a page names, what a cached
one says, and what a license not known yet counts as on Scrapy's sync output path."""

from __future__ import annotations

import zlib
from typing import Any

from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler

from rep_engine.fetch.cache import CacheEntry
from rep_engine.settings import RepConfig
from rep_engine.usage.purpose import usage_decision
from rep_engine.usage.rsl.document import parse_rsl
from rep_engine.verdict.policy import UsagePolicy
from scrapy_rep.crawl.page.pagelicenses import PageLicenseReader

LICENSE = "https://lic.example/l.xml"
NO_SEARCH = (
    b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
    b'<prohibits type="usage">search</prohibits></license></content></rsl>'
)


class Document:
    """The crawl's RSL document: a cache of license entries by URL."""

    def __init__(self, entries: dict[str, CacheEntry[Any]]) -> None:
        self.entries = entries

    def usable_entry(self, key: str) -> CacheEntry[Any] | None:
        return self.entries.get(key)


def reader(entries: dict[str, CacheEntry[Any]]) -> tuple[PageLicenseReader, Any]:
    crawler = get_crawler(settings_dict={"REP_PURPOSE": "search"})
    config = RepConfig.from_settings(crawler.settings)
    found = PageLicenseReader(crawler, config, UsagePolicy.of(config.purpose))
    found._document, found._looked_up = Document(entries), True  # type: ignore[assignment]
    return found, crawler


def page_with_head(head: str = "", **headers: str) -> HtmlResponse:
    body = f"<html><head>{head}</head><body>p</body></html>".encode()
    url = "https://site.example/page"
    return HtmlResponse(url, body=body, headers=headers, request=Request(url))


def license_entry(body: bytes) -> CacheEntry[Any]:
    return CacheEntry(parse_rsl(body), "200", 0, 1e12, 1e12, 200, zlib.compress(body))


def test_a_page_without_licenses_says_nothing() -> None:
    found, _ = reader({})
    assert (
        found.known_now(page_with_head('<link rel="license" href="https://cc.example/by">')) == ()
    )


def test_a_cached_license_named_by_the_link_header_decides_now() -> None:
    found, _ = reader({LICENSE: license_entry(NO_SEARCH)})
    link = f'<{LICENSE}>; rel="license"; type="application/rsl+xml"'
    decision = usage_decision(found.known_now(page_with_head(Link=link)))
    assert decision.allowed("search") is False
    assert LICENSE in decision.decided_by("search").source  # type: ignore[union-attr]


def test_a_license_not_known_yet_on_the_sync_path_is_no_ai_use_and_counted() -> None:
    found, crawler = reader({})
    html = f'<link rel="license" type="application/rsl+xml" href="{LICENSE}">'
    decision = usage_decision(found.known_now(page_with_head(html)))
    assert (decision.allowed("ai-train"), decision.allowed("ai-input")) == (False, False)
    assert decision.allowed("search") is None  # not concerned: not a "no" we invent
    assert crawler.stats.get_value("rep/rsl/page_license_not_known") == 1


def test_a_page_naming_more_licenses_than_the_bound_has_none_read_on_the_sync_path() -> None:
    """docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read per robots.txt',
    for a page: nine licenses named (one over the default 8), each cached as permitting
    everything, are none read; their stand-in refuses every purpose, search included."""
    permit = b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
    permit += b'<permits type="usage">all</permits></license></content></rsl>'
    urls = [f"https://lic.example/{n}.xml" for n in range(9)]
    found, _ = reader({url: license_entry(permit) for url in urls})
    links = "".join(f'<link rel="license" type="application/rsl+xml" href="{u}">' for u in urls)
    decision = usage_decision(found.known_now(page_with_head(links)))
    assert [decision.allowed(p) for p in ("search", "ai-train", "ai-input")] == [False] * 3
    assert decision.decided_by("search").source == (  # type: ignore[union-attr]
        f"RSL {urls[8]}: licenses not read: the page names 9, more than REP_RSL_MAX_LICENSES (8)"
    )
    assert usage_decision(found.known_now(page_with_head(links.split(">", 1)[1]))).allowed("search")
