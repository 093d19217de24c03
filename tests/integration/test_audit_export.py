"""``audit export``: the preferences that travel with the data (aipref vocab-08 §3.3).

A real ai-train crawl of a local site with the trail on: pages allowed, a page whose
``noai`` opt-out drops its item, a page disallowed by robots.txt, and a robots.txt
``Content-Signal`` with a ``use=`` condition. The export lists exactly the kept items
with their preferences, round-trips through ``verify --export``, and an edited, removed
or added line is caught; ``REP_ITEM_PREFERENCES_FIELD`` puts the same preferences in
the items.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted

from rep_audit.cliargs import EXIT_CLEAN, EXIT_DIFFERENCES, EXIT_UNUSABLE
from rep_audit.export import EXPORT_VERSION, preferences_of
from rep_engine.trail.file import TrailFile
from rep_engine.usage.purpose import PURPOSES
from tests.support.audittrail import lines as trail_lines
from tests.support.robotsite import (
    ItemSpider,
    Sites,
    collecting_items,
    crawl,
    html_page,
    robots,
)
from tests.support.tools import audit_tool, scrapy_streams
from tests.support.trailfactory import (
    ORIGIN,
    RUN,
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)

ROBOTS = "User-agent: *\nContent-Signal: search=yes, use=reference\nDisallow: /private\n"
PAGE = b"<html><body>p</body></html>"


async def _crawl(tmp_path: Path, **extra: Any) -> tuple[Path, dict[str, str], list[Any]]:
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots(ROBOTS))
    site.script("/train-yes", html_page(**{"Content-Signal": "ai-train=yes"}))
    site.script("/plain", html_page())
    site.script("/search-no", html_page(**{"Content-Signal": "search=no"}))
    site.script("/noai", html_page('<meta name="robots" content="noai">'))
    site.script("/private/x", html_page())
    urls = {
        name: sites.url("a", name)
        for name in ("/train-yes", "/plain", "/search-no", "/noai", "/private/x")
    }
    trail = tmp_path / "trail.jsonl"
    items: list[Any] = []
    settings = {"REP_PURPOSE": "ai-train", "REP_AUDIT_FILE": str(trail), "ITEM_PIPELINES": {},
                **extra}  # fmt: skip
    try:
        await crawl(list(urls.values()), settings, ItemSpider, collecting_items(items))
    finally:
        await sites.close()
    return trail, urls, items


def _export(trail: Path, tmp_path: Path) -> tuple[Path, list[dict[str, Any]], str]:
    out, summary = tmp_path / "export.jsonl", tmp_path / "summary.md"
    code, _ = audit_tool("export", str(trail), "--out", str(out), "--summary", str(summary))
    assert code == EXIT_CLEAN
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return out, lines, summary.read_text(encoding="utf-8")


_CRAWLED: list[Any] = []


async def _crawled(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One crawl for the module (REP_ITEM_PREFERENCES_FIELD on), made by the first test
    that needs it."""
    if not _CRAWLED:
        tmp_path = tmp_path_factory.mktemp("export")
        _CRAWLED.append((tmp_path, await _crawl(tmp_path, REP_ITEM_PREFERENCES_FIELD="rep_prefs")))
    return _CRAWLED[0]


@pytest_twisted.ensureDeferred
async def test_the_export_lists_exactly_the_kept_items_with_their_preferences(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    tmp_path, (trail, urls, items) = await _crawled(tmp_path_factory)
    _, lines, summary = _export(trail, tmp_path)
    header, *assets = lines
    records = [line for line in trail_lines(trail) if line["type"] == "url"]
    assert header["export"] == EXPORT_VERSION == 1
    assert header["purposes"] == ["ai-train"] and len(header["runs"]) == 1
    assert (
        header["head"]
        == hashlib.sha256(trail.read_bytes().splitlines(keepends=True)[-1]).hexdigest()
    )
    assert header["assets"] == {"pages": 3, "files": 0}
    # kept: the items the crawl kept, and nothing else (not /noai, whose item was dropped)
    assert sorted(a["url"] for a in assets) == sorted(item["url"] for item in items)
    assert {a["url"] for a in assets} == {urls["/train-yes"], urls["/plain"], urls["/search-no"]}
    noai = next(r for r in records if r["url"] == urls["/noai"])
    assert noai["fate"] == "fetched" and noai["items_dropped"] == 1
    by_url = {a["url"]: a for a in assets}
    yes, plain = by_url[urls["/train-yes"]], by_url[urls["/plain"]]
    assert yes["preferences"] == {"search": "allowed", "ai-train": "allowed",
                                  "ai-input": "unknown"}  # fmt: skip
    assert plain["preferences"] == {"search": "allowed", "ai-train": "unknown",
                                    "ai-input": "unknown"}  # fmt: skip
    assert by_url[urls["/search-no"]]["preferences"]["search"] == "disallowed"
    for asset in by_url.values():
        assert asset["asset"] == "page" and asset["conditions"] == ["use=reference"]
        [record] = [r for r in records if r["url"] == asset["url"]]
        assert asset["records"] == [record["id"]]
        robots_sha = record["robots"]["snapshot"]
        assert asset["documents"]["robots.txt"] == robots_sha
        assert (trail.parent / "trail.jsonl.d" / robots_sha).exists()
        content_signal = next(s for s in asset["signals"] if s["source"].startswith("robots.txt"))
        assert content_signal["snapshot"] == robots_sha
        assert content_signal["conditions"] == ["use=reference"]
    header_signal = next(s for s in yes["signals"] if s["source"].startswith("header"))
    assert header_signal["decides"] == ["ai-train"] and "snapshot" not in header_signal
    # the Markdown summary
    assert f"`{header['head']}`" in summary
    assert "| ai-train | 1 | 0 | 2 |" in summary and "| search | 2 | 1 | 0 |" in summary
    assert "version 1" in summary and "`use=reference` (3 asset(s))" in summary


@pytest_twisted.ensureDeferred
async def test_the_export_round_trips_through_verify(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    tmp_path, (trail, _, _) = await _crawled(tmp_path_factory)
    out, _, _ = _export(trail, tmp_path)
    code, printed = audit_tool("verify", str(trail), "--export", str(out))
    assert code == EXIT_CLEAN, printed
    assert ": clean:" in printed
    assets = len(out.read_text().splitlines()) - 1
    assert printed.splitlines()[-1] == f"export {out}: {assets} assets match the trail"


def _altered(out: Path, change: Any) -> Path:
    lines = out.read_text(encoding="utf-8").splitlines()
    changed = out.with_name("changed.jsonl")
    changed.write_text("".join(f"{line}\n" for line in change(lines)), encoding="utf-8")
    return changed


def _allowed_everywhere(lines: list[str]) -> list[str]:
    return [lines[0], *(line.replace('"unknown"', '"allowed"', 1) for line in lines[1:])]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (_allowed_everywhere, 'altered: preferences.ai-train is "allowed", the trail gives '),
        (lambda lines: lines[:-1], "missing: the page of trail line(s)"),
        (  # an asset the crawl never saw (the lines come in the order the pages came back)
            lambda lines: [
                *lines,
                next(x for x in lines if '/plain"' in x).replace("/plain", "/p2"),
            ],
            "extra: no such asset",
        ),
        (lambda lines: [*lines, lines[-1]], "extra: no such asset in the trail (a second line"),
        (
            lambda lines: [lines[0].replace('"ai-train"', '"search"', 1), *lines[1:]],
            "line 1: the header differs: runs is",
        ),
    ],
)
@pytest_twisted.ensureDeferred
async def test_a_changed_export_is_caught(
    tmp_path_factory: pytest.TempPathFactory, change: Any, expected: str
) -> None:
    tmp_path, (trail, _, _) = await _crawled(tmp_path_factory)
    out, _, _ = _export(trail, tmp_path)
    changed = _altered(out, change)
    code, printed = audit_tool("verify", str(trail), "--export", str(changed))
    assert code == EXIT_DIFFERENCES, printed
    assert expected in printed, printed
    trail_verdict, export_verdict = printed.splitlines()[-2:]
    assert "problem(s)" in trail_verdict and export_verdict.startswith(f"export {changed}: ")
    assert export_verdict.endswith(" difference(s) from the trail")


@pytest_twisted.ensureDeferred
async def test_a_disallowed_edited_to_allowed_is_caught(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The search=no page's "disallowed" made "allowed" (``--json``: one finding)."""
    _, (trail, urls, _) = await _crawled(tmp_path_factory)
    _, lines, _ = _export(trail, tmp_path)
    rows = [
        {**row, "preferences": {**row["preferences"], "search": "allowed"}}
        if row.get("url") == urls["/search-no"] else row
        for row in lines
    ]  # fmt: skip
    changed = tmp_path / "forged.jsonl"
    changed.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
    code, printed = audit_tool("verify", str(trail), "--export", str(changed), "--json")
    assert code == EXIT_DIFFERENCES
    found = json.loads(printed)
    assert not found["clean"] and found["problems"] == 1
    [finding] = found["findings"]
    assert finding["url"] == urls["/search-no"]
    assert 'preferences.search is "allowed", the trail gives "disallowed"' in finding["what"]


@pytest_twisted.ensureDeferred
async def test_an_export_made_before_a_run_was_appended_still_verifies(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    tmp_path, (trail, _, _) = await _crawled(tmp_path_factory)
    out, _, _ = _export(trail, tmp_path)
    longer = tmp_path / "longer.jsonl"
    longer.write_bytes(trail.read_bytes())
    if not (tmp_path / "longer.jsonl.d").exists():
        (tmp_path / "longer.jsonl.d").symlink_to(tmp_path / "trail.jsonl.d")
    records = trail_lines(trail)
    [end] = [line for line in records if line["type"] == "end"]
    appended = TrailFile(longer)  # an empty run appended by the trail's writer, chained on
    appended.write({**records[0], "run": "f" * 32})
    appended.write({**end, "run": "f" * 32, "counts": dict.fromkeys(end["counts"], 0)})
    appended.close()
    assert audit_tool("verify", str(longer))[0] == EXIT_CLEAN
    # the export names the head it was made at: lines appended later are not in it
    code, printed = audit_tool("verify", str(longer), "--export", str(out))
    assert code == EXIT_CLEAN, printed


@pytest_twisted.ensureDeferred
async def test_not_an_export_and_a_missing_one(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    _, (trail, _, _) = await _crawled(tmp_path_factory)
    other = tmp_path / "other.jsonl"
    other.write_text('{"a": 1}\n')
    code, printed = audit_tool("verify", str(trail), "--export", str(other))
    assert code == EXIT_DIFFERENCES and "not an export header" in printed
    code, _ = audit_tool("verify", str(trail), "--export", str(tmp_path / "missing.jsonl"))
    assert code == EXIT_UNUSABLE


@pytest_twisted.ensureDeferred
async def test_kept_items_carry_the_preferences_field(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    tmp_path, (trail, _, items) = await _crawled(tmp_path_factory)
    _, lines, _ = _export(trail, tmp_path)
    by_url = {a["url"]: a for a in lines[1:]}
    assert {item["url"] for item in items} == set(by_url)
    for item in items:
        asset = by_url[item["url"]]
        field = item["rep_prefs"]
        assert field["preferences"] == asset["preferences"]
        assert field["conditions"] == asset["conditions"] == ["use=reference"]
        no_snapshots = [{k: v for k, v in s.items() if k != "snapshot"} for s in asset["signals"]]
        assert field["signals"] == no_snapshots


@pytest_twisted.ensureDeferred
async def test_no_preferences_field_unless_asked(tmp_path: Path) -> None:
    _, _, items = await _crawl(tmp_path)
    assert items and all(set(item) == {"url"} for item in items)


def test_preferences_of_a_record_without_usage() -> None:
    assert preferences_of(None) == {
        "preferences": dict.fromkeys(PURPOSES, "unknown"),
        "conditions": [],
        "signals": [],
    }


def _file_line(path: str, fate: str) -> dict[str, Any]:
    said_no = {
        "vocabulary": "iptc",
        "answers": {"ai-train": False},
        "source": "XMP plus:DataMining",
    }
    usage = {"answers": {"search": None, "ai-train": False, "ai-input": None},
             "decided_by": {"ai-train": 0}, "signals": [said_no]}  # fmt: skip
    return {"type": "file", "run": RUN, "time": "2026-11-23T14:00:03.000Z",
            "url": ORIGIN + path, "fate": fate, "usage": usage, "media": {}}  # fmt: skip


def test_stored_and_marked_files_are_assets_refused_ones_are_not(tmp_path: Path) -> None:
    """A hand-made trail: ``file`` lines stored, marked, refused and failed; pages
    fetched with and without items kept, refused; and ``scrapy rep-audit export``."""
    body = [
        snapshot_line(),
        url_line("/", robots=robots_part(None)),
        url_line("/empty", robots=robots_part(None), items_kept=0),
        url_line("/private/x", fate="refused", status=None, refused_by="robots.txt",
                 why="Forbidden by robots.txt", robots=robots_part(2, "Disallow: /private")),
        *(_file_line(f"/{fate}.jpg", fate) for fate in ("stored", "marked", "refused", "failed")),
    ]  # fmt: skip
    end = end_line(body)
    end["counts"]["files"] = 4
    trail = write_trail(tmp_path / "t.jsonl", [run_line(), *body, end])
    code, printed = audit_tool("export", str(trail))
    assert code == EXIT_CLEAN
    header, *assets = (json.loads(line) for line in printed.splitlines())
    assert header["assets"] == {"pages": 1, "files": 2}
    assert [(a["asset"], a["url"].removeprefix(ORIGIN)) for a in assets] == [
        ("page", "/"), ("file", "/stored.jpg"), ("file", "/marked.jpg")
    ]  # fmt: skip
    stored = assets[1]
    assert stored["records"] == [] and stored["lines"] == [6]
    assert stored["preferences"]["ai-train"] == "disallowed"
    assert stored["signals"] == [{"source": "XMP plus:DataMining", "vocabulary": "iptc",
                                  "decides": ["ai-train"]}]  # fmt: skip
    assert assets[0]["preferences"] == dict.fromkeys(PURPOSES, "unknown")
    out = tmp_path / "export.jsonl"
    out.write_text(printed, encoding="utf-8")
    code, printed_verify = audit_tool("verify", str(trail), "--export", str(out))
    assert code == EXIT_CLEAN, printed_verify
    # under scrapy, with the project's REP_AUDIT_FILE
    code, _, err = scrapy_streams(
        "rep-audit", "export", "--out", str(tmp_path / "s.jsonl"),
        "--summary", str(tmp_path / "s.md"), "-s", f"REP_AUDIT_FILE={trail}",
    )  # fmt: skip
    assert code == 0, err
    assert (tmp_path / "s.jsonl").read_text(encoding="utf-8") == printed
    assert "| ai-train | 0 | 2 | 1 |" in (tmp_path / "s.md").read_text(encoding="utf-8")
