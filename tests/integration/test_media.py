"""Real crawls with Scrapy's ImagesPipeline and FilesPipeline over images that carry
their own opt-out (IPTC Data Mining in XMP, C2PA/CAWG), served by a local twisted.web
origin: for ai-train only the allowed images are stored, for search all of them."""

from __future__ import annotations

import json
import logging
import struct
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted

from rep_engine.usage.media.c2pa import available
from tests.support.mediafiles import (
    DMI_VALUES,
    c2pa_jpeg,
    encoded,
    jpeg,
    libtiff_tiff,
    pdf,
    png,
    png_chunk,
    png_raw_profile,
    png_with,
    tiff_fan_out,
    tiff_in,
    xmp_packet,
)
from tests.support.robotsite import (
    BothSpider,
    ListSpider,
    Recorder,
    Reply,
    Sites,
    collecting_items,
    crawl,
    robots,
)
from tests.support.tools import audit_tool

JPEG = {"Content-Type": "image/jpeg"}
PNG = {"Content-Type": "image/png"}
BOMB = (
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
    b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><x><plus:DataMining '
    b'xmlns:plus="http://ns.useplus.org/ldf/xmp/1.0/">&b;</plus:DataMining></x>'
)
#: What ai-train refuses among the DataMining values (the rest it stores).
TRAIN_REFUSED = {v for v in DMI_VALUES if v.startswith("DMI-PROHIBITED")}
INPUT_REFUSED = TRAIN_REFUSED - {"DMI-PROHIBITED-AIMLTRAINING", "DMI-PROHIBITED-GENAIMLTRAINING"}


def image_sites() -> tuple[Sites, dict[str, str]]:
    sites = Sites()
    img = sites.add("img")
    paths: dict[str, str] = {}
    for index, value in enumerate(DMI_VALUES):
        colour = (index * 20, 10, 10)
        img.script(f"/{value}.jpg", Reply(200, jpeg(xmp_packet(value), colour), JPEG))
        img.script(f"/{value}.png", Reply(200, png(xmp_packet(value), colour=colour), PNG))
        paths[f"{value}.jpg"] = f"/{value}.jpg"
        paths[f"{value}.png"] = f"/{value}.png"
    img.script("/plain.jpg", Reply(200, jpeg(colour=(9, 9, 9)), JPEG))
    img.script("/bomb.jpg", Reply(200, jpeg(BOMB, colour=(8, 8, 8)), JPEG))
    img.script(
        "/noai-header.jpg", Reply(200, jpeg(colour=(7, 7, 7)), {**JPEG, "X-Robots-Tag": "noai"})
    )
    # Hostile but decodable: 40 packets (the cap is 16), a 2 MB packet saying prohibited.
    many = jpeg([xmp_packet("DMI-ALLOWED")] * 40, colour=(5, 5, 5))
    img.script("/many.jpg", Reply(200, many, JPEG))
    huge = xmp_packet("DMI-PROHIBITED", extra="<dc:x>" + "z" * 2_000_000 + "</dc:x>")
    img.script("/huge.png", Reply(200, png(huge, colour=(4, 4, 4)), PNG))
    paths.update(
        {"plain.jpg": "/plain.jpg", "bomb.jpg": "/bomb.jpg", "noai-header.jpg": "/noai-header.jpg"}
    )
    paths.update({"many.jpg": "/many.jpg", "huge.png": "/huge.png"})
    if available():
        c2pa = c2pa_jpeg({"cawg.ai_generative_training": "notAllowed"}, base=jpeg(colour=(6, 6, 6)))
        img.script("/c2pa.jpg", Reply(200, c2pa, JPEG))
        paths["c2pa.jpg"] = "/c2pa.jpg"
    return sites, {name: sites.url("img", path) for name, path in paths.items()}


class ImageUrlsSpider(ListSpider):
    image_urls: ClassVar[list[str]] = []
    extra: ClassVar[dict[str, Any]] = {}

    def parse(self, response: Any) -> Any:
        yield {"image_urls": list(self.image_urls), **self.extra}


def build_cdn() -> tuple[Sites, dict[str, str]]:
    """Images on another origin than the page, whose robots.txt says things first."""
    sites = Sites()
    cdn = sites.add("cdn")
    cdn.script(
        "/robots.txt",
        robots(
            "User-agent: *\nDisallow: /private/\nAllow: /\nContent-Usage: /nontrain/ train-ai=n\n"
        ),
    )
    paths = {
        "private.jpg": "/private/a.jpg",
        "nontrain.jpg": "/nontrain/b.jpg",
        "ok.jpg": "/ok/c.jpg",
    }
    for index, path in enumerate(paths.values()):
        cdn.script(path, Reply(200, jpeg(colour=(index, 50, 50)), JPEG))
    sites.add("img")  # the page
    return sites, {name: sites.url("cdn", path) for name, path in paths.items()}


async def crawl_gallery(
    purpose: str,
    tmp_path: Path,
    extra: Any = None,
    build: Any = image_sites,
    reused: bool = False,
    **settings: Any,
) -> dict[str, Any]:
    sites, urls = build()
    ImageUrlsSpider.image_urls = list(urls.values())
    ImageUrlsSpider.extra = extra(urls) if extra else {}
    items: list[Any] = []
    refused: list[dict[str, Any]] = []
    store = Path(settings.pop("IMAGES_STORE", tmp_path / f"store-{purpose}"))

    connect = Recorder(items, {"scrapy_rep.signals.file_refused": refused})

    try:
        crawler, _ = await crawl(
            [sites.url("img", "/gallery")],
            {
                "REP_PURPOSE": purpose,
                "ITEM_PIPELINES": {"scrapy.pipelines.images.ImagesPipeline": 1},
                "IMAGES_STORE": str(store),
                **settings,
            },
            ImageUrlsSpider,
            connect,
        )
    finally:
        await sites.close()
    by_url = {url: name for name, url in urls.items()}
    (item,) = items
    # Scrapy's contract: the result field holds only stored files, each with a path;
    # the refused ones are in rep_refused_files.
    assert all(r["path"] for r in item["images"]), item["images"]
    refused_files = {by_url.get(r["url"], r["url"]): r for r in item.get("rep_refused_files", [])}
    results = {by_url.get(r["url"], r["url"]): r for r in item["images"]}
    stored = set(results)
    assert not stored & set(refused_files)
    results.update(refused_files)
    files = set((store / "full").iterdir()) if (store / "full").exists() else set()
    if not reused:
        assert len(files) == len(stored)  # what the item says is stored is what is on disk
    return {"results": results, "stored": stored, "all": set(urls), "stats": crawler.stats,
            "refused": refused, "refused_files": set(refused_files)}  # fmt: skip


def refused_names(values: set[str]) -> set[str]:
    return {f"{v}.{ext}" for v in values for ext in ("jpg", "png")}


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_ai_train_stores_only_the_images_that_allow_it(tmp_path: Path) -> None:
    found = await crawl_gallery("ai-train", tmp_path)
    refused = refused_names(TRAIN_REFUSED) | {"noai-header.jpg", "huge.png"}
    if available():
        refused.add("c2pa.jpg")
    assert found["stored"] == found["all"] - refused
    assert found["refused_files"] == refused
    for name in refused:
        result = found["results"][name]
        assert result["purpose"] == "ai-train" and result["reason"] == result["rep_refused"][0]
        assert result["rep_refused"][0].startswith("ai-train denied by ")
        assert result["reason"] == f"ai-train denied by {result['signal']}"
    assert found["results"]["DMI-PROHIBITED.png"]["rep_refused"] == [
        "ai-train denied by XMP plus:DataMining DMI-PROHIBITED"
    ]
    assert found["results"]["noai-header.jpg"]["rep_refused"] == [
        "ai-train denied by X-Robots-Tag: noai"
    ]
    assert "rep_unreadable" in found["results"]["bomb.jpg"]  # unreadable, stored
    assert found["results"]["many.jpg"]["rep_unreadable"] == ["more than 16 XMP packets"]
    assert found["results"]["huge.png"]["rep_refused"] == [
        "ai-train denied by oversized XMP packet mentions DMI-PROHIBITED"
    ]
    stats = found["stats"]
    assert stats.get_value("rep/media/checked") == len(found["all"])
    assert stats.get_value("rep/media/refused/ai-train") == len(refused)
    assert stats.get_value("rep/media/unreadable") == 3  # bomb, many, huge
    assert {event["url"].rsplit("/", 1)[1] for event in found["refused"]} == refused
    deciding = {e["url"].rsplit("/", 1)[1]: e["statement"] for e in found["refused"]}
    assert deciding["DMI-PROHIBITED-SEECONSTRAINT.jpg"] == (
        "XMP plus:DataMining DMI-PROHIBITED-SEECONSTRAINT"
    )
    if available():
        assert deciding["c2pa.jpg"] == (
            "C2PA cawg.training-mining cawg.ai_generative_training: notAllowed"
        )
        assert stats.get_value("rep/media/c2pa_read") == 1


@pytest_twisted.ensureDeferred
async def test_ai_input_refuses_only_what_denies_inference(tmp_path: Path) -> None:
    found = await crawl_gallery("ai-input", tmp_path)
    refused = refused_names(INPUT_REFUSED) | {"noai-header.jpg", "huge.png"}
    assert found["stored"] == found["all"] - refused


@pytest_twisted.ensureDeferred
async def test_search_stores_every_image_and_reads_none(tmp_path: Path) -> None:
    found = await crawl_gallery("search", tmp_path)
    assert found["stored"] == found["all"]
    assert found["stats"].get_value("rep/media/checked") is None
    assert all("rep_refused" not in r for r in found["results"].values())


@pytest_twisted.ensureDeferred
async def test_mark_stores_everything_and_says_which_are_denied(tmp_path: Path) -> None:
    found = await crawl_gallery("ai-train", tmp_path, REP_PURPOSE_ACTION="mark")
    assert found["stored"] == found["all"]
    marked = {name for name, r in found["results"].items() if "rep_refused" in r}
    assert refused_names(TRAIN_REFUSED) <= marked
    assert found["stats"].get_value("rep/media/marked/ai-train") == len(marked)
    assert all(event["stored"] for event in found["refused"])


@pytest_twisted.ensureDeferred
async def test_constraints_met_lets_the_see_constraint_values_through(tmp_path: Path) -> None:
    found = await crawl_gallery("ai-train", tmp_path, REP_MEDIA_CONSTRAINTS_MET=True)
    see = {v for v in DMI_VALUES if "SEE" in v}
    assert refused_names(see) <= found["stored"]
    assert not refused_names(TRAIN_REFUSED - see) & found["stored"]


@pytest_twisted.ensureDeferred
async def test_the_pages_noimageai_and_the_files_own_no_are_both_given(tmp_path: Path) -> None:
    """The page-directives middleware leaves a page's noimageai on the item
    (``rep_image_usage``); a file refused by either is refused, with both reasons."""
    source = '<meta name="robots" content="noimageai"> on http://x/gallery'

    def record(urls: dict[str, str]) -> dict[str, Any]:
        return {
            "rep_image_usage": {
                "purposes": ["ai-train", "ai-input"],
                "source": source,
                "page": "http://x/gallery",
                "urls": [urls["DMI-PROHIBITED.jpg"], urls["DMI-ALLOWED.jpg"], "http://gone/x.jpg"],
            }
        }

    found = await crawl_gallery("ai-train", tmp_path, record)
    assert found["results"]["DMI-PROHIBITED.jpg"]["rep_refused"] == [
        f"ai-train denied by {source}",
        "ai-train denied by XMP plus:DataMining DMI-PROHIBITED",
    ]
    assert found["results"]["DMI-ALLOWED.jpg"]["rep_refused"] == [f"ai-train denied by {source}"]
    assert "DMI-ALLOWED.jpg" not in found["stored"]
    # A URL the page's noimageai took out of the item before download is named too.
    gone = found["results"]["http://gone/x.jpg"]
    assert "http://gone/x.jpg" in found["refused_files"] and "path" not in gone
    assert gone["rep_refused"] == [f"ai-train denied by {source}"]
    assert gone["signal"] == source and gone["purpose"] == "ai-train"


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_files_refused_before_download_are_named_in_the_item(tmp_path: Path) -> None:
    """Images on another origin: robots.txt disallows one, its Content-Usage denies
    ai-train for another; neither is downloaded, and the item says why."""
    found = await crawl_gallery("ai-train", tmp_path, build=build_cdn)
    assert found["stored"] == {"ok.jpg"}
    private, nontrain = found["results"]["private.jpg"], found["results"]["nontrain.jpg"]
    assert found["refused_files"] == {"private.jpg", "nontrain.jpg"}
    assert private["rep_refused"][0].startswith("Forbidden by http://127.0.0.1:")
    assert private["rep_refused"][0].endswith("/robots.txt (line 2: Disallow: /private/)")
    assert nontrain["rep_refused"] == [
        "Not fetched: ai-train denied by robots.txt line 4: Content-Usage: /nontrain/ train-ai=n"
    ]
    assert nontrain["reason"] == nontrain["rep_refused"][0] and nontrain["purpose"] == "ai-train"
    assert nontrain["signal"] == "robots.txt line 4: Content-Usage: /nontrain/ train-ai=n"
    assert private["signal"].endswith("/robots.txt line 2: Disallow: /private/")
    assert found["stats"].get_value("rep/media/checked") == 1  # only ok.jpg was downloaded


@pytest_twisted.ensureDeferred
async def test_a_search_crawl_leaves_out_a_file_robots_txt_disallows_without_an_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Without the files' check (search), a file the origin's robots.txt disallows is
    left out of the item as Scrapy 2.18 leaves out a filtered request: the refusal's
    stat, one DEBUG line of the pipeline, no ERROR (the crawl helper checks there is
    none; Scrapy 2.13 to 2.17 log one for every refused media request)."""
    caplog.set_level(logging.DEBUG)
    found = await crawl_gallery("search", tmp_path, build=build_cdn)
    assert found["stored"] == {"ok.jpg", "nontrain.jpg"}  # Content-Usage: not for search
    assert found["refused_files"] == set()
    assert found["stats"].get_value("robotstxt/forbidden") == 1
    assert found["stats"].get_value("log_count/ERROR") is None
    filtered = [r.getMessage() for r in caplog.records if "File (filtered)" in r.getMessage()]
    assert len(filtered) == 1 and "/private/a.jpg" in filtered[0], filtered
    assert filtered[0].endswith("/robots.txt (line 2: Disallow: /private/)"), filtered


@pytest.mark.parametrize("listed", ["scrapy.pipelines.images.ImagesPipeline", "own-subclass"])
def test_the_addon_wraps_each_files_pipeline_keeping_its_name(listed: str) -> None:
    from scrapy.pipelines.images import ImagesPipeline
    from scrapy.settings import Settings

    from scrapy_rep.crawl.addon import Addon
    from scrapy_rep.crawl.media.pipelines import MediaUsageMixin

    class MyImages(ImagesPipeline):
        pass

    key: Any = MyImages if listed == "own-subclass" else listed
    for purpose, wrapped in (("ai-train", True), ("search", False)):
        settings = Settings({"ITEM_PIPELINES": {key: 300}, "REP_PURPOSE": purpose})
        Addon().update_settings(settings)
        ((cls, priority),) = settings.getdict("ITEM_PIPELINES").items()
        assert priority == 300
        assert (
            issubclass(cls if isinstance(cls, type) else ImagesPipeline, MediaUsageMixin) is wrapped
        )
        if wrapped:
            assert cls.__name__ == ("MyImages" if listed == "own-subclass" else "ImagesPipeline")


def test_without_c2pa_python_the_crawl_says_once_that_c2pa_is_not_read(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import sys

    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    from scrapy_rep.crawl.media import pipelines

    monkeypatch.setitem(sys.modules, "c2pa", None)
    monkeypatch.setattr(pipelines, "_told_c2pa", False)
    for purpose in ("ai-train", "ai-train", "search"):
        pipelines.MediaGate(get_crawler(Spider, {"REP_PURPOSE": purpose}))
    said = [r for r in caplog.records if "C2PA statements in downloaded files" in r.message]
    assert len(said) == 1 and said[0].levelname == "WARNING"


@pytest_twisted.ensureDeferred
async def test_a_copy_stored_earlier_is_read_again_not_taken_as_up_to_date(
    tmp_path: Path,
) -> None:
    """A first crawl marks and stores everything; a second one into the same store must
    not take the stored copies as up to date (FILES_EXPIRES) without reading them."""
    sites, urls = image_sites()
    ImageUrlsSpider.image_urls = list(urls.values())
    ImageUrlsSpider.extra = {}
    items: list[Any] = []

    connect = collecting_items(items)

    settings = {
        "REP_PURPOSE": "ai-train",
        "ITEM_PIPELINES": {"scrapy.pipelines.images.ImagesPipeline": 1},
        "IMAGES_STORE": str(tmp_path / "store"),
    }
    try:
        page = [sites.url("img", "/gallery")]
        await crawl(page, {**settings, "REP_PURPOSE_ACTION": "mark"}, ImageUrlsSpider, connect)
        await crawl(page, settings, ImageUrlsSpider, connect)
    finally:
        await sites.close()
    first, second = ({r["url"]: r["status"] for r in item["images"]} for item in items)
    assert set(first.values()) == {"downloaded"}  # all stored, the refused ones marked
    refused = {urls[name] for name in refused_names(TRAIN_REFUSED)}
    assert {r["url"] for r in items[1]["rep_refused_files"]} >= refused
    assert not refused & set(second)
    assert "uptodate" not in second.values()


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_files_pipeline_with_pdfs(tmp_path: Path) -> None:
    sites = Sites()
    docs = sites.add("docs")
    docs.script(
        "/no.pdf",
        Reply(200, pdf(xmp_packet("DMI-PROHIBITED")), {"Content-Type": "application/pdf"}),
    )
    docs.script(
        "/yes.pdf", Reply(200, pdf(xmp_packet("DMI-ALLOWED")), {"Content-Type": "application/pdf"})
    )
    items: list[Any] = []
    FileSpider.file_urls = [sites.url("docs", "/no.pdf"), sites.url("docs", "/yes.pdf")]

    connect = collecting_items(items)

    try:
        await crawl(
            [sites.url("docs", "/")],
            {
                "REP_PURPOSE": ["search", "ai-input"],
                "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 1},
                "FILES_STORE": str(tmp_path / "files"),
            },
            FileSpider,
            connect,
        )
    finally:
        await sites.close()
    (item,) = items
    by_name = {r["url"].rsplit("/", 1)[1]: r for r in item["files"]}
    assert set(by_name) == {"yes.pdf"} and by_name["yes.pdf"]["status"] == "downloaded"
    (refused,) = item["rep_refused_files"]
    assert refused["url"].endswith("/no.pdf") and refused["purpose"] == "search"
    assert refused["rep_refused"] == [  # plain Prohibited covers search too
        "search denied by XMP plus:DataMining DMI-PROHIBITED"
    ]
    assert len(list((tmp_path / "files" / "full").iterdir())) == 1


class FileSpider(ListSpider):
    file_urls: ClassVar[list[str]] = []

    def parse(self, response: Any) -> Any:
        yield {"file_urls": list(self.file_urls)}


def build_truncated() -> tuple[Sites, dict[str, str]]:
    """A cut file that says prohibited before the cut, beside a good one."""
    sites = Sites()
    img = sites.add("img")
    cut = jpeg(xmp_packet("DMI-PROHIBITED"), colour=(3, 3, 3))
    img.script("/cut.jpg", Reply(200, cut[: len(cut) - 200], JPEG))
    img.script("/ok.jpg", Reply(200, jpeg(colour=(2, 2, 2)), JPEG))
    return sites, {"cut.jpg": sites.url("img", "/cut.jpg"), "ok.jpg": sites.url("img", "/ok.jpg")}


@pytest_twisted.ensureDeferred
async def test_a_truncated_file_is_refused_by_what_it_said_and_loses_nothing_else(
    tmp_path: Path,
) -> None:
    found = await crawl_gallery("ai-train", tmp_path, build=build_truncated)
    assert found["stored"] == {"ok.jpg"}
    assert found["refused_files"] == {"cut.jpg"}


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_the_audit_trail_records_each_file_with_its_deciding_statement(
    tmp_path: Path,
) -> None:
    """docs/media.md, 'Signals, stats, audit': the audit trail gets the file's record with
    the deciding statement; the trail stays verifiable and ``show`` tells a file's story."""
    from rep_audit.show import story
    from rep_audit.verify import verify
    from rep_engine.trail.read import Trail

    trail = tmp_path / "trail.jsonl"
    found = await crawl_gallery("ai-train", tmp_path, REP_AUDIT_FILE=str(trail))
    files = {
        str(line.record["url"]).rsplit("/", 1)[1]: line.record
        for line in Trail(trail).lines()
        if line.type == "file" and line.record is not None
    }
    assert set(files) == found["all"]  # one record per file read
    refused = {name for name, record in files.items() if record["fate"] == "refused"}
    assert refused == found["refused_files"]
    prohibited = files["DMI-PROHIBITED.png"]
    assert prohibited["refused_for"] == "ai-train"
    assert prohibited["why"] == "ai-train denied by XMP plus:DataMining DMI-PROHIBITED"
    deciding = prohibited["usage"]["signals"][prohibited["usage"]["decided_by"]["ai-train"]]
    assert deciding["source"] == "XMP plus:DataMining DMI-PROHIBITED"
    assert files["DMI-ALLOWED.jpg"]["fate"] == "stored"
    result = verify(trail)
    assert result.clean, result.findings
    text, count = story(trail, prohibited["url"])
    assert count == 2  # its request's record (fetched, with its robots.txt) and its file's
    assert any("not stored" in line for line in text), text
    assert any("DMI-PROHIBITED" in line for line in text)


# --------------------------------------------------------------------------- failures


def nested(head: bytes, depth: int = 1500) -> bytes:
    """``head`` followed by ``depth`` nested ISO BMFF ``moov`` boxes around an XMP packet
    saying DMI-PROHIBITED: RecursionError in the box walk before it was bounded."""
    import struct

    inner = xmp_packet("DMI-PROHIBITED")
    inner = struct.pack(">I", len(inner) + 8) + b"XMP_" + inner
    for _ in range(depth):
        inner = struct.pack(">I", len(inner) + 8) + b"moov" + inner
    return head + inner


def avif() -> bytes:
    """A real AVIF image (Pillow reads it, whatever follows its boxes)."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(buffer, "AVIF")
    return buffer.getvalue()


async def both_crawl(
    tmp_path: Path, files: dict[str, Reply], images: dict[str, Reply], **settings: Any
) -> dict[str, Any]:
    """A crawl with FilesPipeline and ImagesPipeline over ``files`` and ``images``
    (path -> reply), with the audit trail; what the item, the trail and the disk say."""
    from rep_engine.trail.read import Trail

    sites = Sites()
    site = sites.add("media")
    for path, reply in {**files, **images}.items():
        site.script(path, reply)
    BothSpider.file_urls = [sites.url("media", path) for path in files]
    BothSpider.image_urls = [sites.url("media", path) for path in images]
    items: list[Any] = []
    trail = tmp_path / "trail.jsonl"
    from scrapy.utils.test import get_crawler

    from tests.support.robotsite import BASE_SETTINGS

    crawler = get_crawler(
        BothSpider,
        {
            **BASE_SETTINGS,
            "REP_PURPOSE": "ai-train",
            "ITEM_PIPELINES": {
                "scrapy.pipelines.files.FilesPipeline": 1,
                "scrapy.pipelines.images.ImagesPipeline": 2,
            },
            "FILES_STORE": str(tmp_path / "files"),
            "IMAGES_STORE": str(tmp_path / "images"),
            "REP_AUDIT_FILE": str(trail),
            **settings,
        },
    )
    collecting_items(items)(crawler)
    try:  # Scrapy's own pipelines log an ERROR for a file they fail to store: see each test
        await crawler.crawl(urls=[sites.url("media", "/")])
    finally:
        await sites.close()
    (item,) = items
    records = [line.record for line in Trail(trail).lines() if line.type == "file" and line.record]
    on_disk = [path.name for store in ("files", "images") for path in (tmp_path / store).rglob("*")]
    return {"item": item, "records": records, "stats": crawler.stats, "on_disk": on_disk}


def name(url: object) -> str:
    return str(url).rsplit("/", 1)[1]


def our_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """ERROR lines of scrapy_rep's own loggers (Scrapy's pipelines log their own)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.ERROR and r.name.startswith("scrapy_rep")
    ]


@pytest_twisted.ensureDeferred
async def test_media_that_breaks_the_reader_is_refused_with_one_record(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """1,500 nested ISO BMFF boxes (an MP4 for FilesPipeline, a real AVIF for
    ImagesPipeline) raised RecursionError: logged as an ERROR and stored, with no
    file record. The walk is bounded; the DMI-PROHIBITED inside keeps its "no"."""
    mp4_head = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isommp41"
    found = await both_crawl(
        tmp_path,
        {"/deep.mp4": Reply(200, nested(mp4_head), {"Content-Type": "video/mp4"})},
        {"/deep.avif": Reply(200, nested(avif()), {"Content-Type": "image/avif"})},
    )
    item = found["item"]
    assert item["files"] == [] and item["images"] == []
    assert {name(r["url"]) for r in item["rep_refused_files"]} == {"deep.mp4", "deep.avif"}
    for refused in item["rep_refused_files"]:
        assert refused["reason"].startswith("ai-train denied by ")
        assert "ISO BMFF boxes nested more than 16 deep" in refused["rep_unreadable"]
    assert sorted((name(r["url"]), r["fate"]) for r in found["records"]) == [
        ("deep.avif", "refused"),
        ("deep.mp4", "refused"),
    ]
    assert [path for path in found["on_disk"] if path != "full"] == []
    assert found["stats"].get_value("log_count/ERROR") is None


@pytest_twisted.ensureDeferred
async def test_a_failure_of_the_check_refuses_the_file_without_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Any failure inside the gate fails closed for an AI purpose: not stored, one audit
    record, a WARNING and a stat, no ERROR (the crawl helper checks there is none)."""
    from scrapy_rep.crawl.media import pipelines

    def broken(*_: Any, **__: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(pipelines, "read_media", broken)
    found = await both_crawl(
        tmp_path,
        {"/a.pdf": Reply(200, pdf(xmp_packet("DMI-ALLOWED")), {"Content-Type": "application/pdf"})},
        {"/b.jpg": Reply(200, jpeg(), JPEG)},
    )
    item = found["item"]
    assert item["files"] == [] and item["images"] == []
    reason = (
        "ai-train denied by an unreadable file (the check failed: RecursionError: "
        "maximum recursion depth exceeded)"
    )
    assert [r["reason"] for r in item["rep_refused_files"]] == [reason, reason]
    assert sorted((name(r["url"]), r["fate"], r["why"]) for r in found["records"]) == [
        ("a.pdf", "refused", reason),
        ("b.jpg", "refused", reason),
    ]
    assert found["stats"].get_value("rep/media/errors") == 2
    warned = [r for r in caplog.records if "could not read the usage statements" in r.message]
    assert [r.levelname for r in warned] == ["WARNING", "WARNING"]
    assert found["stats"].get_value("log_count/ERROR") is None


@pytest_twisted.ensureDeferred
async def test_the_audit_fate_is_written_once_the_pipeline_stored_the_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file ImagesPipeline cannot convert (no opt-out) was recorded as stored before
    the pipeline failed on it; now its record says failed, with the pipeline's error."""
    found = await both_crawl(
        tmp_path,
        {
            "/doc.pdf": Reply(
                200, pdf(xmp_packet("DMI-ALLOWED")), {"Content-Type": "application/pdf"}
            )
        },
        {
            "/broken.jpg": Reply(200, b"\xff\xd8\xff\xe0 not an image at all", JPEG),
            "/good.jpg": Reply(200, jpeg(), JPEG),
        },
    )
    item = found["item"]
    assert [name(r["url"]) for r in item["images"]] == ["good.jpg"]
    assert [name(r["url"]) for r in item["files"]] == ["doc.pdf"]
    assert "rep_refused_files" not in item
    fates = {name(r["url"]): r for r in found["records"]}
    assert {n: r["fate"] for n, r in fates.items()} == {
        "doc.pdf": "stored",
        "good.jpg": "stored",
        "broken.jpg": "failed",
    }
    assert fates["broken.jpg"]["error"].startswith("FileException: ")
    assert "error" not in fates["good.jpg"]
    assert our_errors(caplog) == []
    from rep_audit.show import story

    text, count = story(tmp_path / "trail.jsonl", fates["broken.jpg"]["url"])
    assert count == 2  # its request's record (fetched) and its file's
    at = next(i for i, line in enumerate(text) if "not stored: the pipeline failed" in line)
    assert text[at + 1].startswith("  error: FileException: ")


@pytest_twisted.ensureDeferred
async def test_a_store_that_fails_is_recorded_as_failed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The store raises (its ``full`` folder is a file): no file is recorded as stored."""
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "full").write_bytes(b"not a folder")
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "full").write_bytes(b"not a folder")
    found = await both_crawl(
        tmp_path,
        {
            "/doc.pdf": Reply(
                200, pdf(xmp_packet("DMI-ALLOWED")), {"Content-Type": "application/pdf"}
            )
        },
        {
            "/good.jpg": Reply(200, jpeg(), JPEG),
            "/no.jpg": Reply(200, jpeg(xmp_packet("DMI-PROHIBITED")), JPEG),
        },
    )
    item = found["item"]
    assert item["files"] == [] and item["images"] == []
    assert [name(r["url"]) for r in item["rep_refused_files"]] == ["no.jpg"]
    fates = {name(r["url"]): r["fate"] for r in found["records"]}
    assert fates == {"doc.pdf": "failed", "good.jpg": "failed", "no.jpg": "refused"}
    assert all(r["error"] for r in found["records"] if r["fate"] == "failed")
    assert our_errors(caplog) == []


# ------------------------------------------------------------------ XMP as ExifTool reads it

NO = xmp_packet("DMI-PROHIBITED")
TIFF = {"Content-Type": "image/tiff"}
#: The forms of IPTC Data Mining that were stored for ai-train, "unknown" in the export
#: and not even unreadable, though ExifTool reads DMI-PROHIBITED in each
#: (tests/integration/test_xmp_exiftool.py): name -> (body, headers).
EXIFTOOL_FORMS: dict[str, tuple[bytes, dict[str, str]]] = {
    "qualified.jpg": (jpeg(xmp_packet("DMI-PROHIBITED", form="qualified")), JPEG),
    "described.jpg": (jpeg(xmp_packet("DMI-PROHIBITED", form="described")), JPEG),
    "li-resource.png": (png(xmp_packet("DMI-PROHIBITED", form="li-resource")), PNG),
    "utf-16-be.jpg": (jpeg(encoded(NO, "utf-16-be")), JPEG),
    "utf-16-le.jpg": (jpeg(encoded(NO, "utf-16-le")), JPEG),
    "utf-32-le.jpg": (jpeg(encoded(NO, "utf-32-le")), JPEG),
    "text.png": (png(xmp_packet("DMI-PROHIBITED", begin=""), chunk="tEXt"), PNG),
    "ztxt.png": (png(NO, chunk="zTXt"), PNG),
    "raw-profile.png": (png_raw_profile(NO), PNG),
    "ifd1.tif": (tiff_in(NO, "ifd1"), TIFF),
}
STATEMENT = "XMP plus:DataMining DMI-PROHIBITED"


async def forms_crawl(tmp_path: Path, **settings: Any) -> dict[str, Any]:
    """Each form, and a plain JPEG, through FilesPipeline and through ImagesPipeline."""
    files = {
        f"/files/{n}": Reply(200, body, headers) for n, (body, headers) in EXIFTOOL_FORMS.items()
    }
    images = {
        f"/images/{n}": Reply(200, body, headers) for n, (body, headers) in EXIFTOOL_FORMS.items()
    }
    files["/files/plain.jpg"] = images["/images/plain.jpg"] = Reply(200, jpeg(), JPEG)
    return await both_crawl(tmp_path, files, images, **settings)


def _path(url: object) -> str:
    return "/" + "/".join(str(url).rsplit("/", 2)[1:])


def _exported_files(trail: Path) -> list[dict[str, Any]]:
    """The file lines of ``audit export`` (after its header)."""
    code, printed = audit_tool("export", str(trail))
    assert code == 0
    _header, *assets = (json.loads(line) for line in printed.splitlines())
    return [asset for asset in assets if asset["asset"] == "file"]


@pytest_twisted.ensureDeferred
async def test_every_form_exiftool_reads_is_refused_by_both_pipelines(tmp_path: Path) -> None:
    """ai-train, FilesPipeline and ImagesPipeline: each form is refused (not stored),
    the trail has its statement, ``audit verify`` is clean, ``audit export`` has only
    the plain files."""
    found = await forms_crawl(tmp_path)
    item = found["item"]
    assert [_path(r["url"]) for r in item["files"]] == ["/files/plain.jpg"]
    assert [_path(r["url"]) for r in item["images"]] == ["/images/plain.jpg"]
    refused = {_path(r["url"]): r for r in item["rep_refused_files"]}
    assert set(refused) == {f"/{kind}/{n}" for kind in ("files", "images") for n in EXIFTOOL_FORMS}
    for entry in refused.values():
        assert entry["signal"] == STATEMENT and "rep_unreadable" not in entry
        assert entry["rep_refused"] == [f"ai-train denied by {STATEMENT}"]
    records = {_path(r["url"]): r for r in found["records"]}
    for path in refused:
        record = records[path]
        assert record["fate"] == "refused" and record["why"] == f"ai-train denied by {STATEMENT}"
        usage = record["usage"]
        assert usage["signals"][usage["decided_by"]["ai-train"]]["source"] == STATEMENT
    assert {r["fate"] for p, r in records.items() if p.endswith("plain.jpg")} == {"stored"}
    assert len([name for name in found["on_disk"] if name != "full"]) == 2  # the plain ones
    trail = tmp_path / "trail.jsonl"
    code, said = audit_tool("verify", str(trail))
    assert code == 0, said
    assert sorted(_path(a["url"]) for a in _exported_files(trail)) == [
        "/files/plain.jpg",
        "/images/plain.jpg",
    ]
    assert found["stats"].get_value("rep/media/refused/ai-train") == 2 * len(EXIFTOOL_FORMS)
    assert found["stats"].get_value("rep/media/unreadable") is None


@pytest_twisted.ensureDeferred
async def test_every_form_exiftool_reads_is_a_no_in_the_export_when_marked(
    tmp_path: Path,
) -> None:
    """``REP_PURPOSE_ACTION = "mark"``: each form is stored with its mark, and ``audit
    export`` says ai-train (and search, ai-input: plain DMI-PROHIBITED) disallowed, by
    the file's own statement; it said "unknown"."""
    found = await forms_crawl(tmp_path, REP_PURPOSE_ACTION="mark")
    trail = tmp_path / "trail.jsonl"
    code, said = audit_tool("verify", str(trail))
    assert code == 0, said
    exported = {_path(a["url"]): a for a in _exported_files(trail)}
    forms = {f"/{kind}/{n}" for kind in ("files", "images") for n in EXIFTOOL_FORMS}
    assert set(exported) == forms | {"/files/plain.jpg", "/images/plain.jpg"}
    for path in forms:
        line = exported[path]
        assert line["preferences"] == dict.fromkeys(
            ("search", "ai-train", "ai-input"), "disallowed"
        )
        assert [s["source"] for s in line["signals"]] == [STATEMENT]
    assert exported["/files/plain.jpg"]["preferences"]["ai-train"] == "unknown"
    marked = [r for r in (*found["item"]["files"], *found["item"]["images"]) if "rep_refused" in r]
    assert {_path(r["url"]) for r in marked} == forms


UNSEEN_FORMS: dict[str, tuple[bytes, dict[str, str]]] = {
    "ztxt-not-deflate.png": (
        png_with(png(), png_chunk(b"zTXt", b"XML:com.adobe.xmp\x00\x00" + b"\x00" * 64)),
        PNG,
    ),
    "ebcdic.jpg": (jpeg(xmp_packet("DMI-PROHIBITED", begin="").decode().encode("cp500")), JPEG),
}


@pytest_twisted.ensureDeferred
async def test_xmp_that_cannot_be_read_fails_closed_in_both_pipelines(tmp_path: Path) -> None:
    """A zTXt XMP chunk that does not inflate, a packet in an encoding not read: the
    file is unreadable and refused for ai-train (it was stored)."""
    files = {
        f"/files/{n}": Reply(200, body, headers) for n, (body, headers) in UNSEEN_FORMS.items()
    }
    images = {
        f"/images/{n}": Reply(200, body, headers) for n, (body, headers) in UNSEEN_FORMS.items()
    }
    found = await both_crawl(tmp_path, files, images)
    item = found["item"]
    assert item["files"] == [] and item["images"] == []
    refused = {_path(r["url"]): r for r in item["rep_refused_files"]}
    assert set(refused) == {f"/{kind}/{n}" for kind in ("files", "images") for n in UNSEEN_FORMS}
    for entry in refused.values():
        assert entry["signal"].startswith("unreadable XMP (")
        assert entry["rep_unreadable"][0].startswith("unreadable XMP: ")
    assert audit_tool("verify", str(tmp_path / "trail.jsonl"))[0] == 0


@pytest_twisted.ensureDeferred
async def test_files_are_read_off_the_reactor_thread_by_their_offsets_within_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each file is read in a thread of the reactor's pool, never on the reactor thread
    (a 1.15 MB JPEG blocked the crawl for 24 s, and its close timeout with it; reading
    is now linear and bounded, but a large hostile file may still take a second). A
    TIFF that libtiff wrote (its IFD and XMP after the image data, past the scan limit)
    is refused by ImagesPipeline; a TIFF that names its IFDs over and over spends the
    step budget and fails closed in FilesPipeline."""
    from twisted.python.threadable import isInIOThread

    from scrapy_rep.crawl.media import pipelines

    read_media = pipelines.read_media
    on_the_reactor: list[bool] = []

    def reading(*args: Any, **kwargs: Any) -> Any:
        on_the_reactor.append(isInIOThread())
        return read_media(*args, **kwargs)

    monkeypatch.setattr(pipelines, "read_media", reading)
    tiff = {"Content-Type": "image/tiff"}
    late = libtiff_tiff(xmp_packet("DMI-PROHIBITED"))
    assert late.find(b"DMI-PROHIBITED") > 1024 and struct.unpack_from("<I", late, 4)[0] > 1024
    found = await both_crawl(
        tmp_path,
        {"/fan-out.tif": Reply(200, tiff_fan_out(8000), tiff)},
        {"/late.tif": Reply(200, late, tiff)},
        REP_MEDIA_MAX_SCAN_BYTES=1024,
    )
    assert on_the_reactor == [False, False]
    item = found["item"]
    assert item["files"] == [] and item["images"] == []
    refused = {name(entry["url"]): entry for entry in item["rep_refused_files"]}
    assert refused["late.tif"]["reason"] == "ai-train denied by XMP plus:DataMining DMI-PROHIBITED"
    steps = f"more than {100_000 + len(tiff_fan_out(8000)) // 256} structure steps"
    assert refused["fan-out.tif"]["reason"] == f"ai-train denied by unreadable XMP ({steps})"
    assert refused["fan-out.tif"]["rep_unreadable"] == [
        steps,
        "bytes past the first 1024 not searched (a file not read wholly)",
    ]
    assert sorted((name(r["url"]), r["fate"]) for r in found["records"]) == [
        ("fan-out.tif", "refused"),
        ("late.tif", "refused"),
    ]


@pytest_twisted.ensureDeferred
async def test_a_crawl_reads_two_files_at_a_time_leaving_the_pool_to_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file was read as soon as it arrived, each in a thread of the reactor's pool,
    which Scrapy's DNS resolver shares: 50 slow files took all its threads and held up
    the crawl's other hosts for 134 s. A crawl reads two files at a time (its media
    pipelines together); the others wait their turn, and every file is read."""
    import threading
    import time

    from scrapy_rep.crawl.media import pipelines

    read_media = pipelines.read_media
    lock = threading.Lock()
    reading: list[int] = [0]
    at_once: list[int] = []

    def slow(*args: Any, **kwargs: Any) -> Any:
        with lock:
            reading[0] += 1
            at_once.append(reading[0])
        time.sleep(0.15)  # a slow file (the count, not the time, is asserted)
        try:
            return read_media(*args, **kwargs)
        finally:
            with lock:
                reading[0] -= 1

    monkeypatch.setattr(pipelines, "read_media", slow)
    no = jpeg(xmp_packet("DMI-PROHIBITED"))
    found = await both_crawl(
        tmp_path,
        {f"/f{n}.jpg": Reply(200, no, JPEG) for n in range(6)},
        {f"/i{n}.jpg": Reply(200, no, JPEG) for n in range(6)},
    )
    assert len(at_once) == 12 and max(at_once) == 2  # (6 at once before: as many as came)
    assert pipelines.READS_AT_ONCE == 2
    assert len(found["item"]["rep_refused_files"]) == 12


def build_mirrored_elsewhere() -> tuple[Sites, dict[str, str]]:
    """An image on another origin than its page's, whose robots.txt says
    ``Content-Usage: /nontrain/ train-ai=n`` and is asked for nothing else."""
    sites = Sites()
    sites.add("img").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    cdn = sites.add("cdn")
    cdn.script("/robots.txt", robots("User-agent: *\nContent-Usage: /nontrain/ train-ai=n\n"))
    return sites, {"nontrain.jpg": sites.url("cdn", "/nontrain/b.jpg")}


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_file_mirrored_before_its_origins_robots_txt_waits_for_its_no(
    tmp_path: Path,
) -> None:
    """A downloader middleware before scrapy_rep's answers an image of an origin whose
    robots.txt the crawl has not had (no other request of it), which says
    ``Content-Usage: train-ai=n`` for it: it was stored for ai-train, its purposes unknown
    (the owner's "no" lost). It waits for its origin's documents, fetched for it, and is
    refused by them; ``audit verify`` is clean."""
    from rep_audit.verify import verify

    trail = tmp_path / "trail.jsonl"
    found = await crawl_gallery(
        "ai-train",
        tmp_path,
        build=build_mirrored_elsewhere,
        REP_AUDIT_FILE=str(trail),
        DOWNLOADER_MIDDLEWARES={f"{__name__}.MirrorOfNontrainMiddleware": 50},
    )
    assert (found["stored"], found["refused_files"]) == (set(), {"nontrain.jpg"})
    signal = found["results"]["nontrain.jpg"]["signal"]
    assert signal == "robots.txt line 2: Content-Usage: /nontrain/ train-ai=n"
    result = verify(trail)
    assert result.clean, result.findings


class MirrorOfNontrainMiddleware:
    """A local mirror placed before scrapy_rep's robots.txt middleware: it answers every
    file under ``/nontrain/`` itself (no download, no verdict)."""

    def process_request(self, request: Any, spider: Any = None) -> Any:
        from scrapy.http import Response

        if "/nontrain/" in request.url:
            return Response(request.url, body=jpeg(colour=(3, 60, 60)), headers=JPEG)
        return None


def build_mirrored() -> tuple[Sites, dict[str, str]]:
    """Images on the page's own origin (its robots.txt had before the page), whose
    robots.txt says ``Content-Usage: /nontrain/ train-ai=n``."""
    sites = Sites()
    img = sites.add("img")
    img.script("/robots.txt", robots("User-agent: *\nContent-Usage: /nontrain/ train-ai=n\n"))
    paths = {"nontrain.jpg": "/nontrain/b.jpg", "ok.jpg": "/ok/c.jpg"}
    for index, path in enumerate(paths.values()):
        img.script(path, Reply(200, jpeg(colour=(index, 70, 70)), JPEG))
    return sites, {name: sites.url("img", path) for name, path in paths.items()}


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_a_mirrored_files_origin_usage_no_refuses_it(tmp_path: Path) -> None:
    """A downloader middleware before scrapy_rep's answers an image whose origin's
    robots.txt (had before its page) says ``Content-Usage: train-ai=n`` for it: no verdict
    reached it, and it was stored for ai-train (the site owner's "no" lost). It is held to
    what the documents the crawl has say of it, as its page would be: refused, the item
    naming the signal; ``audit verify`` is clean."""
    from rep_audit.verify import verify

    trail = tmp_path / "trail.jsonl"
    found = await crawl_gallery(
        "ai-train",
        tmp_path,
        build=build_mirrored,
        REP_AUDIT_FILE=str(trail),
        DOWNLOADER_MIDDLEWARES={f"{__name__}.MirrorOfNontrainMiddleware": 50},
    )
    assert found["stored"] == {"ok.jpg"}
    assert found["refused_files"] == {"nontrain.jpg"}
    nontrain = found["results"]["nontrain.jpg"]
    assert nontrain["purpose"] == "ai-train"
    assert nontrain["signal"] == "robots.txt line 2: Content-Usage: /nontrain/ train-ai=n"
    result = verify(trail)
    assert result.clean, result.findings
