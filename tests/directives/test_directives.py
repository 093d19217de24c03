"""The pure directive reader (SPEC §6 "Syntax", "Directives and combination")."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rep_engine.directives import (
    EMPTY,
    FLAGS,
    PageDirectives,
    combine,
    header_directives,
    meta_directives,
    parse_date,
)

US = ("mybot",)


def from_header(*values: str, tokens: tuple[str, ...] = US) -> PageDirectives:
    return combine([d for value in values for d in header_directives(value, tokens)])


def from_meta(*contents: str) -> PageDirectives:
    return combine([d for content in contents for d in meta_directives(content)])


FLAG_CASES = [
    ("noindex", {"noindex"}),
    ("nofollow", {"nofollow"}),
    ("none", {"noindex", "nofollow"}),
    ("NONE", {"noindex", "nofollow"}),
    ("noarchive, nocache", {"noarchive", "nocache"}),
    ("nosnippet", {"nosnippet"}),
    ("notranslate", {"notranslate"}),
    ("noimageindex", {"noimageindex"}),
    ("indexifembedded", {"indexifembedded"}),
    ("noai, noimageai", {"noai", "noimageai"}),
    ("noml", {"noml"}),  # Mojeek's NoML proposal (noml.info)
    ("NoML, noindex", {"noml", "noindex"}),
    ("all", set()),
    ("index, follow", set()),
    ("noindex, all, index, follow", {"noindex"}),  # no-ops never cancel a negative one
    ("noindex nofollow", {"noindex", "nofollow"}),  # several words without a colon
    ("noindex;nofollow", {"noindex", "nofollow"}),  # ; separates like ,
    ("  NoIndex  ,\tNoFollow ", {"noindex", "nofollow"}),
    # A piece with a colon: the words around its `max-…: value` are directives too (its
    # noindex was one unknown directive, "noindex max-snippet:50", and lost).
    ("noindex max-snippet:50", {"noindex"}),
    ("noindex nofollow max-image-preview:large", {"noindex", "nofollow"}),
    ("max-snippet: 20 noai", {"noai"}),
    ("max-snippet:0 noindex", {"noindex", "nosnippet"}),
    ("noai unavailable_after: Friday, 25-Jun-10 15:00:00 PST", {"noai"}),
]


@pytest.mark.parametrize(("content", "expected"), FLAG_CASES, ids=[c[0] for c in FLAG_CASES])
def test_spec6_flags_in_meta_and_header(content: str, expected: set[str]) -> None:
    for directives in (from_meta(content), from_header(content)):
        assert {name for name in FLAGS if getattr(directives, name)} == expected


def test_the_values_beside_the_words_of_a_piece_with_a_colon_are_read() -> None:
    directives = from_meta("noindex max-snippet: 20 max-image-preview:none")
    assert (directives.noindex, directives.max_snippet, directives.max_image_preview) == (
        True,
        20,
        "none",
    )
    directives = from_header("noai unavailable_after: Friday, 25-Jun-10 15:00:00 PST")
    assert directives.unavailable_after == datetime(2010, 6, 25, 23, 0, tzinfo=timezone.utc)
    assert from_header("googlebot: noindex max-snippet:3", tokens=("googlebot",)).noindex


def test_spec6_max_image_preview_none_is_not_the_none_directive() -> None:
    """The substring bug of other crawlers: max-image-preview:none is not `none`."""
    directives = from_meta("max-image-preview:none")
    assert not directives.noindex and not directives.nofollow
    assert directives.max_image_preview == "none"


LIMIT_CASES = [
    (["max-snippet:20"], 20),
    (["max-snippet: 20", "max-snippet:50"], 20),
    (["max-snippet:-1", "max-snippet:50"], 50),
    (["max-snippet:-1"], -1),
    (["max-snippet:abc"], None),
    (["max-snippet:-5"], None),
    (["max-snippet:"], None),
]


@pytest.mark.parametrize(
    ("directives", "expected"), LIMIT_CASES, ids=[",".join(c[0]) for c in LIMIT_CASES]
)
def test_spec6_max_snippet_most_restrictive_valid_value_wins(
    directives: list[str], expected: int | None
) -> None:
    assert combine(directives).max_snippet == expected


def test_spec6_max_video_preview_like_snippets() -> None:
    assert combine(["max-video-preview:-1", "max-video-preview:10"]).max_video_preview == 10
    assert combine(["max-video-preview:0"]).max_video_preview == 0
    assert combine(["max-video-preview:x"]).max_video_preview is None


def test_spec6_max_image_preview_most_restrictive() -> None:
    assert (
        combine(["max-image-preview:large", "max-image-preview:standard"]).max_image_preview
        == "standard"
    )
    assert combine(["max-image-preview:LARGE"]).max_image_preview == "large"
    assert combine(["max-image-preview:huge"]).max_image_preview is None


def test_nosnippet_and_max_snippet_0_are_the_same_both_ways() -> None:
    assert combine(["nosnippet"]).max_snippet == 0
    assert combine(["max-snippet:0"]).nosnippet
    assert combine(["nosnippet", "max-snippet:30"]).max_snippet == 0


DATE_CASES = [
    ("25 Jun 2010 15:00:00 PST", datetime(2010, 6, 25, 23, 0, tzinfo=timezone.utc)),
    ("Fri, 25 Jun 2010 15:00:00 GMT", datetime(2010, 6, 25, 15, 0, tzinfo=timezone.utc)),
    ("Friday, 25-Jun-10 15:00:00 GMT", datetime(2010, 6, 25, 15, 0, tzinfo=timezone.utc)),
    ("2010-06-25", datetime(2010, 6, 25, tzinfo=timezone.utc)),
    ("2010-06-25T15:00:00Z", datetime(2010, 6, 25, 15, 0, tzinfo=timezone.utc)),
    ("2010-06-25T15:00:00+02:00", datetime(2010, 6, 25, 13, 0, tzinfo=timezone.utc)),
    ("2010-06-25 15:00", datetime(2010, 6, 25, 15, 0, tzinfo=timezone.utc)),
    ("June 25, 2010", datetime(2010, 6, 25, tzinfo=timezone.utc)),
    ("25 June 2010", datetime(2010, 6, 25, tzinfo=timezone.utc)),
    ("not a date", None),
    ("", None),
    ("2010-13-45", None),
]


@pytest.mark.parametrize(
    ("text", "expected"), DATE_CASES, ids=[c[0] or "empty" for c in DATE_CASES]
)
def test_spec6_unavailable_after_date_formats(text: str, expected: datetime | None) -> None:
    assert parse_date(text) == expected


def test_spec6_unavailable_after_keeps_commas_inside_the_date() -> None:
    directives = from_header("unavailable_after: Friday, 25-Jun-10 15:00:00 GMT, noarchive")
    assert directives.unavailable_after == datetime(2010, 6, 25, 15, tzinfo=timezone.utc)
    assert directives.noarchive


def test_spec6_unavailable_after_earliest_wins_and_bad_dates_are_ignored() -> None:
    directives = from_meta(
        "unavailable_after: 2030-01-01", "unavailable_after: 2020-01-01", "unavailable_after: soon"
    )
    assert directives.unavailable_after == datetime(2020, 1, 1, tzinfo=timezone.utc)


def test_spec6_expired_unavailable_after_counts_as_noindex() -> None:
    directives = from_meta("unavailable_after: 2020-01-01")
    assert directives.is_expired(datetime(2021, 1, 1, tzinfo=timezone.utc))
    assert not directives.is_expired(datetime(2019, 1, 1, tzinfo=timezone.utc))
    assert directives.blocks_indexing(datetime(2021, 1, 1, tzinfo=timezone.utc))
    assert not directives.noindex
    assert not from_meta("unavailable_after: 2099-01-01").blocks_indexing()


HEADER_SCOPE_CASES = [
    ("BadBot: noindex, nofollow, googlebot: nofollow", ("googlebot",), {"nofollow"}),
    ("BadBot: noindex, nofollow, googlebot: nofollow", ("badbot",), {"noindex", "nofollow"}),
    ("BadBot: noindex, nofollow, googlebot: nofollow", ("mybot",), set()),
    ("noarchive, googlebot: noindex", ("mybot",), {"noarchive"}),
    ("GOOGLEBOT: noindex", ("googlebot",), {"noindex"}),
    ("googlebot-news: noindex", ("googlebot",), set()),  # exact token, no prefix matching
    ("googlebot: noindex", ("googlebot-news",), set()),
    ("unavailable_after: 2020-01-01", ("mybot",), set()),  # a directive, not a token
    ("max-snippet: 5", ("mybot",), set()),
    # "*:" names every crawler, as in robots.txt and Robots-Tag.
    ("*: noindex", ("mybot",), {"noindex"}),
    ("otherbot: nofollow, *: noindex", ("mybot",), {"noindex"}),
]


@pytest.mark.parametrize(
    ("value", "tokens", "expected"),
    HEADER_SCOPE_CASES,
    ids=[f"{c[0]}-{c[1][0]}" for c in HEADER_SCOPE_CASES],
)
def test_spec6_crawler_scope_lasts_until_next_token(
    value: str, tokens: tuple[str, ...], expected: set[str]
) -> None:
    directives = from_header(value, tokens=tokens)
    assert {name for name in FLAGS if getattr(directives, name)} == expected


def test_spec6_keyed_directive_after_a_scope() -> None:
    assert from_header("mybot: max-snippet: 7").max_snippet == 7
    assert from_header("otherbot: max-snippet: 7").max_snippet is None
    assert from_header("max-snippet: 7").max_snippet == 7


def test_spec6_several_headers_sum_of_negative_rules() -> None:
    directives = from_header(
        "googlebot: nofollow", "otherbot: noindex, nofollow", "noarchive", tokens=("googlebot",)
    )
    assert (directives.noindex, directives.nofollow, directives.noarchive) == (False, True, True)


def test_spec6_generic_entry_not_hidden_by_specific_one() -> None:
    """A crawler-specific entry adds to the generic one; it never replaces it."""
    directives = from_header("noindex", "mybot: nosnippet")
    assert directives.noindex and directives.nosnippet


def test_spec6_unknown_directives_are_kept_without_effect() -> None:
    directives = from_meta("noodp, NoYDir, custom-thing: 3")
    assert directives.unknown == ("noodp", "noydir", "custom-thing: 3")
    assert not directives.noindex
    assert bool(directives)


def test_empty_directives_are_falsy_and_print_none() -> None:
    assert not EMPTY
    assert str(EMPTY) == "(none)"
    assert str(from_meta("noindex, max-snippet:3")) == "noindex, max-snippet:3"


@settings(max_examples=300, deadline=None)
@given(st.text(), st.lists(st.sampled_from(["mybot", "googlebot", "x-y_z"]), max_size=3))
def test_reader_never_raises_on_any_header_value(value: str, tokens: list[str]) -> None:
    directives = combine(header_directives(value, tuple(tokens)))
    assert isinstance(directives, PageDirectives)
    combine(meta_directives(value))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["noindex", "nofollow", "none", "all", "max-snippet:3", "nosnippet"]),
        max_size=6,
    )
)
def test_combination_is_order_independent(directives: list[str]) -> None:
    assert combine(directives) == combine(list(reversed(directives)))


@pytest.mark.parametrize(
    "date",
    [
        "9999-12-31T23:00:00-05:00",
        "Fri, 31 Dec 9999 23:59:59 EST",
        "25 Jun 99999999999999 15:00:00 PST",
        "0001-01-01T00:00:00+01:00",
    ],
)
def test_spec6_a_date_datetime_cannot_hold_is_an_invalid_directive_kept_in_unknown(
    date: str,
) -> None:
    assert parse_date(date) is None
    directives = combine([f"unavailable_after: {date}", "noindex"])
    assert directives.noindex and directives.unavailable_after is None
    assert directives.unknown == (f"unavailable_after: {date}".lower(),)


@pytest.mark.parametrize(
    ("date", "expected"),
    [
        ("Thu, 30 Jun 2016 23:59:60 GMT", datetime(2016, 6, 30, 23, 59, 59, tzinfo=timezone.utc)),
        ("2016-06-30T23:59:60Z", datetime(2016, 6, 30, 23, 59, 59, tzinfo=timezone.utc)),
        ("30 June 2016 23:59:60", datetime(2016, 6, 30, 23, 59, 59, tzinfo=timezone.utc)),
    ],
)
def test_spec6_a_leap_second_reads_as_the_second_before(date: str, expected: datetime) -> None:
    assert parse_date(date) == expected
    assert combine([f"unavailable_after: {date}"]).is_expired()


@pytest.mark.parametrize(
    ("value", "tokens", "applies"),
    [
        ("ab42bot: noindex", ("ab42bot",), True),
        ("AB42bot: noindex", ("ab42bot",), True),
        ("ab42bot: noindex", ("ab",), False),
        ("Jävla-Foobot: noindex", ("jävla-foobot",), True),
        ("rule1testbot: noindex", ("rule3testbot",), False),
    ],
)
def test_spec6_a_header_scope_is_a_whole_crawler_name(
    value: str, tokens: tuple[str, ...], applies: bool
) -> None:
    assert from_header(value, tokens=tokens).noindex is applies
