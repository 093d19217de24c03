"""The trail tools never pass crawled text raw to a terminal: :func:`printable` prints
control characters (C0, DEL, C1), bidi controls and the Unicode line separators as escapes
(rep-engine/rep_engine/trail/terminal.py), so a hostile site cannot retitle or clear the
auditor's terminal, nor print a fake line of output (the audit tools' output, each of
``show``, ``summary``, ``verify`` and ``report``: tests/audit/test_cli_terminal.py; ``scrapy
rep-audit``: tests/integration/test_audit_cli.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rep_engine.trail.terminal import HELP_WIDTH, UNSAFE, exit_table, printable


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1bb", "a\\x1bb"),
        ("\r\n\t", "\\r\\n\\t"),
        ("\x7f\x80\x9f", "\\x7f\\x80\\x9f"),
        ("\u202e\u2066\u2069\u200f\u061c", "\\u202e\\u2066\\u2069\\u200f\\u061c"),
        ("\u2028\u2029", "\\u2028\\u2029"),
        ("\ud800", "\\ud800"),
        ("café ü 日本 \u00a0 \\x1b", "café ü 日本 \u00a0 \\x1b"),
    ],
)
def test_printable(raw: str, shown: str) -> None:
    assert printable(raw) == shown


@given(st.text())
def test_printable_leaves_nothing_a_terminal_acts_on(value: str) -> None:
    shown = printable(value)
    assert not any(ord(c) in UNSAFE for c in shown)
    assert printable(shown) == shown
    shown.encode("utf-8")  # a lone surrogate would not even print


def test_an_exit_table_wraps_each_code_under_its_text() -> None:
    """The tools' exit-code tables: a title, then each code and its meaning, a long one
    wrapped to 80 columns under its text (``audit``'s, ``check``'s, ``recheck``'s)."""
    long = "at least one URL is disallowed (or, with --purpose, denied for a purpose, or its " \
        "fetched page's items are dropped)"  # fmt: skip
    table = exit_table("exit codes (the same for `x`):", {0: "every URL is allowed", 1: long})
    assert table.splitlines() == [
        "exit codes (the same for `x`):",
        "  0  every URL is allowed",
        "  1  at least one URL is disallowed (or, with --purpose, denied for a purpose,",
        "     or its fetched page's items are dropped)",
    ]
    assert all(len(line) <= HELP_WIDTH for line in table.splitlines())
