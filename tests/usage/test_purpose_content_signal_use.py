"""Content-Signal ``use=`` as a condition on use, and the ``Content-Signal`` response header.

Cloudflare's changelog (2026-08-31) has ``use=`` express "the maximum level at which
their content may be used", its levels "from least to most permissive": a condition on
how content is used, not a purpose opt-out. Cloudflare's managed robots.txt (its default
from 2026-09-15) is ``Content-Signal: search=yes,ai-train=no,use=reference``: an
ai-input crawl must not refuse such a site. The condition travels with the decision, the
marked items, the audit trail and the report. Cloudflare's converted pages send the same
signals as a response header, read as a page-level signal (docs/purpose-notes.md §2).
The report's line: tests/crawl/test_report.py; ``audit show``'s:
tests/audit/test_show_storylines.py; real crawls: tests/integration/test_content_signal_use.py.
"""

from __future__ import annotations

import json

import pytest

from rep_engine.robotstxt import ContentSignals, parse_content_signal, parse_robotstxt
from rep_engine.robotstxt.aipref import parse_prefs
from rep_engine.trail.lines import usage_part
from rep_engine.usage.purpose import (
    content_signal_header_signal,
    content_signal_signal,
    prefs_signal,
    usage_decision,
)
from rep_engine.verdict.page import PageFacts, PageRules, PageStatements, decide_page
from rep_engine.verdict.policy import UsagePolicy
from tests.support.answers import purpose_answers
from tests.support.documents import CLOUDFLARE_USE_REFERENCE
from tests.support.statements import page_says

Y, N, U = True, False, None
URL = "https://example.com/article"


# --------------------------------------------------------------------------- use= (unit)


def test_the_managed_robotstxt_refuses_no_ai_input_crawl() -> None:
    rules = parse_robotstxt(CLOUDFLARE_USE_REFERENCE)
    for purposes in (["ai-input"], ["search"], ["search", "ai-input"]):
        policy = UsagePolicy.of(purposes)
        assert policy.refuse_before(policy.before_fetch(rules, URL, "TestBot")) is None
    train = UsagePolicy.of(["ai-train"])
    refusal = train.refuse_before(train.before_fetch(rules, URL, "TestBot"))
    assert refusal is not None and refusal.purpose == "ai-train"
    assert refusal.message == (  # the line quoted as the site wrote it
        "ai-train denied by robots.txt line 2: Content-Signal: search=yes,ai-train=no,use=reference"
    )


def test_use_immediate_denies_nothing_its_own_keys_decide() -> None:
    rules = parse_robotstxt("User-agent: *\nContent-Signal: search=yes, use=immediate\n")
    decision = UsagePolicy.of(["search"]).before_fetch(rules, URL, "TestBot").decision()
    assert purpose_answers(decision) == (Y, U, U)
    assert decision.conditions == ("use=immediate",)


def test_the_condition_is_kept_on_the_decision_and_its_dict() -> None:
    rules = parse_robotstxt(CLOUDFLARE_USE_REFERENCE)
    decision = UsagePolicy.of(["ai-input"]).before_fetch(rules, URL, "TestBot").decision()
    assert purpose_answers(decision) == (Y, N, U)
    assert decision.conditions == ("use=reference",)
    marked = decision.to_dict()
    assert marked["c"] == ["use=reference"]
    assert marked["s"][0]["c"] == ["use=reference"]
    assert marked["s"][0]["src"] == (
        "robots.txt line 2: Content-Signal: search=yes,ai-train=no,use=reference"
    )
    part = usage_part(decision, "sha", "")
    assert part["conditions"] == ["use=reference"]
    assert part["signals"][0]["conditions"] == ["use=reference"]
    json.dumps(marked), json.dumps(part)  # plain JSON


def test_the_condition_of_a_purpose_agents_group_is_kept() -> None:
    """REP_PURPOSE_AGENTS: another token's group speaks for the crawl, its use= too."""
    # "Disallow:" ends GPTBot's group: a Content-Signal line ends none (RFC 9309 §2.2.4).
    rules = parse_robotstxt(
        "User-agent: GPTBot\nContent-Signal: ai-train=no, use=reference\nDisallow:\n\n"
        "User-agent: *\nAllow: /\n"
    )
    before = UsagePolicy.of(["ai-input"]).before_fetch(rules, URL, "TestBot", agents=["GPTBot"])
    [signal] = before.signals
    assert signal.source.endswith("(for GPTBot)")
    assert signal.conditions == ("use=reference",)
    assert before.decision().conditions == ("use=reference",)


def test_without_a_use_level_there_is_no_condition() -> None:
    rules = parse_robotstxt("User-agent: *\nContent-Signal: ai-train=no\n")
    decision = UsagePolicy.of(["ai-train"]).before_fetch(rules, URL, "TestBot").decision()
    assert decision.conditions == ()
    assert "c" not in decision.to_dict() and "c" not in decision.to_dict()["s"][0]
    assert "conditions" not in usage_part(decision, "", "")


def test_the_most_restrictive_level_of_several_signals_is_the_decisions() -> None:
    robots_level = content_signal_signal(ContentSignals(use="full"))
    header = content_signal_header_signal("use=reference")
    assert usage_decision([robots_level, header]).conditions == ("use=reference",)
    assert usage_decision([header, robots_level]).conditions == ("use=reference",)
    immediate = content_signal_header_signal("use=immediate")
    assert usage_decision([robots_level, header, immediate]).conditions == ("use=immediate",)


# --------------------------------------------------------------------------- header (unit)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["ai-train=yes, search=yes, ai-input=yes"], ContentSignals(Y, Y, Y)),
        (["AI-Train=No , search=yes"], ContentSignals(Y, None, N)),  # as in robots.txt
        (["ai-input=yes", "ai-input=no"], ContentSignals(None, N, None)),  # a no wins
        (["search=yes, use=full", "use=reference"], ContentSignals(Y, None, None, "reference")),
        (["nonsense, ai-train", ""], ContentSignals()),
    ],
)
def test_parse_content_signal_reads_header_values_like_the_robotstxt_line(
    values: list[str], expected: ContentSignals
) -> None:
    assert parse_content_signal(values) == expected


def test_the_header_is_a_page_level_signal_named_as_its_source() -> None:
    """(The page reader reads the header into the page's statements:
    tests/crawl/page/test_pagereader.py.)"""
    statements = page_says(headers={"Content-Signal": "ai-train=yes, search=yes, ai-input=yes"})
    policy = UsagePolicy.of(["ai-train"])
    before = policy.before_fetch(parse_robotstxt(""), URL, "x")
    decision = decide_page(PageFacts(URL, ("x",), before), statements, PageRules(policy)).usage
    assert purpose_answers(decision) == (Y, Y, Y)
    [signal] = decision.signals
    assert signal.vocabulary == "content-signal"
    assert signal.source == "header Content-Signal: ai-train=yes, search=yes, ai-input=yes"
    assert usage_part(decision, "", "")["signals"][0]["source"] == signal.source


def test_no_wins_across_the_header_and_the_other_signals() -> None:
    policy = UsagePolicy.of(["ai-train"])
    before = policy.before_fetch(parse_robotstxt(CLOUDFLARE_USE_REFERENCE), URL, "TestBot")
    rules = PageRules(policy)
    page = PageStatements((("content-signal", "ai-train=yes, search=yes, ai-input=yes"),))
    decision = decide_page(PageFacts(URL, ("x",), before), page, rules).usage
    assert purpose_answers(decision) == (Y, N, Y)  # robots.txt's ai-train=no beats the header's yes
    assert decision.decided_by("ai-train") is not None
    assert decision.decided_by("ai-train").source.startswith("robots.txt line 2: Content-Signal")
    # The header's no beats a Content-Usage header's y, and names itself.
    nothing = PageFacts(URL, ("x",), policy.before_fetch(parse_robotstxt(""), URL, "x"))
    page = PageStatements((("content-usage", "train-ai=y"), ("content-signal", "ai-train=no")))
    decision = decide_page(nothing, page, rules).usage
    assert decision.allowed("ai-train") is False
    refusal = policy.refusal(decision)
    assert refusal is not None
    assert refusal.message == "ai-train denied by header Content-Signal: ai-train=no"
    # and a Content-Usage n beats the header's yes
    page = PageStatements((("content-usage", "train-ai=n"), ("content-signal", "ai-train=yes")))
    decision = decide_page(nothing, page, rules).usage
    assert decision.allowed("ai-train") is False
    assert prefs_signal(parse_prefs("train-ai=n"), "h").answers == (U, N, U)


def test_the_line_that_said_no_decides_and_is_named() -> None:
    """One signal a Content-Signal line, each naming its line: the line that said no
    decides, as a Content-Usage rule does."""
    rules = parse_robotstxt(
        "Content-Signal: ai-train=yes, search=yes\nUser-agent: *\nContent-Signal: ai-train=no\n"
    )
    decision = UsagePolicy.of(["ai-train"]).before_fetch(rules, URL, "TestBot").decision()
    assert purpose_answers(decision) == (Y, N, U)
    assert [signal.source for signal in decision.signals] == [
        "robots.txt line 1: Content-Signal: ai-train=yes, search=yes",
        "robots.txt line 3: Content-Signal: ai-train=no",
    ]
    assert (
        decision.decided_by("ai-train").source == "robots.txt line 3: Content-Signal: ai-train=no"
    )
    assert decision.decided_by("search").source.startswith("robots.txt line 1: ")
