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
