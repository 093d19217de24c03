"""rep-recheck/README.md's example on a robots.txt-only WARC, as Common Crawl ships one
(200, a 404 with an HTML page, a 503, a 429, ``Content-Usage: train-ai=n`` and ``=y``
captures; no tdmrep.json). It kept nothing for ai-train (every item unknown), and
``--keep-unknown`` kept the 503 and 429 origins' items, which RFC 9309 §2.3.1.4 reads as
a complete disallow. Those are refused under every flag, with the capture as evidence;
``--consult robots.txt`` decides on robots.txt alone and says so in every record; without
it the run says at its start what the WARC lacks and the three ways on."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rep_audit.verify import verify
from rep_recheck.command import EXIT_REMOVED, EXIT_USAGE, FetchRequest, FetchResult, main
from tests.support.recheck import (
    ROBOTSTXT_ONLY_KEPT,
    ROBOTSTXT_ONLY_URLS,
    forged_item,
    readme_collection,
    recheck_tool,
    report_lines,
    write_jsonl,
    write_warc,
)

#: What ai-train decided on robots.txt alone keeps of :data:`ROBOTSTXT_ONLY_URLS`.
KEPT = ROBOTSTXT_ONLY_KEPT
#: The origins whose robots.txt could not be had: refused, whatever the flags.
UNREACHABLE = {"https://down.example": "503", "https://slow.example": "429"}


def test_every_record_names_what_was_not_consulted(tmp_path: Path) -> None:
    readme_collection(tmp_path)
    report, trail = tmp_path / "report.jsonl", tmp_path / "trail.jsonl"
    code, _ = recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "ai-train",
                           "--documents", str(tmp_path / "robots.warc.gz"), "--consult",
                           "robots.txt", f"--report={report}", f"--trail={trail}")  # fmt: skip
    assert code == EXIT_REMOVED
    lines = report_lines(report)
    assert [line["url"] for line in lines if line["status"] == "kept"] == KEPT
    assert all(line["not_consulted"] == ["tdmrep.json", "rsl"] for line in lines)
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    assert records[0]["recheck"]["not_consulted"] == ["tdmrep.json", "rsl"]
    items = [record for record in records if record["type"] == "item"]
    assert len(items) == len(ROBOTSTXT_ONLY_URLS)
    assert all(item["not_consulted"] == ["tdmrep.json", "rsl"] for item in items)
    assert not any("tdmrep" in item for item in items)  # no tdmrep.json was read
    result = verify(trail)
    assert result.clean, result.findings


@pytest.mark.parametrize(
    "flags",
    [(), ("--keep-unknown",), ("--consult", "robots.txt"),
     ("--consult", "robots.txt", "--keep-unknown"), ("--purpose", "search")],
)  # fmt: skip
def test_an_unreachable_robotstxt_refuses_under_every_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: tuple[str, ...]
) -> None:
    readme_collection(tmp_path)
    report, out = tmp_path / "report.jsonl", tmp_path / "kept.jsonl"
    purpose = () if "--purpose" in flags else ("--purpose", "ai-train")
    code, summary = recheck_tool(str(tmp_path / "items.jsonl"), *purpose, "--documents",
                                 str(tmp_path / "robots.warc.gz"), f"--report={report}",
                                 f"--out={out}", *flags)  # fmt: skip
    assert code == EXIT_REMOVED
    said = {line["url"]: line for line in report_lines(report)}
    for origin, status in UNREACHABLE.items():
        for url in (f"{origin}/a", f"{origin}/private/b"):
            line = said[url]
            assert (line["status"], line["reason"]) == ("refused", "robotstxt_unreachable")
            assert f"robots.txt of {origin} captured as {status} in record " in line["text"]
    kept = out.read_text()
    assert "down.example" not in kept and "slow.example" not in kept
    allowed = {"--consult", "search", "--keep-unknown"}.intersection(flags)  # or kept unknown
    assert ("gone.example/private/b" in kept) is bool(allowed)
    err = capsys.readouterr().err
    lacking = "recheck: the WARC holds no capture at all of tdmrep.json, which ai-train needs"
    if flags in ((), ("--keep-unknown",)):  # no scope declared, for an AI purpose
        assert err.startswith(lacking), err  # its first line, as it starts
        for way in ("--fetch-missing", "--consult robots.txt", "--keep-unknown"):
            assert way in err.splitlines()[0]
        assert summary.splitlines()[2].startswith("**The WARC holds no capture at all")
    else:
        assert lacking not in err


@pytest.mark.parametrize(
    ("given", "said"),
    [("robots.txt,tdmrep", "no such kind of document: tdmrep"),
     ("robots.txt, licence", "no such kind of document: licence"),
     ("tdmrep.json", "--consult must name robots.txt"), ("", "--consult must name robots.txt")],
)  # fmt: skip
def test_a_scope_of_an_unknown_kind_stops_the_run_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, said: str
) -> None:
    readme_collection(tmp_path)
    out = tmp_path / "kept.jsonl"
    code, _ = recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "ai-train",
                           "--documents", str(tmp_path / "robots.warc.gz"), "--consult",
                           given, f"--out={out}")  # fmt: skip
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert said in err and len(err.splitlines()) == 1 and not out.exists()


def test_a_scope_with_fetch_missing_fetches_only_what_it_consults(tmp_path: Path) -> None:
    """``--consult robots.txt --fetch-missing``: the robots.txt of the origin the WARC
    lacks is fetched, no tdmrep.json (not consulted)."""
    readme_collection(tmp_path)
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()

    code = main([str(tmp_path / "items.jsonl"), "--purpose", "ai-train", "--documents",
                 str(tmp_path / "robots.warc.gz"), "--consult", "robots.txt",
                 "--fetch-missing", "--no-progress"], io.StringIO(), fetcher)  # fmt: skip
    assert code == EXIT_REMOVED
    said = [(list(request.origins), request.not_consulted) for request in asked]
    assert said == [(["https://never.example"], ("tdmrep.json", "rsl"))]


def test_fetch_missing_without_scrapy_says_scrapy_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m rep_recheck`` (rep-recheck alone: no crawl) with ``--fetch-missing``
    said "give --documents WARC", which was given: the cause is that the crawl is
    Scrapy's."""
    readme_collection(tmp_path)
    argv = [str(tmp_path / "items.jsonl"), "--purpose", "ai-train", "--documents",
            str(tmp_path / "robots.warc.gz"), "--fetch-missing", "--no-progress"]  # fmt: skip
    monkeypatch.setattr("rep_recheck.command.find_spec", lambda name: None)  # not installed
    assert main(argv, io.StringIO()) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "--fetch-missing fetches what the WARC lacks by a Scrapy crawl, and Scrapy is not " \
           "installed" in err and "pip install /path/to/scrapy_rep" in err  # fmt: skip
    assert "give --documents" not in err
    assert main(argv[:3], io.StringIO()) == EXIT_USAGE  # no WARC at all: said at once
    assert "without --documents WARC, the documents are fetched now by a Scrapy crawl, and " \
           "Scrapy is not installed" in capsys.readouterr().err  # fmt: skip
    monkeypatch.undo()  # Scrapy installed: python -m rep_recheck still fetches nothing
    assert main(argv, io.StringIO()) == EXIT_USAGE
    assert "run python -m scrapy_rep recheck" in capsys.readouterr().err


def test_an_unreachable_capture_refuses_as_of_its_date_and_then(tmp_path: Path) -> None:
    """A 503 (or a 429) in January that a 200 in June answers again: kept now, refused
    as of March (``--as-of``), and ``then`` (the January capture) says refused."""
    january, june = tmp_path / "jan.warc", tmp_path / "jun.warc"
    write_warc(january, [("https://down.example/robots.txt", 503, b"", {}),
                         ("https://slow.example/robots.txt", 429, b"", {})],
               date="2025-01-15T00:00:00Z")  # fmt: skip
    write_warc(june, [(f"{origin}/robots.txt", 200, b"User-agent: *\nDisallow: /private\n", {})
                      for origin in ("https://down.example", "https://slow.example")],
               date="2025-06-15T00:00:00Z")  # fmt: skip
    dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
    urls = ["https://down.example/a", "https://slow.example/private/1"]
    write_jsonl(dataset, urls)
    warcs = ["--documents", str(january), "--documents", str(june)]
    recheck_tool(str(dataset), "--purpose", "search", *warcs, f"--report={report}")
    now = report_lines(report)
    assert [line["status"] for line in now] == ["kept", "refused"]
    assert (now[1]["reason"], now[1]["then"], now[1]["changed"]) == ("forbidden", "refused", False)
    recheck_tool(str(dataset), "--purpose", "search", *warcs, f"--report={report}",
                 "--as-of=2025-03-01", "--keep-unknown")  # fmt: skip
    then = report_lines(report)
    assert [(line["status"], line["reason"]) for line in then] == [
        ("refused", "robotstxt_unreachable")
    ] * 2
    assert "captured as 503" in then[0]["text"] and "captured as 429" in then[1]["text"]


def test_audit_verify_holds_a_run_to_its_declared_scope(tmp_path: Path) -> None:
    """An item that claims another scope than its run declared, or that names a document
    of a kind its run did not consult, is found; the honest trail is clean."""
    readme_collection(tmp_path)
    trail = tmp_path / "trail.jsonl"
    recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "ai-train", "--documents",
                 str(tmp_path / "robots.warc.gz"), "--consult", "robots.txt",
                 f"--trail={trail}")  # fmt: skip
    assert verify(trail).clean
    url = "https://yes.example/a"
    for changes, found in [
        ({"not_consulted": None}, "claims none not consulted, but its run declared "
                                  "tdmrep.json, rsl"),
        ({"not_consulted": ["rsl"]}, "claims rsl not consulted, but its run declared "
                                     "tdmrep.json, rsl"),
        ({"tdmrep": ""}, "decided with tdmrep.json, which its run did not consult"),
    ]:  # fmt: skip
        forged = forged_item(trail, url, **changes)
        said = [f.what for f in verify(forged).findings]
        assert any(found in what for what in said), said
        forged.with_name("forged.jsonl.d").unlink()  # the next forgery links its own
    # an unscoped run's item that claims a scope
    plain = tmp_path / "plain.jsonl"
    recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "search", "--documents",
                 str(tmp_path / "robots.warc.gz"), f"--trail={plain}")  # fmt: skip
    assert verify(plain).clean
    said = [f.what for f in verify(forged_item(plain, url, not_consulted=["rsl"])).findings]
    assert any("claims rsl not consulted, but its run declared none" in w for w in said), said


def test_an_item_that_drops_a_tdmrep_json_its_run_consulted_is_found(tmp_path: Path) -> None:
    """Unscoped, an ai-train item kept with the tdmrep.json that reserves it left out of
    its record: read as none, it passed `audit verify` as kept (a scope no run declared)."""
    origin = "https://a.example"
    warc, dataset, trail = tmp_path / "d.warc", tmp_path / "i.jsonl", tmp_path / "t.jsonl"
    write_warc(warc, [
        (f"{origin}/robots.txt", 200, b"User-agent: *\nAllow: /\n", {}),
        (f"{origin}/.well-known/tdmrep.json", 200,
         b'[{"location": "/books/*", "tdm-reservation": 1}]', {}),
    ])  # fmt: skip
    write_jsonl(dataset, [f"{origin}/books/1", f"{origin}/x"])
    recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(warc),
                 f"--trail={trail}")  # fmt: skip
    assert verify(trail).clean
    changes = {"status": "kept", "refused_by": None, "why": None, "usage": None, "tdmrep": None}
    said = [f.what for f in verify(forged_item(trail, f"{origin}/books/1", **changes)).findings]
    assert said == [f"item recorded fetched, but names no tdmrep.json of {origin}, which its "
                    "request was decided with: read as none"], said  # fmt: skip
