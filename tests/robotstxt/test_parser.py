"""The parse loop itself (rep-engine/rep_engine/robotstxt/_parser.py): every kind of key it reads is
named, and a key it does not name is skipped, never read as another."""

from __future__ import annotations

import logging

import pytest

from rep_engine.robotstxt import _parser, parse_robotstxt
from rep_engine.robotstxt._parser import _KEYS, _LENIENT_KEYS


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_a_key_of_a_kind_the_loop_does_not_name_is_skipped(
    profile: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A key added to the key tables with a kind of its own, and no branch of the loop
    for it, must not fall into the AI-training rules (or any other)."""
    new_kind = max(_KEYS.values()) + 1
    monkeypatch.setattr(_parser, "_KEYS", {**_KEYS, "new-key": new_kind})
    monkeypatch.setattr(_parser, "_LENIENT_KEYS", {**_LENIENT_KEYS, "new-key": new_kind})
    caplog.set_level(logging.DEBUG, logger="rep_engine.robotstxt")
    rules = parse_robotstxt("User-agent: *\nNew-Key: /x\nAllow: /\n", profile)
    assert len(rules.content_usage("bot")) == 0
    assert rules.allowed("https://e.com/x", "bot")
    assert rules.decide("https://e.com/x", "bot").line == 3
    assert "robots.txt line 2 skipped: key 'New-Key' is read by no rule" in caplog.messages
    # Logged under the public module's name, as before the parser was split out of it.
    assert {record.name for record in caplog.records} == {"rep_engine.robotstxt"}


def test_the_names_kept_from_file_to_file_are_bounded() -> None:
    """The user-agent names read are kept for the next files (``_NAME_TOKENS``), not a
    hostile file's: a name longer than 100 characters is not kept, and a table of 4,096
    is emptied before it takes one more."""
    long_name = "a" * 101
    names = "".join(f"User-agent: bot{number}\nDisallow: /\n" for number in range(5_000))
    rules = parse_robotstxt(f"{names}User-agent: {long_name}\nDisallow: /x\n")
    assert not rules.allowed("https://e.com/x", long_name)
    kept = _parser._NAME_TOKENS[True]
    assert long_name not in kept
    assert 0 < len(kept) <= 4_096
