"""The robots.txt cache shared through Redis (docs/deployment.md, 'Several processes: the
shared cache on Redis'), with a real ``redis-server``.

Workers share one Redis: crawlers of their own in this process (tests/support/workers.py),
or a process of its own for a worker stopped by a signal (tests/support/worker.py); the
local origins they crawl are served by this test process, whose access log says how often
each robots.txt was asked.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zlib
from typing import Any

import pytest
import pytest_twisted
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import reactor
from twisted.internet.defer import Deferred, gatherResults
from twisted.internet.task import deferLater
from twisted.internet.threads import deferToThread

from rep_engine.fetch.records import SharedRecord
from scrapy_rep.crawl.documents.stores import RedisStore
from scrapy_rep.crawl.internals import ASYNC_ENGINE
from scrapy_rep.signals import robotstxt_fetched
from tests.support.lifecycles import shared_record
from tests.support.paths import ROOT, SUPPORT, checkout_environment
from tests.support.redisserver import RedisServer
from tests.support.robotsite import Reply, Sites, crawl, robots
from tests.support.workers import run_config, run_worker

RULES = "User-agent: *\nDisallow: /x\n"


# ---------------------------------------------------------------------- records (pure)


# ---------------------------------------------------------------------- the store


@pytest_twisted.ensureDeferred
async def test_redis_store_records_and_leases(redis_server: RedisServer) -> None:
    one, two = RedisStore(redis_server.url), RedisStore(redis_server.url)
    try:
        origin = "http://a.example"
        assert await deferred_from_coro(one.load(origin)) is None
        await deferred_from_coro(one.save(shared_record(), 60))
        assert await deferred_from_coro(two.load(origin)) == shared_record()
        # One lease at a time; only its owner releases it; it times out by itself.
        assert await deferred_from_coro(one.acquire(origin, 0.5))
        assert not await deferred_from_coro(two.acquire(origin, 0.5))
        await deferred_from_coro(two.release(origin))  # not its lease: no effect
        assert not await deferred_from_coro(two.acquire(origin, 0.5))
        await deferLater(reactor, 0.7)  # type: ignore[arg-type]
        assert await deferred_from_coro(two.acquire(origin, 5))
        await deferred_from_coro(two.release(origin))
        assert await deferred_from_coro(one.acquire(origin, 5))
    finally:
        await deferred_from_coro(one.close())
        await deferred_from_coro(two.close())


# ---------------------------------------------------------------------- crawls


async def run_workers(settings: dict[str, Any], *url_lists: list[str]) -> list[dict[str, Any]]:
    """Workers at the same time, one per URL list; their results in order."""
    running = [Deferred.fromCoroutine(run_worker(urls, settings)) for urls in url_lists]
    return await gatherResults(running)  # type: ignore[no-any-return]


@pytest_twisted.ensureDeferred
async def test_two_workers_download_each_robotstxt_once(redis_server: RedisServer) -> None:
    sites = Sites()
    names = [f"s{n}" for n in range(4)]
    for name in names:
        sites.add(name).script("/robots.txt", robots(RULES))
    settings = {"REP_ROBOTSTXT_CACHE": redis_server.url}
    first = [sites.url(n, p) for n in names for p in ("/a1", "/a2", "/x")]
    second = [sites.url(n, p) for n in names for p in ("/b1", "/b2", "/x")]
    try:
        results = await run_workers(settings, first, second)
    finally:
        await sites.close()
    for name in names:
        assert sites.requested(name).count("/robots.txt") == 1, name
    for result, urls in zip(results, (first, second), strict=True):
        assert result["downloaded"] == sorted(u for u in urls if not u.endswith("/x"))
        assert sorted(result["dropped"]) == sorted(u for u in urls if u.endswith("/x"))
    stats = [result["stats"] for result in results]
    assert sum(s.get("rep/robotstxt/store_hits", 0) for s in stats) == len(names)
    assert sum(s.get("robotstxt/request_count", 0) for s in stats) == len(names)


@pytest_twisted.ensureDeferred
async def test_two_workers_never_release_a_request_against_an_older_robots_txt(
    redis_server: RedisServer,
) -> None:
    """robots.txt v1 allows everything for a second, v2 disallows ``/w``; two workers share
    it through Redis. Each holds its ``/w`` requests for v1 and releases them with it; the
    pages they link to refresh the stale v1, so each worker reads v2 (downloaded, or from
    the store) while its released ``/w`` requests still wait in its scheduler. None of them
    is sent on v1's word after that (docs/decisions.md, 'One request, one verdict')."""
    sites = Sites()
    site = sites.add("a")
    site.script(
        "/robots.txt",
        Reply(200, b"User-agent: *\nAllow: /\n", {"Cache-Control": "max-age=1"}, delay=0.5),
        robots("User-agent: *\nDisallow: /w\n"),
    )
    settings = {
        "REP_ROBOTSTXT_CACHE": redis_server.url,
        "CONCURRENT_REQUESTS": 2,
        "DOWNLOAD_DELAY": 0.05,
        "REP_CACHE_MIN_TTL": 0,
    }

    def config(name: str) -> dict[str, Any]:
        starts = [sites.url("a", f"/w/{name}{n}") for n in range(30)]
        follow = {url: [sites.url("a", f"/x/{name}{n}")] for n, url in enumerate(starts)}
        return {"urls": starts, "settings": settings, "follow": follow,
                "watch": sites.url("a", "/w/")}  # fmt: skip

    try:
        results = await gatherResults(
            [Deferred.fromCoroutine(run_config(config(name))) for name in ("p", "q")]
        )
    finally:
        await sites.close()
    for result in results:
        # released with v1 (how many were held depends on how far a worker got while v1
        # downloaded: 10 or more on an idle machine, 9 seen under load)
        assert result["stats"].get("rep/requests/held", 0) >= 1
        assert result["stats"].get("rep/requests/dropped/forbidden", 0) >= 1  # v2 decided
        assert result["sent_after_disallow"] == []


@pytest_twisted.ensureDeferred
async def test_requests_released_under_a_version_that_expires_in_the_queue_wait_for_the_next(
    redis_server: RedisServer,
) -> None:
    """Worker p holds its 40 ``/w`` requests for robots.txt v1 (2 s fresh, allows all) and
    releases them with it; they leave its queue one at a time, for longer than v1 lives.
    Worker q starts after v1 has expired, so v2 (``Disallow: /w``) is downloaded, by
    whichever worker asks first, and shared through Redis. p's requests that come back
    after v1's lifetime are decided afresh: v2 refuses them; none is sent once p knows v2
    (before, every one went on under v1: the released version decided whatever its age)."""
    sites = Sites()
    site = sites.add("a")
    site.script(
        "/robots.txt",
        Reply(200, b"User-agent: *\nAllow: /\n", {"Cache-Control": "max-age=2"}, delay=0.5),
        robots("User-agent: *\nDisallow: /w\n"),
    )
    settings = {
        "REP_ROBOTSTXT_CACHE": redis_server.url,
        "CONCURRENT_REQUESTS": 2,
        "DOWNLOAD_DELAY": 0.2,
        "REP_CACHE_MIN_TTL": 0,
    }
    watch = sites.url("a", "/w/")
    p = {"urls": [sites.url("a", f"/w/p{n}") for n in range(40)], "settings": settings,
         "watch": watch}  # fmt: skip
    q = {"urls": [sites.url("a", "/q")], "settings": settings}

    async def later(config: dict[str, Any]) -> dict[str, Any]:
        await deferLater(reactor, 3)  # type: ignore[arg-type]
        return await run_config(config)

    try:
        held, other = await gatherResults(
            [Deferred.fromCoroutine(run_config(p)), Deferred.fromCoroutine(later(q))]
        )
    finally:
        await sites.close()
    assert held["stats"].get("rep/requests/held", 0) >= 40  # all released with v1
    assert held["stats"].get("rep/requests/dropped/forbidden", 0) >= 1  # v2 decided
    assert held["sent_after_disallow"] == []
    assert sites.requested("a").count("/robots.txt") == 2  # v1 and v2, each once
    assert other["downloaded"] == [sites.url("a", "/q")]


@pytest_twisted.ensureDeferred
async def test_a_503_is_retried_on_one_schedule_by_all_workers(
    redis_server: RedisServer,
) -> None:
    sites = Sites()
    sites.add("flaky").script("/robots.txt", Reply(503), Reply(503), robots(RULES))
    settings = {"REP_ROBOTSTXT_CACHE": redis_server.url, "REP_UNREACHABLE_RETRY_DELAY": 0.5}
    urls = [sites.url("flaky", p) for p in ("/a", "/x")]
    try:
        results = await run_workers(settings, urls, urls)
    finally:
        await sites.close()
    # Two failures and one success in all: not one schedule per worker.
    assert sites.requested("flaky").count("/robots.txt") == 3
    for result in results:
        assert result["downloaded"] == [sites.url("flaky", "/a")]
        assert list(result["dropped"]) == [sites.url("flaky", "/x")]


@pytest_twisted.ensureDeferred
async def test_a_worker_killed_mid_download_does_not_block_the_origin(
    redis_server: RedisServer,
) -> None:
    sites = Sites()
    origin = sites.add("slow")
    origin.script("/robots.txt", Reply(hang=True), robots(RULES))
    settings = {
        "REP_ROBOTSTXT_CACHE": redis_server.url,
        "REP_LEASE_TIMEOUT": 1.5,
        "REP_ROBOTSTXT_TIMEOUT": 60,
        "DOWNLOAD_TIMEOUT": 60,
    }
    urls = [sites.url("slow", p) for p in ("/a", "/x")]
    config = json.dumps({"urls": urls, "settings": settings})
    doomed = subprocess.Popen(
        [sys.executable, str(SUPPORT / "worker.py"), config],
        env=checkout_environment(),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):  # until it asked for robots.txt (at most 15 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if "/robots.txt" in sites.requested("slow"):
                break
        assert sites.requested("slow") == ["/robots.txt"]
        doomed.kill()  # dies holding the lease, mid-download
        doomed.wait(timeout=10)
        result = await run_worker(urls, settings)
    finally:
        if doomed.poll() is None:
            doomed.kill()
        await sites.close()
    assert result["downloaded"] == [sites.url("slow", "/a")]
    assert list(result["dropped"]) == [sites.url("slow", "/x")]
    assert sites.requested("slow").count("/robots.txt") == 2


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_corrupt_records_are_ignored_and_replaced(redis_server: RedisServer) -> None:
    import redis

    sites = Sites()
    sites.add("a").script("/robots.txt", robots(RULES))
    key = f"scrapy_rep:robots:{sites.bases['a']}"
    client = redis.Redis.from_url(redis_server.url)
    client.set(key, b"scrapy_rep/robots\n{not json}\n\x00")
    settings = {"REP_ROBOTSTXT_CACHE": redis_server.url}
    try:
        crawler, spider = await crawl([sites.url("a", "/a"), sites.url("a", "/x")], settings)
    finally:
        await sites.close()
    assert spider.downloaded == [sites.url("a", "/a")]
    assert crawler.stats is not None
    assert crawler.stats.get_value("rep/robotstxt/store_corrupt") == 1
    assert sites.requested("a").count("/robots.txt") == 1
    stored = SharedRecord.decode(client.get(key), sites.bases["a"])  # replaced, valid
    assert zlib.decompress(stored.body_zlib).decode() == RULES
    client.close()


@pytest_twisted.ensureDeferred
async def test_redis_stopped_mid_crawl_the_crawl_goes_on_alone(
    own_redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    sites = Sites()
    names = [f"s{n}" for n in range(6)]
    for name in names:
        sites.add(name).script("/robots.txt", robots(RULES))
    urls = [sites.url(n, p) for n in names for p in ("/a", "/x")]
    stopped: list[str] = []

    def stop_redis(origin: str, **_: Any) -> None:
        if not stopped:
            stopped.append(origin)
            own_redis_server.stop()

    from scrapy.utils.test import get_crawler

    from tests.support.robotsite import BASE_SETTINGS, ListSpider

    crawler = get_crawler(
        ListSpider,
        {**BASE_SETTINGS, "REP_ROBOTSTXT_CACHE": own_redis_server.url, "CONCURRENT_REQUESTS": 2},
    )
    crawler.signals.connect(stop_redis, signal=robotstxt_fetched)
    try:
        await crawler.crawl(urls=urls)
    finally:
        await sites.close()
    spider = crawler.spider
    assert isinstance(spider, ListSpider)
    assert stopped
    assert sorted(spider.downloaded) == sorted(u for u in urls if u.endswith("/a"))
    assert sorted(spider.dropped) == sorted(u for u in urls if u.endswith("/x"))
    assert crawler.stats is not None
    assert crawler.stats.get_value("rep/robotstxt/store_errors") >= 1
    assert "robots.txt cache is unavailable" in caplog.text
    for name in names:
        assert sites.requested(name).count("/robots.txt") == 1


@pytest_twisted.ensureDeferred
async def test_scrapy_redis_a_stopping_worker_returns_its_held_requests(
    redis_server: RedisServer,
) -> None:
    pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed")
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    sites.add("up").script("/robots.txt", robots(RULES))
    settings = {
        "REP_ROBOTSTXT_CACHE": redis_server.url,
        # The second worker follows the shared retry schedule the first one set.
        "REP_UNREACHABLE_RETRY_DELAY": 2,
        "REP_UNREACHABLE_MAX_WAIT": 600,
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,
        "REDIS_URL": redis_server.url,
    }
    held_urls = [sites.url("down", p) for p in ("/1", "/2", "/x")]
    urls = [*held_urls, sites.url("up", "/3")]
    config = json.dumps({"urls": urls, "settings": settings})
    first = subprocess.Popen(
        [sys.executable, str(SUPPORT / "worker.py"), config],
        env=checkout_environment(),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):  # until "up" was crawled and "down" refused (at most 15 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if "/3" in sites.requested("up") and "/robots.txt" in sites.requested("down"):
                break
        await deferLater(reactor, 0.5)  # type: ignore[arg-type]
        first.terminate()  # a graceful stop while three requests are held
        out, _ = first.communicate(timeout=30)
        stopped = json.loads(out.decode().strip().splitlines()[-1])
        down.script("/robots.txt", robots(RULES))  # the site is back
        second = await run_worker(urls, settings)
    finally:
        if first.poll() is None:
            first.kill()
        await sites.close()
    assert stopped["downloaded"] == [sites.url("up", "/3")]
    assert stopped["stats"]["rep/requests/returned_to_queue"] == 3
    # The second worker found them in the shared queue (its own start requests were
    # duplicates for the shared dupefilter): nothing lost.
    assert second["downloaded"] == [sites.url("down", "/1"), sites.url("down", "/2")]
    assert list(second["dropped"]) == [sites.url("down", "/x")]
    # released together, they are downloaded in either order
    assert sorted(p for p in sites.requested("down") if p != "/robots.txt") == ["/1", "/2"]


@pytest_twisted.ensureDeferred
async def test_scrapy_redis_a_worker_stopped_mid_download_reports_no_outage_and_drops_nothing(
    redis_server: RedisServer,
) -> None:
    """A worker stopped while its robots.txt download runs (the second try of an origin
    that answered 503): the download's end is the crawl stopping, not the site's answer.
    Nothing is given up on and said dropped (the 40 held requests go back to the shared
    queue), no failure is shared with the other workers, the lease is let go, and Redis,
    which is up, is never said to be unavailable."""
    pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed")
    import redis

    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503), Reply(503, hang=True))  # the retry hangs
    sites.add("up").script("/robots.txt", robots(RULES))
    settings = {
        "REP_ROBOTSTXT_CACHE": redis_server.url,
        "REP_UNREACHABLE_RETRY_DELAY": 0.3,
        "REP_UNREACHABLE_MAX_WAIT": 1,  # given up on at the first failure after 1 s
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,
        "REDIS_URL": redis_server.url,
    }
    urls = [*(sites.url("down", f"/{n}") for n in range(40)), sites.url("up", "/3")]
    config = json.dumps({"urls": urls, "settings": settings})
    first = subprocess.Popen(
        [sys.executable, str(SUPPORT / "worker.py"), config],
        env=checkout_environment(),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(300):  # until the retry runs (at most 15 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if sites.requested("down").count("/robots.txt") == 2:
                break
        await deferLater(reactor, 1.2)  # type: ignore[arg-type]  # past REP_UNREACHABLE_MAX_WAIT
        first.terminate()  # a graceful stop while the retry runs
        out, err = await deferToThread(first.communicate, timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
        down.answer_hanging()
        await sites.close()
    stopped = json.loads(out.decode().strip().splitlines()[-1])
    log = err.decode()
    assert sites.requested("down").count("/robots.txt") == 2
    assert stopped["stats"]["rep/requests/returned_to_queue"] == 40
    assert "rep/robotstxt/store_errors" not in stopped["stats"]
    assert "cache is unavailable" not in log
    assert "given up on" not in log and "dropped" not in log  # WARNING lines: on stderr
    client = redis.Redis.from_url(redis_server.url)
    origin = sites.url("down", "")
    leases = client.keys(f"scrapy_rep:lease:*{origin.split('//')[1]}*")
    if ASYNC_ENGINE:
        assert leases == []  # let go
    else:  # Scrapy 2.13 stops the worker before the lease is let go: it lapses on its own
        assert all(client.pttl(lease) > 0 for lease in leases), leases
    data = client.get(f"scrapy_rep:robots:{origin}")  # no failure of the stop is shared
    assert data is None or SharedRecord.decode(data, origin).failures <= 1
