"""The parsed tables a broad crawl keeps by the thousand are compact (docs/decisions.md,
'A parsed robots.txt is kept compact'): shared key spellings, one byte per rule key, two
bytes per line number, with the same answers and the same quoted lines."""

from __future__ import annotations

from scrapy_rep.robotstxt import parse_robotstxt


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
