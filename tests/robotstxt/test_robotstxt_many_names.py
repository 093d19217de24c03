"""Many crawler names matched in one pass: one compiled matcher per group set, the first
refusing name's line as :meth:`RobotsTxt.code` gives it, and the stand-ins as code() answers."""

from __future__ import annotations

import time

import pytest

from rep_engine.fetch.cache import CacheEntry
from rep_engine.records import ItemStatus
from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, RobotsTxt, parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.urls.encoding import ESCAPES_SPECIALS, matched_as_given, normalise_url_path
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.verdict import ROBOTS, Refused
from rep_recheck.documents import OriginDocuments
from rep_recheck.rechecker import Identity, Rechecker

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


ENCODED = b"""User-agent: *
Disallow: /%7Ea
Disallow: /caf%C3%A9
Disallow: /star%2Ax
Disallow: /dollar%24
Allow: /%7Ea/ok
"""
#: Paths the hot paths' inline normalising test (:func:`matched_as_given`) must send to
#: normalising (an escape, a non-ASCII character, a ``*`` or ``$`` the profile encodes),
#: and plain ones.
ENCODED_PATHS = ("/~a", "/%7ea/x", "/%7Ea/ok", "/café", "/caf%c3%a9", "/star*x", "/dollar$",
                 "/plain", "/robots.txt")  # fmt: skip
#: Those matched as given, in every profile / in one that does not encode ``*`` and ``$``.
AS_GIVEN = {"/~a", "/plain", "/robots.txt"}
AS_GIVEN_UNLESS_ENCODED = AS_GIVEN | {"/star*x", "/dollar$"}


def _recheck_of(rules: RobotsTxt) -> Rechecker:
    """A recheck of one origin whose robots.txt is ``rules`` (its fast path: no trail)."""
    origin = origin_of("https://a.example/")
    assert origin is not None
    documents = OriginDocuments(origin, now=time.time())
    never = float("inf")
    documents.add(ROBOTS, origin, CacheEntry(rules, "200", 0.0, never, never))

    def known(found: Origin) -> OriginDocuments | None:
        return documents if found == origin else None

    config = RepConfig.from_settings({"REP_PURPOSE": "search"})
    return Rechecker(config, Identity("mybot"), known, explain=False)


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
    write it inline), and the recheck's decide() (inline too, for a profile that does not
    encode ``*`` and ``$``): the same rule decides in all four."""
    rules = parse_robotstxt(ENCODED, profile)
    url = "https://a.example" + path
    code = rules.code(url, "mybot")
    decision = rules.decide(url, "mybot")
    assert decision.allowed == (code >= 0)
    assert (decision.line or 0) == abs(code)
    found = rules.first_disallowed_path(path, rules.matchers(("mybot",)))
    assert found == (0 if code >= 0 else 1 + code * 65536)
    recheck = _recheck_of(rules)
    for _ in range(2):  # its outcome made, then remembered
        outcome = recheck.decide(url)
        assert outcome.status is (ItemStatus.KEPT if code >= 0 else ItemStatus.REFUSED)
        refusal = outcome.verdict
        assert (refusal.line if isinstance(refusal, Refused) else 0) == -min(code, 0)
    # the inline match is the one taken where the profile allows it
    inline = recheck._origins["https://a.example"][5]
    assert (inline is not None) == (profile not in ESCAPES_SPECIALS)
