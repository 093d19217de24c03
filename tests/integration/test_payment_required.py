"""A site that asks a price for the crawl (HTTP 402 Payment Required, Cloudflare's pay per
crawl: ``crawler-price``, ``crawler-error``): the page has its own fate, never retried nor
followed elsewhere, never paid; the trail, the report, ``audit verify`` and ``audit
summary`` say it. A robots.txt answered 402 stays RFC 9309's 4xx: everything allowed
(docs/behaviour.md, 'A page answered 402 Payment Required')."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted
from scrapy.utils.test import get_crawler

from rep_audit.verify import verify
from rep_engine.trail.lines import PAYMENT_VALUE_KEPT
from rep_recheck.command import EXIT_REMOVED, Recheck, parser, run, settings_of
from scrapy_rep.crawl.commands.recheck_crawl import fetch_here
from tests.support.audittrail import by_url, lines
from tests.support.recheck import report_lines, write_jsonl
from tests.support.robotsite import (
    BASE_SETTINGS,
    HTML,
    ItemSpider,
    Reply,
    Sites,
    collecting_items,
    crawl,
    robots,
)
from tests.support.tools import audit_tool, check_async

#: A project that retries what it can: 402 among the codes Scrapy's retry sends again.
RETRYING = {"RETRY_ENABLED": True, "RETRY_TIMES": 3, "RETRY_HTTP_CODES": [402, 503]}
PRICE = {"crawler-price": "USD 0.01"}


def paying_site() -> tuple[Sites, dict[str, str]]:
    """A page answered 402 with its price, one answered 402 whose body refreshes to a
    payment page, one refused with ``crawler-error``, a free page."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    site.script("/paid", Reply(402, b"<html>pay</html>", {**HTML, **PRICE}))
    refresh = b'<html><head><meta http-equiv="refresh" content="0;url=/pay-here"></head></html>'
    site.script("/refresh", Reply(402, refresh, {**HTML, **PRICE, "Location": "/pay-here"}))
    site.script("/error", Reply(402, b"", {"crawler-error": "invalid-price"}))
    site.script("/free", Reply(200, b"<html>free</html>", HTML))
    names = ("/paid", "/refresh", "/error", "/free")
    return sites, {name: sites.url("a", name) for name in names}


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_page_answered_402_is_asked_once_and_has_its_own_fate(tmp_path: Path) -> None:
    """A project that lists 402 in ``RETRY_HTTP_CODES`` asked the page 4 times, and the
    trail said ``fetched`` (a meta refresh on the 402 was followed: ``redirected``). Now
    each is requested once, never followed elsewhere; its record says ``payment_required``
    with what the site asked; the report, the closing line and ``audit summary`` count it;
    the trail verifies; the free page is fetched as before."""
    sites, urls = paying_site()
    trail, report = tmp_path / "trail.jsonl", tmp_path / "report.txt"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT_FILE": str(report), **RETRYING}
    try:
        crawler, _ = await crawl(list(urls.values()), settings, ItemSpider)
    finally:
        await sites.close()
    asked = sites.requested("a")
    assert [asked.count(path) for path in ("/paid", "/refresh", "/error")] == [1, 1, 1]
    assert "/pay-here" not in asked
    stats = crawler.stats.get_stats()
    assert stats.get("rep/responses/payment_required") == 3
    assert stats.get("retry/count") is None
    records = by_url(trail)
    said = {path: records[url] for path, url in urls.items()}
    assert [(said[p]["fate"], said[p]["status"], said[p]["attempts"]) for p in urls] == [
        ("payment_required", 402, 1), ("payment_required", 402, 1),
        ("payment_required", 402, 1), ("fetched", 200, 1),
    ]  # fmt: skip
    assert said["/paid"]["payment"] == PRICE
    assert said["/error"]["payment"] == {"crawler-error": "invalid-price"}
    assert "payment" not in said["/free"]
    status, out = audit_tool("verify", str(trail))
    assert status == 0, out
    text = report.read_text()
    assert (
        f"{urls['/paid']}\n    payment required (402; crawler-price: USD 0.01): not paid, "
        "not retried\n" in text
    ), text
    assert "In short: 4 requests (1 downloaded, 3 payment required); 1 item kept" in text, text
    status, out = audit_tool("summary", str(trail))
    assert status == 0 and "4 requested URL(s) (1 fetched, 3 payment_required)" in out, out
    status, out = audit_tool("show", str(trail), urls["/paid"])
    assert "was answered 402 Payment Required" in out, out
    assert "the site asked a price for the crawl, never paid: crawler-price: USD 0.01" in out
    status, out = audit_tool("list", str(trail), "--fate", "payment_required", "--format", "csv")
    assert status == 0 and out.count("payment_required") >= 3, out


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_robots_txt_answered_402_allows_the_origins_pages(tmp_path: Path) -> None:
    """RFC 9309 §2.3.1.3: a robots.txt answered 4xx is "unavailable", and "the crawler MAY
    access any resources": a 402 is one, price or not; the trail says its 402."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", Reply(402, b"pay", {"Content-Type": "text/plain", **PRICE}))
    urls = [sites.url("a", "/1"), sites.url("a", "/2")]
    trail = tmp_path / "trail.jsonl"
    try:
        crawler, spider = await crawl(urls, {"REP_AUDIT_FILE": str(trail), **RETRYING})
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == urls
    assert sites.requested("a").count("/robots.txt") == 1
    [snapshot] = [line for line in lines(trail) if line["type"] == "snapshot"]
    assert (snapshot["status"], snapshot["outcome"]) == (402, "absent")
    records = by_url(trail)
    assert {records[url]["fate"] for url in urls} == {"fetched"}
    assert crawler.stats.get_value("rep/responses/payment_required") is None
    status, out = audit_tool("verify", str(trail))
    assert status == 0, out


@pytest_twisted.ensureDeferred
async def test_a_hostile_price_is_cut_in_the_record(tmp_path: Path) -> None:
    """A 402 whose ``crawler-price`` is 12 KB (and sent twice): the record keeps its first
    characters, cut and marked, and verifies."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    long = "USD " + "9" * 12_000
    site.script("/paid", Reply(402, b"", {"crawler-price": long}))
    url = sites.url("a", "/paid")
    trail = tmp_path / "trail.jsonl"
    try:
        await crawl([url], {"REP_AUDIT_FILE": str(trail)})
    finally:
        await sites.close()
    record = by_url(trail)[url]
    assert record["payment"] == {"crawler-price": long[:PAYMENT_VALUE_KEPT] + "…"}
    assert len(trail.read_bytes()) < 8_000
    status, out = audit_tool("verify", str(trail))
    assert status == 0, out


@pytest_twisted.ensureDeferred
async def test_a_402_replayed_from_the_http_cache_is_payment_required_again(
    tmp_path: Path,
) -> None:
    """A second run with Scrapy's HTTP cache (which keeps a 402 as any answer) replays it:
    no request reaches the site, the retry sends nothing again (each replay would be one
    more answer to retry), and its record is ``payment_required`` with the price the
    cached answer said, replayed, verified."""
    sites, urls = paying_site()
    cache = {"HTTPCACHE_ENABLED": True, "HTTPCACHE_DIR": str(tmp_path / "cache")}
    try:
        for run in ("first", "again"):
            trail, report = tmp_path / f"{run}.jsonl", tmp_path / f"{run}.txt"
            settings = {"REP_AUDIT_FILE": str(trail), "REP_REPORT_FILE": str(report)}
            crawler, _ = await crawl([urls["/paid"]], {**settings, **RETRYING, **cache})
    finally:
        await sites.close()
    assert sites.requested("a").count("/paid") == 1  # the first run's only
    assert crawler.stats.get_value("retry/count") is None
    record = by_url(trail)[urls["/paid"]]
    assert (record["fate"], record["status"], record["attempts"]) == ("payment_required", 402, 0)
    assert record["payment"] == PRICE and "cached" in record["page"]
    text = report.read_text()
    said = "payment required (402 replayed from Scrapy's HTTP cache; crawler-price: USD 0.01)"
    assert said in text, text
    status, out = audit_tool("verify", str(trail))
    assert status == 0, out


class FilesSpider(ItemSpider):
    """One item per page, carrying the media file of :data:`FilesSpider.file_urls`."""

    file_urls: ClassVar[list[str]] = []

    def parse(self, response: Any) -> Any:
        yield {"url": response.url, "file_urls": list(self.file_urls)}


@pytest_twisted.ensureDeferred
async def test_a_media_file_answered_402_is_asked_once_and_not_stored(tmp_path: Path) -> None:
    """FilesPipeline's download of a file answered 402: asked once however the project
    retries, its record ``payment_required`` with its price, its file not stored (the
    pipeline fails it, as any answer but a 200: Scrapy's pipeline logs its own ERROR, which
    is why this crawl is no :func:`~tests.support.robotsite.crawl`), the trail verified."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    site.script("/", Reply(200, b"<html>page</html>", HTML))
    site.script("/f.pdf", Reply(402, b"pay", {"Content-Type": "application/pdf", **PRICE}))
    FilesSpider.file_urls = [sites.url("a", "/f.pdf")]
    trail = tmp_path / "trail.jsonl"
    settings = {
        **BASE_SETTINGS,
        "REP_AUDIT_FILE": str(trail),
        "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 1},
        "FILES_STORE": str(tmp_path / "files"),
        **RETRYING,
    }
    crawler = get_crawler(FilesSpider, settings)
    try:
        await crawler.crawl(urls=[sites.url("a", "/")])
    finally:
        await sites.close()
    assert sites.requested("a").count("/f.pdf") == 1
    assert crawler.stats.get_value("rep/responses/payment_required") == 1
    record = by_url(trail)[FilesSpider.file_urls[0]]
    assert (record["fate"], record["status"], record["payment"]) == (
        "payment_required", 402, PRICE,
    )  # fmt: skip
    assert not list((tmp_path / "files").rglob("*.pdf"))
    status, out = audit_tool("verify", str(trail))
    assert status == 0, out


async def _rechecked_402(*argv: str) -> tuple[int, str]:
    """``python -m scrapy_rep recheck ARGV --pages``, its crawl under the test's reactor
    (:func:`~scrapy_rep.crawl.commands.recheck_crawl.fetch_here`): (exit status, what it
    printed)."""
    options = parser().parse_args([*argv, "--pages", "--no-progress",
                                   "-A", str(BASE_SETTINGS["USER_AGENT"])])  # fmt: skip
    settings = settings_of(options)
    fetched = await fetch_here(Recheck(options, settings, io.StringIO()).request)
    out, err = io.StringIO(), io.StringIO()
    code = run(options, settings, lambda asked: fetched, out, err)
    return code, out.getvalue() + err.getvalue()


@pytest.mark.parametrize(
    ("purpose", "status"), [("ai-train", "refused"), ("search", "unknown")], ids=str
)
@pytest_twisted.ensureDeferred
async def test_a_page_rechecked_that_answers_402_is_not_kept(
    tmp_path: Path, purpose: str, status: str
) -> None:
    """``recheck --pages``: an item whose page now answers 402 was unknown ("HttpError:
    Ignoring non-200 response"), kept with ``--keep-unknown``. For an AI purpose a price
    never paid grants nothing: refused by its page, which ``--keep-unknown`` does not keep;
    for search alone, what the page says is not known: unknown, saying why. Its trail
    record names the price and verifies; the free page is kept."""
    sites, urls = paying_site()
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [urls["/paid"], urls["/free"]])
    paths = {name: tmp_path / f"{name}.jsonl" for name in ("out", "report", "trail")}
    options = [f"--{name}={path}" for name, path in paths.items()]
    try:
        code, said = await _rechecked_402(str(dataset), "--purpose", purpose, "--keep-unknown",
                                          *options)  # fmt: skip
    finally:
        await sites.close()
    assert sites.requested("a").count("/paid") == 1, sites.requested("a")
    report = {line["url"]: line for line in report_lines(paths["report"])}
    assert (report[urls["/paid"]]["status"], report[urls["/free"]]["status"]) == (status, "kept")
    assert "402 Payment Required (crawler-price: USD 0.01)" in str(report[urls["/paid"]]), report
    kept = [json.loads(line)["url"] for line in paths["out"].read_text().splitlines()]
    assert kept == ([urls["/free"]] if status == "refused" else [urls["/paid"], urls["/free"]])
    [item] = [line for line in lines(paths["trail"]) if line.get("url") == urls["/paid"]]
    assert (item["status"], item["payment"]) == (status, PRICE), item
    if status == "refused":  # what said no: the price, for the purpose (as an RSL payment)
        assert (item["refused_by"], item["item_reason"]) == ("page", "purpose")
        assert (report[urls["/paid"]]["signal"], report[urls["/paid"]]["purpose"]) == (
            "payment_required", purpose,
        )  # fmt: skip
    result = verify(paths["trail"])
    assert result.clean, result.findings
    assert code == (EXIT_REMOVED if status == "refused" else 0), said


class PaidPageSpider(ItemSpider):
    """Hands 402 answers to its callback (``handle_httpstatus_list``), one item each,
    saying which of Scrapy's ``dont_…`` keys its meta holds there."""

    handle_httpstatus_list: ClassVar[list[int]] = [402]

    def parse(self, response: Any) -> Any:
        said = sorted(key for key in response.meta if key.startswith("dont_"))
        yield {"url": response.url, "status": response.status, "dont": said}


@pytest_twisted.ensureDeferred
async def test_a_402_the_spider_reads_itself_leaves_it_no_key_of_ours(tmp_path: Path) -> None:
    """A spider that handles 402 itself gets the answer once, its meta without the keys
    that kept it from a retry (a request it yields with ``meta=response.meta`` would carry
    them); the record counts the item it yielded."""
    sites, urls = paying_site()
    items: list[Any] = []
    trail = tmp_path / "trail.jsonl"
    try:
        await crawl([urls["/paid"]], {"REP_AUDIT_FILE": str(trail), **RETRYING},
                    PaidPageSpider, collecting_items(items))  # fmt: skip
    finally:
        await sites.close()
    assert items == [{"url": urls["/paid"], "status": 402, "dont": []}]
    assert sites.requested("a").count("/paid") == 1
    record = by_url(trail)[urls["/paid"]]
    assert (record["fate"], record["items_kept"]) == ("payment_required", 1)


@pytest_twisted.ensureDeferred
async def test_the_checker_says_a_page_that_asks_a_price() -> None:
    """``check --page`` said "=> kept" of a page answered 402: it says the price asked."""
    sites, urls = paying_site()
    try:
        status, said = await check_async("--page", "-A", "TestBot", urls["/paid"])
    finally:
        await sites.close()
    assert status == 0, said
    assert "=> payment required (402; crawler-price: USD 0.01): not paid, not retried" in said
    assert "=> kept" not in said
