"""RSL licenses named by robots.txt ``License:`` lines, in real crawls (issue 23 item 6).

Local origins name license documents served by a separate origin: one that prohibits
``ai-train``, one that prohibits ``search``, one that permits everything, one behind a
license server (``server=``), one that stays unreachable, one that is a 404; two origins
share one license URL. The same crawl runs for ``search``, ``ai-train`` and
``ai-input`` and asserts exactly which URLs are fetched and how often each license is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from audittrail import by_url
from robotsite import Reply, Sites, crawl, robots

from scrapy_rep.trailcheck import verify

XML = {"Content-Type": "application/rsl+xml"}
SERVER = "https://licenses.example/token"


def rsl(body: str, content: str = '<content url="/">') -> Reply:
    text = f'<rsl xmlns="https://rslstandard.org/rsl">{content}<license>{body}</license>'
    return Reply(200, (text + "</content></rsl>").encode(), XML)


LICENSES = {
    "/no-train.xml": [rsl('<prohibits type="usage">ai-train</prohibits>')],
    "/no-search.xml": [rsl('<prohibits type="usage">search</prohibits>')],
    "/permit.xml": [rsl('<permits type="usage">all</permits>')],
    "/server.xml": [
        rsl('<permits type="usage">all</permits>', f'<content url="/" server="{SERVER}">')
    ],
    "/down.xml": [Reply(503)],
    "/gone.xml": [Reply(404)],
}
#: origin -> the licenses its robots.txt names (space-separated, "" none).
ORIGINS = {
    "notrain": "/no-train.xml",
    "notrain2": "/no-train.xml",  # the same license URL as notrain: fetched once
    "nosearch": "/no-search.xml",
    "permit": "/permit.xml",
    "server": "/server.xml",
    "down": "/down.xml",
    "gone": "/gone.xml",
    "none": "",
    "two": "/permit.xml /no-train.xml",  # one request waits for both
}
#: purpose -> the origins whose /page is not fetched (REP_RSL_LICENSES unset).
REFUSED = {
    "search": {"nosearch", "server"},
    "ai-train": {"notrain", "notrain2", "server", "down", "two"},
    "ai-input": {"server", "down"},
}


def build() -> Sites:
    sites = Sites()
    lic = sites.add("lic")
    for path, replies in LICENSES.items():
        lic.script(path, *replies)
    for name, license_path in ORIGINS.items():
        line = "".join(f"License: {sites.url('lic', p)}\n" for p in license_path.split())
        sites.add(name).script("/robots.txt", robots(f"User-agent: *\nAllow: /\n{line}"))
    return sites


async def run(settings: dict[str, Any], held: str = "") -> tuple[Any, Any, Sites]:
    """A crawl of every origin's /page; ``held``: a license path of the lic origin (or
    a server URL) for ``REP_RSL_LICENSES``."""
    sites = build()
    if held:
        settings["REP_RSL_LICENSES"] = [held if "://" in held else sites.url("lic", held)]
    urls = [sites.url(name, "/page") for name in ORIGINS]
    try:
        crawler, spider = await crawl(urls, {"REP_UNREACHABLE_MAX_WAIT": 1.0, **settings})
    finally:
        await sites.close()
    return crawler, spider, sites


def fetched(spider: Any, sites: Sites) -> set[str]:
    return {name for name in ORIGINS if sites.url(name, "/page") in spider.downloaded}


@pytest.mark.parametrize("purpose", ["search", "ai-train", "ai-input"])
@pytest_twisted.ensureDeferred
async def test_each_purpose_obeys_the_licenses_robots_txt_names(
    purpose: str, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    crawler, spider, sites = await run({"REP_PURPOSE": purpose, "REP_AUDIT_FILE": str(audit)})
    assert fetched(spider, sites) == set(ORIGINS) - REFUSED[purpose]
    for name in REFUSED[purpose]:
        assert sites.url(name, "/page") in spider.dropped  # refused, never lost silently
    requested = sites.requested("lic")
    for path in LICENSES:
        if path != "/down.xml":  # retried until given up on
            assert requested.count(path) == 1, path  # once per license URL, shared too
    stats = crawler.stats.get_stats()
    assert stats.get("rep/purpose/requests_dropped/" + purpose) == len(REFUSED[purpose])
    assert stats.get("rep/rsl/gave_up") == 1
    records = by_url(audit)
    if purpose == "ai-train":
        record = records[sites.url("notrain", "/page")]
        assert record["fate"] == "refused" and record["refused_by"] == "purpose"
        license_url = sites.url("lic", "/no-train.xml")
        assert f"RSL {license_url}" in record["why"]
        assert '<prohibits type="usage">ai-train</prohibits>' in record["why"]
    server = records[sites.url("server", "/page")]
    assert f'server="{SERVER}" (license not held)' in server["why"]
    usage = server["usage"]
    deciding = usage["signals"][usage["decided_by"][purpose]]
    assert deciding["vocabulary"] == "rsl" and deciding["snapshot"]  # the license kept
    snapshot = (tmp_path / "audit.jsonl.d" / deciding["snapshot"]).read_bytes()
    assert snapshot.startswith(b"<rsl") and SERVER.encode() in snapshot
    assert [str(f) for f in verify(audit).findings] == []  # re-derived from the snapshots


@pytest.mark.parametrize("held", [SERVER, "/server.xml"], ids=["server", "license URL"])
@pytest_twisted.ensureDeferred
async def test_a_held_license_lifts_the_server_requirement(held: str) -> None:
    crawler, spider, sites = await run({"REP_PURPOSE": "ai-input"}, held)
    assert fetched(spider, sites) == set(ORIGINS) - {"down"}
    assert crawler.stats.get_value("rep/purpose/requests_dropped/ai-input") == 1


@pytest_twisted.ensureDeferred
async def test_a_crawl_without_a_purpose_fetches_no_license() -> None:
    crawler, spider, sites = await run({})
    assert fetched(spider, sites) == set(ORIGINS)
    assert sites.requested("lic") == []
    assert crawler.stats.get_value("rep/rsl/request_count") is None


@pytest_twisted.ensureDeferred
async def test_the_report_shows_each_license_and_the_element_that_refused() -> None:
    from scrapy_rep.report import RepReport

    crawler, _, sites = await run({"REP_PURPOSE": "ai-train", "REP_REPORT": True})
    report = next(e for e in crawler.extensions.middlewares if isinstance(e, RepReport))
    lines = report.text.splitlines()
    license_url = sites.url("lic", "/no-train.xml")
    at = lines.index(f"  {license_url}")
    assert lines[at + 1].startswith("    rsl: 200 (")  # no "robots.txt: not downloaded"
    assert lines[at + 2] == "    2 request(s) waited for it"  # two origins, one download
    refused = lines[lines.index(f"  {sites.url('notrain', '/page')}") + 1]
    assert refused == (
        f'    Not fetched: ai-train denied by RSL {license_url} <content url="/"> license 1: '
        '<prohibits type="usage">ai-train</prohibits>'
    )
