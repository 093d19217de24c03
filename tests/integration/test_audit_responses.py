"""The audit trail learns a response from :class:`AuditMiddleware` when its
``process_response`` is the downloader's last (one signal receiver less per page), and
from ``response_received`` when a project's middleware comes after it: the records are
the same either way (docs/decisions.md, 'The audit trail takes responses from its own
middleware')."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted
from pydispatch import dispatcher
from scrapy import Request, signals
from scrapy.http import HtmlResponse, Response

from scrapy_rep.crawl.auditing import ledger_of
from scrapy_rep.crawl.report import RepReport
from tests.support.audittrail import by_url, edited_copy, kept_anyway
from tests.support.robotsite import (
    HTML,
    ListSpider,
    Recorder,
    Reply,
    Sites,
    crawl,
    links_page,
    robots,
)
from tests.support.tools import audit_streams
from tests.support.trailfactory import encode


class GoneMiddleware:
    """A project's middleware outside scrapy_rep's: it turns a 404 into a 410."""

    def process_response(
        self, request: Request, response: Response, spider: Any = None
    ) -> Response:
        return response.replace(status=410) if response.status == 404 else response


def page_and_missing_site() -> tuple[Sites, list[str]]:
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    a.script("/page", Reply(200, b"<html>ok</html>", HTML))
    a.script("/missing", Reply(404, b"<html>no</html>", HTML))
    return sites, [sites.url("a", path) for path in ("/page", "/missing", "/private/1")]


def receivers(crawler: Any) -> list[Any]:
    """The trail's own receivers of ``response_received``."""
    trail = ledger_of(crawler)
    every = dispatcher.getAllReceivers(crawler.signals.sender, signals.response_received)
    return [r for r in dispatcher.liveReceivers(every) if getattr(r, "__self__", None) is trail]


@pytest_twisted.ensureDeferred
async def test_the_outermost_audit_middleware_tells_the_response(tmp_path: Path) -> None:
    sites, urls = page_and_missing_site()
    audit = tmp_path / "trail.jsonl"
    try:
        crawler, _ = await crawl(urls, {"REP_AUDIT_FILE": str(audit)})
    finally:
        await sites.close()
    assert receivers(crawler) == []  # no signal receiver: the middleware told it
    records = by_url(audit)
    assert (records[urls[0]]["fate"], records[urls[0]]["status"]) == ("fetched", 200)
    # The spider never sees the 404 (HttpErrorMiddleware): its status came from the
    # middleware, and it was fetched (not unfinished).
    assert (records[urls[1]]["fate"], records[urls[1]]["status"]) == ("fetched", 404)
    assert records[urls[2]]["fate"] == "refused"


@pytest_twisted.ensureDeferred
async def test_a_middleware_after_ours_leaves_the_response_to_the_signal(
    tmp_path: Path,
) -> None:
    sites, urls = page_and_missing_site()
    audit = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(audit),
        "DOWNLOADER_MIDDLEWARES": {GoneMiddleware: 5},  # process_response after ours
    }
    try:
        crawler, _ = await crawl(urls, settings)
    finally:
        await sites.close()
    assert len(receivers(crawler)) == 1
    records = by_url(audit)
    assert (records[urls[0]]["fate"], records[urls[0]]["status"]) == ("fetched", 200)
    # The status the engine got (the project's middleware changed it), as before.
    assert (records[urls[1]]["fate"], records[urls[1]]["status"]) == ("fetched", 410)
    assert records[urls[2]]["fate"] == "refused"


class MirrorMiddleware:
    """A project's downloader middleware placed before scrapy_rep's robots.txt one that
    answers some URLs itself (a local mirror, a mock): no download, no verdict."""

    def process_request(self, request: Request, spider: Any = None) -> Response | None:
        if "/private/" in request.url or "/mirrored" in request.url:
            return HtmlResponse(request.url, body=b"<html>a copy</html>", request=request)
        return None


class LinksSpider(ListSpider):
    """ListSpider whose pages' links are followed."""

    def parse(self, response: Any) -> Any:
        super().parse(response)
        for href in response.css("a::attr(href)").getall():
            yield Request(response.urljoin(href), callback=self.parse, errback=self.failed)


@pytest_twisted.ensureDeferred
async def test_a_response_a_middleware_before_ours_made_is_recorded_answered(
    tmp_path: Path,
) -> None:
    """A downloader middleware before scrapy_rep's answers a URL robots.txt disallows: the
    record said ``fetched`` with ``attempts`` 0 and no robots.txt part (``audit verify``
    failed it: "no robots.txt snapshot names what allowed it"), the report "downloaded". Its
    record says ``answered``, with what the crawl's robots.txt said of it then (its
    disallowing line; none where its origin's was not known); the report, ``audit show``
    and the closing line say no download was made; the trail verifies. One answered before
    its origin's robots.txt was had waits for it (fetched for it: one that says nothing), its record
    naming it and saying ``held``."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    a.script("/", links_page("/private/1", "/page"))
    a.script("/page", Reply(200, b"<html>ok</html>", HTML))
    sites.add("b")  # its one URL is answered before its robots.txt is known
    start, answered, mirrored = (
        sites.url("a", "/"),
        sites.url("a", "/private/1"),
        sites.url("b", "/mirrored"),
    )
    audit = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(audit),
        "REP_REPORT": True,
        "DOWNLOADER_MIDDLEWARES": {MirrorMiddleware: 50},
    }
    try:
        crawler, spider = await crawl([start, mirrored], settings, LinksSpider)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted([start, answered, sites.url("a", "/page"), mirrored])
    assert "/private/1" not in sites.requested("a") and sites.requested("b") == ["/robots.txt"]
    records = by_url(audit)
    record = records[answered]
    assert (record["fate"], record["attempts"], record["answered"]) == ("fetched", 0, True)
    assert (record["robots"]["line"], record["robots"]["rule"]) == (2, "Disallow: /private")
    assert "sent_at" not in record and "held" not in record
    assert (records[mirrored]["answered"], records[mirrored]["held"]) == (True, 1)
    assert records[mirrored]["robots"]["snapshot"]
    assert "answered" not in records[start] and records[start]["attempts"] == 1
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    said = "answered by a downloader middleware, not downloaded: no verdict reached it (200)"
    assert f"{answered}\n    {said}; robots.txt line 2: Disallow: /private" in report.text
    assert f"{mirrored}\n    {said}; robots.txt: no group for " in report.text, report.text
    assert "In short: 4 requests (2 downloaded, 2 answered without a download)" in report.text
    status, out, _ = audit_streams("show", str(audit), answered)
    assert status == 0, out
    assert (
        "was answered by a downloader middleware before scrapy_rep's verdict, without a "
        "download (never downloaded, HTTP 200)"
    ) in out
    assert "line 2 (Disallow: /private) applies to it (no verdict: answered before it)" in out
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean, 1 event(s): " in out, out
    assert f"event: {answered}: its robots.txt says no (Forbidden by " in out


class SlowOnMirrored(ListSpider):
    """ListSpider whose callback of a mirrored page waits 1.5 s before it is done (it
    awaits something: a database, a browser)."""

    async def parse(self, response: Any) -> Any:
        from scrapy.utils.defer import maybe_deferred_to_future
        from twisted.internet import reactor
        from twisted.internet.task import deferLater

        ListSpider.parse(self, response)
        if "/mirrored" in response.url:
            await maybe_deferred_to_future(deferLater(reactor, 1.5))  # type: ignore[arg-type]
        yield {"url": response.url}


@pytest_twisted.ensureDeferred
async def test_a_page_answered_before_its_robots_txt_came_waits_for_it_and_verifies(
    tmp_path: Path,
) -> None:
    """A downloader middleware before scrapy_rep's answers a page before its origin's
    robots.txt came (0.5 s late), and its callback is done only after it came and
    another request's record announced it: its record named none, as its page was
    decided then, and ``audit verify`` failed the honest trail ("names no robots.txt …,
    though its crawl had one before it"). Its page waits for that robots.txt: its record
    names it and says ``held``, and ``answered_at`` is when its page was decided, once it
    was had: clean."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", Reply(200, b"User-agent: *\nAllow: /\n", {}, delay=0.5))
    a.script("/page", Reply(200, b"<html>ok</html>", HTML))
    mirrored, page = sites.url("a", "/mirrored"), sites.url("a", "/page")
    audit = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(audit), "DOWNLOADER_MIDDLEWARES": {MirrorMiddleware: 50}}
    try:
        await crawl([mirrored, page], settings, SlowOnMirrored)
    finally:
        await sites.close()
    lines = [json.loads(line) for line in audit.read_bytes().splitlines()]
    [robots_line] = [line for line in lines if line.get("kind") == "robots.txt"]
    [record] = [line for line in lines if line.get("url") == mirrored]
    assert (record["answered"], record["held"]) == (True, 1)
    assert record["robots"]["snapshot"] == robots_line["sha256"]
    assert record["answered_at"] < record["time"]
    assert lines.index(robots_line) < lines.index(record)
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean" in out, out


@pytest_twisted.ensureDeferred
async def test_a_page_answered_once_its_origins_copies_expired_waits_for_them(
    tmp_path: Path,
) -> None:
    """A downloader middleware before scrapy_rep's answers pages of two origins once the
    crawl's copies of their documents expired (``REP_CACHE_TTL`` 1 s, not used stale):
    ``a``'s robots.txt, ``c``'s tdmrep.json (its robots.txt fresh an hour). Neither was
    had then, and their records named neither, as their pages were decided without them
    (``audit verify`` failed that honest trail, "names no robots.txt …, though its crawl
    had one before it", until a version counted as had only if fetched less long before
    than the run's settings keep one usable). Each page waits for its origin's document,
    fetched again for it: its record names it and says ``held``; clean."""
    sites = Sites()
    a, b, c = sites.add("a"), sites.add("b"), sites.add("c")
    a.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    c.script(
        "/robots.txt", robots("User-agent: *\nAllow: /\n", **{"Cache-Control": "max-age=3600"})
    )
    for site in (a, c):
        site.script(
            "/.well-known/tdmrep.json", Reply(200, b"[]", {"Content-Type": "application/json"})
        )
    b.script("/robots.txt", Reply(404))
    b.script("/.well-known/tdmrep.json", Reply(404))
    mirrored = [sites.url(name, "/mirrored") for name in ("a", "c")]
    b.script("/", Reply(200, links_page(*mirrored).body, HTML, delay=2.0))
    audit = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(audit),
        "REP_PURPOSE": "ai-train",
        "REP_CACHE_TTL": 1,
        "REP_CACHE_MIN_TTL": 0,
        "REP_CACHE_STALE_MAX": 0,
        "DOWNLOADER_MIDDLEWARES": {MirrorMiddleware: 50},
    }
    urls = [sites.url("a", "/page"), sites.url("c", "/page"), sites.url("b", "/")]
    try:
        await crawl(urls, settings, LinksSpider)
    finally:
        await sites.close()
    records = by_url(audit)
    expired_robots, expired_tdmrep = (records[url] for url in mirrored)
    assert (expired_robots["answered"], expired_robots["held"]) == (True, 1)
    assert expired_robots["robots"]["snapshot"] and expired_robots["tdmrep"]
    assert expired_tdmrep["held"] == 1 and expired_tdmrep["tdmrep"]
    assert records[urls[0]]["tdmrep"] and records[urls[1]]["tdmrep"]  # both had before
    assert sites.requested("a").count("/robots.txt") == 2  # fetched again for the page
    assert sites.requested("c").count("/.well-known/tdmrep.json") == 2
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean" in out, out


class MirrorOfPathsMiddleware:
    """A local mirror placed before scrapy_rep's robots.txt middleware: it answers every
    URL under ``/nottrain/`` and ``/open/`` itself (no download, no verdict)."""

    def process_request(self, request: Request, spider: Any = None) -> Response | None:
        if "/nottrain/" in request.url or "/open/" in request.url:
            return HtmlResponse(request.url, body=b"<html>a copy</html>", request=request)
        return None


async def mirrored_crawl(
    sites: Sites,
    start_urls: list[str],
    tmp_path: Path,
    spider_class: type[ListSpider],
    recorder: Recorder,
    settings: dict[str, Any] | None = None,
) -> tuple[Path, Any]:
    """A crawl for ``ai-train`` whose pages :class:`MirrorOfPathsMiddleware`, placed before
    scrapy_rep's robots.txt middleware, may answer itself, with ``settings`` beside, its
    trail in ``tmp_path``; ``sites`` closed after. Its trail and its spider."""
    audit = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(audit),
        "REP_PURPOSE": "ai-train",
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}.MirrorOfPathsMiddleware": 50},
        **(settings or {}),
    }
    try:
        _, spider = await crawl(start_urls, settings, spider_class, recorder)
    finally:
        await sites.close()
    return audit, spider


class LinkedItemsSpider(LinksSpider):
    """LinksSpider that yields one item per page too (``{"url": ...}``)."""

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}
        yield from super().parse(response)


@pytest_twisted.ensureDeferred
async def test_the_usage_no_of_a_mirrored_pages_origin_refuses_its_items(tmp_path: Path) -> None:
    """A downloader middleware before scrapy_rep's answers a page whose origin's
    robots.txt says ``Content-Usage: train-ai=n`` for it, in a crawl for ``ai-train``: no
    verdict reached it, and its items were kept (the site owner's "no" lost). Its page is
    decided with the usage signals its verdict would have read, from the documents the
    crawl has (none fetched for it): its item is refused for the purpose, through the
    ``item_refused`` signal, its record says why (the signal, ``purpose``) and names the
    tdmrep.json read as well, and ``audit verify`` re-derives it clean. A mirrored page the
    origin allows keeps its item; one whose origin's documents the crawl had not had waits
    for them (fetched for it: they say nothing, so its purposes are unknown, allowed by
    default), its record naming them."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nContent-Usage: /nottrain train-ai=n\n"))
    a.script("/", links_page("/nottrain/1", "/open/1"))
    sites.add("b")  # its mirrored page is answered with no robots.txt had
    start, refused, kept, unknown = (
        sites.url("a", "/"),
        sites.url("a", "/nottrain/1"),
        sites.url("a", "/open/1"),
        sites.url("b", "/open/2"),
    )
    recorder = Recorder(signals={"scrapy_rep.signals.item_refused": []})
    audit, spider = await mirrored_crawl(
        sites, [start, unknown], tmp_path, LinkedItemsSpider, recorder
    )
    assert sorted(spider.downloaded) == sorted([start, refused, kept, unknown])
    assert "/nottrain/1" not in sites.requested("a")
    assert sites.requested("b") == ["/robots.txt", "/.well-known/tdmrep.json"]
    assert sorted(item["url"] for item in recorder.items) == sorted([start, kept, unknown])
    [signal] = recorder.signals["scrapy_rep.signals.item_refused"]
    assert signal["reason"] == "purpose" and signal["response"].url == refused
    records = by_url(audit)
    record = records[refused]
    assert (record["fate"], record["attempts"], record["answered"]) == ("fetched", 0, True)
    assert (record["items_kept"], record["items_dropped"], record["item_reason"]) == (
        0,
        1,
        "purpose",
    )
    assert (
        record["item_why"].startswith("ai-train denied by ") and "train-ai=n" in record["item_why"]
    )
    assert record["usage"]["answers"]["ai-train"] is False
    assert record["robots"]["snapshot"] and record["tdmrep"]
    assert (records[kept]["answered"], records[kept]["items_kept"]) == (True, 1)
    assert "items_dropped" not in records[kept] or records[kept]["items_dropped"] == 0
    assert (records[unknown]["items_kept"], records[unknown]["held"]) == (1, 1)
    assert records[unknown]["robots"]["snapshot"] and records[unknown]["tdmrep"]
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean, 1 event(s): " in out, out
    assert f"event: {refused}: its robots.txt says no (Not fetched: ai-train denied by " in out
    # kept despite its origin's "no" (the record a crawl that lost it wrote): a finding
    lines = [json.loads(line) for line in audit.read_bytes().splitlines()]
    for line in lines:
        line.pop("prev", None)
        if line.get("url") == refused:
            line.update(items_kept=1, items_dropped=0)
            for name in ("item_reason", "item_why", "usage"):
                line.pop(name)
        elif line["type"] == "end":  # the item counted as passed too: one forgery only
            line["counts"]["items_passed"] += 1
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(b"".join(encode(lines)))
    shutil.copytree(audit.with_name(audit.name + ".d"), forged.with_name(forged.name + ".d"))
    status, out, _ = audit_streams("verify", str(forged))
    assert status != 0 and f"{refused}: the page says no ai-train by " in out, out


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_page_mirrored_before_its_origins_robots_txt_waits_for_its_no(
    tmp_path: Path,
) -> None:
    """A downloader middleware before scrapy_rep's answers the crawl's first page before its
    origin's robots.txt was had; that robots.txt says ``Content-Usage: train-ai=n`` for it,
    and the crawl then fetched it for the next page and refused that page by it. The
    answered page kept its item (its purposes unknown, allowed by default), its record
    named no robots.txt, and ``audit verify`` was clean without an event: the owner's "no"
    lost. Its page is held until its origin's documents are had (fetched for it), then
    decided on them: its item refused, its record naming them and saying ``held``,
    ``audit verify`` re-deriving it (its "no" an event), and a record that kept the item
    fails."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nContent-Usage: /nottrain train-ai=n\n"))
    first, then = sites.url("a", "/nottrain/1"), sites.url("a", "/nottrain-too")  # not mirrored
    a.script("/nottrain-too", Reply(200, b"<html>ok</html>", HTML))
    recorder = Recorder(signals={"scrapy_rep.signals.item_refused": []})
    urls = [first, then]
    audit, spider = await mirrored_crawl(sites, urls, tmp_path, LinkedItemsSpider, recorder)
    assert spider.downloaded == [first]  # the other refused before its download
    assert "/nottrain/1" not in sites.requested("a") and "/robots.txt" in sites.requested("a")
    assert recorder.items == []
    [signal] = recorder.signals["scrapy_rep.signals.item_refused"]
    assert signal["reason"] == "purpose" and first in str(signal["response"])
    records = by_url(audit)
    record = records[first]
    assert (record["answered"], record["held"], record["items_kept"], record["item_reason"]) == (
        True, 1, 0, "purpose"
    )  # fmt: skip
    assert record["robots"]["snapshot"] == records[then]["robots"]["snapshot"]
    assert record["tdmrep"] == records[then]["tdmrep"]
    assert (records[then]["fate"], records[then]["refused_by"]) == ("refused", "purpose")
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean, 1 event(s): " in out, out
    assert f"event: {first}: its robots.txt says no (Not fetched: ai-train denied by " in out
    forged = edited_copy(audit, tmp_path / "kept.jsonl", first, kept_anyway)
    status, out, _ = audit_streams("verify", str(forged))
    assert status != 0 and f"{first}: the page says no ai-train by " in out, out


@pytest_twisted.ensureDeferred
async def test_the_usage_yes_of_a_mirrored_pages_origin_keeps_its_items(tmp_path: Path) -> None:
    """With ``REP_PURPOSE_UNKNOWN = "deny"``, a mirrored page whose origin's robots.txt
    says ``Content-Usage: train-ai=y`` for it was read as saying nothing (its item refused as
    unknown): its page is decided with what its origin says, and keeps its item. A mirrored
    page of an origin whose documents the crawl had not had waits for them (they say nothing: its
    purpose unknown), is refused, and its record names them; ``audit verify`` is clean."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nContent-Usage: /open train-ai=y\n"))
    a.script("/", links_page("/open/1"))
    sites.add("b")  # asked for its documents alone
    start, kept, unknown = sites.url("a", "/"), sites.url("a", "/open/1"), sites.url("b", "/open/2")
    recorder = Recorder()
    audit, spider = await mirrored_crawl(
        sites,
        [start, unknown],
        tmp_path,
        LinkedItemsSpider,
        recorder,
        {"REP_PURPOSE_UNKNOWN": "deny"},
    )
    assert sorted(spider.downloaded) == sorted([start, kept, unknown])
    assert [item["url"] for item in recorder.items] == [kept]
    records = by_url(audit)
    assert (records[kept]["answered"], records[kept]["items_kept"]) == (True, 1)
    assert records[kept]["usage"]["answers"]["ai-train"] is True
    record = records[unknown]
    assert (record["answered"], record["items_kept"], record["item_reason"]) == (True, 0, "purpose")
    assert record["robots"]["snapshot"] and "no signal allows ai-train" in record["item_why"]
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean" in out, out


class HostLinksSpider(LinkedItemsSpider):
    """LinkedItemsSpider whose links are sent with the header ``Host: {host}`` (another
    site than their URL's)."""

    host = ""

    def parse(self, response: Any) -> Any:
        ListSpider.parse(self, response)
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            yield Request(
                response.urljoin(href),
                callback=self.parse,
                errback=self.failed,
                headers={"Host": self.host},
            )


@pytest_twisted.ensureDeferred
async def test_a_mirrored_page_sent_with_another_host_keeps_its_urls_sites_no(
    tmp_path: Path,
) -> None:
    """A page a downloader middleware before scrapy_rep's answers, sent with a ``Host``
    header naming another site (whose robots.txt the crawl never had): its URL's site's
    robots.txt, which the crawl had, says ``Content-Usage: train-ai=n`` for it. The
    verdict waited for the other site's, so nothing was read and its item was kept (the
    "no" lost, and ``audit verify`` found it kept). It waits for the other site's documents
    (fetched for it: they say nothing) and is decided by both sites: its item refused, its record
    naming both robots.txt, and ``audit verify`` clean."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nContent-Usage: /nottrain train-ai=n\n"))
    a.script("/", links_page("/nottrain/1"))
    sites.add("b")  # asked for its documents alone
    start, refused = sites.url("a", "/"), sites.url("a", "/nottrain/1")
    HostLinksSpider.host = sites.url("b", "/").split("//", 1)[1].rstrip("/")
    recorder = Recorder()
    audit, spider = await mirrored_crawl(sites, [start], tmp_path, HostLinksSpider, recorder)
    assert sorted(spider.downloaded) == sorted([start, refused])
    assert sites.requested("b") == ["/robots.txt", "/.well-known/tdmrep.json"]
    assert [item["url"] for item in recorder.items] == [start]
    record = by_url(audit)[refused]
    assert (record["answered"], record["items_kept"], record["item_reason"]) == (True, 0, "purpose")
    assert record["robots"]["snapshot"] and record["robots"]["also"] and record["held"] == 1
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean" in out, out


@pytest_twisted.ensureDeferred
async def test_a_mirrored_page_sent_with_a_host_whose_robots_txt_was_had_keeps_its_no(
    tmp_path: Path,
) -> None:
    """A page a downloader middleware before scrapy_rep's answers, sent with a ``Host``
    header naming another site (b) whose robots.txt the crawl had, as it had its URL's
    site's: b's says ``Content-Usage: train-ai=n`` for it. Its item was refused, but its
    record named its URL's site's robots.txt alone, and ``audit verify`` failed the honest
    trail ("drops its items for purpose, which its statements do not say"). Its record
    names b's (``addressed``) and its URL's site's (``also``), as a verdict's record does;
    ``audit verify`` decides it again by both, clean with b's "no" as an event. A record
    that kept the item, or that leaves b's robots.txt out, fails."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    a.script("/", links_page("/nottrain/1"))
    b = sites.add("b")
    b.script("/robots.txt", robots("User-agent: *\nContent-Usage: /nottrain train-ai=n\n"))
    # a's home page is sent with Host b too (both robots.txt had): its link is mirrored
    b.script("/", links_page(sites.url("a", "/")))
    start, home, refused = sites.url("b", "/"), sites.url("a", "/"), sites.url("a", "/nottrain/1")
    addressed = sites.url("b", "")
    HostLinksSpider.host = addressed.split("//", 1)[1]
    recorder = Recorder()
    audit, spider = await mirrored_crawl(sites, [start], tmp_path, HostLinksSpider, recorder)
    assert sorted(spider.downloaded) == sorted([start, home, refused])
    assert "/nottrain/1" not in sites.requested("a")
    assert sorted(item["url"] for item in recorder.items) == sorted([start, home])
    records = by_url(audit)
    record = records[refused]
    assert (record["answered"], record["items_kept"], record["item_reason"]) == (True, 0, "purpose")
    theirs, own = records[home]["robots"]["snapshot"], records[home]["robots"]["also"]
    assert theirs == records[start]["robots"]["snapshot"] and own != theirs
    part = record["robots"]
    assert (part["snapshot"], part["addressed"], part["also"]) == (theirs, addressed, own)
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean, 1 event(s): " in out, out
    assert f"event: {refused}: its robots.txt says no (Not fetched: ai-train denied by " in out
    # audit show names b's robots.txt as b's (it said its URL's site's, with b's snapshot)
    status, out, _ = audit_streams("show", str(audit), refused)
    assert status == 0 and f"  robots.txt of {addressed}: no line applies to it" in out, out
    forged = edited_copy(audit, tmp_path / "kept.jsonl", refused, kept_anyway)
    status, out, _ = audit_streams("verify", str(forged))
    assert status != 0 and f"{refused}: the page says no ai-train by " in out, out

    def left_out(record: dict[str, Any]) -> None:  # its URL's site's robots.txt alone
        kept_anyway(record)
        record["robots"] = {"snapshot": own, "agent": part["agent"], "addressed": addressed,
                            "line": 2, "rule": "Allow: /"}  # fmt: skip

    forged = edited_copy(audit, tmp_path / "left_out.jsonl", refused, left_out)
    status, out, _ = audit_streams("verify", str(forged))
    assert status != 0, out
    assert (
        f"{refused}: answered without a download, but names no robots.txt of {addressed}, "
        "though its crawl had one before it"
    ) in out


@pytest_twisted.ensureDeferred
async def test_a_mirrored_page_sent_with_a_host_whose_robots_txt_alone_was_had_is_decided_by_it(
    tmp_path: Path,
) -> None:
    """Pages a downloader middleware before scrapy_rep's answers, sent with a ``Host``
    header naming another site (b) whose robots.txt the crawl had, not their URL's
    site's. b's says ``Content-Usage: train-ai=y``, and ``train-ai=n`` for one of them:
    the one b allows waited for its URL's site's robots.txt, so nothing was read and
    its item was refused as unknown (``REP_PURPOSE_UNKNOWN = "deny"``); the one b refuses
    lost its item, but its record named no robots.txt, and ``audit verify`` failed the
    honest trail. The one b allows waits for its URL's site's documents (fetched for it:
    they say nothing) and is decided by both sites, its record naming b's robots.txt (``addressed``)
    and a's (``also``); the one b refuses is decided by b's "no" alone, without waiting,
    its record naming b's: one keeps its item, the other drops it, ``audit verify`` is
    clean, and a record that kept the refused item fails."""
    sites = Sites()
    sites.add("a")  # asked for its documents alone
    b = sites.add("b")
    said = "User-agent: *\nContent-Usage: train-ai=y\nContent-Usage: /nottrain train-ai=n\n"
    b.script("/robots.txt", robots(said))
    start, kept, refused = (
        sites.url("b", "/"),
        sites.url("a", "/open/1"),
        sites.url("a", "/nottrain/1"),
    )
    b.script("/", links_page(kept, refused))
    addressed = sites.url("b", "")
    HostLinksSpider.host = addressed.split("//", 1)[1]
    recorder = Recorder()
    audit, spider = await mirrored_crawl(
        sites, [start], tmp_path, HostLinksSpider, recorder, {"REP_PURPOSE_UNKNOWN": "deny"}
    )
    assert sorted(spider.downloaded) == sorted([start, kept, refused])
    assert sites.requested("a") == ["/robots.txt", "/.well-known/tdmrep.json"]
    assert sorted(item["url"] for item in recorder.items) == sorted([start, kept])
    records = by_url(audit)
    theirs = records[start]["robots"]["snapshot"]
    assert (records[kept]["items_kept"], records[kept]["usage"]["answers"]["ai-train"]) == (1, True)
    record = records[refused]
    assert (record["answered"], record["items_kept"], record["item_reason"]) == (True, 0, "purpose")
    # b's "no" decides the one it refuses without a's documents: not held for them
    for url, held in ((kept, True), (refused, False)):
        part = records[url]["robots"]
        assert (part["snapshot"], part["addressed"], "also" in part) == (theirs, addressed, held)
        assert records[url].get("held", 0) == held
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean, 1 event(s): " in out, out
    forged = edited_copy(audit, tmp_path / "kept.jsonl", refused, kept_anyway)
    status, out, _ = audit_streams("verify", str(forged))
    assert status != 0 and f"{refused}: the page says no ai-train by " in out, out


class MirrorRedirectingMiddleware:
    """A local mirror placed before scrapy_rep's robots.txt middleware: it answers
    ``/moved/`` URLs itself with a 301 to ``{target}`` (another origin)."""

    target = ""

    def process_request(self, request: Request, spider: Any = None) -> Response | None:
        if "/moved/" in request.url:
            return Response(
                request.url, status=301, headers={"Location": self.target}, request=request
            )
        return None


@pytest_twisted.ensureDeferred
async def test_a_redirect_a_mirror_answered_is_recorded_and_verifies(tmp_path: Path) -> None:
    """A downloader middleware before scrapy_rep's answers a page with a 301 to another
    origin, whose robots.txt says ``Content-Usage: train-ai=n`` for the target: the target
    is requested (our verdict reaches it: refused for ai-train, never downloaded), the
    answered redirect's record says so (no response reached the engine: it said
    ``redirected`` with ``attempts`` 0 and no robots.txt part, and ``audit verify`` failed
    it, "no robots.txt snapshot names what allowed it"), ``audit show`` says no verdict
    reached it, and ``audit verify`` is clean."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    b = sites.add("b")
    b.script("/robots.txt", robots("User-agent: *\nContent-Usage: /nottrain train-ai=n\n"))
    b.script("/nottrain/1", Reply(200, b"<html>b</html>", HTML))
    start, moved, target = (
        sites.url("a", "/"),
        sites.url("a", "/moved/1"),
        sites.url("b", "/nottrain/1"),
    )
    a.script("/", links_page("/moved/1"))
    MirrorRedirectingMiddleware.target = target
    audit = tmp_path / "trail.jsonl"
    recorder = Recorder()
    settings = {
        "REP_AUDIT_FILE": str(audit),
        "REP_PURPOSE": "ai-train",
        "DOWNLOADER_MIDDLEWARES": {MirrorRedirectingMiddleware: 50},
    }
    try:
        await crawl([start], settings, LinkedItemsSpider, recorder)
    finally:
        await sites.close()
    assert "/nottrain/1" not in sites.requested("b")
    assert [item["url"] for item in recorder.items] == [start]
    records = by_url(audit)
    record = records[moved]
    assert (record["fate"], record["attempts"], record["answered"]) == ("redirected", 0, True)
    assert record["robots"]["rule"] == "Allow: /" and records[target]["fate"] == "refused"
    status, out, _ = audit_streams("show", str(audit), moved)
    assert status == 0 and "(no verdict: answered before it)" in out, out
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean" in out, out


class FetchesMirroredItself(ListSpider):
    """A callback that has the engine download ``extra["more"]`` itself (``NO_CALLBACK``:
    its page, read and decided as it arrives) and yields one item of what it read."""

    extra: ClassVar[dict[str, str]] = {}

    async def parse(self, response: Any) -> Any:
        from scrapy.http.request import NO_CALLBACK

        from scrapy_rep.crawl.internals import download

        ListSpider.parse(self, response)
        more = Request(self.extra["more"], callback=NO_CALLBACK)
        fetched = await download(self.crawler, more)
        yield {"url": fetched.url}


@pytest_twisted.ensureDeferred
async def test_a_mirrored_page_a_callback_fetches_itself_keeps_its_origins_no(
    tmp_path: Path,
) -> None:
    """A callback has the engine download a page itself, which a downloader middleware
    before scrapy_rep's answers; its origin's robots.txt (had) says ``Content-Usage:
    train-ai=n`` for it: the callback's item, gated by that page, is refused for
    ai-train. No verdict opened the fetched page's record, so it had none (``audit
    verify`` failed the honest trail: "has no record of its own", "drops its items for
    purpose, which its statements do not say"): it has one, ``answered``, naming its
    robots.txt, and ``audit verify`` holds the callback's items to it, clean."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nContent-Usage: /nottrain train-ai=n\n"))
    a.script("/", Reply(200, b"<html>start</html>", HTML))
    start, fetched = sites.url("a", "/"), sites.url("a", "/nottrain/2")
    FetchesMirroredItself.extra = {"more": fetched}
    recorder = Recorder()
    audit, _ = await mirrored_crawl(sites, [start], tmp_path, FetchesMirroredItself, recorder)
    assert "/nottrain/2" not in sites.requested("a")
    assert recorder.items == []
    record = by_url(audit)[start]
    assert (record["items_kept"], record["item_reason"]) == (0, "purpose")
    assert f"train-ai=n of {fetched}" in record["item_why"]
    own = by_url(audit)[fetched]
    assert (own["answered"], own["unscheduled"], own["attempts"]) == (True, True, 0)
    assert own["robots"]["snapshot"] and own["usage"]["answers"]["ai-train"] is False
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean" in out, out


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_mirrored_page_a_callback_fetches_before_its_robots_txt_waits_for_its_no(
    tmp_path: Path,
) -> None:
    """A callback has the engine download a page of another origin itself, which a
    downloader middleware before scrapy_rep's answers before that origin's robots.txt was
    had; it says ``Content-Usage: train-ai=n`` for the page. The callback's item was kept
    (the page's purposes unknown). The fetched page waits for its origin's documents
    (fetched for it) before the callback gets it: the item is refused, the page's own
    record names them and says ``held``, and ``audit verify`` is clean."""
    sites = Sites()
    sites.add("a").script("/", Reply(200, b"<html>start</html>", HTML))
    c = sites.add("c")
    c.script("/robots.txt", robots("User-agent: *\nContent-Usage: /nottrain train-ai=n\n"))
    start, fetched = sites.url("a", "/"), sites.url("c", "/nottrain/2")
    FetchesMirroredItself.extra = {"more": fetched}
    recorder = Recorder()
    audit, _ = await mirrored_crawl(sites, [start], tmp_path, FetchesMirroredItself, recorder)
    assert recorder.items == [] and "/robots.txt" in sites.requested("c")
    records = by_url(audit)
    assert (records[start]["items_kept"], records[start]["item_reason"]) == (0, "purpose")
    own = records[fetched]
    assert (own["answered"], own["unscheduled"], own["held"]) == (True, True, 1)
    assert own["robots"]["snapshot"] and own["usage"]["answers"]["ai-train"] is False
    status, out, _ = audit_streams("verify", str(audit))
    assert status == 0 and ": clean" in out, out
