"""What ``audit show`` prints of a record (rep-audit/rep_audit/show.py): the
conditions on use a Content-Signal ``use=`` level set, which decide no purpose (the
condition on the decision: tests/usage/test_purpose_content_signal_use.py); when its
request was sent, and the fetch of the robots.txt copy in force then."""

from __future__ import annotations

from pathlib import Path

import pytest

from rep_audit.show import _usage
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.trail.lines import usage_part
from rep_engine.verdict.policy import UsagePolicy
from tests.support.documents import CLOUDFLARE_USE_REFERENCE
from tests.support.tools import audit_tool
from tests.support.trailfactory import (
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)

URL = "https://example.com/article"


def test_audit_show_prints_the_conditions_of_a_record() -> None:
    rules = parse_robotstxt(CLOUDFLARE_USE_REFERENCE)
    decision = UsagePolicy.of(["ai-input"]).before_fetch(rules, URL, "TestBot").decision()
    lines = _usage(usage_part(decision, "", ""))
    assert lines[-1] == "  conditions on use: use=reference (they decide no purpose)"
    assert not any("conditions" in line for line in _usage({"answers": {}, "signals": []}))


FIRST, AGAIN = "2026-11-23T14:00:01.000Z", "2026-11-23T14:00:05.000Z"


@pytest.mark.parametrize(
    ("sent_at", "time", "fetched"),
    [
        ("2026-11-23T14:00:06.000Z", "2026-11-23T14:00:07.000Z", AGAIN),
        ("2026-11-23T14:00:05.000Z", "2026-11-23T14:00:07.000Z", AGAIN),  # the same ms
        ("2026-11-23T14:00:03.000Z", "2026-11-23T14:00:07.000Z", FIRST),  # written later
        (None, "2026-11-23T14:00:06.000Z", AGAIN),  # never sent: its record's time
        (None, "2026-11-23T14:00:02.000Z", FIRST),
    ],
)
def test_show_names_the_fetch_of_the_robots_txt_copy_in_force_when_sent(
    tmp_path: Path, sent_at: str | None, time: str, fetched: str
) -> None:
    """The same robots.txt body fetched twice in a run (its copy expired, fetched again):
    a line each. ``show`` names the fetch in force when the request was sent (the latest
    fetched no later than its ``sent_at``; never sent: its record's ``time``), not the
    body's first fetch, and prints ``sent_at``, the time a site's access log shows."""
    if sent_at:
        path, record = "/private/ok/1", url_line(
            "/private/ok/1", robots=robots_part(3, "Allow: /private/ok"), sent_at=sent_at,
            time=time)  # fmt: skip
    else:
        path, record = "/private/x", url_line(
            "/private/x", fate="refused", status=None, refused_by="robots.txt",
            why="Forbidden by robots.txt", robots=robots_part(2, "Disallow: /private"),
            time=time)  # fmt: skip
    body = [snapshot_line(fetched=FIRST), snapshot_line(fetched=AGAIN), record]
    trail = write_trail(tmp_path / "trail.jsonl", [run_line(), *body, end_line(body)])
    status, out = audit_tool("show", str(trail), f"http://site.test{path}")
    assert status == 0 and "the same decision" in out, out
    assert f"http://site.test/robots.txt fetched {fetched}, HTTP 200" in out
    said = f"  sent at {sent_at} (its last attempt left for the site then: the time its access "
    assert (said in out) is bool(sent_at), out
