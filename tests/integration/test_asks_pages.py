"""``noml`` and ``noarchive`` on pages, in real crawls of a local site (docs/purpose-notes.md
§4b): each page says it in robots meta or ``X-Robots-Tag`` (ours, everyone's, or another
crawler's); an ``ai-train`` crawl drops the items of the pages that say no, the audit
trail names the tag that decided, ``audit verify`` finds it clean, and a marking crawl's
``audit export`` says "disallowed" for them. The ``nosnippet`` beside one ``noarchive``
is a no for ``ai-input`` (§4d); so is every ``noarchive``, as Bing's guidelines of Feb 2026
read it (``REP_NOARCHIVE_MEANS_NO_AI_INPUT``, §4b).
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
from tests.support.audittrail import by_url
from tests.support.robotsite import (
    ItemSpider,
    Sites,
    collecting_items,
    crawl,
    html_page,
    robots,
)

NOML_META = '<meta name="robots" content="noml">'
OUR_NOML_META = '<meta name="testbot" content="noml">'
NOARCHIVE_META = '<meta name="robots" content="noarchive">'
READ_AS = " (REP_NOARCHIVE_MEANS_NO_AI_TRAIN)"
READ_FOR_INPUT = " (REP_NOARCHIVE_MEANS_NO_AI_INPUT)"
#: path -> (page, the source the decision names; "" for a page that says nothing to us).
PAGES = {
    "/noml-meta": (html_page(NOML_META), NOML_META),
    "/noml-our-meta": (html_page(OUR_NOML_META), OUR_NOML_META),
    "/noml-header": (html_page(**{"X-Robots-Tag": "noml"}), "X-Robots-Tag: noml"),
    "/noml-scoped": (html_page(**{"X-Robots-Tag": "TestBot: noml"}), "X-Robots-Tag: TestBot: noml"),
    "/noml-other": (html_page(**{"X-Robots-Tag": "otherbot: noml"}), ""),
    "/noarchive-meta": (html_page(NOARCHIVE_META), NOARCHIVE_META + READ_AS),
    "/noarchive-header": (
        html_page(**{"X-Robots-Tag": "noarchive, nosnippet"}),
        "X-Robots-Tag: noarchive, nosnippet" + READ_AS,
    ),
    "/plain": (html_page(), ""),
}
NOML = {path for path, (_, source) in PAGES.items() if path.startswith("/noml") and source}
NOARCHIVE = {path for path in PAGES if path.startswith("/noarchive")}
#: The page whose nosnippet is a no for ai-input (REP_NOSNIPPET_MEANS_NO_AI_INPUT).
NOSNIPPET = {"/noarchive-header"}


async def crawl_pages(
    tmp_path: Path, purpose: str, **settings: Any
) -> tuple[Path, dict[str, str], set[str], Any]:
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    for path, (reply, _) in PAGES.items():
        site.script(path, reply)
    urls = {path: sites.url("a", path) for path in PAGES}
    trail = tmp_path / f"trail-{purpose}.jsonl"
    items: list[Any] = []
    every = {"REP_PURPOSE": purpose, "REP_AUDIT_FILE": str(trail), "ITEM_PIPELINES": {}}
    try:
        crawler, spider = await crawl(
            list(urls.values()), {**every, **settings}, ItemSpider, collecting_items(items)
        )
    finally:
        await sites.close()
    assert len(spider.downloaded) == len(PAGES)  # an opt-out known after the fetch
    by_path = {url: path for path, url in urls.items()}
    return trail, urls, {by_path[item["url"]] for item in items}, crawler


def deciding(record: dict[str, Any], purpose: str) -> str:
    usage = record["usage"]
    return str(usage["signals"][usage["decided_by"][purpose]]["source"])


@pytest_twisted.ensureDeferred
async def test_ai_train_drops_what_noml_or_noarchive_refuses_and_the_trail_says_why(
    tmp_path: Path,
) -> None:
    trail, urls, kept, crawler = await crawl_pages(tmp_path, "ai-train")
    assert kept == {"/noml-other", "/plain"}
    records = by_url(trail)
    for path in NOML | NOARCHIVE:
        record = records[urls[path]]
        assert record["fate"] == "fetched" and record["item_reason"] == "purpose", path
        assert (record["items_kept"], record["items_dropped"]) == (0, 1)
        assert record["usage"]["answers"]["ai-train"] is False
        assert deciding(record, "ai-train") == PAGES[path][1]
        # noml says no to ai-input as well, and so do nosnippet and noarchive
        assert record["usage"]["answers"]["ai-input"] is False
        assert record["usage"]["answers"]["search"] is None
    assert crawler.stats.get_value("rep/purpose/pages_denied/ai-train") == len(NOML | NOARCHIVE)
    result = verify(trail)
    assert result.clean, result.findings


@pytest_twisted.ensureDeferred
async def test_ai_input_drops_noml_nosnippet_and_noarchive_pages_each_under_its_setting(
    tmp_path: Path,
) -> None:
    trail, urls, kept, _ = await crawl_pages(tmp_path, "ai-input")
    assert kept == set(PAGES) - NOML - NOARCHIVE
    record = by_url(trail)[urls["/noarchive-meta"]]
    assert record["item_reason"] == "purpose" and record["usage"]["answers"]["ai-input"] is False
    assert deciding(record, "ai-input") == NOARCHIVE_META + READ_FOR_INPUT
    result = verify(trail)
    assert result.clean, result.findings
    (tmp_path / "off").mkdir()
    trail, urls, kept, _ = await crawl_pages(
        tmp_path / "off", "ai-input", REP_NOARCHIVE_MEANS_NO_AI_INPUT=False
    )
    assert kept == set(PAGES) - NOML - NOSNIPPET
    record = by_url(trail)[urls["/noarchive-meta"]]
    assert record["items_kept"] == 1 and record["usage"]["answers"]["ai-input"] is None
    header = json.loads(trail.read_text(encoding="utf-8").splitlines()[0])
    assert header["settings"]["REP_NOARCHIVE_MEANS_NO_AI_INPUT"] is False
    result = verify(trail)
    assert result.clean, result.findings
    _, _, kept, _ = await crawl_pages(
        tmp_path,
        "ai-input",
        REP_NOARCHIVE_MEANS_NO_AI_INPUT=False,
        REP_NOSNIPPET_MEANS_NO_AI_INPUT=False,
    )
    assert kept == set(PAGES) - NOML


@pytest_twisted.ensureDeferred
async def test_noarchive_says_nothing_when_the_setting_is_off(tmp_path: Path) -> None:
    trail, urls, kept, _ = await crawl_pages(
        tmp_path, "ai-train", REP_NOARCHIVE_MEANS_NO_AI_TRAIN=False
    )
    assert kept == set(PAGES) - NOML
    record = by_url(trail)[urls["/noarchive-meta"]]
    assert record["items_kept"] == 1  # its ai-input reading says nothing about ai-train
    assert record["usage"]["answers"] == {"search": None, "ai-train": None, "ai-input": False}
    header = json.loads(trail.read_text(encoding="utf-8").splitlines()[0])
    assert header["settings"]["REP_NOARCHIVE_MEANS_NO_AI_TRAIN"] is False


@pytest_twisted.ensureDeferred
async def test_a_search_crawl_keeps_them_all_and_records_the_noml(tmp_path: Path) -> None:
    """noml keeps the page in search (Mojeek's table): nothing is dropped, and the trail
    still records what the page said."""
    trail, urls, kept, _ = await crawl_pages(tmp_path, "search")
    assert kept == set(PAGES)
    record = by_url(trail)[urls["/noml-header"]]
    assert record["usage"]["answers"] == {"search": None, "ai-train": False, "ai-input": False}
    assert [s["source"] for s in record["usage"]["signals"]] == ["X-Robots-Tag: noml"]


@pytest_twisted.ensureDeferred
async def test_the_export_of_a_marking_crawl_says_disallowed(tmp_path: Path) -> None:
    trail, urls, kept, _ = await crawl_pages(tmp_path, "ai-train", REP_PURPOSE_ACTION="mark")
    assert kept == set(PAGES)
    out = io.StringIO()
    assert main(["export", str(trail)], out) == EXIT_CLEAN
    _, *assets = (json.loads(line) for line in out.getvalue().splitlines())
    by_path = {path: a for a in assets for path, url in urls.items() if a["url"] == url}
    assert set(by_path) == set(PAGES)
    for path in NOML | NOARCHIVE:
        asset = by_path[path]
        assert asset["preferences"]["ai-train"] == "disallowed", path
        # the signals that decided: noarchive's ai-input reading comes before nosnippet's
        for_input = [PAGES[path][1].replace(READ_AS, READ_FOR_INPUT)] if path in NOARCHIVE else []
        assert [s["source"] for s in asset["signals"]] == [PAGES[path][1], *for_input]
        assert asset["signals"][0]["vocabulary"] == "robots-meta"
    assert by_path["/noml-meta"]["preferences"]["ai-input"] == "disallowed"
    assert by_path["/noarchive-meta"]["preferences"]["ai-input"] == "disallowed"
    assert by_path["/plain"]["preferences"]["ai-train"] == "unknown"
    assert by_path["/noml-other"]["preferences"]["ai-train"] == "unknown"
    result = verify(trail)
    assert result.clean, result.findings
