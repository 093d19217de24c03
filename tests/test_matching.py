"""Unit tests of the pattern matcher (SPEC §1 "Rule matching") against a naive reference."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_matcher import wildcard_matches as naive_match

from scrapy_rep._matching import (
    FirstMatcher,
    LongestMatcher,
    Rule,
    normalise_pattern,
    normalise_url_path,
    path_of,
    wildcard_match,
)


def naive_longest(rules: list[tuple[str, Rule, bool]], path: str) -> Rule | None:
    best: tuple[int, bool] | None = None
    winner = None
    for pattern, rule, _ in rules:
        if naive_match(pattern, path):
            key = (len(pattern), rule.allow)
            if best is None or key > best:
                best, winner = key, rule
    return winner


PATH_OF_CASES = [
    ("https://example.com/a/b;p?q=1#frag", "/a/b;p?q=1"),
    ("https://example.com", "/"),
    ("https://example.com?q", "/?q"),
    ("https://example.com#top", "/"),
    ("https://user:pw@example.com:8080/x", "/x"),
    ("//example.com/x?y", "/x?y"),
    ("/just/a/path?x", "/just/a/path?x"),
    ("relative/path", "/relative/path"),
    ("", "/"),
    ("svn+ssh://host/repo", "/repo"),
    ("https://example.com/a?next=http://other/b", "/a?next=http://other/b"),
]


@pytest.mark.parametrize(
    ("url", "expected"), PATH_OF_CASES, ids=[c[0] or "empty" for c in PATH_OF_CASES]
)
def test_spec1_path_params_and_query_are_matched_not_fragment(url: str, expected: str) -> None:
    assert path_of(url) == expected


NORMALISE_CASES = [
    ("google", "/fish/", "/fish/"),
    ("google", "fish/", "/fish/"),
    ("google", "*.php", "*.php"),
    ("google", "/%2f%c3%a9", "/%2F%C3%A9"),
    ("google", "/caf\xc3\xa9", "/caf%C3%A9"),  # raw UTF-8 bytes, Latin-1 decoded
    ("google", "/a b", "/a b"),
    ("google", "/%7e", "/%7E"),
    ("rfc9309", "/%7e/%2f", "/~/%2F"),
    ("rfc9309", "/%41b", "/Ab"),
    ("none", "/%7e\xc3\xa9", "/%7e\xc3\xa9"),
]


@pytest.mark.parametrize(("mode", "value", "expected"), NORMALISE_CASES)
def test_spec1_pattern_percent_encoding(mode: str, value: str, expected: str) -> None:
    assert normalise_pattern(value, mode) == expected


def test_spec1_url_is_compared_as_given_but_non_ascii_is_encoded() -> None:
    assert normalise_url_path("/%3c/%7e", "google") == "/%3c/%7e"
    assert normalise_url_path("/é", "google") == "/%C3%A9"
    assert normalise_url_path("/%7e%2f", "rfc9309") == "/~%2F"


WILDCARD_CASES = [
    ("/fish*", "/fish.html", True),
    ("/*.php$", "/a/b.php", True),
    ("/*.php$", "/a/b.php?x", False),
    ("/*.php", "/a/b.php?x", True),
    ("/a*b*c$", "/aXbYc", True),
    ("/a*b*c$", "/aXcYb", False),
    ("/a*a*a*b$", "/" + "a" * 50, False),
    ("/*$", "/anything", True),
]


@pytest.mark.parametrize(("pattern", "path", "expected"), WILDCARD_CASES)
def test_spec1_wildcards_star_and_dollar(pattern: str, path: str, expected: bool) -> None:
    anchored = pattern.endswith("$")
    segments = tuple((pattern[:-1] if anchored else pattern).split("*"))
    assert wildcard_match(path, segments, anchored) is expected
    assert naive_match(pattern, path) is expected


def test_spec1_hostile_pattern_is_linear() -> None:
    """CVE-2026-55520 shape: `/*a*a*…*b$` against `aaaa…` must not backtrack."""
    segments = ("/", *(["a"] * 200), "b")
    # 200 segments × 20,000 characters: a backtracking matcher would never finish.
    assert wildcard_match("/" + "a" * 20_000, segments, True) is False


def _rules(specs: list[tuple[str, bool]], wildcards: bool = True) -> list[tuple[str, Rule, bool]]:
    return [
        (p, Rule(a, n, "Allow" if a else "Disallow", p), wildcards)
        for n, (p, a) in enumerate(specs, 1)
    ]


ALPHABET = st.sampled_from(["/", "a", "b", "*", "$", "?"])
PATTERNS = st.text(ALPHABET, min_size=1, max_size=7).map(
    lambda p: "/" + p.replace("$", "") + ("$" if "$" in p else "")
)
PATHS = st.text(st.sampled_from(["/", "a", "b", "?"]), max_size=10).map(lambda p: "/" + p)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(PATTERNS, st.booleans()), max_size=8),
    st.lists(PATHS, min_size=1, max_size=5),
)
def test_longest_match_agrees_with_naive_reference(
    specs: list[tuple[str, bool]], paths: list[str]
) -> None:
    rules = _rules(specs)
    matcher = LongestMatcher(rules)
    for path in paths:
        got, want = matcher.match(path), naive_longest(rules, path)
        assert (got is None) == (want is None)
        if got is not None and want is not None:
            # The same priority and verdict (several equal rules may tie).
            assert got.allow == want.allow
            assert len(specs[got.line - 1][0]) == len(specs[want.line - 1][0])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(PATTERNS, st.booleans()), min_size=1, max_size=6), PATHS)
def test_long_path_prefilter_gives_the_same_answer(
    specs: list[tuple[str, bool]], path: str
) -> None:
    """Paths over 4 KiB take the character-set prefilter; answers must not change."""
    rules = _rules(specs)
    long_path = path + "a" * 4200 + path
    got, want = LongestMatcher(rules).match(long_path), naive_longest(rules, long_path)
    assert (got is None) == (want is None)
    if got is not None and want is not None:
        assert got.allow == want.allow


def test_legacy_first_matcher_takes_file_order() -> None:
    rules = _rules([("/pics/", False), ("/pics/public/", True)], wildcards=False)
    rule = FirstMatcher(rules).match("/pics/public/a.jpg")
    assert rule is not None and rule.line == 1 and not rule.allow


def test_legacy_without_wildcards_star_is_literal() -> None:
    rules = _rules([("/*.gif", False)], wildcards=False)
    assert FirstMatcher(rules).match("/a.gif") is None
    assert FirstMatcher(rules).match("/*.gif") is not None
