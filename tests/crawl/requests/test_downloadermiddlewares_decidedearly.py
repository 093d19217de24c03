"""Each allowed request decided once: the late check (``process_request``) reuses the
early pass's verdict (``refusal_if_known``) when nothing it depended on has changed, and
decides afresh when something has (the URL, the agent, a document's entry, the run).

The fresh paths drive the middleware directly; real crawls compare the outcome with the
reuse switched off: tests/integration/test_decided_once.py."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.request import request_from_dict
from scrapy.utils.test import get_crawler

from rep_engine.fetch.cache import CacheEntry
from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from rep_engine.urls.origins import origin_of
from rep_engine.usage.tdmrep import parse_tdmrep
from rep_engine.verdict.decide import ROBOTS as ROBOTS_KIND
from scrapy_rep import RobotsTxtMiddleware
from scrapy_rep.crawl.auditing import LEDGERS
from scrapy_rep.crawl.requests.downloadermiddlewares import EarlyDecisions
from scrapy_rep.crawl.requeststate import KEY, state_of
from tests.support.counting import counted_matches

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
        LEDGERS[crawler] = trail  # type: ignore[assignment]
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
    """Reused, the early verdict costs the late check no reading of the request's facts
    nor a lookup of its documents' fresh versions: what its facts were read from is
    compared, the freshness of its versions, and that the cache still holds them."""
    from scrapy_rep.crawl.requests.facts import FactsReader

    trail = Trail()
    ours = middleware(trail)
    counted = counted_matches(monkeypatch)
    read: list[str] = []
    facts_of, fresh_entry = FactsReader.of, type(ours.lifecycle).fresh_entry

    def reading(self: Any, request: Request, sent: bool = False) -> Any:
        read.append("facts")
        return facts_of(self, request, sent)

    def looking(self: Any, key: Any, now: float) -> Any:
        read.append("document")
        return fresh_entry(self, key, now)

    monkeypatch.setattr(FactsReader, "of", reading)
    monkeypatch.setattr(type(ours.lifecycle), "fresh_entry", looking)
    request = Request(URL)
    assert ours.refusal_if_known(request) is None
    assert early_token(request)
    assert read == ["facts", "document"]
    late(ours, request)
    assert read == ["facts", "document"]  # nothing read again
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
    counted = counted_matches(monkeypatch)
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


def test_a_robotstxt_gone_stale_between_the_passes_decides_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its versions fresh and still the cache's, the early verdict is reused. Past its
    freshness (and refreshed meanwhile), the request is decided afresh, with the copy that
    decides now."""
    ours = middleware()
    counted = counted_matches(monkeypatch)
    request = Request(URL)
    assert ours.refusal_if_known(request) is None
    late(ours, request)
    assert counted == {("robots", "/page"): 1}
    ours._clock = lambda: 5.0  # type: ignore[method-assign]
    ours.cache.put(ORIGIN, CacheEntry(ALLOW, "200", 0, 10.0, 1e18, 200))  # fresh until 10 s
    request = Request(URL)
    assert ours.refusal_if_known(request) is None
    assert early_token(request)
    ours._clock = lambda: 20.0  # type: ignore[method-assign]
    put(ours, FORBID)  # stale at 10 s, refreshed since: now forbidden
    with pytest.raises(IgnoreRequest, match="Forbidden by"):
        late(ours, request)


@pytest.mark.parametrize("rules", ["same", "forbidding"])
def test_a_robotstxt_let_go_and_fetched_again_between_the_passes_decides_afresh(
    monkeypatch: pytest.MonkeyPatch, rules: str
) -> None:
    """A copy let go by the cache (``REP_CACHE_MAX_BYTES``) and fetched again before the
    late check, while the one the early verdict used would still be fresh: the request is
    decided afresh with the copy the crawl holds now, which may say no."""
    ours = middleware()
    counted = counted_matches(monkeypatch)
    request = Request(URL)
    assert ours.refusal_if_known(request) is None
    assert early_token(request)
    ours.cache.discard(ORIGIN)  # let go
    if rules == "same":
        put(ours, ALLOW)
        late(ours, request)
        assert counted == {("robots", "/page"): 2}
        return
    put(ours, FORBID)  # the site says no now
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
    counted = counted_matches(monkeypatch)
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


def test_verdicts_of_requests_that_never_come_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(EarlyDecisions, "limit", 3)
    ours = middleware()
    requests = [Request(f"{URL}/{n}") for n in range(5)]
    for request in requests:
        assert ours.refusal_if_known(request) is None
    kept = ours._decided_early
    assert len(kept) == 3
    assert kept.pop(early_token(requests[0]), None) is None  # the oldest were let go
    assert kept.pop(early_token(requests[4]), None) is not None
