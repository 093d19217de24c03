"""The longest-match matcher's one array of numbers a key (its literal code, its parent,
where its wildcard patterns are) and its answer for a path no key sorts before, at their
edges: each against the naive reference (SPEC §1 "Rule matching")."""

from __future__ import annotations

from array import array

import pytest

from scrapy_rep.urls.encoding import normalise_pattern, normalise_url_path
from scrapy_rep.urls.matching import _RAW, _SPLIT, LongestMatcher
from tests.urls.test_matching import Spec, codes_of, naive_longest

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
    """Three numbers a key, then ``0, -1, 0`` (index -1); a key's wildcard patterns split
    when a path first reaches it."""
    matcher = LongestMatcher(["/a", "/a/b", "/a*x", "/c"], [1, -2, -3, 4])
    assert matcher._keys == ("/a", "/a/b", "/c")
    table = matcher._table
    assert list(table) == [1, -1, _RAW, -2, 0, 0, 4, -1, 0, 0, -1, 0]
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
