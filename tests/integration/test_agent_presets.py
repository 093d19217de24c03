"""A crawl whose ``REP_PURPOSE_AGENTS`` names a crawler-name preset obeys the robots.txt
groups of every name in it, and its trail's run header names the preset with its date and
source (rep-engine/rep_engine/usage/agentpresets.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest_twisted

from rep_audit.verify import verify
from tests.support.audittrail import by_url, lines
from tests.support.robotsite import Sites, crawl, robots


@pytest_twisted.ensureDeferred
async def test_a_crawl_obeys_the_groups_of_a_presets_names_and_its_header_says_which(
    tmp_path: Path,
) -> None:
    sites = Sites()
    site = sites.add("a")
    site.script(
        "/robots.txt",
        robots("User-agent: PanguBot\nDisallow: /p\n\nUser-agent: *\nAllow: /\n"),
    )
    urls = [sites.url("a", "/p/1"), sites.url("a", "/q/1")]
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_PURPOSE": "ai-train",
        "REP_PURPOSE_AGENTS": "preset:apertus-0943bfd",
    }
    try:
        _, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    assert spider.downloaded == [urls[1]]  # PanguBot's group forbids /p
    records = by_url(trail)
    assert records[urls[0]]["fate"] == "refused"
    assert records[urls[0]]["refused_by"] == "robots.txt"
    header = lines(trail)[0]
    assert "pangubot" in [a.lower() for a in header["agents"]]
    (preset,) = header["agent_presets"]
    assert preset["name"] == "apertus-0943bfd" and "0943bfd" in preset["date"]
    assert "swiss-ai/pretrain-data" in preset["source"]
    result = verify(trail)
    assert result.clean, result.findings


@pytest_twisted.ensureDeferred
async def test_the_training_preference_recipe_obeys_the_policy_tokens_groups(
    tmp_path: Path,
) -> None:
    """docs/purpose-notes.md §7b: until draft-kelley's token is read as such, an ai-train
    crawl naming it in REP_PURPOSE_AGENTS obeys its groups (as fetch rules: stricter than
    the draft means), and the trail names the token."""
    sites = Sites()
    site = sites.add("a")
    site.script(
        "/robots.txt",
        robots("User-agent: *\nAllow: /\n\nUser-agent: __usage_ai-training\nDisallow: /news\n"),
    )
    urls = [sites.url("a", "/news/1"), sites.url("a", "/about")]
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_PURPOSE": "ai-train",
        "REP_PURPOSE_AGENTS": ["__usage_ai-training"],
    }
    try:
        _, spider = await crawl(urls, settings)
    finally:
        await sites.close()
    assert spider.downloaded == [urls[1]]
    record = by_url(trail)[urls[0]]
    assert record["fate"] == "refused" and "__usage_ai-training" in json.dumps(record)
    assert lines(trail)[0]["agent_presets"] == []
