"""Conformance of the robots.txt engine to SPEC.md §1–§2 and the seed documents.

Written from the documents, not from the implementation: every case cites where its
expectation comes from.

- 003: ``seeds/003_da99d7ac13fba5a5.txt`` (Google's interpretation, German)
- 004: ``seeds/004_54bc39686e2a9cca.txt`` (Google's older specification, Dutch)
- SELFHTML: ``seeds/000_8956ae6b9921b826.txt`` (the 1994/1996 standard: "legacy")
- WP: ``seeds/001_9ef43d6ca6665e90.txt`` (Wikipedia)
- robots_test.cc: Google's open-source parser tests, ported where SPEC.md agrees.

Where the documents disagree, SPEC.md decides; each such place says so in a comment.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rep_engine import ContentSignals, Decision, parse_robotstxt
from tests.support import reference_matcher as reference

PROFILES = ("google", "rfc9309", "legacy")
ORIGIN = "https://example.com"


def url(path: str) -> str:
    """An absolute URL on the test origin (``path`` is already percent-encoded)."""
    return ORIGIN + path


def is_allowed(
    body: str | bytes,
    path_or_url: str,
    agent: str = "mybot",
    profile: str = "google",
    **switches: Any,
) -> bool:
    """Parse ``body`` with ``profile`` and ``switches`` and ask about one URL."""
    target = url(path_or_url) if path_or_url.startswith("/") else path_or_url
    return parse_robotstxt(body, profile, **switches).allowed(target, agent)


# ---------------------------------------------------------------------------------------
# 003 / 004 "path matching" tables: (pattern, path, the pattern matches the path)
# ---------------------------------------------------------------------------------------

FISH_MATCHES = [
    "/fish",
    "/fish.html",
    "/fish/salmon.html",
    "/fishheads",
    "/fishheads/yummy.html",
    "/fish.php?id=anything",
]
FISH_NON_MATCHES = ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"]
FISH_DIR_MATCHES = ["/fish/", "/fish/?id=anything", "/fish/salmon.htm"]
FISH_DIR_NON_MATCHES = ["/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"]

PATH_MATCHING: list[tuple[str, str, bool]] = [
    # 003/004 "/": the root and every URL below it.
    ("/", "/", True),
    ("/", "/fish", True),
    ("/", "/a/b/c.html?x=1", True),
    # "/*": equivalent to "/", the trailing wildcard is ignored.
    ("/*", "/", True),
    ("/*", "/fish", True),
    ("/*", "/a/b/c.html?x=1", True),
    # "/$": only the root.
    ("/$", "/", True),
    ("/$", "/page", False),
    ("/$", "/fish/", False),
    # SPEC §1: `$` anchors at the end of path+query, so a query is "more" than the root.
    ("/$", "/?q=1", False),
    # "/fish" and "/fish*"
    *[("/fish", path, True) for path in FISH_MATCHES],
    *[("/fish", path, False) for path in FISH_NON_MATCHES],
    *[("/fish*", path, True) for path in FISH_MATCHES],
    *[("/fish*", path, False) for path in FISH_NON_MATCHES],
    # "/fish/"
    *[("/fish/", path, True) for path in FISH_DIR_MATCHES],
    *[("/fish/", path, False) for path in FISH_DIR_NON_MATCHES],
    # 004 "fish/": equivalent to "/fish/" (SPEC §1 keeps this reading deliberately).
    *[("fish/", path, True) for path in FISH_DIR_MATCHES],
    *[("fish/", path, False) for path in FISH_DIR_NON_MATCHES],
    # The same leading "/" for a value that ends with "$" or holds a "*" (SPEC §1).
    ("fish.php$", "/fish.php", True),
    ("fish.php$", "/fish.php?id=1", False),
    ("fish*.php", "/fishheads/catfish.php", True),
    ("fish*.php", "/catfish.php", False),
    # "/*.php" (003 names, then 004's Dutch names)
    ("/*.php", "/index.php", True),
    ("/*.php", "/filename.php", True),
    ("/*.php", "/folder/filename.php", True),
    ("/*.php", "/folder/filename.php?parameters", True),
    ("/*.php", "/folder/any.php.file.html", True),
    ("/*.php", "/filename.php/", True),
    ("/*.php", "/", False),
    ("/*.php", "/windows.PHP", False),
    ("/*.php", "/bestandsnaam.php", True),
    ("/*.php", "/map/bestandsnaam.php", True),
    ("/*.php", "/map/bestandsnaam.php?parameters", True),
    ("/*.php", "/map/elk.php.bestand.html", True),
    ("/*.php", "/bestandsnaam.php/", True),
    # "/*.php$"
    ("/*.php$", "/filename.php", True),
    ("/*.php$", "/folder/filename.php", True),
    ("/*.php$", "/filename.php?parameters", False),
    ("/*.php$", "/filename.php/", False),
    ("/*.php$", "/filename.php5", False),
    ("/*.php$", "/windows.PHP", False),
    ("/*.php$", "/map/bestandsnaam.php", True),
    ("/*.php$", "/bestandsnaam.php?parameters", False),
    # "/fish*.php"
    ("/fish*.php", "/fish.php", True),
    ("/fish*.php", "/fishheads/catfish.php?parameters", True),
    ("/fish*.php", "/Fish.PHP", False),
]


def _case_id(pattern: str, path: str) -> str:
    return f"{pattern}~{path}"


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    PATH_MATCHING,
    ids=[_case_id(p, u) for p, u, _ in PATH_MATCHING],
)
def test_google_path_matching_seed_tables_disallow(pattern: str, path: str, matches: bool) -> None:
    assert is_allowed(f"User-agent: *\nDisallow: {pattern}\n", path) is not matches


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    PATH_MATCHING,
    ids=[_case_id(p, u) for p, u, _ in PATH_MATCHING],
)
def test_google_path_matching_seed_tables_allow(pattern: str, path: str, matches: bool) -> None:
    # The same pattern as an allow rule against "Disallow: /": it wins exactly where it
    # matches (it is at least as long as "/", and allow wins ties).
    body = f"User-agent: *\nDisallow: /\nAllow: {pattern}\n"
    assert is_allowed(body, path) is matches


# Rows without wildcards hold in every profile (legacy matching is a plain prefix).
# WP "/default": default.html, default.php, default-page.html, defaultfolder/, ...
# SELFHTML "/bild": /bild, /bild/urlaub, /bilder, bild123.jpg; case-sensitive.
PREFIX_MATCHING: list[tuple[str, str, bool]] = [
    row for row in PATH_MATCHING if "*" not in row[0] and "$" not in row[0]
] + [
    ("/default", "/default.html", True),
    ("/default", "/default.php", True),
    ("/default", "/default-page.html", True),
    ("/default", "/defaultfolder/", True),
    ("/default", "/default.html.php", True),
    ("/default", "/default.html/", True),
    ("/default", "/Default.html", False),
    ("/bild", "/bild", True),
    ("/bild", "/bild/urlaub", True),
    ("/bild", "/bilder", True),
    ("/bild", "/bild123.jpg", True),
    ("/bild", "/Bild", False),
    ("/bild", "/x/bild", False),
    ("/x/", "/x/y", True),
    ("/X/", "/x/y", False),
    ("/x/", "/X/y", False),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    PREFIX_MATCHING,
    ids=[_case_id(p, u) for p, u, _ in PREFIX_MATCHING],
)
def test_all_profiles_prefix_matching_is_case_sensitive(
    profile: str, pattern: str, path: str, matches: bool
) -> None:
    assert is_allowed(f"User-agent: *\nDisallow: {pattern}\n", path, profile=profile) is not matches


# ---------------------------------------------------------------------------------------
# SPEC §1 "Rule matching": wildcards and anchors beyond the seed tables
# ---------------------------------------------------------------------------------------

WILDCARD_EDGES: list[tuple[str, str, bool]] = [
    # `$` is an anchor only at the very end of a pattern; elsewhere it is a character.
    ("/a$b", "/a$b", True),
    ("/a$b", "/a$bc", True),
    ("/a$b", "/ab", False),
    ("/a$b", "/a", False),
    ("/a$$", "/a$", True),
    ("/a$$", "/a$x", False),
    ("/a$$", "/a", False),
    # A trailing `*` changes nothing.
    ("/fish*", "/fishX", True),
    ("/fish**", "/fish", True),
    ("/fish*$", "/fish/x", True),
    ("/fish*$", "/fis", False),
    ("*", "/", True),
    ("*", "/x?y", True),
    ("/a*b*c$", "/aXbYc", True),
    ("/a*b*c$", "/abc", True),
    ("/a*b*c$", "/aXbYcZ", False),
    ("/a*b*c$", "/acb", False),
    # WP: "/*?" every URL with a query; "/*?$" URLs that end with "?".
    ("/*?", "/a?b", True),
    ("/*?", "/a", False),
    ("/*?$", "/a?", True),
    ("/*?$", "/a?b", False),
    ("/*.pdf$", "/docs/x.pdf", True),
    ("/*.pdf$", "/docs/x.pdf?dl=1", False),
    # SELFHTML wildcard examples.
    ("/priv*/", "/private/x", True),
    ("/priv*/", "/privat/", True),
    ("/priv*/", "/priv", False),
    ("/priv*/", "/x/private/", False),
    ("/*priv*/", "/x/unprivileged/y", True),
    ("/*priv*/", "/x/priv", False),
    ("/*.jpg$", "/a/b.jpg", True),
    ("/*.jpg$", "/a/b.jpg?size=2", False),
    # Matching is case-sensitive, wildcards included.
    ("/*.PDF$", "/x.pdf", False),
]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    WILDCARD_EDGES,
    ids=[_case_id(p, u) for p, u, _ in WILDCARD_EDGES],
)
@pytest.mark.parametrize("profile", ["google", "rfc9309"])
def test_google_wildcards_star_and_final_dollar(
    profile: str, pattern: str, path: str, matches: bool
) -> None:
    assert is_allowed(f"User-agent: *\nDisallow: {pattern}\n", path, profile=profile) is not matches


LEGACY_LITERAL: list[tuple[str, str, bool]] = [
    # SPEC §2 "wildcards: no (plain prefix)": `*` and `$` are ordinary characters.
    ("/*.php", "/index.php", False),
    ("/*.php", "/*.php", True),
    ("/*.php$", "/filename.php", False),
    ("/fish$", "/fish", False),
    ("/fish$", "/fish$x", True),
    ("/priv*/", "/private/x", False),
    ("/priv*/", "/priv*/x", True),
    ("*", "/anything", False),
]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    LEGACY_LITERAL,
    ids=[_case_id(p, u) for p, u, _ in LEGACY_LITERAL],
)
def test_legacy_no_wildcards_plain_prefix(pattern: str, path: str, matches: bool) -> None:
    body = f"User-agent: *\nDisallow: {pattern}\n"
    assert is_allowed(body, path, profile="legacy") is not matches


# ---------------------------------------------------------------------------------------
# Precedence: 003 "Reihenfolge der Regeln", 004, robots_test.cc ID_LongestMatch
# (id, path, rules in file order, allowed under longest-match)
# ---------------------------------------------------------------------------------------

PRECEDENCE: list[tuple[str, str, list[tuple[str, str]], bool]] = [
    ("003-p-vs-root", "/page", [("allow", "/p"), ("disallow", "/")], True),
    ("003-folder-vs-folder", "/folder/page", [("allow", "/folder"), ("disallow", "/folder")], True),
    (
        "004-folder-slash-vs-folder",
        "/folder/page",
        [("allow", "/folder/"), ("disallow", "/folder")],
        True,
    ),
    ("003-page-vs-star-htm", "/page.htm", [("allow", "/page"), ("disallow", "/*.htm")], False),
    ("003-page-vs-star-ph-tie", "/page.php5", [("allow", "/page"), ("disallow", "/*.ph")], True),
    ("003-root-dollar-vs-root", "/", [("allow", "/$"), ("disallow", "/")], True),
    ("003-root-dollar-vs-root-page", "/page.htm", [("allow", "/$"), ("disallow", "/")], False),
    (
        "gtest-same-pattern",
        "/x/page.html",
        [("disallow", "/x/page.html"), ("allow", "/x/page.html")],
        True,
    ),
    ("gtest-longer-allow", "/x/page.html", [("allow", "/x/page.html"), ("disallow", "/x/")], True),
    ("gtest-longer-allow-dir", "/x/", [("allow", "/x/page.html"), ("disallow", "/x/")], False),
    ("gtest-empty-both", "/x/page.html", [("disallow", ""), ("allow", "")], True),
    ("gtest-root-tie", "/x/page.html", [("disallow", "/"), ("allow", "/")], True),
    ("gtest-x-vs-x-slash-1", "/x", [("disallow", "/x"), ("allow", "/x/")], False),
    ("gtest-x-vs-x-slash-2", "/x/", [("disallow", "/x"), ("allow", "/x/")], True),
    ("gtest-page-vs-star-html", "/page.html", [("allow", "/page"), ("disallow", "/*.html")], False),
    ("gtest-page-vs-star-html-2", "/page", [("allow", "/page"), ("disallow", "/*.html")], True),
    (
        "gtest-page-dot-vs-star-html",
        "/x/page.html",
        [("allow", "/x/page."), ("disallow", "/*.html")],
        True,
    ),
    ("gtest-y-html", "/x/y.html", [("allow", "/x/page."), ("disallow", "/*.html")], False),
    (
        "selfhtml-pics",
        "/pics/public/a.jpg",
        [("disallow", "/pics/"), ("allow", "/pics/public/")],
        True,
    ),
]


def _group(rules: list[tuple[str, str]], agent: str = "*") -> str:
    lines = [f"User-agent: {agent}"] + [f"{kind.capitalize()}: {value}" for kind, value in rules]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("reverse", [False, True], ids=["file-order", "reversed"])
@pytest.mark.parametrize(
    ("path", "rules", "expected"),
    [case[1:] for case in PRECEDENCE],
    ids=[case[0] for case in PRECEDENCE],
)
@pytest.mark.parametrize("profile", ["google", "rfc9309"])
def test_google_longest_match_wins_allow_wins_ties(
    profile: str, path: str, rules: list[tuple[str, str]], expected: bool, reverse: bool
) -> None:
    ordered = list(reversed(rules)) if reverse else rules
    assert is_allowed(_group(ordered), path, profile=profile) is expected


LEGACY_FIRST_MATCH: list[tuple[str, str, list[tuple[str, str]], bool]] = [
    # SELFHTML: "Disallow: /pics/" before "Allow: /pics/public/": pics/public is not crawled.
    (
        "selfhtml-disallow-first",
        "/pics/public/a.jpg",
        [("disallow", "/pics/"), ("allow", "/pics/public/")],
        False,
    ),
    (
        "selfhtml-allow-first",
        "/pics/public/a.jpg",
        [("allow", "/pics/public/"), ("disallow", "/pics/")],
        True,
    ),
    (
        "selfhtml-allow-first-other",
        "/pics/a.jpg",
        [("allow", "/pics/public/"), ("disallow", "/pics/")],
        False,
    ),
    ("selfhtml-public-only", "/public/x", [("allow", "/public/"), ("disallow", "/")], True),
    ("selfhtml-public-only-root", "/", [("allow", "/public/"), ("disallow", "/")], False),
    ("selfhtml-public-only-other", "/x", [("allow", "/public/"), ("disallow", "/")], False),
    # WP writes "Disallow: /" then "Allow: /public/"; read in file order, "/" decides.
    ("wp-disallow-root-first", "/public/x", [("disallow", "/"), ("allow", "/public/")], False),
    ("longer-allow-second", "/page", [("disallow", "/"), ("allow", "/page")], False),
    ("shorter-allow-first", "/page", [("allow", "/p"), ("disallow", "/page")], True),
    ("empty-allow-ignored", "/x", [("allow", ""), ("disallow", "/")], False),
]


@pytest.mark.parametrize(
    ("path", "rules", "expected"),
    [case[1:] for case in LEGACY_FIRST_MATCH],
    ids=[case[0] for case in LEGACY_FIRST_MATCH],
)
def test_legacy_first_match_wins(path: str, rules: list[tuple[str, str]], expected: bool) -> None:
    assert is_allowed(_group(rules), path, profile="legacy") is expected


def test_google_ignores_rule_order_for_selfhtml_pics_example() -> None:
    body = "User-Agent: *\nDisallow: /pics/\nAllow: /pics/public/\n"
    assert is_allowed(body, "/pics/public/a.jpg") is True
    assert is_allowed(body, "/pics/a.jpg") is False


# ---------------------------------------------------------------------------------------
# User-agent matching and groups
# ---------------------------------------------------------------------------------------

# 003/004 "user-agent matching": placeholders "(group N)" filled with one rule each.
UA_GROUPS_BODY = (
    "user-agent: googlebot-news\n"
    "disallow: /group1\n"
    "\n"
    "user-agent: *\n"
    "disallow: /group2\n"
    "\n"
    "user-agent: googlebot\n"
    "disallow: /group3\n"
)

UA_GROUP_CASES_GOOGLE: list[tuple[str, int]] = [
    ("Googlebot-News", 1),
    ("googlebot-news", 1),  # also when crawling images (003): only its own group
    ("Googlebot", 3),
    ("GOOGLEBOT", 3),
    ("Googlebot/2.1 (+http://www.google.com/bot.html)", 3),
    ("Storebot-Google", 2),  # 003: no Storebot-Google group, so the * group
    ("Storebot-Google/1.0", 2),
    ("Otherbot", 2),
    # 004 says "Googlebot Images" follows the googlebot group; SPEC §1 (exact product
    # token, no prefix matching) decides: a crawler whose token is Googlebot-Image
    # gets the * group.
    ("Googlebot-Image", 2),
    ("googlebot-news-europe", 2),
]


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
@pytest.mark.parametrize(
    ("agent", "group"), UA_GROUP_CASES_GOOGLE, ids=[a for a, _ in UA_GROUP_CASES_GOOGLE]
)
def test_google_user_agent_exact_token_selects_one_group(
    profile: str, agent: str, group: int
) -> None:
    rules = parse_robotstxt(UA_GROUPS_BODY, profile)
    for number in (1, 2, 3):
        assert rules.allowed(url(f"/group{number}"), agent) is (number != group), number


UA_GROUP_CASES_LEGACY: list[tuple[str, int]] = [
    # first record whose name is a case-insensitive substring of the crawler's name;
    # the * record only when no other matched.
    ("Googlebot-News", 1),
    ("Googlebot", 3),
    ("Googlebot-Image", 3),  # "googlebot" is a substring of "googlebot-image" (004's answer)
    ("Storebot-Google", 2),
    ("Otherbot", 2),
]


@pytest.mark.parametrize(
    ("agent", "group"), UA_GROUP_CASES_LEGACY, ids=[a for a, _ in UA_GROUP_CASES_LEGACY]
)
def test_legacy_user_agent_substring_first_record(agent: str, group: int) -> None:
    rules = parse_robotstxt(UA_GROUPS_BODY, "legacy")
    for number in (1, 2, 3):
        assert rules.allowed(url(f"/group{number}"), agent) is (number != group), number


# SELFHTML "Reihenfolge der User-Agents": records *, google, google-news.
SELFHTML_UA_ORDER = (
    "User-Agent: *\nDisallow: /a1\n\nUser-Agent: google\nDisallow: /a2\n\n"
    "User-Agent: google-news\nDisallow: /a3\n"
)
SELFHTML_UA_CASES: list[tuple[str, str, int]] = [
    # google: exact tokens only (SPEC §1), so "google" is not "googlebot".
    ("google", "googlebot", 1),
    ("google", "google-news-europe", 1),
    ("google", "MyGoogle", 1),
    ("google", "Google", 2),
    ("google", "google-news", 3),
    # legacy: first record whose name is a substring (SPEC §2). SELFHTML's own answer for
    # google-news-europe (3) is the 2008 "most specific" extension, not the legacy rule.
    ("legacy", "googlebot", 2),
    ("legacy", "google-news-europe", 2),
    ("legacy", "MyGoogle", 2),
    ("legacy", "Otherbot", 1),
]


@pytest.mark.parametrize(
    ("profile", "agent", "record"),
    SELFHTML_UA_CASES,
    ids=[f"{p}-{a}" for p, a, _ in SELFHTML_UA_CASES],
)
def test_selfhtml_user_agent_order_example(profile: str, agent: str, record: int) -> None:
    rules = parse_robotstxt(SELFHTML_UA_ORDER, profile)
    for number in (1, 2, 3):
        assert rules.allowed(url(f"/a{number}"), agent) is (number != record), number


# (id, body, agent, path, allowed) for the google profile
GOOGLE_AGENT_CASES: list[tuple[str, str, str, str, bool]] = [
    # robots.txt side: a value is cut to its leading run of letters, "-" and "_".
    ("ua-version-suffix", "User-agent: FooBot/1.2\nDisallow: /\n", "FooBot", "/x", False),
    ("ua-version-suffix-lower", "User-agent: FooBot/1.2\nDisallow: /\n", "foobot", "/x", False),
    ("ua-star-suffix", "User-agent: FooBot*\nDisallow: /\n", "FooBot", "/x", False),
    ("ua-space-suffix", "User-agent: Foo Bar\nDisallow: /\n", "Foo", "/x", False),
    ("ua-space-suffix-other", "User-agent: Foo Bar\nDisallow: /\n", "Bar", "/x", True),
    # SPEC §1: a name with a digit is taken whole; FooBot2 is another crawler.
    ("ua-digit-is-part-of-name", "User-agent: FooBot2\nDisallow: /\n", "FooBot", "/x", True),
    ("ua-value-case", "User-agent: FOOBOT\nDisallow: /\n", "foobot", "/x", False),
    # "* foo" is the global group.
    ("star-space-foo-global", "User-agent: * foo\nDisallow: /\n", "mybot", "/x", False),
    ("star-tab-global", "User-agent: *\t\nDisallow: /\n", "mybot", "/x", False),
    # crawler side: the product token of a full User-Agent.
    (
        "crawler-full-ua",
        "User-agent: mybot\nDisallow: /\n",
        "mybot/1.0 (+https://example.com/bot)",
        "/x",
        False,
    ),
    (
        "crawler-scrapy-ua",
        "User-agent: Scrapy\nDisallow: /\n",
        "Scrapy/2.19 (+https://scrapy.org)",
        "/x",
        False,
    ),
    ("crawler-ua-space", "User-agent: Foo\nAllow: /x/\nDisallow: /\n", "Foo Bar", "/x/y", True),
    ("crawler-ua-space-2", "User-agent: Foo\nAllow: /x/\nDisallow: /\n", "Foo Bar", "/y", False),
    # A Mozilla-style UA names its crawler after "compatible;" (crawler_name), as the crawl
    # reads it; a browser's string is "Mozilla".
    (
        "crawler-mozilla-ua",
        "User-agent: Googlebot\nDisallow: /\n",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "/x",
        False,
    ),
    (
        "browser-mozilla-ua",
        "User-agent: Googlebot\nDisallow: /\n",
        "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36",
        "/x",
        True,
    ),
    # No prefix or substring matching, either way.
    (
        "no-prefix-googlebot-news",
        "User-agent: googlebot\nDisallow: /\n",
        "googlebot-news",
        "/x",
        True,
    ),
    ("no-prefix-googlebot", "User-agent: googlebot-news\nDisallow: /\n", "googlebot", "/x", True),
    ("no-substring-bot", "User-agent: bot\nDisallow: /\n", "Googlebot", "/x", True),
    ("no-prefix-google", "User-agent: google\nDisallow: /\n", "Googlebot", "/x", True),
    ("no-prefix-foo", "User-agent: FooBot\nDisallow: /\n", "Foo", "/x", True),
    ("no-extension-foobotx", "User-agent: FooBot\nDisallow: /\n", "FooBotX", "/x", True),
    # A specific group, even without rules, beats the * group (003 group "h").
    (
        "specific-empty-group-beats-star",
        "User-agent: *\nDisallow: /\n\nUser-agent: FooBot\n",
        "FooBot",
        "/x",
        True,
    ),
    (
        "star-when-no-specific",
        "User-agent: *\nDisallow: /\n\nUser-agent: FooBot\n",
        "mybot",
        "/x",
        False,
    ),
    # No matching group and no * group: everything allowed.
    ("no-group-at-all", "User-agent: FooBot\nDisallow: /\n", "BarBot", "/x", True),
    ("empty-file", "", "FooBot", "/x", True),
    # robots_test.cc ID_GlobalGroups_Secondary
    (
        "global-then-specific",
        "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n",
        "FooBot",
        "/x/y",
        False,
    ),
    (
        "global-then-specific-other",
        "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n",
        "BarBot",
        "/x/y",
        True,
    ),
    (
        "only-specific-groups",
        "user-agent: FooBot\nallow: /\n"
        "user-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n",
        "QuxBot",
        "/x/y",
        True,
    ),
    # Specific and * groups are never combined.
    (
        "specific-not-combined-with-star",
        "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
        "FooBot",
        "/x/page",
        True,
    ),
    (
        "specific-own-rule",
        "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
        "FooBot",
        "/y/page",
        False,
    ),
]


@pytest.mark.parametrize(
    ("body", "agent", "path", "expected"),
    [case[1:] for case in GOOGLE_AGENT_CASES],
    ids=[case[0] for case in GOOGLE_AGENT_CASES],
)
@pytest.mark.parametrize("profile", ["google", "rfc9309"])
def test_google_user_agent_matching(
    profile: str, body: str, agent: str, path: str, expected: bool
) -> None:
    assert is_allowed(body, path, agent, profile=profile) is expected


LEGACY_AGENT_CASES: list[tuple[str, str, str, str, bool]] = [
    ("substring-bot", "User-agent: bot\nDisallow: /\n", "Googlebot", "/x", False),
    ("substring-case-insensitive", "User-agent: GOOGLE\nDisallow: /\n", "googlebot", "/x", False),
    ("not-superstring", "User-agent: googlebot-news\nDisallow: /\n", "googlebot", "/x", True),
    (
        "first-record-wins-1",
        "User-agent: foo\nDisallow: /a\n\nUser-agent: foobot\nDisallow: /b\n",
        "FooBot",
        "/a",
        False,
    ),
    (
        "first-record-wins-2",
        "User-agent: foo\nDisallow: /a\n\nUser-agent: foobot\nDisallow: /b\n",
        "FooBot",
        "/b",
        True,
    ),
    (
        "star-only-if-none-1",
        "User-agent: *\nDisallow: /a\n\nUser-agent: foobot\nDisallow: /b\n",
        "FooBot",
        "/a",
        True,
    ),
    (
        "star-only-if-none-2",
        "User-agent: *\nDisallow: /a\n\nUser-agent: foobot\nDisallow: /b\n",
        "FooBot",
        "/b",
        False,
    ),
    (
        "star-only-if-none-3",
        "User-agent: *\nDisallow: /a\n\nUser-agent: foobot\nDisallow: /b\n",
        "BarBot",
        "/a",
        False,
    ),
    (
        "first-star-record-only",
        "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n",
        "mybot",
        "/b",
        True,
    ),
    (
        "first-star-record-only-2",
        "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n",
        "mybot",
        "/a",
        False,
    ),
    ("no-record", "User-agent: foobot\nDisallow: /\n", "BarBot", "/x", True),
]


@pytest.mark.parametrize(
    ("body", "agent", "path", "expected"),
    [case[1:] for case in LEGACY_AGENT_CASES],
    ids=[case[0] for case in LEGACY_AGENT_CASES],
)
def test_legacy_user_agent_records(body: str, agent: str, path: str, expected: bool) -> None:
    assert is_allowed(body, path, agent, profile="legacy") is expected


MERGE_EDGE_BODY = (
    "User-agent: a\nUser-agent: b\nDisallow: /x\n\n"
    "User-agent: B/2.0\nDisallow: /y\n\n"
    "User-agent: *\nUser-agent: FooBot\nDisallow: /s\n\n"
    "User-agent: *\nDisallow: /t\n"
)
MERGE_EDGE_CASES: list[tuple[str, str, bool]] = [
    # "b" is named in two groups ("b" and "B/2.0" are one token): merged.
    ("b", "/x", False),
    ("b", "/y", False),
    ("a", "/x", False),
    ("a", "/y", True),
    # a group naming both * and FooBot: FooBot's specific group, never combined with
    # the other * group; everyone else gets both * groups, merged.
    ("FooBot", "/s", False),
    ("FooBot", "/t", True),
    ("mybot", "/s", False),
    ("mybot", "/t", False),
]


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
@pytest.mark.parametrize(
    ("agent", "path", "expected"),
    MERGE_EDGE_CASES,
    ids=[f"{a}{u}" for a, u, _ in MERGE_EDGE_CASES],
)
def test_google_groups_naming_the_same_agent_are_merged(
    profile: str, agent: str, path: str, expected: bool
) -> None:
    assert is_allowed(MERGE_EDGE_BODY, path, agent, profile=profile) is expected


def test_google_star_groups_are_merged_legacy_takes_first() -> None:
    body = "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n"
    assert is_allowed(body, "/b") is False
    assert is_allowed(body, "/b", profile="legacy") is True


# 003 "Gruppierung von Regeln": groups for the same agent are merged.
MERGE_BODY = (
    "user-agent: googlebot-news\ndisallow: /fish\n\n"
    "user-agent: *\ndisallow: /carrots\n\n"
    "user-agent: googlebot-news\ndisallow: /shrimp\n"
)
MERGE_CASES: list[tuple[str, str, str, bool]] = [
    ("google", "googlebot-news", "/fish", False),
    ("google", "googlebot-news", "/shrimp", False),
    ("google", "googlebot-news", "/carrots", True),
    ("google", "otherbot", "/carrots", False),
    ("google", "otherbot", "/fish", True),
    ("google", "otherbot", "/shrimp", True),
    ("rfc9309", "googlebot-news", "/shrimp", False),
    ("legacy", "googlebot-news", "/fish", False),
    ("legacy", "googlebot-news", "/shrimp", True),  # no merging: first record only
    ("legacy", "googlebot-news", "/carrots", True),
]


@pytest.mark.parametrize(
    ("profile", "agent", "path", "expected"),
    MERGE_CASES,
    ids=[f"{p}-{a}-{u}" for p, a, u, _ in MERGE_CASES],
)
def test_google_group_merging_seed_example(
    profile: str, agent: str, path: str, expected: bool
) -> None:
    assert is_allowed(MERGE_BODY, path, agent, profile=profile) is expected


# 003: a sitemap line between two user-agent lines does not end the group.
SITEMAP_BETWEEN = (
    "user-agent: a\nsitemap: https://example.com/sitemap.xml\n\nuser-agent: b\ndisallow: /\n"
)
SITEMAP_BETWEEN_CASES: list[tuple[str, str, bool]] = [
    ("google", "a", False),
    ("google", "b", False),
    ("google", "c", True),
    ("rfc9309", "a", False),
    ("rfc9309", "b", False),
    # legacy: the blank line ends record "a", which then has no rules.
    ("legacy", "a", True),
    ("legacy", "b", False),
]


@pytest.mark.parametrize(
    ("profile", "agent", "expected"),
    SITEMAP_BETWEEN_CASES,
    ids=[f"{p}-{a}" for p, a, _ in SITEMAP_BETWEEN_CASES],
)
def test_google_sitemap_between_agents_is_one_group(
    profile: str, agent: str, expected: bool
) -> None:
    rules = parse_robotstxt(SITEMAP_BETWEEN, profile)
    assert rules.allowed(url("/page"), agent) is expected
    assert rules.sitemaps == ("https://example.com/sitemap.xml",)


# 003/004 grouping example: groups a, b, e+f, h (h has no rules).
ABEFH_BODY = (
    "user-agent: a\ndisallow: /c\n\n"
    "user-agent: b\ndisallow: /d\n\n"
    "user-agent: e\nuser-agent: f\ndisallow: /g\n\n"
    "user-agent: h\n"
)
ABEFH_CASES: list[tuple[str, str, bool]] = [
    ("a", "/c", False),
    ("a", "/d", True),
    ("a", "/g", True),
    ("b", "/d", False),
    ("b", "/c", True),
    ("e", "/g", False),
    ("f", "/g", False),
    ("e", "/c", True),
    ("f", "/d", True),
    ("h", "/c", True),
    ("h", "/d", True),
    ("h", "/g", True),
    ("z", "/c", True),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("agent", "path", "expected"), ABEFH_CASES, ids=[f"{a}{u}" for a, u, _ in ABEFH_CASES]
)
def test_google_grouping_example_a_b_ef_h(
    profile: str, agent: str, path: str, expected: bool
) -> None:
    assert is_allowed(ABEFH_BODY, path, agent, profile=profile) is expected


# 003 opening example.
INTRO_BODY = (
    "# This robots.txt file controls crawling of URLs under https://example.com.\n"
    '# All crawlers are disallowed to crawl files in the "includes" directory, such\n'
    "# as .css, .js, but Google needs them for rendering, so Googlebot is allowed\n"
    "# to crawl them.\n"
    "User-agent: *\n"
    "Disallow: /includes/\n"
    "\n"
    "User-agent: Googlebot\n"
    "Allow: /includes/\n"
    "\n"
    "Sitemap: https://example.com/sitemap.xml\n"
)


@pytest.mark.parametrize("profile", PROFILES)
def test_google_intro_example_includes(profile: str) -> None:
    rules = parse_robotstxt(INTRO_BODY, profile)
    assert rules.allowed(url("/includes/app.js"), "Googlebot") is True
    assert rules.allowed(url("/includes/app.js"), "mybot") is False
    assert rules.allowed(url("/index.html"), "mybot") is True
    assert rules.sitemaps == ("https://example.com/sitemap.xml",)


# robots_test.cc ID_LineSyntax_Groups
GTEST_GROUPS_BODY = (
    "allow: /foo/bar/\n"
    "\n"
    "user-agent: FooBot\n"
    "disallow: /\n"
    "allow: /x/\n"
    "user-agent: BarBot\n"
    "disallow: /\n"
    "allow: /y/\n"
    "\n"
    "\n"
    "allow: /w/\n"
    "user-agent: BazBot\n"
    "\n"
    "user-agent: FooBot\n"
    "allow: /z/\n"
    "disallow: /\n"
)
GTEST_GROUPS_CASES: list[tuple[str, str, bool]] = [
    ("FooBot", "/x/b", True),
    ("FooBot", "/z/d", True),
    ("FooBot", "/y/c", False),
    ("BarBot", "/y/c", True),
    ("BarBot", "/w/a", True),
    ("BarBot", "/z/d", False),
    ("BazBot", "/z/d", True),
    ("FooBot", "/foo/bar/", False),
    ("BarBot", "/foo/bar/", False),
    ("BazBot", "/foo/bar/", False),
]


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
@pytest.mark.parametrize(
    ("agent", "path", "expected"),
    GTEST_GROUPS_CASES,
    ids=[f"{a}{u}" for a, u, _ in GTEST_GROUPS_CASES],
)
def test_google_groups_blank_lines_do_not_end_group(
    profile: str, agent: str, path: str, expected: bool
) -> None:
    assert is_allowed(GTEST_GROUPS_BODY, path, agent, profile=profile) is expected


# robots_test.cc ID_LineSyntax_Groups_OtherRules: unknown keys and sitemaps between
# user-agent lines keep them in one group.
@pytest.mark.parametrize("agent", ["FooBot", "BarBot"])
@pytest.mark.parametrize(
    "between",
    [
        "Sitemap: https://foo.bar/sitemap",
        "Invalid-Unknown-Line: unknown",
        "# a comment",
        "",
        "Crawl-delay: 5",
    ],
    ids=["sitemap", "unknown-key", "comment", "blank", "crawl-delay"],
)
def test_google_non_rule_lines_do_not_end_group(between: str, agent: str) -> None:
    body = f"User-agent: FooBot\n{between}\nUser-agent: BarBot\nDisallow: /\n"
    assert is_allowed(body, "/x", agent) is False


def test_legacy_blank_line_ends_record() -> None:
    body = "User-agent: FooBot\n\nUser-agent: BarBot\nDisallow: /\n"
    assert is_allowed(body, "/x", "FooBot", profile="legacy") is True
    assert is_allowed(body, "/x", "BarBot", profile="legacy") is False
    assert is_allowed(body, "/x", "FooBot") is False


# ---------------------------------------------------------------------------------------
# Line syntax: keys, colons, comments, whitespace, line endings, BOM, misspellings
# ---------------------------------------------------------------------------------------

CASE_INSENSITIVE_KEY_BODIES = [
    "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
    "user-agent: FooBot\nallow: /x/\ndisallow: /\n",
    "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("body", CASE_INSENSITIVE_KEY_BODIES, ids=["upper", "lower", "mixed"])
def test_all_profiles_keys_are_case_insensitive(profile: str, body: str) -> None:
    assert is_allowed(body, "/x/y", "FooBot", profile=profile) is True
    assert is_allowed(body, "/a/b", "FooBot", profile=profile) is False


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
@pytest.mark.parametrize("value", ["FOO BAR", "foo bar", "FoO bAr"])
def test_google_user_agent_value_is_case_insensitive(profile: str, value: str) -> None:
    body = f"User-Agent: {value}\nAllow: /x/\nDisallow: /\n"
    assert is_allowed(body, "/x/y", "Foo", profile=profile) is True
    assert is_allowed(body, "/a/b", "Foo", profile=profile) is False


@pytest.mark.parametrize("profile", PROFILES)
def test_all_profiles_whitespace_around_key_and_value_ignored(profile: str) -> None:
    body = "   User-agent   :   FooBot   \n  Allow:/x/ok\t\n\t Disallow :\t/x  \n"
    assert is_allowed(body, "/x", "FooBot", profile=profile) is False
    assert is_allowed(body, "/x/ok", "FooBot", profile=profile) is True
    assert is_allowed(body, "/y", "FooBot", profile=profile) is True


@pytest.mark.parametrize("profile", PROFILES)
def test_all_profiles_comments(profile: str) -> None:
    # robots_test.cc ID_SpecialCharacters: "#" starts a comment anywhere on a line.
    body = (
        "# Disallow: /\n"
        "User-agent: FooBot # our bot\n"
        "Disallow: /foo/quz#qux\n"
        "Disallow: /x # secret\n"
        "Allow: /\n"
    )
    assert is_allowed(body, "/foo/bar", "FooBot", profile=profile) is True
    assert is_allowed(body, "/foo/quz", "FooBot", profile=profile) is False
    assert is_allowed(body, "/x", "FooBot", profile=profile) is False
    assert is_allowed(body, "/y", "FooBot", profile=profile) is True


# SPEC §1: "user-agent FooBot" (whitespace instead of colon) is accepted by google only.
MISSING_COLON_BODIES = [
    "user-agent FooBot\ndisallow /\n",
    "User-agent\tFooBot\nDisallow\t/\n",
    "User-agent: FooBot\nDisallow /\n",
]


@pytest.mark.parametrize("body", MISSING_COLON_BODIES, ids=["space", "tab", "rule-only"])
def test_google_accepts_missing_colon(body: str) -> None:
    assert is_allowed(body, "/x/y", "FooBot") is False


@pytest.mark.parametrize("profile", ["rfc9309", "legacy"])
@pytest.mark.parametrize("body", MISSING_COLON_BODIES, ids=["space", "tab", "rule-only"])
def test_rfc9309_legacy_reject_missing_colon(profile: str, body: str) -> None:
    assert is_allowed(body, "/x/y", "FooBot", profile=profile) is True


USER_AGENT_MISSPELLINGS = ["useragent", "user agent", "Useragent", "USER AGENT"]
DISALLOW_MISSPELLINGS = [
    "dissallow",
    "dissalow",
    "disalow",
    "diasllow",
    "disallaw",
    "Disalow",
    "DISSALLOW",
]


@pytest.mark.parametrize("key", USER_AGENT_MISSPELLINGS)
def test_google_accepts_user_agent_misspellings(key: str) -> None:
    body = f"{key}: FooBot\nDisallow: /\n"
    assert is_allowed(body, "/x", "FooBot") is False
    assert is_allowed(body, "/x", "BarBot") is True


@pytest.mark.parametrize("key", DISALLOW_MISSPELLINGS)
def test_google_accepts_disallow_misspellings(key: str) -> None:
    body = f"User-agent: FooBot\n{key}: /private\n"
    assert is_allowed(body, "/private/x", "FooBot") is False
    assert is_allowed(body, "/public", "FooBot") is True


@pytest.mark.parametrize("profile", ["rfc9309", "legacy"])
@pytest.mark.parametrize("key", USER_AGENT_MISSPELLINGS)
def test_rfc9309_legacy_reject_user_agent_misspellings(profile: str, key: str) -> None:
    assert is_allowed(f"{key}: FooBot\nDisallow: /\n", "/x", "FooBot", profile=profile) is True


@pytest.mark.parametrize("profile", ["rfc9309", "legacy"])
@pytest.mark.parametrize("key", DISALLOW_MISSPELLINGS)
def test_rfc9309_legacy_reject_disallow_misspellings(profile: str, key: str) -> None:
    body = f"User-agent: FooBot\n{key}: /private\n"
    assert is_allowed(body, "/private/x", "FooBot", profile=profile) is True


@pytest.mark.parametrize("key", ["site-map", "Site-map", "SITE-MAP"])
def test_google_accepts_site_map_misspelling(key: str) -> None:
    body = f"{key}: https://example.com/s.xml\nUser-agent: *\nDisallow: /x\n"
    assert parse_robotstxt(body).sitemaps == ("https://example.com/s.xml",)
    assert parse_robotstxt(body, "rfc9309").sitemaps == ()
    assert parse_robotstxt(body, "legacy").sitemaps == ()


def test_google_unknown_keys_are_not_rules() -> None:
    # robots_test.cc ID_LineSyntax_Line: "foo: FooBot / bar: /" means nothing.
    assert is_allowed("foo: FooBot\nbar: /\n", "/x/y", "FooBot") is True


LINE_ENDINGS = {"LF": "\n", "CR": "\r", "CRLF": "\r\n"}
LINE_ENDING_LINES = [
    "User-agent: FooBot",  # 1
    "Disallow: /a",  # 2
    "Allow: /a/b",  # 3
    "",  # 4
    "User-agent: *",  # 5
    "Disallow: /",  # 6
]


def _decision(
    allowed: bool, line: int | None, rule: str | None, pattern: str | None
) -> tuple[Any, ...]:
    return (allowed, line, rule, pattern)


def _summary(decision: Decision) -> tuple[Any, ...]:
    return (decision.allowed, decision.line, decision.rule, decision.pattern)


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
@pytest.mark.parametrize("ending", list(LINE_ENDINGS), ids=list(LINE_ENDINGS))
@pytest.mark.parametrize("trailing", [True, False], ids=["trailing-eol", "no-trailing-eol"])
def test_spec1_line_endings_lf_cr_crlf(profile: str, ending: str, trailing: bool) -> None:
    sep = LINE_ENDINGS[ending]
    body = sep.join(LINE_ENDING_LINES) + (sep if trailing else "")
    rules = parse_robotstxt(body.encode(), profile)
    assert _summary(rules.decide(url("/a/x"), "FooBot")) == _decision(False, 2, "disallow", "/a")
    assert _summary(rules.decide(url("/a/b/c"), "FooBot")) == _decision(True, 3, "allow", "/a/b")
    assert rules.allowed(url("/z"), "FooBot") is True
    assert _summary(rules.decide(url("/z"), "mybot")) == _decision(False, 6, "disallow", "/")


def test_google_mixed_line_endings_count_lines() -> None:
    # CRLF, CR, LF, CRLF (blank line), CR: still six lines.
    body = b"User-agent: FooBot\r\nDisallow: /a\rAllow: /a/b\n\r\nUser-agent: *\rDisallow: /"
    rules = parse_robotstxt(body)
    assert _summary(rules.decide(url("/a/x"), "FooBot")) == _decision(False, 2, "disallow", "/a")
    assert _summary(rules.decide(url("/a/b"), "FooBot")) == _decision(True, 3, "allow", "/a/b")
    assert _summary(rules.decide(url("/z"), "mybot")) == _decision(False, 6, "disallow", "/")


def test_google_lf_cr_is_two_line_ends() -> None:
    rules = parse_robotstxt(b"User-agent: *\n\rDisallow: /x\r\n")
    assert _summary(rules.decide(url("/x"), "mybot")) == _decision(False, 3, "disallow", "/x")


def test_legacy_cr_only_blank_line_ends_record() -> None:
    body = b"User-agent: FooBot\r\rDisallow: /\r"
    assert is_allowed(body, "/x", "FooBot", profile="legacy") is True
    assert is_allowed(body, "/x", "FooBot") is False


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    "body",
    [
        b"\xef\xbb\xbfUser-agent: *\nDisallow: /private\n",
        b"\xef\xbb\xbfUser-agent: *\rDisallow: /private\r",
        "\ufeffUser-agent: *\nDisallow: /private\n",
    ],
    ids=["bytes-lf", "bytes-cr", "str"],
)
def test_all_profiles_leading_bom_is_skipped(profile: str, body: str | bytes) -> None:
    rules = parse_robotstxt(body, profile)
    assert rules.allowed(url("/private/x"), "mybot") is False
    assert rules.allowed(url("/public"), "mybot") is True
    assert rules.decide(url("/private/x"), "mybot").line == 2


@pytest.mark.parametrize("profile", PROFILES)
def test_all_profiles_str_and_bytes_bodies_agree(profile: str) -> None:
    text = "User-agent: *\nDisallow: /ツ\nAllow: /ツ/ok\n"
    for body in (text, text.encode("utf-8")):
        rules = parse_robotstxt(body, profile)
        encoded = "/%E3%83%84"
        assert rules.allowed(url(encoded + "/x"), "mybot") is False
        # legacy: the first matching line decides, the Disallow.
        assert rules.allowed(url(encoded + "/ok"), "mybot") is (profile != "legacy")


# ---------------------------------------------------------------------------------------
# Empty rules, rules before any group, HTML bodies
# ---------------------------------------------------------------------------------------

EMPTY_RULE_CASES: list[tuple[str, str, str, str, bool]] = [
    ("disallow-empty", "User-agent: *\nDisallow:\n", "mybot", "/x", True),
    ("disallow-empty-comment", "User-agent: *\nDisallow:   # nothing\n", "mybot", "/x", True),
    ("allow-empty-after", "User-agent: *\nDisallow: /\nAllow:\n", "mybot", "/x", False),
    ("allow-empty-before", "User-agent: *\nAllow:\nDisallow: /\n", "mybot", "/x", False),
    # SELFHTML / WP: "User-agent: mein-Robot / Disallow:" exempts mein-Robot from the
    # "Disallow: /" of the * record.
    (
        "selfhtml-mein-robot",
        "User-agent: mein-Robot\nDisallow:\n\nUser-agent: *\nDisallow: /\n",
        "mein-Robot",
        "/x",
        True,
    ),
    (
        "selfhtml-mein-robot-other",
        "User-agent: mein-Robot\nDisallow:\n\nUser-agent: *\nDisallow: /\n",
        "mybot",
        "/x",
        False,
    ),
    # Rules before the first user-agent line are ignored.
    (
        "rules-before-group",
        "Disallow: /\nAllow: /x\n\nUser-agent: *\nDisallow: /y\n",
        "mybot",
        "/z",
        True,
    ),
    (
        "rules-before-group-2",
        "Disallow: /\nAllow: /x\n\nUser-agent: *\nDisallow: /y\n",
        "mybot",
        "/y",
        False,
    ),
    ("rules-without-group", "Disallow: /\n", "mybot", "/x", True),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("body", "agent", "path", "expected"),
    [case[1:] for case in EMPTY_RULE_CASES],
    ids=[case[0] for case in EMPTY_RULE_CASES],
)
def test_all_profiles_empty_rules_and_rules_before_group(
    profile: str, body: str, agent: str, path: str, expected: bool
) -> None:
    assert is_allowed(body, path, agent, profile=profile) is expected


def test_google_html_body_valid_lines_still_count() -> None:
    # 003/004: for an HTML body, Google uses the valid lines and ignores the rest.
    body = b"<html>\n<body>\nUser-agent: *\nDisallow: /secret\n</body>\n</html>\n"
    assert is_allowed(body, "/secret/x") is False
    assert is_allowed(body, "/public") is True


# ---------------------------------------------------------------------------------------
# Percent-encoding (SPEC §1 and §2)
# ---------------------------------------------------------------------------------------

PERCENT_GOOGLE: list[tuple[str, str, str, bool]] = [
    ("url-2F-is-not-slash", "/a/b", "/a%2Fb", False),
    ("pattern-2F-is-not-slash", "/a%2Fb", "/a/b", False),
    ("pattern-2f-hex-uppercased", "/a%2fb", "/a%2Fb", True),
    ("url-7E-is-not-tilde", "/~joe", "/%7Ejoe", False),
    ("pattern-7E-is-not-tilde", "/%7Ejoe", "/~joe", False),
    ("pattern-aa-uppercased", "/%aa", "/%AA", True),
    # SPEC §1 (RFC 3986 §2.1): the URL's escapes get uppercase hex too.
    ("url-3c-vs-rule-3C", "/%3C", "/%3c", True),
    ("url-3c-vs-rule-3c", "/%3c", "/%3c", True),
    ("url-3C-vs-rule-3c", "/%3c", "/%3C", True),
    ("raw-utf8-pattern", "/ツ", "/%E3%83%84", True),
    ("raw-utf8-pattern-prefix", "/foo/bar/ツ", "/foo/bar/%E3%83%84/x", True),
    ("encoded-pattern", "/%E3%83%84", "/%E3%83%84", True),
    ("lowercase-encoded-pattern", "/%e3%83%84", "/%E3%83%84", True),
    ("raw-latin-pattern", "/café", "/caf%C3%A9", True),
    ("raw-utf8-with-wildcard", "/*é$", "/x/caf%C3%A9", True),
    ("space-stays", "/a b", "/a b", True),
    ("space-not-encoded", "/a b", "/a%20b", False),
    ("no-decode-unreserved-pattern", "/foo/bar/%62%61%7A", "/foo/bar/baz", False),
    ("no-decode-unreserved-url", "/foo/bar/baz", "/foo/bar/%62%61%7A", False),
    ("same-escapes", "/foo/bar/%62%61%7A", "/foo/bar/%62%61%7A", True),
    ("percent-not-escape", "/100%", "/100%", True),
    ("percent-not-hex", "/a%zz", "/a%zz", True),
    (
        "query-chars",
        "/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
        "/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
        True,
    ),
]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [case[1:] for case in PERCENT_GOOGLE],
    ids=[case[0] for case in PERCENT_GOOGLE],
)
def test_google_percent_encoding(pattern: str, path: str, matches: bool) -> None:
    assert is_allowed(f"User-agent: *\nDisallow: {pattern}\n", path) is not matches


def test_google_percent_encoding_robots_test_cc() -> None:
    # robots_test.cc ID_Encoding, the cases SPEC §1 agrees with.
    body = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n"
    assert is_allowed(body, "/foo/bar/%E3%83%84", "FooBot") is True
    body = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n"
    assert is_allowed(body, "/foo/bar/%E3%83%84", "FooBot") is True
    body = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n"
    assert is_allowed(body, "/foo/bar/baz", "FooBot") is False
    assert is_allowed(body, "/foo/bar/%62%61%7A", "FooBot") is True


PERCENT_RFC9309: list[tuple[str, str, str, bool]] = [
    # RFC 9309 §2.2.2 table: "/foo/bar/%62%61%7A" matches "/foo/bar/baz".
    ("decode-unreserved-pattern", "/foo/bar/%62%61%7A", "/foo/bar/baz", True),
    ("decode-unreserved-url", "/foo/bar/baz", "/foo/bar/%62%61%7A", True),
    ("decode-unreserved-tilde", "/%7Ejoe", "/~joe", True),
    ("decode-unreserved-tilde-url", "/~joe", "/%7Ejoe", True),
    ("reserved-slash-stays", "/a%2Fb", "/a/b", False),
    ("reserved-slash-stays-url", "/a/b", "/a%2Fb", False),
    ("raw-utf8-pattern", "/foo/bar/ツ", "/foo/bar/%E3%83%84", True),
    ("encoded-pattern", "/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84", True),
    ("plain", "/foo/bar?baz=quz", "/foo/bar?baz=quz", True),
]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [case[1:] for case in PERCENT_RFC9309],
    ids=[case[0] for case in PERCENT_RFC9309],
)
def test_rfc9309_percent_encoding(pattern: str, path: str, matches: bool) -> None:
    body = f"User-agent: *\nDisallow: {pattern}\n"
    assert is_allowed(body, path, profile="rfc9309") is not matches


#: The 1996 draft §3.2.2 compares octets, escapes decoded but for "/" (its own table is
#: in tests/robotstxt/test_robotstxt_standard_examples.py).
PERCENT_LEGACY: list[tuple[str, str, str, bool]] = [
    ("as-given", "/%aa", "/%aa", True),
    # SPEC §1: escapes of both sides get uppercase hex in every profile.
    ("hex-case-insensitive", "/%aa", "/%AA", True),
    ("hex-case-insensitive-url", "/%AA", "/%aa", True),
    ("raw-utf8-is-its-octets", "/ツ", "/%E3%83%84", True),
    ("encoded-utf8-lowercase", "/%e3%83%84", "/%E3%83%84", True),
    ("decode-unreserved", "/foo/bar/%62%61%7A", "/foo/bar/baz", True),
    ("decode-reserved-question-mark", "/a%3Fb", "/a?b", True),
    ("decode-url-side", "/a?b", "/a%3fb", True),
    ("slash-stays", "/a%2Fb", "/a/b", False),
    ("slash-stays-url", "/a/b", "/a%2fb", False),
    ("star-is-plain", "/a*", "/a%2Ab", True),
    ("star-is-plain-url", "/a%2a", "/a*b", True),
    ("star-no-wildcard", "/a*c", "/abc", False),
    ("dollar-is-plain", "/a$", "/a$b", True),
    ("dollar-is-plain-url", "/a%24", "/a$", True),
    # "%25" stays an escape, so that decoding makes no new one.
    ("percent-escape-stays", "/a%2541", "/a%2541", True),
    ("percent-escape-not-the-octet-it-spells", "/a%2541", "/aA", False),
]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [case[1:] for case in PERCENT_LEGACY],
    ids=[case[0] for case in PERCENT_LEGACY],
)
def test_legacy_percent_encoding_compares_octets(pattern: str, path: str, matches: bool) -> None:
    body = f"User-agent: *\nDisallow: {pattern}\n"
    assert is_allowed(body, path, profile="legacy") is not matches


# ---------------------------------------------------------------------------------------
# The URL: path, parameters and query are matched; the fragment is not (SPEC §1)
# ---------------------------------------------------------------------------------------

URL_FORMS: list[tuple[str, str, str, bool]] = [
    ("empty-path-is-root", "/$", "https://example.com", False),
    ("empty-path-with-query", "/?x=", "https://example.com?x=1", False),
    ("root-fragment", "/$", "https://example.com/#top", False),
    ("fragment-ignored", "/a$", "https://example.com/a#frag", False),
    ("fragment-ignored-query", "/a?b$", "https://example.com/a?b#frag", False),
    ("fragment-not-matched", "/*.php", "https://example.com/page#section.php", True),
    ("path-only-url", "/a?b$", "/a?b", False),
    ("params-matched", "/a;p=1?q$", "https://example.com/a;p=1?q", False),
    ("params-are-part-of-path", "/a$", "https://example.com/a;p", True),
    ("params-prefix", "/a;p", "https://example.com/a;p=1", False),
    ("query-matched", "/search?q=", "https://example.com/search?q=cats", False),
    ("query-needed", "/search?q=", "https://example.com/search", True),
    (
        "query-with-url",
        "/a?next=http://other/b$",
        "https://example.com/a?next=http://other/b",
        False,
    ),
    ("port", "/a$", "https://example.com:8080/a", False),
    ("userinfo", "/a$", "https://user:pw@example.com/a", False),
    ("http-scheme", "/a$", "http://example.com/a", False),
]


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
@pytest.mark.parametrize(
    ("pattern", "target", "expected"),
    [case[1:] for case in URL_FORMS],
    ids=[case[0] for case in URL_FORMS],
)
def test_google_url_path_params_query_not_fragment(
    profile: str, pattern: str, target: str, expected: bool
) -> None:
    rules = parse_robotstxt(f"User-agent: *\nDisallow: {pattern}\n", profile)
    assert rules.allowed(target, "mybot") is expected


@pytest.mark.parametrize("profile", PROFILES)
def test_all_profiles_absolute_url_and_path_agree(profile: str) -> None:
    rules = parse_robotstxt("User-agent: *\nDisallow: /private\nAllow: /private/ok\n", profile)
    for path in ("/private", "/private/x", "/private/ok", "/public?x=1", "/"):
        assert rules.allowed(url(path), "mybot") == rules.allowed(path, "mybot"), path


# ---------------------------------------------------------------------------------------
# Google-only: index.html is the directory; long lines. RFC 9309: /robots.txt allowed.
# ---------------------------------------------------------------------------------------

INDEX_BODY = "User-Agent: *\nAllow: /allowed-slash/index.html\nAllow: /b/index.htm\nDisallow: /\n"
INDEX_CASES: list[tuple[str, bool, bool]] = [
    # (path, allowed in google, allowed in rfc9309/legacy); robots_test.cc IndexHTMLisDirectory
    ("/allowed-slash/", True, False),
    ("/allowed-slash/index.html", True, True),
    ("/allowed-slash/index.htm", False, False),
    ("/allowed-slash/other", False, False),
    ("/allowed-slash/?q=1", False, False),  # only the directory URL itself
    ("/anyother-url", False, False),
    ("/b/", True, False),
    ("/b/index.htm", True, True),
]


@pytest.mark.parametrize(("path", "google", "others"), INDEX_CASES, ids=[c[0] for c in INDEX_CASES])
@pytest.mark.parametrize("profile", PROFILES)
def test_google_index_html_is_directory(
    profile: str, path: str, google: bool, others: bool
) -> None:
    expected = google if profile == "google" else others
    assert is_allowed(INDEX_BODY, path, profile=profile) is expected


def test_google_index_html_at_root() -> None:
    body = "User-agent: *\nDisallow: /\nAllow: /index.html\n"
    assert is_allowed(body, "/") is True
    assert is_allowed(body, "/", profile="rfc9309") is False


def test_google_index_html_as_the_last_lines_each_allows_its_directory() -> None:
    """Each index rule gets its directory, the last line's too (after the first's is added)."""
    body = "User-agent: *\nDisallow: /\nAllow: /a/index.html\nAllow: /b/index.htm\n"
    assert is_allowed(body, "/a/") is True and is_allowed(body, "/b/") is True
    assert is_allowed(body, "/c/") is False


#: SPEC §1: Google keeps the first 16663 bytes of a longer line (kMaxLineLen - 1,
#: kMaxLineLen = 2083 × 8); confirmed with Google's parser (fast-robotstxt).
GOOGLE_MAX_LINE = 16663
LONG_PREFIX = "Disallow: /"  # 11 bytes
#: A rule line of 16665 bytes: "/" + a × 16651 + "b" + "c" + "d"; Google keeps 16663.
LONG_AS = "a" * (GOOGLE_MAX_LINE - len(LONG_PREFIX) - 1)
LONG_BODY = f"User-agent: *\n{LONG_PREFIX}{LONG_AS}bcd\nDisallow: /next\n"


@pytest.mark.parametrize(
    ("path", "google", "rfc9309"),
    [
        (f"/{LONG_AS}bX", False, True),  # cut after "b": the pattern ends with "b"
        (f"/{LONG_AS}X", True, True),  # the 16663rd byte ("b") is kept
        (f"/{LONG_AS}bcX", False, True),  # the 16664th byte ("c") is cut
        (f"/{LONG_AS}bcd", False, False),
        ("/next", False, False),  # the line after the long one is read normally
        ("/x", True, True),
    ],
    ids=[
        "cut-after-16663",
        "byte-16663-kept",
        "byte-16664-cut",
        "full-pattern",
        "next-line",
        "unrelated",
    ],
)
def test_google_long_lines_cut_at_16663_bytes(path: str, google: bool, rfc9309: bool) -> None:
    assert len(f"{LONG_PREFIX}{LONG_AS}b") == GOOGLE_MAX_LINE
    assert is_allowed(LONG_BODY, path) is google
    assert is_allowed(LONG_BODY, path, profile="rfc9309") is rfc9309
    assert is_allowed(LONG_BODY, path, profile="legacy") is rfc9309


def test_google_long_line_rule_ending_exactly_at_the_boundary() -> None:
    """A rule line of exactly 16663 bytes is whole; one byte more and its last is lost."""
    exact = f"{LONG_PREFIX}{LONG_AS}b"
    assert len(exact) == GOOGLE_MAX_LINE
    whole = parse_robotstxt(f"User-agent: *\n{exact}\n")
    assert whole.allowed(url(f"/{LONG_AS}b"), "mybot") is False
    assert whole.decide(url(f"/{LONG_AS}b"), "mybot").line == 2
    assert whole.allowed(url(f"/{LONG_AS}X"), "mybot") is True
    # "...b$": the "$" is byte 16664, cut, so the rule is a plain prefix.
    anchored = parse_robotstxt(f"User-agent: *\n{exact}$\n")
    assert anchored.allowed(url(f"/{LONG_AS}bbb"), "mybot") is False
    unlimited = parse_robotstxt(f"User-agent: *\n{exact}$\n", "rfc9309")
    assert unlimited.allowed(url(f"/{LONG_AS}bbb"), "mybot") is True


def test_google_long_comment_line_does_not_swallow_next_line() -> None:
    body = "User-agent: *\n# " + "x" * 40_000 + "\nDisallow: /x\n"
    for profile in PROFILES:
        assert is_allowed(body, "/x", profile=profile) is False, profile


ROBOTS_TXT_CASES: list[tuple[str, bool]] = [
    ("/robots.txt", True),
    ("https://example.com/robots.txt", True),
    ("/robots.txt.bak", False),
    ("/dir/robots.txt", False),
    ("/x", False),
]
ROBOTS_TXT_BODY = "User-agent: *\nDisallow: /\nDisallow: /robots.txt\n"


@pytest.mark.parametrize(
    ("target", "rfc9309"), ROBOTS_TXT_CASES, ids=[c[0] for c in ROBOTS_TXT_CASES]
)
@pytest.mark.parametrize("profile", PROFILES)
def test_rfc9309_robots_txt_always_allowed(profile: str, target: str, rfc9309: bool) -> None:
    expected = rfc9309 if profile == "rfc9309" else False
    assert is_allowed(ROBOTS_TXT_BODY, target, profile=profile) is expected


# ---------------------------------------------------------------------------------------
# 500 KiB cap (SPEC §1: every profile)
# ---------------------------------------------------------------------------------------

CAP = 512_000


def _filler(size: int) -> str:
    """Comment lines totalling exactly ``size`` bytes (``size`` >= 2)."""
    line = "#" + "x" * 98 + "\n"
    count, rest = divmod(size, len(line))
    if 0 < rest < 2:
        count, rest = count - 1, rest + len(line)
    tail = "#" + "x" * (rest - 2) + "\n" if rest else ""
    return line * count + tail


def _capped_body(last_rule_inside: str, rule_after: str) -> bytes:
    head = "User-agent: *\nDisallow: /before\n"
    inside = f"Disallow: {last_rule_inside}\n"
    body = head + _filler(CAP - len(head) - len(inside)) + inside
    assert len(body.encode()) == CAP
    return (body + f"Disallow: {rule_after}\nDisallow: /also-after\n").encode()


@pytest.mark.parametrize("profile", PROFILES)
def test_all_profiles_only_first_500_kib_count(profile: str) -> None:
    rules = parse_robotstxt(_capped_body("/last-inside", "/after"), profile)
    assert rules.allowed(url("/before"), "mybot") is False
    assert rules.allowed(url("/last-inside"), "mybot") is False  # ends at byte 512,000
    assert rules.allowed(url("/after"), "mybot") is True  # starts at byte 512,000
    assert rules.allowed(url("/also-after"), "mybot") is True


@pytest.mark.parametrize("profile", PROFILES)
def test_all_profiles_500_kib_cap_cuts_a_line(profile: str) -> None:
    # The cap falls inside "Disallow: /straddle": only "Disallow: /str" is inside.
    head = "User-agent: *\n"
    rule = "Disallow: /straddle\n"
    inside = len("Disallow: /str")
    body = head + _filler(CAP - len(head) - inside) + rule + "Disallow: /after\n"
    assert body.encode()[:CAP].endswith(b"Disallow: /str")
    rules = parse_robotstxt(body.encode(), profile)
    assert rules.allowed(url("/strange"), "mybot") is False  # the cut pattern "/str"
    assert rules.allowed(url("/after"), "mybot") is True


# ---------------------------------------------------------------------------------------
# Crawl-delay, content signals, sitemaps (SPEC §1 "Groups")
# ---------------------------------------------------------------------------------------

CRAWL_DELAY_BODY = (
    "User-agent: a\nCrawl-delay: 5\nDisallow: /x\n\n"
    "User-agent: *\nCrawl-delay: 1.5\nDisallow: /private\n\n"
    "User-agent: b\nDisallow: /\n\n"
    "User-agent: c\nCrawl-delay: soon\nDisallow: /c\n"
)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("agent", "delay"),
    [("a", 5.0), ("A/1.0", 5.0), ("other", 1.5), ("b", None), ("c", None)],
)
def test_all_profiles_crawl_delay_per_group(profile: str, agent: str, delay: float | None) -> None:
    rules = parse_robotstxt(CRAWL_DELAY_BODY, profile)
    assert rules.crawl_delay(agent) == delay
    # crawl-delay never changes allow/deny
    assert rules.allowed(url("/y"), agent) is (agent != "b")


@pytest.mark.parametrize("profile", PROFILES)
def test_all_profiles_crawl_delay_is_float_and_belongs_to_the_agents_above(profile: str) -> None:
    """A delay is the user-agent lines' just above it; allow/disallow keep Google's
    grouping: b's Disallow is a's too (docs/behaviour.md;
    tests/robotstxt/test_robotstxt_crawl_delay.py)."""
    rules = parse_robotstxt(
        "User-agent: a\nCrawl-delay: 10\nUser-agent: b\nDisallow: /x\n", profile
    )
    delay = rules.crawl_delay("a")
    assert isinstance(delay, float)
    assert delay == 10.0
    assert rules.crawl_delay("b") is None
    assert rules.allowed(url("/x"), "b") is False
    assert rules.allowed(url("/x"), "a") is False


def test_wp_crawl_delay_example() -> None:
    for profile in PROFILES:
        assert (
            parse_robotstxt("User-agent: *\nCrawl-delay: 120\n", profile).crawl_delay("msnbot")
            == 120.0
        )


def test_crawl_delay_without_any_group_applies_to_every_crawler() -> None:
    """docs/decisions.md: a delay before the first group asks every crawler to slow down."""
    assert parse_robotstxt("Crawl-delay: 5\n").crawl_delay("mybot") == 5.0
    assert parse_robotstxt(b"").crawl_delay("mybot") is None


CONTENT_SIGNAL_BODY = (
    "User-agent: *\nContent-Signal: search=yes, ai-input=yes, ai-train=no\nAllow: /\n\n"
    "User-agent: foobot\ncontent-signal: ai-train=no\nDisallow: /private\n\n"
    "User-agent: nobot\nDisallow: /x\n\n"
    "User-agent: tightbot\nCONTENT-SIGNAL: search=no,ai-input=no,ai-train=yes\n"
)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("agent", "signals"),
    [
        ("mybot", ContentSignals(search=True, ai_input=True, ai_train=False)),
        ("foobot", ContentSignals(search=None, ai_input=None, ai_train=False)),
        ("nobot", ContentSignals(search=None, ai_input=None, ai_train=None)),
        ("tightbot", ContentSignals(search=False, ai_input=False, ai_train=True)),
    ],
)
def test_all_profiles_content_signal_per_group(
    profile: str, agent: str, signals: ContentSignals
) -> None:
    rules = parse_robotstxt(CONTENT_SIGNAL_BODY, profile)
    assert rules.content_signals(agent) == signals
    # content signals never change allow/deny
    assert rules.allowed(url("/anything"), agent) is True


def test_content_signals_do_not_change_allow_deny() -> None:
    rules = parse_robotstxt("User-agent: *\nContent-Signal: search=no, ai-train=no\n")
    assert rules.allowed(url("/"), "mybot") is True
    assert rules.content_signals("mybot") == ContentSignals(
        search=False, ai_input=None, ai_train=False
    )


SITEMAP_SEED_BODY = (
    "user-agent: otherbot\n"
    "disallow: /kale\n"
    "\n"
    "sitemap: https://example.com/sitemap.xml\n"
    "sitemap: https://cdn.example.org/other-sitemap.xml\n"
    "sitemap: https://ja.example.org/テスト-サイトマップ.xml\n"
)


@pytest.mark.parametrize("profile", PROFILES)
def test_google_sitemap_seed_example(profile: str) -> None:
    rules = parse_robotstxt(SITEMAP_SEED_BODY.encode(), profile)
    assert rules.allowed(url("/kale"), "otherbot") is False
    assert rules.allowed(url("/kale"), "mybot") is True
    assert len(rules.sitemaps) == 3
    assert rules.sitemaps[:2] == (
        "https://example.com/sitemap.xml",
        "https://cdn.example.org/other-sitemap.xml",
    )
    # the non-ASCII sitemap URL is kept, as written or percent-encoded
    assert rules.sitemaps[2] in (
        "https://ja.example.org/テスト-サイトマップ.xml",
        "https://ja.example.org/%E3%83%86%E3%82%B9%E3%83%88-%E3%82%B5%E3%82%A4%E3%83%88%E3%83%9E%E3%83%83%E3%83%97.xml",
    )


@pytest.mark.parametrize("profile", PROFILES)
def test_all_profiles_sitemaps_collected_anywhere(profile: str) -> None:
    body = (
        "Sitemap: https://example.com/1.xml\n"
        "User-agent: a\n"
        "SITEMAP: https://example.com/2.xml\n"
        "Disallow: /\n"
        "sitemap:https://example.com/3.xml # a comment\n"
        "\n"
        "User-agent: b\n"
        "Disallow: /b\n"
        "  Sitemap:   https://other.example.org/4.xml  \n"
    )
    rules = parse_robotstxt(body, profile)
    assert isinstance(rules.sitemaps, tuple)
    assert rules.sitemaps == (
        "https://example.com/1.xml",
        "https://example.com/2.xml",
        "https://example.com/3.xml",
        "https://other.example.org/4.xml",
    )


# ---------------------------------------------------------------------------------------
# Seed examples run in every profile: SELFHTML (legacy source) and Wikipedia
# ---------------------------------------------------------------------------------------

SELFHTML_MAIN = (
    "# robots.txt zu http://www.example.org/\n"
    "User-agent: UniversalRobot/1.0\n"
    "User-agent: mein-Robot\n"
    "Disallow: /quellen/dtd/\n"
    "\n"
    "User-agent: *\n"
    "Disallow: /fotos/\n"
    "Disallow: /temp/\n"
    "Disallow: /fotoalbum.html\n"
)
SELFHTML_MAIN_CASES: list[tuple[str, str, bool]] = [
    ("UniversalRobot", "/quellen/dtd/x.dtd", False),
    ("UniversalRobot/1.0", "/quellen/dtd/", False),
    ("UniversalRobot", "/fotos/a.jpg", True),  # its own record only
    ("mein-Robot", "/quellen/dtd/sub/x", False),
    ("mein-Robot", "/quellen/dtd", True),
    ("otherbot", "/fotos/a.jpg", False),
    ("otherbot", "/temp/", False),
    ("otherbot", "/fotoalbum.html", False),
    ("otherbot", "/fotoalbum.htm", True),
    ("otherbot", "/quellen/dtd/x", True),
    ("otherbot", "/index.html", True),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("agent", "path", "expected"),
    SELFHTML_MAIN_CASES,
    ids=[f"{a}{p}" for a, p, _ in SELFHTML_MAIN_CASES],
)
def test_selfhtml_main_example(profile: str, agent: str, path: str, expected: bool) -> None:
    assert is_allowed(SELFHTML_MAIN, path, agent, profile=profile) is expected


@pytest.mark.parametrize("profile", PROFILES)
def test_selfhtml_disallow_order_and_disallow_all(profile: str) -> None:
    rules = parse_robotstxt("User-agent: *\nDisallow: /fotos/\nDisallow: /fotos/urlaub/\n", profile)
    decision = rules.decide(url("/fotos/urlaub/a.jpg"), "mybot")
    assert decision.allowed is False
    # legacy: the first matching line decides; longest match: the longer one.
    assert decision.line == (2 if profile == "legacy" else 3)
    everything = parse_robotstxt("User-agent: *\nDisallow: /\n", profile)
    for path in ("/", "/index.html", "/a/b/c?d"):
        assert everything.allowed(url(path), "mybot") is False


WP_BODY = (
    "# robots.txt für example.com\n"
    "# Diese Webcrawler schließe ich aus\n"
    "User-agent: Sidewinder\n"
    "Disallow: /\n"
    "\n"
    "User-agent: Microsoft.URL.Control\n"
    "Disallow: /\n"
    "\n"
    "# Diese Verzeichnisse/Dateien sollen nicht\n"
    "# durchsucht werden\n"
    "User-agent: *\n"
    "Disallow: /default.html\n"
    "Disallow: /Temp/ # diese Inhalte werden von Suchmaschinen nicht neu erfasst\n"
    "Disallow: /Privat/Familie/Geburtstage.html # Nicht geheim\n"
)
WP_CASES: list[tuple[str, str, bool]] = [
    ("Sidewinder", "/", False),
    ("Sidewinder", "/default.html", False),
    ("Microsoft.URL.Control", "/x", False),
    ("mybot", "/default.html", False),
    ("mybot", "/Temp/x", False),
    ("mybot", "/temp/x", True),
    ("mybot", "/Privat/Familie/Geburtstage.html", False),
    ("mybot", "/Privat/Familie/", True),
    ("mybot", "/index.html", True),
]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("agent", "path", "expected"), WP_CASES, ids=[f"{a}{p}" for a, p, _ in WP_CASES]
)
def test_wp_example(profile: str, agent: str, path: str, expected: bool) -> None:
    assert is_allowed(WP_BODY.encode(), path, agent, profile=profile) is expected


# ---------------------------------------------------------------------------------------
# robots_test.cc cases not covered above (google profile)
# ---------------------------------------------------------------------------------------

GTEST_MISC: list[tuple[str, str, str, str, bool]] = [
    ("value-case-sensitive-1", "user-agent: FooBot\ndisallow: /x/\n", "FooBot", "/x/y", False),
    ("value-case-sensitive-2", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", "/x/y", True),
    (
        "special-star-1",
        "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
        "FooBot",
        "/foo/bar/quz",
        False,
    ),
    (
        "special-star-2",
        "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
        "FooBot",
        "/foo/quz",
        True,
    ),
    (
        "special-star-3",
        "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
        "FooBot",
        "/foo//quz",
        True,
    ),
    (
        "special-star-4",
        "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
        "FooBot",
        "/foo/bax/quz",
        True,
    ),
    (
        "special-dollar-1",
        "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
        "FooBot",
        "/foo/bar",
        False,
    ),
    (
        "special-dollar-2",
        "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
        "FooBot",
        "/foo/bar/qux",
        True,
    ),
    (
        "special-dollar-3",
        "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
        "FooBot",
        "/foo/bar/",
        True,
    ),
    (
        "special-dollar-4",
        "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
        "FooBot",
        "/foo/bar/baz",
        True,
    ),
    (
        "encoding-query",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n",
        "FooBot",
        "/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
        True,
    ),
    (
        "no-group-before",
        "allow: /foo/bar/\nuser-agent: FooBot\ndisallow: /\n",
        "FooBot",
        "/foo/bar/",
        False,
    ),
]


@pytest.mark.parametrize(
    ("body", "agent", "path", "expected"),
    [case[1:] for case in GTEST_MISC],
    ids=[case[0] for case in GTEST_MISC],
)
def test_google_robots_test_cc_ports(body: str, agent: str, path: str, expected: bool) -> None:
    assert is_allowed(body, path, agent) is expected


# ---------------------------------------------------------------------------------------
# SPEC §2: the switch table, per profile, and each switch overridden on its own
# ---------------------------------------------------------------------------------------

PROFILE_OPTIONS: dict[str, dict[str, Any]] = {
    "google": {
        "precedence": "longest",
        "wildcards": True,
        "agent_match": "token",
        "merge_groups": True,
        "blank_line_ends_group": False,
        "lenient_syntax": True,
        "max_line_length": 16663,
        "index_html_is_directory": True,
        "robots_txt_always_allowed": False,
        "percent_encoding": "google",
        "obey_crawl_delay": False,
    },
    "rfc9309": {
        "precedence": "longest",
        "wildcards": True,
        "agent_match": "token",
        "merge_groups": True,
        "blank_line_ends_group": False,
        "lenient_syntax": False,
        "max_line_length": None,
        "index_html_is_directory": False,
        "robots_txt_always_allowed": True,
        "percent_encoding": "rfc9309",
        "obey_crawl_delay": False,
    },
    "legacy": {
        "precedence": "first",
        "wildcards": False,
        "agent_match": "substring",
        "merge_groups": False,
        "blank_line_ends_group": True,
        "lenient_syntax": False,
        "max_line_length": None,
        "index_html_is_directory": False,
        "robots_txt_always_allowed": False,
        "percent_encoding": "legacy",
        "obey_crawl_delay": True,
    },
}
OPTION_ROWS = [
    (profile, name, value)
    for profile, row in PROFILE_OPTIONS.items()
    for name, value in row.items()
]


@pytest.mark.parametrize(
    ("profile", "switch", "value"), OPTION_ROWS, ids=[f"{p}-{s}" for p, s, _ in OPTION_ROWS]
)
def test_spec2_switch_table_profile_defaults(profile: str, switch: str, value: Any) -> None:
    assert getattr(parse_robotstxt(b"", profile).options, switch) == value


def test_spec2_default_profile_is_google() -> None:
    options = parse_robotstxt(b"").options
    for switch, value in PROFILE_OPTIONS["google"].items():
        assert getattr(options, switch) == value, switch


@dataclasses.dataclass(frozen=True)
class Probe:
    """A robots.txt whose answer for one URL depends only on one switch."""

    name: str
    switch: str
    body: str
    target: str
    agent: str
    allowed_by_value: dict[Any, bool]


LONG_PROBE_AS = "a" * 20_000
PROBES = [
    Probe(
        "pics",
        "precedence",
        "User-agent: *\nDisallow: /pics/\nAllow: /pics/public/\n",
        "/pics/public/a",
        "mybot",
        {"longest": True, "first": False},
    ),
    Probe(
        "php",
        "wildcards",
        "User-agent: *\nDisallow: /*.php$\n",
        "/index.php",
        "mybot",
        {True: False, False: True},
    ),
    Probe(
        "bot",
        "agent_match",
        "User-agent: bot\nDisallow: /\n",
        "/x",
        "Googlebot",
        {"token": True, "substring": False},
    ),
    Probe(
        "merge",
        "merge_groups",
        "User-agent: a\nDisallow: /x\n\n"
        "User-agent: b\nDisallow: /y\n\nUser-agent: a\nDisallow: /z\n",
        "/z",
        "a",
        {True: False, False: True},
    ),
    Probe(
        "blank",
        "blank_line_ends_group",
        "User-agent: a\n\nDisallow: /\n",
        "/x",
        "a",
        {False: False, True: True},
    ),
    Probe(
        "misspelling",
        "lenient_syntax",
        "User-agent: *\nDisalow: /\n",
        "/x",
        "mybot",
        {True: False, False: True},
    ),
    Probe(
        "no-colon",
        "lenient_syntax",
        "User-agent *\nDisallow /\n",
        "/x",
        "mybot",
        {True: False, False: True},
    ),
    Probe(
        "long-line",
        "max_line_length",
        f"User-agent: *\nDisallow: /{LONG_PROBE_AS}\n",
        "/" + "a" * (GOOGLE_MAX_LINE - len(LONG_PREFIX)),
        "mybot",
        {16663: False, None: True},
    ),
    Probe(
        "index",
        "index_html_is_directory",
        "User-agent: *\nAllow: /d/index.html\nDisallow: /\n",
        "/d/",
        "mybot",
        {True: True, False: False},
    ),
    Probe(
        "robots",
        "robots_txt_always_allowed",
        "User-agent: *\nDisallow: /\n",
        "/robots.txt",
        "mybot",
        {True: True, False: False},
    ),
    Probe(
        "unreserved",
        "percent_encoding",
        "User-agent: *\nDisallow: /foo/bar/%62%61%7A\n",
        "/foo/bar/baz",
        "mybot",
        {"rfc9309": False, "google": True, "legacy": False, "none": True},
    ),
    Probe(
        "unreserved-url",
        "percent_encoding",
        "User-agent: *\nDisallow: /foo/bar/baz\n",
        "/foo/bar/%62%61%7A",
        "mybot",
        {"rfc9309": False, "google": True, "legacy": False, "none": True},
    ),
    # 1996 draft §3.2.2: every escape but "/"'s is decoded; RFC 9309 only unreserved ones.
    Probe(
        "ascii-escape",
        "percent_encoding",
        "User-agent: *\nDisallow: /a%3Cd.html\n",
        "/a<d.html",
        "mybot",
        {"rfc9309": True, "google": True, "legacy": False, "none": True},
    ),
    # RFC 9309 §2.2.3: a URL's "*" is matched as "%2A" (the 1996 draft: one octet).
    Probe(
        "special",
        "percent_encoding",
        "User-agent: *\nDisallow: /a%2A.html\n",
        "/a*.html",
        "mybot",
        {"rfc9309": False, "google": True, "legacy": False, "none": True},
    ),
    Probe(
        "utf8",
        "percent_encoding",
        "User-agent: *\nDisallow: /ツ\n",
        "/%E3%83%84",
        "mybot",
        {"rfc9309": False, "google": False, "legacy": False, "none": True},
    ),
    # SPEC §1: escapes compare case-insensitively whatever the percent_encoding switch.
    Probe(
        "hex-case",
        "percent_encoding",
        "User-agent: *\nDisallow: /%aa\n",
        "/%AA",
        "mybot",
        {"google": False, "rfc9309": False, "legacy": False, "none": False},
    ),
    Probe(
        "hex-case-url",
        "percent_encoding",
        "User-agent: *\nDisallow: /%AA\n",
        "/%aa",
        "mybot",
        {"google": False, "rfc9309": False, "legacy": False, "none": False},
    ),
]
PROBE_CASES = [
    (probe, profile, value)
    for probe in PROBES
    for profile in PROFILES
    for value in probe.allowed_by_value
]


def _probe_id(probe: Probe, profile: str, value: Any) -> str:
    default = PROFILE_OPTIONS[profile][probe.switch] == value
    return f"{probe.switch}-{probe.name}-{profile}-{value}" + (
        "-default" if default else "-override"
    )


@pytest.mark.parametrize(
    ("probe", "profile", "value"), PROBE_CASES, ids=[_probe_id(*case) for case in PROBE_CASES]
)
def test_spec2_each_switch_per_profile_and_overridden_alone(
    probe: Probe, profile: str, value: Any
) -> None:
    expected = probe.allowed_by_value[value]
    if PROFILE_OPTIONS[profile][probe.switch] == value:
        # the profile's own value, without any override
        assert is_allowed(probe.body, probe.target, probe.agent, profile=profile) is expected
    rules = parse_robotstxt(probe.body, profile, **{probe.switch: value})
    assert getattr(rules.options, probe.switch) == value
    # the other switches keep the profile's values
    for other, default in PROFILE_OPTIONS[profile].items():
        if other != probe.switch:
            assert getattr(rules.options, other) == default, other
    assert rules.allowed(url(probe.target), probe.agent) is expected


#: Every value of every switch that changes allow/deny (max_line_length: the two of §2).
SWITCH_VALUES: dict[str, tuple[Any, ...]] = {
    "precedence": ("longest", "first"),
    "wildcards": (True, False),
    "agent_match": ("token", "substring"),
    "merge_groups": (True, False),
    "blank_line_ends_group": (True, False),
    "lenient_syntax": (True, False),
    "max_line_length": (16663, None),
    "index_html_is_directory": (True, False),
    "robots_txt_always_allowed": (True, False),
    "percent_encoding": ("google", "rfc9309", "legacy", "none"),
}


@pytest.mark.parametrize("probe", PROBES, ids=[f"{p.switch}-{p.name}" for p in PROBES])
def test_spec2_switches_are_independent(probe: Probe) -> None:
    """Each probe's answer depends on its own switch only, whatever the others are set to.

    All 1,536 combinations of the other switches' values, exhaustively.
    """
    failures: list[dict[str, Any]] = []
    for values in itertools.product(*SWITCH_VALUES.values()):
        switches = dict(zip(SWITCH_VALUES, values, strict=True))
        value = switches[probe.switch]
        if value not in probe.allowed_by_value:
            continue
        rules = parse_robotstxt(probe.body, "google", **switches)
        if rules.allowed(url(probe.target), probe.agent) is not probe.allowed_by_value[value]:
            failures.append(switches)
    assert not failures, f"{len(failures)} combinations disagree, e.g. {failures[:3]}"


@pytest.mark.parametrize("profile", PROFILES)
def test_spec2_max_line_length_custom_value(profile: str) -> None:
    body = "User-agent: *\nDisallow: /" + "a" * 200 + "\n"
    rules = parse_robotstxt(body, profile, max_line_length=100)
    assert rules.options.max_line_length == 100
    assert rules.allowed(url("/" + "a" * 89), "mybot") is False  # "Disallow: /" + 89 a's
    assert rules.allowed(url("/" + "a" * 88), "mybot") is True


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("value", [True, False])
def test_spec2_obey_crawl_delay_override_keeps_crawl_delay_parsed(
    profile: str, value: bool
) -> None:
    rules = parse_robotstxt("User-agent: *\nCrawl-delay: 3\n", profile, obey_crawl_delay=value)
    assert rules.options.obey_crawl_delay is value
    assert rules.crawl_delay("mybot") == 3.0


def test_spec2_unknown_profile_or_switch_value_rejected() -> None:
    with pytest.raises(ValueError, match="profile"):
        parse_robotstxt(b"", "strict")
    with pytest.raises(ValueError, match="precedence"):
        parse_robotstxt(b"", "google", precedence="shortest")


# ---------------------------------------------------------------------------------------
# Decision: the deciding line
# ---------------------------------------------------------------------------------------

DECISION_BODY = (
    "# comment\n"  # 1
    "User-agent: *\n"  # 2
    "Disallow: /fish # no fish\n"  # 3
    "Allow: /fish/salmon\n"  # 4
    "\n"  # 5
    "User-agent: FooBot\n"  # 6
    "Disallow: fish/\n"  # 7
    "Allow: /ツ\n"  # 8
    "Disalow: /typo\n"  # 9
    "\n"  # 10
    "User-agent: IndexBot\n"  # 11
    "Allow: /d/index.html\n"  # 12
    "Disallow: /\n"  # 13
)
DECISION_CASES: list[tuple[str, str, tuple[Any, ...], str | None]] = [
    ("/fish/x", "mybot", (False, 3, "disallow", "/fish"), "Disallow: /fish"),
    ("/fish/salmon.html", "mybot", (True, 4, "allow", "/fish/salmon"), "Allow: /fish/salmon"),
    ("/carrot", "mybot", (True, None, None, None), None),
    ("/fish/x", "FooBot", (False, 7, "disallow", "fish/"), "Disallow: fish/"),
    ("/%E3%83%84/x", "FooBot", (True, 8, "allow", "/ツ"), "Allow: /ツ"),
    ("/typo/x", "FooBot", (False, 9, "disallow", "/typo"), "Disalow: /typo"),
    ("/d/", "IndexBot", (True, 12, "allow", "/d/index.html"), "Allow: /d/index.html"),
    ("/e/", "IndexBot", (False, 13, "disallow", "/"), "Disallow: /"),
]


@pytest.mark.parametrize(
    ("path", "agent", "expected", "line_text"),
    DECISION_CASES,
    ids=[f"{a}{p}" for p, a, _, _ in DECISION_CASES],
)
def test_google_decision_names_the_deciding_line(
    path: str, agent: str, expected: tuple[Any, ...], line_text: str | None
) -> None:
    rules = parse_robotstxt(DECISION_BODY.encode())
    decision = rules.decide(url(path), agent)
    assert isinstance(decision, Decision)
    assert _summary(decision) == expected
    assert decision.allowed is rules.allowed(url(path), agent)
    if line_text is None:
        assert decision.line_text is None
    else:
        assert decision.line_text is not None
        assert decision.line_text.strip().startswith(line_text)


def test_decision_no_group() -> None:
    decision = parse_robotstxt("User-agent: a\nDisallow: /\n").decide(url("/x"), "b")
    assert _summary(decision) == (True, None, None, None)


def test_legacy_decision_first_matching_line() -> None:
    body = "User-Agent: *\nDisallow: /pics/\nAllow: /pics/public/\n"
    legacy = parse_robotstxt(body, "legacy").decide(url("/pics/public/a"), "mybot")
    google = parse_robotstxt(body).decide(url("/pics/public/a"), "mybot")
    assert _summary(legacy) == (False, 2, "disallow", "/pics/")
    assert _summary(google) == (True, 3, "allow", "/pics/public/")


def test_decision_is_frozen() -> None:
    decision = parse_robotstxt("User-agent: *\nDisallow: /\n").decide(url("/x"), "mybot")
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.allowed = True  # type: ignore[misc]
    signals = parse_robotstxt(b"").content_signals("mybot")
    with pytest.raises(dataclasses.FrozenInstanceError):
        signals.search = True  # type: ignore[misc]


# ---------------------------------------------------------------------------------------
# The engine agrees with the slow reference matcher (tests/support/reference_matcher.py)
# ---------------------------------------------------------------------------------------

PATTERN_CHARS = "/ab*$%"
patterns = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from(["/", "*"]),
    st.text(alphabet=PATTERN_CHARS, max_size=7),
)
rule_lists = st.lists(st.builds(reference.RefRule, st.booleans(), patterns), min_size=1, max_size=6)
paths = st.builds(lambda rest: "/" + rest, st.text(alphabet=PATTERN_CHARS, max_size=10))


@settings(max_examples=400, deadline=None)
@given(rules=rule_lists, path=paths)
def test_google_engine_agrees_with_reference_matcher(
    rules: list[reference.RefRule], path: str
) -> None:
    body = reference.robots_txt(rules)
    expected = reference.longest_match_allowed(rules, path)
    assert parse_robotstxt(body).allowed(url(path), "mybot") is expected


legacy_patterns = st.builds(lambda rest: "/" + rest, st.text(alphabet=PATTERN_CHARS, max_size=6))
legacy_rule_lists = st.lists(
    st.builds(reference.RefRule, st.booleans(), legacy_patterns), min_size=1, max_size=6
)


@settings(max_examples=200, deadline=None)
@given(rules=legacy_rule_lists, path=paths)
@example(rules=[reference.RefRule(False, "/%")], path="/*")  # "%" starts no escape
@example(rules=[reference.RefRule(False, "/%2a")], path="/*")  # one octet, two forms
def test_legacy_engine_agrees_with_reference_first_match(
    rules: list[reference.RefRule], path: str
) -> None:
    body = reference.robots_txt(rules)
    expected = reference.first_match_allowed(rules, path)
    assert parse_robotstxt(body, "legacy").allowed(url(path), "mybot") is expected


# Percent-encoding against the reference: disallow rules only, so that no precedence
# question (the length of a pattern before or after encoding) arises.
GOOGLE_PATTERN_TOKENS = ["/", "a", "b", "*", "$", "%", "é", "%c3%a9", "%C3%A9", "%2F", "%2f", "~"]
GOOGLE_PATH_TOKENS = ["/", "a", "b", "*", "$", "%", "%C3%A9", "%c3%a9", "%2F", "%2f", "~", "%7E"]
RFC_PATTERN_TOKENS = [
    "/",
    "a",
    "b",
    "~",
    "*",
    "$",
    "%61",
    "%62",
    "%7E",
    "%7e",
    "%2F",
    "é",
    "%2A",
    "%24",
]
RFC_PATH_TOKENS = [
    "/",
    "a",
    "b",
    "~",
    "%61",
    "%62",
    "%7E",
    "%7e",
    "%2F",
    "%C3%A9",
    "*",
    "$",
    "%2a",
    "%24",
]


def token_strings(tokens: list[str], max_size: int) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(tokens), max_size=max_size).map("".join)


def rooted(strings: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(lambda first, rest: first + rest, st.sampled_from(["/", "*"]), strings)


@settings(max_examples=300, deadline=None)
@given(
    patterns=st.lists(rooted(token_strings(GOOGLE_PATTERN_TOKENS, 5)), min_size=1, max_size=4),
    path=st.builds(lambda rest: "/" + rest, token_strings(GOOGLE_PATH_TOKENS, 6)),
)
def test_google_percent_encoding_agrees_with_reference(patterns: list[str], path: str) -> None:
    body = "User-agent: *\n" + "".join(f"Disallow: {p}\n" for p in patterns)
    expected = not reference.google_disallowed(patterns, path)
    assert parse_robotstxt(body.encode()).allowed(url(path), "mybot") is expected


@settings(max_examples=300, deadline=None)
@given(
    patterns=st.lists(rooted(token_strings(RFC_PATTERN_TOKENS, 5)), min_size=1, max_size=4),
    path=st.builds(lambda rest: "/" + rest, token_strings(RFC_PATH_TOKENS, 6)),
)
@example(patterns=["/a%2A"], path="/a*")  # RFC 9309 §2.2.3
@example(patterns=["/%24"], path="/$")
@example(patterns=["/a$b"], path="/a$b")
def test_rfc9309_percent_encoding_agrees_with_reference(patterns: list[str], path: str) -> None:
    body = "User-agent: *\n" + "".join(f"Disallow: {p}\n" for p in patterns)
    expected = not reference.rfc9309_disallowed(patterns, path)
    assert parse_robotstxt(body.encode(), "rfc9309").allowed(url(path), "mybot") is expected


# Group selection against the reference: each group i holds one rule, "Disallow: /gi".
AGENT_VALUES = ["a", "b", "ab", "B", "A/1.0", "b*", "*", "* x", "a-b", "a_b"]
CRAWLERS = ["a", "b", "ab", "A/2.0 (+https://a.example)", "a-b", "c", "B_x"]
group_lists = st.lists(st.lists(st.sampled_from(AGENT_VALUES), min_size=1, max_size=3), max_size=6)


def groups_body(groups: list[list[str]], separator: str) -> str:
    parts = []
    for index, agents in enumerate(groups):
        lines = [f"User-agent: {agent}" for agent in agents] + [f"Disallow: /g{index}"]
        parts.append("\n".join(lines) + "\n")
    return separator.join(parts)


@settings(max_examples=300, deadline=None)
@given(
    groups=group_lists,
    crawler=st.sampled_from(CRAWLERS),
    separator=st.sampled_from(["", "\n", "# comment\n", "Sitemap: https://example.com/s.xml\n"]),
    profile=st.sampled_from(["google", "rfc9309"]),
)
def test_google_group_selection_agrees_with_reference(
    groups: list[list[str]], crawler: str, separator: str, profile: str
) -> None:
    rules = parse_robotstxt(groups_body(groups, separator), profile)
    selected = reference.google_groups(groups, crawler)
    for index in range(len(groups)):
        assert rules.allowed(url(f"/g{index}"), crawler) is (index not in selected), index


@settings(max_examples=300, deadline=None)
@given(groups=group_lists, crawler=st.sampled_from(CRAWLERS))
def test_legacy_record_selection_agrees_with_reference(
    groups: list[list[str]], crawler: str
) -> None:
    rules = parse_robotstxt(groups_body(groups, "\n"), "legacy")
    selected = reference.legacy_groups(groups, crawler)
    for index in range(len(groups)):
        assert rules.allowed(url(f"/g{index}"), crawler) is (index not in selected), index


def test_reference_matcher_self_check() -> None:
    # The reference itself, on the seed table (so that a broken reference cannot pass).
    for pattern, path, matches in PATH_MATCHING:
        normalised = reference.normalise_pattern(pattern)
        assert reference.wildcard_matches(normalised, path) is matches, (pattern, path)
    assert reference.normalise_pattern("/ツ%aa") == "/%E3%83%84%AA"
    assert reference.normalise_pattern("fish/") == "/fish/"


@pytest.mark.parametrize("profile", ["google", "legacy", "rfc9309"])
@pytest.mark.parametrize(
    ("rule", "path", "allowed"),
    [
        ("/%a", "/%aa", False),  # the URL's escape is matched as %AA: the "no" still holds
        ("/%a", "/%aB", False),
        ("/%a", "/%az", False),  # not an escape in the URL: as written
        ("/%A", "/%ab", False),
        ("/%e", "/%E2%82%AC", False),
        ("/%ax", "/%ab", True),  # not a dangling escape: no variant
    ],
)
def test_a_dangling_escape_in_a_rule_keeps_its_no(
    profile: str, rule: str, path: str, allowed: bool
) -> None:
    """Found by the property test against the legacy reference (in CI): a URL's
    escapes are matched with uppercase hex, so ``Disallow: /%a`` no longer prefixed
    ``/%aa`` once it was read as ``/%AA``."""
    rules = parse_robotstxt(f"User-agent: *\nDisallow: {rule}\n", profile)
    assert rules.allowed(url(path), "mybot") is allowed


def test_a_dangling_escape_before_a_wildcard_keeps_its_no() -> None:
    rules = parse_robotstxt("User-agent: *\nDisallow: /%a*x\nAllow: /%a$\n")
    assert not rules.allowed(url("/%abx"), "mybot")
    assert rules.allowed(url("/%ab"), "mybot")
