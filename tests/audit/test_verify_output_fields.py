"""``audit verify`` holds the fields that say what a page's output was (``items_kept``,
``items_dropped``, ``items_not_kept``, ``links_not_followed``, ``item_reason``…) to what
the crawl writes: counts (whole numbers, none negative), on a fetched page's record only.
A trail forged with others (and its chain written again) was clean, while ``audit
summary`` and ``audit show`` counted them: a refused URL's items as kept, negative or
made-up counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from tests.support.tools import audit_streams
from tests.support.trailfactory import (
    ORIGIN,
    end_line,
    robots_part,
    standard_records,
    url_line,
    write_trail,
)

#: (the record's path, the fields forged, the field a finding names).
FORGED: list[tuple[str, dict[str, Any], str]] = [
    ("/private/x", {"items_kept": 4, "items_dropped": 1}, "items_dropped"),
    ("/private/x", {"items_not_kept": 3}, "items_not_kept"),
    ("/private/x", {"links_not_followed": 2}, "links_not_followed"),
    ("/private/x", {"item_reason": "noindex"}, "item_reason"),
    ("/", {"items_not_kept": -5}, "items_not_kept"),
    ("/", {"items_not_kept": "3"}, "items_not_kept"),
    ("/", {"items_not_kept": True}, "items_not_kept"),
    ("/", {"items_not_kept": 1.5}, "items_not_kept"),
    ("/", {"items_not_kept": {"n": 1}}, "items_not_kept"),
    ("/", {"items_kept": -3}, "items_kept"),
    ("/", {"items_kept": True}, "items_kept"),
    ("/", {"items_dropped": -3}, "items_dropped"),
    ("/", {"links_not_followed": -1}, "links_not_followed"),
]


def _with_output_fields(tmp_path: Path, path: str, fields: dict[str, Any]) -> Path:
    records = standard_records()
    for record in records:
        if record.get("type") == "url" and record["url"] == ORIGIN + path:
            record.update(fields)
    records[-1] = end_line(records[1:-1])
    return write_trail(tmp_path / "trail.jsonl", records)


@pytest.mark.parametrize(("path", "fields", "named"), FORGED, ids=repr)
def test_a_forged_output_field_is_found(
    tmp_path: Path, path: str, fields: dict[str, Any], named: str
) -> None:
    trail = _with_output_fields(tmp_path, path, fields)
    result = verify(trail)
    found = [str(finding) for finding in result.findings]
    assert not result.clean
    assert any(ORIGIN + path in f and named in f for f in found), found


def test_the_crawls_own_fields_are_clean(tmp_path: Path) -> None:
    fields = {"items_kept": 0, "items_not_kept": 2, "items_dropped": 1,
              "item_reason": "noindex", "links_not_followed": 0}  # fmt: skip
    trail = _with_output_fields(tmp_path, "/", fields)
    assert verify(trail).clean


def test_the_items_a_refused_records_errback_kept_are_held_to_its_end_line(
    tmp_path: Path,
) -> None:
    """A refused request's errback yields items, which its record counts (``items_kept``)
    and its run's end line too (``errback_items``): clean, and counted by ``audit summary``.
    A record forged to say so with an end line that does not (its run counts the items its
    page pass let through, ``items_passed``, as a crawl's does) is found."""
    records = standard_records()
    for record in records:
        if record.get("url") == ORIGIN + "/private/x":
            record.update(items_kept=4, items_dropped=0)
    honest = [*records[:-1], end_line(records[1:-1])]
    honest[-1]["counts"].update(items_passed=2, errback_items=4)
    trail = write_trail(tmp_path / "honest.jsonl", honest)
    result = verify(trail)
    assert result.clean, [str(finding) for finding in result.findings]
    code, out, _ = audit_streams("summary", str(trail))
    assert code == 0 and "6 item(s) kept, 0 dropped" in out, out
    del honest[-1]["counts"]["errback_items"]
    forged = write_trail(tmp_path / "forged.jsonl", honest)
    found = [str(finding) for finding in verify(forged).findings]
    assert any("(errback_items), the run's records 4" in f for f in found), found


def _with_failed(tmp_path: Path, fields: dict[str, Any]) -> Path:
    """The standard trail and a failed download (no response), with ``fields``."""
    records = standard_records()
    failed = url_line("/reset", fate="failed", status=None, robots=robots_part(None),
                      why="no response", **fields)  # fmt: skip
    records[-1:] = [failed, end_line([*records[1:-1], failed])]
    return write_trail(tmp_path / "trail.jsonl", records)


def test_the_items_an_errback_yielded_for_a_failed_download_are_clean_and_counted(
    tmp_path: Path,
) -> None:
    """A failed download's errback yields items, which its record counts (``items_kept``,
    ``items_dropped`` 0): verify found "only a fetched page's record says what its output
    was" in the crawl's honest trail; ``audit summary`` counts them with the pages'."""
    trail = _with_failed(tmp_path, {"items_kept": 2, "items_dropped": 0})
    result = verify(trail)
    assert result.clean, [str(finding) for finding in result.findings]
    code, out, _ = audit_streams("summary", str(trail))
    assert code == 0 and "4 item(s) kept, 0 dropped" in out, out


#: What a failed download's record never says (a page pass read none of its items).
NOT_OF_A_FAILURE: list[dict[str, Any]] = [
    {"items_dropped": 1}, {"item_reason": "noindex"}, {"items_not_kept": 1},
    {"links_not_followed": 1}, {"items_kept": -1}, {"items_kept": "2"},
]  # fmt: skip


@pytest.mark.parametrize("fields", NOT_OF_A_FAILURE, ids=repr)
def test_a_failed_download_says_no_more_of_an_output_than_its_errbacks_items(
    tmp_path: Path, fields: dict[str, Any]
) -> None:
    """No page pass read a failed download's errback's items: it drops none, has no links
    and no item reason, and its items kept are a count."""
    trail = _with_failed(tmp_path, fields)
    found = [str(finding) for finding in verify(trail).findings]
    assert any(ORIGIN + "/reset" in f and next(iter(fields)) in f for f in found), found
