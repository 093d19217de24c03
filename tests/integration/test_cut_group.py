"""A robots.txt of 600 KB whose 500 KiB cut falls right after ``User-agent: testbot``,
before that group's ``Disallow: /`` (docs/decisions.md, 'A cut robots.txt reads no part
of a line that could allow'): read, the testbot group would be empty, allowing
everything and setting the ``*`` group's ``Disallow: /`` aside. The crawl drops the
group the cut left without rules, and testbot falls back to ``*``: the page is refused."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
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


@pytest_twisted.ensureDeferred
async def test_a_robots_txt_over_500_kib_keeps_its_only_groups_content_usage_no(
    tmp_path: Path,
) -> None:
    """The only group of a robots.txt over 500 KiB has no Allow/Disallow rule before the
    cut, only ``Content-Usage: /page search=n``: dropped with the group for Allow/Disallow,
    that "no" was lost and the page fetched for search (whole-crawl seed 790)."""
    head = b"User-agent: *\nContent-Usage: /page search=n\n"
    body = head + (b"# " + b"x" * 97 + b"\n") * 6000 + b"Disallow: /other\n"
    assert len(body) > MAX_BODY_BYTES
    sites = Sites()
    sites.add("a").script("/robots.txt", Reply(200, body, {"Content-Type": "text/plain"}))
    try:
        _, spider = await crawl(
            [sites.url("a", "/page"), sites.url("a", "/free")],
            {"REP_PURPOSE": ["search"], "REP_AUDIT_FILE": str(tmp_path / "audit.jsonl")},
        )
    finally:
        await sites.close()
    assert [url.rsplit("/", 1)[1] for url in spider.downloaded] == ["free"]
