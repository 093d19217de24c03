"""``REP_PURPOSE_AGENTS``: the groups of those tokens speak for the crawl, their
``Content-Usage`` and ``Content-Signal`` lines as well as their Disallow lines
(docs/purpose-notes.md §7a)."""

from __future__ import annotations

from rep_engine.robotstxt import parse_robotstxt
from rep_engine.verdict.policy import UsagePolicy

BODY = (
    "User-agent: GPTBot\nContent-Usage: train-ai=n\nContent-Usage: /free train-ai=y\n"
    "Content-Signal: ai-input=no\n\nUser-agent: *\nAllow: /\nContent-Usage: search=y\n"
)


def test_the_purpose_agents_content_usage_and_content_signal_apply() -> None:
    rules = parse_robotstxt(BODY)
    policy = UsagePolicy.of(["ai-train"])
    alone = policy.before_fetch(rules, "https://example.com/page", "TestBot")
    assert policy.refuse_before(alone) is None
    before = policy.before_fetch(rules, "https://example.com/page", "TestBot", None, ["GPTBot"])
    refusal = policy.refuse_before(before)
    assert refusal is not None
    assert refusal.message == (
        "ai-train denied by robots.txt line 2: Content-Usage: train-ai=n (for GPTBot)"
    )
    sources = [signal.source for signal in before.every]
    assert sources == [
        "robots.txt line 8: Content-Usage: search=y",
        "robots.txt line 2: Content-Usage: train-ai=n (for GPTBot)",
        "robots.txt line 4: Content-Signal: ai-input=no (for GPTBot)",
    ]
    free = policy.before_fetch(rules, "https://example.com/free/x", "TestBot", None, ["GPTBot"])
    assert policy.refuse_before(free) is None
    assert UsagePolicy.of(["ai-input"]).refuse_before(free) is not None


def test_a_group_shared_with_a_purpose_agent_is_counted_once() -> None:
    """When the crawler and the token fall back to the same ``*`` group, its signals are
    not repeated."""
    rules = parse_robotstxt("User-agent: *\nContent-Usage: train-ai=n\n")
    before = UsagePolicy.of(["ai-train"]).before_fetch(
        rules, "https://example.com/", "TestBot", None, ["GPTBot", "CCBot"]
    )
    assert [signal.source for signal in before.every] == [
        "robots.txt line 2: Content-Usage: train-ai=n"
    ]
