"""Each allowed request decided once, in real crawls (docs/decisions.md, 'Early refusal
before the scheduler'): the late check reuses the early pass's verdict when nothing it
depended on has changed, with the same outcome as deciding afresh, and decides afresh
for a crawler name changed after the early pass (the reuse itself:
tests/crawl/requests/test_downloadermiddlewares_decidedearly.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider, signals

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.requests import downloadermiddlewares
from scrapy_rep.crawl.requests.downloadermiddlewares import EarlyDecisions
from scrapy_rep.crawl.requeststate import state_of
from tests.support.audittrail import lines
from tests.support.counting import counted_matches
from tests.support.robotsite import HTML, Reply, Sites, crawl, robots

ROBOTS = (
    "User-agent: *\nDisallow: /private\nCrawl-delay: 0.05\nContent-Usage: train-ai=y\n"
    "\nUser-agent: OtherBot\nDisallow: /p3\n"
)


TDMREP = b'[{"location": "/p2", "tdm-reservation": 0}]'


PAGES = ["/p1", "/p2", "/p3", "/p4"]


def pages_site() -> Sites:
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots(ROBOTS))
    a.script("/.well-known/tdmrep.json", Reply(200, TDMREP, {"Content-Type": "application/json"}))
    for path in ["/", *PAGES]:
        a.script(path, Reply(200, b"<html><title>t</title></html>", HTML))
    return sites


class HomeSpider(Spider):
    """The home page (robots.txt and tdmrep.json are cached once it arrives) links to
    the pages, which pass through the early pass; each page gives an item."""

    name = "home"
    sites: Sites

    async def start(self) -> Any:
        yield Request(self.sites.url("a", "/"))

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}
        if response.url == self.sites.url("a", "/"):
            for path in [*PAGES, "/private/1"]:
                yield response.follow(path)


class ChangeAgent:
    """A ``request_scheduled`` handler (between the early pass and the late check) that
    gives /p3's request another crawler name, which robots.txt forbids it."""

    def __init__(self, crawler: Any) -> None:
        crawler.signals.connect(self.scheduled, signal=signals.request_scheduled)

    @classmethod
    def from_crawler(cls, crawler: Any) -> ChangeAgent:
        return cls(crawler)

    def scheduled(self, request: Request, **_: Any) -> None:
        if request.url.endswith("/p3"):
            request.headers["User-Agent"] = "OtherBot/2.0"


async def crawl_home(
    tmp_path: Path, name: str, settings: dict[str, Any], trail_on: bool
) -> dict[str, Any]:
    sites = pages_site()
    HomeSpider.sites = sites
    seen: dict[str, Any] = {}

    def watch(crawler: Any) -> None:
        def on_response(response: Any, request: Any, **_: Any) -> None:
            key = request.meta.get(meta.DOWNLOAD_SLOT)
            slot = crawler.engine.downloader.slots.get(key)
            seen[response.url.split("/", 3)[3]] = (
                key is not None and key.startswith("http://127.0.0.1:"),
                None if slot is None else slot.delay,
                getattr(state_of(request), "before", None),
            )

        crawler.signals.connect(on_response, signal=signals.response_received, weak=False)

    trail = tmp_path / f"{name}.jsonl"
    if trail_on:
        settings = {**settings, "REP_AUDIT_FILE": str(trail)}
    try:
        crawler, _ = await crawl([], settings, HomeSpider, watch)
    finally:
        await sites.close()
    assert crawler.stats is not None
    stats = {
        key: value
        for key, value in crawler.stats.get_stats().items()
        if key.startswith(("rep/", "robotstxt/", "item_scraped", "downloader/request_count"))
    }
    base = sites.bases["a"]
    records = sorted(
        (
            {k: v.replace(base, "<a>") if isinstance(v, str) else v for k, v in r.items()}
            for r in (lines(trail) if trail_on else ())
            if r["type"] == "url"
        ),
        key=lambda r: r["url"],
    )
    for record in records:  # per run: times, and positions in the file (the order pages
        # are fetched in may differ between the two crawls)
        for key in ("run", "time", "id", "prev", "site_prev", "hash", "sent_at", "expires"):
            record.pop(key, None)
    return {
        "stats": stats,
        "seen": seen,
        "records": records,
        "requested": sorted(sites.requested("a")),
    }


AI = {"REP_PURPOSE": "ai-train"}


@pytest.mark.trail_not_verified(
    "verified in run(), after the count: verify re-derives each decision with the engine"
)
@pytest.mark.parametrize(
    "settings",
    [{}, {"TRAIL": True}, AI, {**AI, "TRAIL": True}],
    ids=["search", "search-trail", "ai-train", "ai-train-trail"],
)
@pytest_twisted.ensureDeferred
async def test_an_allowed_request_is_decided_once_with_the_same_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: dict[str, Any]
) -> None:
    settings = dict(settings)
    trail_on = settings.pop("TRAIL", False)
    counted = counted_matches(monkeypatch)
    once = await crawl_home(tmp_path, "once", settings, trail_on)
    once_counts = dict(counted)
    counted.clear()
    monkeypatch.setattr(EarlyDecisions, "limit", 0)  # none kept: each decided again late
    twice = await crawl_home(tmp_path, "twice", settings, trail_on)
    twice_counts = dict(counted)

    if trail_on:  # verified after the engine calls were counted (see the mark)
        from rep_audit.verify import verify

        for name in ("once", "twice"):
            result = verify(tmp_path / f"{name}.jsonl")
            assert result.clean, [str(finding) for finding in result.findings]
    for path in PAGES:  # decided early, not again late
        assert once_counts["robots", path] == 1, path
        assert twice_counts["robots", path] == 2, path
        assert once_counts["purpose", path] == 1, path  # robots.txt has a usage line
        assert twice_counts["purpose", path] == 2, path
    # ... with the same outcome: crawl-delay slots, stats, what the purpose check put on
    # each request, the trail's records, the pages fetched.
    assert once == twice
    assert once["stats"]["rep/requests/refused_before_scheduling"] == 1  # /private/1
    slot_ok, delay, before = once["seen"]["p1"]
    assert slot_ok and delay >= 0.05
    assert before is not None  # robots.txt's Content-Usage
    if settings:
        assert once["seen"]["p2"][2] != before  # tdmrep.json's entry for /p2 kept too
    assert bool(once["records"]) == trail_on


@pytest_twisted.ensureDeferred
async def test_a_crawler_name_changed_after_the_early_pass_is_decided_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``request_scheduled`` handler (after the early pass, before the late check) names
    /p3's request OtherBot, whose group forbids /p3: refused late, never fetched."""
    counted = counted_matches(monkeypatch)
    result = await crawl_home(
        tmp_path,
        "agent",
        {"EXTENSIONS": {f"{__name__}.ChangeAgent": 0}},
        False,
    )
    assert "/p3" not in result["requested"]
    assert {"/p1", "/p2", "/p4"} <= set(result["requested"])
    assert result["stats"]["robotstxt/forbidden"] == 2  # /private/1 early, /p3 late
    assert result["stats"]["rep/requests/refused_before_scheduling"] == 1
    assert counted["robots", "/p3"] >= 2  # matched again late (and for the refusal's line)
    assert counted["robots", "/p1"] == 1


@pytest.mark.parametrize("settings", [{}, AI], ids=["search", "ai-train"])
@pytest_twisted.ensureDeferred
async def test_a_held_request_is_decided_once_per_document_it_waited_for(
    monkeypatch: pytest.MonkeyPatch, settings: dict[str, Any]
) -> None:
    """A request held for its origin's robots.txt is not decided before it is
    known (neither by the early pass nor by the late check that holds it), only once it
    comes back with it; one held again for tdmrep.json (ai-train) once more then. Each
    is decided as often as it was held, with the same outcome: the pages fetched, the
    disallowed one refused."""
    decided: Counter[str] = Counter()
    held: Counter[str] = Counter()
    real_decide = downloadermiddlewares.decide

    def counting(facts: Any, *args: Any) -> Any:
        decided[facts.url.split("/", 3)[3]] += 1
        return real_decide(facts, *args)

    monkeypatch.setattr(downloadermiddlewares, "decide", counting)
    sites = pages_site()
    # robots.txt answers late: every start request is held for it.
    sites.origins["a"].script("/robots.txt", replace(robots(ROBOTS), delay=0.3))

    def watch(crawler: Any) -> None:
        def on_held(request: Request, **_: Any) -> None:
            held[request.url.split("/", 3)[3]] += 1

        crawler.signals.connect(on_held, signal=rep_signals.request_held, weak=False)

    paths = ["/", *PAGES, "/private/1"]
    try:
        crawler, _ = await crawl(
            [sites.url("a", path) for path in paths], settings, on_crawler=watch
        )
    finally:
        await sites.close()
    assert crawler.stats is not None
    assert crawler.stats.get_value("robotstxt/forbidden") == 1  # /private/1
    assert set(sites.requested("a")) >= {"/", *PAGES} and "/private/1" not in sites.requested("a")
    assert held  # the first request at least: its robots.txt was not known
    for path, times in held.items():
        assert decided[path] == times, (path, decided[path], times)
