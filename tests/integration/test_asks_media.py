"""``noindex`` / ``noimageindex`` on downloaded files (and a page's ``noimageindex`` for the
images it shows), ``noml`` and ``noarchive`` in a file's ``X-Robots-Tag``, in real crawls
through both ``ImagesPipeline`` and ``FilesPipeline`` (docs/media.md, "The file's own
headers"): an ``ai-train`` crawl refuses the files that say so, the audit trail's ``file``
records name the header that decided, ``audit verify`` finds the trail clean and a
marking crawl's ``audit export`` says "disallowed"; ``REP_MEDIA_NOINDEX_MEANS_NO_AI =
False`` stores them.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest_twisted

from rep_audit.cli import main
from rep_audit.cliargs import EXIT_CLEAN
from rep_audit.verify import verify
from rep_engine.trail.read import Trail
from tests.support.mediafiles import jpeg, pdf, png, xmp_packet
from tests.support.robotsite import BothSpider, ListSpider, Reply, Sites, collecting_items, crawl

SETTING = " (REP_MEDIA_NOINDEX_MEANS_NO_AI)"
#: name -> (X-Robots-Tag, the source that denies ai-train, or "" when stored).
IMAGES = {
    "noindex.jpg": ("noindex", "X-Robots-Tag: noindex" + SETTING),
    "noimageindex.png": ("noimageindex", "X-Robots-Tag: noimageindex" + SETTING),
    "none.jpg": ("none", "X-Robots-Tag: none" + SETTING),
    "ours.png": ("TestBot: noindex", "X-Robots-Tag: TestBot: noindex" + SETTING),
    "other.jpg": ("otherbot: noindex", ""),
    "noml.png": ("noml", "X-Robots-Tag: noml"),
    "noarchive.jpg": ("noarchive", "X-Robots-Tag: noarchive (REP_NOARCHIVE_MEANS_NO_AI_TRAIN)"),
    "plain.png": ("", ""),
}
FILES = {
    "noindex.pdf": ("noindex", "X-Robots-Tag: noindex" + SETTING),
    "noimageindex.pdf": ("noimageindex", "X-Robots-Tag: noimageindex" + SETTING),
    "plain.pdf": ("", ""),
}
EVERY = {**IMAGES, **FILES}
INDEXED = {name for name, (_, source) in EVERY.items() if source.endswith(SETTING)}
REFUSED = {name for name, (_, source) in EVERY.items() if source}


def body(name: str, index: int) -> tuple[bytes, str]:
    if name.endswith(".pdf"):
        return pdf(xmp_packet("DMI-UNSPECIFIED") + name.encode()), "application/pdf"
    colour = (index * 20, 40, 40)
    if name.endswith(".png"):
        return png(colour=colour), "image/png"
    return jpeg(colour=colour), "image/jpeg"


async def crawl_files(
    tmp_path: Path, purpose: str, **settings: Any
) -> tuple[Path, dict[str, str], dict[str, dict[str, Any]], Any]:
    sites = Sites()
    site = sites.add("media")
    for index, (name, (value, _)) in enumerate(EVERY.items()):
        data, kind = body(name, index)
        headers = {"Content-Type": kind, **({"X-Robots-Tag": value} if value else {})}
        site.script(f"/{name}", Reply(200, data, headers))
    urls = {name: sites.url("media", f"/{name}") for name in EVERY}
    BothSpider.file_urls = [urls[name] for name in FILES]
    BothSpider.image_urls = [urls[name] for name in IMAGES]
    trail = tmp_path / f"trail-{purpose}.jsonl"
    items: list[Any] = []
    every = {
        "REP_PURPOSE": purpose,
        "REP_AUDIT_FILE": str(trail),
        "ITEM_PIPELINES": {
            "scrapy.pipelines.images.ImagesPipeline": 1,
            "scrapy.pipelines.files.FilesPipeline": 2,
        },
        "IMAGES_STORE": str(tmp_path / f"images-{purpose}"),
        "FILES_STORE": str(tmp_path / f"files-{purpose}"),
        **settings,
    }
    try:
        crawler, _ = await crawl(
            [sites.url("media", "/")], every, BothSpider, collecting_items(items)
        )
    finally:
        await sites.close()
    (item,) = items
    name_of = {url: name for name, url in urls.items()}
    results = {name_of[r["url"]]: r for r in [*item["images"], *item["files"]]}
    for refused in item.get("rep_refused_files", []):
        results[name_of[refused["url"]]] = refused
    return trail, urls, results, crawler


def file_records(trail: Path) -> dict[str, dict[str, Any]]:
    return {
        str(line.record["url"]).rsplit("/", 1)[1]: line.record
        for line in Trail(trail).lines()
        if line.type == "file" and line.record is not None
    }


@pytest_twisted.ensureDeferred
async def test_ai_train_refuses_files_whose_header_says_noindex_and_the_trail_names_it(
    tmp_path: Path,
) -> None:
    trail, _, results, crawler = await crawl_files(tmp_path, "ai-train")
    stored = {name for name, result in results.items() if result.get("path")}
    assert stored == set(EVERY) - REFUSED
    for name in REFUSED:
        result = results[name]
        assert "path" not in result and result["purpose"] == "ai-train", name
        assert result["signal"] == EVERY[name][1]
        assert result["rep_refused"] == [f"ai-train denied by {EVERY[name][1]}"]
    files = file_records(trail)
    assert set(files) == set(EVERY)
    for name, record in files.items():
        assert record["fate"] == ("refused" if name in REFUSED else "stored"), name
        if name in REFUSED:
            usage = record["usage"]
            said = usage["signals"][usage["decided_by"]["ai-train"]]
            assert said["source"] == EVERY[name][1] and said["vocabulary"] == "robots-meta"
            assert record["why"] == f"ai-train denied by {EVERY[name][1]}"
    stats = crawler.stats
    assert stats.get_value("rep/media/refused/ai-train") == len(REFUSED)
    result = verify(trail)
    assert result.clean, result.findings


@pytest_twisted.ensureDeferred
async def test_ai_input_refuses_noindex_noml_and_noarchive(tmp_path: Path) -> None:
    _, _, results, _ = await crawl_files(tmp_path, "ai-input")
    refused = {name for name, result in results.items() if not result.get("path")}
    assert refused == REFUSED
    assert results["noarchive.jpg"]["rep_refused"] == [
        "ai-input denied by X-Robots-Tag: noarchive (REP_NOARCHIVE_MEANS_NO_AI_INPUT)"
    ]
    assert results["noindex.pdf"]["rep_refused"] == [
        "ai-input denied by X-Robots-Tag: noindex" + SETTING
    ]


@pytest_twisted.ensureDeferred
async def test_with_the_setting_off_noindex_files_are_stored(tmp_path: Path) -> None:
    trail, _, results, _ = await crawl_files(
        tmp_path, "ai-train", REP_MEDIA_NOINDEX_MEANS_NO_AI=False
    )
    refused = {name for name, result in results.items() if not result.get("path")}
    assert refused == REFUSED - INDEXED == {"noml.png", "noarchive.jpg"}
    assert file_records(trail)["noindex.jpg"]["fate"] == "stored"


@pytest_twisted.ensureDeferred
async def test_the_export_of_a_marking_crawl_says_the_files_are_disallowed(
    tmp_path: Path,
) -> None:
    trail, urls, results, _ = await crawl_files(tmp_path, "ai-train", REP_PURPOSE_ACTION="mark")
    assert all(result.get("path") for result in results.values())  # every file stored
    out = io.StringIO()
    assert main(["export", str(trail)], out) == EXIT_CLEAN
    header, *assets = (json.loads(line) for line in out.getvalue().splitlines())
    assert header["assets"]["files"] == len(EVERY)
    name_of = {url: name for name, url in urls.items()}
    by_name = {name_of[a["url"]]: a for a in assets if a["asset"] == "file"}
    for name, asset in by_name.items():
        answer = asset["preferences"]["ai-train"]
        assert answer == ("disallowed" if name in REFUSED else "unknown"), name
        if name == "noarchive.jpg":  # its ai-input reading is listed too
            assert [s["source"] for s in asset["signals"]] == [
                EVERY[name][1],
                EVERY[name][1].replace("TRAIN", "INPUT"),
            ]
        elif name in REFUSED:
            assert [s["source"] for s in asset["signals"]] == [EVERY[name][1]]
    result = verify(trail)
    assert result.clean, result.findings


# --------------------------------------------------------------------------- a page's images

GALLERY = (
    b'<html><head><meta name="robots" content="noimageindex"></head><body>'
    b'<img src="/img/a.png"><a href="/img/b.png">big</a><a href="/page2">next</a></body></html>'
)


class GalleryItemSpider(ListSpider):
    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        if response.url.endswith("/gallery"):
            yield {
                "url": response.url,
                "image_urls": [response.urljoin("/img/a.png")],
                "file_urls": [response.urljoin("/doc.pdf")],
            }
            for path in ("/img/b.png", "/page2"):
                yield response.follow(path, callback=self.parse, errback=self.failed)


async def gallery(tmp_path: Path, **settings: Any) -> tuple[Any, Any, Path, list[Any]]:
    sites = Sites()
    site = sites.add("gallery")
    site.script("/gallery", Reply(200, GALLERY, {"Content-Type": "text/html"}))
    site.script("/page2", Reply(200, b"<html><body>2</body></html>", {"Content-Type": "text/html"}))
    for index, name in enumerate("ab"):
        site.script(
            f"/img/{name}.png", Reply(200, png(colour=(index, 9, 9)), {"Content-Type": "image/png"})
        )
    site.script(
        "/doc.pdf",
        Reply(200, pdf(xmp_packet("DMI-UNSPECIFIED")), {"Content-Type": "application/pdf"}),
    )
    tmp_path.mkdir(exist_ok=True)
    trail = tmp_path / "trail.jsonl"
    items: list[Any] = []
    every = {
        "REP_PURPOSE": "ai-train",
        "REP_AUDIT_FILE": str(trail),
        "ITEM_PIPELINES": {
            "scrapy.pipelines.images.ImagesPipeline": 1,
            "scrapy.pipelines.files.FilesPipeline": 2,
        },
        "IMAGES_STORE": str(tmp_path / "images"),
        "FILES_STORE": str(tmp_path / "files"),
        **settings,
    }  # fmt: skip
    try:
        crawler, spider = await crawl(
            [sites.url("gallery", "/gallery")], every, GalleryItemSpider, collecting_items(items)
        )
    finally:
        await sites.close()
    return crawler, spider, trail, items


@pytest_twisted.ensureDeferred
async def test_a_pages_noimageindex_keeps_its_images_out_of_an_ai_train_crawl(
    tmp_path: Path,
) -> None:
    """As noimageai does: the linked image is not fetched, the item's image URL is taken
    out and listed as refused; unless REP_MEDIA_NOINDEX_MEANS_NO_AI is off."""
    crawler, spider, trail, items = await gallery(tmp_path)
    downloaded = {url.rsplit("/", 1)[1] for url in spider.downloaded}
    assert downloaded == {"gallery", "page2"}  # the linked image was refused
    (item,) = items
    assert item["image_urls"] == [] and [f["url"].rsplit("/", 1)[1] for f in item["files"]] == [
        "doc.pdf"
    ]
    (refused,) = item["rep_refused_files"]
    source = f'<meta name="robots" content="noimageindex"> on {item["url"]}'
    assert refused["url"].endswith("/img/a.png") and refused["signal"] == source
    assert refused["rep_refused"] == [f"ai-train denied by {source}"]
    records = {
        str(line.record["url"]).rsplit("/", 1)[1]: line.record
        for line in Trail(trail).lines()
        if line.type == "url" and line.record is not None
    }
    linked = records["b.png"]
    assert linked["fate"] == "refused" and linked["refused_by"] == "purpose"
    assert source in linked["why"]
    assert crawler.stats.get_value("rep/purpose/images_refused/ai-train") == 1
    assert crawler.stats.get_value("rep/purpose/image_urls_refused/ai-train") == 1
    result = verify(trail)
    assert result.clean, result.findings

    # REP_MEDIA_NOINDEX_MEANS_NO_AI = False: the page's noimageindex says nothing to AI
    _, spider, _, items = await gallery(tmp_path / "off", REP_MEDIA_NOINDEX_MEANS_NO_AI=False)
    downloaded = {url.rsplit("/", 1)[1] for url in spider.downloaded}
    assert downloaded == {"gallery", "page2", "b.png"}
    (item,) = items
    assert [f["url"].rsplit("/", 1)[1] for f in item["images"]] == ["a.png"]
    assert "rep_refused_files" not in item
