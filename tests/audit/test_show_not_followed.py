"""``audit show`` of a link not followed: no record of its own, so the story of the page
that named it (tests/integration/test_report.py runs it on a real crawl's trail)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.tools import audit_tool
from tests.support.trailfactory import (
    ORIGIN,
    end_line,
    robots_part,
    run_line,
    sha,
    snapshot_line,
    url_line,
    write_trail,
)


def test_show_of_a_link_tells_the_story_of_the_page_that_named_it_once(tmp_path: Path) -> None:
    """A start URL its pages link back to is downloaded twice (two records), and each
    record names its rel="nofollow" link: the page's two records are told once each, not
    once per record that names the link."""
    named: dict[str, Any] = {"links_not_followed": 1, "not_followed": [f"{ORIGIN}/ads"]}
    body = [
        snapshot_line(),
        url_line("/", robots=robots_part(None), **named),
        url_line("/", robots=robots_part(None), id=sha(b"again")[:40], **named),
    ]
    path = write_trail(tmp_path / "t.jsonl", [run_line(), *body, end_line(body)])
    status, out = audit_tool("show", str(path), f"{ORIGIN}/ads")
    assert status == 1  # no record of its own
    assert "it is a link not followed" in out
    assert out.count(f"{ORIGIN}/ was fetched (1 attempt, HTTP 200)") == 2  # its two records
    assert out.count(f"{path}, lines 3, 4: the page {ORIGIN}/") == 1
    assert out.count(f"links not followed (never requested, no records of their own): 1: "
                     f"{ORIGIN}/ads") == 2  # fmt: skip
