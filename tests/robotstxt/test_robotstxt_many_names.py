"""Many crawler names matched in one pass: one compiled matcher per group set, the first
refusing name's line as :meth:`RobotsTxt.code` gives it, and the stand-ins as code() answers."""

from __future__ import annotations

import pytest

from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, parse_robotstxt
from rep_engine.urls.encoding import ESCAPES_SPECIALS, matched_as_given, normalise_url_path
from tests.support.documents import ENCODED_PATHS, ENCODED_RULES

BODY = b"""User-agent: GPTBot
Disallow: /g

User-agent: CCBot
Disallow: /c
Disallow: /g/deeper

User-agent: *
Disallow: /private
Disallow: /
Allow: /ok
"""
NAMES = ("mybot", "CCBot", "GPTBot", "Google-Extended", "*")
PATHS = ("/ok", "/g/1", "/g/deeper/2", "/c/3", "/private/4", "/other", "/robots.txt", "/%7Ec")


def test_one_matcher_per_group_set() -> None:
    rules = parse_robotstxt(BODY)
    matchers = rules.matchers(NAMES)
    assert len(matchers) == 3  # mybot, Google-Extended and * share the * group


@pytest.mark.parametrize("path", PATHS)
def test_the_first_refusing_name_and_its_line_as_code_gives_them(path: str) -> None:
    rules = parse_robotstxt(BODY)
    matchers = rules.matchers(NAMES)
    url = "https://a.example" + path
    codes = [rules.code(url, name) for name in NAMES]
    found = rules.first_disallowed(url, matchers)
    refusing = next((i for i, c in enumerate(codes) if c < 0), None)
    if refusing is None:
        assert found == 0
        return
    # the group set's place among the matchers: that of the first name selecting it
    firsts = {0: 1, 1: 2, 2: 3, 3: 1, 4: 1}
    assert found == firsts[refusing] + codes[refusing] * 65536


def test_the_stand_ins() -> None:
    """The allow-all and disallow-all stand-ins answer as code() does for each URL."""
    for rules in (ALLOW_ALL, DISALLOW_ALL):
        for path in ("/x", "/robots.txt"):
            url = "https://a.example" + path
            code = rules.code(url, "mybot")
            expected = 0 if code >= 0 else 1 + code * 65536
            assert rules.first_disallowed(url, rules.matchers(NAMES)) == expected
    assert DISALLOW_ALL.first_disallowed("https://a.example/x", DISALLOW_ALL.matchers(NAMES)) < 0


#: Those of ENCODED_PATHS matched as given, in every profile / in one that does not encode
#: ``*`` and ``$``.
AS_GIVEN = {"/~a", "/plain", "/robots.txt"}
AS_GIVEN_UNLESS_ENCODED = AS_GIVEN | {"/star*x", "/dollar$"}


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_matched_as_given_is_the_one_test(profile: str) -> None:
    """The paths it lets through are those normalising leaves as they are."""
    specials = profile in ESCAPES_SPECIALS
    given = {path for path in ENCODED_PATHS if matched_as_given(path, specials)}
    assert given == (AS_GIVEN if specials else AS_GIVEN_UNLESS_ENCODED)
    for path in given:
        assert normalise_url_path(path, profile) == path


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
@pytest.mark.parametrize("path", ENCODED_PATHS)
def test_code_decide_and_first_disallowed_path_normalise_alike(profile: str, path: str) -> None:
    """code() (which calls matched_as_given), decide() and first_disallowed_path() (which
    write it inline): the same rule decides in all three (and in the recheck's decide(),
    inline too: tests/recheck/test_rechecker_encoded_paths.py)."""
    rules = parse_robotstxt(ENCODED_RULES, profile)
    url = "https://a.example" + path
    code = rules.code(url, "mybot")
    decision = rules.decide(url, "mybot")
    assert decision.allowed == (code >= 0)
    assert (decision.line or 0) == abs(code)
    found = rules.first_disallowed_path(path, rules.matchers(("mybot",)))
    assert found == (0 if code >= 0 else 1 + code * 65536)
