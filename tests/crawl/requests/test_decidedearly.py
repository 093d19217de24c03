"""Each allowed request decided once: the late check (``process_request``) reuses the
early pass's verdict (``refusal_if_known``) when nothing it depended on has changed, and
decides afresh when something has (the URL, the agent, a document's entry, the run).

Real crawls compare the outcome with the reuse switched off (every request decided
twice, as before); the fresh paths drive the middleware directly."""

from __future__ import annotations

import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider, signals
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.request import request_from_dict
from scrapy.utils.test import get_crawler

from scrapy_rep import RobotsTxtMiddleware
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.auditing import TRAILS
from scrapy_rep.crawl.requests.decidedearly import EarlyDecisions
from scrapy_rep.crawl.requeststate import KEY, state_of
from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.robotstxt import RobotsTxt, parse_robotstxt
from scrapy_rep.urls.origins import origin_of
from scrapy_rep.usage.policy import UsagePolicy
from scrapy_rep.usage.tdmrep import parse_tdmrep
from scrapy_rep.verdict import ROBOTS as ROBOTS_KIND
from scrapy_rep.verdict import Allowed, RequestFacts
from tests.support.audittrail import lines
from tests.support.robotsite import Reply, Sites, crawl, robots

HTML = {"Content-Type": "text/html"}
ROBOTS = (
    "User-agent: *\nDisallow: /private\nCrawl-delay: 0.05\nContent-Usage: train-ai=y\n"
    "\nUser-agent: OtherBot\nDisallow: /p3\n"
)
TDMREP = b'[{"location": "/p2", "tdm-reservation": 0}]'
PAGES = ["/p1", "/p2", "/p3", "/p4"]


def matches(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str]]:
    """Every robots.txt match (``allowed`` or ``decide``) and every reading of the purposes'
    signals (``before_fetch``), counted by (what, URL path)."""
    counted: Counter[tuple[str, str]] = Counter()
    allowed, decide, refusal = RobotsTxt.allowed, RobotsTxt.decide, UsagePolicy.before_fetch

    def path(url: str) -> str:
        return "/" + url.split("/", 3)[3]

    def counting_allowed(self: RobotsTxt, url: str, agent: str) -> bool:
        counted["robots", path(url)] += 1
        return allowed(self, url, agent)

    def counting_decide(self: RobotsTxt, url: str, agent: str) -> Any:
        counted["robots", path(url)] += 1
        return decide(self, url, agent)

    def counting_refusal(self: UsagePolicy, rules: Any, url: str, *args: Any) -> Any:
        counted["purpose", path(url)] += 1
        return refusal(self, rules, url, *args)

    monkeypatch.setattr(RobotsTxt, "allowed", counting_allowed)
    monkeypatch.setattr(RobotsTxt, "decide", counting_decide)
    monkeypatch.setattr(UsagePolicy, "before_fetch", counting_refusal)
    return counted


def site() -> Sites:
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


async def run(
    tmp_path: Path, name: str, settings: dict[str, Any], trail_on: bool
) -> dict[str, Any]:
    sites = site()
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
    for record in records:
        for key in ("run", "time", "id", "prev", "hash"):
            record.pop(key, None)
    return {"stats": stats, "seen": seen, "records": records, "requested": sites.requested("a")}


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
    counted = matches(monkeypatch)
    once = await run(tmp_path, "once", settings, trail_on)
    once_counts = dict(counted)
    counted.clear()
    monkeypatch.setattr(EarlyDecisions, "keep", lambda self, request, facts, verdict: None)
    twice = await run(tmp_path, "twice", settings, trail_on)
    twice_counts = dict(counted)

    if trail_on:  # verified after the engine calls were counted (see the mark)
        from scrapy_rep.audit.verify import verify

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


# ---------------------------------------------------------------------- the fresh paths


def early_token(request: Request) -> int:
    """The token of the early pass's verdict in the request's state (0: none)."""
    state = state_of(request)
    return 0 if state is None else state.early


URL = "https://site.example/page"
ORIGIN = origin_of(URL)
assert ORIGIN is not None
ALLOW = parse_robotstxt(b"User-agent: *\nDisallow: /private\n\nUser-agent: OtherBot\nDisallow: /\n")
FORBID = parse_robotstxt(b"User-agent: *\nDisallow: /page\n")


class Trail:
    """The audit trail's calls, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any]] = []

    def decided(self, request: Request, facts: Any, verdict: Any) -> None:
        self.calls.append(("decided", request.url, verdict.robots))

    def license_used(self, license_url: str, entry: Any, request: Any = None) -> None:
        self.calls.append(("license_used", license_url, entry))


def middleware(trail: Trail | None = None, **settings: Any) -> RobotsTxtMiddleware:
    """The crawl's middleware with ``ALLOW`` cached, fresh, for ``ORIGIN``."""
    values = {"ROBOTSTXT_OBEY": True, "USER_AGENT": "TestBot/1.0", **settings}
    if trail is not None:
        values["REP_AUDIT_FILE"] = "unused.jsonl"
    crawler = get_crawler(Spider, values)
    ours = RobotsTxtMiddleware(crawler)
    if trail is not None:
        TRAILS[crawler] = trail  # type: ignore[assignment]
    put(ours, ALLOW)
    for name, document in ours.documents.items():  # tdmrep.json, for a purpose
        if name == ROBOTS_KIND:
            continue
        document.cache.put(ORIGIN, CacheEntry(parse_tdmrep(b"[]"), "200", 0, 1e18, 1e18, 200))
    return ours


def put(ours: RobotsTxtMiddleware, rules: RobotsTxt) -> CacheEntry[RobotsTxt]:
    entry = CacheEntry(rules, "200", 0, 1e18, 1e18, 200)
    ours.cache.put(ORIGIN, entry)
    return entry


def late(ours: RobotsTxtMiddleware, request: Request) -> None:
    """``process_request`` with the documents cached: it never suspends."""
    coroutine = ours.process_request(request)
    with pytest.raises(StopIteration):
        coroutine.send(None)


def test_reused_late_with_the_trail_the_same_record(monkeypatch: pytest.MonkeyPatch) -> None:
    trail = Trail()
    ours = middleware(trail)
    counted = matches(monkeypatch)
    request = Request(URL)
    assert ours.refusal_if_known(request) is None
    assert early_token(request)
    late(ours, request)
    assert counted == {("robots", "/page"): 1}
    assert not early_token(request)  # taken out: it travels no further
    assert len(ours._decided_early) == 0
    # The same record as a request decided late only.
    again = Request(URL)
    late(ours, again)
    assert counted == {("robots", "/page"): 2}
    (_, _, early), (_, _, afresh) = trail.calls
    assert early == afresh and early.allowed


@pytest.mark.parametrize("change", ["url", "user-agent", "dont_obey_robotstxt"])
def test_a_request_changed_between_the_passes_is_decided_afresh(
    monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    ours = middleware(REP_PURPOSE="ai-train")
    counted = matches(monkeypatch)
    request = Request(URL)
    assert ours.refusal_if_known(request) is None
    assert early_token(request)  # kept: reused if nothing changed
    if change == "url":  # the token travels with the meta a replaced request copies
        request = request.replace(url="https://site.example/private/1")
    elif change == "user-agent":
        request.headers["User-Agent"] = "OtherBot/2.0"
    else:
        request.meta["dont_obey_robotstxt"] = True
    counted.clear()
    if change == "dont_obey_robotstxt":  # only the purpose's opt-outs: decided again
        late(ours, request)
        assert counted == {("purpose", "/page"): 1}
        return
    with pytest.raises(IgnoreRequest, match="Forbidden by"):
        late(ours, request)
    assert counted["robots", "/private/1" if change == "url" else "/page"] >= 1


def test_a_newer_robotstxt_between_the_passes_decides_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ours = middleware()
    counted = matches(monkeypatch)
    request = Request(URL)
    assert ours.refusal_if_known(request) is None
    put(ours, ALLOW)  # the same rules, a newer entry (another process's record, a refresh)
    late(ours, request)
    assert counted == {("robots", "/page"): 2}
    request = Request(URL)
    assert ours.refusal_if_known(request) is None
    put(ours, FORBID)  # now forbidden
    with pytest.raises(IgnoreRequest, match="Forbidden by"):
        late(ours, request)


def test_a_token_of_another_run_names_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """JOBDIR: a request saved with its token by one run and read back by the next
    (Scrapy's disk queues: ``to_dict`` and pickle) is decided afresh, its token gone."""
    first = middleware()
    request = Request(URL)
    assert first.refusal_if_known(request) is None
    saved = pickle.dumps(request.to_dict())
    resumed = request_from_dict(pickle.loads(saved))
    assert early_token(resumed)
    second = middleware()
    counted = matches(monkeypatch)
    late(second, resumed)
    assert counted == {("robots", "/page"): 1}
    assert not early_token(resumed)
    # Even a token that happened to name a verdict of this run reuses nothing that the
    # request's own inputs do not give again (here: another URL's).
    other = Request("https://site.example/other")
    assert second.refusal_if_known(other) is None
    again = request_from_dict(pickle.loads(saved))
    again.meta[KEY] = again.meta[KEY]._replace(early=early_token(other))
    counted.clear()
    late(second, again)
    assert counted == {("robots", "/page"): 1}


def test_verdicts_of_requests_that_never_come_are_bounded() -> None:
    kept = EarlyDecisions(limit=3)
    requests = [Request(f"{URL}/{n}") for n in range(5)]
    for request in requests:
        kept.keep(request, RequestFacts(request.url, ORIGIN, "testbot"), Allowed())
    assert len(kept) == 3
    assert kept.take(state_of(requests[0])) is None  # the oldest were let go
    assert kept.take(state_of(requests[4])) is not None


@pytest_twisted.ensureDeferred
async def test_a_crawler_name_changed_after_the_early_pass_is_decided_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``request_scheduled`` handler (after the early pass, before the late check) names
    /p3's request OtherBot, whose group forbids /p3: refused late, never fetched."""
    counted = matches(monkeypatch)
    result = await run(
        tmp_path,
        "agent",
        {"EXTENSIONS": {"tests.crawl.requests.test_decidedearly.ChangeAgent": 0}},
        False,
    )
    assert "/p3" not in result["requested"]
    assert {"/p1", "/p2", "/p4"} <= set(result["requested"])
    assert result["stats"]["robotstxt/forbidden"] == 2  # /private/1 early, /p3 late
    assert result["stats"]["rep/requests/refused_before_scheduling"] == 1
    assert counted["robots", "/p3"] >= 2  # matched again late (and for the refusal's line)
    assert counted["robots", "/p1"] == 1
