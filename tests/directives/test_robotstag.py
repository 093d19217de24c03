"""The Robots-Tag response header read as draft-illyes-repext-03 §3.1.1 writes it."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rep_engine.directives import combine, product_token
from rep_engine.directives.robotstag import MAX_ROBOTS_TAG_CHARS, robots_tag_directives

OURS = ("mybot",)

CASES = [
    # §3.1.1's example: a global nosnippet, and noindex for ExampleBot only.
    ("*;nosnippet, ExampleBot;noindex", OURS, ["nosnippet"]),
    ("*;nosnippet, ExampleBot;noindex", ("examplebot",), ["nosnippet", "noindex"]),
    # Another crawler's rule never becomes ours.
    ("OtherBot;noindex;nofollow", OURS, []),
    # Product tokens compare case-insensitively; a version after the name is not a name.
    ("MyBot;noindex", OURS, ["noindex"]),
    ("MyBot/2.0;noindex", OURS, ["noindex"]),
    # §3.1.3 "The values are case insensitive".
    ("*;NoIndex", OURS, ["noindex"]),
    # A token named twice, or beside *: the union of the restrictive rules.
    ("mybot;noindex, mybot;nofollow, *;nosnippet", OURS, ["noindex", "nofollow", "nosnippet"]),
    # Parameters with values: the Boolean true states the rule, false states none.
    ("*;noindex=?1;nofollow=?0", OURS, ["noindex"]),
    ("*;max-snippet=0", OURS, ["max-snippet:0"]),
    (
        '*;unavailable_after="Fri, 25 Jun 2010 15:00:00 GMT"',
        OURS,
        ["unavailable_after:Fri, 25 Jun 2010 15:00:00 GMT"],
    ),
    # Any value but ?0 states a rule that takes none: an Integer, a Token, a String, a
    # Byte Sequence; a rule that takes a value (and one we do not know) keeps it.
    ("mybot;noindex=1", OURS, ["noindex"]),
    ("mybot;noindex=true;nofollow=0", OURS, ["noindex", "nofollow"]),
    ('mybot;noindex="yes"', OURS, ["noindex"]),
    ("mybot;noindex=:eWVz:;none=?1", OURS, ["noindex", "none"]),
    ("mybot;noindex=?0;max-snippet=20", OURS, ["max-snippet:20"]),
    # A Date, or an Integer of seconds since 1970, is unavailable_after's date.
    ("*;unavailable_after=@1577836800", OURS, ["unavailable_after:2020-01-01T00:00:00+00:00"]),
    ("*;unavailable_after=-86400", OURS, ["unavailable_after:1969-12-31T00:00:00+00:00"]),
    ("*;unavailable_after=@999999999999999", OURS, ["unavailable_after:@999999999999999"]),
    # A bare rule word is a rule for every crawler, its Parameters too.
    ("noindex", OURS, ["noindex"]),
    ("noindex, nofollow", ("othertoken",), ["noindex", "nofollow"]),
    ("noindex;nosnippet, otherbot;nofollow", OURS, ["noindex", "nosnippet"]),
    ("max-snippet=0", OURS, ["max-snippet:0"]),
    # X-Robots-Tag's syntax is read as X-Robots-Tag reads it: a name's rules up to the
    # next name or member of the draft's syntax; "*:" names every crawler.
    ("mybot: noindex", OURS, ["noindex"]),
    ("otherbot: noindex", OURS, []),
    ("mybot: noindex, nofollow", OURS, ["noindex", "nofollow"]),
    ("otherbot: noindex, nofollow", OURS, []),
    ("otherbot: noindex, mybot: nofollow", OURS, ["nofollow"]),
    ("mybot: noindex, otherbot;nofollow", OURS, ["noindex"]),
    ("otherbot: noindex, *;nofollow", OURS, ["nofollow"]),
    ("*: noindex", OURS, ["noindex"]),
    (
        "unavailable_after: Friday, 25-Jun-10 15:00:00 PST",
        OURS,
        ["unavailable_after: Friday, 25-Jun-10 15:00:00 PST"],
    ),
    # An inner List: each of its names gets the Parameters, and its own.
    ("(otherbot mybot);noindex", OURS, ["noindex"]),
    ('(otherbot "MyBot");noindex', OURS, ["noindex"]),
    ("(otherbot;nofollow mybot;nosnippet);noindex", OURS, ["nosnippet", "noindex"]),
    ("(a mybot", OURS, []),
    # A String's comma and semicolon stay inside it.
    ('*;x="a,b;c", mybot;noindex', OURS, ["x:a,b;c", "noindex"]),
    # A malformed member costs only itself: the "no" beside it is kept.
    ('*;noindex, "broken', OURS, ["noindex"]),
    ("(a b);noindex, mybot;nofollow", OURS, ["nofollow"]),
    ("*;;=;noindex", OURS, ["noindex"]),
    # A name written as a String is read by that name.
    ('"mybot";noindex', OURS, ["noindex"]),
    ("", OURS, []),
    ("*", OURS, []),
]


@pytest.mark.parametrize(("value", "tokens", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_repext03_robots_tag_rules_for_our_names(
    value: str, tokens: tuple[str, ...], expected: list[str]
) -> None:
    assert robots_tag_directives(value, tokens) == expected


def test_repext03_rules_combine_as_directives() -> None:
    directives = combine(robots_tag_directives("*;noindex, mybot;max-snippet=0", OURS))
    assert directives.noindex and directives.nosnippet and directives.max_snippet == 0


def test_repext03_a_date_in_epoch_seconds_expires_the_page() -> None:
    directives = combine(robots_tag_directives("mybot;unavailable_after=@1577836800", OURS))
    assert directives.unavailable_after == datetime(2020, 1, 1, tzinfo=timezone.utc)
    assert directives.blocks_indexing() and not directives.unknown


def test_repext03_members_inside_the_limit_are_honoured_the_cut_one_ignored() -> None:
    filler = "*;x" + "y" * 100 + ", "
    head = filler * ((MAX_ROBOTS_TAG_CHARS - 100) // len(filler))
    inside = head + "*;noindex, "
    assert len(inside) < MAX_ROBOTS_TAG_CHARS
    cut = inside + "*;nofollow" + "z" * MAX_ROBOTS_TAG_CHARS
    rules = robots_tag_directives(cut, OURS)
    assert "noindex" in rules
    assert not any(rule.startswith("nofollow") for rule in rules)


def test_hostile_fields_give_a_clear_reading() -> None:
    """Never raises on content: an unterminated String runs to the end, empty members and
    parameters are skipped, every repeated rule is kept (combine folds them)."""
    assert robots_tag_directives('"' + "\\a" * 40_000, OURS) == []
    assert robots_tag_directives(";" * 65_000, OURS) == []
    assert robots_tag_directives("*" + ";noindex" * 8_000, OURS) == ["noindex"] * 8_000
    assert robots_tag_directives(",(" * 30_000, OURS) == []
    assert robots_tag_directives("(" + '"' * 60_000, OURS) == []
    many = "(a" + " b;c" * 12_000 + ");noindex"
    assert robots_tag_directives(many, ("b",)) == ["c", "noindex"] * 12_000
    scopes = robots_tag_directives("mybot:" * 10_000, OURS)  # one unknown word, as X-Robots-Tag
    assert len(scopes) == 1 and not combine(scopes).noindex


#: A product token as robots.txt's groups and the User-Agent were read before the one
#: function (useragent.py, SPEC §1), and an ``X-Robots-Tag`` scope (robotstag.py).
_AGENT_TOKEN = re.compile(r'[^\s*"(),/:;<=>?@\[\\\]{}]*')
_SCOPE_TOKEN = re.compile(r'[^\s"(),/:;<=>?@\[\\\]{}*]+')


@given(st.text(alphabet=st.sampled_from('aZ09_-.ä *"(),/:;<=>?@[\\]{}\t\u3000'), max_size=12))
def test_a_product_token_is_read_alike_for_a_group_a_user_agent_and_a_scope(name: str) -> None:
    """One product token for robots.txt's groups, the User-Agent and an ``X-Robots-Tag``
    scope: as each was read before (the scope's reader took a name without its leading
    whitespace, which ``_name`` strips of spaces and tabs)."""
    said = product_token(name)
    assert said == _AGENT_TOKEN.match(name.lstrip()).group(0).lower()  # type: ignore[union-attr]
    scope = _SCOPE_TOKEN.match(name)
    if name == name.lstrip():
        assert said == (scope.group(0).lower() if scope else "")
