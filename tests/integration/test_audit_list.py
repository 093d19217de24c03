"""``audit list``: every request of a real crawl's trail, one row each, with its fate,
what refused it and why, filtered by fate and reason, as text, CSV and JSON Lines; the
same under ``scrapy rep-audit``; a filter that is no word of the trail's is refused (a
typo must not list nothing). The lawyer's "list every URL refused, with why"."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest_twisted

from tests.support.robotsite import ItemSpider, Sites, crawl, html_page, robots
from tests.support.tools import audit_streams, audit_tool, scrapy_streams


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
    assert by_url[notrain]["why"] == "ai-train denied by header Content-Usage: train-ai=n"
    status, out = audit_tool("list", str(trail), "--reason", "purpose", "--format", "jsonl")
    (only,) = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and only["url"] == notrain and only["fate"] == "fetched, item dropped"
    assert set(only) == {
        "line", "run", "time", "url", "fate", "reason", "why", "record", "dataset_line"
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
            "expected fetched, refused, failed, redirected, unfinished, dropped, kept, unknown"
        )
    )
