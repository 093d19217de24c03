"""``python -m scrapy_rep audit …`` and ``scrapy rep-audit …`` (docs/audit-trail.md, "Reading
the trail"): summary, verify, show, report, and their exit codes (0 clean, 1 problems
found, 2 unusable input), run in this process (as processes of their own:
tests/integration/test_audit_cli.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.support.tools import audit_streams, audit_tool
from tests.support.trailfactory import (
    ORIGIN,
    ROBOTS,
    TDMREP,
    encode,
    end_line,
    robots_part,
    run_line,
    sha,
    snapshot_line,
    standard_records,
    url_line,
    write_trail,
)

HOSTILE = '/"><script>alert(1)</script><img src=x onerror=alert(2)>&amp;'


def page_usage(vocabulary: str, source: str) -> dict[str, Any]:
    """A recorded usage decision: a page's own signal said no to ai-train."""
    signal = {"vocabulary": vocabulary, "answers": {"ai-train": False}, "source": source}
    answers = {"search": None, "ai-train": False}
    return {"answers": answers, "decided_by": {"ai-train": 0}, "signals": [signal]}


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    trail = write_trail(tmp_path / "trail.jsonl")
    assert audit_tool()[0] == 2
    assert audit_tool("frobnicate", str(trail))[0] == 2
    assert audit_tool("report", str(trail))[0] == 2  # --html is required
    assert audit_tool("show", str(trail))[0] == 2  # no URL
    assert audit_tool("--help")[0] == 0


def test_summary_counts_per_origin_purpose_and_signal(tmp_path: Path) -> None:
    body = [
        snapshot_line(),
        url_line("/", robots=robots_part(None), items_kept=3, items_dropped=1),
        url_line(
            "/private/x",
            fate="refused",
            refused_by="robots.txt",
            robots=robots_part(2, "Disallow: /private"),
        ),
        url_line("/private/ok/1", robots=robots_part(3, "Allow: /private/ok")),
        url_line("/gone", fate="failed", robots=robots_part(None), attempts=3),
        url_line(
            "/b",
            fate="refused",
            refused_by="purpose",
            robots=robots_part(None),
            usage=page_usage("aipref", "header Content-Usage: train-ai=n"),
        ),
    ]
    records = [run_line(purposes=["search", "ai-train"]), *body, end_line(body)]
    status, out = audit_tool("summary", str(write_trail(tmp_path / "t.jsonl", records)))
    assert status == 0
    assert "1 run(s), 5 requested URL(s) (1 failed, 2 fetched, 2 refused), 4 item(s) kept" in out
    assert re.search(r"^http://site\.test +5 +2 +2 +1 +4 +1$", out, re.M), out
    assert re.search(r"^ai-train +5 +2 +2 +1 +4 +1 +1$", out, re.M), out
    assert re.search(r"^search +5 +2 +2 +1 +4 +1 +0$", out, re.M), out
    said = r"^refused by purpose \(header Content-Usage: train-ai=n\) +1 +1 +0 +0 +0 +0$"
    assert re.search(said, out, re.M), out
    assert re.search(r"^refused by robots\.txt +1 +1 ", out, re.M), out
    assert re.search(r"^allowed by a robots\.txt rule +1 +0 +1 ", out, re.M), out
    assert re.search(r"^no rule \(allowed\) +2 +0 +1 +1 +3 +1$", out, re.M), out


def test_show_tells_the_story_of_one_url_across_runs(tmp_path: Path) -> None:
    first = standard_records()
    second = [
        {**r, "run": "f" * 32, "time": "2026-11-24T09:00:00.000Z"} for r in standard_records()
    ]
    lines = encode(first)
    lines += encode(second, prev=sha(lines[-1]))
    path = write_trail(tmp_path / "t.jsonl", lines=lines)
    status, out = audit_tool("show", str(path), "http://site.test/private/x")
    assert status == 0
    assert out.count("http://site.test/private/x was refused by robots.txt (1 attempt)") == 2
    assert "run ffffffffffffffffffffffffffffffff (spider test" in out
    assert (
        'robots.txt of http://site.test: line 2 (Disallow: /private) decided it for "testbot"'
        in out
    )
    assert (
        "http://site.test/robots.txt fetched 2026-11-23T14:00:01.000Z, HTTP 200, parsed, 88 bytes"
        in out
    )
    assert out.count("today's engine, from the snapshots: the same decision") == 2
    status, out = audit_tool("show", str(path), "http://site.test/never")
    assert status == 1 and "no record of http://site.test/never" in out


def test_show_says_when_todays_engine_differs(tmp_path: Path) -> None:
    path = write_trail(tmp_path / "t.jsonl")
    (tmp_path / "t.jsonl.d" / sha(ROBOTS)).unlink()
    status, out = audit_tool("show", str(path), "http://site.test/")
    assert status == 0 and "today's engine DIFFERS: robots.txt snapshot" in out and "missing" in out


def test_show_usage_items_and_redirects(tmp_path: Path) -> None:
    body = [
        snapshot_line(),
        url_line(
            "/old",
            fate="redirected",
            to="http://site.test/new",
            status=301,
            robots=robots_part(None),
        ),
        url_line(
            "/new",
            robots=robots_part(None),
            items_kept=0,
            items_dropped=2,
            item_reason="noindex",
            usage=page_usage("robots-meta", '<meta name="robots" content="noai">'),
        ),
    ]
    path = write_trail(tmp_path / "t.jsonl", [run_line(), *body, end_line(body)])
    status, out = audit_tool("show", str(path), "http://site.test/new")
    assert status == 0
    assert "http://site.test/old was redirected here" in out
    # A trail written before item_why was recorded: the source is not known.
    assert "items: 0 kept, 2 dropped (noindex: whether a header or a meta tag said it" in out
    assert 'usage signal [robots-meta] <meta name="robots" content="noai">: ai-train no' in out
    assert 'ai-train: denied by <meta name="robots" content="noai">' in out
    assert "search: unknown" in out


def test_report_escapes_hostile_strings_and_loads_nothing(tmp_path: Path) -> None:
    body = [
        snapshot_line(),
        url_line(
            HOSTILE, fate="refused", refused_by=HOSTILE, why=HOSTILE, robots=robots_part(None)
        ),
    ]
    records = [run_line(spider=HOSTILE), *body, end_line(body)]
    trail = write_trail(tmp_path / "t.jsonl", records, bodies=(ROBOTS, TDMREP))
    page = tmp_path / "report.html"
    status, out = audit_tool("report", str(trail), "--html", str(page))
    assert status == 0, out
    html = page.read_text().replace("<wbr>", "")  # where long text may wrap
    assert "<script>alert" not in html and "<img" not in html
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;" in html
    )
    assert html.count("<script>") == 1  # ours, and it reads no trail data
    assert 'title="/&quot;&gt;&lt;script&gt;alert(1)' in html  # the why, as an attribute
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)  # nothing fetched
    assert "default-src 'none'" in html
    runs = html.split('<table id="runs">', 1)[1].split("</table>", 1)[0]
    header = (
        '<td>0.1.0</td><td>search</td><td>google</td><td>testbot</td><td class="ua">testbot/1.0'
    )
    assert header + "</td>" in runs
    assert "<td>finished</td>" in runs


def test_report_exit_1_when_verify_finds_problems_and_row_cap(tmp_path: Path) -> None:
    trail = write_trail(tmp_path / "t.jsonl", bodies=())
    page = tmp_path / "r.html"
    status, out = audit_tool("report", str(trail), "--html", str(page), "--max-rows", "1")
    assert status == 1 and "verify: 4 problem(s)" in out
    html = page.read_text()
    records = html.split('<table id="records">', 1)[1]
    assert records.count("<tr><td>") == 1
    assert "The table shows the first 1 records of 3." in html
    assert audit_tool("report", str(trail), "--html", str(tmp_path / "no" / "dir.html"))[0] == 2


def test_show_a_request_refused_before_any_download_without_a_snapshot(tmp_path: Path) -> None:
    gave_up = "robots.txt unreachable for 600 s (503): requests dropped"
    decided = {"agent": "testbot", "why": gave_up}
    refused = {"fate": "refused", "refused_by": "unreachable", "attempts": 0, "status": None}
    body = [url_line("/x", why=gave_up, robots=decided, **refused)]
    path = write_trail(tmp_path / "t.jsonl", [run_line(), *body, end_line(body)])
    status, out = audit_tool("show", str(path), "http://site.test/x")
    assert status == 0
    assert "http://site.test/x was refused by unreachable (never downloaded): robots.txt" in out
    assert f'robots.txt of http://site.test: no line decided it for "testbot": {gave_up}' in out
    assert "no robots.txt snapshot to re-derive it from (nothing was read)" in out


def test_a_run_of_a_schema_no_reader_knows_is_refused_by_every_command(tmp_path: Path) -> None:
    """A trail whose second run says schema 4 (a newer release's): `verify` reports it,
    and `show`, `list`, `summary`, `report` and `export` say they do not know it in one
    line (exit 2), never reading it as one they know; `export` writes nothing."""
    first = [run_line(), snapshot_line(), url_line("/", robots=robots_part(None))]
    newer = [dict(line, run="f" * 32) for line in first]
    newer[0]["schema"] = 4
    trail = write_trail(tmp_path / "t.jsonl", [*first, end_line(first[1:]), *newer])
    status, out, err = audit_streams("verify", str(trail))
    assert status == 1 and "schema 4; this reader knows schemas 1, 2 and 3" in out, out
    export = tmp_path / "export.jsonl"
    for argv in (["show", str(trail), f"{ORIGIN}/"], ["list", str(trail)], ["summary", str(trail)],
                 ["report", str(trail), "--html", str(tmp_path / "r.html")],
                 ["export", str(trail), "--out", str(export)]):  # fmt: skip
        status, out, err = audit_streams(*argv)
        assert status == 2, (argv, out, err)
        assert err.count("\n") == 1 and "line 5: run ffffffff: schema 4" in err, (argv, err)
        assert "newer release" in err
    assert not export.exists() and not list(tmp_path.glob(".export*"))
