"""Microsoft's ``DisallowAITraining: /path`` / ``AllowAITraining: /path``
(draft-canel-robots-ai-control-00, 21 Oct 2024): train-ai=n / train-ai=y path rules of
their group. In the google profile a key that starts with ``disallow`` / ``allow`` is
also that rule, as Google's parser reads it; in rfc9309 only the train-ai rule."""

from __future__ import annotations

import pytest

from rep_engine.robotstxt import parse_robotstxt
from rep_engine.verdict.policy import UsagePolicy

Y, N, U = True, False, None
BODY = "User-agent: *\nDisallowAITraining: /private\nAllowAITraining: /private/ok\nAllow: /\n"
URL = "https://example.com"


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_ai_training_lines_are_train_ai_path_rules(profile: str) -> None:
    rules = parse_robotstxt(BODY, profile).content_usage("TestBot")
    assert rules.prefs(f"{URL}/private/x").train_ai is N
    assert rules.prefs(f"{URL}/private/ok/x").train_ai is Y
    assert rules.prefs(f"{URL}/public").train_ai is U
    attached = rules.attach(f"{URL}/private/x")
    assert [rule.source for rule in attached.rules] == [
        "robots.txt line 2: DisallowAITraining: /private"
    ]


def test_google_also_reads_ai_training_lines_as_disallow_and_allow() -> None:
    robots = parse_robotstxt(BODY, "google")
    decision = robots.decide(f"{URL}/private/x", "TestBot")
    assert not decision.allowed and decision.explanation == "line 2: DisallowAITraining: /private"
    assert robots.allowed(f"{URL}/private/ok/x", "TestBot")  # AllowAITraining: an Allow


def test_rfc9309_reads_only_the_train_ai_rule() -> None:
    robots = parse_robotstxt(BODY, "rfc9309")
    assert robots.allowed(f"{URL}/private/x", "TestBot")


def test_the_crawl_refuses_ai_train_before_the_fetch() -> None:
    robots = parse_robotstxt(BODY, "rfc9309")
    policy = UsagePolicy.of(["ai-train"])
    refusal = policy.refuse_before(policy.before_fetch(robots, f"{URL}/private/x", "TestBot"))
    assert refusal is not None
    assert refusal.message == "ai-train denied by robots.txt line 2: DisallowAITraining: /private"
    ok = policy.before_fetch(robots, f"{URL}/private/ok/x", "TestBot")
    assert policy.refuse_before(ok) is None


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
def test_grouping_google_ends_the_run_only_in_its_profile(profile: str) -> None:
    """As a Disallow (Google) the line ends a run of user-agent lines for allow/disallow;
    as an unknown key (rfc9309) it does not; for the train-ai reading it always does."""
    body = "User-agent: a\nDisallowAITraining: /\nUser-agent: b\nDisallow: /x\n"
    robots = parse_robotstxt(body, profile)
    assert robots.allowed(f"{URL}/x", "a") is False
    assert robots.allowed(f"{URL}/y", "a") is (profile != "google")
    assert robots.allowed(f"{URL}/y", "b")
    assert robots.content_usage("a").prefs(f"{URL}/y").train_ai is N
    assert robots.content_usage("b").prefs(f"{URL}/y").train_ai is U


def test_empty_and_file_wide_ai_training_lines() -> None:
    body = "DisallowAITraining: /all-ai\nUser-agent: *\nDisallowAITraining:\nAllowAITraining: /\n"
    robots = parse_robotstxt(body)
    assert robots.allowed(f"{URL}/all-ai/x", "TestBot")  # Google: a rule before any group
    usage = robots.content_usage("TestBot")
    assert usage.prefs(f"{URL}/all-ai/x").train_ai is N  # file-wide: only restricts
    assert usage.prefs(f"{URL}/other").train_ai is Y
