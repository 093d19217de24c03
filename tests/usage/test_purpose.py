"""Purposes, the mapping table, and the combined decision (docs/purpose-notes.md).

The Cloudflare robots.txt below is the managed file as Cloudflare publishes it in its
"robots.txt setting" documentation (cloudflare-docs, bots/additional-configurations/
managed-robots-txt), policy text included (the policy is CC0).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rep_engine import parse_robotstxt
from rep_engine.robotstxt import ContentSignals
from rep_engine.robotstxt.aipref import ContentUsageRule, ContentUsageRules, parse_prefs
from rep_engine.usage.purpose import (
    MAPPING,
    MAX_SOURCE_CHARS,
    PURPOSES,
    ROWS,
    UsageDecision,
    UsageSignal,
    allowed,
    content_signal_signal,
    content_usage_header_signal,
    content_usage_signals,
    page_signals,
    prefs_signal,
    tdmrep_signal,
    usage_decision,
)
from rep_engine.usage.tdmrep import header_values, meta_values, parse_tdmrep, resolve
from rep_engine.verdict.page import PageStatements
from tests.support.statements import page_directives_of, page_says

Y, N, U = True, False, None

CLOUDFLARE_POLICY = """\
# As a condition of accessing this website, you agree to abide by the
# following content signals:

# (a)  If a content-signal = yes, you may collect content for the
#      corresponding use.
# (b)  If a content-signal = no, you may not collect content for the
#      corresponding use.
# (c)  If the website operator does not include a content signal for a
#      corresponding use, the website operator neither grants nor restricts
#      permission via content signal with respect to the corresponding use.

# The content signals and their meanings are:

# search: building a search index and providing search results (e.g., returning
#         hyperlinks and short excerpts from your website's contents). Search
#         does not include providing AI-generated search summaries.
# ai-input: inputting content into one or more AI models (e.g., retrieval
#           augmented generation, grounding, or other real-time taking of
#           content for generative AI search answers).
# ai-train: training or fine-tuning AI models.

# ANY RESTRICTIONS EXPRESSED VIA CONTENT SIGNALS ARE EXPRESS RESERVATIONS OF
# RIGHTS UNDER ARTICLE 4 OF THE EUROPEAN UNION DIRECTIVE 2019/790 ON COPYRIGHT
# AND RELATED RIGHTS IN THE DIGITAL SINGLE MARKET.
"""

CLOUDFLARE_MANAGED = (
    CLOUDFLARE_POLICY
    + """
# BEGIN Cloudflare Managed content

User-Agent: *
Content-signal: search=yes, ai-train=no
Allow: /

User-agent: Amazonbot
Disallow: /

User-agent: Applebot-Extended
Disallow: /

User-agent: Bytespider
Disallow: /

User-agent: CCBot
Disallow: /

User-agent: ClaudeBot
Disallow: /

User-agent: Google-Extended
Disallow: /

User-agent: GPTBot
Disallow: /

User-agent: meta-externalagent
Disallow: /

# END Cloudflare Managed Content
User-agent: *
Disallow: /lp
Disallow: /feedback
Disallow: /langtest

Sitemap: https://www.crawlstop.com/sitemap.xml
"""
)


def verdicts(decision: UsageDecision) -> tuple[bool | None, ...]:
    return tuple(decision.allowed(p) for p in PURPOSES)


# --------------------------------------------------------------------------- the table


def test_mapping_has_one_row_per_signal_each_with_a_source() -> None:
    assert len(MAPPING) == len(ROWS)
    for row in ROWS:
        assert row.source and len(row.answers) == len(PURPOSES)
        assert MAPPING[(row.vocabulary, row.signal)] is row


#: (signal, expected answers for (search, ai-train, ai-input)): each row of the table,
#: reached through the public constructors from real input.
MAPPING_CASES = [
    ("aipref train-ai=y", prefs_signal(parse_prefs("train-ai=y"), "h"), (U, Y, U)),
    ("aipref train-ai=n", prefs_signal(parse_prefs("train-ai=n"), "h"), (U, N, U)),
    ("aipref search=y", prefs_signal(parse_prefs("search=y"), "h"), (Y, U, U)),
    ("aipref search=n", prefs_signal(parse_prefs("search=n"), "h"), (N, U, U)),
    ("aipref both", prefs_signal(parse_prefs("search=y, train-ai=n"), "h"), (Y, N, U)),
    ("aipref broken", prefs_signal(parse_prefs("search=Y=N"), "h"), (U, U, U)),
    ("cs search=yes", content_signal_signal(ContentSignals(search=True)), (Y, U, U)),
    ("cs search=no", content_signal_signal(ContentSignals(search=False)), (N, U, U)),
    ("cs ai-train=yes", content_signal_signal(ContentSignals(ai_train=True)), (U, Y, U)),
    ("cs ai-train=no", content_signal_signal(ContentSignals(ai_train=False)), (U, N, U)),
    ("cs ai-input=yes", content_signal_signal(ContentSignals(ai_input=True)), (U, U, Y)),
    ("cs ai-input=no", content_signal_signal(ContentSignals(ai_input=False)), (U, U, N)),
    ("cs none", content_signal_signal(ContentSignals()), (U, U, U)),
    ("tdm 1", tdmrep_signal(resolve(header_values("1"))), (U, N, N)),
    ("tdm 0", tdmrep_signal(resolve(header_values("0"))), (U, Y, Y)),
    ("tdm unset", tdmrep_signal(resolve(header_values("x"))), (U, U, U)),
]


@pytest.mark.parametrize(
    ("signal", "expected"), [c[1:] for c in MAPPING_CASES], ids=[c[0] for c in MAPPING_CASES]
)
def test_mapping_rows(signal: UsageSignal, expected: tuple[bool | None, ...]) -> None:
    """A vocabulary with no word for a purpose says nothing about it: aipref has no word
    for ai-input; TDMRep does not concern search engines (its docs/tdm-meaning.md)."""
    assert signal.answers == expected
    assert tuple(signal.answer(p) for p in PURPOSES) == expected


#: (what the page says, is it an image, expected (search, ai-train, ai-input)).
PAGE_CASES = [
    ("meta-noai", page_says(("robots", "noai")), False, (U, N, N)),
    ("header-noai", page_says(headers={"X-Robots-Tag": "noai"}), False, (U, N, N)),
    (
        "meta-noimageai-page",
        page_says(("robots", "noimageai")),
        False,
        (U, U, U),
    ),
    (
        "image-noimageai",
        page_says(headers={"X-Robots-Tag": "noimageai"}),
        True,
        (U, N, N),
    ),
    (
        "image-noai",
        page_says(headers={"X-Robots-Tag": "noai"}),
        True,
        (U, N, N),
    ),
    ("other-bot", page_says(headers={"X-Robots-Tag": "otherbot: noai"}), False, (U, U, U)),
    (
        "noindex-says-nothing",
        page_says(("robots", "noindex")),
        False,
        (U, U, U),
    ),
    ("both", page_says(("robots", "noai, noimageai")), False, (U, N, N)),
    # Mojeek's noml: no machine learning, training or applications; search stays open.
    ("meta-noml", page_says(("robots", "noml")), False, (U, N, N)),
    ("header-noml", page_says(headers={"X-Robots-Tag": "noml"}), False, (U, N, N)),
    ("scoped-noml", page_says(headers={"X-Robots-Tag": "mybot: noml"}), False, (U, N, N)),
    ("our-meta-noml", page_says(("mybot", "noml")), False, (U, N, N)),
    ("other-bot-noml", page_says(headers={"X-Robots-Tag": "otherbot: noml"}), False, (U, U, U)),
    # noarchive: no AI training, as Bing and Amazon read it (REP_NOARCHIVE_MEANS_NO_AI_TRAIN),
    # and no AI input, as Bing's 2026 guidelines read it (REP_NOARCHIVE_MEANS_NO_AI_INPUT)
    ("meta-noarchive", page_says(("robots", "noarchive")), False, (U, N, N)),
    ("header-noarchive", page_says(headers={"X-Robots-Tag": "noarchive"}), False, (U, N, N)),
    # nocache: read like noarchive, as Bing reads it (REP_NOCACHE_MEANS_NO_AI_TRAIN)
    ("meta-nocache", page_says(("robots", "nocache")), False, (U, N, U)),
    ("header-nocache", page_says(headers={"X-Robots-Tag": "mybot: nocache"}), False, (U, N, U)),
    ("other-bot-nocache", page_says(headers={"X-Robots-Tag": "otherbot: nocache"}), False,
     (U, U, U)),
    # nosnippet, max-snippet:0: no direct input to AI answers, as Google reads them
    # (REP_NOSNIPPET_MEANS_NO_AI_INPUT); a snippet length above 0 is no "no"
    ("meta-nosnippet", page_says(("robots", "nosnippet")), False,
     (U, U, N)),
    ("header-max-snippet-0", page_says(headers={"X-Robots-Tag": "max-snippet: 0"}), False,
     (U, U, N)),
    ("our-meta-max-snippet-0", page_says(("mybot", "max-snippet:0")), False,
     (U, U, N)),
    ("max-snippet-20", page_says(("robots", "max-snippet:20")), False,
     (U, U, U)),
    ("other-bot-nosnippet", page_says(headers={"X-Robots-Tag": "otherbot: nosnippet"}), False,
     (U, U, U)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "image", "expected"), [c[1:] for c in PAGE_CASES], ids=[c[0] for c in PAGE_CASES]
)
def test_mapping_noai_noimageai(
    said: PageStatements, image: bool, expected: tuple[bool | None, ...]
) -> None:
    """noai: not for AI training nor as input to AI models (DeviantArt). noimageai: the
    same for an image response; on an HTML page it protects the images, not the text."""
    signals = page_signals(page_directives_of(said, "MyBot/1.0"), image=image)
    assert verdicts(usage_decision(signals)) == expected


def test_page_signal_sources_quote_the_tag() -> None:
    signals = page_signals(page_directives_of(page_says(("robots", "noai")), "MyBot"), image=False)
    assert [s.source for s in signals] == ['<meta name="robots" content="noai">']
    noimage = page_signals(
        page_directives_of(page_says(headers={"X-Robots-Tag": "noimageai"}), "MyBot"),
        image=False,
    )
    assert [s.source for s in noimage] == ["X-Robots-Tag: noimageai"]
    assert noimage[0].answers == (U, U, U)  # recorded, says nothing about the page


# --------------------------------------------------------------------------- Cloudflare


def test_cloudflare_managed_robotstxt_as_published() -> None:
    """The `*` group (both `*` groups merged) says search=yes, ai-train=no and nothing
    about ai-input; the named AI crawlers' groups say nothing (and disallow all)."""
    robots = parse_robotstxt(CLOUDFLARE_MANAGED)
    ours = content_signal_signal(robots.content_signals("Scrapy/2.13 (+https://scrapy.org)"))
    decision = usage_decision([ours])
    assert verdicts(decision) == (Y, N, U)
    assert decision.decided_by("ai-train") is ours
    assert ours.source == "robots.txt Content-Signal: search=yes, ai-train=no"
    assert robots.allowed("https://www.crawlstop.com/page", "Scrapy")
    assert not robots.allowed("https://www.crawlstop.com/lp", "Scrapy")
    gpt = content_signal_signal(robots.content_signals("GPTBot"))
    assert verdicts(usage_decision([gpt])) == (U, U, U)
    assert not robots.allowed("https://www.crawlstop.com/page", "GPTBot")


def test_cloudflare_policy_without_signals_says_nothing() -> None:
    """ "This file only outlines the Content Signals framework. It does not express your
    preferences" (the file served to free zones without a robots.txt)."""
    robots = parse_robotstxt(CLOUDFLARE_POLICY)
    assert robots.content_signals("Scrapy") == ContentSignals()
    assert verdicts(usage_decision([content_signal_signal(robots.content_signals("Scrapy"))])) == (
        U,
        U,
        U,
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Content-Signal: ai-train=no, search=yes, ai-input=yes", (Y, N, Y)),  # contentsignals.org
        # Cloudflare's managed default: use= is a condition, ai-input is left unknown.
        ("Content-Signal: search=yes,ai-train=no,use=reference", (Y, N, U)),
        ("content-signal: search=no, ai-input=no, ai-train=no", (N, N, N)),
        ("Content-Signal: search=yes, ai-train=yes", (Y, Y, U)),
    ],
    ids=["contentsignals-org", "use-key", "all-no", "all-yes"],
)
def test_cloudflare_published_signal_lines(line: str, expected: tuple[bool | None, ...]) -> None:
    robots = parse_robotstxt(f"User-Agent: *\n{line}\nAllow: /\n")
    assert (
        verdicts(usage_decision([content_signal_signal(robots.content_signals("Scrapy"))]))
        == expected
    )


# --------------------------------------------------------------------------- decisions


def sig(answers: tuple[bool | None, bool | None, bool | None], name: str) -> UsageSignal:
    return UsageSignal("aipref", answers, name)


#: (signals in order, expected answers, expected deciding signal per purpose).
DECISION_CASES = [
    ([], (U, U, U), (None, None, None), "no-signals"),
    ([sig((Y, Y, Y), "a")], (Y, Y, Y), ("a", "a", "a"), "one-yes"),
    ([sig((Y, Y, Y), "a"), sig((U, N, U), "b")], (Y, N, Y), ("a", "b", "a"), "no-wins"),
    ([sig((U, N, U), "a"), sig((Y, Y, Y), "b")], (Y, N, Y), ("b", "a", "b"), "no-wins-first"),
    ([sig((U, N, U), "a"), sig((U, N, U), "b")], (U, N, U), (None, "a", None), "first-no-named"),
    ([sig((U, U, U), "a"), sig((U, Y, U), "b")], (U, Y, U), (None, "b", None), "then-yes"),
    ([sig((Y, U, U), "a"), sig((Y, U, U), "b")], (Y, U, U), ("a", None, None), "first-yes"),
]


@pytest.mark.parametrize(
    ("signals", "expected", "deciders"),
    [c[:3] for c in DECISION_CASES],
    ids=[c[3] for c in DECISION_CASES],
)
def test_decision_any_no_wins_then_any_yes_else_unknown(
    signals: list[UsageSignal],
    expected: tuple[bool | None, ...],
    deciders: tuple[str | None, ...],
) -> None:
    decision = usage_decision(signals)
    assert verdicts(decision) == expected
    got = tuple(getattr(decision.decided_by(p), "source", None) for p in PURPOSES)
    assert got == deciders
    assert tuple(allowed(signals, p) for p in PURPOSES) == expected
    assert decision.signals == tuple(signals)


def test_decision_across_all_vocabularies_for_one_page() -> None:
    """One page, every kind of signal: robots.txt Content-Signal and Content-Usage, the
    Content-Usage header, TDMRep (file, header, meta), robots meta. Each purpose is
    decided by the first explicit "no", and the audit trail names every source."""
    robots = parse_robotstxt(
        "User-agent: *\nContent-Signal: search=yes, ai-input=yes\nAllow: /\n"
        "Content-Usage: train-ai=y\nContent-Usage: /books/ train-ai=n\n"
    )
    rules = ContentUsageRules(
        [ContentUsageRule.parse(b"train-ai=y", 4), ContentUsageRule.parse(b"/books/ train-ai=n", 5)]
    )
    tdm = parse_tdmrep(
        b'[{"location": "/music/", "tdm-reservation": 0}, '
        b'{"location": "/books/*", "tdm-reservation": 1}]'
    )
    url = "https://example.com/books/1.html"
    said = page_says(("tdm-reservation", "0"))
    signals = [
        content_signal_signal(robots.content_signals("Scrapy")),
        *content_usage_signals(rules.attach(url)),
        content_usage_header_signal([b"search=y"]),
        tdmrep_signal(resolve(tdm.lookup(url), header_values(None), meta_values(["1"]))),
        *page_signals(page_directives_of(said, "Scrapy"), image=False),
    ]
    decision = usage_decision(signals)
    assert verdicts(decision) == (Y, N, N)
    assert (
        str(decision.decided_by("ai-train"))
        == "robots.txt line 5: Content-Usage: /books/ train-ai=n"
    )
    assert str(decision.decided_by("ai-input")) == '<meta name="tdm-reservation" content="1">'
    assert (
        str(decision.decided_by("search")) == "robots.txt Content-Signal: search=yes, ai-input=yes"
    )
    record = decision.to_dict()
    assert record["a"] == {"search": True, "ai-train": False, "ai-input": False}
    assert record["by"] == {"search": 0, "ai-train": 1, "ai-input": 3}
    assert [s["src"] for s in record["s"]] == [s.source for s in signals]
    assert record["s"][2] == {
        "v": "aipref",
        "a": {"search": True},
        "src": "header Content-Usage: search=y",
    }
    assert json.loads(json.dumps(record)) == record
    assert "ai-train denied by robots.txt line 5" in str(decision)


def test_tdmrep_file_sets_the_signal_source() -> None:
    tdm = parse_tdmrep('[{"location": "/x/"}, {"location": "/books/*", "tdm-reservation": 1}]')
    signal = tdmrep_signal(resolve(tdm.lookup("/books/a"), None, None))
    assert signal.source == 'tdmrep.json entry 2 (location "/books/*")'
    assert signal.answers == (U, N, N)


def test_to_dict_is_compact() -> None:
    decision = usage_decision([])
    assert decision.to_dict() == {"a": dict.fromkeys(PURPOSES), "by": {}, "s": []}
    long_header = content_usage_header_signal(["train-ai=n, " + "x=y, " * 1000 + "y=n"])
    assert len(long_header.source) == MAX_SOURCE_CHARS and long_header.source.endswith("…")
    assert long_header.answers == (U, N, U)
    assert len(json.dumps(usage_decision([long_header]).to_dict())) < 400


def test_unknown_purpose_is_a_value_error() -> None:
    decision = usage_decision([sig((Y, Y, Y), "a")])
    for call in (decision.allowed, decision.verdict, decision.decided_by):
        with pytest.raises(ValueError, match="unknown purpose"):
            call("ai_train")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        allowed([], "training")  # type: ignore[arg-type]
    assert decision.verdict("search") == "allowed"
    assert usage_decision([sig((N, U, U), "b")]).verdict("search") == "denied"
    assert (
        decision.verdict("ai-input") == "allowed"
        and usage_decision([]).verdict("search") == "unknown"
    )


ANSWER = st.sampled_from([True, False, None])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(ANSWER, ANSWER, ANSWER), max_size=6))
def test_decision_matches_the_naive_rule(rows: list[tuple[bool | None, ...]]) -> None:
    signals = [UsageSignal("tdmrep", (a, b, c), f"s{i}") for i, (a, b, c) in enumerate(rows)]
    decision = usage_decision(signals)
    for index, purpose in enumerate(PURPOSES):
        column = [row[index] for row in rows]
        expected = False if False in column else True if True in column else None
        assert decision.allowed(purpose) is expected
        assert allowed(signals, purpose) is expected
        by = decision.decided_by(purpose)
        assert (None if by is None else signals.index(by)) == (
            None if expected is None else column.index(expected)
        )


@pytest.mark.parametrize(
    ("answers", "merged"),
    [
        ((), (None, None)),
        ((None, None), (None, None)),
        ((None, True, True), (True, 1)),
        ((True, None, False, True), (False, 2)),
        ((False, False), (False, 0)),
    ],
)
def test_any_no_wins_is_the_one_merge(
    answers: tuple[bool | None, ...], merged: tuple[bool | None, int | None]
) -> None:
    """The first "no" wins, else the first "yes", else unknown; with its position."""
    from rep_engine.usage.purpose import any_no_wins

    assert any_no_wins(answers) == merged
