"""``audit summary`` names a deciding usage signal by what the site said (its ``source``),
as the HTML report does, never by its vocabulary's name (``aipref``, ``robots-meta``,
``content-signal``): the words a reader of the trail cannot look up."""

from __future__ import annotations

from pathlib import Path

from tests.support.tools import audit_tool
from tests.support.trailfactory import (
    AIPREF_SOURCE,
    NOAI_META,
    denying_usage,
    end_line,
    report_states_records,
    robots_part,
    url_line,
    write_trail,
)

SIGNAL_SOURCE = "header Content-Signal: ai-train=no"


def test_the_deciding_signal_table_says_what_the_site_said(tmp_path: Path) -> None:
    run, *body, _ = report_states_records()
    body.append(url_line("/signal", fate="refused", status=None, refused_by="purpose",
                         robots=robots_part(None),
                         usage=denying_usage("content-signal", SIGNAL_SOURCE)))  # fmt: skip
    trail = write_trail(tmp_path / "trail.jsonl", [run, *body, end_line(body)])
    status, out = audit_tool("summary", str(trail))
    assert status == 0, out
    table = out.split("deciding signal", 1)[1]
    assert f"denied by {AIPREF_SOURCE}  " in table
    assert f"denied by {NOAI_META}  " in table
    assert f"refused by purpose ({SIGNAL_SOURCE})  " in table
    for vocabulary in ("aipref", "robots-meta", "content-signal"):
        assert f"by {vocabulary}" not in out and f"({vocabulary})" not in out
