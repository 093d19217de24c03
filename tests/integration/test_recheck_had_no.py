"""A "no" of a document that was had refuses, whatever was not had: the recheck's fetch
and the crawl, on local origins whose tdmrep.json answers 503.

``no`` says no for ai-train in its robots.txt (``Content-Usage: train-ai=n``, and
``Disallow: /private``); ``quiet`` says nothing; ``down``'s robots.txt answers 503 too,
and its tdmrep.json (answering) reserves ``/tdm/``. The recheck fetching their documents
now reported ``no``'s item and ``down``'s ``/tdm/1`` ``unknown`` (written to ``--out``
with ``--keep-unknown``, exit 0) and ``audit verify`` failed its honest trail; they are
refused by the ``Content-Usage`` line and the tdmrep.json entry, and only the items
nothing had says no to are unknown. The crawl refuses the requests (tests/recheck/
test_had_no.py has the WARC's case).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_twisted

from scrapy_rep.audit.verify import verify
from scrapy_rep.recheck.command import EXIT_REMOVED
from tests.integration.test_recheck import _recheck_command
from tests.support.recheck import report_lines, write_jsonl
from tests.support.robotsite import ItemSpider, Reply, Sites, crawl, robots

SAYS_NO = "User-agent: *\nDisallow: /private\nContent-Usage: train-ai=n\n"


def _sites() -> Sites:
    sites = Sites()
    sites.add("no").script("/robots.txt", robots(SAYS_NO))
    sites.add("quiet").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    for origin in sites.origins.values():
        origin.script("/.well-known/tdmrep.json", Reply(503))
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    reserved = b'[{"location": "/tdm/*", "tdm-reservation": 1}]'
    down.script(
        "/.well-known/tdmrep.json", Reply(200, reserved, {"Content-Type": "application/json"})
    )
    return sites


@pytest_twisted.ensureDeferred
async def test_the_recheck_refuses_what_a_fetched_robotstxt_says_no_to(tmp_path: Path) -> None:
    sites = _sites()
    urls = [sites.url("no", "/x"), sites.url("no", "/private/1"), sites.url("quiet", "/x"),
            sites.url("down", "/tdm/1"), sites.url("down", "/x")]  # fmt: skip
    dataset = tmp_path / "items.jsonl"
    lines = write_jsonl(dataset, urls)
    paths = {name: tmp_path / f"{name}.jsonl" for name in ("out", "report", "trail")}
    options = [f"--{name}={path}" for name, path in paths.items()]
    try:
        code, said = await _recheck_command(str(dataset), "--keep-unknown", *options)
    finally:
        await sites.close()
    assert sites.requested("no").count("/.well-known/tdmrep.json") >= 1  # asked, not had
    assert code == EXIT_REMOVED, said
    report = {line["url"]: line for line in report_lines(paths["report"])}
    statuses = [(report[url]["status"], report[url]["signal"]) for url in urls]
    assert statuses == [("refused", "aipref"), ("refused", "robots.txt"), ("unknown", "unknown"),
                        ("refused", "tdmrep"), ("unknown", "unknown")]  # fmt: skip
    assert report[urls[0]]["text"] == "Content-Usage: train-ai=n"
    assert report[urls[3]]["text"] == '(location "/tdm/*")'
    assert "503" in report[urls[2]]["why"] and "503" in report[urls[4]]["why"]
    assert paths["out"].read_bytes() == lines[2] + lines[4]  # what nothing had refuses
    by_signal = said[said.index("### Refusals by signal") :]
    assert "| aipref | 1 |" in by_signal and "| tdmrep | 1 |" in by_signal
    result = verify(paths["trail"])
    assert result.clean, result.findings


@pytest.mark.parametrize("action", ["drop", "allow"])
@pytest_twisted.ensureDeferred
async def test_the_crawl_refuses_what_robotstxt_says_no_to_whatever_tdmrep_json_says(
    tmp_path: Path, action: str
) -> None:
    """The crawl holds the request while tdmrep.json (or robots.txt) is retried, then
    refuses it: given up on (``drop``), or by robots.txt's ``Content-Usage`` line or the
    tdmrep.json that answers (``allow``). Never sent."""
    sites = _sites()
    trail = tmp_path / "crawl.jsonl"
    urls = [sites.url("no", "/x"), sites.url("quiet", "/x"), sites.url("down", "/tdm/1")]
    settings = {
        "REP_PURPOSE": "ai-train",
        "REP_UNREACHABLE_ACTION": action,
        "REP_UNREACHABLE_MAX_WAIT": 1.0,
        "REP_AUDIT_FILE": str(trail),
    }
    try:
        _, spider = await crawl(urls, settings, ItemSpider)
    finally:
        await sites.close()
    assert "/x" not in sites.requested("no") and "/tdm/1" not in sites.requested("down")
    assert all(url in spider.dropped for url in (urls[0], urls[2]))
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    fates = {r["url"]: (r["fate"], r.get("refused_by")) for r in records if r["type"] == "url"}
    by = "unreachable" if action == "drop" else "purpose"
    assert fates[urls[0]] == fates[urls[2]] == ("refused", by)
    assert fates[urls[1]] == (("refused", "unreachable") if action == "drop" else ("fetched", None))
    result = verify(trail)
    assert result.clean, result.findings
