"""A recheck's trail verifies under every setting the docs name for whom its items are
decided (docs/settings.md, docs/eu-ai-act.md): ``REP_PURPOSE_AGENTS`` (a preset, a list of
names, both), the crawler's own name (``--user-agent``, ``ROBOTSTXT_USER_AGENT``), each
``REP_PROFILE`` and each purpose; and under each, an item whose record names another
agent, another line or another sentence than its snapshots give is found (``audit
verify`` holds a refusal to its verdict, never to what the record says)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rep_audit.verify import verify
from rep_engine.directives import product_token
from rep_engine.robotstxt.profiles import PROFILES
from rep_engine.robotstxt.useragent import crawler_name
from rep_engine.usage.agentpresets import PRESETS
from tests.support.recheck import (
    forged_item,
    recheck_tool,
    robots_capture,
    write_jsonl,
    write_warc,
)

ORIGIN = "https://a.example"
#: Groups of AI crawlers' names (one of two names), of a crawler's own name and of every
#: other, with Content-Signal and Content-Usage lines as sites write them.
GROUPS = (
    "User-agent: GPTBot\nDisallow: /gpt\ncontent-signal: search=yes,ai-train=no\n\n"
    "User-agent: CCBot\nUser-agent: ClaudeBot\nDisallow: /cc\n"
    "Content-Usage: /cc-books train-ai=n\n\n"
    "User-agent: mybot\nDisallow: /mine\n\n"
    "User-agent: *\nContent-Signal: search=yes,ai-input=no\ncontent-usage: /books train-ai=n\n"
    "Disallow: /private\nAllow: /\n"
)
PATHS = ["/gpt/1", "/cc/1", "/cc-books/1", "/mine/1", "/private/1", "/books/1", "/ok"]
#: The names REP_PURPOSE_AGENTS may hold: every preset, its names, and others.
ENTRIES = sorted({*(f"preset:{name}" for name in PRESETS),
                  *(name for preset in PRESETS.values() for name in preset.names),
                  "mybot", "__usage_ai-training"})  # fmt: skip
#: How a crawler may be named: a product token, a browser-like string naming one, a
#: browser's (which selects the * group).
USER_AGENTS = ["mybot/1.0", "Scrapy/2.19 (+https://scrapy.org)", "GPTBot/1.1",
               "Mozilla/5.0 (compatible; ClaudeBot/1.0; +https://anthropic.com)",
               "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0"]  # fmt: skip


@st.composite
def identities(draw: Any) -> dict[str, Any]:
    """A recheck's settings for whom and what for its items are decided."""
    agents = draw(st.lists(st.sampled_from(ENTRIES), max_size=4, unique=True))
    declared = draw(st.sampled_from(["", "mybot", "GPTBot", "Scrapy"]))
    return {
        "profile": draw(st.sampled_from(sorted(PROFILES))),
        "purposes": draw(st.sampled_from(["search", "ai-train", "ai-input", "search,ai-train"])),
        "user_agent": draw(st.sampled_from(USER_AGENTS)),
        "settings": [f"REP_PURPOSE_AGENTS={','.join(agents)}"]
        + ([f"ROBOTSTXT_USER_AGENT={declared}"] if declared else []),
    }


def recheck_under(folder: Path, identity: dict[str, Any]) -> Path:
    """The items of :data:`PATHS` re-checked under ``identity``; its trail."""
    warc = folder / "robots.warc"
    write_warc(warc, [robots_capture(ORIGIN, GROUPS),
                      (f"{ORIGIN}/.well-known/tdmrep.json", 404, b"", {})])  # fmt: skip
    write_jsonl(folder / "items.jsonl", [ORIGIN + path for path in PATHS])
    trail = folder / "recheck.jsonl"
    code, _ = recheck_tool(
        str(folder / "items.jsonl"), "--purpose", identity["purposes"],
        "--profile", identity["profile"], "--user-agent", identity["user_agent"],
        *(f"-s{setting}" for setting in identity["settings"]),
        "--documents", str(warc), f"--trail={trail}",
    )  # fmt: skip
    assert code in (0, 1), code
    return trail


def declared_of(identity: dict[str, Any]) -> str:
    """The crawler's own name under ``identity`` (``ROBOTSTXT_USER_AGENT``, else its
    User-Agent's)."""
    declared = [s.partition("=")[2] for s in identity["settings"] if "ROBOTSTXT" in s]
    return crawler_name(declared[0] if declared else identity["user_agent"])


def recheck_problems(trail: Path) -> list[str]:
    return [finding.what for finding in verify(trail).findings if not finding.event]


def tampered(trail: Path, item: dict[str, Any], **changes: Any) -> list[str]:
    """What verify finds in ``trail`` with ``item`` changed so (its chain made again)."""
    forged = forged_item(trail, item["url"], **changes)
    try:
        return recheck_problems(forged)
    finally:
        forged.unlink()
        forged.with_name("forged.jsonl.d").unlink()


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(identities())
def test_a_rechecks_trail_verifies_under_every_documented_setting(
    identity: dict[str, Any],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        trail = recheck_under(Path(folder), identity)
        assert recheck_problems(trail) == []
        records = [json.loads(line) for line in trail.read_text().splitlines()]
        refused = [r for r in records if r.get("refused_by") == "robots.txt"]
        for item in refused:  # each names the group that refused it, not the crawler's
            named = item["why"].partition(" for ")[2].partition(" (line")[0]
            assert product_token(named or declared_of(identity)) == item["robots"]["agent"]
        for item in refused[:1]:  # a forger's edits of one refusal, each found
            robots = item["robots"]
            assert tampered(trail, item, robots={**robots, "agent": "otherbot"})
            assert tampered(trail, item, robots={**robots, "line": robots["line"] + 1})
            assert tampered(trail, item, why=item["why"].replace("(line", "for ZZBot (line"))
