"""A crawl whose ``REP_PURPOSE_AGENTS`` names a crawler-name preset obeys the robots.txt
groups of every name in it, and its trail's run header names the preset with its date and
source (rep-engine/rep_engine/usage/agentpresets.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_twisted

from rep_audit.verify import verify
from tests.support.audittrail import by_url, lines
from tests.support.recheck import recheck_tool, robots_capture, write_jsonl, write_warc
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


#: Groups of the crawler's own name (TestBot) and of three names of the preset, and a
#: Content-Signal line as Cloudflare writes it: lines 2, 5, 8 and 11, then line 14.
GROUPS = (
    "User-agent: TestBot\nDisallow: /mine\n\n"
    "User-agent: GPTBot\nDisallow: /gpt\n\n"
    "User-agent: ClaudeBot\nDisallow: /claude\n\n"
    "User-agent: PanguBot\nDisallow: /pangu\n\n"
    "User-agent: *\nContent-Signal: search=yes,ai-train=no\nAllow: /\n"
)
#: The line and group of each path a name of GROUPS disallows.
DISALLOWED = {"/mine/1": (2, "TestBot"), "/gpt/1": (5, "GPTBot"), "/claude/1": (8, "ClaudeBot"),
              "/pangu/1": (11, "PanguBot")}  # fmt: skip
#: REP_PURPOSE_AGENTS as the docs give it (docs/settings.md): a preset, a list of names.
AGENT_SETTINGS = ["preset:apertus-0943bfd", ["GPTBot", "ClaudeBot", "PanguBot"]]


def expected_refusals(origin: str, own: str) -> dict[str, str]:
    """Each path refused and its sentence, for a crawler named ``own`` whose
    REP_PURPOSE_AGENTS hold GPTBot, ClaudeBot and PanguBot: its own group's line unnamed,
    a token's named (docs/settings.md, REP_PURPOSE_AGENTS)."""
    refused = {}
    for path, (line, name) in DISALLOWED.items():
        if name == "TestBot" and own != name:
            continue  # another crawler's group, not one of the run's names
        token = "" if name == own else f" for {name}"
        refused[path] = (f"Forbidden by {origin}/robots.txt{token} "
                         f"(line {line}: Disallow: {path.rsplit('/', 1)[0]})")  # fmt: skip
    return refused


@pytest.mark.parametrize("own", ["TestBot", "ClaudeBot"])
@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
@pytest.mark.parametrize("agents", AGENT_SETTINGS, ids=["preset", "list"])
@pytest_twisted.ensureDeferred
async def test_a_crawl_and_its_recheck_verify_under_every_documented_agents_setting(
    tmp_path: Path, agents: str | list[str], profile: str, own: str
) -> None:
    """docs/eu-ai-act.md's REP_PURPOSE_AGENTS, a preset or a list, under each profile and
    with the crawler named as one of the preset's names: the crawl's trail and the trail
    of a recheck of its items, decided for the same names, each refusal naming the group
    that refused it, verify clean."""
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots(GROUPS))
    paths = [*DISALLOWED, "/ok"]
    urls = [sites.url("a", path) for path in paths]
    trail = tmp_path / "trail.jsonl"
    user_agent = f"{own}/1.0"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_PURPOSE_AGENTS": agents,
                "REP_PROFILE": profile, "USER_AGENT": user_agent}  # fmt: skip
    try:
        await crawl(urls, settings)
    finally:
        await sites.close()
    origin = sites.url("a", "")
    refusals = expected_refusals(origin, own)
    crawled = by_url(trail)
    assert {url.removeprefix(origin): r["why"] for url, r in crawled.items()
            if r["fate"] == "refused"} == refusals  # fmt: skip
    assert verify(trail).findings == []
    # the same items re-checked from a WARC of that robots.txt, for the same names
    write_warc(tmp_path / "robots.warc", [robots_capture(origin, GROUPS)])
    write_jsonl(tmp_path / "items.jsonl", urls)
    listed = agents if isinstance(agents, str) else ",".join(agents)
    rechecked = tmp_path / "recheck.jsonl"
    recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "search", "--profile", profile,
                 "--user-agent", user_agent, f"-sREP_PURPOSE_AGENTS={listed}",
                 "--documents", str(tmp_path / "robots.warc"), f"--trail={rechecked}")  # fmt: skip
    items = [line for line in lines(rechecked) if line["type"] == "item"]
    assert {item["url"].removeprefix(origin): item["why"] for item in items
            if item["status"] == "refused"} == refusals  # fmt: skip
    assert verify(rechecked).findings == []
