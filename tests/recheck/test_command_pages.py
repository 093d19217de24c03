"""``recheck`` with a fetch (a fake crawl): a page fetched again (``--pages``) is decided as
its item is, and its trail says when, so that ``audit verify`` decides it at that time; a
fetch stopped half-way says so."""

from __future__ import annotations

import hashlib
import io
import json
import zlib
from datetime import datetime, timezone
from pathlib import Path

import pytest

from rep_audit.verify import verify
from rep_engine.fetch.cache import CacheEntry
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.urls.origins import origin_of
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import ROBOTS, TDM
from rep_engine.verdict.page import PageStatements
from rep_recheck.command import (
    EXIT_INTERRUPTED,
    EXIT_REMOVED,
    Fetcher,
    FetchRequest,
    FetchResult,
    PageRead,
    PaymentAsked,
    main,
)
from rep_recheck.documents import OriginDocuments
from rep_recheck.pacing import PAGES_NOT_CHECKED
from tests.support.recheck import report_lines, write_jsonl

BODY = b"User-agent: *\nAllow: /\n"
URL = "https://a.example/page"
#: The page was fetched before its unavailable_after date; the recheck decides it after.
FETCHED = datetime(2020, 6, 1, tzinfo=timezone.utc).timestamp()
UNAVAILABLE_AFTER = "2021-01-01T00:00:00Z"


def _fetcher(request: FetchRequest) -> FetchResult:
    origin = origin_of(URL)
    assert origin is not None and request.pages == [URL]
    entry = CacheEntry(parse_robotstxt(BODY), "200", FETCHED, 1e20, 1e20, 200,
                       zlib.compress(BODY), sha256=hashlib.sha256(BODY).hexdigest())  # fmt: skip
    documents = OriginDocuments(origin, now=FETCHED)
    documents.add(ROBOTS, origin, entry)
    statements = PageStatements((("x-robots-tag", f"unavailable_after: {UNAVAILABLE_AFTER}"),))
    page = PageRead(statements, time=FETCHED)
    return FetchResult({str(origin): documents}, {URL: page}, downloads=1)


def test_a_page_whose_unavailable_after_passed_is_removed_and_verifies(tmp_path: Path) -> None:
    """Fetched while available, its date passed before it is decided: it is refused (it
    was kept, and `audit verify` then failed the honest trail, which had no `decided`)."""
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [URL])
    trail, report = tmp_path / "trail.jsonl", tmp_path / "report.jsonl"
    argv = [str(dataset), "--purpose", "search", "--pages", "--no-progress",
            f"--trail={trail}", f"--report={report}"]  # fmt: skip
    assert main(argv, io.StringIO(), _fetcher) == EXIT_REMOVED
    assert [line["status"] for line in report_lines(report)] == ["refused"]
    result = verify(trail)
    assert result.clean, result.findings
    item = next(r for r in map(json.loads, trail.read_text().splitlines()) if r["type"] == "item")
    assert item["page"]["decided"] > UNAVAILABLE_AFTER


def test_an_interrupted_fetch_says_so_writes_no_whole_looking_output_and_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C during the fetch (the crawl closed as ``shutdown``, one origin
    of two fetched) wrote a whole-looking --out (with --keep-unknown, the items never
    checked kept), exit 1, and a trail that verified clean with nothing said."""
    urls = [URL, "https://b.example/page"]
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, urls)
    outputs = {name: tmp_path / f"{name}.jsonl" for name in ("out", "removed", "report")}
    summary, trail = tmp_path / "summary.md", tmp_path / "trail.jsonl"

    def stopped(request: FetchRequest) -> FetchResult:
        assert request.origins == ["https://a.example", "https://b.example"]
        result = _fetcher(FetchRequest(request.origins, {}, [URL]))
        result.pages.clear()
        result.interrupted = "shutdown"
        return result

    argv = [str(dataset), "--purpose", "search", "--keep-unknown", "--no-progress",
            f"--summary={summary}", f"--trail={trail}",
            *(f"--{name}={path}" for name, path in outputs.items())]  # fmt: skip
    assert main(argv, io.StringIO(), stopped) == EXIT_INTERRUPTED
    assert not any(path.exists() for path in outputs.values())
    said = summary.read_text().splitlines()
    assert said[2].startswith("**Interrupted (shutdown)"), said[:4]
    assert "recheck: Interrupted (shutdown)" in capsys.readouterr().err
    [end] = [line for line in map(json.loads, trail.read_text().splitlines())
             if line["type"] == "end"]  # fmt: skip
    assert (end["type"], end["reason"]) == ("end", "interrupted")
    result = verify(trail)
    assert result.clean and any("interrupted" in e.what for e in result.events), result.events


def test_without_pages_one_line_says_page_level_signals_were_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --pages only the documents decide: the summary and standard error say
    once that the pages' own signals were not read; with --pages neither says it."""
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [URL])

    def documents_only(request: FetchRequest) -> FetchResult:
        assert request.pages == []
        result = _fetcher(FetchRequest(request.origins, {}, [URL]))
        result.pages.clear()
        return result

    out = io.StringIO()
    main([str(dataset), "--purpose", "search", "--no-progress"], out, documents_only)
    assert out.getvalue().count(PAGES_NOT_CHECKED) == 1
    assert capsys.readouterr().err.count(f"recheck: {PAGES_NOT_CHECKED}") == 1
    out = io.StringIO()
    main([str(dataset), "--purpose", "search", "--pages", "--no-progress"], out, _fetcher)
    assert PAGES_NOT_CHECKED not in out.getvalue() + capsys.readouterr().err


def test_reading_the_dataset_says_its_progress_at_a_bounded_rate(tmp_path: Path) -> None:
    """The first pass over a large dataset says how far it is (items read, origins
    found), no more often than every PROGRESS_EVERY seconds of the clock."""
    from rep_recheck.command import PROGRESS_EVERY, Progress
    from rep_recheck.datasets import open_dataset
    from rep_recheck.fetching import origins_of as _origins

    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [f"https://{n}.example/" for n in range(3)])
    err, now = io.StringIO(), [0.0]
    progress = Progress(err, lambda: now[0])
    datasets = [open_dataset(dataset, "url", ("search",))]
    _origins(datasets, False, progress)
    assert err.getvalue() == ""  # not PROGRESS_EVERY seconds yet
    now[0] = PROGRESS_EVERY
    first = _origins(datasets, False, progress)
    assert (len(first.origins), first.total) == (3, 3)
    assert err.getvalue() == "recheck: reading the dataset: 3 items read, 3 origins found\n"
    _origins(datasets, False, progress)
    assert err.getvalue().count("\n") == 1  # the clock did not move: no second line


def test_a_page_not_fetched_again_is_unknown_and_verifies_in_a_pages_run(tmp_path: Path) -> None:
    """An item whose page could not be fetched again (``--pages``) is unknown, and its
    honest trail verifies clean (`audit verify` accepts a page's failure only in a run
    that fetched pages); the same record keeping a page part is found."""
    from tests.support.recheck import forged_item

    def failed(request: FetchRequest) -> FetchResult:
        result = _fetcher(request)
        result.pages[URL] = "HTTP 404"
        return result

    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [URL])
    trail = tmp_path / "trail.jsonl"
    argv = [str(dataset), "--purpose", "search", "--pages", "--no-progress", f"--trail={trail}"]
    assert main(argv, io.StringIO(), failed) == EXIT_REMOVED
    item = next(r for r in map(json.loads, trail.read_text().splitlines()) if r["type"] == "item")
    assert item["status"] == "unknown" and item["why"].startswith("page not fetched again")
    assert "page" not in item
    result = verify(trail)
    assert result.clean, result.findings
    forged = forged_item(trail, URL, page={"names": ["scrapy"], "headers": [], "meta": []})
    assert any("keeps what its page said" in f.what for f in verify(forged).findings)


def test_a_run_said_to_fetch_pages_keeps_each_kept_items_page(tmp_path: Path) -> None:
    """A recheck without ``--pages`` whose header a forger made say it fetched pages (so
    that an item made unknown "page not fetched again" passes): its kept items keep no
    page part, which a run that fetched each page again always writes."""
    from tests.support.recheck import forged_item

    def fetched(request: FetchRequest) -> FetchResult:
        return _fetcher(FetchRequest(request.origins, {}, [URL]))

    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [URL])
    trail = tmp_path / "trail.jsonl"
    argv = [str(dataset), "--purpose", "search", "--no-progress", f"--trail={trail}"]
    main(argv, io.StringIO(), fetched)
    header = json.loads(trail.read_text().splitlines()[0])
    assert header["recheck"]["pages"] is False and header["recheck"]["documents"] == "fetched"
    about = {**header["recheck"], "pages": True}
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    records[0]["recheck"] = about
    trail.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    forged = forged_item(trail, "none")  # the chain made again, nothing else changed
    found = [f.what for f in verify(forged).findings]
    assert any(
        "recorded kept in a run that fetched each page again (--pages), but the "
        "record keeps nothing its page said" in what
        for what in found
    ), found


def _fetched_with_no_tdmrep(said: PageStatements) -> Fetcher:
    """A fetch of :data:`URL`'s origin (its robots.txt :data:`BODY`, no tdmrep.json: a
    404) and of its page, which says ``said``."""

    def fetcher(request: FetchRequest) -> FetchResult:
        origin = origin_of(URL)
        assert origin is not None
        sha = hashlib.sha256(BODY).hexdigest()
        entry = CacheEntry(parse_robotstxt(BODY), "200", FETCHED, 1e20, 1e20, 200,
                           zlib.compress(BODY), sha256=sha)  # fmt: skip
        documents = OriginDocuments(origin, now=FETCHED)
        documents.add(ROBOTS, origin, entry)
        documents.add(TDM, origin, CacheEntry(NO_FILE, "404", FETCHED, 1e20, 1e20, 404))
        return FetchResult({str(origin): documents}, {URL: PageRead(said, time=FETCHED)},
                           downloads=1)  # fmt: skip

    return fetcher


def test_a_page_no_signal_allows_under_deny_is_not_counted_as_a_site_s_no(
    tmp_path: Path,
) -> None:
    """Under ``REP_PURPOSE_UNKNOWN = "deny"`` a page nothing speaks about is refused; the
    summary's head row "Refused by a usage signal" counted it as a site's "no", which no
    site said: it has a row of its own, and the usage row counts 0."""
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [URL])

    fetcher = _fetched_with_no_tdmrep(PageStatements(()))
    out = io.StringIO()
    argv = [str(dataset), "--purpose", "ai-train", "--pages", "--no-progress",
            "-s", "REP_PURPOSE_UNKNOWN=deny"]  # fmt: skip
    assert main(argv, out, fetcher) == EXIT_REMOVED
    summary = out.getvalue()
    assert "Content-Signal, TDMRep, RSL, noai…): 0 item(s) of 0 origin(s)" in summary, summary
    assert ("- Refused with no signal saying no (REP_PURPOSE_UNKNOWN = 'deny': no signal "
            "allowed the purpose): 1 item(s) of 1 origin(s)") in summary  # fmt: skip


def test_a_page_s_no_for_one_purpose_is_counted_as_a_site_s_no_under_deny(
    tmp_path: Path,
) -> None:
    """Under ``REP_PURPOSE_UNKNOWN = "deny"`` with ``--purpose search,ai-train``, a page
    that says ``noai`` (a "no" for ai-train) and nothing about search was refused for
    search, no signal allowing it, and counted in the row of items no site said no to:
    the site's "no" comes first, its item counted as refused by a usage signal."""
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [URL])
    report = tmp_path / "report.jsonl"

    fetcher = _fetched_with_no_tdmrep(PageStatements((("x-robots-tag", "noai"),)))
    out = io.StringIO()
    argv = [str(dataset), "--purpose", "search,ai-train", "--pages", "--no-progress",
            "--report", str(report), "-s", "REP_PURPOSE_UNKNOWN=deny"]  # fmt: skip
    assert main(argv, out, fetcher) == EXIT_REMOVED
    summary = out.getvalue()
    assert "Content-Signal, TDMRep, RSL, noai…): 1 item(s) of 1 origin(s)" in summary, summary
    assert "Refused with no signal saying no" not in summary, summary
    (line,) = report_lines(report)
    assert line["purpose"] == "ai-train", line


def _asked_a_price(request: FetchRequest) -> FetchResult:
    """The page answered 402 Payment Required, with its price."""
    result = _fetcher(request)
    result.pages[URL] = PaymentAsked({"crawler-price": "USD 0.01"}, FETCHED)
    return result


@pytest.mark.parametrize(("purpose", "status"), [("ai-train", "refused"), ("search", "unknown")])
def test_a_page_that_asks_a_price_is_never_kept_and_verifies(
    tmp_path: Path, purpose: str, status: str
) -> None:
    """A kept item whose page now answers 402 (``--pages``): for an AI purpose, refused by
    its page (a price never paid grants nothing), which ``--keep-unknown`` does not keep;
    for search alone, unknown. Its record names the price and verifies; the same record
    forged kept, or refused in a run without an AI purpose (or unknown in one with), is
    found."""
    from tests.support.recheck import forged_item

    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [URL])
    trail, out, report = (tmp_path / f"{name}.jsonl" for name in ("trail", "out", "report"))
    argv = [str(dataset), "--purpose", purpose, "--pages", "--keep-unknown", "--no-progress",
            "--consult", "robots.txt", f"--trail={trail}", f"--out={out}",
            f"--report={report}"]  # fmt: skip
    kept = main(argv, io.StringIO(), _asked_a_price) == 0
    assert kept is (status == "unknown") and bool(out.read_text()) is kept
    [line] = report_lines(report)
    assert line["status"] == status and "402 Payment Required (crawler-price: USD 0.01)" in str(
        line
    )
    item = next(r for r in map(json.loads, trail.read_text().splitlines()) if r["type"] == "item")
    assert (item["status"], item["payment"]) == (status, {"crawler-price": "USD 0.01"})
    result = verify(trail)
    assert result.clean, result.findings
    forged = forged_item(trail, URL, status="kept", refused_by=None, why=None, item_reason=None)
    said = [f.what for f in verify(forged).findings]
    assert any("recorded kept, but its page answered 402" in what for what in said), said
    forged.unlink()
    forged.with_name("forged.jsonl.d").unlink()
    other = (
        {"status": "unknown", "refused_by": "unreachable", "item_reason": None,
         "why": "page not fetched again: its page answered 402 Payment Required"}
        if status == "refused"
        else {"status": "refused", "refused_by": "page", "item_reason": "purpose"}
    )  # fmt: skip
    said = [f.what for f in verify(forged_item(trail, URL, **other)).findings]
    assert any("answered 402 Payment Required" in what for what in said), said
