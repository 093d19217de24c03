"""A request the cached robots.txt (tdmrep.json) already refuses is refused in the spider
middleware's output pass, before the scheduler (docs/decisions.md, 'Early refusal before
the scheduler'), with the same outcome as the downloader middleware's refusal: stats, log
line, ``request_refused``, audit record. Real crawls against local sites, each run twice:
with the early path, and with it switched off (every request refused late, as before)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider, signals
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.requests.early import REFUSED_EARLY, EarlyRefusal
from tests.support.audittrail import lines
from tests.support.robotsite import HTML, Reply, Sites, crawl, robots

ROBOTS_A = (
    "User-agent: *\nDisallow: /private\nDisallow: /*.pdf$\nContent-Usage: /noai train-ai=n\n"
    "\nUser-agent: GPTBot\nDisallow: /nogpt\n"
)


#: What the page of origin a links to (a duplicate of a refused URL among them).
LINKS = ["/p1", "/private/1", "/private/2", "/doc.pdf", "/nogpt/1", "/noai/1", "/private/1"]


def two_origins_site() -> Sites:
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots(ROBOTS_A))
    for path in ("/", "/p1", "/nogpt/1", "/noai/1", "/start-allowed"):
        a.script(path, Reply(200, b"<html><title>t</title></html>", HTML))
    b = sites.add("b")
    b.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    return sites


class LinkSpider(Spider):
    """Start: origin a's home page; once it has arrived (robots.txt cached), start()
    yields more: a disallowed and an allowed URL of a, and a disallowed URL of b (whose
    robots.txt is not cached yet). The home page yields an item and links (no errback:
    a request with one goes the late way)."""

    name = "links"
    sites: Sites

    def __init__(self, urls: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.home_seen: Deferred[None] = Deferred()

    async def start(self) -> Any:
        sites = self.sites
        yield Request(sites.url("a", "/"))
        await maybe_deferred_to_future(self.home_seen)
        yield Request(sites.url("a", "/private/start"))
        yield Request(sites.url("a", "/start-allowed"))
        yield Request(sites.url("b", "/private/x"))
        # Scrapy's switch for one request (Allow/Disallow not obeyed), and a request owed
        # its errback: both go the late way.
        yield Request(sites.url("a", "/private/dont-obey"), meta={"dont_obey_robotstxt": True})
        yield Request(sites.url("a", "/private/errback"), errback=self.failed)

    def failed(self, failure: Any) -> None:
        pass

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}
        if response.url == self.sites.url("a", "/"):
            for path in LINKS:
                yield response.follow(path)


class Passing:
    """A project's spider middleware that sees the spider's output after ours (a lower
    priority): it might change a request, so nothing is refused before it."""

    def process_spider_output(self, response: Any, result: Any, spider: Any = None) -> Any:
        yield from result

    async def process_spider_output_async(
        self, response: Any, result: Any, spider: Any = None
    ) -> Any:
        async for output in result:
            yield output


def watch(refused: list[tuple[str, str, str]]) -> Any:
    def connect(crawler: Any) -> None:
        def on_refused(request: Request, reason: str, message: str, **_: Any) -> None:
            start = request.meta.get("is_start_request", False)  # StartSpiderMiddleware's
            refused.append((request.url, reason, f"{message} start={start}"))

        def on_response(response: Any, **_: Any) -> None:
            spider = crawler.spider
            if response.url.endswith("/") and not spider.home_seen.called:
                spider.home_seen.callback(None)

        connect_ = crawler.signals.connect
        connect_(on_refused, signal=rep_signals.request_refused, weak=False)
        connect_(on_response, signal=signals.response_received, weak=False)

    return connect


async def crawl_two_origins(
    tmp_path: Path, name: str, settings: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> dict[str, Any]:
    """One crawl of the site; what it did."""
    sites = two_origins_site()
    LinkSpider.sites = sites
    trail = tmp_path / f"{name}.jsonl"
    refused: list[tuple[str, str, str]] = []
    caplog.clear()
    try:
        with caplog.at_level(logging.DEBUG, logger="scrapy_rep"):
            crawler, _ = await crawl(
                [], {**settings, "REP_AUDIT_FILE": str(trail)}, LinkSpider, watch(refused)
            )
    finally:
        await sites.close()
    assert crawler.stats is not None
    stats = crawler.stats.get_stats()
    bases = {base: f"<{name}>" for name, base in sites.bases.items()}

    def local(text: str) -> str:
        for base, alias in bases.items():
            text = text.replace(base, alias)
        return text

    # differ per run (site_prev: where the site's record before is)
    per_run = ("run", "time", "id", "prev", "site_prev", "hash", "sent_at", "expires")
    records = [
        {k: local(v) if isinstance(v, str) else v for k, v in record.items() if k not in per_run}
        for record in lines(trail)
        if record["type"] == "url"
    ]
    end = next(record for record in lines(trail) if record["type"] == "end")
    return {
        "refused": sorted((local(u), r, local(m)) for u, r, m in refused),
        "stats": {
            key: value
            for key, value in stats.items()
            if key.startswith(("rep/", "robotstxt/", "dupefilter/", "item_scraped"))
            and key != REFUSED_EARLY
        },
        "early": stats.get(REFUSED_EARLY, 0),
        "logs": sorted(
            local(r.getMessage()) for r in caplog.records if "Forbidden by" in r.getMessage()
        ),
        "records": sorted(records, key=lambda r: (r["url"], r.get("fate", ""))),
        "counts": end["counts"],
        "requested": {name: sorted(sites.requested(name)) for name in sites.origins},
    }


AI = {"REP_PURPOSE": "ai-train", "REP_PURPOSE_AGENTS": ["GPTBot"]}


@pytest.mark.parametrize(
    ("settings", "refused_early"),
    [
        ({}, 4),  # /private/start from start(), /private/1, /private/2, /doc.pdf
        (AI, 6),  # and /noai/1 (Content-Usage), /nogpt/1 (GPTBot's group)
        ({**AI, "ROBOTSTXT_OBEY": False}, 2),  # only the purpose's opt-outs
        ({"SPIDER_MIDDLEWARES": {f"{__name__}.Passing": 100}}, 0),
    ],
    ids=["search", "ai-train", "ai-train-obey-false", "middleware-after-ours"],
)
@pytest_twisted.ensureDeferred
async def test_early_refusal_has_the_late_refusals_outcome(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    settings: dict[str, Any],
    refused_early: int,
) -> None:
    early = await crawl_two_origins(tmp_path, "early", settings, caplog)
    monkeypatch.setattr(EarlyRefusal, "request", lambda self, request, start=False: request)
    late = await crawl_two_origins(tmp_path, "late", settings, caplog)

    # The early path was taken: a's refused URLs, from a callback and from start(); not
    # b's, whose robots.txt was not cached, nor the duplicate (the dupefilter's).
    assert early["early"] == refused_early, early["refused"]
    assert late["early"] == 0
    # ... and every outcome is the late path's.
    for key in ("refused", "stats", "logs", "records", "counts"):
        assert early[key] == late[key], key
    obey = settings.get("ROBOTSTXT_OBEY", True)
    refused_urls = [url for url, _, _ in early["refused"]]
    assert refused_urls.count("<a>/private/1") == obey  # its duplicate was filtered
    assert "<b>/private/x" in refused_urls
    if obey:  # a start request is refused marked as one, early or late
        assert ("<a>/private/start", "forbidden") in {(u, r) for u, r, _ in early["refused"]}
        start = next(m for u, _, m in early["refused"] if u == "<a>/private/start")
        assert start.endswith("start=True")
    assert early["stats"]["dupefilter/filtered"] == 1
    assert early["requested"] == late["requested"]
    refused_paths = [url[3:] for url in refused_urls if url.startswith("<a>")]
    assert not set(refused_paths) & set(early["requested"]["a"])
    assert "/private/dont-obey" in early["requested"]["a"]
    assert ("<a>/private/errback" in refused_urls) is obey
    assert [path for path in early["requested"]["b"] if "private" in path] == []


class ScopedSpider(Spider):
    """Start: origin a's home page, and a page of origin b reached as ``localhost`` (out
    of ``allowed_domains``, let through once by ``allow_offsite``): both robots.txt are
    known once their pages have arrived. Each page links to a URL its robots.txt refuses,
    a's twice (a duplicate), b's without ``allow_offsite`` (offsite)."""

    name = "scoped"
    allowed_domains = ("127.0.0.1",)
    pages: tuple[str, str] = ("", "")

    async def start(self) -> Any:
        yield Request(self.pages[0])
        yield Request(self.pages[1], meta={"allow_offsite": True})

    def parse(self, response: Any) -> Any:
        yield response.follow("/private/1")
        yield response.follow("/private/1")


@pytest_twisted.ensureDeferred
async def test_an_early_refusal_runs_no_signal_of_scrapys_and_keeps_its_filters(
    tmp_path: Path,
) -> None:
    """Refused before the scheduler, a request is recorded once by the performer: a
    project's ``request_scheduled`` handler never hears of it (the early pass sent that
    signal itself, so that the trail opened its record there); its duplicate is dropped by
    Scrapy's scheduler, which sends ``request_dropped`` itself; a link its robots.txt
    refuses, out of ``allowed_domains``, is dropped by Scrapy's offsite filter, neither
    refused nor recorded."""
    sites = Sites()
    for name in ("a", "b"):
        origin = sites.add(name)
        origin.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
        origin.script("/", Reply(200, b"<html><title>t</title></html>", HTML))
    ScopedSpider.pages = (
        sites.url("a", "/"),
        sites.url("b", "/").replace("127.0.0.1", "localhost"),
    )
    trail = tmp_path / "trail.jsonl"
    scheduled: list[str] = []
    dropped: list[str] = []
    refused: list[str] = []

    def connect(crawler: Any) -> None:
        def on(into: list[str]) -> Any:
            return lambda request, **_: into.append(request.url)

        crawler.signals.connect(on(scheduled), signal=signals.request_scheduled, weak=False)
        crawler.signals.connect(on(dropped), signal=signals.request_dropped, weak=False)
        crawler.signals.connect(on(refused), signal=rep_signals.request_refused, weak=False)

    try:
        crawler, _ = await crawl([], {"REP_AUDIT_FILE": str(trail)}, ScopedSpider, connect)
    finally:
        await sites.close()
    private = sites.url("a", "/private/1")
    assert refused == [private]
    assert crawler.stats.get_value(REFUSED_EARLY) == 1
    assert scheduled.count(private) == 1  # its duplicate only: the refused one never
    assert dropped == [private]  # its duplicate, by Scrapy's scheduler
    assert crawler.stats.get_value("dupefilter/filtered") == 1
    assert crawler.stats.get_value("offsite/filtered") == 2  # b's two links
    records = [line for line in lines(trail) if line["type"] == "url"]
    assert [r["url"] for r in records if r["fate"] == "refused"] == [private]
    assert not any("localhost" in r["url"] and "private" in r["url"] for r in records)


#: The URL ledger's events: each method another part of the crawl (or a signal) calls.
LEDGER_EVENTS = (
    "_scheduled", "_took", "_dropped", "_attempt", "_held", "_refused", "_file_checked",
    "_item_scraped", "_received", "decided", "license_used", "refused", "sent_at", "not_sent",
    "sent_changed", "failed", "failure_scraped", "downloaded", "page_done",
)  # fmt: skip


def told_from_outside(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every event the URL ledger is told by another module (or by a signal), as (event,
    URL); its own calls between its methods are not events."""
    import sys

    from scrapy_rep.crawl.audit import audit

    told: list[tuple[str, str]] = []
    for name in LEDGER_EVENTS:
        method = getattr(audit.AuditTrail, name, None)
        if method is None:
            continue

        def wrapped(self: Any, *args: Any, _method: Any = method, _name: str = name,
                    **kwargs: Any) -> Any:  # fmt: skip
            if sys._getframe(1).f_globals.get("__name__") != audit.__name__:
                request = kwargs.get("request", args[0] if args else None)
                told.append((_name, str(getattr(request, "url", request))))
            return _method(self, *args, **kwargs)

        monkeypatch.setattr(audit.AuditTrail, name, wrapped)
    return told


@pytest_twisted.ensureDeferred
async def test_a_refusal_is_one_event_of_the_ledger_which_hears_no_request_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The one performer of refusals tells the URL ledger each refusal once (a request
    refused before the scheduler: its record opened, decided and settled in that one
    event); the ledger is no receiver of ``request_refused`` (no signal of ours it would
    have to tell apart from another's, and drop)."""
    told = told_from_outside(monkeypatch)
    receivers: list[Any] = []

    def connect(crawler: Any) -> None:
        def opened(spider: Any) -> None:
            from pydispatch import dispatcher

            sender = crawler.signals.sender
            found = dispatcher.getAllReceivers(sender, rep_signals.request_refused)
            receivers.extend(dispatcher.liveReceivers(found))

        crawler.signals.connect(opened, signal=signals.spider_opened, weak=False)

    sites = two_origins_site()
    LinkSpider.sites = sites
    refused: list[tuple[str, str, str]] = []
    trail = tmp_path / "trail.jsonl"
    try:
        crawler, _ = await crawl(
            [], {"REP_AUDIT_FILE": str(trail)}, LinkSpider,
            lambda crawler: (watch(refused)(crawler), connect(crawler)),
        )  # fmt: skip
    finally:
        await sites.close()
    from scrapy_rep.crawl.audit.audit import AuditTrail

    assert receivers  # the project's handler (watch)
    assert not any(isinstance(getattr(r, "__self__", None), AuditTrail) for r in receivers)
    assert crawler.stats is not None and crawler.stats.get_value(REFUSED_EARLY) == 4
    early = {sites.url("a", path) for path in ("/private/start", "/private/2", "/doc.pdf")}
    for url, _, _ in refused:
        events = [event for event, at in told if at == url]
        assert events.count("refused") == 1, (url, events)
        assert "_refused" not in events, (url, events)
        if url in early:  # one event, never scheduled
            assert events == ["refused"], (url, events)
    records = [line for line in lines(trail) if line["type"] == "url"]
    assert sorted(r["url"] for r in records if r["fate"] == "refused") == sorted(
        url for url, _, _ in refused
    )
