"""What ``audit show`` prints of a record's usage decision (rep-audit/rep_audit/storylines.py):
the conditions on use a Content-Signal ``use=`` level set, which decide no purpose (the
condition on the decision: tests/usage/test_purpose_content_signal_use.py)."""

from __future__ import annotations

from rep_audit.storylines import _usage
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.trail.lines import usage_part
from rep_engine.verdict.policy import UsagePolicy
from tests.support.documents import CLOUDFLARE_USE_REFERENCE

URL = "https://example.com/article"


def test_audit_show_prints_the_conditions_of_a_record() -> None:
    rules = parse_robotstxt(CLOUDFLARE_USE_REFERENCE)
    decision = UsagePolicy.of(["ai-input"]).before_fetch(rules, URL, "TestBot").decision()
    lines = _usage(usage_part(decision, "", ""))
    assert lines[-1] == "  conditions on use: use=reference (they decide no purpose)"
    assert not any("conditions" in line for line in _usage({"answers": {}, "signals": []}))
