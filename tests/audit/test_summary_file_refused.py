"""``audit summary`` and ``audit report --html`` of a file an item pipeline downloaded that
the media gate refused: its download's ``url`` record (fetched, written first) is said as
its ``file`` record says, never "no rule (allowed)" (the crawl: tests/integration/
test_fates_agree.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rep_audit.summary import Summary
from rep_engine.trail.read import Line
from tests.support.tools import audit_tool, html_report
from tests.support.trailfactory import (
    ORIGIN,
    RUN,
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)

WHY = "ai-train denied by XMP plus:DataMining DMI-PROHIBITED"


def pipeline_download(path: str) -> dict[str, Any]:
    """An item pipeline's download: fetched, no page pass (no items)."""
    record = url_line(path, robots=robots_part(None))
    del record["items_kept"], record["items_dropped"]
    return record


def file_line(path: str, fate: str, **extra: Any) -> dict[str, Any]:
    return {"type": "file", "run": RUN, "time": "2026-11-23T14:00:03.000Z",
            "url": ORIGIN + path, "fate": fate, "usage": {}, "media": {}, **extra}  # fmt: skip


def refused_file_records() -> list[dict[str, Any]]:
    body = [snapshot_line(), pipeline_download("/no.jpg"), pipeline_download("/yes.jpg")]
    body += [url_line("/gallery", robots=robots_part(None))]
    body += [file_line("/no.jpg", "refused", refused_for="ai-train", why=WHY)]
    body += [file_line("/yes.jpg", "stored")]
    end = end_line(body)
    end["counts"]["files"] = 2
    return [run_line(purposes=["ai-train"]), *body, end]


def test_summary_counts_a_refused_file_under_what_refused_it(tmp_path: Path) -> None:
    trail = write_trail(tmp_path / "trail.jsonl", refused_file_records())
    status, out = audit_tool("summary", str(trail))
    assert status == 0, out
    table = out.split("deciding signal", 1)[1]
    assert re.search(rf"^file refused: {WHY} +1 +0 +1 +0 +0 +0$", table, re.M), table
    assert re.search(r"^no rule \(allowed\) +2 +0 +2 +0 +1 +0$", table, re.M), table
    assert out.startswith("1 run(s), 3 requested URL(s) (3 fetched), ")


def test_summary_keeps_no_entry_once_a_files_record_is_read() -> None:
    summary = Summary()
    for number, record in enumerate(refused_file_records(), 1):
        summary.feed(Line(number, b"", record))
    assert summary._downloads == {}
    assert list(summary.files) == [(RUN, ORIGIN + "/no.jpg")]


def test_the_html_report_draws_a_refused_file_as_refused(tmp_path: Path) -> None:
    page = html_report(tmp_path, refused_file_records()).read_text(encoding="utf-8")
    rows = re.findall(r"<tr>(.*?)</tr>", page.split('<table id="records">', 1)[1], re.S)
    [refused] = [row for row in rows if "no.<wbr>jpg" in row]
    [stored] = [row for row in rows if "yes.<wbr>jpg" in row]
    assert '<span class="dropped"></span>fetched, file refused</td>' in refused
    assert f'<td class="said">file refused: {WHY}</td>' in refused
    assert '<span class="fetched"></span>fetched</td>' in stored
    assert '<td class="said">no rule (allowed)</td>' in stored


def redirected_download_records() -> list[dict[str, Any]]:
    """A media pipeline asked for /moved.jpg (``MEDIA_ALLOW_REDIRECTS``), redirected to
    /no.jpg, whose file the media gate refused: the ``file`` record names /moved.jpg, the
    download's ``url`` record is /no.jpg's. The spider's own request of /no.jpg (a page
    record, items of its own) is another request."""
    moved = {**pipeline_download("/moved.jpg"), "fate": "redirected", "status": 301,
             "to": ORIGIN + "/no.jpg", "unscheduled": True}  # fmt: skip
    body = [snapshot_line(), moved, {**pipeline_download("/no.jpg"), "unscheduled": True}]
    body += [file_line("/moved.jpg", "refused", refused_for="ai-train", why=WHY)]
    body += [url_line("/no.jpg", robots=robots_part(None))]  # the spider's own request
    end = end_line(body)
    end["counts"]["files"] = 1
    return [run_line(purposes=["ai-train"]), *body, end]


def test_a_file_downloaded_by_redirect_is_said_refused_by_every_command(tmp_path: Path) -> None:
    """``list`` said the refused image "fetched: no rule (allowed)" and ``--fate refused``
    / ``--fate dropped`` left it out, while ``show`` of the URL asked for said refused:
    the download's record is the redirect's target's."""
    trail = str(write_trail(tmp_path / "trail.jsonl", redirected_download_records()))
    refused = f"line 4: {ORIGIN}/no.jpg fetched, file refused (purpose): {WHY}"
    status, out = audit_tool("list", trail)
    assert status == 0 and refused in out.splitlines(), out
    assert f"line 6: {ORIGIN}/no.jpg fetched: no rule (allowed)" in out.splitlines(), out
    for fate in ("refused", "dropped"):
        status, out = audit_tool("list", trail, "--fate", fate)
        assert out.splitlines() == [refused, "1 record(s)"], out
    status, out = audit_tool("summary", trail)
    table = out.split("deciding signal", 1)[1]
    assert re.search(rf"^file refused: {WHY} +1 +0 +1 +0 +0 +0$", table, re.M), table
    for asked in ("/no.jpg", "/moved.jpg"):
        status, out = audit_tool("show", trail, ORIGIN + asked)
        assert status == 0 and "line 5: file read for its own statements; not stored" in out
    status, out = audit_tool("show", trail, ORIGIN + "/no.jpg")
    assert f"  the file of {ORIGIN}/moved.jpg, downloaded here by redirect" in out, out
