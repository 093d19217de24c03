"""The one decision after the fetch (rep_engine.verdict.page.decide_page), on the statements
the table of signals reads: directives by their union, usage by "any no wins", TDMRep by
its precedence, and a refusal per action with its typed reason."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from rep_engine.records import Reason
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.usage.purpose import UsageSignal
from rep_engine.usage.tdmrep import parse_tdmrep
from rep_engine.verdict.page import (
    PAGE,
    SAYS_NOTHING,
    PageFacts,
    PageRules,
    PageStatements,
    decide_page,
)
from rep_engine.verdict.policy import UsagePolicy

URL = "https://example.com/a"
FACTS = PageFacts(URL, ("mybot",))
SEARCH = PageRules()
AI = PageRules(UsagePolicy.of(["ai-train", "ai-input"]))


def said_by_page(
    *headers: tuple[str, str], meta: tuple[tuple[str, str], ...] = ()
) -> PageStatements:
    return PageStatements(tuple(headers), meta)


def test_a_page_that_says_nothing_is_kept_and_followed() -> None:
    verdict = decide_page(FACTS, SAYS_NOTHING, AI)
    assert (verdict.index, verdict.purpose, verdict.follow) == (None, None, None)
    assert not verdict.directives and verdict.usage.signals == ()


@pytest.mark.parametrize(
    ("statements", "said"),
    [
        (said_by_page(("x-robots-tag", "none")), "header X-Robots-Tag: none"),
        (said_by_page(("robots-tag", "*;noindex")), "header Robots-Tag: *;noindex"),
        (said_by_page(meta=(("robots", "noindex"),)), '<meta name="robots" content="noindex">'),
        (said_by_page(meta=(("mybot", "noindex"),)), '<meta name="mybot" content="noindex">'),
        (
            said_by_page(("robots-tag", "mybot;noindex"), meta=(("robots", "noindex"),)),
            'header Robots-Tag: mybot;noindex and <meta name="robots" content="noindex">',
        ),
    ],
)
def test_spec6_noindex_refuses_keeping_the_items_naming_what_said_it(
    statements: PageStatements, said: str
) -> None:
    verdict = decide_page(FACTS, statements, SEARCH)
    assert verdict.index is not None
    assert verdict.index.reason is Reason.NOINDEX
    assert verdict.index.message == f"noindex by {said}"
    assert (verdict.index.document, verdict.index.agent) == (PAGE, "mybot")


def test_another_crawlers_rules_never_become_ours() -> None:
    statements = said_by_page(
        ("robots-tag", "OtherBot;noindex;nofollow"),
        ("x-robots-tag", "otherbot: noindex, nofollow"),
        meta=(("otherbot", "noindex"),),
    )
    verdict = decide_page(FACTS, statements, SEARCH)
    assert verdict.index is None and verdict.follow is None
    assert not verdict.directives


def test_repext03_union_with_x_robots_tag_and_meta() -> None:
    statements = said_by_page(
        ("x-robots-tag", "mybot: nofollow"),
        ("robots-tag", "*;nosnippet"),
        meta=(("robots", "noarchive"),),
    )
    verdict = decide_page(FACTS, statements, SEARCH)
    directives = verdict.directives
    assert directives.nofollow and directives.nosnippet and directives.noarchive
    assert verdict.follow is not None and verdict.follow.reason is Reason.NOFOLLOW
    assert verdict.follow.message == f"Not followed: {URL} says nofollow"
    assert directives.sources == (
        "X-Robots-Tag: mybot: nofollow",
        "Robots-Tag: *;nosnippet",
        '<meta name="robots" content="noarchive">',
    )


def test_every_name_the_request_was_decided_for_is_bound() -> None:
    statements = said_by_page(("robots-tag", "Googlebot;noindex"))
    assert decide_page(FACTS, statements, SEARCH).index is None
    sent_as = PageFacts(URL, ("mybot", "googlebot"))
    assert decide_page(sent_as, statements, SEARCH).index is not None


def test_repext03_nosnippet_is_a_no_for_ai_input_under_its_setting() -> None:
    verdict = decide_page(FACTS, said_by_page(("robots-tag", "*;nosnippet")), AI)
    assert verdict.purpose is not None
    assert verdict.purpose.reason is Reason.PURPOSE and verdict.purpose.purpose == "ai-input"
    assert verdict.purpose.signal is not None
    assert "Robots-Tag: *;nosnippet" in verdict.purpose.signal.source
    assert verdict.usage.allowed("ai-input") is False
    assert verdict.index is None  # nosnippet keeps the page in a search index


def test_unavailable_after_is_held_against_the_time_given() -> None:
    statements = said_by_page(("robots-tag", '*;unavailable_after="2026-06-01"'))
    before = datetime(2026, 5, 1, tzinfo=timezone.utc)
    after = datetime(2026, 7, 1, tzinfo=timezone.utc)
    assert decide_page(FACTS, statements, SEARCH, before).index is None
    refused = decide_page(FACTS, statements, SEARCH, after).index
    assert refused is not None and refused.reason is Reason.UNAVAILABLE_AFTER
    assert refused.message.startswith("unavailable_after by header Robots-Tag:")


def test_usage_headers_any_no_wins_in_the_tables_order() -> None:
    statements = said_by_page(("content-signal", "ai-train=yes"), ("content-usage", "train-ai=n"))
    verdict = decide_page(FACTS, statements, AI)
    sources = [signal.source for signal in verdict.usage.signals]
    assert sources == ["header Content-Usage: train-ai=n", "header Content-Signal: ai-train=yes"]
    assert verdict.purpose is not None and verdict.purpose.purpose == "ai-train"


def test_tdmrep_file_then_header_then_meta() -> None:
    policy = AI.policy
    tdm = parse_tdmrep(b'[{"location": "/*", "tdm-reservation": 1}]')
    before = policy.before_fetch(parse_robotstxt(""), URL, "mybot", tdm)
    facts = PageFacts(URL, ("mybot",), before)
    lifted = said_by_page(("tdm-reservation", "0"))
    assert decide_page(facts, lifted, AI).usage.allowed("ai-train") is True
    again = said_by_page(("tdm-reservation", "0"), meta=(("tdm-reservation", "1"),))
    assert decide_page(facts, again, AI).usage.allowed("ai-train") is False
    # TDMRep's rows are read only for a crawl with an AI purpose.
    assert decide_page(FACTS, again, SEARCH).usage.signals == ()
    assert decide_page(FACTS, again, AI).usage.allowed("ai-train") is False


def test_a_files_noindex_and_its_own_statements() -> None:
    file = PageFacts(URL, ("mybot",), file=True)
    statements = said_by_page(("x-robots-tag", "noindex"))
    refused = decide_page(file, statements, AI).purpose
    assert refused is not None and "REP_MEDIA_NOINDEX_MEANS_NO_AI" in refused.message
    off = PageRules(AI.policy, file_noindex_no_ai=False)
    assert decide_page(file, statements, off).purpose is None
    inside = UsageSignal("iptc", (None, False, None), "XMP plus:DataMining DMI-PROHIBITED")
    said = SAYS_NOTHING.also(inside=(inside,))
    refused = decide_page(file, said, off).purpose
    assert refused is not None and refused.signal is inside


def test_licenses_known_later_are_decided_with_the_same_statements() -> None:
    statements = said_by_page(("x-robots-tag", "nocache"))  # a no for ai-train only
    license_no = UsageSignal("rsl", (None, None, False), "RSL license https://example.com/l")
    rules = PageRules(UsagePolicy.of(["ai-input"]))
    first = decide_page(FACTS, statements, rules)
    assert first.purpose is None
    later = decide_page(FACTS, statements.also(licenses=(license_no,)), rules)
    assert later.purpose is not None and later.purpose.signal is license_no
    assert later.directives == first.directives
