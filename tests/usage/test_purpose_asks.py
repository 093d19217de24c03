"""The opt-outs users ask for, as pure readings (docs/purpose-notes.md §4b-§4d):

- ``noml`` (Mojeek's NoML proposal) in robots meta and ``X-Robots-Tag``: no for
  ``ai-train`` and ``ai-input``, nothing about search;
- ``noarchive`` read as "no AI training", as Bing and Amazon document it, while
  ``REP_NOARCHIVE_MEANS_NO_AI_TRAIN`` is on (the default), and as "no AI input", as Bing's
  guidelines of Feb 2026 say (Copilot, grounding; a secondary source), while
  ``REP_NOARCHIVE_MEANS_NO_AI_INPUT`` is on (the default);
- ``noindex`` / ``noimageindex`` on a downloaded file (and a page's ``noimageindex`` for
  its images): no for both AI purposes while ``REP_MEDIA_NOINDEX_MEANS_NO_AI`` is on, as
  img2dataset reads them by default;
- ``nocache`` read like ``noarchive``, as Bing documents it, while
  ``REP_NOCACHE_MEANS_NO_AI_TRAIN`` is on (the default);
- ``nosnippet`` and ``max-snippet:0`` read as "no AI input", as Google documents them for
  AI Overviews and AI Mode, while ``REP_NOSNIPPET_MEANS_NO_AI_INPUT`` is on (the default).

The crawl's side, on fake Scrapy responses: a ``noimageindex`` page's images through the
gate (tests/crawl/page/test_images.py), another crawler's ``noml`` named by ``scrapy
rep-robots --page`` (tests/crawl/commands/test_toolcrawl_otherdirectives.py).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from rep_engine.directives import combine, header_directives
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.settings.rules import directive_readings
from rep_engine.usage.imageusage import IMAGE_PURPOSES, INDEX_IMAGE_PURPOSES
from rep_engine.usage.purpose import (
    ALL_READINGS,
    MAPPING,
    DirectiveReadings,
    UsageDecision,
    file_index_signals,
    page_signals,
    speaks_of_use,
)
from rep_engine.verdict.page import PageFacts, PageRules, PageStatements, decide_page
from rep_engine.verdict.policy import UsagePolicy
from tests.support.statements import ARTICLE, page_directives_of, page_says

Y, N, U = True, False, None


def header(value: str, tokens: tuple[str, ...] = ("mybot",)) -> Any:
    return combine(header_directives(value, tokens), [f"X-Robots-Tag: {value}"])


def usage_of_page(
    said: PageStatements,
    purposes: list[str],
    readings: DirectiveReadings = ALL_READINGS,
) -> tuple[UsagePolicy, UsageDecision]:
    """The crawl's policy and the usage decision of the one page decision on a page that
    says ``said`` (its header fields and meta tags)."""
    policy = UsagePolicy.of(purposes, readings=readings)
    facts = PageFacts(ARTICLE, ("mybot",))
    return policy, decide_page(facts, said, PageRules(policy)).usage


def said_in_header(value: str) -> PageStatements:
    return PageStatements((("x-robots-tag", value),))


# --------------------------------------------------------------------------- the rows


@pytest.mark.parametrize(
    ("signal", "answers", "quoted"),
    [
        ("noml", (U, N, N), "any data from that page should not be used in machine learning"),
        ("noarchive", (U, N, U), "Bing will not use the content for training"),
        ("noarchive", (U, N, U), "used for training large language models"),
        ("noarchive (REP_NOARCHIVE_MEANS_NO_AI_TRAIN off)", (U, U, U), "NOARCHIVE"),
        ("noarchive (ai-input)", (U, U, N), "Copilot responses and grounding results"),
        ("noarchive (REP_NOARCHIVE_MEANS_NO_AI_INPUT off)", (U, U, U), "secondary source"),
        ("noindex (downloaded file)", (U, N, N), "img2dataset will ignore images"),
        ("noimageindex (downloaded file)", (U, N, N), "Do not index images on this page"),
        ("noimageindex (images of the page)", (U, N, N), "as its noimageai does"),
        ("noindex / noimageindex (REP_MEDIA_NOINDEX_MEANS_NO_AI off)", (U, U, U), "noindex"),
        ("nocache", (U, N, U), "labeled NOCACHE, only URLs, Titles and Snippets may be used"),
        ("nocache (REP_NOCACHE_MEANS_NO_AI_TRAIN off)", (U, U, U), "NOCACHE"),
        ("nosnippet", (U, U, N), "used as a direct input for AI Overviews and AI Mode"),
        ("max-snippet:0", (U, U, N), "may be used as a direct input for AI Overviews"),
        (
            "nosnippet / max-snippet:0 (REP_NOSNIPPET_MEANS_NO_AI_INPUT off)",
            (U, U, U),
            "AI Overviews",
        ),
    ],
)
def test_each_new_row_quotes_the_text_that_justifies_it(
    signal: str, answers: tuple[bool | None, ...], quoted: str
) -> None:
    row = MAPPING[("robots-meta", signal)]
    assert row.answers == answers
    assert quoted in row.source
    assert row.revision  # a revision in the one table of standards


def test_a_pages_noimageindex_refuses_its_images_for_what_noimageai_does() -> None:
    """The images of a noimageindex page are refused for the purposes of the table's row,
    which are those of noimageai (one gate serves both)."""
    assert INDEX_IMAGE_PURPOSES == IMAGE_PURPOSES == ("ai-train", "ai-input")


# --------------------------------------------------------------------------- noml


def test_noml_is_a_flag_that_no_op_directives_never_cancel() -> None:
    directives = header("noml, index, follow, all")
    assert directives.noml and str(directives) == "noml"
    assert not header("otherbot: noml").noml
    assert header("otherbot: noindex, mybot: noml").noml


def test_noml_for_another_crawler_says_nothing_to_ours() -> None:
    for said in (
        page_says(("otherbot", "noml")),
        page_says(headers={"X-Robots-Tag": "otherbot: noml"}),
    ):
        assert page_signals(page_directives_of(said, "MyBot/1.0"), image=False) == ()


def test_noml_signal_names_where_it_was_said() -> None:
    (signal,) = page_signals(
        page_directives_of(page_says(headers={"X-Robots-Tag": "mybot: noml"}), "MyBot/1.0"),
        image=True,
    )
    assert signal.source == "X-Robots-Tag: mybot: noml"
    assert signal.vocabulary == "robots-meta" and signal.answers == (U, N, N)


# --------------------------------------------------------------------------- noarchive


def test_noarchive_is_no_ai_training_unless_the_setting_is_off() -> None:
    said = page_says(("robots", "noarchive"))
    directives = page_directives_of(said, "MyBot")
    _, on = usage_of_page(said, ["ai-train", "ai-input"])
    assert on.verdict("ai-train") == "denied" and on.verdict("ai-input") == "denied"
    by = on.decided_by("ai-train")
    assert by is not None
    assert by.source == '<meta name="robots" content="noarchive"> (REP_NOARCHIVE_MEANS_NO_AI_TRAIN)'
    readings = DirectiveReadings(noarchive_no_train=False, noarchive_no_input=False)
    assert usage_of_page(said, ["ai-train"], readings)[1].signals == ()
    assert page_signals(directives, image=False, readings=readings) == ()
    assert speaks_of_use(directives) and not speaks_of_use(directives, readings=readings)


def test_noarchive_refuses_the_ai_crawls_and_not_search() -> None:
    page = said_in_header("noarchive")
    for purposes, refused in (
        (["ai-train"], "ai-train"),
        (["ai-input"], "ai-input"),
        (["search"], None),
    ):
        policy, decision = usage_of_page(page, purposes)
        refusal = policy.refusal(decision)
        assert (refusal and refusal.purpose) == refused, purposes


def test_noarchive_is_no_ai_input_unless_its_own_setting_is_off() -> None:
    """Bing's guidelines of Feb 2026 (a secondary source): NOARCHIVE keeps content out of
    Copilot responses and grounding results, which is ai-input; the reading has its own
    setting, REP_NOARCHIVE_MEANS_NO_AI_INPUT, beside the ai-train one."""
    directives = header("noarchive")
    page = said_in_header("noarchive")
    policy, decision = usage_of_page(page, ["ai-input"])
    refusal = policy.refusal(decision)
    assert refusal is not None and refusal.purpose == "ai-input"
    assert refusal.signal is not None
    assert refusal.signal.source == "X-Robots-Tag: noarchive (REP_NOARCHIVE_MEANS_NO_AI_INPUT)"
    off = DirectiveReadings(noarchive_no_input=False)
    policy, decision = usage_of_page(page, ["ai-input"], off)
    assert policy.refusal(decision) is None and decision.verdict("ai-input") == "unknown"
    # the ai-train reading stays in force, under its own setting
    (signal,) = page_signals(directives, image=False, readings=off)
    assert signal.source == "X-Robots-Tag: noarchive (REP_NOARCHIVE_MEANS_NO_AI_TRAIN)"
    assert speaks_of_use(directives, readings=off)
    config = RepConfig.from_settings({"REP_NOARCHIVE_MEANS_NO_AI_INPUT": False})
    assert not directive_readings(config).noarchive_no_input
    assert directive_readings(RepConfig.defaults()).noarchive_no_input


# --------------------------------------------------------------------------- nocache


def test_nocache_is_read_like_noarchive_unless_the_setting_is_off() -> None:
    said = page_says(headers={"X-Robots-Tag": "mybot: nocache"})
    directives = page_directives_of(said, "MyBot/1.0")
    for purposes, refused in ((["ai-train"], "ai-train"), (["ai-input"], None), (["search"], None)):
        policy, decision = usage_of_page(said, purposes)
        refusal = policy.refusal(decision)
        assert (refusal and refusal.purpose) == refused, purposes
    (signal,) = page_signals(directives, image=False)
    assert signal.source == "X-Robots-Tag: mybot: nocache (REP_NOCACHE_MEANS_NO_AI_TRAIN)"
    readings = DirectiveReadings(nocache_no_train=False)
    assert page_signals(directives, image=False, readings=readings) == ()
    assert speaks_of_use(directives) and not speaks_of_use(directives, readings=readings)
    # Each reading has its own setting: noarchive's off leaves nocache's "no" in force.
    both = header("noarchive, nocache")
    readings = DirectiveReadings(noarchive_no_train=False, noarchive_no_input=False)
    only_nocache = page_signals(both, image=False, readings=readings)
    assert [s.source for s in only_nocache] == [
        "X-Robots-Tag: noarchive, nocache (REP_NOCACHE_MEANS_NO_AI_TRAIN)"
    ]


# --------------------------------------------------------------------------- nosnippet

#: (the page's meta tags, its header fields, the source of its "no").
SNIPPET_CASES = [
    ((("robots", "nosnippet"),), {},
     '<meta name="robots" content="nosnippet"> (REP_NOSNIPPET_MEANS_NO_AI_INPUT)'),
    ((("robots", "max-snippet:0"),), {},
     '<meta name="robots" content="max-snippet:0"> (REP_NOSNIPPET_MEANS_NO_AI_INPUT)'),
    ((), {"X-Robots-Tag": "MyBot: max-snippet: 00"},
     "X-Robots-Tag: MyBot: max-snippet: 00 (REP_NOSNIPPET_MEANS_NO_AI_INPUT)"),
    ((("robots", "max-snippet:20"),), {"X-Robots-Tag": "max-snippet:0"},
     "X-Robots-Tag: max-snippet:0 (REP_NOSNIPPET_MEANS_NO_AI_INPUT)"),
]  # fmt: skip


@pytest.mark.parametrize(("meta", "headers", "source"), SNIPPET_CASES)
def test_nosnippet_and_max_snippet_0_are_no_ai_input_naming_where_they_were_said(
    meta: tuple[tuple[str, str], ...], headers: dict[str, str], source: str
) -> None:
    """Google: nosnippet "will also prevent the content from being used as a direct input
    for AI Overviews and AI Mode"; max-snippet:0 is nosnippet. The record names the tag
    that said it, the 0 among other lengths."""
    said = page_says(*meta, headers=headers)
    for purposes, refused in ((["ai-input"], "ai-input"), (["ai-train"], None), (["search"], None)):
        policy, decision = usage_of_page(said, purposes)
        refusal = policy.refusal(decision)
        assert (refusal and refusal.purpose) == refused, purposes
        if refusal is not None:
            assert refusal.signal is not None and refusal.signal.source == source


def test_nosnippet_says_nothing_when_the_setting_is_off_and_a_length_never_does() -> None:
    readings = DirectiveReadings(nosnippet_no_input=False)
    for value in ("nosnippet", "max-snippet:0"):
        directives = header(value)
        assert speaks_of_use(directives) and not speaks_of_use(directives, readings=readings)
        assert usage_of_page(said_in_header(value), ["ai-input"], readings)[1].signals == ()
    assert page_signals(header("max-snippet:1, max-snippet:-1"), image=False) == ()


# --------------------------------------------------------------------------- files

PAST = "unavailable_after: 2001-01-01"
BOTH = "X-Robots-Tag: noindex, noimageindex (REP_MEDIA_NOINDEX_MEANS_NO_AI)"
FUTURE = "unavailable_after: 2999-01-01"

FILE_CASES = [
    ("noindex", ["X-Robots-Tag: noindex (REP_MEDIA_NOINDEX_MEANS_NO_AI)"]),
    ("noimageindex", ["X-Robots-Tag: noimageindex (REP_MEDIA_NOINDEX_MEANS_NO_AI)"]),
    ("none", ["X-Robots-Tag: none (REP_MEDIA_NOINDEX_MEANS_NO_AI)"]),
    ("mybot: noindex", ["X-Robots-Tag: mybot: noindex (REP_MEDIA_NOINDEX_MEANS_NO_AI)"]),
    ("otherbot: noindex", []),
    (PAST, [f"X-Robots-Tag: {PAST} (REP_MEDIA_NOINDEX_MEANS_NO_AI)"]),
    (FUTURE, []),
    ("nofollow, noarchive, nosnippet", []),
    ("noindex, noimageindex", [BOTH, BOTH]),
]  # fmt: skip


@pytest.mark.parametrize(("value", "sources"), FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_noindex_and_noimageindex_on_a_file_deny_both_ai_purposes(
    value: str, sources: list[str]
) -> None:
    """img2dataset's default: a file whose X-Robots-Tag says noindex or noimageindex is
    left out; an expired unavailable_after counts as noindex (SPEC §6)."""
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    signals = file_index_signals(header(value), now)
    assert [s.source for s in signals] == sources
    assert all(s.answers == (U, N, N) for s in signals)


def test_a_long_source_keeps_the_name_of_the_setting_whole() -> None:
    long = "noindex, " + "x" * 300
    (signal,) = file_index_signals(header(long))
    assert len(signal.source) == 200
    assert signal.source.endswith("… (REP_MEDIA_NOINDEX_MEANS_NO_AI)")
    train, use = page_signals(header("noarchive, " + "x" * 300), image=False)
    assert train.source.endswith("… (REP_NOARCHIVE_MEANS_NO_AI_TRAIN)")
    assert use.source.endswith("… (REP_NOARCHIVE_MEANS_NO_AI_INPUT)")


def test_a_files_index_signals_come_from_its_response_headers() -> None:
    said = page_says(headers={"X-Robots-Tag": "MyBot: noimageindex"})
    (signal,) = file_index_signals(page_directives_of(said, "MyBot/1.0"))
    assert signal.source == "X-Robots-Tag: MyBot: noimageindex (REP_MEDIA_NOINDEX_MEANS_NO_AI)"


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    "name",
    [
        "REP_NOARCHIVE_MEANS_NO_AI_TRAIN",
        "REP_NOARCHIVE_MEANS_NO_AI_INPUT",
        "REP_MEDIA_NOINDEX_MEANS_NO_AI",
        "REP_NOCACHE_MEANS_NO_AI_TRAIN",
        "REP_NOSNIPPET_MEANS_NO_AI_INPUT",
    ],
)
def test_the_reading_settings_are_on_by_default_and_read_as_booleans(name: str) -> None:
    field = {
        "REP_NOARCHIVE_MEANS_NO_AI_TRAIN": "noarchive_means_no_ai_train",
        "REP_NOARCHIVE_MEANS_NO_AI_INPUT": "noarchive_means_no_ai_input",
        "REP_MEDIA_NOINDEX_MEANS_NO_AI": "media_noindex_means_no_ai",
        "REP_NOCACHE_MEANS_NO_AI_TRAIN": "nocache_means_no_ai_train",
        "REP_NOSNIPPET_MEANS_NO_AI_INPUT": "nosnippet_means_no_ai_input",
    }[name]
    assert getattr(RepConfig.defaults(), field) is True
    assert getattr(RepConfig.from_settings({name: "False"}), field) is False
    assert getattr(RepConfig.from_settings({name: 0}), field) is False
    with pytest.raises(RepSettingError, match=f"^{name}: expected a boolean"):
        RepConfig.from_settings({name: "sometimes"})
