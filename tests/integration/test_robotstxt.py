"""Real crawls against scripted local origins: the fetch rules of SPEC §4 end to end.

Every test runs a crawl with the add-on over origins on 127.0.0.1 (one port each) and
asserts the exact URLs downloaded, the exact URLs dropped (with their reasons) and what
reached the servers.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, ClassVar

import pytest
import pytest_twisted
from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest
from scrapy.spiders import SitemapSpider
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl.internals import DELAY_JITTER, ROBOTS_PARSED, download
from scrapy_rep.signals import request_held, request_refused, robotstxt_fetched
from tests.support.robotsite import (
    BASE_SETTINGS,
    TIMED,
    ListSpider,
    Reply,
    Sites,
    TimedHandler,
    crawl,
    page_gaps,
    redirect,
    robots,
    robots_middleware,
    rsl_reply,
    stat,
)
from tests.support.scrapyversions import jitter, stop

RULES = """\
User-agent: *
Disallow: /

User-agent: testbot
Disallow: /private
Allow: /private/ok
Disallow: /*.pdf$
"""


def paths_outcome(sites: Sites, spider: ListSpider, name: str) -> tuple[set[str], dict[str, str]]:
    """Paths downloaded and dropped (with reasons) for origin ``name``."""
    base = sites.bases[name]
    downloaded = {url[len(base) :] for url in spider.downloaded if url.startswith(base)}
    dropped = {url[len(base) :]: why for url, why in spider.dropped.items() if url.startswith(base)}
    return downloaded, dropped


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_spec4_200_rules_decide_with_the_deciding_line_one_download_per_origin() -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots(RULES))
    paths = ["/", "/private/x", "/private/ok", "/doc.pdf", "/doc.pdf?x", "/other"]
    try:
        crawler, spider = await crawl([sites.url("a", p) for p in paths])
    finally:
        await sites.close()
    downloaded, dropped = paths_outcome(sites, spider, "a")
    assert downloaded == {"/", "/private/ok", "/doc.pdf?x", "/other"}
    robots_url = sites.url("a", "/robots.txt")
    assert dropped == {
        "/private/x": f"Forbidden by {robots_url} (line 5: Disallow: /private)",
        "/doc.pdf": f"Forbidden by {robots_url} (line 7: Disallow: /*.pdf$)",
    }
    assert sites.requested("a").count("/robots.txt") == 1
    assert sorted(sites.requested("a")) == sorted(["/robots.txt", *downloaded])
    assert stat(crawler, "robotstxt/forbidden") == 2
    assert stat(crawler, "rep/requests/dropped/forbidden") == 2
    assert stat(crawler, "robotstxt/request_count") == 1
    assert stat(crawler, "robotstxt/response_status_count/200") == 1
    # Requests that arrive before the download ends wait for it (at least the first);
    # any later one is decided from the cache at once.
    held = stat(crawler, "rep/requests/held")
    assert 1 <= held <= len(paths)
    assert stat(crawler, "rep/requests/released") == held


@pytest_twisted.ensureDeferred
async def test_spec4_4xx_means_everything_allowed_401_and_403_included() -> None:
    sites = Sites()
    for status in (404, 401, 403, 410):
        sites.add(str(status)).script("/robots.txt", Reply(status, b"User-agent: *\nDisallow: /"))
    names = list(sites.origins)
    try:
        crawler, spider = await crawl([sites.url(n, p) for n in names for p in ("/", "/x")])
    finally:
        await sites.close()
    for name in names:
        assert paths_outcome(sites, spider, name) == ({"/", "/x"}, {}), name
    assert stat(crawler, "rep/robotstxt/outcome/allow_all") == 4


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_spec4_503_then_200_held_requests_are_crawled_after_recovery() -> None:
    sites = Sites()
    sites.add("flaky").script(
        "/robots.txt",
        Reply(503, b"<html>maintenance</html>"),
        Reply(503, b"<html>maintenance</html>"),
        robots("User-agent: *\nDisallow: /x\n"),
    )
    sites.add("ok").script("/robots.txt", Reply(404))
    urls = [sites.url("flaky", p) for p in ("/", "/x", "/y")] + [sites.url("ok", "/z")]
    try:
        crawler, spider = await crawl(urls)
    finally:
        await sites.close()
    assert paths_outcome(sites, spider, "flaky") == (
        {"/", "/y"},
        {"/x": f"Forbidden by {sites.url('flaky', '/robots.txt')} (line 2: Disallow: /x)"},
    )
    assert paths_outcome(sites, spider, "ok") == ({"/z"}, {})
    # The error page of a 503 is never read as rules (Scrapy's middleware would allow all).
    assert sites.requested("flaky").count("/robots.txt") == 3
    assert stat(crawler, "rep/robotstxt/retries") == 2
    assert stat(crawler, "robotstxt/response_status_count/503") == 2


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_spec4_429_retry_after_is_honoured() -> None:
    sites = Sites()
    origin = sites.add("busy")
    origin.script(
        "/robots.txt",
        Reply(429, b"slow down", {"Retry-After": "1"}),
        robots("User-agent: *\nDisallow: /x\n"),
    )
    try:
        _, spider = await crawl([sites.url("busy", "/"), sites.url("busy", "/x")], TIMED)
    finally:
        await sites.close()
    assert paths_outcome(sites, spider, "busy")[0] == {"/"}
    assert set(paths_outcome(sites, spider, "busy")[1]) == {"/x"}
    assert len(origin.times["/robots.txt"]) == 2
    first, second = TimedHandler.sent[sites.url("busy", "/robots.txt")]
    # REP_UNREACHABLE_RETRY_DELAY is 0.2 s in these tests; Retry-After asked for 1 s.
    assert second - first >= 0.99


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_spec4_redirects_3_hops_followed_6_hops_mean_allow_all_loops_too() -> None:
    sites = Sites()
    three = sites.add("three")
    three.script("/robots.txt", redirect("/r1"))
    three.script("/r1", redirect("/r2", 302))
    three.script("/r2", redirect("/r3", 307))
    three.script("/r3", robots("User-agent: *\nDisallow: /x\n"))
    six = sites.add("six")
    six.script("/robots.txt", redirect("/r1"))
    for hop in range(1, 7):
        six.script(f"/r{hop}", redirect(f"/r{hop + 1}"))
    six.script("/r7", robots("User-agent: *\nDisallow: /\n"))
    loop = sites.add("loop")
    loop.script("/robots.txt", redirect("/a"))
    loop.script("/a", redirect("/robots.txt"))
    urls = [sites.url(n, p) for n in ("three", "six", "loop") for p in ("/", "/x")]
    try:
        crawler, spider = await crawl(urls)
    finally:
        await sites.close()
    assert paths_outcome(sites, spider, "three")[0] == {"/"}
    assert list(paths_outcome(sites, spider, "three")[1]) == ["/x"]
    assert sites.requested("three")[:4] == ["/robots.txt", "/r1", "/r2", "/r3"]
    # Six hops: five are followed, then "treated as 404" and everything is allowed.
    assert paths_outcome(sites, spider, "six") == ({"/", "/x"}, {})
    assert [p for p in sites.requested("six") if p.startswith("/r")] == [
        "/robots.txt",
        "/r1",
        "/r2",
        "/r3",
        "/r4",
        "/r5",
    ]
    assert paths_outcome(sites, spider, "loop") == ({"/", "/x"}, {})
    assert stat(crawler, "rep/robotstxt/outcome/too_many_redirects") == 1
    assert stat(crawler, "rep/robotstxt/outcome/redirect_loop") == 1


@pytest_twisted.ensureDeferred
async def test_spec4_cross_host_redirect_is_followed_and_applies_to_the_original_origin() -> None:
    sites = Sites()
    sites.add("target").script("/rules.txt", robots("User-agent: *\nDisallow: /x\n"))
    sites.add("source").script("/robots.txt", redirect(sites.url("target", "/rules.txt")))
    try:
        _, spider = await crawl([sites.url("source", "/"), sites.url("source", "/x")])
    finally:
        await sites.close()
    downloaded, dropped = paths_outcome(sites, spider, "source")
    assert downloaded == {"/"}
    assert list(dropped) == ["/x"]
    assert sites.requested("target") == ["/rules.txt"]


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_spec4_a_2_mb_robotstxt_is_cut_at_500_kib_and_not_downloaded_whole() -> None:
    head = "User-agent: *\nDisallow: /early\n" + "# padding\n" * 60_000  # ~600 KB
    body = head + "Disallow: /late\n" + "# more padding\n" * 100_000  # ~2.1 MB
    sites = Sites()
    sites.add("big").script("/robots.txt", robots(body))
    try:
        crawler, spider = await crawl([sites.url("big", p) for p in ("/early", "/late")])
    finally:
        await sites.close()
    assert len(body) > 2_000_000
    assert paths_outcome(sites, spider, "big")[0] == {"/late"}
    assert list(paths_outcome(sites, spider, "big")[1]) == ["/early"]
    assert stat(crawler, "rep/robotstxt/outcome/truncated") == 1
    # The download stopped after 500 KiB (plus at most a few network chunks).
    assert stat(crawler, "downloader/response_bytes") < 1_000_000


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_spec4_a_robotstxt_that_hangs_holds_then_drops_with_the_reason() -> None:
    sites = Sites()
    sites.add("hang").script("/robots.txt", Reply(hang=True))
    sites.add("fine").script("/robots.txt", Reply(404))
    urls = [sites.url("hang", p) for p in ("/", "/a")] + [sites.url("fine", "/b")]
    settings = {"DOWNLOAD_TIMEOUT": 0.5, "REP_UNREACHABLE_MAX_WAIT": 1.5}
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    downloaded, dropped = paths_outcome(sites, spider, "hang")
    assert downloaded == set()
    assert set(dropped) == {"/", "/a"}
    for reason in dropped.values():
        assert reason.startswith(f"Dropped: robots.txt of {sites.bases['hang']} unreachable for")
        assert "requests dropped" in reason
    assert paths_outcome(sites, spider, "fine") == ({"/b"}, {})
    assert sites.requested("hang") == ["/robots.txt"] * len(sites.requested("hang"))
    assert len(sites.requested("hang")) >= 2  # retried before giving up
    assert stat(crawler, "rep/requests/dropped/robotstxt_unreachable") == 2
    assert stat(crawler, "rep/robotstxt/gave_up") == 1


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_spec4_unreachable_action_allow_lets_held_requests_go_on() -> None:
    sites = Sites()
    sites.add("down").script("/robots.txt", Reply(500))
    settings = {"REP_UNREACHABLE_MAX_WAIT": 0.5, "REP_UNREACHABLE_ACTION": "allow"}
    try:
        crawler, spider = await crawl([sites.url("down", p) for p in ("/", "/a")], settings)
    finally:
        await sites.close()
    assert paths_outcome(sites, spider, "down") == ({"/", "/a"}, {})
    assert stat(crawler, "rep/requests/allowed_unreachable") == 2


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_spec4_connection_refused_is_unreachable_not_allow_all() -> None:
    sites = Sites()
    sites.add("gone")
    await sites.close()  # nothing listens on that port any more
    settings = {"REP_UNREACHABLE_MAX_WAIT": 0.5}
    crawler, spider = await crawl([sites.url("gone", "/")], settings)
    assert spider.downloaded == []
    assert list(spider.dropped) == [sites.url("gone", "/")]
    assert "unreachable" in spider.dropped[sites.url("gone", "/")]
    assert stat(crawler, "rep/robotstxt/outcome/network_error") >= 1


@pytest_twisted.ensureDeferred
async def test_spec3_two_ports_of_one_host_are_two_origins_with_their_own_rules() -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /a\n"))
    sites.add("b").script("/robots.txt", robots("User-agent: *\nDisallow: /b\n"))
    urls = [sites.url(n, p) for n in ("a", "b") for p in ("/a", "/b")]
    try:
        _, spider = await crawl(urls)
    finally:
        await sites.close()
    assert paths_outcome(sites, spider, "a")[0] == {"/b"}
    assert paths_outcome(sites, spider, "b")[0] == {"/a"}
    assert set(spider.dropped) == {sites.url("a", "/a"), sites.url("b", "/b")}


@pytest_twisted.ensureDeferred
async def test_spec5_dont_obey_robotstxt_and_robotstxt_obey_false() -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /\n"))

    class Spider(ListSpider):
        async def start(self) -> Any:
            async for request in super().start():
                yield request.replace(meta={"dont_obey_robotstxt": True})

    try:
        _, spider = await crawl([sites.url("a", "/x")], spider=Spider)
        _, unobeyed = await crawl([sites.url("a", "/y")], {"ROBOTSTXT_OBEY": False})
    finally:
        await sites.close()
    assert spider.downloaded == [sites.url("a", "/x")]
    assert unobeyed.downloaded == [sites.url("a", "/y")]
    assert "/robots.txt" not in sites.requested("a")


@pytest_twisted.ensureDeferred
async def test_spec5_robotstxt_user_agent_and_the_robots_parsed_signal() -> None:
    sites = Sites()
    sites.add("a").script(
        "/robots.txt", robots("User-agent: otherbot\nDisallow: /x\n\nUser-agent: *\nDisallow:\n")
    )
    seen: list[Any] = []

    def parsed(robotparser: Any, request: Any) -> None:
        seen.append((robotparser.allowed(sites.url("a", "/x"), "otherbot"), request.url))

    crawler_settings = {"ROBOTSTXT_USER_AGENT": "otherbot"}
    crawler = get_crawler(ListSpider, {**BASE_SETTINGS, **crawler_settings})
    if ROBOTS_PARSED is not None:  # Scrapy 2.18+
        crawler.signals.connect(parsed, signal=ROBOTS_PARSED)
    try:
        await crawler.crawl(urls=[sites.url("a", "/x"), sites.url("a", "/y")])
    finally:
        await sites.close()
    spider = crawler.spider
    assert isinstance(spider, ListSpider)
    assert paths_outcome(sites, spider, "a")[0] == {"/y"}
    assert seen == ([(False, sites.url("a", "/x"))] if ROBOTS_PARSED is not None else [])


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_spec5_crawl_delay_slows_only_its_origin_and_is_capped() -> None:
    sites = Sites()
    slow = sites.add("slow")
    slow.script("/robots.txt", robots("User-agent: *\nCrawl-delay: 30\n"))
    sites.add("fast").script("/robots.txt", robots("User-agent: *\nCrawl-delay: 0\n"))
    urls = [sites.url(n, f"/{i}") for n in ("slow", "fast") for i in range(3)]
    settings = {
        "REP_OBEY_CRAWL_DELAY": True,
        "REP_CRAWL_DELAY_MAX": 0.4,
        **jitter(0),
        **TIMED,
    }
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    assert len(spider.downloaded) == 6
    gaps = page_gaps(sites.bases["slow"])
    assert len(gaps) == 2 and min(gaps) >= 0.39  # 30 s asked, capped at 0.4 s
    assert stat(crawler, "rep/crawl_delay/origins") == 1
    downloader = crawler.engine.downloader if crawler.engine else None
    assert downloader is None or downloader.per_slot_settings.get(sites.bases["slow"]) == {
        "delay": 0.4
    }


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_crawl_delay_is_obeyed_by_default_in_every_profile(profile: str) -> None:
    """What a Scrapy user expects (Bing, Yandex, Nutch and crawler-commons obey it too);
    capped by REP_CRAWL_DELAY_MAX (docs: settings, REP_OBEY_CRAWL_DELAY)."""
    sites = Sites()
    sites.add("slow").script("/robots.txt", robots("User-agent: *\nCrawl-delay: 30\n"))
    settings = {"REP_PROFILE": profile, "REP_CRAWL_DELAY_MAX": 0.05, **jitter(0)}
    try:
        crawler, spider = await crawl([sites.url("slow", f"/{i}") for i in range(3)], settings)
    finally:
        await sites.close()
    assert len(spider.downloaded) == 3
    assert stat(crawler, "rep/crawl_delay/origins") == 1
    downloader = crawler.engine.downloader if crawler.engine else None
    assert downloader is None or downloader.per_slot_settings.get(sites.bases["slow"]) == {
        "delay": 0.05
    }


# Scrapy 2.19 deprecates RANDOMIZE_DOWNLOAD_DELAY, which projects still set: the setting
# under test, so its deprecation warning is expected here.
@pytest.mark.filterwarnings("ignore:The RANDOMIZE_DOWNLOAD_DELAY setting is deprecated")
@pytest.mark.parametrize(
    ("settings", "jitter_used"),
    [
        ({"RANDOMIZE_DOWNLOAD_DELAY": False}, 0.0),
        ({"RANDOMIZE_DOWNLOAD_DELAY": True}, 0.5),
        ({}, 0.5),  # Scrapy's default: ±50 %
    ],
    ids=["randomize-off", "randomize-on", "default"],
)
@pytest_twisted.ensureDeferred
async def test_crawl_delay_is_applied_once_with_the_jitter_scrapy_uses(
    settings: dict[str, Any], jitter_used: float
) -> None:
    """``RANDOMIZE_DOWNLOAD_DELAY = False`` (no jitter: every gap is the slot's delay)
    with ``Crawl-delay: 0.05``: the slot's delay is the crawl-delay itself, not twice it
    (a floor computed for Scrapy's ±50 % jitter, which the project had turned off, gave
    4 s gaps for a 2 s crawl-delay). With jitter the floor is ``delay / (1 - jitter)``,
    so the shortest gap Scrapy draws is the crawl-delay. Read from the slot each page
    was downloaded through, as Scrapy made it."""
    sites = Sites()
    slow = sites.add("slow")
    slow.script("/robots.txt", robots("User-agent: *\nCrawl-delay: 0.05\n"))
    seen: list[tuple[float, float]] = []

    def watch(crawler: Any) -> None:
        def downloaded(request: Request, **_: Any) -> None:
            if not request.url.endswith("/robots.txt"):
                slot = crawler.engine.downloader.slots[request.meta["download_slot"]]
                seen.append(
                    (slot.delay, slot.jitter if DELAY_JITTER else 0.5 * slot.randomize_delay)
                )

        crawler.signals.connect(downloaded, signal=signals.response_downloaded, weak=False)

    try:
        _, spider = await crawl(
            [sites.url("slow", f"/{i}") for i in range(3)], settings, on_crawler=watch
        )
    finally:
        await sites.close()
    assert len(spider.downloaded) == 3
    expected = 0.05 / (1 - jitter_used)
    assert seen == [(pytest.approx(expected), jitter_used)] * 3
    shortest = seen[0][0] * (1 - seen[0][1])
    assert shortest == pytest.approx(0.05)  # the crawl-delay, applied once


@pytest_twisted.ensureDeferred
async def test_crawl_delay_is_ignored_with_obey_crawl_delay_false_as_google_does() -> None:
    sites = Sites()
    sites.add("slow").script("/robots.txt", robots("User-agent: *\nCrawl-delay: 30\n"))
    try:
        crawler, spider = await crawl(
            [sites.url("slow", f"/{i}") for i in range(3)], {"REP_OBEY_CRAWL_DELAY": False}
        )
    finally:
        await sites.close()
    assert len(spider.downloaded) == 3
    assert stat(crawler, "rep/crawl_delay/origins") is None


class RobotsSitemapSpider(SitemapSpider):
    name = "sitemaps"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sitemap_urls = urls
        self.pages: list[str] = []

    def parse(self, response: Any) -> None:
        self.pages.append(response.url)


@pytest_twisted.ensureDeferred
async def test_spec5_sitemap_spider_naming_robotstxt_causes_one_download() -> None:
    sites = Sites()
    site = sites.add("s")
    base = sites.bases["s"]
    site.script("/robots.txt", robots(f"User-agent: *\nDisallow: /no\nSitemap: {base}/map.xml\n"))
    site.script(
        "/map.xml",
        Reply(
            200,
            (
                '<?xml version="1.0" encoding="UTF-8"?>'
                '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<url><loc>{base}/yes</loc></url><url><loc>{base}/no</loc></url></urlset>"
            ).encode(),
            {"Content-Type": "application/xml"},
        ),
    )
    fetched: list[tuple[str, tuple[str, ...]]] = []

    def on_fetched(origin: str, sitemaps: tuple[str, ...], **_: Any) -> None:
        fetched.append((origin, sitemaps))

    crawler = get_crawler(RobotsSitemapSpider, BASE_SETTINGS)
    crawler.signals.connect(on_fetched, signal=robotstxt_fetched)
    try:
        await crawler.crawl(urls=[f"{base}/robots.txt"])
    finally:
        await sites.close()
    spider = crawler.spider
    assert isinstance(spider, RobotsSitemapSpider)
    assert spider.pages == [f"{base}/yes"]
    assert sites.requested("s").count("/robots.txt") == 1
    assert "/no" not in sites.requested("s")
    assert fetched == [(base, (f"{base}/map.xml",))]
    assert crawler.stats is not None
    assert crawler.stats.get_value("rep/robotstxt/served_from_cache") == 1


@pytest_twisted.ensureDeferred
async def test_a_spiders_own_robotstxt_request_answered_from_the_cache_names_what_allowed_it(
    tmp_path: Any,
) -> None:
    """A spider's own request for a robots.txt the crawl has is answered from the cache,
    with no download: its record named no robots.txt (``audit verify``: "no robots.txt
    snapshot names what allowed it") and was read as a response no verdict reached. Its
    verdict is performed as any request's is: the record names the snapshot that allowed
    it, ``attempts`` 0, no ``answered``."""
    from tests.support.audittrail import by_url

    sites = Sites()
    sites.add("s").script("/robots.txt", robots("User-agent: *\nDisallow: /no\n"))
    url = sites.url("s", "/robots.txt")
    trail = tmp_path / "trail.jsonl"
    try:
        crawler, spider = await crawl([url], {"REP_AUDIT_FILE": str(trail)})
    finally:
        await sites.close()
    assert spider.downloaded == [url]
    assert sites.requested("s") == ["/robots.txt"]  # once: the crawl's own download
    assert stat(crawler, "rep/robotstxt/served_from_cache") == 1
    record = by_url(trail)[url]
    assert (record["fate"], record["attempts"], record["status"]) == ("fetched", 0, 200)
    assert record["robots"]["snapshot"] and "answered" not in record, record


@pytest_twisted.ensureDeferred
async def test_spec4_jobdir_pause_with_held_requests_and_resume(tmp_path: Any) -> None:
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    sites = Sites()
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    sites.add("up").script("/robots.txt", robots("User-agent: *\nDisallow: /x\n"))
    urls = [sites.url("down", p) for p in ("/1", "/2", "/x")] + [sites.url("up", "/3")]
    settings = {**BASE_SETTINGS, "JOBDIR": str(tmp_path), "REP_UNREACHABLE_MAX_WAIT": 600}
    first = get_crawler(ListSpider, settings)
    running = first.crawl(urls=urls)
    for _ in range(200):  # until the three requests of "down" are held (at most 10 s)
        await deferLater(reactor, 0.05)
        engine_running = getattr(first, "_engine", None) is not None
        if engine_running and sum(robots_middleware(first).held_requests().values()) == 3:
            break
    assert robots_middleware(first).held_requests() == {sites.bases["down"]: 3}
    await stop(first)
    await running
    assert first.stats is not None
    assert first.stats.get_value("finish_reason") == "shutdown"
    assert first.stats.get_value("rep/requests/dropped/spider_closed") is None
    # What the pause kept: the three of "down", and on a loaded machine maybe "up"'s too,
    # still held for its robots.txt when the pause came.
    import pickle

    from scrapy_rep.crawl.documents.holding import state_path

    path = state_path(first)
    assert path is not None
    kept = [pickle.loads(held)["url"] for held in pickle.loads(path.read_bytes())["held"]]
    assert set(urls[:3]) <= set(kept) <= set(urls) and len(kept) == len(set(kept))

    down.script("/robots.txt", robots("User-agent: *\nDisallow: /x\n"))  # the site is back
    second = get_crawler(ListSpider, settings)
    try:
        await second.crawl(urls=urls)
    finally:
        await sites.close()
    spiders = [first.spider, second.spider]
    downloaded = [url for spider in spiders for url in spider.downloaded]  # type: ignore[union-attr]
    assert sorted(downloaded) == sorted(
        [sites.url("down", "/1"), sites.url("down", "/2"), sites.url("up", "/3")]
    )
    assert second.spider.dropped == {  # type: ignore[union-attr]
        sites.url("down", "/x"): f"Forbidden by {sites.url('down', '/robots.txt')} "
        "(line 2: Disallow: /x)"
    }
    # "up" was cached in JOBDIR: its robots.txt is not downloaded again after resuming.
    assert sites.requested("up").count("/robots.txt") == 1
    assert second.stats is not None
    assert second.stats.get_value("rep/requests/resumed") == len(kept)


class OnsiteSpider(ListSpider):
    allowed_domains: ClassVar[list[str]] = ["127.0.0.1"]


@pytest_twisted.ensureDeferred
async def test_spec4_offsite_filtering_does_not_stop_a_cross_host_robotstxt_redirect() -> None:
    sites = Sites()
    sites.add("target").script("/rules.txt", robots("User-agent: *\nDisallow: /x\n"))
    other_host = sites.url("target", "/rules.txt").replace("127.0.0.1", "localhost")
    sites.add("source").script("/robots.txt", redirect(other_host))
    urls = [sites.url("source", "/"), sites.url("source", "/x")]
    try:
        _, spider = await crawl(urls, spider=OnsiteSpider)
    finally:
        await sites.close()
    # Scrapy's OffsiteMiddleware would drop the hop to "localhost" (not in
    # allowed_domains), and robots.txt would then count as missing: everything allowed.
    assert paths_outcome(sites, spider, "source")[0] == {"/"}
    assert list(paths_outcome(sites, spider, "source")[1]) == ["/x"]
    assert sites.requested("target") == ["/rules.txt"]


@pytest_twisted.ensureDeferred
async def test_spec7_hostile_robotstxt_responses_are_bounded() -> None:
    import gzip

    sites = Sites()
    bomb = gzip.compress(b"\0" * 40_000_000, 9)  # 40 MB once inflated
    sites.add("bomb").script("/robots.txt", Reply(200, bomb, {"Content-Encoding": "gzip"}))
    small = gzip.compress(b"User-agent: *\nDisallow: /x\n")
    sites.add("gzip").script("/robots.txt", Reply(200, small, {"Content-Encoding": "gzip"}))
    sites.add("local").script("/robots.txt", redirect("file:///dev/zero"))
    settings = {"REP_UNREACHABLE_MAX_WAIT": 0.3}
    urls = [sites.url(n, p) for n in ("bomb", "gzip", "local") for p in ("/", "/x")]
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    assert len(bomb) < 100_000
    # The bomb is refused once it inflates past 16 MiB: an invalid response, unreachable.
    assert paths_outcome(sites, spider, "bomb")[0] == set()
    assert all("unreachable" in why for why in paths_outcome(sites, spider, "bomb")[1].values())
    # A normal compressed robots.txt is read.
    assert paths_outcome(sites, spider, "gzip")[0] == {"/"}
    # A redirect to a local file is not followed (as a 404: everything allowed).
    assert paths_outcome(sites, spider, "local") == ({"/", "/x"}, {})
    assert stat(crawler, "rep/robotstxt/outcome/bad_redirect") == 1


@pytest_twisted.ensureDeferred
async def test_spec7_held_requests_are_bounded_and_robotstxt_has_its_own_timeout() -> None:
    sites = Sites()
    sites.add("hang").script("/robots.txt", Reply(hang=True))
    settings = {
        "DOWNLOAD_TIMEOUT": 60,
        "REP_ROBOTSTXT_TIMEOUT": 0.4,
        "REP_UNREACHABLE_MAX_WAIT": 1.0,
        "REP_MAX_HELD_REQUESTS": 2,
        "CONCURRENT_REQUESTS": 1,
    }
    urls = [sites.url("hang", f"/{n}") for n in range(4)]
    try:
        crawler, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    reasons = sorted(spider.dropped.values())
    assert len(reasons) == 4 and spider.downloaded == []
    # Beyond REP_MAX_HELD_REQUESTS requests are spilled to disk, never dropped for it:
    # all four wait for the robots.txt and are dropped only when it stays unreachable.
    assert all("unreachable" in why for why in reasons)
    assert stat(crawler, "rep/requests/spilled") == 2
    assert stat(crawler, "rep/requests/dropped/robotstxt_unreachable") == 4
    # With the 60 s download timeout, one try would have used the whole wait.
    assert sites.requested("hang").count("/robots.txt") >= 2


class DirectDownloadSpider(ListSpider):
    """Downloads through ``engine.download_async`` (``engine.download`` before Scrapy 2.14)
    from a callback (no scheduler)."""

    async def parse(self, response: Any) -> None:  # type: ignore[override]
        self.downloaded.append(response.url)
        base = self.settings.get("OTHER_BASE")
        assert self.crawler.engine is not None
        for path in ("/direct", "/x"):
            try:
                direct = await download(self.crawler, Request(base + path))
                self.downloaded.append(direct.url)
            except IgnoreRequest as error:
                self.dropped[base + path] = str(error)


@pytest_twisted.ensureDeferred
async def test_spec4_a_request_sent_with_download_async_waits_in_place_for_robotstxt() -> None:
    sites = Sites()
    sites.add("start").script("/robots.txt", Reply(404))
    slow = Reply(200, b"User-agent: *\nDisallow: /x\n", {"Content-Type": "text/plain"}, delay=0.5)
    sites.add("other").script("/robots.txt", slow)
    settings = {"OTHER_BASE": sites.bases["other"]}
    try:
        _, spider = await crawl([sites.url("start", "/")], settings, spider=DirectDownloadSpider)
    finally:
        await sites.close()
    # The direct request cannot leave the downloader to be held: it waited for the rules.
    assert paths_outcome(sites, spider, "other") == (
        {"/direct"},
        {"/x": f"Forbidden by {sites.url('other', '/robots.txt')} (line 2: Disallow: /x)"},
    )
    assert sites.requested("other")[0] == "/robots.txt"


@pytest_twisted.ensureDeferred
async def test_a_download_async_request_is_decided_by_the_license_it_waited_in_place_for() -> None:
    """A callback's request (``download_async``) waits in place for the second of its
    origin's two RSL licenses, the first known; a cache too small for both
    (``REP_CACHE_MAX_BYTES``) drops the second as the first is parsed again to decide.
    The request is decided by the version it was woken with, as a released held request
    is by the one it carries: each license is fetched once and the page downloaded. (It
    used to be decided from the cache, wait for the license again and fetch it again,
    for ever: whole-crawl seed 1574, a scrapy-redis worker that never closed.)"""
    from twisted.internet.task import LoopingCall

    sites = Sites()
    sites.add("start").script("/robots.txt", Reply(404))
    lic = sites.add("lic")
    lic.script("/permit.xml", rsl_reply('<permits type="usage">all</permits>'))
    # The second license: answered (a 404, read as no terms) once the request awaits it
    # alone, the first known; any later request of it at once.
    lic.script("/gone.xml", Reply(hang=True), Reply(404))
    permit, gone = sites.url("lic", "/permit.xml"), sites.url("lic", "/gone.xml")
    rules = f"User-agent: *\nDisallow: /x\nLicense: {permit}\nLicense: {gone}\n"
    sites.add("other").script("/robots.txt", robots(rules))
    crawlers: list[Any] = []

    def step() -> None:
        if not crawlers or crawlers[0].engine is None:
            return
        rsl = robots_middleware(crawlers[0]).documents["rsl"]
        known = rsl.cache.peek(permit) is not None and not rsl.awaited(permit)
        if lic.hanging and known and rsl.awaited(gone):
            lic.answer_hanging(Reply(404))
        if sites.requested("lic").count("/gone.xml") > 3:
            rsl.cache.max_bytes = None  # the loop this test is about, ended: it fails

    settings = {
        "OTHER_BASE": sites.bases["other"],
        "REP_PURPOSE": "search",
        "REP_CACHE_MAX_BYTES": 2048,
    }
    stepping = LoopingCall(step)
    stepping.start(0.01)
    try:
        _, spider = await crawl(
            [sites.url("start", "/")], settings, DirectDownloadSpider, crawlers.append
        )
    finally:
        stepping.stop()
        await sites.close()
    assert paths_outcome(sites, spider, "other") == (
        {"/direct"},
        {"/x": f"Forbidden by {sites.url('other', '/robots.txt')} (line 2: Disallow: /x)"},
    )
    assert sorted(sites.requested("lic")) == ["/gone.xml", "/permit.xml"]  # once each


@pytest_twisted.ensureDeferred
async def test_a_download_async_request_sent_as_the_crawl_closes_still_has_its_robotstxt() -> None:
    """The crawl is stopped while a page downloads; its callback, run during the close,
    sends requests with ``download_async`` to an origin seen for the first time: its
    robots.txt is downloaded (a request awaits it in place) and decides them."""
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    sites = Sites()
    start = sites.add("start")
    start.script("/robots.txt", Reply(404))
    start.script("/", Reply(200, b"<html></html>", {"Content-Type": "text/html"}, delay=0.5))
    sites.add("other").script("/robots.txt", robots("User-agent: *\nDisallow: /x\n"))
    settings = {**BASE_SETTINGS, "OTHER_BASE": sites.bases["other"]}
    crawler = get_crawler(DirectDownloadSpider, settings)
    try:
        running = crawler.crawl(urls=[sites.url("start", "/")])
        for _ in range(100):  # the page is asked for
            if "/" in sites.requested("start"):
                break
            await deferLater(reactor, 0.05)
        await stop(crawler)
        await running
    finally:
        await sites.close()
    spider = crawler.spider
    assert spider.downloaded == [sites.url("start", "/"), sites.url("other", "/direct")]
    assert list(spider.dropped) == [sites.url("other", "/x")]
    assert spider.dropped[sites.url("other", "/x")].startswith("Forbidden by")


async def _stopped_as_a_robotstxt_hangs(
    spider: type[ListSpider],
) -> tuple[Any, Sites, tuple[list[str], list[str]]]:
    """A crawl of ``spider`` from site ``start`` (no robots.txt) that downloads one
    robots.txt at a time: site ``cut``'s hangs, site ``other``'s (it disallows ``/x``)
    waits for the slot (``CUT_BASE`` and ``OTHER_BASE`` for the spider). Stopped while
    ``cut``'s hangs, which then cuts its connection: the crawler once its close ended,
    the sites (closed), and what ``cut`` and ``other`` had been asked for at the stop."""
    sites = Sites()
    sites.add("start").script("/robots.txt", Reply(404))
    cut = sites.add("cut")
    cut.script("/robots.txt", Reply(hang=True))
    sites.add("other").script("/robots.txt", robots("User-agent: *\nDisallow: /x\n"))
    settings = {
        **BASE_SETTINGS,
        "REP_ROBOTSTXT_CONCURRENCY": 1,
        "REP_UNREACHABLE_MAX_WAIT": 60,
        "DOWNLOAD_TIMEOUT": 60,
        "CUT_BASE": sites.bases["cut"],
        "OTHER_BASE": sites.bases["other"],
    }
    crawler = get_crawler(spider, settings)
    try:
        # the second request queued for its robots.txt
        asked = await _stop_while_it_hangs(crawler, [sites.url("start", "/")], sites, cut, 0.2)
    finally:
        await sites.close()
    return crawler, sites, (asked["cut"], asked["other"])


async def _stop_while_it_hangs(
    crawler: Any, urls: list[str], sites: Sites, cut: Any, queued: float
) -> dict[str, list[str]]:
    """``crawler`` crawls ``urls``; once ``cut``'s robots.txt hangs and ``queued`` seconds
    more have passed (for the others to queue), it is stopped, and ``cut`` then cuts its
    connection; the close is awaited (it must end). What each site had been asked for at
    the stop."""
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    running = crawler.crawl(urls=urls)
    for _ in range(100):  # the first robots.txt reached its site
        if cut.hanging:
            break
        await deferLater(reactor, 0.05)
    await deferLater(reactor, queued)
    asked = {name: sites.requested(name) for name in sites.bases}
    stopping = stop(crawler)
    await deferLater(reactor, 0.2)
    for request in cut.hanging:
        request.channel.transport.abortConnection()
    for _ in range(200):
        if running.called:
            break
        await deferLater(reactor, 0.05)
    assert running.called, "the crawl did not close"
    await running
    await stopping
    return asked


class QueuedFetchSpider(ListSpider):
    """A callback fetches two pages itself (``download_async``): the first, on the origin
    ``CUT_BASE``, takes the one robots.txt download slot; the second, on ``OTHER_BASE``,
    waits in place for a robots.txt queued behind it."""

    async def parse(self, response: Any) -> None:  # type: ignore[override]
        self.downloaded.append(response.url)
        urls = [self.settings.get("CUT_BASE") + "/a", self.settings.get("OTHER_BASE") + "/b"]
        fetches = [deferred_from_coro(self._fetch(url)) for url in urls]
        for fetch in fetches:
            await maybe_deferred_to_future(fetch)

    async def _fetch(self, url: str) -> None:
        try:
            got = await download(self.crawler, Request(url))
            self.downloaded.append(got.url)
        except IgnoreRequest as error:
            self.dropped[url] = str(error)


@pytest_twisted.ensureDeferred
async def test_a_robotstxt_download_cut_as_the_crawl_stops_frees_its_slot_for_the_next() -> None:
    """The crawl is stopped (SIGINT) while one robots.txt downloads and another waits for
    its download slot (``REP_ROBOTSTXT_CONCURRENCY``), a callback's request awaiting
    each in place; then the first site cuts its connection. A download that fails as the
    crawl stops is read as the stop's cut, not the site's answer (nothing is given up
    on), and the request awaiting it is dropped, saying why; its slot goes to the queued
    robots.txt, which is downloaded and decides its request: the close waits for both
    requests, and ends (it used to wait forever: the slot stayed taken)."""
    # The close used to wait forever: the queued robots.txt never got the slot.
    crawler, sites, asked = await _stopped_as_a_robotstxt_hangs(QueuedFetchSpider)
    assert asked == (["/robots.txt"], [])
    spider = crawler.spider
    assert spider.downloaded == [sites.url("start", "/"), sites.url("other", "/b")]
    said = "Not downloaded: the spider closed while it waited: robots.txt of"
    assert list(spider.dropped) == [sites.url("cut", "/a")]
    assert spider.dropped[sites.url("cut", "/a")].startswith(said)
    assert sites.requested("other") == ["/robots.txt", "/b"]
    assert stat(crawler, "rep/requests/dropped/spider_closed") == 1
    assert stat(crawler, "rep/robotstxt/gave_up") is None
    assert stat(crawler, "log_count/ERROR") is None


class RetryingQueuedFetchSpider(QueuedFetchSpider):
    """:class:`QueuedFetchSpider`, whose callback tries a dropped page once more (a
    careless user's retry), as the crawl closes."""

    async def _fetch(self, url: str) -> None:
        await super()._fetch(url)
        if url in self.dropped:
            del self.dropped[url]
            await super()._fetch(url)


@pytest_twisted.ensureDeferred
async def test_a_robotstxt_cut_as_the_crawl_stops_is_not_downloaded_again_during_the_close() -> (
    None
):
    """As :func:`test_a_robotstxt_download_cut_as_the_crawl_stops_frees_its_slot_for_the_next`,
    but the callback sends the dropped page again: its robots.txt will not be known before
    the close (nothing waiting for it could use it), so no new download of it starts; the
    page is dropped at once, saying why, and the close does not wait for the hanging site
    a second time."""
    # The retried page began a second download of the hanging robots.txt, and the close
    # waited for it (DOWNLOAD_TIMEOUT).
    crawler, sites, _ = await _stopped_as_a_robotstxt_hangs(RetryingQueuedFetchSpider)
    spider = crawler.spider
    assert sites.requested("cut") == ["/robots.txt"]
    assert spider.downloaded == [sites.url("start", "/"), sites.url("other", "/b")]
    said = "Not downloaded: the spider closed while it waited: robots.txt of"
    assert list(spider.dropped) == [sites.url("cut", "/a")]
    assert spider.dropped[sites.url("cut", "/a")].startswith(said)
    assert stat(crawler, "rep/requests/dropped/spider_closed") == 2
    assert stat(crawler, "rep/robotstxt/gave_up") is None
    assert stat(crawler, "log_count/ERROR") is None


def _one_hanging_and_two_queued(more: dict[str, Any]) -> tuple[Sites, Any, dict[str, Any]]:
    """Sites ``cut`` (its robots.txt hangs), ``q1`` and ``q2`` (no robots.txt), ``cut``,
    and the settings (with ``more``) of a crawl that downloads one robots.txt at a time:
    the others queue for the slot behind ``cut``'s."""
    sites = Sites()
    cut = sites.add("cut")
    cut.script("/robots.txt", Reply(hang=True))
    for name in ("q1", "q2"):
        sites.add(name).script("/robots.txt", Reply(404))
    settings = {
        **BASE_SETTINGS,
        **more,
        "REP_ROBOTSTXT_CONCURRENCY": 1,
        "REP_UNREACHABLE_MAX_WAIT": 60,
        "DOWNLOAD_TIMEOUT": 60,
    }
    return sites, cut, settings


@pytest_twisted.ensureDeferred
async def test_a_stopped_crawl_does_not_download_the_robotstxt_queued_for_a_slot() -> None:
    """The crawl is stopped while one robots.txt downloads and two more wait for the one
    download slot (``REP_ROBOTSTXT_CONCURRENCY``), only held requests waiting for them;
    then the first site cuts its connection. Nothing could use the queued documents
    before the close (held requests stay held, to be kept or dropped by it): they are not
    downloaded, one after the other, while the close waits for them."""
    sites, cut, settings = _one_hanging_and_two_queued({})
    crawler = get_crawler(ListSpider, settings)
    try:
        urls = [sites.url(name, "/") for name in ("cut", "q1", "q2")]
        # the others queued for the slot
        asked = await _stop_while_it_hangs(crawler, urls, sites, cut, 0.3)
        assert asked["q1"] == [] and asked["q2"] == []
    finally:
        await sites.close()
    assert sites.requested("q1") == [] and sites.requested("q2") == []
    assert crawler.spider.downloaded == []
    assert stat(crawler, "rep/requests/dropped/spider_closed") == 3
    assert stat(crawler, "rep/robotstxt/gave_up") is None
    assert stat(crawler, "log_count/ERROR") is None


@pytest_twisted.ensureDeferred
async def test_a_jobdir_pause_keeps_the_requests_whose_robotstxt_was_queued_or_cut(
    tmp_path: Any,
) -> None:
    """As :func:`test_a_stopped_crawl_does_not_download_the_robotstxt_queued_for_a_slot`,
    paused with a JOBDIR: the held requests of the cut robots.txt and of those queued
    behind it are kept, none dropped, and the resumed crawl downloads each page once,
    each robots.txt once more."""
    sites, cut, settings = _one_hanging_and_two_queued({"JOBDIR": str(tmp_path)})
    urls = [sites.url(name, "/") for name in ("cut", "q1", "q2")]
    first = get_crawler(ListSpider, settings)
    try:
        await _stop_while_it_hangs(first, urls, sites, cut, 0.3)  # the others queued
        assert stat(first, "rep/requests/dropped/spider_closed") is None
        assert sites.requested("q1") == [] and sites.requested("q2") == []
        cut.script("/robots.txt", Reply(404))  # the site is back
        second = get_crawler(ListSpider, settings)
        await second.crawl(urls=urls)
    finally:
        await sites.close()
    assert first.spider.downloaded == []  # type: ignore[union-attr]
    assert sorted(second.spider.downloaded) == sorted(urls)  # type: ignore[union-attr]
    assert second.spider.dropped == {}  # type: ignore[union-attr]
    assert sites.requested("cut") == ["/robots.txt", "/robots.txt", "/"]
    assert sites.requested("q1") == ["/robots.txt", "/"]
    assert stat(second, "rep/requests/resumed") == 3


@pytest_twisted.ensureDeferred
async def test_spec4_a_spider_closed_while_requests_are_held_drops_them_with_a_warning(
    caplog: Any,
) -> None:
    sites = Sites()
    sites.add("hang").script("/robots.txt", Reply(hang=True))
    settings = {"CLOSESPIDER_TIMEOUT": 1, "REP_UNREACHABLE_MAX_WAIT": 60}
    seen: list[str] = []

    def refused(request: Request, reason: str, **_: Any) -> None:
        seen.append(reason)

    def connect(crawler: Any) -> None:
        crawler.signals.connect(refused, signal=request_refused, weak=False)

    try:
        with caplog.at_level(logging.WARNING):
            crawler, spider = await crawl(
                [sites.url("hang", p) for p in ("/1", "/2")], settings, on_crawler=connect
            )
    finally:
        await sites.close()
    assert spider.downloaded == [] and seen == ["spider_closed", "spider_closed"]
    assert stat(crawler, "rep/requests/dropped/spider_closed") == 2
    assert "the spider closed (closespider_timeout) with 2 request(s) still held" in caplog.text


@pytest_twisted.ensureDeferred
async def test_held_requests_are_caught_while_listening_and_no_other_receiver_misses_one() -> None:
    """The middleware listens to ``request_scheduled`` only while requests it handed back
    to be held have not come through (a receiver costs every dispatch: docs/decisions.md,
    '`request_scheduled` is listened to only while requests wait'). A receiver connected
    after it sees every dispatch the first one sees, and when the crawl ends the
    middleware no longer listens."""
    from pydispatch.dispatcher import getAllReceivers, liveReceivers

    sites = Sites()
    slow = Reply(200, b"User-agent: *\nDisallow: /private\n", {"Content-Type": "text/plain"})
    sites.add("a").script("/robots.txt", replace(slow, delay=0.3))
    sites.add("b").script("/robots.txt", robots("User-agent: *\nDisallow: /x\n"))
    paths = ["/", "/1", "/2", "/private/x", "/3"]
    urls = [sites.url(name, path) for name in ("a", "b") for path in paths]
    early: list[str] = []
    late: list[str] = []
    first_late = 0

    def on_crawler(crawler: Any) -> None:
        def held(**_: Any) -> None:
            nonlocal first_late
            if first_late == 0:  # connected after the middleware began to listen
                first_late = len(early)
                crawler.signals.connect(
                    lambda request, **_: late.append(request.url),
                    signal=signals.request_scheduled,
                    weak=False,
                )

        crawler.signals.connect(
            lambda request, **_: early.append(request.url),
            signal=signals.request_scheduled,
            weak=False,
        )
        crawler.signals.connect(held, signal=request_held, weak=False)

    try:
        crawler, spider = await crawl(urls, on_crawler=on_crawler)
    finally:
        await sites.close()
    held_count = stat(crawler, "rep/requests/held")
    assert held_count >= 2
    assert stat(crawler, "rep/requests/released") == held_count
    assert paths_outcome(sites, spider, "a")[0] == {"/", "/1", "/2", "/3"}
    assert set(paths_outcome(sites, spider, "a")[1]) == {"/private/x"}
    assert paths_outcome(sites, spider, "b") == (set(paths), {})
    assert first_late > 0
    assert late == early[first_late - 1 :] or late == early[first_late:]
    middleware = robots_middleware(crawler)
    receivers = liveReceivers(getAllReceivers(crawler.signals.sender, signals.request_scheduled))
    assert middleware._request_scheduled not in list(receivers)


@pytest_twisted.ensureDeferred
async def test_crawl_delay_log_line_says_why_the_slot_delay_is_larger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``Crawl-delay: 0.05`` with Scrapy's ±50 % jitter is a slot delay of 0.1 s: the INFO
    line says that the crawl-delay is the shortest gap, not "0.05 s between requests
    (delay 0.1 s)", which read as a contradiction (docs/behaviour.md, Crawl-delay)."""
    sites = Sites()
    sites.add("slow").script("/robots.txt", robots("User-agent: *\nCrawl-delay: 0.05\n"))
    settings = jitter(0.5)
    caplog.set_level(logging.INFO, logger="scrapy_rep")
    try:
        await crawl([sites.url("slow", f"/{i}") for i in range(2)], settings)
    finally:
        await sites.close()
    [line] = [r.getMessage() for r in caplog.records if "Crawl-delay of" in r.getMessage()]
    assert "at least 0.05 s between requests" in line
    assert "delay 0.1 s with ±50% jitter, so no gap is shorter than 0.05 s" in line
