"""Purpose-aware crawling in real crawls: every AI-usage signal, for each purpose.

Local origins carry each signal: robots.txt ``Content-Usage`` rules (the aipref attach
draft's own example), ``Content-Signal`` inside a group and before any group,
tdmrep.json, the ``Content-Usage`` and ``tdm-reservation`` headers, the
``tdm-reservation`` meta tag, ``noai`` in ``X-Robots-Tag`` and in robots meta, and a
robots.txt group for an AI crawler's token. The same crawl runs for ``search``,
``ai-train`` and ``ai-input``; each asserts the exact sets of URLs fetched, URLs not
fetched, items kept, and the audit records.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request
from scrapy.utils.test import get_crawler

from rep_engine.verdict.policy import UsagePolicy
from tests.support.audittrail import by_url, chain_breaks, written_lines
from tests.support.robotsite import (
    BASE_SETTINGS,
    ItemSpider,
    ListSpider,
    Reply,
    Sites,
    collecting_items,
    crawl,
    html_page,
    robots,
)
from tests.support.scrapyversions import stop

TDMREP = (
    b'[{"location": "/books/*", "tdm-reservation": 1}, {"location": "/*", "tdm-reservation": 0}]'
)


def signal_sites() -> tuple[Sites, dict[str, str]]:
    sites = Sites()
    cu = sites.add("cu")  # draft-ietf-aipref-attach-05 §3.4
    cu.script(
        "/robots.txt",
        robots(
            "User-Agent: *\nAllow: /\nDisallow: /never/\n"
            "Content-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n"
        ),
    )
    sites.add("cs").script(
        "/robots.txt", robots("User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n")
    )
    sites.add("csfree").script(
        "/robots.txt", robots("Content-Signal: ai-input=no\n\nUser-agent: *\nAllow: /\n")
    )
    tdm = sites.add("tdm")
    tdm.script("/.well-known/tdmrep.json", Reply(200, TDMREP, {"Content-Type": "application/json"}))
    hdr = sites.add("hdr")
    hdr.script("/cu-header", html_page(**{"Content-Usage": "train-ai=n"}))
    hdr.script("/tdm-header", html_page(**{"tdm-reservation": "1"}))
    hdr.script("/tdm-meta", html_page('<meta name="tdm-reservation" content="1">'))
    hdr.script("/noai", html_page(**{"X-Robots-Tag": "noai"}))
    hdr.script("/noai-meta", html_page('<meta name="robots" content="noai, noimageai">'))
    hdr.script(
        "/lifted",
        html_page('<meta name="tdm-reservation" content="0">', **{"tdm-reservation": "1"}),
    )
    sites.add("agents").script(
        "/robots.txt", robots("User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n")
    )
    urls = {
        "cu /test": sites.url("cu", "/test"),
        "cu /ai-ok/test": sites.url("cu", "/ai-ok/test"),
        "cu /never/test": sites.url("cu", "/never/test"),
        "cs /page": sites.url("cs", "/page"),
        "csfree /page": sites.url("csfree", "/page"),
        "tdm /books/1": sites.url("tdm", "/books/1"),
        "tdm /free": sites.url("tdm", "/free"),
        "hdr /cu-header": sites.url("hdr", "/cu-header"),
        "hdr /tdm-header": sites.url("hdr", "/tdm-header"),
        "hdr /tdm-meta": sites.url("hdr", "/tdm-meta"),
        "hdr /noai": sites.url("hdr", "/noai"),
        "hdr /noai-meta": sites.url("hdr", "/noai-meta"),
        "hdr /lifted": sites.url("hdr", "/lifted"),
        "hdr /plain": sites.url("hdr", "/plain"),
        "agents /page": sites.url("agents", "/page"),
    }
    return sites, urls


ALL = {
    "cu /test", "cu /ai-ok/test", "cu /never/test", "cs /page", "csfree /page", "tdm /books/1",
    "tdm /free", "hdr /cu-header", "hdr /tdm-header", "hdr /tdm-meta", "hdr /noai",
    "hdr /noai-meta", "hdr /lifted", "hdr /plain", "agents /page",
}  # fmt: skip

#: purpose -> (not fetched, fetched but items dropped); the rest is fetched and kept.
EXPECTED = {
    "search": ({"cu /never/test"}, set()),
    "ai-train": (
        {"cu /never/test", "cu /test", "cs /page", "tdm /books/1", "agents /page"},
        {"hdr /cu-header", "hdr /tdm-header", "hdr /tdm-meta", "hdr /noai", "hdr /noai-meta"},
    ),
    "ai-input": (
        {"cu /never/test", "csfree /page", "tdm /books/1", "agents /page"},
        {"hdr /tdm-header", "hdr /tdm-meta", "hdr /noai", "hdr /noai-meta"},
    ),
}


async def crawl_for_purpose(
    purpose: str, tmp_path: Path, **extra: Any
) -> tuple[Any, Any, dict[str, str], Sites, list[Any]]:
    sites, urls = signal_sites()
    items: list[Any] = []
    audit = tmp_path / f"audit-{purpose}.jsonl"
    settings = {
        "REP_PURPOSE": purpose,
        "REP_AUDIT_FILE": str(audit),
        "ITEM_PIPELINES": {},
        **extra,
    }
    if purpose != "search":
        settings["REP_PURPOSE_AGENTS"] = ["GPTBot"]

    connect = collecting_items(items)

    try:
        crawler, spider = await crawl(list(urls.values()), settings, ItemSpider, connect)
    finally:
        await sites.close()
    return crawler, spider, urls, sites, items


def names_found(urls: dict[str, str], found: Any) -> set[str]:
    by_url = {url: name for name, url in urls.items()}
    return {by_url[url] for url in found}


@pytest.mark.parametrize("purpose", ["search", "ai-train", "ai-input"])
@pytest_twisted.ensureDeferred
async def test_purpose_decides_what_is_fetched_and_kept(purpose: str, tmp_path: Path) -> None:
    _, spider, urls, sites, items = await crawl_for_purpose(purpose, tmp_path)
    not_fetched, items_dropped = EXPECTED[purpose]
    assert names_found(urls, spider.downloaded) == ALL - not_fetched
    assert names_found(urls, spider.dropped) == not_fetched
    assert names_found(urls, [item["url"] for item in items]) == ALL - not_fetched - items_dropped
    # tdmrep.json is fetched once per origin for AI purposes, never for search; never for
    # "agents", whose robots.txt refuses every URL to GPTBot before tdmrep.json is needed.
    tdm_fetches = sum(path == "/.well-known/tdmrep.json" for _, path in sites.log)
    assert tdm_fetches == (0 if purpose == "search" else len(sites.origins) - 1)
    assert "/.well-known/tdmrep.json" not in sites.requested("agents")
    # Nothing that was not to be fetched reached a server.
    fetched_paths = {(name, path) for name, path in sites.log}
    for name in not_fetched:
        origin, path = name.split(" ")
        assert (origin, path) not in fetched_paths


@pytest_twisted.ensureDeferred
async def test_audit_trail_has_one_record_per_url_with_its_reason(tmp_path: Path) -> None:
    _, _, urls, _, _ = await crawl_for_purpose("ai-train", tmp_path)
    audit = tmp_path / "audit-ai-train.jsonl"
    records = by_url(audit)
    assert sorted(records) == sorted(urls.values())  # every request once
    by_name = {name: records[url] for name, url in urls.items()}
    never = by_name["cu /never/test"]
    assert never["fate"] == "refused" and never["refused_by"] == "robots.txt"
    assert never["robots"]["line"] == 3 and never["robots"]["rule"] == "Disallow: /never/"
    snapshot = never["robots"]["snapshot"]
    assert (tmp_path / "audit-ai-train.jsonl.d" / snapshot).read_bytes().startswith(b"User-Agent")
    test = by_name["cu /test"]
    assert test["fate"] == "refused" and test["refused_by"] == "purpose"
    assert "robots.txt line 4: Content-Usage: train-ai=n" in test["why"]
    assert test["usage"]["answers"]["ai-train"] is False
    deciding = test["usage"]["signals"][test["usage"]["decided_by"]["ai-train"]]
    assert deciding["vocabulary"] == "aipref" and deciding["snapshot"] == snapshot
    books = by_name["tdm /books/1"]
    assert books["refused_by"] == "purpose" and "tdmrep.json entry 1" in books["why"]
    tdm_signal = books["usage"]["signals"][books["usage"]["decided_by"]["ai-train"]]
    tdm_body = (tmp_path / "audit-ai-train.jsonl.d" / tdm_signal["snapshot"]).read_bytes()
    assert tdm_body == TDMREP
    noai = by_name["hdr /noai"]
    assert noai["fate"] == "fetched" and noai["status"] == 200
    assert (noai["items_kept"], noai["items_dropped"]) == (0, 1)
    assert noai["item_reason"] == "purpose"
    assert noai["usage"]["answers"]["ai-train"] is False
    assert (by_name["hdr /plain"]["items_kept"], by_name["hdr /plain"]["items_dropped"]) == (1, 0)
    agents = by_name["agents /page"]
    assert agents["refused_by"] == "robots.txt" and "for GPTBot" in agents["why"]
    assert agents["robots"]["agent"] == "gptbot" and agents["robots"]["rule"] == "Disallow: /"
    header, *_, end = written_lines(audit)
    assert header["type"] == "run" and header["purposes"] == ["ai-train"]
    assert header["profile"] == "google" and header["agents"] == ["testbot", "GPTBot"]
    assert end["type"] == "end" and end["counts"]["url"] == len(urls)
    assert chain_breaks(audit) == []


@pytest_twisted.ensureDeferred
async def test_mark_keeps_every_item_with_its_decision(tmp_path: Path) -> None:
    crawler, _, urls, _, items = await crawl_for_purpose(
        "ai-train", tmp_path, REP_PURPOSE_ACTION="mark"
    )
    by_name = {name: item for item in items for name, url in urls.items() if item["url"] == url}
    assert by_name["hdr /noai"]["rep_usage"]["a"]["ai-train"] is False
    assert by_name["hdr /plain"]["rep_usage"]["a"]["ai-train"] is None
    assert crawler.stats.get_value("rep/purpose/items_marked/ai-train") == 5


@pytest_twisted.ensureDeferred
async def test_unknown_deny_keeps_only_pages_that_say_yes(tmp_path: Path) -> None:
    _, _, urls, _, items = await crawl_for_purpose("ai-train", tmp_path, REP_PURPOSE_UNKNOWN="deny")
    kept = names_found(urls, [item["url"] for item in items])
    # Only an explicit yes: Content-Usage train-ai=y, tdm-reservation 0 (file or meta).
    assert kept == {"cu /ai-ok/test", "tdm /free", "hdr /lifted"}


@pytest_twisted.ensureDeferred
async def test_hostile_signals_are_unknown_and_never_lose_a_page(tmp_path: Path) -> None:
    sites = Sites()
    garbage = sites.add("garbage")
    big = b"[" + b'{"location": "/x", "tdm-reservation": 1},' * 60_000 + b"oops"
    garbage.script("/.well-known/tdmrep.json", Reply(200, big))  # 2.4 MB, cut, not JSON
    garbage.script("/p", html_page(**{"Content-Usage": "Train-AI=n,,", "tdm-reservation": "2"}))
    garbage.script("/q", html_page('<meta name="tdm-reservation" content="yes">'))
    broken = sites.add("broken")
    broken.script(
        "/.well-known/tdmrep.json", Reply(200, b'{"location": "/", "tdm-reservation": 1}')
    )
    broken.script(
        "/robots.txt", robots('User-agent: *\nContent-Usage: /p train-ai="n\nContent-Usage: ((\n')
    )
    urls = [sites.url("garbage", "/p"), sites.url("garbage", "/q"), sites.url("broken", "/p")]
    items: list[Any] = []

    connect = collecting_items(items)

    try:
        crawler, spider = await crawl(urls, {"REP_PURPOSE": "ai-train"}, ItemSpider, connect)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(urls)
    assert sorted(item["url"] for item in items) == sorted(urls)  # every answer unknown
    assert crawler.stats.get_value("rep/directives/errors") is None


@pytest.mark.parametrize(
    ("action", "fate"), [("drop", "dropped"), ("allow", "downloaded")], ids=["drop", "allow"]
)
@pytest_twisted.ensureDeferred
async def test_an_unreachable_tdmrep_json_holds_then_gives_up_like_robotstxt(
    action: str, fate: str
) -> None:
    sites = Sites()
    sites.add("down").script("/.well-known/tdmrep.json", Reply(503))
    sites.add("back").script("/.well-known/tdmrep.json", Reply(503), Reply(404))
    urls = [sites.url("down", "/a"), sites.url("back", "/a")]
    settings = {
        "REP_PURPOSE": "ai-input",
        "REP_UNREACHABLE_ACTION": action,
        "REP_UNREACHABLE_MAX_WAIT": 1.0,
    }
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    assert sites.url("back", "/a") in spider.downloaded  # held, then released
    down = sites.url("down", "/a")
    if fate == "dropped":
        assert down in spider.dropped and "tdmrep.json" in spider.dropped[down]
        assert crawler.stats.get_value("rep/requests/dropped/tdmrep_unreachable") == 1
    else:
        assert down in spider.downloaded
    assert crawler.stats.get_value("rep/tdmrep/gave_up") == 1
    assert crawler.stats.get_value("rep/requests/held") >= 2


class MetaCopyingSpider(ListSpider):
    """Yields its children with the parent's meta, as many spiders do."""

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {"url": response.url}
        if response.url.endswith("/parent"):
            child = response.urljoin("/child")
            yield Request(child, callback=self.parse, errback=self.failed, meta=response.meta)


@pytest_twisted.ensureDeferred
async def test_a_child_request_with_its_parents_meta_does_not_inherit_its_signals(
    tmp_path: Path,
) -> None:
    sites = Sites()
    sites.add("a").script(
        "/robots.txt", robots("User-agent: *\nAllow: /\nContent-Usage: /parent train-ai=y\n")
    )
    audit = tmp_path / "audit.jsonl"
    items: list[Any] = []
    settings = {
        "REP_PURPOSE": "ai-train",
        "REP_PURPOSE_UNKNOWN": "deny",
        "REP_AUDIT_FILE": str(audit),
    }

    connect = collecting_items(items)

    try:
        _, spider = await crawl([sites.url("a", "/parent")], settings, MetaCopyingSpider, connect)
    finally:
        await sites.close()
    parent, child = sites.url("a", "/parent"), sites.url("a", "/child")
    assert sorted(spider.downloaded) == [child, parent]
    assert [item["url"] for item in items] == [parent]  # the child said nothing: denied
    records = by_url(audit)
    assert sorted(records) == [child, parent]
    assert (records[parent]["items_kept"], records[parent]["items_dropped"]) == (1, 0)
    assert (records[child]["items_kept"], records[child]["items_dropped"]) == (0, 1)
    assert records[child]["item_reason"] == "purpose"


@pytest_twisted.ensureDeferred
async def test_a_bug_while_deciding_drops_the_request_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/decisions.md, 'A bug of ours while deciding drops the request': never sent
    unchecked (the "no" may be what could not be read), never lost in silence."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(UsagePolicy, "before_fetch", broken)
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    crawler = get_crawler(ListSpider, {**BASE_SETTINGS, "REP_PURPOSE": "ai-input"})
    try:
        await crawler.crawl(urls=[sites.url("a", "/x")])
    finally:
        await sites.close()
    assert crawler.spider is not None and crawler.stats is not None
    assert crawler.spider.downloaded == []
    assert "/x" not in sites.requested("a")
    dropped = crawler.spider.dropped[sites.url("a", "/x")]
    assert dropped.startswith("Dropped: scrapy_rep could not decide it (internal error: ")
    assert crawler.stats.get_value("rep/requests/internal_errors") == 1
    assert crawler.stats.get_value("rep/requests/dropped/internal_error") == 1
    assert crawler.stats.get_value("log_count/ERROR") == 1  # named as ours, once


@pytest_twisted.ensureDeferred
async def test_jobdir_pause_while_tdmrep_json_is_down_and_resume(tmp_path: Path) -> None:
    """Requests held for an unreachable tdmrep.json are kept in JOBDIR and decided by the
    file once it is back; robots.txt comes from the JOBDIR cache."""
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    sites = Sites()
    origin = sites.add("a")
    origin.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    origin.script("/.well-known/tdmrep.json", Reply(503))
    urls = [sites.url("a", "/books/1"), sites.url("a", "/free")]
    settings = {
        **BASE_SETTINGS,
        "JOBDIR": str(tmp_path / "job"),
        "REP_PURPOSE": "ai-train",
        "REP_UNREACHABLE_MAX_WAIT": 600,
    }
    first = get_crawler(ListSpider, settings)
    running = first.crawl(urls=urls)
    held = 0
    for _ in range(200):  # until both requests wait for tdmrep.json (at most 10 s)
        await deferLater(reactor, 0.05)
        stats = first.stats.get_stats() if first.stats is not None else {}
        held = stats.get("rep/requests/held", 0) - stats.get("rep/requests/released", 0)
        if stats.get("rep/tdmrep/outcome/unreachable") and held == 2:
            break
    assert held == 2
    await stop(first)
    await running
    origin.script("/.well-known/tdmrep.json", Reply(200, TDMREP))  # the file is back
    second = get_crawler(ListSpider, settings)
    try:
        await second.crawl(urls=urls)
    finally:
        await sites.close()
    assert second.spider is not None and second.stats is not None
    assert second.spider.downloaded == [sites.url("a", "/free")]
    assert list(second.spider.dropped) == [sites.url("a", "/books/1")]
    assert second.stats.get_value("rep/requests/resumed") == 2
    assert sites.requested("a").count("/robots.txt") == 1  # kept in JOBDIR


@pytest_twisted.ensureDeferred
async def test_audit_trail_a_redirected_request_names_where_it_went(tmp_path: Path) -> None:
    sites = Sites()
    origin = sites.add("a")
    origin.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    origin.script("/old", Reply(301, b"", {"Location": "/new"}))
    origin.script("/away", Reply(302, b"", {"Location": "/private/x"}))
    audit = tmp_path / "audit.jsonl"
    urls = [sites.url("a", "/old"), sites.url("a", "/away")]
    try:
        await crawl(urls, {"REP_AUDIT_FILE": str(audit)})
    finally:
        await sites.close()
    records = by_url(audit)
    assert sorted(records) == sorted([*urls, sites.url("a", "/new"), sites.url("a", "/private/x")])
    assert records[urls[0]]["fate"] == "redirected"
    assert records[urls[0]]["to"] == sites.url("a", "/new")
    assert records[sites.url("a", "/new")]["fate"] == "fetched"
    private = records[sites.url("a", "/private/x")]
    assert private["fate"] == "refused" and private["refused_by"] == "robots.txt"
    assert records[urls[1]]["fate"] == "redirected" and records[urls[1]]["status"] == 302
