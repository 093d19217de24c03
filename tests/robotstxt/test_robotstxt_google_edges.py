"""The engine's last differences from Google's parser (docs/behaviour.md, 'Differences
from Google's parser'), matched in the google profile as google/robotstxt ``robots.cc``
reads them (commit 22b355f, 2026-04-01):

- a line ends at a NUL byte: each line is a C string (``GetKeyAndValueFrom``);
- only ASCII whitespace is stripped before a ``User-agent`` name, and the name is its
  leading letters, ``-`` and ``_`` (``ExtractUserAgent``): a name that starts with
  U+00A0, U+3000, U+001C-U+001F or U+0085 names no crawler;
- a line without a colon splits at a space or a tab only (``strpbrk(line, " \\t")``):
  a vertical tab or form feed is not a separator.

The rfc9309 and legacy profiles keep their reading (docs/behaviour.md "Differences from
Google's parser").
"""

from __future__ import annotations

import pytest

from rep_engine.robotstxt import parse_robotstxt

URL = "http://example.com/a/x"


def allowed(body: bytes, agent: str, profile: str = "google") -> bool:
    return parse_robotstxt(body, profile).allowed(URL, agent)


@pytest.mark.parametrize(
    ("body", "agent", "google", "others"),
    [
        (b"User-agent: *\nDisallow: /a\x00b\n", "mybot", False, True),
        (b"User-agent: mybot\x00junk\nDisallow: /a\n", "mybot", False, True),
        (b"User-agent: *\nDisallow: /a # \x00 x\n", "mybot", False, False),
        (b"User-agent: *\n\x00Disallow: /a\n", "mybot", True, True),
    ],
    ids=["in-a-value", "in-a-name", "after-a-comment", "at-the-start"],
)
def test_a_nul_byte_ends_the_line_in_the_google_profile(
    body: bytes, agent: str, google: bool, others: bool
) -> None:
    assert allowed(body, agent) is google
    assert allowed(body, agent, "rfc9309") is others


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\x1c", "\x1d", "\x1e", "\x1f", "\u0085"])
def test_a_unicode_or_c0_space_before_a_name_names_no_crawler(space: str) -> None:
    body = f"User-agent: *\nDisallow: /a\n\nUser-agent: {space}mybot\nAllow: /\n".encode()
    robots = parse_robotstxt(body)
    # Google: that group names nobody, so mybot keeps the "*" group's Disallow.
    assert not robots.allowed(URL, "mybot")
    assert "mybot" not in robots.user_agents
    # rfc9309 skips the space and reads the name (documented deviation).
    assert parse_robotstxt(body, "rfc9309").allowed(URL, "mybot")


@pytest.mark.parametrize("separator", ["\x0b", "\x0c"])
def test_a_vertical_tab_or_form_feed_is_no_key_value_separator(separator: str) -> None:
    body = f"User-agent: *\nDisallow{separator}/a\n".encode()
    assert allowed(body, "mybot")
    # ...but a space or a tab still is, with \\v or \\f as whitespace around the value.
    assert not allowed(f"User-agent: *\nDisallow {separator}/a{separator}\n".encode(), "mybot")
    assert not allowed(b"User-agent: *\nDisallow\t/a\n", "mybot")


def test_the_two_words_rule_counts_spaces_and_tabs_only() -> None:
    """robots.cc: after the first space or tab, the value may hold no further space or
    tab; a vertical tab inside the value does not make a third word."""
    assert not allowed(b"User-agent \x0bmybot\nDisallow /a\n", "mybot")
    assert allowed(b"User-agent \x0b mybot\nDisallow /a\n", "mybot")  # three words
    assert allowed(b"User-agent: *\nDisallow /a /b\n", "mybot")
