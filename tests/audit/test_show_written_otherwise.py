"""``audit show TRAIL URL`` finds a URL written otherwise than it is stored, as the
records' ids read it (canonicalised: scheme and host case, a ``#fragment``, the query's
order, percent-encoding), and suggests a stored URL that differs by a final ``/`` or
letter case in its path, which is another URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.tools import audit_tool
from tests.support.trailfactory import (
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)


@pytest.fixture
def stored_trail(tmp_path: Path) -> Path:
    body = [snapshot_line(),
            url_line("/docs/page?b=2&a=1", robots=robots_part(None)),
            url_line("/dir/", robots=robots_part(None)),
            url_line("/caf%C3%A9", robots=robots_part(None))]  # fmt: skip
    return write_trail(tmp_path / "trail.jsonl", [run_line(), *body, end_line(body)])


@pytest.mark.parametrize(
    ("asked", "stored"),
    [
        ("HTTP://SITE.test/docs/page?b=2&a=1", "/docs/page?b=2&a=1"),
        ("http://site.test/docs/page?b=2&a=1#part-2", "/docs/page?b=2&a=1"),
        ("http://site.test/docs/page?a=1&b=2", "/docs/page?b=2&a=1"),
        ("http://site.test/café", "/caf%C3%A9"),
    ],
)
def test_a_url_written_otherwise_finds_its_record(
    stored_trail: Path, asked: str, stored: str
) -> None:
    status, out = audit_tool("show", str(stored_trail), asked)
    assert status == 0, out
    assert f"http://site.test{stored} was fetched" in out


def test_a_final_slash_is_another_url_and_is_suggested(stored_trail: Path) -> None:
    status, out = audit_tool("show", str(stored_trail), "http://site.test/dir")
    assert status == 1, out
    lines = out.splitlines()
    assert lines[0] == (
        f"no record of http://site.test/dir in {stored_trail}: the crawl neither sent nor "
        "refused a request for it"
    )
    assert lines[1] == (
        f"did you mean http://site.test/dir/? it has a record "
        f"(`audit show {stored_trail} http://site.test/dir/`)"
    )
    status, out = audit_tool("show", str(stored_trail), "http://site.test/DOCS/page?b=2&a=1")
    assert status == 1 and "did you mean http://site.test/docs/page?b=2&a=1? it has" in out
    status, out = audit_tool("show", str(stored_trail), "http://site.test/elsewhere")
    assert status == 1 and "did you mean" not in out


NEVER = "the crawl neither sent nor refused a request for it"


@pytest.mark.parametrize("asked", ["/docs/page?a=1&b=2", "site.test/docs/page?b=2&a=1",
                                   "SITE.test/docs/page?a=1&b=2#top"])  # fmt: skip
def test_a_url_written_without_its_scheme_finds_the_one_record_of_its_path(
    stored_trail: Path, asked: str
) -> None:
    """A site owner writes the path of their access log (``/private/report.html``), or
    a host and path: the one recorded URL of that path is told, said to be read so."""
    status, out = audit_tool("show", str(stored_trail), asked)
    assert status == 0, out
    lines = out.splitlines()
    assert lines[0] == (
        f"{asked} read as http://site.test/docs/page?b=2&a=1, the one URL of that path these "
        "trails record:"
    )
    assert "http://site.test/docs/page?b=2&a=1 was fetched" in lines[1]
    assert NEVER not in out


def test_another_scheme_names_the_url_recorded_and_never_says_it_was_not_met(
    stored_trail: Path,
) -> None:
    """``https://`` for the ``http://`` the crawl requested is another URL: its story is
    not told as this one's, but the URL of that path is named, and the crawl is never
    said to have neither sent nor refused it."""
    status, out = audit_tool("show", str(stored_trail), "https://site.test/dir/")
    assert status == 1, out
    assert out.splitlines() == [
        f"no record of https://site.test/dir/ as written in {stored_trail}; the crawl recorded "
        "1 URL(s) of that path, which it may mean (another scheme or host is another URL: "
        "`audit show` of each tells its story):",
        f"  http://site.test/dir/: `audit show {stored_trail} http://site.test/dir/`",
    ]


def test_a_path_recorded_on_several_hosts_names_each_and_tells_none(tmp_path: Path) -> None:
    body = [snapshot_line(),
            url_line("/p", robots=robots_part(None)),
            url_line("/p", url="https://site.test/p", robots=robots_part(None)),
            url_line("/p", url="http://other.test/p", fate="refused", refused_by="robots.txt",
                     robots=robots_part(2, "Disallow: /private"))]  # fmt: skip
    trail = write_trail(tmp_path / "trail.jsonl", [run_line(), *body, end_line(body)])
    status, out = audit_tool("show", str(trail), "/p")
    assert status == 1, out
    assert NEVER not in out and "was fetched" not in out
    for url in ("http://site.test/p", "https://site.test/p", "http://other.test/p"):
        assert f"  {url}: `audit show {trail} {url}`" in out
    status, out = audit_tool("show", str(trail), "site.test/p")  # two schemes: both named
    assert status == 1 and "http://other.test/p" not in out
    assert "  http://site.test/p:" in out and "  https://site.test/p:" in out
    status, out = audit_tool("show", str(trail), "third.test/p")  # another host: suggested
    assert status == 1 and NEVER in out
    assert f"did you mean http://other.test/p? it has a record (`audit show {trail} " in out


@pytest.mark.parametrize("asked", ["http://[x/", "http://site.test:99999999/dir/"])
def test_a_url_w3lib_cannot_read_is_told_never_a_crash(stored_trail: Path, asked: str) -> None:
    status, out = audit_tool("show", str(stored_trail), asked)
    assert status == 1 and out.startswith(f"no record of {asked}"), out


def test_a_url_with_its_default_port_and_the_query_reordered_is_the_same_url(
    tmp_path: Path,
) -> None:
    """A recheck's item written ``http://A.EXAMPLE:80/private/1?b=2&a=1`` in its dataset
    (as a request of the crawl may be) was not found as ``http://a.example/private/1?a=1&b=2``,
    the URL it is (its scheme's default port is no other port, RFC 3986 §6.2.3; the query
    sorted and the host in lower case, as Scrapy's fingerprint reads it): "no record", or a
    "may mean". Either way it is told as that URL, and so is a request's record."""
    from tests.support.recheck import recheck_tool, robots_capture, write_jsonl, write_warc

    written = "http://A.EXAMPLE:80/private/1?b=2&a=1"
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [written])
    warc = tmp_path / "documents.warc"
    write_warc(warc, [robots_capture("http://a.example", "User-agent: *\nDisallow: /private\n")])
    trail = tmp_path / "recheck.jsonl"
    recheck_tool(
        str(dataset), "--purpose", "ai-train", "--documents", str(warc), f"--trail={trail}"
    )
    for asked in ("http://a.example/private/1?a=1&b=2", "HTTP://a.example:80/private/1?a=1&b=2"):
        status, out = audit_tool("show", str(trail), asked)
        assert status == 0 and f"{written}: item re-checked" in out.splitlines()[0], out
    body = [snapshot_line(), url_line("/x", url=written, robots=robots_part(None))]
    crawled = write_trail(tmp_path / "trail.jsonl", [run_line(), *body, end_line(body)])
    status, out = audit_tool("show", str(crawled), "http://a.example/private/1?a=1&b=2")
    assert status == 0 and f"{written} was fetched" in out.splitlines()[0], out
    status, out = audit_tool("show", str(crawled), "https://a.example:80/private/1?a=1&b=2")
    assert status == 1 and f"  {written}: `audit show {crawled} {written}`" in out, out
