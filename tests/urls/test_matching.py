"""Unit tests of the pattern matcher (SPEC §1 "Rule matching") against a naive reference."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rep_engine.urls.encoding import normalise_pattern, normalise_url_path, path_of
from rep_engine.urls.matching import (
    _RAW,
    _SPLIT,
    SCANS,
    FirstMatcher,
    LongestMatcher,
    ScanningMatcher,
    wildcard_match,
)
from tests.support.reference_matcher import wildcard_matches as naive_match

Spec = tuple[str, bool]  # (normalised pattern, allow)


def codes_of(specs: list[Spec]) -> list[int]:
    """The rule codes the matchers take: the 1-based line, negative for disallow."""
    return [line if allow else -line for line, (_, allow) in enumerate(specs, 1)]


def naive_longest(specs: list[Spec], path: str) -> tuple[int, bool] | None:
    """(priority, allow) of the deciding rule by brute force; ``None`` when none matches."""
    best: tuple[int, bool] | None = None
    for pattern, allow in specs:
        if naive_match(pattern, path):
            key = (len(pattern), allow)
            if best is None or key > best:
                best = key
    return best


def longest(specs: list[Spec], path: str) -> tuple[int, bool] | None:
    code = LongestMatcher([p for p, _ in specs], codes_of(specs)).match(path)
    return None if code == 0 else (len(specs[abs(code) - 1][0]), code > 0)


PATH_OF_CASES = [
    ("https://example.com/a/b;p?q=1#frag", "/a/b;p?q=1"),
    ("https://example.com", "/"),
    ("https://example.com?q", "/?q"),
    ("https://example.com#top", "/"),
    ("https://user:pw@example.com:8080/x", "/x"),
    ("//example.com/x?y", "/x?y"),
    ("/just/a/path?x", "/just/a/path?x"),
    ("relative/path", "/path"),  # no scheme: "relative" is read as the host
    ("", "/"),
    ("svn+ssh://host/repo", "/repo"),
    ("https://example.com/a?next=http://other/b", "/a?next=http://other/b"),
]


@pytest.mark.parametrize(
    ("url", "expected"), PATH_OF_CASES, ids=[c[0] or "empty" for c in PATH_OF_CASES]
)
def test_spec1_path_params_and_query_are_matched_not_fragment(url: str, expected: str) -> None:
    assert path_of(url) == expected


#: robots_test.cc TestGetPathParamsQuery, all of it (SPEC §1: a URL without a scheme is
#: read as Google's GetPathParamsQuery reads it).
GOOGLE_PATH_CASES = [
    ("", "/"),
    ("http://www.example.com", "/"),
    ("http://www.example.com/", "/"),
    ("http://www.example.com/a", "/a"),
    ("http://www.example.com/a/", "/a/"),
    ("http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"),
    ("http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
    ("example.com", "/"),
    ("example.com/", "/"),
    ("example.com/a", "/a"),
    ("example.com/a/", "/a/"),
    ("example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
    ("a", "/"),
    ("a/", "/"),
    ("/a", "/a"),
    ("a/b", "/b"),
    ("example.com?a", "/?a"),
    ("example.com/a;b#c", "/a;b"),
    ("//a/b/c", "/b/c"),
    # The task's examples, and delimiters before a "://".
    ("example.com/a/b?c=d#f", "/a/b?c=d"),
    ("//host/path", "/path"),
    ("a#b/c", "/"),
    ("/a?x=http://b/c", "/a?x=http://b/c"),
    ("a/b://c/d", "/b://c/d"),
]


@pytest.mark.parametrize(
    ("url", "expected"), GOOGLE_PATH_CASES, ids=[c[0] or "empty" for c in GOOGLE_PATH_CASES]
)
def test_google_get_path_params_query(url: str, expected: str) -> None:
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
    ("none", "/%7e\xc3\xa9", "/%7E\xc3\xa9"),  # legacy: as given, escapes uppercased
]


@pytest.mark.parametrize(("mode", "value", "expected"), NORMALISE_CASES)
def test_spec1_pattern_percent_encoding(mode: str, value: str, expected: str) -> None:
    assert normalise_pattern(value, mode) == expected


@pytest.mark.parametrize(
    ("mode", "path", "expected"),
    [
        ("google", "/%3c/%7e", "/%3C/%7E"),  # RFC 3986 §2.1: uppercase hex, nothing decoded
        ("google", "/caf%c3%a9/menu", "/caf%C3%A9/menu"),
        ("google", "/%zz%4", "/%zz%4"),  # not escapes
        ("google", "/é", "/%C3%A9"),
        ("none", "/%3c", "/%3C"),
        ("none", "/é", "/%C3%A9"),
        ("rfc9309", "/%7e%2f", "/~%2F"),
    ],
)
def test_spec1_url_escapes_uppercased_and_non_ascii_encoded(
    mode: str, path: str, expected: str
) -> None:
    assert normalise_url_path(path, mode) == expected


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
def test_longest_match_agrees_with_naive_reference(specs: list[Spec], paths: list[str]) -> None:
    matcher = LongestMatcher([p for p, _ in specs], codes_of(specs))
    for path in paths:
        code = matcher.match(path)
        got = None if code == 0 else (len(specs[abs(code) - 1][0]), code > 0)
        # The same priority and verdict (several equal rules may tie).
        assert got == naive_longest(specs, path)


#: Literal patterns only, many of them sharing prefixes: the walk up the parents (found
#: when built, or looked up lazily by bisection in a larger group) is what decides here.
LITERALS = st.text(st.sampled_from(["/", "a", "b"]), min_size=0, max_size=6).map(lambda p: "/" + p)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(LITERALS, st.booleans()), min_size=1, max_size=40),
    st.lists(PATHS, min_size=1, max_size=20),
)
def test_spec1_longest_literal_prefix_agrees_with_naive_reference(
    specs: list[Spec], paths: list[str]
) -> None:
    matcher = LongestMatcher([p for p, _ in specs], codes_of(specs))
    for path in paths:
        code = matcher.match(path)
        got = None if code == 0 else (len(specs[abs(code) - 1][0]), code > 0)
        assert got == naive_longest(specs, path), path


def parents_of(matcher: LongestMatcher) -> list[int]:
    """The parent of each key as the matcher holds it (-2: not looked up yet)."""
    return list(matcher._table[1:-3:3])


@settings(max_examples=200, deadline=None)
@given(st.lists(LITERALS, min_size=1, max_size=40))
def test_the_parents_found_when_built_are_those_found_lazily(patterns: list[str]) -> None:
    """A group of up to 512 keys finds every parent in one pass when built; a larger one
    looks each up by bisection on first need: the same parents."""
    codes = list(range(1, len(patterns) + 1))
    eager = LongestMatcher(patterns, codes)
    lazy = LongestMatcher(patterns, codes)
    # each key's parent, beside its code; as a group of over 512 keys has them at first
    lazy._table[1:-3:3] = array(lazy._table.typecode, [-2]) * len(lazy._keys)
    assert parents_of(eager) == [lazy._find_parent(i) for i in range(len(lazy._keys))]


def test_a_group_of_more_than_512_keys_finds_its_parents_on_first_need() -> None:
    specs = [("/" + "a" * n + "b" * (n % 3), n % 2 == 0) for n in range(1, 700)]
    matcher = LongestMatcher([p for p, _ in specs], codes_of(specs))
    assert set(parents_of(matcher)) == {-2}  # none looked up yet
    for path in ("/" + "a" * 650 + "bbb", "/aab", "/" + "a" * 10 + "c", "/c"):
        code = matcher.match(path)
        got = None if code == 0 else (len(specs[abs(code) - 1][0]), code > 0)
        assert got == naive_longest(specs, path)
    assert set(parents_of(matcher)) != {-2}


def test_spec1_deep_chain_of_prefixes_is_walked_without_recursion() -> None:
    """20,000 nested prefixes (`/a`, `/aa`, …): parents are found without recursing."""
    specs = [("/" + "a" * n, n % 2 == 0) for n in range(1, 20_001)]
    matcher = LongestMatcher([p for p, _ in specs], codes_of(specs))
    assert matcher.match("/" + "a" * 30_000 + "b") == 20_000  # the longest, an allow
    assert matcher.match("/" + "a" * 12_345 + "b") == -12_345
    assert matcher.match("/b") == 0


@pytest.mark.parametrize(
    ("specs", "path", "expected"),
    [
        ([("/a", False), ("/a", True)], "/a/x", 2),  # equal patterns: allow wins
        ([("/a", True), ("/a", False)], "/a/x", 1),
        ([("/a", False), ("/a", False)], "/a/x", -1),  # otherwise the first line
        ([("/a$", False), ("/a$", True)], "/a", 2),
        ([("/a*", False), ("/a", True)], "/a", -1),  # "/a*" is one byte longer
        ([("/a*", False), ("/a$", True)], "/a", 2),  # equally long: allow wins
        ([("/", False), ("/*.php$", True), ("/a", False)], "/a.php", 2),
    ],
)
def test_spec1_longest_match_ties_and_duplicates(
    specs: list[Spec], path: str, expected: int
) -> None:
    assert LongestMatcher([p for p, _ in specs], codes_of(specs)).match(path) == expected


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(PATTERNS, st.booleans()), min_size=1, max_size=6), PATHS)
def test_long_path_prefilter_gives_the_same_answer(specs: list[Spec], path: str) -> None:
    """Paths over 4 KiB take the character-set prefilter; answers must not change."""
    long_path = path + "a" * 4200 + path
    assert longest(specs, long_path) == naive_longest(specs, long_path)


def test_a_path_of_4096_characters_or_more_takes_the_prefilter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The prefilter's route is taken from 4,096 characters on (a wildcard matcher), not
    one character later or sooner: the same answer either way."""
    taken: list[int] = []
    real = LongestMatcher._match_long

    def counted(matcher: LongestMatcher, path: str, *rest: int) -> int:
        taken.append(len(path))
        return real(matcher, path, *rest)

    monkeypatch.setattr(LongestMatcher, "_match_long", counted)
    matcher = LongestMatcher(["/a*z", "/a"], [-1, 2])
    for length in (4095, 4096, 4097):
        path = "/a" + "b" * (length - 3) + "z"
        assert len(path) == length and matcher.match(path) == -1
    assert taken == [4096, 4097]


def test_legacy_first_matcher_takes_file_order() -> None:
    matcher = FirstMatcher(["/pics/", "/pics/public/"], [-1, 2], wildcards=False)
    assert matcher.match("/pics/public/a.jpg") == -1
    assert matcher.match("/other") == 0


def test_legacy_without_wildcards_star_is_literal() -> None:
    matcher = FirstMatcher(["/*.gif", "/a$"], [-1, -2], wildcards=False)
    assert matcher.match("/a.gif") == 0
    assert matcher.match("/*.gif") == -1
    assert matcher.match("/a$b") == -2  # "$" is a character too


def test_exact_positions_match_only_the_equal_path() -> None:
    """The index.html directory rule (SPEC §1) is exact even without wildcards."""
    for matcher_class in (LongestMatcher, FirstMatcher):
        matcher = matcher_class(["/d/index.html", "/d/"], [1, 1], False, exact_at={1})
        assert matcher.match("/d/") == 1, matcher_class
        assert matcher.match("/d/x") == 0, matcher_class


# The matcher's one array of numbers a key (its literal code, its parent, where its
# wildcard patterns are) and its answer for a path no key sorts before, at their edges:
# each against the naive reference.

CASES: list[tuple[list[Spec], list[str]]] = [
    ([], ["/", "", "/a"]),  # no rule: no key, nothing matches
    ([("/a", False)], ["", "/", "/a", "/ab", "/b", "/A"]),  # one key
    ([("/a", True)], ["/", "/a", "/a/b"]),
    ([("/b", False), ("/a$", True)], ["/a", "/a/", "/", "/b"]),  # exact: before every key
    ([("/a$", False)], ["/a", "/", "/ab"]),  # exact only: no key at all
    ([("*.pdf$", False), ("/a", True)], ["/a.pdf", "/a", "/b.pdf", "/", ""]),  # key ""
    ([("/*", False), ("/a", True)], ["/", "/a", "/b"]),  # "/*" and "/a": equally long
    ([("/a*", False), ("/ab", True)], ["/ab", "/a", "/abc"]),  # tie: allow wins
    ([("/ab", False), ("/a*", True)], ["/ab", "/a"]),
    ([("/ab", False), ("/ab", True), ("/ab$", False)], ["/ab", "/abc"]),
    ([("/a*b$", False), ("/a", True), ("/a*", True)], ["/ab", "/a", "/axb", "/axbc"]),
    ([("/", False), ("/a", True), ("/a/b", False), ("/a/b/c*d", True)], ["/a/b/cd", "/a/b/c"]),
]


@pytest.mark.parametrize(("specs", "paths"), CASES)
def test_the_edges_agree_with_the_naive_reference(specs: list[Spec], paths: list[str]) -> None:
    matcher = LongestMatcher([p for p, _ in specs], codes_of(specs))
    for path in paths * 2:  # the second time: the wildcard patterns split, remembered
        code = matcher.match(path)
        got = None if code == 0 else (len(specs[abs(code) - 1][0]), code > 0)
        assert got == naive_longest(specs, path), path


@pytest.mark.parametrize("mode", ["google", "rfc9309", "legacy"])
def test_escaped_and_non_ascii_paths(mode: str) -> None:
    """Patterns and paths as normalised: escapes and non-ASCII characters match alike."""
    written = [("/café", False), ("/caf%c3%a9/ok", True), ("/%7Ex*", False), ("/~x/y", True)]
    specs = [(normalise_pattern(p, mode), allow) for p, allow in written]
    matcher = LongestMatcher([p for p, _ in specs], codes_of(specs))
    for raw in ("/café", "/café/ok", "/caf%C3%A9/okay", "/~x", "/%7ex/y", "/~x/yz", "/cafe"):
        path = normalise_url_path(raw, mode)
        code = matcher.match(path)
        got = None if code == 0 else (len(specs[abs(code) - 1][0]), code > 0)
        assert got == naive_longest(specs, path), (mode, raw)


def test_each_key_holds_its_code_parent_and_wildcards() -> None:
    """Three numbers a key, then ``0, -1, 0`` (index -1), then the codes of the wildcard
    patterns; a key's wildcard patterns split when a path first reaches it."""
    matcher = LongestMatcher(["/a", "/a/b", "/a*x", "/c"], [1, -2, -3, 4])
    assert matcher._keys == ("/a", "/a/b", "/c")
    table = matcher._table
    assert list(table) == [1, -1, _RAW, -2, 0, 0, 4, -1, 0, 0, -1, 0, -3]
    assert matcher.match("/c/d") == 4 and matcher.match("/b") == 0 and matcher.match("/") == 0
    assert table[2] == _RAW  # no path reached "/a" yet
    assert matcher.match("/abx") == -3 and table[2] == _SPLIT
    assert matcher.match("/a/b") == -2 and matcher.match("/aby") == 1


def test_codes_and_keys_past_two_bytes() -> None:
    """Numbers that do not fit 2 bytes are held in 4: line numbers past 32,767."""
    matcher = LongestMatcher(["/a", "/ab"], [40_000, -40_001])
    assert matcher._table.typecode == "i"
    assert matcher.match("/abc") == -40_001 and matcher.match("/a") == 40_000
    small = LongestMatcher(["/a", "/ab"], array("h", [1, -2]))
    assert small._table.typecode == "h"
    assert small.match("/abc") == -2 and small.match("/ax") == 1


# The deciding rule itself (its code, not only its length and verdict), against every
# pattern tried with the plain ``wildcard_match``: many patterns under few first segments,
# so a key holds several wildcard patterns, their last segments rejected side by side.

SHARED_PATTERNS = st.text(st.sampled_from(["/", "a", "b", "?", "*", "*", "$"]), max_size=6).map(
    lambda p: st_pattern(p)
)


def st_pattern(text: str) -> str:
    """A pattern starting with ``/`` or ``*``, its ``$`` (if any) at the end."""
    body = text.replace("$", "")
    return ("*" if body.startswith("*") else "/") + body.lstrip("*/") + "$" * ("$" in text)


def reference_code(patterns: list[str], codes: list[int], path: str) -> int:
    """The code of the rule that decides ``path`` by brute force: each pattern tried with
    ``wildcard_match``; the longest wins, allow wins a tie (SPEC §1), then a pattern
    ``…$`` without ``*`` (equal to the path), then the longer literal start (the part
    before the first ``*``), then the first in the file; ``0``: none matches."""
    best: tuple[int, bool, bool, int, int] | None = None
    found = 0
    for position, (pattern, code) in enumerate(zip(patterns, codes, strict=True)):
        anchored = pattern.endswith("$")
        body = pattern[:-1] if anchored else pattern
        if not wildcard_match(path, body.split("*"), anchored):
            continue
        star = body.find("*")
        rank = (len(pattern), code > 0, anchored and star < 0, len(body) if star < 0 else star,
                -position)  # fmt: skip
        if best is None or rank > best:
            best, found = rank, code
    return found


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(SHARED_PATTERNS, st.booleans()), min_size=1, max_size=30),
    st.lists(PATHS, min_size=1, max_size=12),
)
def test_the_deciding_rule_is_the_one_wildcard_match_finds(
    specs: list[Spec], paths: list[str]
) -> None:
    """Every answer (the rule's code), first and again (wildcard patterns split, then
    remembered), and on a path past 4 KiB (the character-set prefilter instead)."""
    patterns, codes = [p for p, _ in specs], codes_of(specs)
    matcher = LongestMatcher(patterns, codes)
    for path in paths * 2:
        assert matcher.match(path) == reference_code(patterns, codes, path), path
    for path in paths[:2]:
        long_path = path + "a" * 4200 + path
        assert matcher.match(long_path) == reference_code(patterns, codes, long_path)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(SHARED_PATTERNS, st.booleans()), min_size=1, max_size=30),
    st.lists(PATHS, min_size=1, max_size=12),
    st.booleans(),
)
def test_a_scanning_matcher_answers_as_the_built_one_before_and_after_it_builds_it(
    specs: list[Spec], paths: list[str], wildcards: bool
) -> None:
    """:class:`ScanningMatcher` tries each rule for its first paths, then builds a
    :class:`LongestMatcher` and asks it: the same code every time, that of the rule the
    plain ``wildcard_match`` finds, and with wildcards off the built matcher's."""
    patterns, codes = [p for p, _ in specs], codes_of(specs)
    scanning = ScanningMatcher(patterns, codes, wildcards, None)
    built = LongestMatcher(patterns, codes, wildcards)
    for path in paths * 2:
        found = scanning.match(path)
        assert found == built.match(path), path
        if wildcards:
            assert found == reference_code(patterns, codes, path), path
    assert (scanning._compiled is not None) is (len(paths) * 2 > SCANS)
