"""End to end (docs/audit-trail.md, 'Reading the trail'): a real crawl writes its trail,
``audit verify`` finds it clean (every decision re-derived from the snapshots the crawl
stored), and flipping one byte or deleting one line of it makes ``verify`` exit 1."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
import pytest_twisted

from rep_engine.trail.read import Trail
from tests.support.audittrail import paused_and_resumed
from tests.support.robotsite import (
    BASE_SETTINGS,
    HTML,
    ItemSpider,
    ListSpider,
    Reply,
    Sites,
    crawl,
    robots,
)
from tests.support.tools import audit_tool

ROBOTS_A = (
    "User-agent: *\nDisallow: /private\nContent-Usage: /books/ train-ai=n\n\n"
    "User-agent: GPTBot\nDisallow: /gpt-no\n"
)
TDMREP = b'[{"location": "/reserved/*", "tdm-reservation": 1}]'


async def crawl_with_trail(trail: Path, purpose: str) -> dict[str, str]:
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots(ROBOTS_A))
    a.script("/.well-known/tdmrep.json", Reply(200, TDMREP, {"Content-Type": "application/json"}))
    a.script("/noai", Reply(200, b'<meta name="robots" content="noai"><p>x</p>', HTML))
    a.script("/old", Reply(301, b"", {"Location": "/new"}))
    a.script("/reset", Reply(reset=True))
    b = sites.add("b")
    b.script("/robots.txt", Reply(404, b"no"))
    b.script("/.well-known/tdmrep.json", Reply(404, b"no"))
    sites.add("c").script("/robots.txt", Reply(503, b"down"))  # given up on: dropped
    paths = {"a": ["/", "/private/x", "/books/1", "/reserved/1", "/noai", "/page", "/old",
                   "/reset", "/gpt-no"],
             "b": ["/", "/other"], "c": ["/", "/x"]}  # fmt: skip
    urls = {f"{name} {path}": sites.url(name, path) for name, ps in paths.items() for path in ps}
    settings = {
        "REP_PURPOSE": purpose, "REP_AUDIT_FILE": str(trail), "ITEM_PIPELINES": {},
        "REP_PURPOSE_AGENTS": ["GPTBot"], "REP_UNREACHABLE_MAX_WAIT": 0.5,
    }  # fmt: skip
    try:
        await crawl(list(urls.values()), settings, ItemSpider)
    finally:
        await sites.close()
    return urls


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
@pytest.mark.parametrize("purpose", ["search", "ai-train"])
@pytest_twisted.ensureDeferred
async def test_a_real_crawl_verifies_clean_and_tampering_shows(
    tmp_path: Path, name: str, purpose: str
) -> None:
    trail = tmp_path / name
    urls = await crawl_with_trail(trail, purpose)
    status, out = audit_tool("verify", str(trail))
    assert status == 0, out
    assert f"{len(urls) + 1} record(s)" in out  # and the redirect's target
    status, out = audit_tool("summary", str(trail))
    assert status == 0 and f"{len(urls) + 1} requested URL(s)" in out
    status, out = audit_tool("show", str(trail), urls["a /private/x"])
    assert status == 0 and "was refused by robots.txt" in out
    assert "today's engine, from the snapshots: the same decision" in out
    refused = ["a /gpt-no", "c /", "c /x"]
    refused += ["a /books/1", "a /reserved/1"] if purpose == "ai-train" else []
    for key in refused:
        assert "was refused" in audit_tool("show", str(trail), urls[key])[1], key
    assert "failed" in audit_tool("show", str(trail), urls["a /reset"])[1]
    assert "was redirected to" in audit_tool("show", str(trail), urls["a /old"])[1]

    lines = _lines(trail)
    flipped = list(lines)
    flipped[2] = flipped[2].replace(b"127.0.0.1", b"127.0.0.2", 1)
    assert flipped[2] != lines[2]
    _write(tmp_path / f"flipped-{name}", flipped, trail)
    status, out = audit_tool("verify", str(tmp_path / f"flipped-{name}"))
    assert status == 1 and "line 4: chain broken" in out, out

    _write(tmp_path / f"deleted-{name}", lines[:3] + lines[4:], trail)
    status, out = audit_tool("verify", str(tmp_path / f"deleted-{name}"))
    assert status == 1 and "line 4: chain broken" in out, out

    page = tmp_path / "report.html"
    assert audit_tool("report", str(trail), "--html", str(page))[0] == 0
    assert urls["a /private/x"] in page.read_text().replace("<wbr>", "")  # wrap points


def _lines(trail: Path) -> list[bytes]:
    data = trail.read_bytes()
    if trail.name.endswith(".gz"):
        data = gzip.decompress(data)
    return data.splitlines(keepends=True)


def _write(path: Path, lines: list[bytes], original: Path) -> None:
    """The lines as a trail beside ``original``'s snapshots (a symlink to its ``.d``)."""
    data = b"".join(lines)
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    path.with_name(path.name + ".d").symlink_to(original.with_name(original.name + ".d"))


@pytest_twisted.ensureDeferred
async def test_a_paused_and_resumed_crawl_verifies_clean(tmp_path: Path) -> None:
    """JOBDIR pause and resume, with duplicates, redirects and a 503 then 200 retry: the
    two runs chain on, the resumed run names the paused one, and every record re-derives."""
    sites = Sites()
    starts = []
    for name in ("p", "q", "r"):
        origin = sites.add(name)
        origin.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
        for n in range(150):
            path = ("/private/" if n % 4 == 0 else "/page/") + str(n)
            if n % 15 == 1:
                path = f"/old/{n}"
                origin.script(path, Reply(301, b"", {"Location": f"/new/{n}"}))
            elif n % 25 == 3:
                origin.script(path, Reply(503), Reply(200, b"<html>back</html>", HTML))
            starts.append(sites.url(name, path))
    starts += starts[::4]  # duplicates
    trail = tmp_path / "trail.jsonl.gz"
    settings = {
        **BASE_SETTINGS, "REP_AUDIT_FILE": str(trail), "JOBDIR": str(tmp_path / "job"),
        "RETRY_ENABLED": True, "RETRY_TIMES": 2, "CONCURRENT_REQUESTS": 8,
        "LOG_LEVEL": "WARNING",
    }  # fmt: skip
    try:  # pause once some pages are in (at most 30 s)
        await paused_and_resumed(ListSpider, settings, starts, pause_after=60, wait=30)
    finally:
        await sites.close()
    status, out = audit_tool("verify", str(trail))
    assert status == 0, out
    assert "2 run(s)" in out and "450 record(s)" not in out  # the redirects' targets too
    records = int(out.split(" record(s)")[0].rsplit(" ", 1)[1])
    assert records == 450 + 10 * 3  # each start once, plus the 10 redirect targets per origin
    status, out = audit_tool("summary", str(trail))
    runs = [line.record for line in Trail(trail).lines() if line.type == "run"]
    assert len(runs) == 2 and runs[1]["resumes"] == runs[0]["run"]
    forbidden = len({url for url in starts if "/private/" in url})
    assert re.search(rf"^refused by robots\.txt +{forbidden} +{forbidden} ", out, re.M), out
    assert status == 0 and forbidden == 105
