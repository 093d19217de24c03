"""robots.txt (and tdmrep.json) read from a WARC of captures, by the crawl's own fetch
procedure: redirects followed to the record of their target, a 5xx not had."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_rep.recheck.warc import WarcDocuments, WarcError, captures
from scrapy_rep.urls.origins import origin_of
from scrapy_rep.verdict import ROBOTS, TDM, RequestRules
from tests.support.recheck import needs, robots_capture, write_warc


def _warc_documents(path: Path, purposes: tuple[str, ...] = ("search",)) -> WarcDocuments:
    rules = RequestRules.of(purposes, purpose_set=True)
    return WarcDocuments(captures(path), rules, ("mybot",))


def test_each_origin_is_read_as_the_crawl_reads_its_answer(tmp_path: Path) -> None:
    path = tmp_path / "robots.warc.gz"
    ids = write_warc(path, [
        robots_capture("https://a.example", "User-agent: *\nDisallow: /x\n"),
        ("http://r.example/robots.txt", 301, b"", {"Location": "https://r.example/robots.txt"}),
        robots_capture("https://r.example", "User-agent: mybot\nDisallow: /\n"),
        ("https://gone.example/robots.txt", 404, b"", {}),
        ("https://down.example/robots.txt", 503, b"", {}),
        ("https://lost.example/robots.txt", 302, b"", {"Location": "/elsewhere.txt"}),
    ], compress=True)  # fmt: skip
    documents = _warc_documents(path)
    a = documents(origin_of("https://a.example/"))  # type: ignore[arg-type]
    assert a is not None
    assert a.robots is not None and not a.robots.rules.allowed("https://a.example/x", "mybot")
    assert a.records[ROBOTS, a.origin] == ids[0]
    assert a.now == a.robots.fetched_at > 0
    redirected = documents(origin_of("http://r.example/"))  # type: ignore[arg-type]
    assert redirected is not None and redirected.robots is not None
    assert redirected.robots.final_url == "https://r.example/robots.txt"
    assert not redirected.robots.rules.allowed("http://r.example/a", "mybot")
    gone = documents(origin_of("https://gone.example/"))  # type: ignore[arg-type]
    assert gone is not None and gone.robots is not None and not gone.robots.unreachable
    assert gone.robots.rules.allowed("https://gone.example/a", "mybot")
    for host in ("down", "lost"):  # a 503, a redirect to a URL not captured: not had
        found = documents(origin_of(f"https://{host}.example/"))  # type: ignore[arg-type]
        assert found is not None and found.robots is not None and found.robots.unreachable
    assert documents(origin_of("https://never.example/")) is None  # type: ignore[arg-type]
    assert documents.read == 5


def test_the_latest_capture_of_a_url_is_read(tmp_path: Path) -> None:
    first, later = tmp_path / "1.warc", tmp_path / "2.warc"
    write_warc(first, [robots_capture("https://a.example", "User-agent: *\nDisallow: /\n")],
               date="2025-01-01T00:00:00Z")  # fmt: skip
    write_warc(later, [robots_capture("https://a.example", "User-agent: *\nAllow: /\n")],
               date="2025-06-01T00:00:00Z")  # fmt: skip
    both = tmp_path / "both.warc"
    both.write_bytes(later.read_bytes() + first.read_bytes())
    found = _warc_documents(both)(origin_of("https://a.example/"))  # type: ignore[arg-type]
    assert found is not None and found.robots is not None
    assert found.robots.rules.allowed("https://a.example/x", "mybot")


def test_an_ai_purpose_reads_tdmrep_json_too(tmp_path: Path) -> None:
    path = tmp_path / "docs.warc"
    write_warc(path, [
        robots_capture("https://a.example", "User-agent: *\nAllow: /\n"),
        ("https://a.example/.well-known/tdmrep.json", 200,
         b'[{"location": "/*", "tdm-reservation": 1}]', {}),
    ])  # fmt: skip
    found = _warc_documents(path, ("ai-train",))(origin_of("https://a.example/"))  # type: ignore[arg-type]
    assert found is not None and found.known(TDM, found.origin) is not None


@pytest.mark.parametrize("cut", [40, -7])
def test_a_cut_or_foreign_file_is_no_warc(tmp_path: Path, cut: int) -> None:
    needs("warcio")
    path = tmp_path / "robots.warc"
    write_warc(path, [robots_capture("https://a.example", "User-agent: *\nDisallow: /x\n")])
    path.write_bytes(path.read_bytes()[:cut])
    with pytest.raises(WarcError, match=r"cut|not a WARC"):
        captures(path)
    path.write_bytes(b"GET / HTTP/1.1\r\n\r\nnot a warc at all\n")
    with pytest.raises(WarcError, match="not a WARC"):
        captures(path)
    with pytest.raises(WarcError, match="cannot read"):
        captures(tmp_path / "missing.warc")
