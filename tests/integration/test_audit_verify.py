"""``audit verify`` on the trails of a real JOBDIR crawl paused and resumed into a new trail
(docs/audit-trail.md, '`verify`'; trails the tests write: tests/audit/test_verify.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import pytest_twisted

from tests.support.tools import audit_tool


@pytest.mark.trail_not_verified("the resumed run's trail is verified with the paused one's")
@pytest_twisted.ensureDeferred
async def test_a_crawl_resumed_into_a_new_trail_is_verified_with_the_paused_ones(
    tmp_path: Path,
) -> None:
    """A real JOBDIR crawl paused with requests in flight and resumed with another
    REP_AUDIT_FILE: the resumed run's header names the paused run, its trail and the
    hash of its end line; the new trail alone is a problem naming the paused run, the
    two together are clean."""
    from tests.support.audittrail import lines, paused_and_resumed
    from tests.support.robotsite import BASE_SETTINGS, ListSpider, Reply, Sites

    sites = Sites()
    origin = sites.add("a")
    urls = [sites.url("a", f"/p{n}") for n in range(12)]
    for n in (2, 3):  # in flight at the pause; the rest wait in the JOBDIR queue
        origin.script(f"/p{n}", Reply(200, b"<html>slow</html>", {"Content-Type": "text/html"},
                                      delay=0.5))  # fmt: skip
    first, second = tmp_path / "paused.jsonl", tmp_path / "resumed.jsonl"
    settings = {**BASE_SETTINGS, "REP_AUDIT_FILE": str(first), "JOBDIR": str(tmp_path / "job"),
                "CONCURRENT_REQUESTS": 2}  # fmt: skip
    try:
        await paused_and_resumed(
            ListSpider, settings, urls, pause_after=2, wait=20,
            resumed={"REP_AUDIT_FILE": str(second)},
        )  # fmt: skip
    finally:
        await sites.close()
    paused, resumed = lines(first), lines(second)
    [header] = [line for line in resumed if line["type"] == "run"]
    assert paused[-1]["type"] == "end" and paused[-1]["reason"] == "shutdown"
    assert paused[-1]["counts"]["open"] > 0
    assert header["resumes"] == paused[0]["run"] and header["resumes_trail"] == str(first)
    assert (
        header["resumes_head"]
        == hashlib.sha256(first.read_bytes().splitlines(True)[-1]).hexdigest()
    )
    assert {r["url"] for r in paused + resumed if r["type"] == "url"} == set(urls)
    status, out = audit_tool("verify", str(second))
    assert status == 1, out
    assert out.splitlines()[0] == (
        f"line 1: run {header['run'][:8]} resumes run {paused[0]['run']} (paused with JOBDIR; "
        f"its trail: {first}), which is not in this trail: the crawl's records before the "
        "pause are missing; verify the trails together (audit verify EARLIER THIS)"
    )
    status, out = audit_tool("verify", str(first), str(second))
    assert status == 0, out
