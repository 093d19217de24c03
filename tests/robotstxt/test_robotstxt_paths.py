"""A URL's path as the rules are matched against it (SPEC §1 "Rule matching"): a parsed
file remembers the origin of the last URL it read, and cuts a URL of that origin after
it with no regex; what was asked before never changes an answer."""

from __future__ import annotations

import pytest

from rep_engine.robotstxt import RobotsTxt, parse_robotstxt

BODY = b"""User-agent: *
Disallow: /private
Disallow: /*.php$
Disallow: /*?session=
Disallow: /a*b
Disallow: //double
Disallow: /caf%C3%A9
Disallow: /star%2Ax
Disallow: /dollar%24
Disallow: /%7Etilde
Disallow: /end$
Disallow: /frag
Disallow: /q?x
Allow: /private/ok
Allow: /robots.txt
"""

#: Odd URLs beside the usual ones: escapes, non-ASCII, ``*`` and ``$`` in the path,
#: queries, fragments, ``//`` paths, no path at all, other schemes and hosts.
URLS = (
    "https://a.example/",
    "https://a.example/private/x",
    "https://a.example/private/ok/1",
    "https://a.example/x.php",
    "https://a.example/x.php?y",
    "https://a.example/list?session=1",
    "https://a.example/axxb",
    "https://a.example//double",
    "https://a.example/double",
    "https://a.example/caf%c3%a9",
    "https://a.example/café",
    "https://a.example/star*x",
    "https://a.example/dollar$",
    "https://a.example/%7etilde",
    "https://a.example/~tilde",
    "https://a.example/end",
    "https://a.example/end#x",
    "https://a.example/frag#private",
    "https://a.example/ok#/private",
    "https://a.example/q?x",
    "https://a.example/robots.txt",
    "https://a.example",
    "https://a.example?private",
    "https://a.example;private",
    "https://a.example#/private",
    "https://a.example:443/private",
    "https://user@a.example/private",
    "https://b.example/private",
    "http://a.example/private",
    "HTTPS://a.example/private",
    "http:///private",
    "ftp://a.example/private",
    "a.example/private",
    "/private",
    "",
)


def answers(
    url: str, rules: RobotsTxt | None = None, profile: str = "google"
) -> tuple[object, ...]:
    """What the three queries say of ``url``: each asked of ``rules``, or each of a freshly
    parsed file (which read no URL before)."""

    def of() -> RobotsTxt:
        return rules if rules is not None else parse_robotstxt(BODY, profile)

    decision = of().decide(url, "mybot")
    return of().allowed(url, "mybot"), of().code(url, "mybot"), decision.allowed, decision.line


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_what_was_asked_before_changes_no_answer(profile: str) -> None:
    """Each URL asked right after each other one answers as on a freshly parsed file."""
    fresh = {url: answers(url, profile=profile) for url in URLS}
    assert fresh["https://a.example/private/x"][0] is False  # the rules do refuse
    rules = parse_robotstxt(BODY, profile)
    for before in URLS:
        for url in URLS:
            answers(before, rules)
            assert answers(url, rules) == fresh[url], (before, url)


def test_the_three_queries_agree() -> None:
    """allowed() is code() >= 0 and decide()'s answer, on every URL (first asked)."""
    for url in URLS:
        allowed, code, decided, line = answers(url)
        assert allowed == (code >= 0) == decided, url
        assert (line or 0) == abs(code), url


@pytest.mark.parametrize("url", [b"https://a.example/private", None, 7])
def test_a_url_that_is_not_text_is_refused_after_one_that_is(url: object) -> None:
    rules = parse_robotstxt(BODY)
    rules.allowed("https://a.example/", "mybot")
    for query in (rules.allowed, rules.code, rules.decide):
        with pytest.raises(TypeError, match="url must be str"):
            query(url, "mybot")  # type: ignore[arg-type]


class _Url(str):
    """A str subclass: read by the regex, never cut on trust."""


def test_a_str_subclass_is_read_as_its_text() -> None:
    rules = parse_robotstxt(BODY)
    rules.allowed("https://a.example/", "mybot")
    assert not rules.allowed(_Url("https://a.example/private"), "mybot")
    assert rules.allowed(_Url("https://a.example/private/ok"), "mybot")


def test_a_long_host_is_not_remembered() -> None:
    """The scheme and host kept between calls stay short whatever the URL asked about."""
    rules = parse_robotstxt(BODY)
    long_url = "https://" + "h" * 100_000 + "/private"
    assert not rules.allowed(long_url, "mybot")
    assert len(rules._origin) <= 512
    assert not rules.allowed(long_url, "mybot")
    assert rules.allowed(long_url.replace("/private", "/ok"), "mybot")
