"""robots.txt (and tdmrep.json) read from a WARC of captures, by the crawl's own fetch
procedure: redirects followed to the record of their target, a 5xx not had."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from rep_engine.urls.origins import origin_of
from rep_engine.verdict.decide import ROBOTS, TDM, RequestRules
from rep_recheck.command import EXIT_REMOVED
from rep_recheck.warc import WarcDocuments, WarcError, captures
from tests.support.recheck import (
    needs,
    recheck_tool,
    report_lines,
    robots_capture,
    write_jsonl,
    write_warc,
)


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
    down = documents(origin_of("https://down.example/"))  # type: ignore[arg-type]
    assert down is not None and down.robots is not None and down.robots.unreachable  # a 503
    lost = documents(origin_of("https://lost.example/"))  # type: ignore[arg-type]
    assert lost is not None and lost.robots is None  # redirected to a URL not captured
    said = lost.missing[ROBOTS]
    assert "https://lost.example/elsewhere.txt, which the WARC does not hold" in said
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


def test_a_warc_gzip_compressed_whole_is_one_readable_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``gzip robots.warc`` (one member for the whole file, not one per record, read past
    the first record): warcio's ten-line explanation was printed with its newlines as
    ``\\n`` escapes."""
    needs("warcio")
    plain = tmp_path / "robots.warc"
    write_warc(plain, [robots_capture(f"https://{host}.example", "User-agent: *\nDisallow: /x\n")
                       for host in "ab"])  # fmt: skip
    whole = tmp_path / "robots.warc.gz"
    whole.write_bytes(gzip.compress(plain.read_bytes()))
    write_jsonl(tmp_path / "items.jsonl", ["https://a.example/x"])
    code, _ = recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "search", "--documents",
                           str(whole))  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"scrapy_rep: error: {whole}: gzip-compressed as one whole file, not record by record "
        "as a WARC is (WARC 1.1, Annex D): `warcio recompress FILE NEW.warc.gz` rewrites it "
        "so, or decompress it (gunzip) and give the .warc"
    ]  # fmt: skip


def test_a_warc_of_no_capture_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A WARC of a ``warcinfo`` record alone (the wrong file of a crawl named) left every
    item unknown and said nothing of it: the command says it on standard error, the
    datatrove step in a WARNING, and the other WARC named is read."""
    warcio = needs("warcio.warcwriter")
    info = tmp_path / "info.warc.gz"
    with info.open("wb") as file:
        writer = warcio.WARCWriter(file, gzip=True)
        writer.write_record(writer.create_warcinfo_record("info.warc.gz", {"software": "x"}))
    robots = tmp_path / "robots.warc"
    write_warc(robots, [robots_capture("https://a.example", "User-agent: *\nDisallow: /x\n")])
    write_jsonl(tmp_path / "items.jsonl", ["https://a.example/x", "https://a.example/y"])
    report = tmp_path / "report.jsonl"
    code, _ = recheck_tool(str(tmp_path / "items.jsonl"), "--purpose", "search", "--documents",
                           str(info), "--documents", str(robots), f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED
    said = (f"the WARC {info} holds no capture (no response or revisit record of an http(s) "
            "URL; its records: 1 warcinfo): no document is read from it")  # fmt: skip
    assert f"recheck: {said}" in capsys.readouterr().err.splitlines()
    assert [line["status"] for line in report_lines(report)] == ["refused", "kept"]
    needs("datatrove")
    from scrapy_rep import RepRecheckFilter

    with caplog.at_level("WARNING", logger="rep_recheck"):
        RepRecheckFilter([info, robots], "search").rechecker()
    assert said in caplog.messages


# --------------------------------------------------------------------------- payloads

ROBOTS_PRIVATE = b"User-agent: *\nDisallow: /a\nDisallow: /private\n"


def _compressed(coding: str, body: bytes) -> bytes:
    if coding == "zstd":
        return needs("backports.zstd").compress(body)  # type: ignore[no-any-return]
    if coding == "br":
        return needs("brotli").compress(body)  # type: ignore[no-any-return]
    return gzip.compress(body)


def _robots_of(path: Path, host: str = "a.example", purposes: tuple[str, ...] = ("search",)) -> Any:
    found = _warc_documents(path, purposes)(origin_of(f"https://{host}/"))  # type: ignore[arg-type]
    assert found is not None and found.robots is not None
    return found.robots


def test_every_gzip_member_and_zstd_frame_is_read(tmp_path: Path) -> None:
    """A body compressed in parts (one gzip member, or zstd frame, after another) is read
    whole, as Scrapy reads it: the second part's Disallow is not lost."""
    first, second = b"User-agent: *\nDisallow: /a\n", b"Disallow: /private\n"
    path = tmp_path / "robots.warc"
    write_warc(path, [
        ("https://a.example/robots.txt", 200, gzip.compress(first) + gzip.compress(second),
         {"Content-Encoding": "gzip"}),
        ("https://b.example/robots.txt", 200,
         _compressed("zstd", first) + _compressed("zstd", second), {"Content-Encoding": "zstd"}),
    ])  # fmt: skip
    for host in ("a.example", "b.example"):
        robots = _robots_of(path, host)
        assert not robots.truncated, host
        assert not robots.rules.allowed(f"https://{host}/private/1", "mybot"), host


@pytest.mark.parametrize("coding", ["zstd", "br", "gzip"])
def test_a_compressed_capture_is_decoded_as_the_crawl_decodes_it(
    tmp_path: Path, coding: str
) -> None:
    """Scrapy's HttpCompressionMiddleware decodes zstd and br for the crawl: so does the
    WARC reader (warcio passed zstd on still compressed, and its br reader fails)."""
    path = tmp_path / "robots.warc"
    body = _compressed(coding, ROBOTS_PRIVATE)
    write_warc(path, [("https://a.example/robots.txt", 200, body, {"Content-Encoding": coding})])
    robots = _robots_of(path)
    assert not robots.unreachable and not robots.truncated
    assert not robots.rules.allowed("https://a.example/private/1", "mybot")


def test_a_coding_that_cannot_be_decoded_is_a_document_not_had(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """br without brotli installed, a coding no crawl decodes, gzip corrupt from its
    first byte: never the compressed bytes read as robots.txt (which allow everything)."""
    from warcio.bufferedreaders import BufferedReader

    from rep_recheck import payload

    monkeypatch.setattr(payload, "DECODERS", {**payload._decoders(), "br": "br needs brotli"})
    monkeypatch.delitem(BufferedReader.DECOMPRESSORS, "br", raising=False)
    corrupt = b"\x1f\x8b\x08\x00" + bytes(range(40))
    path = tmp_path / "robots.warc"
    write_warc(path, [
        ("https://a.example/robots.txt", 200, _compressed("br", ROBOTS_PRIVATE),
         {"Content-Encoding": "br"}),
        ("https://b.example/robots.txt", 200, ROBOTS_PRIVATE, {"Content-Encoding": "compress"}),
        ("https://c.example/robots.txt", 200, corrupt, {"Content-Encoding": "gzip"}),
        ("https://d.example/robots.txt", 404, corrupt, {"Content-Encoding": "gzip"}),
    ])  # fmt: skip
    for host in ("a.example", "b.example", "c.example"):
        robots = _robots_of(path, host)
        assert robots.unreachable, host
        assert "cannot be decoded" in robots.outcome
    robots = _robots_of(path, "d.example")  # a 404's body is not read: none, whatever it is
    assert not robots.unreachable and robots.rules.allowed("https://d.example/x", "mybot")


def test_a_cut_capture_is_a_cut_document_never_a_whole_one(tmp_path: Path) -> None:
    """A capture marked WARC-Truncated, a cut gzip payload, one that breaks part-way, a
    chunked body that ends inside a chunk: the lines before the cut, said to be cut (as
    the crawl has a robots.txt whose download was stopped)."""
    whole = gzip.compress(ROBOTS_PRIVATE * 2000)
    broken = bytearray(whole)
    broken[len(broken) // 2] ^= 0xFF
    path = tmp_path / "robots.warc"
    write_warc(path, [
        ("https://a.example/robots.txt", 200, ROBOTS_PRIVATE[:30], {"WARC-Truncated": "length"}),
        ("https://b.example/robots.txt", 200, gzip.compress(ROBOTS_PRIVATE)[:-10],
         {"Content-Encoding": "gzip"}),
        ("https://c.example/robots.txt", 200, bytes(broken), {"Content-Encoding": "gzip"}),
        ("https://d.example/robots.txt", 200, b"40\r\n" + ROBOTS_PRIVATE[:30],
         {"Transfer-Encoding": "chunked"}),
    ])  # fmt: skip
    for host in ("a.example", "b.example", "c.example", "d.example"):
        robots = _robots_of(path, host)
        assert not robots.unreachable, host
        assert robots.truncated and "cut short" in robots.outcome, host
        assert not robots.rules.allowed(f"https://{host}/a", "mybot"), host  # kept before the cut
    assert not _robots_of(path, "b.example").rules.allowed("https://b.example/private", "mybot")


def test_a_capture_that_lost_data_is_a_document_not_had(tmp_path: Path) -> None:
    """A connection dropped (WARC-Truncated: disconnect), a payload shorter than its
    Content-Length and not said to be cut: the crawl gives such a download up as a
    network error (Scrapy's DOWNLOAD_FAIL_ON_DATALOSS), never reads it whole."""
    path = tmp_path / "robots.warc"
    write_warc(path, [
        ("https://a.example/robots.txt", 200, ROBOTS_PRIVATE[:30],
         {"WARC-Truncated": "disconnect"}),
        ("https://b.example/robots.txt", 200, ROBOTS_PRIVATE[:30], {"Content-Length": "4000"}),
        ("https://c.example/robots.txt", 200, ROBOTS_PRIVATE,
         {"Content-Length": str(len(ROBOTS_PRIVATE))}),
    ])  # fmt: skip
    for host in ("a.example", "b.example"):
        robots = _robots_of(path, host)
        assert robots.unreachable and "lost data" in robots.outcome, host
    whole = _robots_of(path, "c.example")
    assert not whole.unreachable and not whole.truncated


#: Answers as real servers send them, and as warcio's WARCWriter writes them: a page
#: with its Content-Length, whatever the status.
PAGE_404 = b"<html><body><h1>Not Found</h1></body></html>\n"
WITH_PAGES = [
    ("https://a.example/robots.txt", 404, PAGE_404, {"Content-Length": str(len(PAGE_404))}),
    ("https://b.example/robots.txt", 301, b"moved",
     {"Location": "/rules.txt", "Content-Length": "5"}),
    ("https://b.example/rules.txt", 200, ROBOTS_PRIVATE,
     {"Content-Length": str(len(ROBOTS_PRIVATE))}),
    ("https://c.example/robots.txt", 200, b"User-agent: *\nAllow: /\n", {}),
    ("https://c.example/.well-known/tdmrep.json", 404, b"nope", {"Content-Length": "4"}),
    ("https://d.example/robots.txt", 503, PAGE_404, {"Content-Length": str(len(PAGE_404))}),
    ("https://e.example/robots.txt", 404, b"no", {"Content-Length": "900"}),
]  # fmt: skip


def test_a_capture_is_read_by_its_status_whatever_its_body(tmp_path: Path) -> None:
    """A 404 page, a 301's "moved", a 503 page with their Content-Length were read as
    "the capture lost data: 0 bytes of the N its Content-Length says" (the body emptied
    before its length was compared): a robots.txt 404 made its items unknown, a 301 was
    not followed, a tdmrep.json 404 made every AI item unknown. A body only a 2xx's is
    read, so only a 2xx's length matters (e: a 404 shorter than its Content-Length)."""
    warc = tmp_path / "docs.warc.gz"
    write_warc(warc, WITH_PAGES, compress=True)
    for host in ("a.example", "e.example"):
        robots = _robots_of(warc, host)
        assert not robots.unreachable and robots.rules.allowed(f"https://{host}/x", "mybot")
    followed = _robots_of(warc, "b.example")
    assert followed.final_url == "https://b.example/rules.txt"
    assert not followed.rules.allowed("https://b.example/private/1", "mybot")
    down = _robots_of(warc, "d.example")
    assert down.unreachable and "503" in down.outcome and "lost data" not in down.outcome
    searched = {"https://a.example/x": "kept", "https://b.example/private/1": "refused",
                "https://b.example/x": "kept", "https://d.example/x": "refused",
                "https://e.example/x": "kept"}  # fmt: skip
    trained = {"https://c.example/x": "kept"}  # its tdmrep.json's 404: no reservation
    for purpose, expected in (("search", searched), ("ai-train", trained)):
        dataset, report = tmp_path / f"{purpose}.jsonl", tmp_path / f"{purpose}-report.jsonl"
        write_jsonl(dataset, list(expected))
        recheck_tool(str(dataset), "--purpose", purpose, "--documents", str(warc),
                     f"--report={report}")  # fmt: skip
        assert {line["url"]: line["status"] for line in report_lines(report)} == expected


def test_the_datatrove_step_reads_a_capture_by_its_status_too(tmp_path: Path) -> None:
    """The datatrove step reads the WARC as the command does: the origins whose 404 or
    301 answer came with a page are not dropped as unknown."""
    needs("datatrove")
    from datatrove.data import Document

    from scrapy_rep import RepRecheckFilter

    warc = tmp_path / "docs.warc.gz"
    write_warc(warc, WITH_PAGES, compress=True)
    expected = {"https://a.example/x": "kept", "https://b.example/private/1": "refused",
                "https://b.example/x": "kept", "https://d.example/x": "refused"}  # fmt: skip
    step = RepRecheckFilter(str(warc), "search", {"USER_AGENT": "mybot/1.0"})
    found = {url: step.kept(Document("", url, metadata={"url": url}))[1] for url in expected}
    assert found == expected
    step = RepRecheckFilter(str(warc), "ai-train", {"USER_AGENT": "mybot/1.0"})
    url = "https://c.example/x"
    assert step.kept(Document("", url, metadata={"url": url}))[:2] == (True, "kept")


def test_a_cut_tdmrep_json_keeps_its_entries_before_the_cut(tmp_path: Path) -> None:
    """Read whole, a cut tdmrep.json is invalid JSON, so no reservation at all; read as
    cut (as the crawl reads one), its first entry reserves TDM rights."""
    path = tmp_path / "docs.warc"
    cut = b'[{"location": "/tdm/*", "tdm-reservation": 1}, {"location": "/ot'
    write_warc(path, [
        robots_capture("https://a.example", "User-agent: *\nAllow: /\n"),
        ("https://a.example/.well-known/tdmrep.json", 200, cut, {"WARC-Truncated": "length"}),
    ])  # fmt: skip
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, ["https://a.example/tdm/1"])
    report = tmp_path / "report.jsonl"
    code, _ = recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(path),
                           f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED
    [line] = report_lines(report)
    assert (line["status"], line["signal"], line["document_line"]) == ("refused", "tdmrep", 1)


def test_one_odd_capture_refuses_only_its_origin(tmp_path: Path) -> None:
    """A status line without a status code is one capture not had: its origin's items are
    refused (a robots.txt not had: RFC 9309 §2.3.1.4), the others decided, and the run is
    not a usage error (exit 2)."""
    path = tmp_path / "robots.warc"
    write_warc(path, [
        ("https://a.example/robots.txt", "2OO OK", ROBOTS_PRIVATE, {}),
        robots_capture("https://b.example", ROBOTS_PRIVATE.decode()),
    ])  # fmt: skip
    assert _robots_of(path, "a.example").unreachable
    dataset = tmp_path / "items.jsonl"
    write_jsonl(
        dataset, ["https://a.example/x", "https://b.example/private", "https://b.example/x"]
    )
    report = tmp_path / "report.jsonl"
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(path),
                           f"--report={report}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert [line["status"] for line in report_lines(report)] == ["refused", "refused", "kept"]


def test_an_origin_spelt_many_ways_is_read_from_the_warc_once(tmp_path: Path) -> None:
    """Each spelling of an origin (userinfo, a query after the host) read
    and parsed its robots.txt again (4,000 items: 59 s and 281 MB)."""
    from rep_recheck.command import warc_rechecker

    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("http://a.example", "User-agent: *\nDisallow: /p\n")])
    rechecker, _ = warc_rechecker({"REP_PURPOSE": "search"}, warc)
    urls = [url for n in range(100) for url in (
        f"http://u{n}@a.example/p/{n}", f"http://a.example?q={n}/p", f"http://A.example:80/{n}",
    )]  # fmt: skip
    statuses = [str(rechecker.decide(url).status) for url in urls]
    assert statuses == ["refused", "kept", "kept"] * 100
    documents = rechecker.documents
    assert isinstance(documents, WarcDocuments) and (documents.read, documents.origins) == (1, 1)


def test_a_capture_uri_is_matched_as_an_origin_is(tmp_path: Path) -> None:
    """A capture of ``http://A.EXAMPLE:80/robots.txt`` (host case, the default port
    written) was never found for the items of ``http://a.example/``: unknown."""
    from rep_recheck.command import warc_rechecker

    warc = tmp_path / "robots.warc"
    write_warc(warc, [
        ("http://A.EXAMPLE:80/robots.txt", 200, b"User-agent: *\nDisallow: /p\n", {}),
        ("https://B.Example:443/robots.txt", 301, b"", {"Location": "https://B.EXAMPLE/moved"}),
        ("https://b.example:443/moved", 200, b"User-agent: *\nDisallow: /q\n", {}),
    ])  # fmt: skip
    rechecker, _ = warc_rechecker({"REP_PURPOSE": "search"}, warc)
    urls = [
        "http://a.example/p/1",
        "http://a.example/ok",
        "https://b.example/q",
        "https://b.example/",
    ]
    statuses = [str(rechecker.decide(url).status) for url in urls]
    assert statuses == ["refused", "kept", "refused", "kept"]
    dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
    write_jsonl(dataset, urls)
    recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                 f"--report={report}")  # fmt: skip
    assert [line["status"] for line in report_lines(report)] == statuses


def test_a_document_not_had_from_a_capture_says_the_capture_not_a_wait(tmp_path: Path) -> None:
    """A capture answering 503 (or a body that cannot be read; or a redirect to a target
    not captured) was said "unreachable for 600 s": no one waited, the capture is what
    was had; its evidence names its status, record and date. The first two refuse their
    items (RFC 9309 §2.3.1.4); the archive's gap leaves its items unknown. ``audit
    verify`` reads the trail as before."""
    from rep_audit.verify import verify

    warc = tmp_path / "robots.warc"
    ids = write_warc(warc, [
        ("http://b.example/robots.txt", 503, b"", {}),
        ("http://c.example/robots.txt", 301, b"", {"Location": "http://c.example/moved"}),
        ("http://d.example/robots.txt", 200, b"x", {"Content-Encoding": "bogus"}),
    ])  # fmt: skip
    dataset, report, trail = (tmp_path / name for name in ("i.jsonl", "r.jsonl", "t.jsonl"))
    write_jsonl(dataset, ["http://b.example/x", "http://c.example/x", "http://d.example/x"])
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                           f"--report={report}", f"--trail={trail}")  # fmt: skip
    assert code == EXIT_REMOVED
    lines = report_lines(report)
    assert [line["status"] for line in lines] == ["refused", "unknown", "refused"]
    why = [line.get("why") or line["text"] for line in lines]
    at = "at 2025-04-01T12:00:00Z"
    assert f"captured as 503 in record {ids[0]} {at}" in why[0]
    assert f"captured as 301 in record {ids[1]} {at}" in why[1]
    assert "http://c.example/moved, which the WARC does not hold" in why[1]
    assert f"captured as 200 in record {ids[2]} {at}" in why[2] and "cannot be decoded" in why[2]
    assert not any("unreachable for" in one for one in why), why
    assert all(why[n].endswith("requests dropped") for n in (0, 2)), why
    result = verify(trail)
    assert result.clean, result.findings


def test_the_datatrove_step_reads_a_url_as_the_command_does(tmp_path: Path) -> None:
    """A URL with no host, an out-of-range port or a bad IPv6 literal was ``unknown`` in
    the datatrove step (kept with ``keep_unknown``), ``unreadable`` in the command: the
    step now reads each URL as the command does, whatever the status."""
    needs("datatrove")
    from datatrove.data import Document

    from scrapy_rep import RepRecheckFilter

    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /p\n")])
    urls = ["https:///p/1", "https://a.example:99999/x", "https://[::1/x", "http://[zz]/x",
            "https://a b.example/x", "https://a.example/p/1", "https://a.example/x",
            "ftp://a.example/x", "https://b.example/x"]  # fmt: skip
    dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
    write_jsonl(dataset, urls)
    recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                 f"--report={report}")  # fmt: skip
    command = [line["status"] for line in report_lines(report)]
    assert command == ["unreadable"] * 5 + ["refused", "kept", "unreadable", "unknown"]
    step = RepRecheckFilter(str(warc), "search", {"USER_AGENT": "mybot/1.0"}, keep_unknown=True)
    found = [step.kept(Document("", url, metadata={"url": url})) for url in urls]
    assert [status for _, status, _ in found] == command
    assert [kept for kept, _, _ in found] == [False] * 6 + [True, False, True]


def test_a_capture_uri_of_an_uppercase_scheme_is_read(tmp_path: Path) -> None:
    """``HTTP://UI.Example:80/robots.txt``: warcio reads a record's HTTP headers only after
    a lowercase ``http:`` or ``https:``, so the capture was dropped and its origin's items
    unknown (kept with --keep-unknown, though it says ``Disallow: /x``). It is read, and
    matched as an origin is."""
    warc = tmp_path / "robots.warc"
    write_warc(warc, [
        ("HTTP://UI.Example:80/robots.txt", 200, b"User-agent: *\nDisallow: /x\n", {}),
        ("HtTpS://UI.Example/robots.txt", 200, b"User-agent: *\nDisallow: /y\n", {}),
    ])  # fmt: skip
    urls = ["http://ui.example/x/1", "http://ui.example/ok", "https://ui.example/y/1",
            "https://ui.example/x/1"]  # fmt: skip
    dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
    write_jsonl(dataset, urls)
    recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                 f"--report={report}", "--keep-unknown")  # fmt: skip
    found = report_lines(report)
    assert [line["status"] for line in found] == ["refused", "kept", "refused", "kept"]
    assert found[0]["document"] == "http://ui.example/robots.txt"


def test_an_origins_capture_is_chosen_once_and_its_body_compressed_once(tmp_path: Path) -> None:
    """Each origin's robots.txt capture was chosen 4 times among its URL's captures and
    its body compressed twice (as read, and again for its entry): a profile's 2 choices
    and 1 compression an item."""
    import hashlib
    import zlib

    from rep_recheck.warc import Capture

    path = tmp_path / "robots.warc.gz"
    write_warc(path, [
        robots_capture("https://a.example", "User-agent: *\nDisallow: /x\n"),
        ("http://r.example/robots.txt", 301, b"", {"Location": "https://r.example/robots.txt"}),
        robots_capture("https://r.example", "User-agent: *\nDisallow: /\n"),
    ], compress=True)  # fmt: skip
    captured = captures(path)
    asked: list[str] = []

    class Counted(dict[str, Capture]):
        def __getitem__(self, url: str) -> Capture:
            asked.append(url)
            return super().__getitem__(url)

        def __contains__(self, url: object) -> bool:
            asked.append(str(url))
            return super().__contains__(url)

        def get(self, url: str, default: Any = None) -> Any:
            asked.append(url)
            return super().get(url, default)

    documents = WarcDocuments(Counted(captured), RequestRules.of(("search",)), ("mybot",))
    for origin, urls in (("https://a.example", ["https://a.example/robots.txt"]),
                         ("http://r.example", ["http://r.example/robots.txt",
                                               "https://r.example/robots.txt"])):  # fmt: skip
        asked.clear()
        found = documents(origin_of(origin))  # type: ignore[arg-type]
        assert found is not None and found.robots is not None
        assert asked == urls  # each URL chosen once
        body_zlib = captured[urls[-1]].body_zlib
        assert found.robots.body_zlib is body_zlib  # the capture's, not compressed again
        body = zlib.decompress(found.robots.body_zlib)
        assert found.robots.sha256 == hashlib.sha256(body).hexdigest() and b"Disallow" in body
