"""Each profile against the examples of its own standard, every example of the clause.

- ``rfc9309``: RFC 9309 §2.2.3 "Special Characters" (its table of special characters,
  and its percent-encoded patterns that match a literal ``*`` and ``$``).
- ``legacy``: the 1996 draft (M. Koster, draft-koster-robots-00, "A Method for Web Robots
  Control", the "Erweiterter Entwurf 1996" that seeds/000 cites), §3.2.2 "The Allow and
  Disallow lines": "If a %xx encoded octet is encountered it is unencoded prior to
  comparison, unless it is the "/" character", and its table of examples.
- ``google``: the same examples, read as Google's parser (google/robotstxt ``robots.cc``
  at 22b355f) reads them. That column was taken from ``robots.cc`` itself, built against
  Debian's abseil (``OneAgentAllowedByRobots``), on 2026-11-24. The ``fast-robotstxt``
  bindings that ``benchmarks/google_diff.py`` uses are no reference here: they decode
  escapes on both sides (``/a%2fb.html`` matches ``/a/b.html`` there, not in robots.cc).
"""

from __future__ import annotations

import pytest

from rep_engine.robotstxt import parse_robotstxt
from tests.support.answers import disallow_forbids

ORIGIN = "https://www.example.com"


# --------------------------------------------------------------------------- RFC 9309

#: RFC 9309 §2.2.3, Table 1, each example line in a group that disallows everything
#: else: (id, the example, a path, is the path allowed).
RFC9309_2_2_3_SPECIAL_CHARACTERS = [
    ("hash-comment-in-line", "allow: / # comment in line", "/anything", True),
    ("hash-comment-on-its-own-line", "# comment on its own line", "/anything", False),
    ("dollar-end-of-pattern", "allow: /this/path/exactly$", "/this/path/exactly", True),
    ("dollar-end-of-pattern-longer", "allow: /this/path/exactly$", "/this/path/exactly/x", False),
    ("star-any-characters", "allow: /this/*/exactly", "/this/a/b/exactly", True),
    ("star-zero-characters", "allow: /this/*/exactly", "/this//exactly", True),
    ("star-keeps-the-slashes", "allow: /this/*/exactly", "/this/exactly", False),
]


@pytest.mark.parametrize(
    ("line", "path", "allowed"),
    [case[1:] for case in RFC9309_2_2_3_SPECIAL_CHARACTERS],
    ids=[case[0] for case in RFC9309_2_2_3_SPECIAL_CHARACTERS],
)
def test_rfc9309_2_2_3_special_characters(line: str, path: str, allowed: bool) -> None:
    robots = parse_robotstxt(f"User-agent: *\nDisallow: /\n{line}\n", "rfc9309")
    assert robots.allowed(ORIGIN + path, "mybot") is allowed


#: RFC 9309 §2.2.3, Table 2: "If crawlers match special characters verbatim in the URI,
#: crawlers SHOULD use "%" encoding": (id, pattern, URI path, the pattern matches), the
#: example first, then the same URI written encoded and a URI the pattern must not match.
RFC9309_2_2_3_STAR = [
    ("example", "/path/file-with-a-%2A.html", "/path/file-with-a-*.html", True),
    ("uri-encoded", "/path/file-with-a-%2A.html", "/path/file-with-a-%2A.html", True),
    ("uri-encoded-lowercase", "/path/file-with-a-%2A.html", "/path/file-with-a-%2a.html", True),
    ("escape-is-no-wildcard", "/path/file-with-a-%2A.html", "/path/file-with-a-x.html", False),
    ("plain-star-stays-a-wildcard", "/path/file-with-a-*.html", "/path/file-with-a-*.html", True),
]
RFC9309_2_2_3_DOLLAR = [
    ("example", "/path/foo-%24", "/path/foo-$", True),
    ("uri-encoded", "/path/foo-%24", "/path/foo-%24", True),
    ("escape-is-no-anchor", "/path/foo-%24", "/path/foo-", False),
    ("final-dollar-stays-the-anchor", "/path/foo-$", "/path/foo-$", False),
    ("final-dollar-anchors", "/path/foo-$", "/path/foo-", True),
    ("dollar-before-the-end-is-plain", "/path/a$b", "/path/a$b", True),
    ("dollar-before-the-end-is-its-escape", "/path/a$b", "/path/a%24b", True),
]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [case[1:] for case in RFC9309_2_2_3_STAR],
    ids=[case[0] for case in RFC9309_2_2_3_STAR],
)
def test_rfc9309_2_2_3_percent_encoded_star(pattern: str, path: str, matches: bool) -> None:
    assert disallow_forbids(pattern, path, "rfc9309", ORIGIN) is matches


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [case[1:] for case in RFC9309_2_2_3_DOLLAR],
    ids=[case[0] for case in RFC9309_2_2_3_DOLLAR],
)
def test_rfc9309_2_2_3_percent_encoded_dollar(pattern: str, path: str, matches: bool) -> None:
    assert disallow_forbids(pattern, path, "rfc9309", ORIGIN) is matches


def test_rfc9309_2_2_3_a_plain_star_or_dollar_without_wildcards() -> None:
    """With the wildcards switch off, ``*`` and ``$`` in a rule are plain characters:
    matched as the URL's ``%2A`` and ``%24``, as RFC 9309 §2.2.3 writes them."""
    robots = parse_robotstxt("User-agent: *\nDisallow: /a*b$\n", "rfc9309", wildcards=False)
    assert not robots.allowed(ORIGIN + "/a*b$c", "mybot")
    assert not robots.allowed(ORIGIN + "/a%2Ab%24", "mybot")
    assert robots.allowed(ORIGIN + "/axb", "mybot")


def test_rfc9309_2_2_3_content_usage_paths_match_as_disallow_does() -> None:
    """attach-05 §3.1: Content-Usage paths match as allow/disallow do."""
    robots = parse_robotstxt("User-agent: *\nContent-Usage: /path/foo-%24 train-ai=n\n", "rfc9309")
    assert robots.content_usage("mybot").prefs(ORIGIN + "/path/foo-$").train_ai is False
    assert robots.content_usage("mybot").prefs(ORIGIN + "/path/foo-").train_ai is None


# --------------------------------------------------------------------------- 1996 draft

#: The 1996 draft §3.2.2 table, every row: (record path, URL path, matches).
DRAFT1996_3_2_2 = [
    ("/tmp", "/tmp", True),
    ("/tmp", "/tmp.html", True),
    ("/tmp", "/tmp/a.html", True),
    ("/tmp/", "/tmp", False),
    ("/tmp/", "/tmp/", True),
    ("/tmp/", "/tmp/a.html", True),
    ("/a%3cd.html", "/a%3cd.html", True),
    ("/a%3Cd.html", "/a%3cd.html", True),
    ("/a%3cd.html", "/a%3Cd.html", True),
    ("/a%3Cd.html", "/a%3Cd.html", True),
    ("/a%2fb.html", "/a%2fb.html", True),
    ("/a%2fb.html", "/a/b.html", False),
    ("/a/b.html", "/a%2fb.html", False),
    ("/a/b.html", "/a/b.html", True),
    ("/%7ejoe/index.html", "/~joe/index.html", True),
    ("/~joe/index.html", "/%7Ejoe/index.html", True),
]
DRAFT_IDS = [f"{record}-vs-{path}" for record, path, _ in DRAFT1996_3_2_2]


@pytest.mark.parametrize(("record", "path", "matches"), DRAFT1996_3_2_2, ids=DRAFT_IDS)
def test_draft1996_3_2_2_matching_table(record: str, path: str, matches: bool) -> None:
    assert disallow_forbids(record, path, "legacy", ORIGIN) is matches


@pytest.mark.parametrize(("record", "path", "matches"), DRAFT1996_3_2_2, ids=DRAFT_IDS)
def test_draft1996_3_2_2_first_match_with_allow(record: str, path: str, matches: bool) -> None:
    """The same table read through ``Allow`` (the draft's first matching line wins)."""
    robots = parse_robotstxt(f"User-agent: *\nAllow: {record}\nDisallow: /\n", "legacy")
    assert robots.allowed(ORIGIN + path, "mybot") is matches


def test_draft1996_3_2_2_octets_beyond_ascii() -> None:
    """Octets are compared: a rule's UTF-8 bytes match the URL's escapes of them."""
    assert disallow_forbids("/café", "/caf%C3%A9/menu", "legacy", ORIGIN)
    assert disallow_forbids("/caf%c3%a9", "/café", "legacy", ORIGIN)
    assert not disallow_forbids("/café", "/cafe", "legacy", ORIGIN)


# --------------------------------------------------------------------------- google

#: Those examples under the google profile, against robots.cc: (pattern, path, robots.cc
#: matches, why we differ or ""). robots.cc compares patterns as written (escapes
#: uppercased, non-ASCII escaped) with the URL as its caller gives it.
URL_HEX = (
    "SPEC §1 (decided 2026-11-22): as robots.cc's caller, we uppercase the URL's escapes "
    "(RFC 3986 §2.1: %3c and %3C are one octet); robots.cc leaves them to its caller"
)
GOOGLE_ON_THE_EXAMPLES = [
    *[(record, path, matches, "") for record, path, matches in DRAFT1996_3_2_2],
    ("/path/file-with-a-%2A.html", "/path/file-with-a-*.html", False, ""),
    ("/path/file-with-a-%2A.html", "/path/file-with-a-%2A.html", True, ""),
    ("/path/foo-%24", "/path/foo-$", False, ""),
    ("/path/foo-%24", "/path/foo-%24", True, ""),
    ("/this/path/exactly$", "/this/path/exactly", True, ""),
    ("/this/path/exactly$", "/this/path/exactly/x", False, ""),
    ("/this/*/exactly", "/this/a/b/exactly", True, ""),
    ("/this/*/exactly", "/this/exactly", False, ""),
    ("/path/a$b", "/path/a$b", True, ""),
]
# robots.cc's answers where they differ from the 1996 draft's (checked one by one).
_ROBOTS_CC = {
    ("/a%3cd.html", "/a%3cd.html"): (False, URL_HEX),
    ("/a%3Cd.html", "/a%3cd.html"): (False, URL_HEX),
    ("/a%2fb.html", "/a%2fb.html"): (False, URL_HEX),
    ("/%7ejoe/index.html", "/~joe/index.html"): (False, ""),
    ("/~joe/index.html", "/%7Ejoe/index.html"): (False, ""),
}
GOOGLE_CASES = [
    (record, path, *_ROBOTS_CC.get((record, path), (matches, why)))
    for record, path, matches, why in GOOGLE_ON_THE_EXAMPLES
]


@pytest.mark.parametrize(
    ("pattern", "path", "robots_cc", "why"),
    GOOGLE_CASES,
    ids=[f"{pattern}-vs-{path}" for pattern, path, _, _ in GOOGLE_CASES],
)
def test_google_profile_on_those_examples_is_robots_cc(
    pattern: str, path: str, robots_cc: bool, why: str
) -> None:
    """The google profile keeps Google's reading: no escape decoded, ``%2A`` / ``%24``
    are the characters ``%``, ``2``, ``A``; only the URL's lowercase hex differs."""
    expected = (not robots_cc) if why else robots_cc
    assert disallow_forbids(pattern, path, "google", ORIGIN) is expected
