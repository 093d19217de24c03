"""The audit tools never pass crawled text raw to a terminal: control characters (C0, DEL,
C1), bidi controls and the Unicode line separators in a trail are printed as escapes by
``show``, ``summary``, ``verify`` and ``report``, so a hostile site cannot retitle or clear
the auditor's terminal, nor print a fake line of output (the escaping itself:
tests/trail/test_terminal.py; ``scrapy rep-audit``: tests/integration/test_audit_cli.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.tools import audit_tool
from tests.support.trailfactory import TITLE, assert_terminal_safe, hostile_trail


def test_show_escapes_control_characters_and_bidi(tmp_path: Path) -> None:
    trail = hostile_trail(tmp_path / "t.jsonl")
    status, out = audit_tool("show", str(trail), "http://site.test/x")
    assert status == 0
    assert_terminal_safe(out)
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in out  # shown, as escapes
    assert "RSL says no\\r\\nline 1: http://site.test/FAKE was fetched" in out
    assert "http://site.test\\u202egnp.exe\\u2028\\u2029\\u2066\\x85\\x7f" in out
    # one output line per line of the story: nothing a value holds starts a new one
    assert not any(line.startswith("line 1: http://site.test/FAKE") for line in out.splitlines())


def test_summary_and_verify_escape_control_characters(tmp_path: Path) -> None:
    trail = hostile_trail(tmp_path / "t.jsonl")
    status, out = audit_tool("summary", str(trail))
    assert status == 0
    assert_terminal_safe(out)
    assert "spider spider\\x1b]0;pwned" in out
    # a table row stays one line, its columns aligned on the escaped text
    rows = [line for line in out.splitlines() if line.startswith("http://site.test\\u202e")]
    assert len(rows) == 1
    for body in (trail.parent / "t.jsonl.d").iterdir():  # findings name the URLs
        body.unlink()
    status, out = audit_tool("verify", str(trail))
    assert status == 1
    assert_terminal_safe(out)
    assert "http://site.test/y\\x1b]0;pwned\\x07\\x1b[2J\\u202egnp.exe" in out


def test_verify_json_stays_json_and_the_report_line_is_escaped(tmp_path: Path) -> None:
    trail = hostile_trail(tmp_path / "t.jsonl")
    status, out = audit_tool("verify", str(trail), "--json")
    assert_terminal_safe(out)
    assert json.loads(out)["trail"] == str(trail)
    page = tmp_path / f"r{TITLE}.html"
    status, out = audit_tool("report", str(trail), "--html", str(page))
    # Its record's robots.txt origin (crawled text) is not its URL's site, and a refused
    # record says an item_reason (only a fetched page's record has an output): reported.
    assert status == 1 and out.endswith("verify: 2 problem(s)\n"), out
    assert_terminal_safe(out)
    html = page.read_text(encoding="utf-8")
    assert "\x1b" not in html and "\u202e" not in html
    assert "spider\\x1b]0;pwned\\x07\\x1b[2J" in html
