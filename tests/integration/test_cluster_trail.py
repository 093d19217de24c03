"""One crawl run by several workers, each writing its own audit trail, checked as one
(docs/audit-trail.md, "Several workers"; docs/deployment.md).

The workers (crawlers of their own in this process, at once or one after the other:
tests/support/workers.py; in processes of their own, tests/support/worker.py, a worker
stopped by a signal and two that take requests from one queue at once) share one
``redis-server`` as the robots.txt store (``REP_ROBOTSTXT_CACHE``) and one scrapy-redis
queue; the local origins they crawl are served by this test process. The trails are then
read with ``python -m scrapy_rep audit``, in this process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.utils.test import get_crawler
from twisted.internet import reactor
from twisted.internet.defer import Deferred, gatherResults
from twisted.internet.task import deferLater

from scrapy_rep.crawl.audit.audit import url_ledger
from tests.support.paths import ROOT, checkout_environment
from tests.support.redisserver import RedisServer
from tests.support.robotsite import (
    BASE_SETTINGS,
    ListSpider,
    Reply,
    Sites,
    crawl,
    paused_once_queued,
    redirect,
    robots,
)
from tests.support.scrapyversions import stop
from tests.support.tools import audit_streams
from tests.support.workers import run_config, run_process, run_worker, worker_command

RULES = "User-agent: *\nDisallow: /private\n"
NAMES = ("a", "b", "c")
PATHS = ("/1", "/2", "/3", "/private/1", "/private/2")


def shared_settings(server: RedisServer) -> dict[str, Any]:
    """One robots.txt store and one scrapy-redis queue for every worker."""
    pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed")
    return {
        "REP_ROBOTSTXT_CACHE": server.url,
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,
        "REDIS_URL": server.url,
        "CONCURRENT_REQUESTS": 2,
        "DOWNLOAD_TIMEOUT": 30,
        "REP_ROBOTSTXT_TIMEOUT": 30,
    }


def records(trail: Path, kind: str = "url", whole: bool = False) -> list[dict[str, Any]]:
    """The ``kind`` lines of ``trail``; ``whole``: of a trail being written (its last line
    may be cut), the whole lines only."""
    text = trail.read_text()
    if whole:
        text = text[: text.rfind("\n") + 1]
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [line for line in lines if line.get("type") == kind]


def several_origins() -> tuple[Sites, list[str]]:
    """Origins with one robots.txt each; pages answer a little late, so that both workers
    take requests from the shared queue while the other is still crawling."""
    sites = Sites()
    for name in NAMES:
        origin = sites.add(name)
        origin.script("/robots.txt", robots(RULES))
        for path in PATHS:
            page = f"<html><body>page {path}</body></html>".encode()
            origin.script(path, Reply(200, page, {"Content-Type": "text/html"}, delay=0.5))
    return sites, [sites.url(n, p) for n in NAMES for p in PATHS]


def check_as_one(trails: list[Path], urls: list[str]) -> list[dict[str, Any]]:
    """The checks of several workers' trails read as one; their url records."""
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 0, out
    assert out.splitlines()[-1] == f"{len(trails)} trails as one: clean", out
    found = [record for trail in trails for record in records(trail)]
    # One final record per requested URL, across the trails.
    assert Counter(r["url"] for r in found) == Counter(urls)
    # The robots.txt each decision was made against is kept by one of the workers.
    folders = [Path(f"{trail}.d") for trail in trails]
    for record in found:
        sha = record["robots"]["snapshot"]
        assert sha, record
        assert any((folder / sha).is_file() for folder in folders), record
        fate = "refused" if "/private/" in record["url"] else "fetched"
        assert record["fate"] == fate, record
    status, out, _ = audit_streams("summary", *map(str, trails))
    assert status == 0, out
    refused = sum("/private/" in url for url in urls)
    counted = f"{len(urls)} requested URL(s) ({len(urls) - refused} fetched, {refused} refused)"
    assert out.startswith(f"{len(trails)} run(s), {counted}, "), out
    return found


@pytest_twisted.ensureDeferred
async def test_two_workers_one_store_their_trails_verify_as_one(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """The URL list split between two workers sharing the robots.txt store: each origin's
    robots.txt is downloaded once, by one worker; the other adopts it from Redis, and its
    records still name a snapshot that verify finds."""
    settings = {"REP_ROBOTSTXT_CACHE": redis_server.url, "DOWNLOAD_TIMEOUT": 30}
    sites, urls = several_origins()
    halves = [urls[0::2], urls[1::2]]  # every origin in both halves
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    try:
        running = [
            Deferred.fromCoroutine(run_worker(half, {**settings, "REP_AUDIT_FILE": str(trail)}))
            for half, trail in zip(halves, trails, strict=True)
        ]
        results = await gatherResults(running)
    finally:
        await sites.close()
    for name in NAMES:
        assert sites.requested(name).count("/robots.txt") == 1, name
    stats = [result["stats"] for result in results]
    assert sum(s.get("rep/robotstxt/store_hits", 0) for s in stats) == len(NAMES)
    found = check_as_one(trails, urls)
    # Each worker decided pages of every origin: the one that did not download an
    # origin's robots.txt read it from the store, and its own folder keeps the snapshot.
    for trail in trails:
        origins = {"/".join(r["url"].split("/")[:3]) for r in records(trail)}
        assert origins == set(sites.bases.values()), trail
        for record in records(trail):
            assert (Path(f"{trail}.d") / record["robots"]["snapshot"]).is_file(), record
    assert len(found) == len(urls)


@pytest_twisted.ensureDeferred
async def test_two_workers_one_queue_one_store_their_trails_verify_as_one(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Both workers given every URL, sharing one scrapy-redis queue and dupefilter: each
    URL is queued once, by one of them, and taken by either. The record goes with the
    request: the worker that takes it writes it (under the id it was queued with), the
    one that queued it does not end it ``unfinished``. Each worker in a process of its
    own: the crawlers of one process share its reactor, and the first to start took every
    request from the queue before the other asked for one (a third of the runs)."""
    settings = shared_settings(redis_server)
    sites, urls = several_origins()
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    try:
        running = [
            Deferred.fromCoroutine(
                run_process({"urls": urls, "settings": {**settings, "REP_AUDIT_FILE": str(trail)}})
            )
            for trail in trails
        ]
        results = await gatherResults(running)
    finally:
        await sites.close()
    for name in NAMES:
        assert sites.requested(name).count("/robots.txt") == 1, name
        pages = [p for p in sites.requested(name) if p != "/robots.txt"]
        assert sorted(pages) == sorted(p for p in PATHS if not p.startswith("/private"))
    downloaded = sorted(u for result in results for u in result["downloaded"])
    assert downloaded == sorted(u for u in urls if "/private" not in u)
    if not all(result["downloaded"] for result in results):
        pytest.skip("one worker took every request from the queue before the other started")
    found = check_as_one(trails, urls)
    for trail, result in zip(trails, results, strict=True):
        fetched = sorted(r["url"] for r in records(trail) if r["fate"] == "fetched")
        assert fetched == result["downloaded"], trail  # each worker wrote what it fetched
    assert not any(r["fate"] == "unfinished" for r in found)


@pytest_twisted.ensureDeferred
async def test_a_killed_workers_urls_finished_by_another_are_events_not_problems(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Worker 1 is killed (SIGKILL) while one page hangs; its URLs are given again to
    worker 2, which reads the robots.txt from the store. Verified as one, each URL that
    both trails finished is a re-queue after a crash (an event); the killed run's
    missing end line is the one problem."""
    settings = {"REP_ROBOTSTXT_CACHE": redis_server.url, "DOWNLOAD_TIMEOUT": 60}
    sites, urls = several_origins()
    hanging = sites.url("c", "/3")
    sites.origins["c"].script("/3", Reply(hang=True), Reply(200, b"<html>3</html>"))
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    doomed = subprocess.Popen(
        [
            sys.executable,
            *worker_command(
                {"urls": urls, "settings": {**settings, "REP_AUDIT_FILE": str(trails[0])}}
            ),
        ],
        env=checkout_environment(),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(1200):  # until every URL but the hanging one is final (at most 60 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if trails[0].exists() and len(records(trails[0], whole=True)) == len(urls) - 1:
                break
        finished = {r["url"] for r in records(trails[0])}
        assert finished == set(urls) - {hanging}
        doomed.kill()  # no end line; the hanging page has no record
        doomed.wait(timeout=30)
        result = await run_worker(urls, {**settings, "REP_AUDIT_FILE": str(trails[1])})
    finally:
        if doomed.poll() is None:
            doomed.kill()
        await sites.close()
    assert hanging in result["downloaded"]
    for name in NAMES:
        assert sites.requested(name).count("/robots.txt") == 1, name
    assert result["stats"].get("rep/robotstxt/store_hits") == len(NAMES)
    status, out, _ = audit_streams("repair", str(trails[0]))  # a kill may cut the last line
    assert status == 0, out
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 1, out
    lines = out.splitlines()
    problems = [line for line in lines if ": line " in line and ": event: " not in line]
    assert len(problems) == 1 and "has no end line" in problems[0], out
    requeued = [line for line in lines if "re-queued after a crash: left open" in line]
    assert len(requeued) == len(finished), out
    assert all(line.startswith(f"{trails[1]}: ") for line in requeued), out
    assert lines[-1] == f"2 trails as one: 1 problem(s), {len(finished)} event(s)", out
    # Every URL has its final record in worker 2's trail, whose snapshots it keeps.
    assert Counter(r["url"] for r in records(trails[1])) == Counter(urls)
    for record in records(trails[1]):
        assert (Path(f"{trails[1]}.d") / record["robots"]["snapshot"]).is_file(), record


@pytest_twisted.ensureDeferred
async def test_held_requests_a_stopping_worker_returns_to_the_queue_are_the_takers(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Worker 1 stops (SIGTERM) while it holds the requests of an origin whose robots.txt
    answers 503; scrapy-redis's queue gets them back and worker 2 finishes them. Their
    records are worker 2's only: verified as one, clean."""
    settings = {
        **shared_settings(redis_server),
        "REP_UNREACHABLE_RETRY_DELAY": 2,
        "REP_UNREACHABLE_MAX_WAIT": 600,
    }
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    sites.add("up").script("/robots.txt", robots(RULES))
    held = [sites.url("down", p) for p in ("/1", "/2", "/private/1")]
    urls = [*held, sites.url("up", "/3")]
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    first = subprocess.Popen(
        [
            sys.executable,
            *worker_command(
                {"urls": urls, "settings": {**settings, "REP_AUDIT_FILE": str(trails[0])}}
            ),
        ],
        env=checkout_environment(),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(1200):  # until "up" was crawled and "down" refused (at most 60 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if "/3" in sites.requested("up") and "/robots.txt" in sites.requested("down"):
                break
        await deferLater(reactor, 0.5)  # type: ignore[arg-type]
        first.terminate()  # a graceful stop while three requests are held
        out, _ = first.communicate(timeout=60)
        stopped = json.loads(out.decode().strip().splitlines()[-1])
        down.script("/robots.txt", robots(RULES))  # the site is back
        second = await run_worker(urls, {**settings, "REP_AUDIT_FILE": str(trails[1])})
    finally:
        if first.poll() is None:
            first.kill()
        await sites.close()
    assert stopped["stats"]["rep/requests/returned_to_queue"] == len(held)
    assert second["downloaded"] == sorted(held[:2])
    # Worker 1 wrote no record of the requests it returned: worker 2 did, once each.
    (end,) = records(trails[0], "end")
    assert end["reason"] == "shutdown" and end["counts"]["left_in_queue"] == len(held)
    assert [r["url"] for r in records(trails[0])] == [sites.url("up", "/3")]
    assert sorted(r["url"] for r in records(trails[1])) == sorted(held)
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 0, out
    assert out.splitlines()[-1] == "2 trails as one: clean", out


@pytest_twisted.ensureDeferred
async def test_a_scrapy_redis_worker_with_jobdir_resumes_its_held_requests(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Scrapy's scheduler metaclass takes scrapy-redis's scheduler for
    its own (``isinstance`` is true), so reading its JOBDIR queue (``dqs``) raised at every
    worker's start and skipped the resume. A worker with ``JOBDIR`` paused while 10
    requests are held keeps them in ``scrapy_rep.state``; the next run of that worker
    resumes and sends each once, each with one final record; no ERROR in either run; and
    ``left_in_queue`` counts none of them (they were kept, not put back in the queue)."""
    settings = {
        **shared_settings(redis_server),
        "REP_UNREACHABLE_RETRY_DELAY": 2,
        "REP_UNREACHABLE_MAX_WAIT": 600,
        "JOBDIR": str(tmp_path / "job"),
    }
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    sites.add("up").script("/robots.txt", robots(RULES))
    held = [sites.url("down", f"/{n}") for n in range(10)]
    urls = [*held, sites.url("up", "/3")]
    trail = tmp_path / "trail.jsonl"
    worker_settings = {**settings, "REP_AUDIT_FILE": str(trail)}
    first = subprocess.Popen(
        [
            sys.executable,
            *worker_command({"urls": urls, "settings": worker_settings, "log": "INFO"}),
        ],
        env=checkout_environment(),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(1200):  # until "up" was crawled and "down" refused (at most 60 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if "/3" in sites.requested("up") and "/robots.txt" in sites.requested("down"):
                break
        await deferLater(reactor, 0.5)  # type: ignore[arg-type]
        first.terminate()  # a pause (JOBDIR) while ten requests are held
        out, err = first.communicate(timeout=60)
        stopped = json.loads(out.decode().strip().splitlines()[-1])
        first_log = err.decode()
        down.script("/robots.txt", robots(RULES))  # the site is back
        second = await run_config({"urls": urls, "settings": worker_settings}, with_log=True)
    finally:
        if first.poll() is None:
            first.kill()
        await sites.close()
    for log in (first_log, second["log"]):
        assert "Error caught on signal handler" not in log, log[-3000:]
        assert " ERROR: " not in log, log[-3000:]
    assert stopped["stats"]["rep/requests/kept_for_resume"] == len(held)
    assert "rep/requests/returned_to_queue" not in stopped["stats"]
    assert second["stats"].get("rep/requests/resumed") == len(held), second["log"][-6000:]
    assert second["downloaded"] == sorted(held)
    # Each sent once in all.
    assert Counter(p for p in sites.requested("down") if p != "/robots.txt") == Counter(
        f"/{n}" for n in range(10)
    )
    ends = records(trail, "end")
    assert [end["reason"] for end in ends] == ["shutdown", "finished"]
    assert all(end["counts"].get("left_in_queue", 0) == 0 for end in ends), ends
    finals = [r for r in records(trail) if r["url"] in held]
    assert Counter(r["url"] for r in finals) == Counter(held)
    assert {r["fate"] for r in finals} == {"fetched"}
    status, out, _ = audit_streams("verify", str(trail))
    assert status == 0, out


class StartUrlsSpider(ListSpider):
    """ListSpider whose start requests are sent as Scrapy's ``start_urls`` are
    (``dont_filter=True``): every worker queues each of them, the dupefilter does not
    drop the second."""

    async def start(self) -> Any:
        for url in self.urls:
            yield Request(url, callback=self.parse, errback=self.failed, dont_filter=True)


async def held(crawler: Crawler, sites: Sites) -> None:
    """Until ``crawler`` holds a request and the origin ``down`` was asked its robots.txt
    (at most 30 s)."""
    assert crawler.stats is not None
    for _ in range(600):
        await deferLater(reactor, 0.05)  # type: ignore[arg-type]
        if "/robots.txt" in sites.requested("down") and crawler.stats.get_value(
            "rep/requests/held"
        ):
            break
    assert crawler.stats.get_value("rep/requests/held") == 1


@pytest_twisted.ensureDeferred
async def test_two_workers_requests_of_one_url_each_have_a_record_under_an_id_of_its_own(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Worker 1 stops while it holds its start URL (its robots.txt answers 503) and
    returns it to the shared queue; worker 2, with a trail of its own, queues the same
    start URL again (``dont_filter``), under the same id (each worker numbers its own
    requests: both from 1), and takes what the queue kept. The record of the one it
    takes second is not the first one's (it was written twice under that id, or once for
    both downloads): each download has its own record, under its own id, and the trails
    verify as one, clean."""
    settings = {
        **shared_settings(redis_server),
        "REP_UNREACHABLE_RETRY_DELAY": 2,  # the shared schedule worker 2 follows
        "REP_UNREACHABLE_MAX_WAIT": 600,
        # a list: scrapy-redis's default queue, a sorted set, keeps one of two requests
        # whose every byte is the same (the two, held and released under one record, were)
        "SCHEDULER_QUEUE_CLASS": "scrapy_redis.queue.FifoQueue",
    }
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    url = sites.url("down", "/1")
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    first = get_crawler(
        StartUrlsSpider, {**BASE_SETTINGS, **settings, "REP_AUDIT_FILE": str(trails[0])}
    )
    try:
        running = first.crawl(urls=[url])
        await held(first, sites)
        await deferLater(reactor, 0.3)  # type: ignore[arg-type]  # the 503 is read
        await stop(first)
        await running
        down.script("/robots.txt", robots(RULES))  # the site is back
        _, spider = await crawl(
            [url], {**settings, "REP_AUDIT_FILE": str(trails[1])}, StartUrlsSpider
        )
    finally:
        await sites.close()
    assert first.stats is not None
    assert first.stats.get_value("rep/requests/returned_to_queue") == 1
    assert spider.downloaded == [url, url]  # the request worker 1 returned, and its own
    (end,) = records(trails[0], "end")
    assert end["counts"]["left_in_queue"] == 1 and records(trails[0]) == []
    found = records(trails[1])
    assert [(r["url"], r["fate"]) for r in found] == [(url, "fetched"), (url, "fetched")]
    assert len({r["id"] for r in found}) == 2, found
    # The later record names the earlier in `again` (the trail knows it: the URL was
    # first sent with dont_filter), and the end line counts it as repeated.
    first, later = sorted(found, key=lambda r: int(r["id"].rpartition("-")[2]))
    assert "again" not in first and later.get("again") == first["id"], found
    (end,) = records(trails[1], "end")
    assert end["counts"]["renumbered"] == 1 and end["counts"]["repeated"] == 1, end
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 0, out
    assert out.splitlines()[-1] == "2 trails as one: clean", out


@pytest_twisted.ensureDeferred
async def test_a_worker_takes_a_request_another_worker_numbered_as_one_it_finished(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Two workers each number their requests from 1. Worker 1 holds its start URL as its
    request 1 (its robots.txt answered 503); worker 2 fetches the same start URL as its own
    request 1 and writes its record; then, while a slow page keeps worker 2 crawling,
    worker 1 stops and returns its request 1 to the shared queue, and worker 2 takes it
    and fetches the URL again. That download has a record of its own, under the next
    number of worker 2's own (``audit verify`` found "a second final record for the same
    request id" in worker 2's trail)."""
    settings = {
        **shared_settings(redis_server),
        "REP_UNREACHABLE_RETRY_DELAY": 600,
        "REP_UNREACHABLE_MAX_WAIT": 600,
        "SCHEDULER_QUEUE_CLASS": "scrapy_redis.queue.FifoQueue",
    }
    del settings["REP_ROBOTSTXT_CACHE"]  # each reads it: worker 1 the 503, worker 2 the rules
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503), robots(RULES))
    page = Reply(200, b"<html><body>slow</body></html>", {"Content-Type": "text/html"}, delay=3)
    sites.add("slow").script("/1", page)
    url, slow = sites.url("down", "/1"), sites.url("slow", "/1")
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    first, second = (
        get_crawler(StartUrlsSpider, {**BASE_SETTINGS, **settings, "REP_AUDIT_FILE": str(trail)})
        for trail in trails
    )
    try:
        running = [first.crawl(urls=[url])]
        await held(first, sites)
        running.append(second.crawl(urls=[url, slow]))
        for _ in range(600):  # until worker 2 fetched the URL (at most 30 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if url in getattr(second.spider, "downloaded", ()):
                break
        await deferLater(reactor, 0.2)  # type: ignore[arg-type]  # its record is written
        assert len(records(trails[1], whole=True)) == 1
        await stop(first)
        for run in running:
            await run
    finally:
        await sites.close()
    assert first.stats is not None
    assert first.stats.get_value("rep/requests/returned_to_queue") == 1
    assert second.spider.downloaded == [url, slow, url]
    found = records(trails[1])
    assert Counter((r["url"], r["fate"]) for r in found) == {
        (url, "fetched"): 2, (slow, "fetched"): 1
    }  # fmt: skip
    assert [r["id"].rpartition("-")[2] for r in found if r["url"] == url] == ["1", "3"]
    # The download under the new number names worker 2's own earlier one (a start URL,
    # sent with dont_filter: the trail knows its id), as any URL sent again does.
    own, renumbered = (r for r in found if r["url"] == url)
    assert "again" not in own and renumbered["again"] == own["id"], found
    (end,) = records(trails[1], "end")
    assert end["counts"]["renumbered"] == 1 and end["last_request"] == 3
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 0, out
    assert out.splitlines()[-1] == "2 trails as one: clean", out


@pytest_twisted.ensureDeferred
async def test_a_request_taken_under_the_id_it_was_queued_with_counts_in_last_request(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Worker 1 numbers five pages it fetches, then its held start URL (6); it stops and
    returns that one to the queue, and worker 2, which numbered one request of its own and
    still crawls a slow page, takes it. Its number is past every number of worker 2's
    trail: the record keeps the id it was queued with, and worker 2's end line's
    ``last_request`` counts it (a crawl appending to the trail later numbers past it: an
    id stays the trail's alone)."""
    settings = {
        **shared_settings(redis_server),
        "REP_UNREACHABLE_RETRY_DELAY": 600,
        "REP_UNREACHABLE_MAX_WAIT": 600,
    }
    del settings["REP_ROBOTSTXT_CACHE"]  # each reads it: worker 1 the 503, worker 2 the rules
    sites = Sites()
    sites.add("down").script("/robots.txt", Reply(503), robots(RULES))
    sites.add("up")
    page = Reply(200, b"<html><body>slow</body></html>", {"Content-Type": "text/html"}, delay=3)
    sites.add("slow").script("/1", page)
    url, slow = sites.url("down", "/1"), sites.url("slow", "/1")
    pages = [sites.url("up", f"/{n}") for n in range(5)]
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    first, second = (
        get_crawler(ListSpider, {**BASE_SETTINGS, **settings, "REP_AUDIT_FILE": str(trail)})
        for trail in trails
    )
    try:
        running = [first.crawl(urls=[*pages, url])]
        for _ in range(600):  # until worker 1 fetched the five pages (at most 30 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if len(records(trails[0], whole=True)) == len(pages):
                break
        assert sites.requested("down") == ["/robots.txt"]  # its start URL held: a 503
        running.append(second.crawl(urls=[slow]))
        for _ in range(600):  # until worker 2 asked for the slow page (at most 30 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if "/1" in sites.requested("slow"):
                break
        await stop(first)
        for run in running:
            await run
    finally:
        await sites.close()
    assert sorted(first.spider.downloaded) == sorted(pages)
    assert second.spider.downloaded == [slow, url]
    taken, own = (next(r for r in records(trails[1]) if r["url"] == u) for u in (url, slow))
    assert own["id"].endswith("-1") and taken["id"].endswith("-6")
    (end,) = records(trails[1], "end")
    assert end["last_request"] == 6 and "renumbered" not in end["counts"]
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 0, out


@pytest_twisted.ensureDeferred
async def test_two_workers_start_requests_of_a_url_numbered_alike_stay_one_in_the_queue(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Worker 1 queues its start URL (``dont_filter``) as its request 1 and stops before
    it takes it; worker 2 queues the same start URL as its own request 1. Numbered alike,
    the two requests are the same byte for byte, and scrapy-redis's default queue, a
    sorted set, keeps one, as it does without the audit trail: the URL is downloaded
    once and has one record, worker 2's, under that id. The trail does not change what
    the crawl downloads (ids the workers took from one shared counter would make the
    two requests differ: one download more per worker), as long as the workers number
    them alike (see the test of the limit that follows from it: ``test_limit_start_
    requests_numbered_otherwise_are_two_in_the_sorted_set_queue``)."""
    settings = shared_settings(redis_server)
    sites = Sites()
    sites.add("site").script("/robots.txt", robots(RULES))
    url = sites.url("site", "/1")
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    try:
        await _queued_by_a_worker_that_takes_none(settings, url, trails[0])
        _, spider = await crawl(
            [url], {**settings, "REP_AUDIT_FILE": str(trails[1])}, StartUrlsSpider
        )
    finally:
        await sites.close()
    assert spider.downloaded == [url]
    assert sites.requested("site").count("/1") == 1
    (end,) = records(trails[0], "end")
    assert end["counts"]["left_in_queue"] == 1 and records(trails[0]) == []
    (record,) = records(trails[1])
    assert record["url"] == url and record["id"].endswith("-1")
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 0, out
    assert out.splitlines()[-1] == "2 trails as one: clean", out


async def _queued_by_a_worker_that_takes_none(
    settings: dict[str, Any], url: str, trail: Path
) -> None:
    """A worker with ``settings`` and its trail at ``trail`` queues ``url``, its start
    request, in the shared queue and takes none (paused as it opens); stopped once it is
    queued."""
    first = get_crawler(
        StartUrlsSpider, {**BASE_SETTINGS, **settings, "REP_AUDIT_FILE": str(trail)}
    )

    def pause(**_: Any) -> None:
        assert first.engine is not None
        first.engine.pause()

    first.signals.connect(pause, signal=signals.spider_opened, weak=False)
    running = first.crawl(urls=[url])
    assert first.stats is not None
    for _ in range(600):  # until its start request is queued (at most 30 s)
        await deferLater(reactor, 0.05)  # type: ignore[arg-type]
        if first.stats.get_value("scheduler/enqueued/redis"):
            break
    await stop(first)
    await running


class FetchesItselfSpider(StartUrlsSpider):
    """Each page's callback downloads :attr:`OWN` itself through the engine (neither
    scheduled nor taken from the shared queue), then yields one item."""

    OWN = ""

    async def parse(self, response: Any, **_: Any) -> Any:
        request = Request(self.OWN, dont_filter=True)
        engine = self.crawler.engine
        if hasattr(engine, "download_async"):
            await engine.download_async(request)
        else:
            from scrapy.utils.defer import maybe_deferred_to_future

            await maybe_deferred_to_future(engine.download(request))
        yield {"url": response.url}


@pytest_twisted.ensureDeferred
async def test_a_worker_stopped_during_a_callbacks_own_download_writes_its_record(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """A request the engine downloads for a callback never goes through the shared queue:
    a worker stopped while it is in flight leaves it to no other worker (Scrapy's
    graceful stop waits for it). Its record is this worker's to end (never counted
    ``left_in_queue`` and left unwritten), and the trail verifies."""
    sites = Sites()
    site = sites.add("a")
    site.script("/1", Reply(200, b"<html></html>", {"Content-Type": "text/html"}))
    site.script("/slow", Reply(200, b"late", {"Content-Type": "text/plain"}, delay=3))
    FetchesItselfSpider.OWN = sites.url("a", "/slow")
    trail = tmp_path / "w1.jsonl"
    crawler = get_crawler(
        FetchesItselfSpider,
        {**BASE_SETTINGS, **shared_settings(redis_server), "REP_AUDIT_FILE": str(trail)},
    )
    try:
        running = crawler.crawl(urls=[sites.url("a", "/1")])
        for _ in range(600):  # until the callback's own download is sent (at most 30 s)
            await deferLater(reactor, 0.05)  # type: ignore[arg-type]
            if "/slow" in sites.requested("a"):
                break
        assert "/slow" in sites.requested("a")
        await stop(crawler)
        await running
    finally:
        await sites.close()
    (end,) = records(trail, "end")
    assert end["counts"].get("left_in_queue", 0) == 0, end
    found = {r["url"]: r for r in records(trail)}
    assert set(found) == {sites.url("a", "/1"), sites.url("a", "/slow")}, found
    status, out, _ = audit_streams("verify", str(trail))
    assert status == 0, out


@pytest_twisted.ensureDeferred
async def test_a_worker_keeps_no_id_of_the_requests_it_took_once_their_records_are_final(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """The ids of the records whose request this worker took from the shared queue (or
    holds) are kept while the record is open, not for the whole crawl: memory is one
    small entry per record not yet final (docs/audit-trail.md, "Memory"), not one per
    request the worker ever took."""
    sites = Sites()
    sites.add("site").script("/robots.txt", robots(RULES))
    sites.add("down").script("/robots.txt", Reply(503))  # held, then refused
    urls = [sites.url("site", f"/{n}") for n in range(20)]
    held = [sites.url("down", f"/{n}") for n in range(3)]
    trail = tmp_path / "w1.jsonl"
    settings = {
        **shared_settings(redis_server),
        "REP_AUDIT_FILE": str(trail),
        "REP_UNREACHABLE_MAX_WAIT": 1,
    }
    try:
        crawler, spider = await crawl([*urls, *held], settings)
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(urls)
    fates = Counter(r["fate"] for r in records(trail))
    assert fates == {"fetched": len(urls), "refused": len(held)}, fates
    ledger = url_ledger(crawler)
    assert ledger.open == {}
    assert ledger._taken == set() and ledger._holding == set()


@pytest.mark.parametrize(
    "queue", ["scrapy_redis.queue.FifoQueue", "scrapy_redis.queue.PriorityQueue"]
)
@pytest_twisted.ensureDeferred
async def test_three_workers_retries_and_redirects_taken_by_one_another(
    redis_server: RedisServer, tmp_path: Path, queue: str
) -> None:
    """Three workers given the same URLs at once: pages answered 503 twice before a 200
    (Scrapy's retries, sent with ``dont_filter``, go back to the shared queue and any
    worker takes them), redirects (the next URL is queued by one worker and taken by
    any). Each download of a page has one final record across the trails, each redirect
    one ``redirected`` record; a retried request is one request wherever its copies
    went (no ``again``, nothing ``repeated``); the trails verify as one, clean, and
    ``summary`` counts what was downloaded."""
    settings = {
        **shared_settings(redis_server),
        "SCHEDULER_QUEUE_CLASS": queue,
        "CONCURRENT_REQUESTS": 3,
        "RETRY_ENABLED": True,
        "RETRY_TIMES": 3,
    }
    page = Reply(200, b"<html><body>p</body></html>", {"Content-Type": "text/html"}, delay=0.2)
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots(RULES))
    urls = []
    for n in range(6):
        site.script(f"/r{n}", Reply(503, delay=0.1), Reply(503, delay=0.1), page)
        site.script(f"/x{n}", redirect(f"/y{n}", 302))
        site.script(f"/y{n}", page)
        site.script(f"/p{n}", page)
        urls += [sites.url("a", f"/{kind}{n}") for kind in "rxp"]
    trails = [tmp_path / f"w{n}.jsonl" for n in range(3)]
    crawlers = [
        get_crawler(ListSpider, {**BASE_SETTINGS, **settings, "REP_AUDIT_FILE": str(trail)})
        for trail in trails
    ]
    try:
        await gatherResults([crawler.crawl(urls=urls) for crawler in crawlers])
    finally:
        await sites.close()
    downloaded = Counter(url for crawler in crawlers for url in crawler.spider.downloaded)
    assert downloaded == Counter(url.replace("/x", "/y") for url in urls)  # each page once
    found = [record for trail in trails for record in records(trail)]
    assert Counter(r["url"] for r in found if r["fate"] == "fetched") == downloaded
    assert sorted(r["url"] for r in found if r["fate"] == "redirected") == sorted(
        url for url in urls if "/x" in url
    )
    assert len(found) == len(downloaded) + len(urls) // 3
    for trail in trails:
        ids = [r["id"] for r in records(trail)]
        assert len(ids) == len(set(ids)), trail
    assert not [r for r in found if "again" in r], found
    ends = [end for trail in trails for end in records(trail, "end")]
    assert not [end for end in ends if end["counts"].get("repeated")], ends
    # Every download tried is counted in its record's attempts (the 503s of a retried
    # request too, whichever worker sent them).
    sent = Counter(path for path in sites.requested("a") if path != "/robots.txt")
    assert sum(r["attempts"] for r in found) == sum(sent.values())
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 0, out
    assert out.splitlines()[-1] == "3 trails as one: clean", out
    status, out, _ = audit_streams("summary", *map(str, trails))
    assert status == 0, out
    assert out.startswith("3 run(s), 24 requested URL(s) (18 fetched, 6 redirected), "), out
    status, out, _ = audit_streams("list", *map(str, trails), "--fate", "fetched")
    assert status == 0, out
    assert out.splitlines()[-1] == "18 record(s)", out
    status, out, _ = audit_streams("show", *map(str, trails), sites.url("a", "/r0"))
    assert status == 0, out
    # one download, told once, in one trail, with its three tries wherever they were sent
    assert out.count(" was fetched (3 attempts, HTTP 200)") == 1, out
    assert out.count(" was ") == 1, out


@pytest_twisted.ensureDeferred
async def test_limit_two_workers_that_each_download_a_start_url_are_not_verified_clean(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Limit (docs/audit-trail.md, "Limits"): worker 1 downloads its start URL (sent with
    ``dont_filter``, as Scrapy's ``start_urls`` are) and ends; worker 2, sharing its
    queue, downloads the same start URL again, as scrapy-redis does without the trail.
    Two downloads, one record each, each trail clean on its own; read as one, the
    second is "a second final record of this URL": worker 2 cannot know the id of worker
    1's record to name it in ``again``."""
    settings = shared_settings(redis_server)
    sites = Sites()
    sites.add("site").script("/robots.txt", robots(RULES))
    url = sites.url("site", "/1")
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    try:
        for trail in trails:
            await crawl([url], {**settings, "REP_AUDIT_FILE": str(trail)}, StartUrlsSpider)
    finally:
        await sites.close()
    assert sites.requested("site").count("/1") == 2
    assert [[r["url"] for r in records(trail)] for trail in trails] == [[url], [url]]
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 1, out
    lines = out.splitlines()
    assert [line.rpartition(": ")[0] for line in lines if ": clean: " in line] == [
        f"{trail}: clean" for trail in trails
    ], out
    assert f"{trails[1]}: line 3: {url}: a second final record of this URL" in out, out
    assert lines[-1] == "2 trails as one: 1 problem(s)", out


@pytest_twisted.ensureDeferred
async def test_limit_start_requests_numbered_otherwise_are_two_in_the_sorted_set_queue(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Limit (docs/audit-trail.md, "Limits"): as in
    :func:`test_two_workers_start_requests_of_a_url_numbered_alike_stay_one_in_the_queue`,
    but worker 2's trail holds an earlier crawl of two requests, so it numbers its start
    request 3 where worker 1 numbered its own 1: the two requests differ by their record
    id, scrapy-redis's sorted set keeps both, and the URL is downloaded twice (without
    the trail, or with trails numbered alike, once)."""
    settings = shared_settings(redis_server)
    sites = Sites()
    sites.add("site").script("/robots.txt", robots(RULES))
    url = sites.url("site", "/1")
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    earlier = [sites.url("site", f"/earlier{n}") for n in range(2)]
    try:
        await crawl(earlier, {"REP_AUDIT_FILE": str(trails[1])})  # no shared queue
        await _queued_by_a_worker_that_takes_none(settings, url, trails[0])
        _, spider = await crawl(
            [url], {**settings, "REP_AUDIT_FILE": str(trails[1])}, StartUrlsSpider
        )
    finally:
        await sites.close()
    assert spider.downloaded == [url, url]
    assert sites.requested("site").count("/1") == 2
    found = [r for r in records(trails[1]) if r["url"] == url]
    assert sorted(r["id"].rpartition("-")[2] for r in found) == ["3", "4"], found
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 0, out


async def _paused_with_its_requests_queued(
    settings: dict[str, Any], urls: list[str], trail: Path
) -> None:
    """A worker with ``settings`` (``JOBDIR``) and its trail at ``trail`` queues ``urls`` in
    the shared queue and takes none (paused as it opens); paused once they are queued."""
    await paused_once_queued(
        {**BASE_SETTINGS, **settings, "REP_AUDIT_FILE": str(trail)}, urls, "redis"
    )


@pytest.mark.usefixtures("both_modes")
@pytest.mark.parametrize("taker", ["another worker", "itself, resumed"])
@pytest_twisted.ensureDeferred
async def test_a_request_a_paused_worker_left_in_the_queue_is_counted_once_in_its_crawl(
    redis_server: RedisServer, tmp_path: Path, taker: str
) -> None:
    """A worker with ``JOBDIR`` queues six requests and is paused before it takes any. Its
    paused run counts them ``left_in_queue``; the run that resumes it queues nothing (its
    start requests are duplicates) and counts none of them again (it counted the six
    again: twelve for six requests). Taken by another worker, their records are that
    worker's; taken back by the resumed worker, they keep their ids (no renumbering), and
    its end line counts them ``taken_back``.
    Either way every request has one final record and the trails verify as one."""
    settings = {**shared_settings(redis_server), "JOBDIR": str(tmp_path / "job")}
    sites = Sites()
    sites.add("site").script("/robots.txt", robots(RULES))
    urls = [sites.url("site", f"/{n}") for n in range(6)]
    trails = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    try:
        await _paused_with_its_requests_queued(settings, urls, trails[0])
        if taker == "another worker":
            without_jobdir = {k: v for k, v in settings.items() if k != "JOBDIR"}
            await crawl(urls, {**without_jobdir, "REP_AUDIT_FILE": str(trails[1])})
        crawler, _ = await crawl(urls, {**settings, "REP_AUDIT_FILE": str(trails[0])})
    finally:
        await sites.close()
    assert crawler.stats is not None
    assert crawler.stats.get_value("rep/audit/duplicates_dropped") == len(urls)  # queued none
    paused, resumed = records(trails[0], "end")
    assert paused["reason"] == "shutdown" and paused["counts"]["left_in_queue"] == len(urls)
    assert resumed["reason"] == "finished" and "left_in_queue" not in resumed["counts"], resumed
    written = [tr for tr in trails if tr.exists()]
    found = [record for trail in written for record in records(trail)]
    assert Counter(r["url"] for r in found) == Counter(urls)
    if taker == "itself, resumed":  # counted left, then taken back: none left in all
        assert records(trails[0]) == found and "renumbered" not in resumed["counts"]
        assert resumed["counts"]["taken_back"] == len(urls)
        queued = {f"{i}" for i in range(1, len(urls) + 1)}
        assert {r["id"].rpartition("-")[2] for r in found} == queued
    else:
        assert "taken_back" not in resumed["counts"]
    status, out, _ = audit_streams("verify", *map(str, written))
    assert status == 0, out


async def _stopped_once_held(settings: dict[str, Any], trail: Path, sites: Sites) -> None:
    """A worker with ``settings``, its trail at ``trail`` and no URL of its own, stopped (as
    a first Ctrl-C stops it) once it holds a request it took for ``down`` (on the reactor,
    or without one, as the test's mode runs crawls)."""
    from tests.support.loopcrawl import crawl_without_reactor
    from tests.support.robotsite import CrawlMode

    settings = {**settings, "REP_AUDIT_FILE": str(trail)}
    if CrawlMode.reactorless:
        down = sites.url("down", "")
        await crawl_without_reactor([], settings, ListSpider, stop_when_held=(down, 1))
        return
    worker = get_crawler(ListSpider, {**BASE_SETTINGS, **settings})
    running = worker.crawl(urls=[])
    await held(worker, sites)
    await stop(worker)
    await running


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_worker_that_queued_nothing_counts_nothing_left_in_the_queue(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Worker 1 queues a URL and takes none (its end line counts it ``left_in_queue``);
    worker 2, which queues nothing of its own, takes it, holds it (its robots.txt answers
    503) and is stopped: it puts it back in the shared queue, and its end line counted it
    ``left_in_queue`` too, one request counted by two workers. Worker 3 takes it and
    records it. A request is counted left by the worker that queued it alone: worker 2's
    end line counts none."""
    settings = {**shared_settings(redis_server), "REP_UNREACHABLE_MAX_WAIT": 600}
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    url = sites.url("down", "/1")
    trails = [tmp_path / f"w{n}.jsonl" for n in (1, 2, 3)]
    try:
        await _queued_by_a_worker_that_takes_none(settings, url, trails[0])
        await _stopped_once_held(settings, trails[1], sites)
        down.script("/robots.txt", robots(RULES))  # the site is back
        _, spider = await crawl([], {**settings, "REP_AUDIT_FILE": str(trails[2])})
    finally:
        await sites.close()
    assert spider.downloaded == [url]
    counted = [records(trail, "end")[0]["counts"].get("left_in_queue", 0) for trail in trails]
    assert counted == [1, 0, 0], counted
    assert [len(records(trail)) for trail in trails] == [0, 0, 1]
    status, out, _ = audit_streams("verify", *map(str, trails))
    assert status == 0, out
