"""A robots.txt ``Content-Signal`` or ``Content-Usage`` line that said no is quoted as the
site wrote it, with its number, wherever its refusal is told: the trail's ``why`` and
signal ``source``, the end-of-crawl report and ``audit show``; and a trail written
before, which quoted a ``Content-Signal`` line by the items it read and a
``Content-Usage`` line by its key's one spelling, still verifies, as that line's quote
(docs/audit-trail.md, '`verify`')."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest_twisted

from rep_audit.verify import verify
from scrapy_rep.crawl.report import RepReport
from tests.support.audittrail import by_url
from tests.support.robotsite import Sites, crawl, html_page, robots
from tests.support.tools import audit_tool
from tests.support.trailfactory import encode

#: Cloudflare's managed robots.txt line, as it writes it (no space after a comma), and a
#: Content-Usage line whose key a site spelled in lower case.
SIGNAL_TEXT = "User-agent: *\nContent-Signal: search=yes,ai-train=no\nAllow: /\n"
USAGE_TEXT = "User-agent: *\ncontent-usage: /books train-ai=n\nAllow: /\n"
SIGNAL_QUOTE = "robots.txt line 2: Content-Signal: search=yes,ai-train=no"
USAGE_QUOTE = "robots.txt line 2: content-usage: /books train-ai=n"
#: How the releases before this one quoted the same lines.
EARLIER = {
    SIGNAL_QUOTE: "robots.txt line 2: Content-Signal: search=yes, ai-train=no",
    USAGE_QUOTE: "robots.txt line 2: Content-Usage: /books train-ai=n",
}


async def quoting_crawl(tmp_path: Path, purpose: str) -> tuple[Path, list[str], Any]:
    """A crawl for ``purpose`` of a page of each site (and the report it made)."""
    sites = Sites()
    for name, text, path in (("a", SIGNAL_TEXT, "/page"), ("b", USAGE_TEXT, "/books/1")):
        site = sites.add(name)
        site.script("/robots.txt", robots(text))
        site.script(path, html_page())
    urls = [sites.url("a", "/page"), sites.url("b", "/books/1")]
    trail = tmp_path / "trail.jsonl"
    settings = {"REP_AUDIT_FILE": str(trail), "REP_PURPOSE": purpose, "REP_REPORT": True}
    try:
        crawler, _ = await crawl(urls, settings)
    finally:
        await sites.close()
    [report] = [e for e in crawler.extensions.middlewares if isinstance(e, RepReport)]
    return trail, urls, report


def written_before(trail: Path, quotes: dict[str, str]) -> Path:
    """``trail`` as a release before this one wrote it (``forged.jsonl`` beside it, its
    snapshots linked, its chain and tree heads made again): each quote of ``quotes`` in
    the earlier form it maps to."""
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    text = json.dumps([{k: v for k, v in r.items() if k != "prev"} for r in records])
    for now, earlier in quotes.items():
        text = text.replace(json.dumps(now)[1:-1], json.dumps(earlier)[1:-1])
    forged = trail.with_name("forged.jsonl")
    forged.write_bytes(b"".join(encode(json.loads(text))))
    forged.with_name("forged.jsonl.d").symlink_to(trail.with_name(trail.name + ".d"))
    return forged


def quote_problems(trail: Path) -> list[str]:
    return [finding.what for finding in verify(trail).findings if not finding.event]


@pytest_twisted.ensureDeferred
async def test_a_refusal_quotes_the_line_as_the_site_wrote_it(tmp_path: Path) -> None:
    trail, urls, report = await quoting_crawl(tmp_path, "ai-train")
    records = by_url(trail)
    for url, quote in zip(urls, (SIGNAL_QUOTE, USAGE_QUOTE), strict=True):
        record = records[url]
        assert record["fate"] == "refused" and record["refused_by"] == "purpose"
        assert record["why"] == f"Not fetched: ai-train denied by {quote}"
        assert [s["source"] for s in record["usage"]["signals"]] == [quote]
        assert quote in report.text
        status, out = audit_tool("show", str(trail), url)
        assert status == 0 and quote in out, out
    assert quote_problems(trail) == []


@pytest_twisted.ensureDeferred
async def test_a_trail_that_quoted_a_line_as_an_earlier_release_did_verifies(
    tmp_path: Path,
) -> None:
    """Refusals (their ``why`` and signal) and a fetched page's usage decision, which its
    page part is decided again with."""
    for purpose in ("ai-train", "search"):
        folder = tmp_path / purpose
        folder.mkdir()
        trail, _, _ = await quoting_crawl(folder, purpose)
        earlier = written_before(trail, EARLIER)
        assert EARLIER[SIGNAL_QUOTE] in earlier.read_text()
        assert quote_problems(earlier) == []


@pytest_twisted.ensureDeferred
async def test_an_earlier_quote_of_another_line_is_found(tmp_path: Path) -> None:
    trail, _, _ = await quoting_crawl(tmp_path, "ai-train")
    moved = {now: earlier.replace("line 2", "line 3") for now, earlier in EARLIER.items()}
    found = quote_problems(written_before(trail, moved))
    assert f"usage signal {moved[SIGNAL_QUOTE]!r} is not in its snapshot" in found
    assert f"usage signal {moved[USAGE_QUOTE]!r} is not in its snapshot" in found
    assert any(f"with why 'Not fetched: ai-train denied by {moved[SIGNAL_QUOTE]}'" in one
               for one in found)  # fmt: skip
