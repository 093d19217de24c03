"""The crawl's purpose against the site's AI-usage signals (pure: rep_engine.verdict.policy)."""

from __future__ import annotations

import pytest

from rep_engine.fetch.kinds import TDMREP
from rep_engine.robotstxt import ALLOW_ALL, parse_robotstxt
from rep_engine.usage.purpose import UsageDecision
from rep_engine.usage.tdmrep import NO_FILE, RESERVED_ALL, parse_tdmrep
from rep_engine.verdict.page import PageFacts, PageRules, PageStatements, decide_page
from rep_engine.verdict.policy import (
    NOTHING_BEFORE,
    Before,
    UsagePolicy,
)


def usage_after(
    policy: UsagePolicy,
    before: Before,
    headers: tuple[tuple[str, str], ...] = (),
    meta: tuple[tuple[str, str], ...] = (),
    image: bool = False,
) -> UsageDecision:
    """The usage decision of the one page decision on a page that says ``headers`` and
    ``meta``, whose origin said ``before``."""
    facts = PageFacts("https://example.com/x", ("bot",), before, image)
    return decide_page(facts, PageStatements(headers, meta), PageRules(policy)).usage


ROBOTS = parse_robotstxt(
    b"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\nContent-Usage: /ok/ train-ai=y\n"
    b"Content-Signal: ai-input=no\n"
)
TDM = parse_tdmrep(b'[{"location": "/books/*", "tdm-reservation": 1}, {"location": "/free"}]')

#: (purposes, url, refused purpose before the fetch or None)
BEFORE = [
    (("search",), "/a", None),
    (("ai-train",), "/a", "ai-train"),
    (("ai-train",), "/ok/a", None),
    (("ai-input",), "/ok/a", "ai-input"),
    (("search", "ai-train"), "/a", "ai-train"),
    (("ai-train",), "/books/1", "ai-train"),  # /books/ rule is train-ai=n too
]


@pytest.mark.parametrize(("purposes", "url", "refused"), BEFORE, ids=lambda v: str(v))
def test_before_fetch_refuses_an_explicit_no(
    purposes: tuple[str, ...], url: str, refused: str | None
) -> None:
    policy = UsagePolicy.of(purposes)
    refusal = policy.refuse_before(policy.before_fetch(ROBOTS, url, "bot", TDM))
    assert (refusal.purpose if refusal else None) == refused


def test_before_fetch_without_signals_is_the_shared_nothing() -> None:
    policy = UsagePolicy.of(["ai-train"])
    assert policy.before_fetch(ALLOW_ALL, "/x", "bot", NO_FILE) is NOTHING_BEFORE
    assert policy.refuse_before(NOTHING_BEFORE) is None


def test_tdmrep_is_consulted_only_for_ai_purposes() -> None:
    plain = parse_robotstxt(b"User-agent: *\nAllow: /\n")
    assert UsagePolicy.of(["search"]).before_fetch(plain, "/books/1", "bot", TDM) is NOTHING_BEFORE
    before = UsagePolicy.of(["ai-input"]).before_fetch(plain, "/books/1", "bot", TDM)
    assert before.tdm_entry is not None and before.tdm_entry.index == 1
    refusal = UsagePolicy.of(["ai-input"]).refuse_before(before)
    assert refusal is not None and 'tdmrep.json entry 1 (location "/books/*")' in refusal.message


def test_unknown_never_refuses_before_but_denies_after_when_asked() -> None:
    plain = parse_robotstxt(b"User-agent: *\nAllow: /\n")
    policy = UsagePolicy.of(["ai-train"], unknown="deny")
    before = policy.before_fetch(plain, "/x", "bot", NO_FILE)
    assert policy.refuse_before(before) is None
    refusal = policy.refusal(usage_after(policy, before))
    assert refusal is not None and refusal.signal is None
    assert "REP_PURPOSE_UNKNOWN" in refusal.message
    assert UsagePolicy.of(["ai-train"]).refusal(usage_after(policy, before)) is None


def test_under_deny_a_signal_s_no_is_named_before_a_purpose_no_signal_allows() -> None:
    """With ``search, ai-train`` and ``REP_PURPOSE_UNKNOWN = "deny"``, a page's ``noai``
    (a "no" for ai-train, nothing of search) was refused as "no signal allowed search",
    the site's "no" unnamed: a signal's "no" is named first, whatever the order."""
    plain = parse_robotstxt(b"User-agent: *\nAllow: /\n")
    policy = UsagePolicy.of(["search", "ai-train"], unknown="deny")
    before = policy.before_fetch(plain, "/x", "bot", NO_FILE)
    refusal = policy.refusal(usage_after(policy, before, (("x-robots-tag", "noai"),)))
    assert refusal is not None and refusal.purpose == "ai-train", refusal
    assert refusal.signal is not None and "noai" in refusal.signal.source
    refusal = policy.refusal(usage_after(policy, before))
    assert refusal is not None and (refusal.purpose, refusal.signal) == ("search", None)


def test_tdmrep_precedence_file_then_header_then_meta() -> None:
    """TDMRep §4: each later technique supersedes the one before; absence never resets."""
    policy = UsagePolicy.of(["ai-train"])
    plain = parse_robotstxt(b"")
    before = policy.before_fetch(plain, "/books/1", "bot", TDM)  # the file reserves
    lifted = (("tdm-reservation", "0"),)
    assert usage_after(policy, before, lifted).allowed("ai-train") is True
    again = usage_after(policy, before, lifted, (("tdm-reservation", "1"),))
    assert again.allowed("ai-train") is False
    silent = usage_after(policy, before, meta=(("tdm-reservation", "maybe"),))
    assert silent.allowed("ai-train") is False


def test_page_signals_any_no_wins_across_vocabularies() -> None:
    policy = UsagePolicy.of(["ai-train", "ai-input"])
    before = policy.before_fetch(ROBOTS, "/ok/a", "bot", NO_FILE)  # train-ai=y, ai-input=no
    decision = usage_after(policy, before, (("content-usage", "train-ai=n"),))
    assert decision.allowed("ai-train") is False
    assert decision.decided_by("ai-train").source == "header Content-Usage: train-ai=n"
    decision = usage_after(policy, NOTHING_BEFORE, meta=(("robots", "noai"),))
    assert decision.verdict("ai-train") == decision.verdict("ai-input") == "denied"
    assert decision.allowed("search") is None


def test_noimageai_counts_only_on_an_image_response() -> None:
    policy = UsagePolicy.of(["ai-train"])
    said = (("x-robots-tag", "noimageai"),)
    page = usage_after(policy, NOTHING_BEFORE, said)
    image = usage_after(policy, NOTHING_BEFORE, said, image=True)
    assert page.allowed("ai-train") is None and image.allowed("ai-train") is False


def test_needs_tdmrep_and_stand_ins() -> None:
    assert not UsagePolicy.of(["search"]).needs_tdmrep
    assert UsagePolicy.of(["search", "ai-input"]).needs_tdmrep
    assert TDMREP.stand_in(True) is NO_FILE and TDMREP.stand_in(False) is RESERVED_ALL
    assert RESERVED_ALL.values("/anything").reservation is True
