"""A document an archive cut before 500 KiB, the least a crawler reads (RFC 9309 §2.5),
lost lines a crawler reads: its kept lines may refuse an item, never
allow one (an item they allow is ``unknown``, its report line saying where the document
was cut); a compressed stream corrupt anywhere is a document not had; the crawl's own cut
at 500 KiB is read as before. ``audit verify`` re-derives the same from the trail's
snapshots and fails an item recorded kept under such a cut."""

from __future__ import annotations

import gzip
import random
import re
import zlib
from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.urls.origins import origin_of
from rep_engine.verdict.decide import RequestRules
from rep_recheck.command import EXIT_REMOVED
from rep_recheck.warc import WarcDocuments, captures
from tests.support.documents import rsl_license
from tests.support.recheck import (
    forged_item,
    recheck_tool,
    report_lines,
    write_jsonl,
    write_warc,
)

#: The last line of every robots.txt here: the "no" a cut loses.
LAST = b"Disallow: /private\n"


def _robots_of_size(size: int) -> bytes:
    """A robots.txt of ``size`` bytes: /a disallowed at its start, /private at its end,
    Allow lines of random paths between (so that gzip does not shrink it to nothing)."""
    rnd = random.Random(76)
    head = b"User-agent: *\nDisallow: /a\n"
    lines = b""
    while len(head) + len(lines) + len(LAST) < size - 60:
        lines += b"Allow: /public/%032x\n" % rnd.getrandbits(128)
    pad = size - len(head) - len(lines) - len(LAST) - 1
    return head + lines + b"#" * pad + b"\n" + LAST


SMALL = _robots_of_size(3_511)
#: Compressed, about 71 KB (cut at 47 KB).
BIG = gzip.compress(_robots_of_size(170_000), mtime=0)


def _block_past_its_length(warc: Path) -> None:
    """The WARC's first record's ``Content-Length`` made shorter than its block by its
    last line (which warcio then only warns of, on standard error)."""
    raw = warc.read_bytes()
    found = re.search(rb"\r\nContent-Length: (\d+)\r\n", raw)
    assert found is not None
    shorter = str(int(found[1]) - len(LAST)).encode()
    warc.write_bytes(raw[: found.start(1)] + shorter + raw[found.end(1) :])


#: How an archive cuts: the capture's body and headers.
CUTS: dict[str, tuple[bytes, dict[str, str]]] = {
    "WARC-Truncated at 1,755 of 3,511 bytes": (
        SMALL[:1_755], {"Content-Length": "3511", "WARC-Truncated": "length"}
    ),
    "a gzip payload cut at 47 KB": (
        BIG[:47_000],
        {"Content-Encoding": "gzip", "Content-Length": str(len(BIG)), "WARC-Truncated": "length"},
    ),
    "a gzip payload cut, nothing said": (BIG[:47_000], {"Content-Encoding": "gzip"}),
    # Common Crawl renames Content-Length: X-Crawler-Content-Length
    "a record shorter than its block": (SMALL, {"X-Crawler-Content-Length": "3511"}),
}  # fmt: skip
URLS = ["https://a.example/private/1", "https://a.example/a/1"]


def _recheck_captured(tmp_path: Path, captured: list[Any], urls: list[str], *extra: str) -> Any:
    warc, dataset = tmp_path / "docs.warc", tmp_path / "items.jsonl"
    report, trail = tmp_path / "report.jsonl", tmp_path / "trail.jsonl"
    write_warc(warc, captured)
    if "X-Crawler-Content-Length" in captured[0][3]:
        _block_past_its_length(warc)
    write_jsonl(dataset, urls)
    code, _ = recheck_tool(str(dataset), "--documents", str(warc), f"--report={report}",
                           f"--trail={trail}", *extra)  # fmt: skip
    return code, {line["url"]: line for line in report_lines(report)}, trail


def _verified(trail: Path, url: str) -> list[str]:
    """``audit verify``'s findings on the trail, then on it with ``url`` forged kept."""
    result = verify(trail)
    assert result.clean, result.findings
    kept = {"status": "kept", "refused_by": None, "why": None}
    return [finding.what for finding in verify(forged_item(trail, url, **kept)).findings]


@pytest.mark.parametrize("cut", CUTS)
def test_an_archive_cut_robots_txt_may_refuse_never_allow(tmp_path: Path, cut: str) -> None:
    """The Disallow after the cut was lost and /private/1 kept (exit 0): its kept lines
    allow it, so it is unknown; the Disallow before the cut still refuses /a/1."""
    body, headers = CUTS[cut]
    captured = [("https://a.example/robots.txt", 200, body, headers)]
    code, report, trail = _recheck_captured(tmp_path, captured, URLS, "--purpose", "search")
    assert code == EXIT_REMOVED
    assert report[URLS[1]]["status"] == "refused"
    unknown = report[URLS[0]]
    assert unknown["status"] == "unknown"
    assert re.search(r"robots\.txt was cut before 500 KiB \(200 \([\d,]+ bytes, cut short",
                     unknown["why"]), unknown["why"]  # fmt: skip
    if "1,755" in cut:
        assert "(200 (1,755 bytes" in unknown["why"]
    found = _verified(trail, URLS[0])
    assert any("recorded kept, but its snapshot of https://a.example/robots.txt was cut "
               "before 500 KiB" in what for what in found), found  # fmt: skip


@pytest.mark.parametrize("size", [MAX_BODY_BYTES + 1, MAX_BODY_BYTES + 8_000])
@pytest.mark.parametrize("said", [False, True])
def test_the_crawls_own_cut_at_500_kib_is_read_as_before(
    tmp_path: Path, size: int, said: bool
) -> None:
    """Over 500 KiB, cut by the crawl's own reading (or by the archive past it): the RFC's
    limit, its kept lines read as they are (what they allow is kept)."""
    body = _robots_of_size(size + 4_000)[:size]
    headers = {"WARC-Truncated": "length"} if said else {}
    captured = [("https://a.example/robots.txt", 200, body, headers)]
    code, report, trail = _recheck_captured(tmp_path, captured, URLS, "--purpose", "search")
    assert code == EXIT_REMOVED
    assert {url: line["status"] for url, line in report.items()} == {
        URLS[0]: "kept", URLS[1]: "refused"
    }  # fmt: skip
    result = verify(trail)
    assert result.clean, result.findings


def _corrupt(body: bytes, *, ended: bool) -> bytes:
    """``body`` gzipped, a byte of its middle changed: found by zlib (a wrong checksum at
    the end), or not (``ended`` False: the stream reads on past the payload's end)."""
    whole = gzip.compress(body, mtime=0)
    for at in range(len(whole) // 2, len(whole) - 8):
        broken = bytearray(whole)
        broken[at] ^= 0xFF
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            decoder.decompress(bytes(broken))
        except zlib.error:
            if ended:
                return bytes(broken)
            continue
        if not ended and not decoder.eof:
            return bytes(broken)
    raise AssertionError("no such byte")


@pytest.mark.parametrize("ended", [True, False])
def test_a_gzip_payload_corrupt_in_its_middle_is_a_document_not_had(
    tmp_path: Path, ended: bool
) -> None:
    """It was read as cut where it broke (its lines up to there read, what they allow
    kept): corrupt data says nothing of where the document ends. A robots.txt not had
    refuses its items (RFC 9309 §2.3.1.4)."""
    body = (
        _robots_of_size(20_000) if ended else b"User-agent: *\nDisallow: /a\nDisallow: /p\n" * 2000
    )
    payload = _corrupt(body, ended=ended)
    headers = {"Content-Encoding": "gzip", "Content-Length": str(len(payload))}
    warc = tmp_path / "robots.warc"
    write_warc(warc, [("https://a.example/robots.txt", 200, payload, headers)])
    rules = RequestRules.of(("search",), purpose_set=True)
    found = WarcDocuments(captures(warc), rules, ("mybot",))(origin_of("https://a.example/"))  # type: ignore[arg-type]
    assert found is not None and found.robots is not None
    assert found.robots.unreachable, found.robots.outcome
    assert "cannot be decoded: gzip: corrupt" in found.robots.outcome
    captured = [("https://a.example/robots.txt", 200, payload, headers)]
    code, report, trail = _recheck_captured(tmp_path, captured, [*URLS, "https://a.example/x"],
                                   "--purpose", "search")  # fmt: skip
    assert code == EXIT_REMOVED
    assert {line["status"] for line in report.values()} == {"refused"}
    assert verify(trail).clean


TDMREP_CUT = b'[{"location": "/tdm/*", "tdm-reservation": 1}, {"location": "/ot'


def test_an_archive_cut_tdmrep_json_may_refuse_never_allow(tmp_path: Path) -> None:
    """Its entries before the cut reserve /tdm/*: refused; what they let through may be
    reserved by an entry after the cut: unknown (it was kept)."""
    captured = [
        ("https://a.example/robots.txt", 200, b"User-agent: *\nAllow: /\n", {}),
        ("https://a.example/.well-known/tdmrep.json", 200, TDMREP_CUT,
         {"WARC-Truncated": "length", "Content-Length": "900"}),
    ]  # fmt: skip
    urls = ["https://a.example/tdm/1", "https://a.example/other/1"]
    code, report, trail = _recheck_captured(tmp_path, captured, urls, "--purpose", "ai-train")
    assert code == EXIT_REMOVED
    assert (report[urls[0]]["status"], report[urls[0]]["signal"]) == ("refused", "tdmrep")
    assert report[urls[1]]["status"] == "unknown"
    assert "tdmrep.json was cut before 500 KiB" in report[urls[1]]["why"]
    found = _verified(trail, urls[1])
    assert any("tdmrep.json was cut before 500 KiB" in what for what in found), found


def test_an_archive_cut_rsl_license_refuses_ai_use(tmp_path: Path) -> None:
    """A cut license refuses AI use (its prohibitions may be in the lost part); for
    search, what it allows is not known."""
    license_url = "https://a.example/license.xml"
    whole = rsl_license('<permits type="usage">all</permits>' + "<!-- x -->" * 300)
    captured = [
        ("https://a.example/robots.txt", 200, f"User-agent: *\nLicense: {license_url}\n".encode(),
         {}),
        ("https://a.example/.well-known/tdmrep.json", 404, b"", {}),
        (license_url, 200, whole[:1_000], {"WARC-Truncated": "length"}),
    ]  # fmt: skip
    url = "https://a.example/x"
    code, report, _ = _recheck_captured(tmp_path, captured, [url], "--purpose", "ai-train")
    assert code == EXIT_REMOVED
    assert (report[url]["status"], report[url]["signal"]) == ("refused", "rsl")
    assert verify(tmp_path / "trail.jsonl").clean  # the license read as cut, as it was
    (tmp_path / "trail.jsonl").unlink()
    _, report, trail = _recheck_captured(tmp_path, captured, [url], "--purpose", "search")
    assert report[url]["status"] == "unknown"
    assert "license.xml was cut before 500 KiB" in report[url]["why"]
    assert verify(trail).clean
