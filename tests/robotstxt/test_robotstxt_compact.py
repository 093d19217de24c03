"""The parsed tables a broad crawl keeps by the thousand are compact (docs/decisions.md,
'A parsed robots.txt is kept compact'): shared key spellings, one byte per rule key, two
bytes per line number, a value repeated in several groups kept once, with the same
answers and the same quoted lines."""

from __future__ import annotations

import gc

import pytest

from rep_engine.robotstxt import RobotsTxt, parse_robotstxt, unplain


def test_files_share_their_key_spellings_and_keep_each_key_as_written() -> None:
    """A broad crawl keeps thousands of parsed files; a rule's key costs one
    byte and the spellings are one string for every file, yet decide() still quotes
    each line as written."""
    first = parse_robotstxt(b"User-agent: *\nDisallow: /wp-admin/\nallow: /wp-admin/a\n")
    second = parse_robotstxt(b"User-agent: *\nDISALLOW: /b\nDisallow: /wp-admin/\n")
    assert "Disallow" in first._keys
    spelled = [k for k in (*first._keys, *second._keys) if k == "Disallow"]
    assert len(spelled) == 2 and spelled[0] is spelled[1]
    assert isinstance(first._key_of, bytes) and len(first._key_of) == 2
    assert first.decide("https://h/wp-admin/x", "bot").line_text == "Disallow: /wp-admin/"
    assert first.decide("https://h/wp-admin/a", "bot").line_text == "allow: /wp-admin/a"
    assert second.decide("https://h/b", "bot").line_text == "DISALLOW: /b"
    assert second.decide("https://h/wp-admin/", "bot").line_text == "Disallow: /wp-admin/"


def test_a_rule_repeated_in_each_group_is_kept_once() -> None:
    """A file that repeats its rules in each crawler's group keeps each value once,
    yet every group keeps its own lines."""
    body = b"".join(
        b"User-agent: %s\nDisallow: /private/\nAllow: /private/ok\n\n" % name
        for name in (b"a", b"b", b"c")
    )
    rules = parse_robotstxt(body)
    assert len(rules._values) == 6 and len({id(value) for value in rules._values}) == 2
    for number, name in enumerate("abc"):
        decision = rules.decide("https://h/private/x", name)
        assert (decision.allowed, decision.line) == (False, 2 + 4 * number)
        assert rules.decide("https://h/private/ok", name).line == 3 + 4 * number


def test_more_than_256_key_spellings_keep_each_one() -> None:
    # Google reads any key starting with "disallow" as one: 300 spellings in one file.
    body = "User-agent: *\n" + "".join(f"Disallow{n}: /p{n}/\n" for n in range(300))
    rules = parse_robotstxt(body)
    for n in (0, 255, 256, 299):
        assert rules.decide(f"https://h/p{n}/x", "bot").line_text == f"Disallow{n}: /p{n}/"


def test_line_numbers_beyond_32767_are_kept_whole() -> None:
    body = "User-agent: *\n" + "#\n" * 40_000 + "Disallow: /late\nAllow: /late/ok\n"
    rules = parse_robotstxt(body)
    decision = rules.decide("https://h/late/x", "bot")
    assert (decision.allowed, decision.line) == (False, 40_002)
    assert rules.decide("https://h/late/ok", "bot").line == 40_003


_EVERY_FEATURE = b"""Content-Signal: search=yes
Crawl-delay: 3
Content-Usage: train-ai=n
License: https://l.example/a
User-agent: a
User-agent: b
Disallow: /x
Crawl-delay: 2
Content-Usage: /p train-ai=n
DisallowAITraining: /q
License: https://l.example/b
allow: /y
User-agent: *
Disallow: /private
Disallow: /*.pdf$
Allow: /d/index.html
Content-Signal: ai-train=no, use=reference
Sitemap: https://s.example/1
"""


@pytest.mark.parametrize(
    ("body", "profile"),
    [
        (_EVERY_FEATURE, "google"),
        (_EVERY_FEATURE, "rfc9309"),
        (_EVERY_FEATURE, "legacy"),
        ("User-agent: *\n" + "".join(f"Disallow{n}: /p{n}/\n" for n in range(300)), "google"),
        ("User-agent: *\n" + "#\n" * 40_000 + "Disallow: /late\n", "google"),
        (b"", "google"),
    ],
)
def test_a_file_made_plain_comes_back_equal(body: bytes | str, profile: str) -> None:
    """What a broad crawl's cache keeps parsed (docs/decisions.md, 'Parsed once per
    origin'): ``bytes`` the collector does not track, made a file again without parsing,
    every field equal (a field added to ``RobotsTxt`` and not to its plain form fails
    here), with the same answers."""
    rules = parse_robotstxt(body, profile)
    # A compiled selection and the origin of the URL last read (memos) are not part of it
    rules.allowed("https://h/x", "a")
    plain = rules.plain()
    assert type(plain) is bytes and not gc.is_tracked(plain)
    again = unplain(plain)
    for name in RobotsTxt.__slots__:
        if name not in ("_agents", "_origin"):
            assert getattr(again, name) == getattr(rules, name), name
            assert type(getattr(again, name)) is type(getattr(rules, name)), name
    assert again._agents == {}
    assert again._origin == parse_robotstxt(body, profile)._origin
    for agent in ("a", "b", "other"):
        for path in ("/x", "/y", "/private/1", "/c.pdf", "/d/", "/p/1", "/q/1", "/late"):
            url = "https://h" + path
            assert again.decide(url, agent) == rules.decide(url, agent)
            assert again.content_usage(agent).attach(url) == rules.content_usage(agent).attach(url)
        assert again.content_signals(agent) == rules.content_signals(agent)
        assert again.crawl_delay(agent) == rules.crawl_delay(agent)
