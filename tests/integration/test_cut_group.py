"""A robots.txt of 600 KB whose 500 KiB cut falls right after ``User-agent: testbot``,
before that group's ``Disallow: /`` (docs/decisions.md, 'A cut robots.txt reads no part
of a line that could allow'): read, the testbot group would be empty, allowing
everything and setting the ``*`` group's ``Disallow: /`` aside. The crawl drops the
group the cut left without rules, and testbot falls back to ``*``: the page is refused."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from scrapy_rep.robotstxt import MAX_BODY_BYTES
from tests.support.robotsite import Reply, Sites, crawl


@pytest_twisted.ensureDeferred
async def test_a_robots_txt_cut_after_a_groups_user_agent_line_falls_back_to_the_star_group(
    tmp_path: Path,
) -> None:
    head = b"User-agent: *\nDisallow: /\n"
    start = b"User-agent: testbot\n"
    pad = b"#" + b"x" * (MAX_BODY_BYTES - len(head) - len(start) - 2) + b"\n"
    body = head + pad + start + b"Disallow: /\n" + (b"# " + b"x" * 97 + b"\n") * 1000
    assert body[:MAX_BODY_BYTES].endswith(start)
    sites = Sites()
    sites.add("a").script("/robots.txt", Reply(200, body, {"Content-Type": "text/plain"}))
    try:
        _, spider = await crawl(
            [sites.url("a", "/page")], {"REP_AUDIT_FILE": str(tmp_path / "audit.jsonl")}
        )
    finally:
        await sites.close()
    assert spider.downloaded == [], "a page every line read and unread disallows, fetched"
