"""Both tools read ``REP_OVERRIDES`` as the crawl does (docs/cli.md): ``scrapy rep-robots``
from the project's settings, ``python -m scrapy_rep check`` from ``--overrides``; their
rules are built by the crawl's own function (``rep_engine.settings.rules.request_rules``), so a
URL an override lets the crawl fetch is not DISALLOWED by a tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest_twisted

from tests.support.tools import check_async, robots_async

PERMISSION = "written permission of the site owner, 2026-11-01"
ROBOTS = b"User-agent: *\nDisallow: /private\n"


def overrides(host: str, expires: str = "2099-01-01") -> str:
    return json.dumps([{"host": host, "reason": PERMISSION, "expires": expires}])


def spaced_as_one(output: str) -> list[str]:
    """Each line of a tool's output, its runs of spaces as one (columns are aligned)."""
    return [" ".join(line.split()) for line in output.splitlines()]


@pytest_twisted.ensureDeferred
async def test_rep_robots_reads_rep_overrides_as_the_crawl_does(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS)
    setting = f"REP_OVERRIDES={overrides('e.com')}"
    urls = ("http://e.com/private/a", "http://other.com/private/a")
    status, output = await robots_async("-s", setting, "--robots-file", str(robots), *urls)
    assert status == 1, output  # other.com has no override
    lines = spaced_as_one(output)
    assert (
        "allowed http://e.com/private/a line 2: Disallow: /private; overridden by "
        f"REP_OVERRIDES: {PERMISSION}, through 2099-01-01, UTC"
    ) in lines
    assert "DISALLOWED http://other.com/private/a line 2: Disallow: /private" in lines
    expired = f"REP_OVERRIDES={overrides('e.com', '2020-01-01T00:00:00+14:00')}"
    status, output = await robots_async(
        "-s", expired, "--robots-file", str(robots), "http://e.com/"
    )
    assert status == 2, output
    assert (
        "the override of e.com has expired (authorized until 2020-01-01T00:00:00+14:00)" in output
    )


@pytest_twisted.ensureDeferred
async def test_check_reads_overrides_as_the_crawl_does_idna_2008_hosts_only(tmp_path: Path) -> None:
    """``faß.test`` is ``xn--fa-hia.test``, as the crawl matches it; never ``fass.test``."""
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS)
    covered, other = "http://xn--fa-hia.test/private/a", "http://fass.test/private/a"
    status, output = await check_async(
        "--overrides", overrides("faß.test"), str(robots), covered, other
    )
    assert status == 1, output
    lines = spaced_as_one(output)
    assert (
        f"allowed {covered} line 2: Disallow: /private; overridden by REP_OVERRIDES: "
        f"{PERMISSION}, through 2099-01-01, UTC"
    ) in lines
    assert f"DISALLOWED {other} line 2: Disallow: /private" in lines
    status, output = await check_async("--overrides", "[{", str(robots), covered)
    assert status == 2 and output == ""
