"""The recheck's fast path with many names (``REP_PURPOSE_AGENTS``: one match per group
set, its outcomes decided when first read) against the full decision of each item
(:func:`rep_engine.verdict.decide.decide` with the deciding line kept), over random robots.txt
files, names and URLs: no "no" lost, and a refusal says what the full decision says."""

from __future__ import annotations

import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rep_engine.fetch.cache import CacheEntry
from rep_engine.records import ItemStatus
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import ROBOTS, TDM, Refused
from rep_recheck.documents import OriginDocuments
from rep_recheck.rechecker import Identity, Outcome, Rechecker

NEVER = float("inf")
ORIGIN = "https://a.example"
#: Names a group may name and a setting may hold: versioned, in other case, the
#: wildcard, a name of the crawler's own, one no group names.
NAMES = ("*", "CCBot", "ccbot", "CCBot/2.0", "GPTBot", "gptbot/1.1", "mybot", "Google-Extended",
         "other")  # fmt: skip
PATHS = ("/", "/a", "/a/", "/a/b", "/b", "/a$", "/*.pdf", "/a*b", "/%7Ea", "/~a", "/A",
         "/robots.txt", "")  # fmt: skip
URL_PATHS = ("/", "/a", "/a/b", "/a/b.pdf", "/b", "/ab", "/A", "/~a", "/%7ea", "/%7Ea/x",
             "/robots.txt", "/a?q=1", "/x.pdf", "/a%2Fb", "/é", "")  # fmt: skip


@st.composite
def robots_files(draw: Any) -> str:
    """A robots.txt of a few groups, each naming one or more agents (an empty
    user-agent line among them, at times), with Allow and Disallow lines."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        for agent in draw(st.lists(st.sampled_from((*NAMES, "")), min_size=1, max_size=3)):
            lines.append(f"User-agent: {agent}")
        for _ in range(draw(st.integers(0, 4))):
            kind = draw(st.sampled_from(("Allow", "Disallow")))
            lines.append(f"{kind}: {draw(st.sampled_from(PATHS))}")
        lines.append("")
    return "\n".join(lines)


def _one_origin(text: str) -> OriginDocuments:
    origin = origin_of(ORIGIN + "/")
    assert origin is not None
    documents = OriginDocuments(origin, now=time.time())
    robots = parse_robotstxt(text.encode())
    documents.add(ROBOTS, origin, CacheEntry(robots, "200", time.time(), NEVER, NEVER))
    documents.add(TDM, origin, CacheEntry(NO_FILE, "200", time.time(), NEVER, NEVER))
    return documents


def _outcome_words(outcome: Outcome) -> tuple[Any, ...]:
    refusal = outcome.refusal
    if not isinstance(refusal, Refused):
        return outcome.status, None
    return outcome.status, refusal.line, refusal.agent, refusal.message, refusal.reason


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=robots_files(),
    agents=st.lists(st.sampled_from(NAMES), max_size=4),
    crawler=st.sampled_from(("mybot/1.0", "CCBot/2.0", "Other")),
    purpose=st.sampled_from(("search", "ai-train")),
    profile=st.sampled_from(("google", "rfc9309", "legacy")),
    paths=st.lists(st.sampled_from(URL_PATHS), min_size=1, max_size=8),
)
def test_the_fast_path_says_what_the_full_decision_says_of_each_item(
    text: str, agents: list[str], crawler: str, purpose: str, profile: str, paths: list[str]
) -> None:
    documents = _one_origin(text)

    def known(origin: Origin) -> OriginDocuments | None:
        return documents if str(origin) == ORIGIN else None

    config = RepConfig.from_settings(
        {"REP_PURPOSE": purpose, "REP_PURPOSE_AGENTS": agents, "REP_PROFILE": profile}
    )
    fast = Rechecker(config, Identity(crawler), known, explain=False)
    full = Rechecker(config, Identity(crawler), known, explain=True)
    full._fast = False  # every item decided in full: the reference
    urls = [ORIGIN + path for path in paths]
    # each item alone against the full decision, then in one pass: the shared outcomes
    # (the first refusal of a line, the first kept item) say the same of each
    for url in urls:
        alone = Rechecker(config, Identity(crawler), known, explain=False)
        assert _outcome_words(alone.decide(url)) == _outcome_words(full.decide(url)), url
    outcomes = [fast.decide(url) for url in urls]
    assert all(type(outcome) is not Outcome for outcome in outcomes)  # the fast path's
    said = [_outcome_words(outcome) for outcome in outcomes]
    assert said == [_outcome_words(full.decide(url)) for url in urls]
    # the whole outcome, which the report and the trail are written from, as the full
    # decision made without the fast path (its verdict, its sentence, its line) makes it
    slow = Rechecker(config, Identity(crawler), known, explain=False)
    slow._fast = False  # the same settings, each item decided in full
    for url, outcome in zip(urls, outcomes, strict=True):
        expected = slow.decide(url)
        if outcome.status is ItemStatus.REFUSED:
            expected = full.decide(url)  # a refusal names its line either way
        assert outcome == expected and repr(outcome) == repr(expected), url
    # with explain (a report, a trail): the fast path's outcomes, an allowed item's line
    # named, are the full decision's
    lined = Rechecker(config, Identity(crawler), known, explain=True)
    for url in urls:
        outcome, expected = lined.decide(url), full.decide(url)
        assert outcome == expected and repr(outcome) == repr(expected), url
    assert all(s[0] is not ItemStatus.UNKNOWN for s in said)
