"""Every document kind through the stores and crawls (docs/decisions.md, 'Per-origin
documents are kinds of one machinery'; the machinery on its own:
tests/crawl/documents/test_kinds.py): each kind of :data:`CRAWL_KINDS` round-trips
through every store (a real redis-server among them), its corrupt records are counted
under its own stats prefix, and real crawls hold per origin and read their configuration
once."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy.utils.defer import deferred_from_coro

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP, DocumentKind
from rep_engine.fetch.records import SharedRecord
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.settings import RepConfig
from rep_engine.urls.origins import Origin
from rep_engine.usage.rsl.terms import purpose_answers
from scrapy_rep.crawl.documents.kinds import CRAWL_KINDS, CrawlKind
from scrapy_rep.crawl.documents.stores import JobdirStore, LocalStore, RedisStore, RobotsStore
from tests.support.documents import KIND_BODIES
from tests.support.redisserver import RedisServer
from tests.support.robotsite import Reply, Sites, crawl, robots

T0 = 1_000_000.0
KEY = Origin("http", "a.example", 80)
KIND_IDS = [kind.name for kind in CRAWL_KINDS]


def entries(kind: DocumentKind[Any]) -> dict[str, CacheEntry[Any]]:
    """A parsed copy, the absent stand-in (a 404) and the unreachable one (given up)."""
    body = KIND_BODIES[kind.name]
    parsed = CacheEntry(kind.parse(body), "200", T0, T0 + 3600, T0 + 7200, 200, zlib.compress(body))
    absent = CacheEntry(kind.absent, "404", T0, T0 + 3600, T0 + 7200, 404)
    gave_up = CacheEntry(kind.unreachable, "gave up", T0, T0 + 3600, T0 + 7200, None, b"", True)
    return {"parsed": parsed, "absent": absent, "unreachable": gave_up}


async def save_and_load(
    store: str, name: str, record: SharedRecord, tmp_path: Path, redis: RedisServer | None
) -> SharedRecord | None:
    """``record`` as the next reader of the real store finds it."""
    writer: RobotsStore
    if store == "memory":
        writer = LocalStore()
        await writer.save(record, 3600)
        return await writer.load(name)
    if store == "jobdir":
        writer = JobdirStore(tmp_path / "scrapy_rep.robots", 100)
        await writer.save(record, 3600)
        await writer.close()  # the paused run
        return await JobdirStore(tmp_path / "scrapy_rep.robots", 100).load(name)
    assert redis is not None
    writer, reader = RedisStore(redis.url, tmp_path.name), RedisStore(redis.url, tmp_path.name)
    try:
        await writer.save(record, 3600)
        return await reader.load(name)
    finally:
        await writer.close()
        await reader.close()


@pytest.mark.parametrize("store", ["memory", "jobdir", "redis"])
@pytest.mark.parametrize("what", ["parsed", "absent", "unreachable"])
@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_every_kind_round_trips_through_every_store(
    crawl_kind: CrawlKind[Any], what: str, store: str, tmp_path: Path, request: Any
) -> None:
    kind = crawl_kind.kind
    entry = entries(kind)[what]
    record = kind.record_of(KEY, entry, 0, None, 0.0, entry.outcome, T0)
    name = kind.store_name(KEY)
    redis = request.getfixturevalue("module_redis_server") if store == "redis" else None
    loaded = await deferred_from_coro(save_and_load(store, name, record, tmp_path, redis))
    if store == "memory":
        assert loaded is None  # shares nothing: each process decides alone
        return
    assert loaded == record
    back = kind.entry_of(loaded)
    assert kind.verdict_of(back.rules) == kind.verdict_of(entry.rules)
    assert (back.outcome, back.status, back.unreachable) == (
        entry.outcome, entry.status, entry.unreachable,
    )  # fmt: skip
    if what == "parsed":
        probe = f"{KEY}/private/x"
        if kind is ROBOTS_TXT:
            assert back.rules.allowed(probe, "TestBot") is False
        elif kind is RSL:
            assert purpose_answers(back.rules, probe) == purpose_answers(entry.rules, probe)
            assert purpose_answers(back.rules, probe)[1].allowed is False  # its prohibits survived
        else:
            assert back.rules.values(probe) == entry.rules.values(probe)
    else:
        assert back.rules is entry.rules  # the kind's own stand-in


@pytest_twisted.ensureDeferred
async def test_a_corrupt_tdmrep_record_is_counted_under_rep_tdmrep(
    redis_server: RedisServer,
) -> None:
    import redis

    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    sites.origins["a"].script(TDMREP.path, Reply(200, b"[]", {"Content-Type": "application/json"}))
    base = sites.bases["a"]
    client = redis.Redis.from_url(redis_server.url)
    client.set(f"scrapy_rep:robots:{base}{TDMREP.path}", b"scrapy_rep/robots\n{not json}\n\x00")
    settings = {"REP_ROBOTSTXT_CACHE": redis_server.url, "REP_PURPOSE": "ai-train"}
    try:
        crawler, spider = await crawl([sites.url("a", "/a")], settings)
    finally:
        await sites.close()
        client.close()
    assert spider.downloaded == [sites.url("a", "/a")]
    assert crawler.stats is not None
    assert crawler.stats.get_value("rep/tdmrep/store_corrupt") == 1
    assert crawler.stats.get_value("rep/robotstxt/store_corrupt") is None


@pytest_twisted.ensureDeferred
async def test_held_requests_answers_per_origin_for_robots_txt_only(tmp_path: Path) -> None:
    """A request waiting for tdmrep.json is not waiting for robots.txt."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    sites.origins["a"].script(TDMREP.path, Reply(503))
    seen: list[dict[str, int]] = []

    def watch(crawler: Any) -> None:
        from scrapy_rep.signals import request_held

        def held(request: Any, origin: str) -> None:
            middleware = next(
                m
                for m in crawler.engine.downloader.middleware.middlewares
                if type(m).__name__ == "RobotsTxtMiddleware"
            )
            seen.append(dict(middleware.held_requests()))

        crawler.signals.connect(held, signal=request_held, weak=False)

    settings = {"REP_PURPOSE": "ai-train", "REP_UNREACHABLE_MAX_WAIT": 0.5}
    try:
        await crawl([sites.url("a", "/a")], settings, on_crawler=watch)
    finally:
        await sites.close()
    # Held for robots.txt, then (its robots.txt known) for tdmrep.json.
    assert seen == [{sites.bases["a"]: 1}, {}]


@pytest_twisted.ensureDeferred
async def test_a_crawl_reads_its_configuration_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every component of a crawl shares one RepConfig (SPEC §5; docs/decisions.md, 'One
    home per constant, the configuration read once'): the REP_* settings are read once the
    crawler's settings are frozen (before, by the add-on, to stop a wrong value at
    start)."""
    read_frozen: list[bool] = []
    original = RepConfig.from_settings.__func__  # type: ignore[attr-defined]

    def counting(cls: type[RepConfig], settings: Any) -> RepConfig:
        read_frozen.append(bool(getattr(settings, "frozen", False)))
        return original(cls, settings)  # type: ignore[no-any-return]

    monkeypatch.setattr(RepConfig, "from_settings", classmethod(counting))
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    settings = {"REP_PURPOSE": "ai-train", "REP_REPORT": True}
    try:
        await crawl([sites.url("a", "/a")], settings)
    finally:
        await sites.close()
    assert read_frozen.count(True) == 1
