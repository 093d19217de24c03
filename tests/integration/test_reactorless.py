"""Crawls without a Twisted reactor (``TWISTED_REACTOR_ENABLED = False``, Scrapy 2.15):
the add-on's timers and threads run on the asyncio loop (docs/installation.md). The
chosen integration crawls run in both modes through the ``both_modes`` fixture; these
are the cases seen failing without a reactor, each crawled on an asyncio loop in a thread
of this process (tests/support/loopcrawl.py). What only a process shows is tested in one:
``scrapy crawl`` as a user types it, and a process where the reactor cannot be imported
at all."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import pytest_twisted
from twisted.internet.defer import Deferred, DeferredList

from tests.support.demoreport import PORTS, documented_report
from tests.support.loopcrawl import crawl_without_reactor
from tests.support.paths import EXAMPLE_PROJECT, checkout_environment
from tests.support.redisserver import RedisServer
from tests.support.robotsite import ListSpider, Reply, Sites, paths_of, robots
from tests.support.scrapyproject import make_project, scrapy_crawl
from tests.support.scrapyversions import needs_no_reactor

pytestmark = needs_no_reactor()


@pytest_twisted.ensureDeferred
async def test_without_a_reactor_a_503_robotstxt_is_held_retried_and_then_obeyed() -> None:
    """robots.txt 503 twice (``Retry-After: 1``), then 200 with a Disallow: the
    requests are held, robots.txt is fetched three times, the disallowed page refused,
    the others fetched, and not one ERROR line (before the add-on ran its timers on the
    asyncio loop: one attempt, never retried, and an error flood)."""
    sites = Sites()
    busy = Reply(503, b"<html>maintenance</html>", {"Retry-After": "1"})
    sites.add("a").script("/robots.txt", busy, busy, robots("User-agent: *\nDisallow: /x\n"))
    try:
        done = await crawl_without_reactor(
            [sites.url("a", p) for p in ("/", "/x", "/y")], {}, ListSpider
        )
    finally:
        await sites.close()
    crawler, spider = done.crawler, done.spider
    assert paths_of(sites, spider.downloaded) == {"/", "/y"}
    robots_url = sites.url("a", "/robots.txt")
    assert spider.dropped == {
        sites.url("a", "/x"): f"Forbidden by {robots_url} (line 2: Disallow: /x)"
    }
    assert sites.requested("a").count("/robots.txt") == 3
    assert crawler.stats.get_value("rep/robotstxt/retries") == 2
    assert crawler.stats.get_value("rep/requests/held") >= 1
    assert crawler.stats.get_value("rep/requests/held") == crawler.stats.get_value(
        "rep/requests/released"
    )
    assert [line for line in done.log if line.startswith(("ERROR", "CRITICAL"))] == []
    assert crawler.stats.get_value("log_count/ERROR") is None


@pytest_twisted.ensureDeferred
async def test_without_a_reactor_a_jobdir_pause_keeps_the_held_requests_for_the_resume(
    tmp_path: Path,
) -> None:
    """The crawl is paused (stopped as by Ctrl-C) while three requests are held for a
    robots.txt that answers 503; the resumed crawl, the site back, decides them, and the
    robots.txt cached in ``JOBDIR`` for the other origin is not downloaded again (the
    reactor's case: test_robotstxt.py's ``test_spec4_jobdir_pause_…``)."""
    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    sites.add("up").script("/robots.txt", robots("User-agent: *\nDisallow: /x\n"))
    urls = [sites.url("down", p) for p in ("/1", "/2", "/x")] + [sites.url("up", "/3")]
    settings = {"JOBDIR": str(tmp_path), "REP_UNREACHABLE_MAX_WAIT": 600}
    try:
        first = await crawl_without_reactor(
            urls, settings, ListSpider, stop_when_held=(sites.bases["down"], 3)
        )
        assert first.crawler.stats.get_value("finish_reason") == "shutdown"
        assert first.crawler.stats.get_value("rep/requests/dropped/spider_closed") is None
        down.script("/robots.txt", robots("User-agent: *\nDisallow: /x\n"))  # back
        second = await crawl_without_reactor(urls, settings, ListSpider)
    finally:
        await sites.close()
    second_spider = second.spider
    downloaded = [*first.spider.downloaded, *second_spider.downloaded]
    assert sorted(downloaded) == sorted(
        [sites.url("down", "/1"), sites.url("down", "/2"), sites.url("up", "/3")]
    )
    assert second_spider.dropped == {
        sites.url("down", "/x"): f"Forbidden by {sites.url('down', '/robots.txt')} "
        "(line 2: Disallow: /x)"
    }
    assert sites.requested("up").count("/robots.txt") == 1
    assert second.crawler.stats.get_value("rep/requests/resumed") >= 3
    for crawled in (first, second):
        assert [line for line in crawled.log if line.startswith("ERROR")] == []


def test_without_a_reactor_the_demo_crawl_prints_the_documented_report() -> None:
    """``scrapy crawl demo -s TWISTED_REACTOR_ENABLED=False`` in the example project, as
    a user runs it: the demo site served on the asyncio loop, the flaky origin's 503 held
    and retried, no ERROR, and the report docs/demo.md shows (when the preferred ports
    were free; else its closing line)."""
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "demo", "-s", "TWISTED_REACTOR_ENABLED=False"],
        cwd=EXAMPLE_PROJECT,
        env=checkout_environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stderr
    assert "'TWISTED_REACTOR_ENABLED': 'False'" in log  # the overridden settings
    assert " ERROR: " not in log and "Traceback" not in log, log[-3000:]
    start = log.index("\nscrapy_rep report\n") + 1
    end = log.index("\n", log.index("In short: ", start)) + 1
    printed, documented = log[start:end], documented_report()
    started = re.search(r"demo site started: (.*)", done.stderr)
    assert started is not None
    if started.group(1) == ", ".join(f"http://127.0.0.1:{port}" for port in PORTS):
        assert printed == documented
    else:  # a preferred port was busy (another demo ran): the same closing line
        assert printed.splitlines()[-1] == documented.splitlines()[-1]


def test_without_a_reactor_a_part_that_needs_one_stops_the_crawl_at_start(
    tmp_path: Path,
) -> None:
    """scrapy-redis's item pipeline writes each item in Twisted's thread pool, whose
    import a crawl without a reactor forbids (one ERROR per item): the crawl does not
    start, and says why in one line naming the setting and the part."""
    pytest.importorskip("scrapy_redis")
    project = make_project(
        tmp_path, 'ITEM_PIPELINES = {"scrapy_redis.pipelines.RedisPipeline": 300}'
    )
    crawl = scrapy_crawl(project, "-s", "TWISTED_REACTOR_ENABLED=False")
    assert crawl.status == 2, crawl.stderr[-2000:]
    assert crawl.error_lines() == [
        "scrapy_rep: error: ITEM_PIPELINES: scrapy_redis.pipelines.RedisPipeline needs a "
        "Twisted reactor (it writes each item in Twisted's thread pool (deferToThread)), "
        "and TWISTED_REACTOR_ENABLED = False runs the crawl without one: take it out, or "
        "crawl with the reactor"
    ]
    assert "Traceback" not in crawl.stderr
    with_reactor = scrapy_crawl(project)  # the same project starts on the reactor
    assert with_reactor.status == 0 and with_reactor.error_lines() == [], with_reactor.stderr


@pytest_twisted.ensureDeferred
async def test_without_a_reactor_two_workers_retry_a_503_on_one_schedule_through_redis(
    redis_server: RedisServer,
) -> None:
    """Two crawls without a reactor share robots.txt through Redis (its asyncio client on
    their loops): a robots.txt that answers 503 twice is downloaded three times in all,
    not three times each (the reactor's case: test_shared_cache.py)."""
    sites = Sites()
    rules = robots("User-agent: *\nDisallow: /x\n")
    sites.add("flaky").script("/robots.txt", Reply(503), Reply(503), rules)
    settings = {"REP_ROBOTSTXT_CACHE": redis_server.url, "REP_UNREACHABLE_RETRY_DELAY": 0.5}
    urls = [sites.url("flaky", p) for p in ("/a", "/x")]
    try:
        results = await DeferredList(
            [
                Deferred.fromCoroutine(crawl_without_reactor(urls, settings, ListSpider))
                for _ in range(2)
            ],
            fireOnOneErrback=True,
            consumeErrors=True,
        )
    finally:
        await sites.close()
    assert sites.requested("flaky").count("/robots.txt") == 3
    for _, done in results:
        assert done.spider.downloaded == [sites.url("flaky", "/a")]
        assert list(done.spider.dropped) == [sites.url("flaky", "/x")]
        assert done.crawler.stats.get_value("log_count/ERROR") is None


def test_without_a_reactor_timers_and_threads_run_on_the_loop_and_import_no_reactor() -> None:
    """In a process where importing Twisted's reactor is forbidden (Scrapy's hook for a
    crawl without one), ``call_later`` and ``in_thread`` (scrapy_rep/crawl/internals.py)
    run on the asyncio loop; tests/crawl/test_internals_loop.py has them in both modes."""
    script = textwrap.dedent(
        """
        import asyncio, threading
        from scrapy.utils.reactorless import install_reactor_import_hook
        install_reactor_import_hook()
        from scrapy_rep.crawl.internals import call_later, in_thread, reactor_installed

        async def main():
            fired = asyncio.get_running_loop().create_future()
            timer = call_later(0, fired.set_result, "fired")
            cancelled = call_later(0, print, "never")
            cancelled.cancel()
            assert await fired == "fired" and not timer.active()
            assert await in_thread(threading.get_ident) != threading.get_ident()
            print("ok", reactor_installed())

        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=checkout_environment(),
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok False\n", "")


@pytest_twisted.ensureDeferred
async def test_without_a_reactor_a_name_that_does_not_resolve_holds_then_drops_its_requests() -> (
    None
):
    """``.invalid`` never resolves (RFC 6761 §6.4): the download handler of a crawl without
    a reactor says why (the system resolver's error, read as Twisted's resolver never
    says it), and the requests are held, then dropped with their reason; no ERROR."""
    urls = ["http://gone.invalid/a", "http://gone.invalid/b"]
    settings = {"REP_UNREACHABLE_MAX_WAIT": 1.5, "REP_UNREACHABLE_CONNECT_MAX_WAIT": 0.3}
    done = await crawl_without_reactor(urls, settings, ListSpider)
    crawler, spider = done.crawler, done.spider
    assert spider.downloaded == [] and sorted(spider.dropped) == urls
    for reason in spider.dropped.values():
        assert reason.startswith("Dropped: robots.txt of http://gone.invalid unreachable for")
    stats = crawler.stats.get_stats()
    failures = {key for key in stats if key.startswith("rep/robotstxt/failure/")}
    assert failures <= {"rep/robotstxt/failure/no_such_host", "rep/robotstxt/failure/dns_failed"}
    assert failures and crawler.stats.get_value("rep/requests/held") == 2
    assert crawler.stats.get_value("log_count/ERROR") is None
