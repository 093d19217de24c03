"""The crawl's closing line names its trail's tree head's root: the root the head file
(``REP_AUDIT_HEAD_FILE``) and a site's bundle hold, which ``audit verify --head`` takes to
anchor the trail, so that a chain recomputed after an edit does not pass. Real crawls of a
local site, plain and gzip trails."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
import pytest_twisted

from tests.support.robotsite import Sites, crawl, robots
from tests.support.tools import audit_tool

HEAD = re.compile(
    r"^scrapy_rep: (\d+) audit line\(s\) in (\S+); its tree head's root is ([0-9a-f]{64}) \(the "
    r"head file's and a site's bundle's\): keep it, and `audit verify (\S+) --head "
    r"([0-9a-f]{64})` tells whether any line up to it was changed since$"
)


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
@pytest_twisted.ensureDeferred
async def test_the_closing_line_names_the_head_verify_anchors_the_trail_with(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    trail, heads = tmp_path / name, tmp_path / "heads.jsonl"
    with caplog.at_level(logging.INFO, logger="scrapy_rep"):
        await crawl([sites.url("a", "/"), sites.url("a", "/private/1")],
                    {"REP_AUDIT_FILE": str(trail), "REP_AUDIT_HEAD_FILE": str(heads)})  # fmt: skip
    (said,) = [m for m in caplog.messages if "audit line(s) in" in m]
    matched = HEAD.match(said)
    assert matched, said
    written, path, root, again, same = matched.groups()
    assert path == again == str(trail) and root == same
    assert json.loads(heads.read_text())["root"] == root  # the head file's, a bundle's
    status, out = audit_tool("verify", str(trail), "--json", "--head", root)
    verified = json.loads(out)
    assert status == 0 and verified["tree"].endswith(f"root {root}; unsigned (1 head(s) in all)")
    assert int(written) == verified["lines"], out
    status, out = audit_tool("verify", str(trail), "--head", "0" * 64)  # not this trail's
    assert status == 1 and "no line hashes to the head" in out


@pytest_twisted.ensureDeferred
async def test_an_appended_run_counts_its_own_lines_and_says_they_were_appended(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A second run appended to the trail logged "N audit line(s) in FILE" with its own
    count, read as the file's: it says they were appended, and how many the file holds."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    trail = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(trail)}
    await crawl([sites.url("a", "/")], settings)
    first = len(trail.read_bytes().splitlines())
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="scrapy_rep"):
        await crawl([sites.url("a", "/private/1")], settings)
    (said,) = [m for m in caplog.messages if " audit line(s) " in m]
    written, total = int(said.split()[1]), len(trail.read_bytes().splitlines())
    assert written == total - first, said
    assert said.startswith(
        f"scrapy_rep: {written} audit line(s) appended by this run to {trail}, which holds "
        f"{total} with its earlier runs'; its tree head's root is "
    ), said
