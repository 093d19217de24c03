"""``audit list``: every request of a real crawl's trail, one row each, with its fate,
what refused it and why, filtered by fate and reason, as text, CSV and JSON Lines; the
same under ``scrapy rep-audit``; a filter that is no word of the trail's is refused (a
typo must not list nothing). The lawyer's "list every URL refused, with why"."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted

from tests.support.mediafiles import jpeg, xmp_packet
from tests.support.robotsite import (
    ItemSpider,
    Reply,
    Sites,
    crawl,
    html_page,
    redirect,
    robots,
)
from tests.support.tools import audit_streams, audit_tool, scrapy_streams


@pytest.mark.usefixtures("both_modes")
@pytest_twisted.ensureDeferred
async def test_every_refusal_listed_with_why_in_three_formats(tmp_path: Path) -> None:
    sites = Sites()
    origin = sites.add("a")
    origin.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    origin.script("/page", html_page())
    origin.script("/noindex", html_page('<meta name="robots" content="noindex">'))
    origin.script("/notrain", html_page(**{"Content-Usage": "train-ai=n"}))
    trail = tmp_path / "trail.jsonl"
    paths = ("/page", "/private/1", "/noindex", "/notrain")
    try:
        settings = {"REP_AUDIT_FILE": str(trail), "REP_PURPOSE": "ai-train"}
        await crawl([sites.url("a", p) for p in paths], settings, ItemSpider)
    finally:
        await sites.close()
    private, noindex, notrain = (sites.url("a", p) for p in paths[1:])
    status, out = audit_tool("list", str(trail), "--fate", "refused")
    assert status == 0, out
    (refused, count) = out.splitlines()
    assert (
        refused.endswith(
            f"{private} refused (robots.txt): Forbidden by {sites.url('a', '/robots.txt')} "
            "(line 2: Disallow: /private)"
        )
        and count == "1 record(s)"
    )
    status, out = audit_tool("list", str(trail), "--fate", "refused,dropped", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    # the list keeps the trail's order, which is the order the pages came back in
    assert status == 0 and [int(r["line"]) for r in table] == sorted(int(r["line"]) for r in table)
    by_url = {r["url"]: r for r in table}
    assert sorted(by_url) == sorted([private, noindex, notrain]) and len(table) == 3, out
    assert [by_url[u]["reason"] for u in (private, noindex, notrain)] == [
        "robots.txt",
        "noindex",
        "purpose",
    ]
    assert by_url[noindex]["why"] == 'noindex by <meta name="robots" content="noindex">'
    assert [(by_url[u]["fate"], by_url[u]["state"]) for u in (private, noindex)] == [
        ("refused", "refused"),
        ("fetched", "fetched, item dropped"),
    ]
    assert by_url[notrain]["why"] == "ai-train denied by header Content-Usage: train-ai=n"
    status, out = audit_tool("list", str(trail), "--reason", "purpose", "--format", "jsonl")
    (only,) = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and only["url"] == notrain
    # the trail's word, as a script filters it; the wording every command says in ``state``
    assert (only["fate"], only["state"]) == ("fetched", "fetched, item dropped")
    assert set(only) == {
        "line", "run", "time", "url", "fate", "state", "reason", "why", "record", "dataset_line"
    }  # fmt: skip
    assert (only["record"], only["dataset_line"]) == ("url", "")
    status, out = audit_tool("list", str(trail))
    assert status == 0 and out.splitlines()[-1] == "4 record(s)"
    status, out, err = scrapy_streams("rep-audit", "list", str(trail), "--reason", "noindex")
    assert status == 0 and noindex in out and out.splitlines()[-1] == "1 record(s)", err
    status, out, err = audit_streams("list", str(trail), "--fate", "refuse")
    assert (
        status == 2
        and out == ""
        and err.strip()
        == (
            "scrapy_rep: error: --fate: 'refuse' is not a fate (did you mean 'refused'?); "
            "expected fetched, refused, failed, redirected, unfinished, payment_required, "
            "dropped, kept, unknown"
        )
    )


class GalleryFileSpider(ItemSpider):
    """Its page yields one item with one file to download: ``files``."""

    files: ClassVar[list[str]] = []

    def parse(self, response: Any) -> Any:
        yield {"file_urls": list(self.files)}


@pytest_twisted.ensureDeferred
async def test_a_file_refused_after_a_redirect_is_listed_refused(tmp_path: Path) -> None:
    """A photo site's image, asked for at /moved.jpg and redirected to /no-train.jpg
    (``MEDIA_ALLOW_REDIRECTS``), whose XMP says no to AI training: the media gate refused
    it, and ``audit list --fate refused`` (what the FAQ recommends) lists it so."""
    sites = Sites()
    origin = sites.add("a")
    origin.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    origin.script("/gallery", html_page())
    origin.script("/moved.jpg", redirect("/no-train.jpg"))
    no_train = jpeg(xmp_packet("DMI-PROHIBITED-AIMLTRAINING"), (9, 9, 9))
    origin.script("/no-train.jpg", Reply(200, no_train, {"Content-Type": "image/jpeg"}))
    GalleryFileSpider.files = [sites.url("a", "/moved.jpg")]
    trail = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_PURPOSE": "ai-train",
                "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 1},
                "FILES_STORE": str(tmp_path / "files"), "MEDIA_ALLOW_REDIRECTS": True}  # fmt: skip
    try:
        await crawl([sites.url("a", "/gallery")], settings, GalleryFileSpider)
    finally:
        await sites.close()
    refused = (f"{sites.url('a', '/no-train.jpg')} fetched, file refused (purpose): ai-train "
               "denied by XMP plus:DataMining DMI-PROHIBITED-AIMLTRAINING")  # fmt: skip
    for fate in ("refused", "dropped"):
        status, out = audit_tool("list", str(trail), "--fate", fate)
        assert status == 0 and len(out.splitlines()) == 2, out
        assert out.splitlines()[0].endswith(refused), out
    status, out = audit_tool("summary", str(trail))
    assert "file refused: ai-train denied by XMP plus:DataMining" in out, out
