"""The WARC reader of the re-check (:mod:`rep_recheck.captures`), held to warcio's reading
of the same files, record by record, and to a cut anywhere: a file cut in its last gzip
member (in its WARC headers, its block or its gzip trailer), or a plain WARC cut in its
last record, is one :class:`WarcError` naming the file, never one record fewer."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.asof import Timeline
from rep_recheck.captures import Capture, Ref, WarcError, WarcFiles, records
from tests.support.recheck import needs, payload_digest, write_warc

BODY = b"User-agent: *\nDisallow: /private\n"
#: Records of every kind the reader meets: plain, chunked, compressed, a 404 page, a
#: redirect, a status line without a status, a revisit, an uppercase scheme, a non-HTTP
#: URI (not read), and a capture cut on purpose.
CAPTURES: list[tuple[str, int | str, bytes, dict[str, str]]] = [
    ("https://a.example/robots.txt", 200, BODY, {"Content-Type": "text/plain"}),
    ("https://b.example/robots.txt", 200, b"7\r\nUser-ag\r\n0\r\n\r\n",
     {"Transfer-Encoding": "chunked"}),
    ("https://c.example/robots.txt", 200, gzip.compress(BODY, mtime=0),
     {"Content-Encoding": "gzip"}),
    ("https://d.example/robots.txt", 404, b"<html>gone</html>", {"Content-Type": "text/html"}),
    ("https://e.example/robots.txt", 301, b"", {"Location": "https://a.example/robots.txt"}),
    ("https://f.example/robots.txt", "2OO OK", BODY, {}),
    ("HTTP://G.EXAMPLE:80/robots.txt", 200, BODY, {"Cache-Control": "max-age=60"}),
    ("dns:h.example", 200, b"1.2.3.4", {}),
    ("https://i.example/robots.txt", 200, BODY[:10],
     {"Content-Length": str(len(BODY)), "WARC-Truncated": "length"}),
    ("https://a.example/robots.txt", 200, b"", {
        "WARC-Type": "revisit", "WARC-Payload-Digest": payload_digest(BODY),
        "WARC-Refers-To-Target-URI": "https://a.example/robots.txt",
        "WARC-Date": "2025-05-01T00:00:00Z"}),
]  # fmt: skip


def _warcio_captures(path: Path) -> list[tuple[str, int, bytes, dict[str, str]]]:
    """Each response record of an http(s) URI as warcio reads it: its URI, status line's
    code, payload (as stored, de-chunked) and the HTTP headers the reader uses."""
    archive = needs("warcio.archiveiterator")
    found = []
    with path.open("rb") as file:
        for record in archive.ArchiveIterator(file):
            uri = record.rec_headers.get_header("WARC-Target-URI")
            if record.rec_type != "response" or not uri.lower().startswith("http"):
                continue
            http = record.http_headers
            if http is None:  # warcio reads an uppercase scheme's headers only when asked
                parser = needs("warcio.statusandheaders").StatusAndHeadersParser([], False)
                http = parser.parse(record.raw_stream)
            code, payload = http.get_statuscode(), record.raw_stream.read()
            names = ("Location", "Cache-Control", "Content-Encoding")
            headers = {n: http.get_header(n) for n in names if http.get_header(n)}
            found.append((uri, code, payload, headers))
    return found


@pytest.mark.parametrize("kept", [False, True], ids=["read-again", "kept"])
@pytest.mark.parametrize("compress", [True, False], ids=["gzip", "plain"])
def test_each_record_reads_as_warcio_reads_it(tmp_path: Path, compress: bool, kept: bool) -> None:
    """Every response record indexed, read again from its offset (or kept as it was
    inflated while the records kept are small) to the capture warcio reads: the same
    status, payload and headers (an independent reader of the same bytes)."""
    path = tmp_path / ("a.warc.gz" if compress else "a.warc")
    ids = write_warc(path, CAPTURES, compress=compress)
    index = list(records(path, room=[1 << 20] if kept else None))
    assert all(isinstance(one.where, tuple) is kept for _, one in index if isinstance(one, Ref))
    refs = [(key, one) for key, one in index if isinstance(one, Ref)]
    revisits = [one for _, one in index if isinstance(one, Capture)]
    assert [key for key, _ in refs] == [
        "https://a.example/robots.txt", "https://b.example/robots.txt",
        "https://c.example/robots.txt", "https://d.example/robots.txt",
        "https://e.example/robots.txt", "https://f.example/robots.txt",
        "http://g.example/robots.txt", "https://i.example/robots.txt",
    ]  # fmt: skip
    assert [one.record_id for _, one in refs] == [ids[n] for n in (0, 1, 2, 3, 4, 5, 6, 8)]
    assert [one.refers_uri for one in revisits] == ["https://a.example/robots.txt"]
    files = WarcFiles([path])
    read = [files.load(one) for _, one in refs]
    theirs = _warcio_captures(path)
    assert len(read) == len(theirs)
    for capture, (uri, code, payload, headers) in zip(read, theirs, strict=True):
        if capture.problem:  # the status line without a status
            assert code == "2OO", uri
            continue
        assert str(capture.status) == code, uri
        assert capture.location == headers.get("Location"), uri
        assert capture.cache_control == headers.get("Cache-Control"), uri
        body = zlib.decompress(capture.body_zlib)
        if capture.status != 200:
            assert body == b"", uri  # a body only a 2xx's is read
        elif "Content-Encoding" in headers:
            assert body == gzip.decompress(payload), uri
        elif uri.startswith("https://b."):
            assert body == b"User-ag", uri  # de-chunked
        else:
            assert body == payload, uri
        assert capture.truncated is uri.startswith("https://i."), uri
    files.close()


def _three_member_warc(tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "cut.warc.gz"
    write_warc(path, [(f"https://{n}.example/robots.txt", 200, BODY * 30, {}) for n in "abc"],
               compress=True)  # fmt: skip
    return path, path.read_bytes()


def _last_member(data: bytes) -> tuple[int, bytes]:
    """The offset of the last gzip member of ``data`` and what it inflates to."""
    at = 0
    while True:
        inflate = zlib.decompressobj(31)
        whole = inflate.decompress(data[at:])
        rest = len(inflate.unused_data)
        if not rest:
            return at, whole
        at = len(data) - rest


def _compressed_at(member: bytes, inflated: int) -> int:
    """The compressed length of ``member`` whose inflated part covers ``inflated`` bytes."""
    for cut in range(1, len(member)):
        if len(zlib.decompressobj(31).decompress(member[:cut])) >= inflated:
            return cut
    raise AssertionError("never reached")


@pytest.mark.parametrize("where", ["its WARC headers", "its block", "its gzip trailer"])
def test_a_last_gzip_member_cut_anywhere_stops_the_run_naming_the_file(
    tmp_path: Path, where: str
) -> None:
    """warcio reads a last member cut in its WARC headers as one record fewer, with no
    error: the origin's robots.txt then read as not captured, not as cut."""
    path, data = _three_member_warc(tmp_path)
    start, whole = _last_member(data)
    member = data[start:]
    if where == "its WARC headers":
        cut = _compressed_at(member, whole.index(b"WARC-Target-URI"))
    elif where == "its block":
        cut = _compressed_at(member, whole.index(b"Disallow") + 200)
    else:
        cut = len(member) - 3
    path.write_bytes(data[: start + cut])
    with pytest.raises(WarcError, match=rf"^{path}: cut"):
        list(records(path))
    with pytest.raises(WarcError, match=rf"^{path}: cut"):
        Timeline.read([path])


@pytest.mark.parametrize("cut", [12, 200, -30])
def test_a_plain_warc_cut_in_its_last_record_stops_the_run(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "cut.warc"
    write_warc(path, [(f"https://{n}.example/robots.txt", 200, BODY, {}) for n in "ab"])
    data = path.read_bytes()
    last = data.rindex(b"WARC/1.")
    path.write_bytes(data[: last + cut] if cut > 0 else data[: cut - 4])
    with pytest.raises(WarcError, match=rf"^{path}: cut"):
        list(records(path))


def test_a_content_length_past_the_data_stops_the_run(tmp_path: Path) -> None:
    """A block shorter than its ``Content-Length`` in a gzip member: cut, not a capture."""
    plain = tmp_path / "a.warc"
    write_warc(plain, [("https://a.example/robots.txt", 200, BODY, {})])
    data = plain.read_bytes()
    length = data.index(b"Content-Length: ") + len(b"Content-Length: ")
    end = data.index(b"\r\n", length)
    longer = data[:length] + str(int(data[length:end]) + 40).encode() + data[end:]
    path = tmp_path / "a.warc.gz"
    path.write_bytes(gzip.compress(longer, mtime=0))
    with pytest.raises(WarcError, match=r"cut: record 1 is shorter than its length"):
        list(records(path))


def test_a_record_read_again_from_a_changed_file_is_an_error_not_another_capture(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.warc.gz"
    write_warc(path, [("https://a.example/robots.txt", 200, BODY, {})], compress=True)
    ((_, ref),) = list(records(path))
    assert isinstance(ref, Ref)
    path.write_bytes(b"\0" * path.stat().st_size)
    with pytest.raises(WarcError, match="not a WARC"):
        WarcFiles([path]).load(ref)


def test_the_index_keeps_no_payload(tmp_path: Path) -> None:
    """A response record is indexed by where it is: nothing of its payload is held."""
    path = tmp_path / "a.warc.gz"
    write_warc(path, [("https://a.example/robots.txt", 200, BODY * 1000, {})], compress=True)
    ((_, ref),) = list(records(path))
    held: list[Any] = list(ref)
    assert all(not isinstance(value, bytes) for value in held)
    assert sum(len(str(value)) for value in held) < 120
    assert io.BytesIO(path.read_bytes()[ref.offset : ref.offset + ref.size]).read(2) == (
        b"\x1f\x8b"
    )


def test_a_uri_already_as_it_is_looked_up_is_its_own_key() -> None:
    """:func:`capture_key`'s shortcut for the usual URI gives what its full reading gives,
    for every URI the shortcut takes (drawn), and is not taken where they differ."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from rep_recheck import captures

    def full(uri: str) -> str:
        origin = captures.origin_of(uri)
        assert origin is not None
        parts = captures.urlsplit(uri.strip())
        query = f"?{parts.query}" if parts.query else ""
        return f"{origin}{parts.path or '/'}{query}"

    label = st.text("az09-", min_size=1, max_size=6)
    host = st.lists(label, min_size=1, max_size=4).map(".".join)
    rest = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=20)

    @settings(max_examples=500, deadline=None)
    @given(st.sampled_from(["http", "https"]), host, rest)
    def same(scheme: str, name: str, tail: str) -> None:
        uri = f"{scheme}://{name}/{tail}"
        if captures._AS_KEYED(uri) is not None:
            assert captures.capture_key(uri) == full(uri) == uri

    same()
    for uri in ("https://a.example/x?", "https://a.example/x#f", "https://A.example/",
                "https://a.example:443/", "https://u@a.example/", "https://a.example",
                "https://a..example/", "https://a.example./"):  # fmt: skip
        assert captures._AS_KEYED(uri) is None, uri
