"""Bugs other parsers had, as regressions here (both already came out right):

- robotspy #223: a ``User-agent`` token that starts with a digit (``5emeRue``, as
  lesechos.fr writes it) was dropped by a parser that reads RFC 9309's product token as
  letters only, and the lines after it bled into the group before (the ``*`` group lost
  its pages). Here the name is compared whole (docs/behaviour.md, "User-agent
  matching"): its group applies to that crawler alone.
- CPython gh-138907 (urllib.robotparser, fixed in 3.13 and 3.14 in May 2026): a blank
  line between stacked ``User-agent`` lines ended the first name's record, so its
  crawler got no rules. RFC 9309 §2.1 and Google group the names whatever blank lines
  stand between them; only the 1996 draft's ``legacy`` profile ends a record at a blank
  line.
"""

from __future__ import annotations

import pytest

from rep_engine import parse_robotstxt

URL = "https://a.example"


@pytest.mark.parametrize("profile", ["google", "rfc9309"])
def test_a_user_agent_starting_with_a_digit_keeps_its_rules_to_itself(profile: str) -> None:
    robots = parse_robotstxt(
        b"User-agent: *\nDisallow: /internal\n\nUser-agent: 5emeRue\nDisallow: /\n", profile
    )
    assert robots.allowed(f"{URL}/foo", "MyBot")
    assert not robots.allowed(f"{URL}/internal", "MyBot")
    assert not robots.allowed(f"{URL}/foo", "5emeRue/1.0")
    # another name: the * group's lines, not 5emeRue's Disallow: /
    assert robots.allowed(f"{URL}/foo", "5emeRueBot")
    assert not robots.allowed(f"{URL}/internal", "5emeRueBot")


@pytest.mark.parametrize(
    ("profile", "first_name_bound"), [("google", True), ("rfc9309", True), ("legacy", False)]
)
def test_a_blank_line_between_stacked_user_agent_lines(
    profile: str, first_name_bound: bool
) -> None:
    robots = parse_robotstxt(b"User-agent: a\n\nUser-agent: b\nDisallow: /x\n", profile)
    assert not robots.allowed(f"{URL}/x", "b")
    assert robots.allowed(f"{URL}/x", "a") is not first_name_bound
