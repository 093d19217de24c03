"""The demo's report as docs/demo.md documents it, for the tests that run the demo crawl
(in-process: tests/integration/test_demo.py; without a reactor, as a user runs it:
tests/integration/test_reactorless.py)."""

from __future__ import annotations

import re

from tests.support.paths import DOCS

DEMO_PAGE = DOCS / "demo.md"
#: The demo site's preferred ports, which docs/demo.md's report shows.
PORTS = (8301, 8302, 8303, 8304, 8305)


def documented_report(which: str = "") -> str:
    """The text block after ``<!-- demo report -->`` (or ``<!-- demo report ai-train -->``)
    in docs/demo.md."""
    text = DEMO_PAGE.read_text(encoding="utf-8")
    match = re.search(rf"<!-- demo report{which} -->\n```text\n(.*?)```", text, re.DOTALL)
    assert match, "docs/demo.md has no demo report block"
    return match.group(1)
