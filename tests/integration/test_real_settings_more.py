"""The audit trail, the media pipelines and RSL licenses with the rest of Scrapy switched
on: each test is a real crawl against local origins that combines one feature with the
settings real projects use at once (Scrapy's HTTP cache, AutoThrottle, a download delay
with jitter, ``DOWNLOAD_SLOTS``, ``CONCURRENT_*`` limits, ``JOBDIR`` pause and resume,
retries, small caches of our own, another middleware that ignores requests).

Every test asserts outcomes (what was downloaded, stored, refused, and the trail's
records), never timings; ``crawl()`` fails a test whose crawl logged an error.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request
from scrapy.exceptions import IgnoreRequest

from rep_audit.verify import verify
from tests.support.audittrail import by_url, chain_breaks, lines, paused_and_resumed, url_records
from tests.support.robotsite import (
    BASE_SETTINGS,
    HTML,
    ItemSpider,
    ListSpider,
    Reply,
    Sites,
    collecting_items,
    crawl,
    robots,
    rsl_reply,
    stat,
)
from tests.support.scrapyversions import jitter, slot_jitter

#: Politeness a real project sets, all at once: AutoThrottle over a small download delay
#: with jitter, one request at a time per host (every local origin is 127.0.0.1), few
#: requests in the downloader at once (so that a pause stops a crawl half-way).
POLITE: dict[str, Any] = {
    "AUTOTHROTTLE_ENABLED": True,
    "AUTOTHROTTLE_START_DELAY": 0.02,
    "AUTOTHROTTLE_MAX_DELAY": 0.1,
    "AUTOTHROTTLE_TARGET_CONCURRENCY": 1.0,
    "DOWNLOAD_DELAY": 0.02,
    **jitter(0.5),
    "CONCURRENT_REQUESTS": 4,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
}


def httpcache(tmp_path: Path) -> dict[str, Any]:
    return {"HTTPCACHE_ENABLED": True, "HTTPCACHE_DIR": str(tmp_path / "httpcache")}


class SkipFilter:
    """A project's own downloader middleware that ignores every URL under ``/skip/``."""

    def process_request(self, request: Request, spider: Any = None) -> None:
        if "/skip/" in request.url:
            raise IgnoreRequest("skipped by the project's own URL filter")


async def paused_then_cached(
    sites: Sites, urls: list[str], settings: dict[str, Any], first: Path, second: Path
) -> tuple[int, Any, Any]:
    """The crawl paused once some pages are in (at most 20 s) and resumed from ``JOBDIR``,
    its trail in ``first``; then the same crawl again (answered from Scrapy's HTTP cache
    when ``settings`` enable it), its trail in ``second``. The sites are closed at the
    end. Returns the requests the sites had seen after the first crawl, and the second
    crawl's crawler and spider."""
    jobdir = first.parent / "job"
    try:
        await paused_and_resumed(
            ItemSpider,
            {**settings, "REP_AUDIT_FILE": str(first), "JOBDIR": str(jobdir)},
            urls,
            pause_after=6,
            wait=20,
        )
        network = len(sites.log)
        crawler, spider = await crawl(urls, {**settings, "REP_AUDIT_FILE": str(second)}, ItemSpider)
    finally:
        await sites.close()
    return network, crawler, spider


# --------------------------------------------------------------------------- audit trail

AUDIT_ORIGINS = ("a", "b", "c")
AUDIT_PATHS = [f"/p{n}" for n in range(8)] + ["/private/1", "/private/2", "/skip/1"]


def audit_sites() -> tuple[Sites, list[str]]:
    """Three origins (more than ``REP_CACHE_MAX_ORIGINS``): pages, two that robots.txt
    forbids, one the project's filter ignores."""
    sites = Sites()
    for name in AUDIT_ORIGINS:
        sites.add(name).script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    # Origin by origin in turn, so that the small cache of robots.txt copies churns.
    urls = [sites.url(name, path) for path in AUDIT_PATHS for name in AUDIT_ORIGINS]
    return sites, urls


def expected_fate(url: str) -> str:
    if "/private/" in url:
        return "refused"
    if "/skip/" in url:
        return "failed"
    return "fetched"


def assert_trail(trail: Path, urls: list[str], runs: int) -> None:
    """One final record per URL with its right fate, refusals naming robots.txt, and a
    trail that ``verify`` re-derives clean."""
    records = url_records(trail)
    assert Counter(r["url"] for r in records) == Counter(urls)  # exactly one each
    assert {r["url"]: r["fate"] for r in records} == {url: expected_fate(url) for url in urls}
    for record in records:
        if record["fate"] == "refused":
            assert record["refused_by"] == "robots.txt", record
            assert record["robots"]["rule"] == "Disallow: /private", record
        if record["fate"] == "failed":
            assert "skipped by the project's own URL filter" in record["why"], record
    assert chain_breaks(trail) == []
    assert len([line for line in lines(trail) if line["type"] == "run"]) == runs
    result = verify(trail)
    assert [str(finding) for finding in result.findings] == []
    assert result.records == len(urls)


@pytest_twisted.ensureDeferred
async def test_audit_trail_with_cache_throttle_jobdir_and_a_filter_then_from_the_cache(
    tmp_path: Path,
) -> None:
    """First a crawl paused and resumed (``JOBDIR``) with every setting on; then the same
    crawl again, answered from Scrapy's HTTP cache: both trails hold one final record
    per URL with the same fates."""
    sites, urls = audit_sites()
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    settings = {
        **BASE_SETTINGS,
        **POLITE,
        **httpcache(tmp_path),
        "REP_CACHE_MAX_ORIGINS": 1,
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}.SkipFilter": 500},
        "LOG_LEVEL": "INFO",
    }
    network, crawler, spider = await paused_then_cached(sites, urls, settings, first, second)
    forbidden = {url for url in urls if "/private/" in url}
    assert not [path for _, path in sites.log if path.startswith(("/private", "/skip"))]
    assert_trail(first, urls, runs=2)
    runs = [line for line in lines(first) if line["type"] == "run"]
    assert runs[1]["resumes"] == runs[0]["run"]
    assert 0 < sum(r["run"] == runs[0]["run"] for r in url_records(first)) < len(urls)
    # The second crawl: everything from Scrapy's cache, robots.txt included.
    assert sites.log[network:] == []
    assert stat(crawler, "httpcache/hit") >= len(urls) - len(forbidden) - 3
    assert sorted(spider.downloaded) == sorted(u for u in urls if expected_fate(u) == "fetched")
    assert_trail(second, urls, runs=1)
    records = by_url(second)
    # Answered by Scrapy's cache: status 200, and no download tried (attempts counts
    # downloads; nothing else in the record says the cache answered).
    assert {(records[url]["status"], records[url]["attempts"]) for url in spider.downloaded} == {
        (200, 0)
    }
    print(sites.log)


# --------------------------------------------------------------------------- media pipelines

JPEG = {"Content-Type": "image/jpeg"}
PDF = {"Content-Type": "application/pdf"}
IMAGES_PIPELINES = {
    "scrapy.pipelines.images.ImagesPipeline": 1,
    "scrapy.pipelines.files.FilesPipeline": 2,
}


class PageMediaSpider(ListSpider):
    """Each page's item: its ``<img>`` sources for ImagesPipeline, its PDF links for
    FilesPipeline."""

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        yield {
            "url": response.url,
            "image_urls": [response.urljoin(u) for u in response.css("img::attr(src)").getall()],
            "file_urls": [response.urljoin(u) for u in response.css("a::attr(href)").getall()],
        }


def media_sites() -> tuple[Sites, dict[str, str]]:
    """A gallery whose images (IPTC in XMP, C2PA/CAWG) and PDFs carry their own statements,
    and a page that says ``noimageai`` over images that allow everything themselves."""
    from tests.support.mediafiles import c2pa_jpeg, jpeg, pdf, xmp_packet

    sites = Sites()
    site = sites.add("site")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    media = sites.add("media")
    media.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    files = {
        "no.jpg": Reply(200, jpeg(xmp_packet("DMI-PROHIBITED"), (200, 0, 0)), JPEG),
        "no-train.jpg": Reply(
            200, jpeg(xmp_packet("DMI-PROHIBITED-AIMLTRAINING"), (0, 200, 0)), JPEG
        ),
        "c2pa-no.jpg": Reply(
            200,
            c2pa_jpeg({"cawg.ai_generative_training": "notAllowed"}, base=jpeg(colour=(6, 6, 6))),
            JPEG,
        ),
        "yes.jpg": Reply(200, jpeg(xmp_packet("DMI-ALLOWED"), (0, 0, 200)), JPEG),
        "plain.jpg": Reply(200, jpeg(colour=(90, 90, 90)), JPEG),
        "noimageai-1.jpg": Reply(200, jpeg(xmp_packet("DMI-ALLOWED"), (10, 20, 30)), JPEG),
        "noimageai-2.jpg": Reply(200, jpeg(colour=(30, 20, 10)), JPEG),
        "no.pdf": Reply(200, pdf(xmp_packet("DMI-PROHIBITED")), PDF),
        "yes.pdf": Reply(200, pdf(xmp_packet("DMI-ALLOWED")), PDF),
    }
    for name, reply in files.items():
        media.script(f"/{name}", reply)
    urls = {name: sites.url("media", f"/{name}") for name in files}

    def page(head: str, images: list[str], links: list[str]) -> Reply:
        body = "".join(f'<img src="{urls[name]}">' for name in images)
        body += "".join(f'<a href="{urls[name]}">{name}</a>' for name in links)
        return Reply(200, f"<html><head>{head}</head><body>{body}</body></html>".encode(), HTML)

    site.script(
        "/gallery",
        page(
            "",
            ["no.jpg", "no-train.jpg", "c2pa-no.jpg", "yes.jpg", "plain.jpg"],
            ["no.pdf", "yes.pdf"],
        ),
    )
    noimageai = '<meta name="robots" content="noimageai">'
    site.script("/protected", page(noimageai, ["noimageai-1.jpg", "noimageai-2.jpg"], []))
    return sites, urls


@pytest_twisted.ensureDeferred
async def test_media_pipelines_for_ai_train_with_cache_throttle_and_download_slots(
    tmp_path: Path,
) -> None:
    """ImagesPipeline and FilesPipeline for ai-train, twice into the same stores: first
    from the network, then from Scrapy's HTTP cache. Each time the files that say "no"
    and the images of the ``noimageai`` page are refused, the rest stored."""
    sites, urls = media_sites()
    pages = [sites.url("site", "/gallery"), sites.url("site", "/protected")]
    images, files = tmp_path / "images", tmp_path / "files"
    settings = {
        **httpcache(tmp_path),
        "REP_PURPOSE": "ai-train",
        "ITEM_PIPELINES": IMAGES_PIPELINES,
        "IMAGES_STORE": str(images),
        "FILES_STORE": str(files),
        "AUTOTHROTTLE_ENABLED": True,
        "AUTOTHROTTLE_START_DELAY": 0.02,
        "AUTOTHROTTLE_MAX_DELAY": 0.1,
        "CONCURRENT_REQUESTS": 2,
        "DOWNLOAD_SLOTS": {"127.0.0.1": {"concurrency": 1, "delay": 0.02, **slot_jitter(0.5)}},
    }
    runs = []
    try:
        for n in (1, 2):
            items: list[Any] = []
            trail = tmp_path / f"trail{n}.jsonl"
            crawler, spider = await crawl(
                pages,
                {**settings, "REP_AUDIT_FILE": str(trail)},
                PageMediaSpider,
                collecting_items(items),
            )
            runs.append((crawler, spider, items, trail, len(sites.log)))
    finally:
        await sites.close()
    names = {url: name for name, url in urls.items()}
    stored_images = {"yes.jpg", "plain.jpg"}
    refused_images = {"no.jpg", "no-train.jpg", "c2pa-no.jpg"}
    for number, (crawler, spider, items, trail, _) in enumerate(runs, 1):
        assert sorted(spider.downloaded) == sorted(pages), number
        by_page = {item["url"]: item for item in items}
        gallery, protected = by_page[pages[0]], by_page[pages[1]]
        results = {names[r["url"]]: r for r in gallery["images"] + gallery["files"]}
        stored = {name for name, r in results.items() if r["path"]}
        assert stored == set(results) == stored_images | {"yes.pdf"}, number
        results = {names[r["url"]]: r for r in gallery["rep_refused_files"]}
        for name in refused_images | {"no.pdf"}:
            assert results[name]["reason"] == results[name]["rep_refused"][0], (number, name)
            statement = "C2PA" if name.startswith("c2pa") else "XMP"
            assert results[name]["rep_refused"][0].startswith(f"ai-train denied by {statement}")
        # The noimageai page's images: taken out of the item, never downloaded.
        assert protected["image_urls"] == []
        assert sorted(protected["rep_image_usage"]["urls"]) == sorted(
            urls[name] for name in ("noimageai-1.jpg", "noimageai-2.jpg")
        )
        assert protected["images"] == [], number
        assert {names[r["url"]] for r in protected.get("rep_refused_files", [])} <= {
            "noimageai-1.jpg",
            "noimageai-2.jpg",
        }
        assert stat(crawler, "rep/purpose/image_urls_refused/ai-train") == 2, number
        assert stat(crawler, "rep/media/refused/ai-train") == 4, number
        assert stat(crawler, "log_count/ERROR") is None
        # On disk: exactly the stored files, whatever the second run replayed.
        assert len(list((images / "full").iterdir())) == len(stored_images)
        assert len(list((files / "full").iterdir())) == 1
        file_records = [line for line in lines(trail) if line["type"] == "file"]
        fates = {names[r["url"]]: r["fate"] for r in file_records}
        assert fates == {
            **{name: "refused" for name in refused_images | {"no.pdf"}},
            **{name: "stored" for name in stored_images | {"yes.pdf"}},
        }, number
        assert [str(f) for f in verify(trail).findings] == []
    requested = [path for name, path in sites.log if name == "media"]
    assert "/noimageai-1.jpg" not in requested and "/noimageai-2.jpg" not in requested
    # The second run came from the cache: nothing reached the sites.
    assert runs[1][4] == runs[0][4]


class ImageLinkSpider(ListSpider):
    """Asks for each ``<img>`` of an HTML page as a request of its own."""

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        if response.headers.get("Content-Type", b"").startswith(b"text/html"):
            for src in response.css("img::attr(src)").getall():
                yield Request(response.urljoin(src), callback=self.parse, errback=self.failed)
            yield {"url": response.url}


async def noimageai_requests(tmp_path: Path) -> tuple[Sites, Any, Any, Path]:
    """A ``noimageai`` page and an open one, each showing images the spider asks for as
    requests; ai-train with the HTTP cache, AutoThrottle and a ``DOWNLOAD_SLOTS`` entry."""
    from tests.support.mediafiles import jpeg

    sites = Sites()
    site = sites.add("site")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    head = '<meta name="robots" content="noimageai">'
    body = '<img src="/i/1.jpg"><img src="/i/2.jpg">'
    site.script("/protected", Reply(200, f"<html><head>{head}</head>{body}</html>".encode(), HTML))
    site.script("/open", Reply(200, b'<html><img src="/i/3.jpg"></html>', HTML))
    for n in (1, 2, 3):
        site.script(f"/i/{n}.jpg", Reply(200, jpeg(colour=(n, 9, 9)), JPEG))
    trail = tmp_path / "trail.jsonl"
    settings = {
        **httpcache(tmp_path),
        "REP_PURPOSE": "ai-train",
        "REP_AUDIT_FILE": str(trail),
        "AUTOTHROTTLE_ENABLED": True,
        "AUTOTHROTTLE_START_DELAY": 0.02,
        "DOWNLOAD_SLOTS": {"127.0.0.1": {"concurrency": 1, "delay": 0.02, **slot_jitter(0.5)}},
    }
    pages = [sites.url("site", "/protected"), sites.url("site", "/open")]
    try:
        crawler, spider = await crawl(pages, settings, ImageLinkSpider)
    finally:
        await sites.close()
    return sites, crawler, spider, trail


@pytest_twisted.ensureDeferred
async def test_media_image_requests_of_a_noimageai_page_are_refused(tmp_path: Path) -> None:
    sites, crawler, spider, trail = await noimageai_requests(tmp_path)
    assert [path for path in sites.requested("site") if path.startswith("/i/")] == ["/i/3.jpg"]
    assert stat(crawler, "rep/purpose/images_refused/ai-train") == 2
    assert sites.url("site", "/i/3.jpg") in spider.downloaded
    page = by_url(trail)[sites.url("site", "/protected")]
    assert page["usage"]["signals"][0]["source"] == '<meta name="robots" content="noimageai">'
    assert [str(f) for f in verify(trail).findings] == []


@pytest_twisted.ensureDeferred
async def test_media_the_trail_names_the_image_requests_noimageai_refused(
    tmp_path: Path,
) -> None:
    """An image request a noimageai page's refusal drops before the scheduler has its
    record, refused with the page's reason, like a request robots.txt refuses (its
    errback is not called: the request is dropped from the spider's output, as a
    nofollow link is). The trail verifies."""
    sites, _, _, trail = await noimageai_requests(tmp_path)
    records = by_url(trail)
    page = sites.url("site", "/protected")
    source = f'<meta name="robots" content="noimageai"> on {page}'
    for n in (1, 2):
        url = sites.url("site", f"/i/{n}.jpg")
        record = records[url]
        assert record["fate"] == "refused" and record["refused_by"] == "purpose", record
        assert record["why"] == (f"Not fetched: ai-train denied by {source} (an image of it)"), (
            record
        )
    assert records[sites.url("site", "/i/3.jpg")]["fate"] == "fetched"
    assert [str(f) for f in verify(trail).findings] == []


# --------------------------------------------------------------------------- RSL licenses

NO_TRAIN = '<prohibits type="usage">ai-train</prohibits>'


#: origin -> the license its robots.txt names ("" none).
RSL_ORIGINS = {
    "notrain1": "/no-train.xml",
    "notrain2": "/no-train.xml",
    "permit1": "/permit.xml",
    "permit2": "/permit.xml",
    "none": "",
}
RSL_PATHS = [f"/p{n}" for n in range(6)] + ["/flaky"]


def rsl_sites() -> tuple[Sites, list[str]]:
    """Two licenses on their own origin, each answering 503 once before its terms; five
    origins (more than the cache holds) naming them; a page on each that answers 503
    once (Scrapy's retries: a 500, which the project keeps out of its HTTP cache)."""
    sites = Sites()
    lic = sites.add("lic")
    lic.script("/no-train.xml", Reply(503), rsl_reply(NO_TRAIN))
    lic.script("/permit.xml", Reply(503), rsl_reply('<permits type="usage">all</permits>'))
    for name, path in RSL_ORIGINS.items():
        line = f"License: {sites.url('lic', path)}\n" if path else ""
        origin = sites.add(name)
        origin.script("/robots.txt", robots(f"User-agent: *\nAllow: /\n{line}"))
        origin.script("/flaky", Reply(500), Reply(200, b"<html>back</html>", HTML))
    urls = [sites.url(name, path) for path in RSL_PATHS for name in RSL_ORIGINS]
    return sites, urls


def assert_rsl_trail(trail: Path, sites: Sites, urls: list[str]) -> None:
    """Every page of a no-train origin refused by the license's own element (never as
    unreachable: the 503 was retried), every other page fetched; one record each."""
    license_url = sites.url("lic", "/no-train.xml")
    records = url_records(trail)
    assert Counter(r["url"] for r in records) == Counter(urls)
    for record in records:
        if "/notrain" in record["url"] or record["url"].startswith(
            (sites.bases["notrain1"], sites.bases["notrain2"])
        ):
            assert record["fate"] == "refused", record
            assert record["refused_by"] == "purpose", record
            assert f"RSL {license_url}" in record["why"] and NO_TRAIN in record["why"], record
        else:
            assert (record["fate"], record["status"]) == ("fetched", 200), record
    assert [str(f) for f in verify(trail).findings] == []


@pytest_twisted.ensureDeferred
async def test_rsl_license_no_with_cache_jobdir_small_caches_and_retries(tmp_path: Path) -> None:
    """ai-train over origins whose robots.txt names RSL licenses: a crawl paused and
    resumed (``JOBDIR``) with Scrapy's HTTP cache, retries and caches of our own too
    small for the origins; then the same crawl answered from Scrapy's cache. The
    license's "no" refuses its origins' pages every time; the license that permits lets
    its pages through although both answered 503 first."""
    sites, urls = rsl_sites()
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    settings = {
        **BASE_SETTINGS,
        **httpcache(tmp_path),
        "REP_PURPOSE": "ai-train",
        "REP_CACHE_MAX_ORIGINS": 2,
        "REP_CACHE_MAX_BYTES": 2048,
        "RETRY_ENABLED": True,
        "RETRY_TIMES": 2,
        # As projects that retry do: a 500 stored in the cache would be replayed to every
        # retry. The licenses' 503 is left to the cache: scrapy_rep must not take it.
        "HTTPCACHE_IGNORE_HTTP_CODES": [500],
        "CONCURRENT_REQUESTS": 2,
        "LOG_LEVEL": "INFO",
    }
    _, crawler, spider = await paused_then_cached(sites, urls, settings, first, second)
    allowed = [
        u for u in urls if not u.startswith((sites.bases["notrain1"], sites.bases["notrain2"]))
    ]
    assert_rsl_trail(first, sites, urls)
    runs = [line for line in lines(first) if line["type"] == "run"]
    assert len(runs) == 2 and runs[1]["resumes"] == runs[0]["run"]
    assert 0 < sum(r["run"] == runs[0]["run"] for r in url_records(first)) < len(urls)
    assert_rsl_trail(second, sites, urls)
    assert sorted(spider.downloaded) == sorted(allowed)
    assert set(spider.dropped) == set(urls) - set(allowed)
    assert stat(crawler, "rep/purpose/requests_dropped/ai-train") == len(urls) - len(allowed)
    # No page of a no-train origin ever reached its site (only its robots.txt and
    # tdmrep.json did).
    asked = {p for name, p in sites.log if name.startswith("notrain")}
    assert asked == {"/robots.txt", "/.well-known/tdmrep.json"}


class OwnSitesOnly:
    """A project's own filter: only the sites it means to crawl (``bases``), by URL."""

    bases: tuple[str, ...] = ()

    def process_request(self, request: Request, spider: Any = None) -> None:
        if not request.url.startswith(self.bases):
            raise IgnoreRequest("not one of this project's sites")


@pytest_twisted.ensureDeferred
async def test_rsl_a_license_another_middleware_ignores_is_not_read_as_no_terms(
    tmp_path: Path,
) -> None:
    """robots.txt names a license the project's own URL filter keeps the crawl from
    downloading: the terms were never read, so they cannot be taken as "no terms"
    (which would fetch the pages the license refuses to ai-train)."""
    sites = Sites()
    sites.add("lic").script("/no-train.xml", rsl_reply(NO_TRAIN))
    license_url = sites.url("lic", "/no-train.xml")
    a = sites.add("a")
    a.script("/robots.txt", robots(f"User-agent: *\nAllow: /\nLicense: {license_url}\n"))
    # Empty bodies of absent documents share the ignored license's (empty) snapshot.
    a.script("/.well-known/tdmrep.json", Reply(404))
    b = sites.add("b")
    b.script("/robots.txt", Reply(404))
    b.script("/.well-known/tdmrep.json", Reply(404))
    OwnSitesOnly.bases = (sites.bases["a"], sites.bases["b"])
    urls = [sites.url("a", p) for p in ("/1", "/2")]
    others = [sites.url("b", p) for p in ("/1", "/2")]
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_PURPOSE": "ai-train",
        "REP_AUDIT_FILE": str(trail),
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}.OwnSitesOnly": 500},
    }
    try:
        _, spider = await crawl(urls + others, settings)
    finally:
        await sites.close()
    assert sites.requested("lic") == []
    assert sorted(spider.downloaded) == sorted(others)
    assert sorted(spider.dropped) == sorted(urls)
    records = by_url(trail)
    for url in urls:
        assert records[url]["fate"] == "refused" and records[url]["refused_by"] == "purpose"
        assert records[url]["why"] == (
            f"Not fetched: ai-train denied by RSL {license_url}: "
            "license document unreadable: not XML (empty)"
        )
    assert [str(f) for f in verify(trail).findings] == []


class OwnPathsOnly:
    """A project's own filter by path: nothing under ``/.well-known/``."""

    def process_request(self, request: Request, spider: Any = None) -> None:
        if "/.well-known/" in request.url:
            raise IgnoreRequest("no .well-known URLs in this project")


@pytest_twisted.ensureDeferred
@pytest.mark.parametrize(
    ("purpose", "action", "fetched"),
    [("ai-train", "drop", False), ("ai-train", "allow", True), ("search", "drop", True)],
)
async def test_tdmrep_a_file_another_middleware_ignores_is_not_read_as_no_reservation(
    tmp_path: Path, purpose: str, action: str, fetched: bool
) -> None:
    """The same with tdmrep.json: it reserves TDM for every path, the project's filter
    keeps the crawl from reading it, and the page must not be fetched for ai-train: the
    file is given up on at once, as an unreachable one is after REP_UNREACHABLE_MAX_WAIT
    (``REP_UNREACHABLE_ACTION = "allow"`` lets it go on; a search crawl reads no
    tdmrep.json). The trail says why and verifies."""
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    reserved = b'[{"location": "/*", "tdm-reservation": 1}]'
    a.script("/.well-known/tdmrep.json", Reply(200, reserved, {"Content-Type": "application/json"}))
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_PURPOSE": purpose,
        "REP_UNREACHABLE_ACTION": action,
        "REP_AUDIT_FILE": str(trail),
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}.OwnPathsOnly": 500},
    }
    page = sites.url("a", "/1")
    try:
        crawler, spider = await crawl([page], settings)
    finally:
        await sites.close()
    assert "/.well-known/tdmrep.json" not in sites.requested("a")
    assert spider.downloaded == ([page] if fetched else [])
    record = by_url(trail)[page]
    if fetched:
        assert record["fate"] == "fetched"
    else:
        message = (
            f"Dropped: tdmrep.json of {sites.bases['a']} not downloaded (IgnoreRequest: no "
            ".well-known URLs in this project): TDM rights taken as reserved for now"
        )
        assert spider.dropped == {page: message}
        assert record["fate"] == "refused" and record["why"] == message
        assert crawler.stats.get_value("rep/requests/dropped/tdmrep_unreachable") == 1
    assert [str(f) for f in verify(trail).findings] == []
