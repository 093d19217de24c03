"""Content-Signal ``use=`` and the ``Content-Signal`` response header in real crawls of local
sites (the readings: tests/usage/test_purpose_content_signal_use.py): an ai-input crawl
fetches a site under Cloudflare's managed robots.txt and obeys the header, marked items
carry the condition, a search crawl reads the header on a page with no other signal."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted

from rep_audit.show import story
from tests.support.audittrail import by_url, chain_breaks
from tests.support.documents import CLOUDFLARE_USE_REFERENCE
from tests.support.robotsite import (
    ListSpider,
    Sites,
    collecting_items,
    crawl,
    html_page,
    robots,
)


def _build() -> tuple[Sites, dict[str, str]]:
    sites = Sites()
    sites.add("managed").script("/robots.txt", robots(CLOUDFLARE_USE_REFERENCE))
    header = sites.add("header")
    header.script(
        "/all-yes", html_page(**{"content-signal": "ai-train=yes, search=yes, ai-input=yes"})
    )
    header.script("/input-no", html_page(**{"Content-Signal": "ai-input=no, use=reference"}))
    header.script(
        "/both", html_page(**{"Content-Signal": "ai-train=yes", "Content-Usage": "train-ai=n"})
    )
    header.script("/search-no", html_page(**{"Content-Signal": "search=no"}))
    urls = {
        "managed /page": sites.url("managed", "/page"),
        "header /search-no": sites.url("header", "/search-no"),
        "header /all-yes": sites.url("header", "/all-yes"),
        "header /input-no": sites.url("header", "/input-no"),
        "header /both": sites.url("header", "/both"),
    }
    return sites, urls


class _ItemSpider(ListSpider):
    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {"url": response.url}


async def _run(
    purpose: str, tmp_path: Path, **extra: Any
) -> tuple[Any, Any, dict[str, str], list[Any]]:
    sites, urls = _build()
    items: list[Any] = []
    settings = {
        "REP_PURPOSE": purpose,
        "REP_AUDIT_FILE": str(tmp_path / "audit.jsonl"),
        "REP_REPORT": True,
        "REP_REPORT_FILE": str(tmp_path / "report.txt"),
        "ITEM_PIPELINES": {},
        **extra,
    }
    try:
        crawler, spider = await crawl(list(urls.values()), settings, _ItemSpider,
                                      collecting_items(items))  # fmt: skip
    finally:
        await sites.close()
    return crawler, spider, urls, items


def _names(urls: dict[str, str], found: Any) -> set[str]:
    by = {url: name for name, url in urls.items()}
    return {by[url] for url in found}


@pytest_twisted.ensureDeferred
async def test_an_ai_input_crawl_fetches_a_managed_site_and_obeys_the_header(
    tmp_path: Path,
) -> None:
    _, spider, urls, items = await _run("ai-input", tmp_path)
    assert _names(urls, spider.downloaded) == set(urls)  # nothing refused before the fetch
    # the header's ai-input=no drops the page's item; the others are kept
    assert _names(urls, [item["url"] for item in items]) == set(urls) - {"header /input-no"}
    records = {name: by_url(tmp_path / "audit.jsonl")[url] for name, url in urls.items()}
    managed = records["managed /page"]
    assert managed["fate"] == "fetched" and managed["usage"]["conditions"] == ["use=reference"]
    assert managed["usage"]["answers"] == {"search": True, "ai-train": False, "ai-input": None}
    denied = records["header /input-no"]
    assert denied["item_reason"] == "purpose"
    deciding = denied["usage"]["signals"][denied["usage"]["decided_by"]["ai-input"]]
    assert deciding["source"] == "header Content-Signal: ai-input=no, use=reference"
    assert deciding["vocabulary"] == "content-signal" and "snapshot" not in deciding
    assert denied["usage"]["conditions"] == ["use=reference"]
    assert chain_breaks(tmp_path / "audit.jsonl") == []
    report = (tmp_path / "report.txt").read_text(encoding="utf-8")
    assert "content use: at most reference (Content-Signal use=reference" in report


@pytest_twisted.ensureDeferred
async def test_marked_items_carry_the_condition_and_the_header_decides_ai_train(
    tmp_path: Path,
) -> None:
    crawler, spider, urls, items = await _run("ai-train", tmp_path, REP_PURPOSE_ACTION="mark")
    # robots.txt's ai-train=no refuses the managed site before the fetch
    assert _names(urls, spider.downloaded) == set(urls) - {"managed /page"}
    by_name = {name: item for item in items for name, url in urls.items() if item["url"] == url}
    assert by_name["header /all-yes"]["rep_usage"]["a"]["ai-train"] is True
    both = by_name["header /both"]["rep_usage"]
    assert both["a"]["ai-train"] is False  # Content-Usage train-ai=n beats the header's yes
    assert both["s"][both["by"]["ai-train"]]["src"] == "header Content-Usage: train-ai=n"
    assert by_name["header /input-no"]["rep_usage"]["c"] == ["use=reference"]
    assert "c" not in by_name["header /all-yes"]["rep_usage"]
    assert crawler.stats.get_value("rep/purpose/items_marked/ai-train") == 1


@pytest_twisted.ensureDeferred
async def test_a_search_crawl_reads_the_header_on_a_page_with_no_other_signal(
    tmp_path: Path,
) -> None:
    """The search crawl's fast path (no tdmrep.json, no other page signal) still reads it."""
    crawler, spider, urls, items = await _run("search", tmp_path)
    assert _names(urls, spider.downloaded) == set(urls)
    assert _names(urls, [item["url"] for item in items]) == set(urls) - {"header /search-no"}
    assert crawler.stats.get_value("rep/purpose/items_dropped/search") == 1


@pytest_twisted.ensureDeferred
async def test_a_content_signal_refusal_names_its_line_in_the_trail_and_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Which line? The trail's record and the log name the robots.txt line that said no,
    as for Content-Usage (a file-wide line and the group's: the group's said no)."""
    sites = Sites()
    sites.add("a").script(
        "/robots.txt",
        robots(
            "Content-Signal: search=yes\nUser-agent: *\nAllow: /\nContent-Signal: ai-train=no\n"
        ),
    )
    url = sites.url("a", "/page")
    audit = tmp_path / "audit.jsonl"
    caplog.set_level(logging.DEBUG, logger="scrapy_rep")
    try:
        _, spider = await crawl([url], {"REP_PURPOSE": "ai-train", "REP_AUDIT_FILE": str(audit)})
    finally:
        await sites.close()
    assert spider.downloaded == []
    record = by_url(audit)[url]
    assert record["fate"] == "refused"
    said = "robots.txt line 4: Content-Signal: ai-train=no"
    assert said in record["why"], record
    assert any(said in message for message in caplog.messages), caplog.messages
    told, _status = story(audit, url)  # audit show
    assert any(said in line for line in told), told
