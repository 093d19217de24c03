"""The opt-outs once lost at the standards' edges, and the newer vocabulary
(docs/purpose-notes.md; docs/decisions.md, 'The reading that loses no opt-out'), in real
crawls, each on its own local origin.

One crawl per purpose over all the origins; each asserts the exact sets of URLs fetched,
URLs not fetched, and items kept. The crawler is ``TestBot`` (robotsite.BASE_SETTINGS).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_twisted

from tests.support.robotsite import (
    HTML,
    ItemSpider,
    ListSpider,
    Reply,
    Sites,
    collecting_items,
    crawl,
    robots,
)


def edge_sites() -> tuple[Sites, dict[str, str]]:
    sites = Sites()
    paths: dict[str, list[str]] = {}
    # 1. attach-05 §3: Content-Usage ends a run of user-agent lines. Only otherbot's
    # group allows /a; TestBot falls back to "*" (train-ai=n, except /free).
    sites.add("groups").script(
        "/robots.txt",
        robots(
            "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /free train-ai=y\n\n"
            "User-agent: otherbot\nContent-Usage: /a train-ai=y\n"
        ),
    )
    paths["groups"] = ["/a/x", "/free/x"]
    # 2. A line before the first group only adds restrictions: its /a y does not lift
    # the group's n; its /b n adds one.
    sites.add("filewide").script(
        "/robots.txt",
        robots(
            "Content-Usage: /a train-ai=y\nContent-Usage: /b train-ai=n\n"
            "User-agent: *\nContent-Usage: /a train-ai=n\nContent-Usage: /c train-ai=y\n"
        ),
    )
    paths["filewide"] = ["/a/x", "/b/x", "/c/x", "/d"]
    # 3. A bad tdmrep.json entry is skipped (and counted): the next one reserves /a.
    sites.add("tdmbad").script(
        "/.well-known/tdmrep.json",
        Reply(
            200,
            b'[{"location":"/free","tdm-reservation":0},'
            b'{"location":"/a","tdm-reservation":"yes"},{"location":"/","tdm-reservation":1}]',
            {"Content-Type": "application/json"},
        ),
    )
    paths["tdmbad"] = ["/a/x", "/free"]
    # 4. REP_PURPOSE_AGENTS = ["GPTBot"]: its group's Content-Usage and Content-Signal
    # speak for this crawl too, not only its Disallow lines.
    sites.add("agents").script(
        "/robots.txt",
        robots(
            "User-agent: GPTBot\nDisallow: /gpt-no\nContent-Usage: train-ai=n\n"
            "Content-Usage: /free train-ai=y\nContent-Signal: ai-input=no\n\n"
            "User-agent: *\nAllow: /\n"
        ),
    )
    paths["agents"] = ["/page", "/free/x", "/gpt-no"]
    # 6. vocab-08 ai-use: the ai-input purpose, in robots.txt and in the header.
    vocab = sites.add("vocab08")
    vocab.script("/robots.txt", robots("User-agent: *\nContent-Usage: /rag ai-use=n\n"))
    vocab.script(
        "/header",
        Reply(200, b"<html><body>p</body></html>", {**HTML, "Content-Usage": "ai-use=n"}),
    )
    paths["vocab08"] = ["/rag/x", "/header", "/other"]
    # 7. DisallowAITraining / AllowAITraining: train-ai path rules; in the google profile
    # (the default) also Disallow / Allow, as Google's parser reads them.
    sites.add("msft").script(
        "/robots.txt",
        robots(
            "User-agent: *\nDisallowAITraining: /private\nAllowAITraining: /private/ok\nAllow: /\n"
        ),
    )
    paths["msft"] = ["/private/x", "/private/ok/x", "/page"]
    # 8. Content-Signal use=: a condition on use (Cloudflare changelog 2026-08-31), it
    # refuses no purpose: reference and immediate alike.
    sites.add("cfuse").script(
        "/robots.txt", robots("User-agent: *\nContent-Signal: search=yes, use=reference\n")
    )
    sites.add("cfimm").script("/robots.txt", robots("Content-Signal: use=immediate\n"))
    paths["cfuse"] = ["/page"]
    # 9. Google's parser: a NUL ends a line, \v is no separator, and a name after a
    # U+00A0 names nobody (so TestBot keeps the "*" group).
    sites.add("gedge").script(
        "/robots.txt",
        robots(
            "User-agent: *\nDisallow: /nul\x00junk\nDisallow\x0b/vt\n\n"
            "User-agent: \u00a0TestBot\nAllow: /\n"
        ),
    )
    paths["gedge"] = ["/nul/x", "/vt/x"]
    paths["cfimm"] = ["/page"]
    urls = {
        f"{name} {path}": sites.url(name, path) for name, some in paths.items() for path in some
    }
    return sites, urls


#: purpose -> (not fetched, fetched but items dropped); the rest is fetched and kept.
EXPECTED: dict[str, tuple[set[str], set[str]]] = {
    "search": ({"agents /gpt-no", "msft /private/x", "gedge /nul/x"}, set()),
    "ai-train": (
        {"groups /a/x", "filewide /a/x", "filewide /b/x", "tdmbad /a/x"}
        | {"agents /page", "agents /gpt-no", "msft /private/x", "gedge /nul/x"},
        set(),
    ),
    "ai-input": (
        {"tdmbad /a/x", "agents /page", "agents /free/x", "agents /gpt-no", "vocab08 /rag/x"}
        | {"msft /private/x", "gedge /nul/x"},
        {"vocab08 /header"},
    ),
}


async def crawl_edges(
    purpose: str, **extra: Any
) -> tuple[Any, Any, dict[str, str], Sites, list[Any]]:
    sites, urls = edge_sites()
    items: list[Any] = []
    settings = {
        "REP_PURPOSE": purpose,
        "REP_PURPOSE_AGENTS": ["GPTBot"],
        "ITEM_PIPELINES": {},
        **extra,
    }

    connect = collecting_items(items)

    try:
        crawler, spider = await crawl(list(urls.values()), settings, ItemSpider, connect)
    finally:
        await sites.close()
    return crawler, spider, urls, sites, items


def known_names_found(urls: dict[str, str], found: Any) -> set[str]:
    by_url = {url: name for name, url in urls.items()}
    return {by_url[url] for url in found if url in by_url}


@pytest.mark.parametrize("purpose", ["search", "ai-train", "ai-input"])
@pytest_twisted.ensureDeferred
async def test_every_opt_out_in_a_real_crawl_fetched_not_fetched_kept(
    purpose: str, tmp_path: Path
) -> None:
    crawler, spider, urls, sites, items = await crawl_edges(purpose)
    every = set(urls)
    not_fetched, items_dropped = EXPECTED[purpose]
    assert known_names_found(urls, spider.downloaded) == every - not_fetched
    assert known_names_found(urls, spider.dropped) == not_fetched
    assert (
        known_names_found(urls, [item["url"] for item in items])
        == every - not_fetched - items_dropped
    )
    fetched = set(sites.log)
    for name in not_fetched:
        origin, path = name.split(" ")
        assert (origin, path) not in fetched
    skipped = crawler.stats.get_value("rep/tdmrep/entries_skipped")
    assert skipped == (None if purpose == "search" else 1)


@pytest.mark.parametrize(("purpose", "fetched"), [("search", True), ("ai-train", False)])
@pytest_twisted.ensureDeferred
async def test_rfc9309_reads_disallowaitraining_only_as_train_ai(
    purpose: str, fetched: bool
) -> None:
    _, spider, urls, _, _ = await crawl_edges(purpose, REP_PROFILE="rfc9309")
    got = {name for name in known_names_found(urls, spider.downloaded) if name.startswith("msft ")}
    assert got == {"msft /private/ok/x", "msft /page"} | ({"msft /private/x"} if fetched else set())


# --------------------------------------------------------------------------- 5. noimageai


def _png() -> bytes:
    from io import BytesIO

    from PIL import Image

    out = BytesIO()
    Image.new("RGB", (4, 4), (200, 10, 10)).save(out, "PNG")
    return out.getvalue()


GALLERY = (
    b'<html><head><meta name="robots" content="noimageai"></head><body>'
    b'<img src="/img/a.png"><img srcset="/img/b.png 1x, /img/c.png 2x">'
    b'<a href="/page2">next</a><a href="/img/d.png">big</a></body></html>'
)


class GalleryAndImagesSpider(ListSpider):
    """Yields the gallery's item (with image_urls / file_urls) and a request for every
    image and link of the page."""

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        if not response.url.endswith("/gallery"):
            yield {"url": response.url}
            return
        yield {
            "url": response.url,
            "image_urls": [response.urljoin("/img/a.png"), response.urljoin("/img/e.png")],
            "file_urls": [response.urljoin("/doc.pdf"), response.urljoin("/img/c.png")],
        }
        for path in ("/img/a.png", "/img/b.png", "/img/c.png", "/img/d.png", "/page2"):
            yield response.follow(path, callback=self.parse, errback=self.failed)


async def gallery_crawl(
    tmp_path: Path, **settings: Any
) -> tuple[Any, Any, Sites, list[Any], set[str]]:
    sites = Sites()
    site = sites.add("gallery")
    site.script("/gallery", Reply(200, GALLERY, HTML))
    png = _png()
    for name in "abcde":
        site.script(f"/img/{name}.png", Reply(200, png, {"Content-Type": "image/png"}))
    site.script("/doc.pdf", Reply(200, b"%PDF-1.4 doc", {"Content-Type": "application/pdf"}))
    items: list[Any] = []
    refused: dict[str, str] = {}
    every = {
        "ITEM_PIPELINES": {
            "scrapy.pipelines.images.ImagesPipeline": 1,
            "scrapy.pipelines.files.FilesPipeline": 2,
        },
        "IMAGES_STORE": str(tmp_path / "images"),
        "FILES_STORE": str(tmp_path / "files"),
        **settings,
    }

    def connect(crawler: Any) -> None:
        from scrapy_rep.signals import request_refused

        collecting_items(items)(crawler)

        def on_refused(request: Any, message: str, **_: Any) -> None:
            refused[request.url] = message

        crawler.signals.connect(on_refused, signal=request_refused, weak=False)

    try:
        crawler, spider = await crawl(
            [sites.url("gallery", "/gallery")], every, GalleryAndImagesSpider, connect
        )
    finally:
        await sites.close()
    spider.dropped.update(refused)
    stored = {p.name for p in tmp_path.rglob("*") if p.is_file()}
    return crawler, spider, sites, items, stored


def _paths(urls: Any) -> set[str]:
    return {url.split("/", 3)[3] for url in urls}


@pytest_twisted.ensureDeferred
async def test_noimageai_images_are_not_fetched_nor_stored_for_ai(tmp_path: Path) -> None:
    crawler, spider, sites, items, stored = await gallery_crawl(tmp_path, REP_PURPOSE="ai-train")
    served = {path for _, path in sites.log}
    # Fetched: the page, its link, the PDF of file_urls; never an image of the page.
    assert served == {"/robots.txt", "/.well-known/tdmrep.json", "/gallery", "/page2", "/doc.pdf"}
    assert _paths(spider.downloaded) == {"gallery", "page2"}
    # refused: the page's image requests, and the image URLs its item carried (e.png only
    # there), each a refusal the trail records
    assert _paths(spider.dropped) == {
        "img/a.png", "img/b.png", "img/c.png", "img/d.png", "img/e.png"
    }  # fmt: skip
    assert all("noimageai" in why for why in spider.dropped.values())
    # Kept: both page items (noimageai says nothing about the page's text), without the
    # image URLs, with the record of what was refused and why.
    gallery = next(item for item in items if item["url"].endswith("/gallery"))
    assert _paths(gallery["image_urls"]) == set() and _paths(gallery["file_urls"]) == {"doc.pdf"}
    record = gallery["rep_image_usage"]
    assert record["purposes"] == ["ai-train", "ai-input"]
    assert record["source"].startswith('<meta name="robots" content="noimageai"> on http')
    assert _paths(record["urls"]) == {"img/a.png", "img/e.png", "img/c.png"}
    # FilesPipeline stores only the PDF; the images noimageai took out of the item are
    # listed as refused, saying why (combined with the media reading, docs/media.md).
    files = {f["url"].rsplit("/", 1)[1]: f for f in gallery["files"] + gallery["images"]}
    assert list(files) == ["doc.pdf"] and files["doc.pdf"]["status"] == "downloaded"
    refused_files = {f["url"].rsplit("/", 1)[1]: f for f in gallery["rep_refused_files"]}
    assert set(refused_files) <= {"a.png", "e.png", "c.png"} and refused_files
    for refused in refused_files.values():
        assert any("noimageai" in why for why in refused["rep_refused"])
    assert len(stored) == 1 and next(iter(stored)).endswith(".pdf")
    assert crawler.stats.get_value("rep/purpose/images_refused/ai-train") == 4
    assert crawler.stats.get_value("rep/purpose/image_urls_refused/ai-train") == 3


@pytest_twisted.ensureDeferred
async def test_an_image_url_taken_out_of_an_item_is_a_refusal_with_a_record(
    tmp_path: Path,
) -> None:
    """The page's noimageai took its images out of the item (``e.png``, in no request of
    the page), counted with no signal and no trail record: each is refused as the page's
    image requests are, its record a request the media pipeline never made (unscheduled),
    refused for the purpose, saying what said it; the trail verifies."""
    from tests.support.audittrail import url_records

    trail = tmp_path / "trail.jsonl"
    crawler, spider, _, _, _ = await gallery_crawl(
        tmp_path, REP_PURPOSE="ai-train", REP_AUDIT_FILE=str(trail)
    )
    assert "img/e.png" in _paths(spider.dropped)
    [record] = [r for r in url_records(trail) if r["url"].endswith("/img/e.png")]
    assert (record["fate"], record["refused_by"], record["unscheduled"]) == (
        "refused", "purpose", True
    )  # fmt: skip
    assert record["why"].startswith('Not fetched: ai-train denied by <meta name="robots"')
    assert record["why"].endswith("(an image of it)") and record["attempts"] == 0
    assert crawler.stats.get_value("rep/purpose/image_urls_refused/ai-train") == 3


@pytest_twisted.ensureDeferred
async def test_noimageai_images_are_marked_under_mark(tmp_path: Path) -> None:
    crawler, spider, _, items, _ = await gallery_crawl(
        tmp_path, REP_PURPOSE="ai-input", REP_PURPOSE_ACTION="mark"
    )
    assert _paths(spider.downloaded) == {
        "gallery", "page2", "img/a.png", "img/b.png", "img/c.png", "img/d.png"
    }  # fmt: skip
    by_path = {item["url"].split("/", 3)[3]: item for item in items}
    # Each image's own decision includes the page's noimageai (ai-input denied).
    for name in "abcd":
        usage = by_path[f"img/{name}.png"]["rep_usage"]
        assert usage["a"]["ai-input"] is False and usage["a"]["ai-train"] is False
        assert "noimageai" in usage["s"][usage["by"]["ai-input"]]["src"]
    assert by_path["page2"]["rep_usage"]["a"]["ai-input"] is None
    gallery = by_path["gallery"]
    assert _paths(gallery["rep_image_usage"]["urls"]) == {"img/a.png", "img/e.png", "img/c.png"}
    assert gallery["rep_usage"]["a"]["ai-input"] is None  # the page's text is not an image
    assert crawler.stats.get_value("rep/purpose/images_marked") == 4


@pytest_twisted.ensureDeferred
async def test_noimageai_says_nothing_to_a_search_crawl(tmp_path: Path) -> None:
    _, spider, _, items, stored = await gallery_crawl(tmp_path, REP_PURPOSE="search")
    assert len(stored) == 4  # two images (a, e) and two files (doc.pdf, c.png)
    assert len(spider.downloaded) == 6 and not spider.dropped
    gallery = next(item for item in items if item["url"].endswith("/gallery"))
    assert len(gallery["images"]) == 2 and len(gallery["files"]) == 2
    assert "rep_image_usage" not in gallery
