"""A Common-Crawl-style WARC holds robots.txt captures and no tdmrep.json: for an AI
purpose every item was unknown, said only per item. The run says it as it starts and at
the top of its summary, each item says "TDMRep not checked", and ``--fetch-missing``
fetches now only what the WARC lacks."""

from __future__ import annotations

import hashlib
import io
import time
import zlib
from pathlib import Path

import pytest

from rep_audit.verify import verify
from rep_engine.fetch.cache import CacheEntry
from rep_engine.urls.origins import origin_of
from rep_engine.usage.tdmrep import parse_tdmrep
from rep_engine.verdict.decide import TDM
from rep_recheck.command import FetchRequest, FetchResult, main
from rep_recheck.documents import OriginDocuments
from tests.support.recheck import report_lines, robots_capture, write_jsonl, write_warc

URLS = ["http://a.example/books/1", "http://a.example/x"]
TDMREP = b'[{"location": "/books/*", "tdm-reservation": 1}]'


def _recheck_warc(
    tmp_path: Path, *extra: str, fetcher: object = None
) -> tuple[int, str, dict[str, dict[str, object]], Path]:
    dataset, warc = tmp_path / "items.jsonl", tmp_path / "robots.warc"
    report, trail = tmp_path / "report.jsonl", tmp_path / "trail.jsonl"
    write_jsonl(dataset, URLS)
    write_warc(warc, [robots_capture("http://a.example", "User-agent: *\nAllow: /\n")])
    out = io.StringIO()
    code = main([str(dataset), "--purpose", "ai-train", "--documents", str(warc),
                 f"--report={report}", f"--trail={trail}", "--no-progress", *extra],
                out, fetcher)  # type: ignore[arg-type]  # fmt: skip
    return code, out.getvalue(), {r["url"]: r for r in report_lines(report)}, trail


def test_a_warc_without_tdmrep_says_so_at_its_start_with_the_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A WARC that holds no tdmrep.json at all: said as the run starts (its first line on
    standard error, the summary's first), with the three ways on."""
    _, summary, report, _ = _recheck_warc(tmp_path)
    top = summary.splitlines()[2]
    assert top.startswith("**The WARC holds no capture at all of tdmrep.json, which ai-train "
                          "needs: every item its robots.txt does not refuse will be "
                          "unknown"), summary  # fmt: skip
    assert all(way in top for way in ("--fetch-missing", "--consult robots.txt", "--keep-unknown"))
    assert capsys.readouterr().err.startswith("recheck: the WARC holds no capture at all of "
                                              "tdmrep.json, which ai-train needs")  # fmt: skip
    assert {url: (r["status"], r["text"]) for url, r in report.items()} == dict.fromkeys(
        URLS, ("unknown", "TDMRep not checked: the WARC holds no tdmrep.json of http://a.example")
    )


def test_a_warc_with_some_tdmrep_counts_the_origins_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, warc = tmp_path / "items.jsonl", tmp_path / "robots.warc"
    write_jsonl(dataset, [*URLS, "http://b.example/x"])
    write_warc(warc, [
        robots_capture("http://a.example", "User-agent: *\nAllow: /\n"),
        robots_capture("http://b.example", "User-agent: *\nAllow: /\n"),
        ("http://b.example/.well-known/tdmrep.json", 404, b"", {}),
    ])  # fmt: skip
    out = io.StringIO()
    main([str(dataset), "--purpose", "ai-train", "--documents", str(warc), "--no-progress"], out)
    top = out.getvalue().splitlines()[2]
    assert top.startswith("**TDMRep not checked for 1 of 2 origin(s): the WARC holds no "
                          "tdmrep.json"), top  # fmt: skip
    assert "--fetch-missing" in top
    assert "recheck: TDMRep not checked for 1 of 2 origin(s)" in capsys.readouterr().err


def test_fetch_missing_fetches_only_what_the_warc_lacks(tmp_path: Path) -> None:
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        origin = origin_of("http://a.example/")
        assert origin is not None
        now = time.time()
        sha = hashlib.sha256(TDMREP).hexdigest()
        body = zlib.compress(TDMREP)
        entry = CacheEntry(parse_tdmrep(TDMREP), "200", now, 1e20, 1e20, 200, body, sha256=sha)
        documents = OriginDocuments(origin, now=now)
        documents.add(TDM, origin, entry)
        return FetchResult({str(origin): documents}, downloads=2)

    _, summary, report, trail = _recheck_warc(tmp_path, "--fetch-missing", fetcher=fetcher)
    assert [request.origins for request in asked] == [["http://a.example"]]
    assert {url: r["status"] for url, r in report.items()} == {URLS[0]: "refused",
                                                                URLS[1]: "kept"}  # fmt: skip
    assert report[URLS[0]]["signal"] == "tdmrep"
    assert "TDMRep not checked" not in summary
    assert "what it lacks fetched now" in summary
    result = verify(trail)
    assert result.clean, result.findings
