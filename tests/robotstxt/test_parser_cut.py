"""The part of a cut robots.txt that is read (rep-engine/rep_engine/robotstxt/_parser.py,
``counted_body``; docs/decisions.md, 'A cut robots.txt reads no part of a line that could
allow'): the first 500 KiB, and of a cut document no unended last line that could allow
more than the site's whole line."""

from __future__ import annotations

import pytest

from rep_engine.robotstxt import parse_robotstxt
from rep_engine.robotstxt._parser import counted_body
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES

HEAD = b"User-agent: *\nDisallow: /p\n"

#: id -> (the cut body's last line, whether it is read). Every body is HEAD + that line.
LAST_LINES = {
    "partial allow": (b"Allow: /pu", False),
    "partial user-agent": (b"User-agent: testbot", False),
    "partial sitemap": (b"Sitemap: https://a.example/site", False),
    "partial crawl-delay": (b"Crawl-delay: 1", False),
    "partial content-usage": (b"Content-Usage: train-ai=", False),
    "partial content-signal": (b"Content-Signal: ai-train=n", False),
    "partial license": (b"License: https://a.example/lic", False),
    "partial allowaitraining": (b"AllowAITraining: /pu", False),
    "partial unknown key": (b"Noindex: /p", False),
    "partial key": (b"Disall", False),
    "allow without colon (google)": (b"Allow /pu", False),
    "partial disallow, no path": (b"Disallow:", False),
    "partial disallow, no path after the space": (b"Disallow: ", False),
    "partial disallow, no colon nor path (google)": (b"Disallow", False),
    "partial disallow": (b"Disallow: /pu", True),
    "partial disallow, misspelt (google)": (b"Dissalow: /pu", True),
    "partial disallow without colon (google)": (b"Disallow /pu", True),
    "partial disallowaitraining": (b"DisallowAITraining: /pu", True),
    "partial disallow, indented": (b"  disallow:/pu", True),
    "allow cut in its comment": (b"Allow: /public # the publ", True),
}  # fmt: skip


@pytest.mark.parametrize("last", LAST_LINES)
def test_rfc9309_2_5_a_cut_documents_unended_last_line_is_read_only_if_it_can_only_restrict(
    last: str,
) -> None:
    line, read = LAST_LINES[last]
    body = HEAD + line
    assert counted_body(body, cut=True) == (body if read else HEAD)


@pytest.mark.parametrize("last", LAST_LINES)
def test_a_whole_documents_unended_last_line_is_read(last: str) -> None:
    body = HEAD + LAST_LINES[last][0]
    assert counted_body(body) == body


@pytest.mark.parametrize("end", [b"\n", b"\r", b"\r\n"])
def test_a_cut_after_a_line_end_keeps_every_line(end: bytes) -> None:
    body = HEAD + b"Allow: /public" + end
    assert counted_body(body, cut=True) == body


def test_a_cut_document_of_one_partial_line_reads_nothing() -> None:
    assert counted_body(b"User-agent: testb", cut=True) == b""
    assert counted_body(b"\xef\xbb\xbfUser-agent: testb", cut=True) == b""
    assert counted_body(b"\xef\xbb\xbfDisallow: /p", cut=True) == b"\xef\xbb\xbfDisallow: /p"


def test_spec1_a_body_over_500_kib_is_cut_there_and_read_as_cut() -> None:
    line = b"Allow: /public-stuff\n"
    pad = b"#" + b"x" * (MAX_BODY_BYTES - len(HEAD) - len(b"Allow: /pu") - 2) + b"\n"
    body = HEAD + pad + line
    assert body[:MAX_BODY_BYTES].endswith(b"Allow: /pu")
    assert counted_body(body) == HEAD + pad
    # Exactly 500 KiB and not said to be cut: whole, its last line read.
    assert counted_body(body[:MAX_BODY_BYTES]) == body[:MAX_BODY_BYTES]
    assert counted_body(body[:MAX_BODY_BYTES], cut=True) == HEAD + pad


#: The whole file, the part a cut leaves (ending it), the URL the partial line would allow.
CUTS = {
    "allow": (b"User-agent: *\nDisallow: /p\nAllow: /public-stuff\n", b"Allow: /pu",
              "/purchase"),
    "user-agent": (b"User-agent: *\nDisallow: /\n\nUser-agent: testbot-news\nDisallow: /\n",
                   b"User-agent: testbot", "/page"),
}  # fmt: skip


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
@pytest.mark.parametrize("cut", CUTS)
def test_spec1_a_robots_txt_cut_at_500_kib_reads_no_partial_line_that_would_allow(
    cut: str, profile: str
) -> None:
    whole, kept, path = CUTS[cut]
    start = whole.index(kept)
    pad = b"#" + b"x" * (MAX_BODY_BYTES - start - len(kept) - 2) + b"\n"
    body = whole[:start] + pad + whole[start:]
    assert body[:MAX_BODY_BYTES].endswith(kept)
    url = f"https://a.example{path}"
    assert not parse_robotstxt(body, profile).allowed(url, "testbot")
    # The download said it was cut (the fetch hands over at most 500 KiB): the same.
    cut_body = whole[: start + len(kept)]
    assert not parse_robotstxt(cut_body, profile, truncated=True).allowed(url, "testbot")
    # Not said to be cut, the same bytes are a whole file: its last line is read (in
    # legacy the first matching line, ``Disallow: /p``, decides /purchase whatever follows).
    if not (profile == "legacy" and cut == "allow"):
        assert parse_robotstxt(cut_body, profile).allowed(url, "testbot")


def test_truncated_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="truncated must be a bool"):
        parse_robotstxt(b"User-agent: *\n", truncated="yes")  # type: ignore[arg-type]
