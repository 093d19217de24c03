"""page_directives() on fake Scrapy responses (SPEC §6 "Sources")."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scrapy.http import HtmlResponse, Response, TextResponse

from rep_engine.directives._metascan import scan_meta_tags
from rep_engine.verdict.page import SAYS_NOTHING
from scrapy_rep import page_directives
from scrapy_rep.crawl.page.pagereader import _decoded, _parsed, meta_tags, read_statements
from tests.support.charsetpages import CHARSET_PAGES


def html_response(
    body: str, headers: dict[str, str | list[str]] | None = None, url: str = "https://e.com/p"
) -> HtmlResponse:
    return HtmlResponse(url, body=body.encode(), headers=headers or {}, encoding="utf-8")


def flags(directives: object) -> set[str]:
    names = (
        "noindex",
        "nofollow",
        "noarchive",
        "nosnippet",
        "notranslate",
        "noimageindex",
        "nocache",
        "noai",
    )
    return {name for name in names if getattr(directives, name)}


SOURCE_CASES = [
    (
        "head",
        '<html><head><meta name="robots" content="noindex"></head><body></body></html>',
        {"noindex"},
    ),
    (
        "body",
        '<html><head></head><body><p>x</p><meta name="robots" content="noindex"></body></html>',
        {"noindex"},
    ),
    (
        "uppercase-attributes",
        '<html><head><META NAME="ROBOTS" CONTENT="NOINDEX"></head></html>',
        {"noindex"},
    ),
    ("comment", '<html><head><!-- <meta name="robots" content="noindex"> --></head></html>', set()),
    (
        "script",
        '<html><head><script>d.write(\'<meta name="robots" content="noindex">\')</script>'
        "</head></html>",
        set(),
    ),
    (
        "style",
        '<html><head><style>/* <meta name="robots" content="noindex"> */</style></head></html>',
        set(),
    ),
    (
        "template",
        '<html><body><template><meta name="robots" content="noindex"></template></body></html>',
        set(),
    ),
    (
        "noscript-counts",
        '<html><body><noscript><meta name="robots" content="noindex"></noscript></body></html>',
        {"noindex"},
    ),
    ("own-token", '<html><head><meta name="mybot" content="nofollow"></head></html>', {"nofollow"}),
    ("other-token", '<html><head><meta name="otherbot" content="nofollow"></head></html>', set()),
    (
        "own-token-prefix",
        '<html><head><meta name="mybot-news" content="nofollow"></head></html>',
        set(),
    ),
    (
        "several-tags-all-count",
        '<html><head><meta name="robots" content="nofollow"><meta name="mybot" content="noindex">'
        '<meta name="robots" content="noarchive"></head></html>',
        {"nofollow", "noindex", "noarchive"},
    ),
    ("no-content", '<html><head><meta name="robots"></head></html>', set()),
]


@pytest.mark.parametrize(
    ("case", "body", "expected"), SOURCE_CASES, ids=[c[0] for c in SOURCE_CASES]
)
def test_spec6_meta_sources(case: str, body: str, expected: set[str]) -> None:
    assert flags(page_directives(html_response(body), "mybot/1.0")) == expected


def test_spec6_noscript_can_be_switched_off() -> None:
    body = '<html><body><noscript><meta name="robots" content="noindex"></noscript></body></html>'
    assert not page_directives(html_response(body), "mybot", meta_in_noscript=False).noindex


def test_spec6_every_x_robots_tag_header_counts_and_meta_does_not_override() -> None:
    response = html_response(
        '<html><head><meta name="robots" content="index, follow"></head></html>',
        headers={"X-Robots-Tag": ["noarchive", "mybot: noindex", "otherbot: nofollow"]},
    )
    assert flags(page_directives(response, "mybot")) == {"noarchive", "noindex"}


def test_spec6_non_html_uses_headers_only() -> None:
    pdf = Response(
        "https://e.com/a.pdf", headers={"X-Robots-Tag": "none", "Content-Type": "application/pdf"}
    )
    assert flags(page_directives(pdf, "mybot")) == {"noindex", "nofollow"}
    text = TextResponse(
        "https://e.com/a.txt", body=b'<meta name="robots" content="noindex">', encoding="utf-8"
    )
    assert not page_directives(text, "mybot").noindex


def test_spec6_extra_tokens_apply() -> None:
    body = '<html><head><meta name="googlebot" content="noindex"></head></html>'
    response = html_response(body, headers={"X-Robots-Tag": "googlebot: nofollow"})
    assert flags(page_directives(response, "mybot")) == set()
    assert flags(page_directives(response, "mybot", extra_tokens=["Googlebot"])) == {
        "noindex",
        "nofollow",
    }


def test_sources_say_where_each_directive_came_from() -> None:
    response = html_response(
        '<html><head><meta name="robots" content="noindex"></head></html>',
        headers={"X-Robots-Tag": "nofollow"},
    )
    assert page_directives(response, "mybot").sources == (
        "X-Robots-Tag: nofollow",
        '<meta name="robots" content="noindex">',
    )


def test_speed_no_parse_without_a_robots_meta_name() -> None:
    """SPEC §6 "Speed": a page without any meta name is not parsed at all."""
    response = html_response(
        "<html><head><title>plain</title></head><body>" + "<p>x</p>" * 1000 + "</body></html>"
    )
    assert not page_directives(response, "mybot")
    assert response._cached_selector is None  # nobody built a selector (no HTML parse)


def test_speed_a_robots_meta_tag_is_read_without_a_parse() -> None:
    """SPEC §6 "Speed": the usual robots meta tag is read from the page's bytes."""
    response = html_response(
        '<!DOCTYPE html><html><head><meta charset=utf-8><title>t</title><meta name="robots" '
        'content="noindex"></head><body>' + "<p>x</p>" * 1000 + "</body></html>"
    )
    assert page_directives(response, "mybot").noindex
    assert response._cached_selector is None  # nobody built a selector (no HTML parse)


def test_speed_a_character_reference_parses_the_tag_not_the_page() -> None:
    response = html_response(
        '<html><head><meta name="r&#111;bots" content="no&#105;ndex"></head></html>'
    )
    directives = page_directives(response, "mybot")
    assert directives.noindex
    assert directives.sources == ('<meta name="robots" content="noindex">',)
    assert response._cached_selector is None


def test_speed_parse_reuses_the_response_selector() -> None:
    """A page the scan cannot read with certainty (a bogus comment before the tag) is
    parsed through the response's own selector, which the spider then reuses."""
    response = html_response('<html><head><!x><meta name="robots" content="noindex"></head></html>')
    assert page_directives(response, "mybot").noindex
    selector = response.selector
    assert page_directives(response, "mybot").noindex
    assert response.selector is selector  # the spider's later css()/xpath() parse nothing again


#: Tags the parse reads as robots meta tags and the page reader used to miss: its check
#: whether a page could hold one looked for the name's bytes, or ``&#`` before the first
#: ``>`` of a tag, and gave up when Scrapy's selector rejected a broken ``<base href>``.
MISSED_CASES = [
    (
        "reference after a quoted >",
        b'<meta content="noindex" data-x="a>b" name="r&#111;bots">',
        "utf-8",
        "mybot",
    ),
    ("NUL inside the name", b'<meta name="rob\x00ots" content="noindex">', "utf-8", "mybot"),
    (
        "Kelvin sign for k",
        '<meta name="\u212aBOT" content="noindex">'.encode(),
        "utf-8",
        "KBot/1.0",
    ),
    ("named reference", b'<meta name="my&lowbar;bot" content="noindex">', "utf-8", "My_Bot/1.0"),
    (
        "reference in a UTF-16 page",
        '<html><head><meta name="r&#111;bots" content="noindex"></head></html>'.encode("utf-16"),
        "utf-16",
        "mybot",
    ),
    (
        "broken base href",
        b'<html><head><base href="http://[oops/"><meta name=robots content=noindex></head></html>',
        "utf-8",
        "mybot",
    ),
    (
        "broken base href, page parsed",
        b'<html><head><base href="http://[oops/"><!x><meta name=robots content=noindex>',
        "utf-8",
        "mybot",
    ),
]


@pytest.mark.parametrize(
    ("case", "body", "encoding", "agent"), MISSED_CASES, ids=[c[0] for c in MISSED_CASES]
)
def test_spec6_a_tag_the_parse_reads_is_never_missed(
    case: str, body: bytes, encoding: str, agent: str
) -> None:
    response = HtmlResponse("https://e.com/", body=body, encoding=encoding)
    assert page_directives(response, agent).noindex


@pytest.mark.parametrize(
    ("case", "body", "expected"), SOURCE_CASES, ids=[c[0] for c in SOURCE_CASES]
)
def test_spec6_meta_sources_are_read_without_a_parse(
    case: str, body: str, expected: set[str]
) -> None:
    """Each source case reads the same from the page's bytes as from its parse; only
    tags after a ``<template>``, or a ``<noscript>`` whose tags do not count, are left
    to the parse."""
    names = frozenset({"robots", "mybot"})
    for noscript in (True, False):
        found = scan_meta_tags(body.encode(), names, noscript=noscript)
        parsed = _parsed(html_response(body), names, noscript)
        if found is None:
            assert case == "template" or (case == "noscript-counts" and not noscript)
        else:
            assert _decoded(found, names, "utf-8") == parsed


def test_huge_page_with_10000_meta_tags() -> None:
    tags = '<meta name="robots" content="noarchive">' * 10_000
    response = html_response(f"<html><head>{tags}</head><body>{'x' * 1_000_000}</body></html>")
    assert page_directives(response, "mybot").noarchive
    assert len(meta_tags(response, frozenset({"robots"}))) == 10_000


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000), st.text(max_size=200))
def test_never_raises_on_garbage_bodies_and_headers(body: bytes, header: str) -> None:
    safe_header = header.encode("utf-8", "replace").replace(b"\r", b"").replace(b"\n", b"")
    response = HtmlResponse(
        "https://e.com/",
        body=b"<meta name=robots content=x>" + body,
        headers={"X-Robots-Tag": safe_header},
    )
    page_directives(response, "mybot")


def test_binary_garbage_html_response() -> None:
    response = HtmlResponse(
        "https://e.com/", body=os.urandom(50_000) + b"robots", encoding="latin-1"
    )
    page_directives(response, "mybot")


def test_read_statements_finds_the_table_s_header_fields_in_any_case() -> None:
    response = HtmlResponse(
        "https://example.com/",
        body=b"<html><head><meta name='robots' content='noarchive'></head></html>",
        headers={"robots-tag": "*;noindex", "X-ROBOTS-TAG": "mybot: nofollow", "X-Other": "1"},
    )
    statements = read_statements(response, ("mybot",))
    assert sorted(statements.headers) == [
        ("robots-tag", "*;noindex"),
        ("x-robots-tag", "mybot: nofollow"),
    ]
    assert statements.meta == (("robots", "noarchive"),)
    directives = page_directives(response, "MyBot/1.0")
    assert directives.noindex and directives.nofollow and directives.noarchive


def test_read_statements_of_a_page_that_says_nothing() -> None:
    response = HtmlResponse("https://example.com/", body=b"<p>x</p>", headers={"X-Other": "1"})
    assert read_statements(response, ("mybot",)) is SAYS_NOTHING


@pytest.mark.parametrize("name", list(CHARSET_PAGES))
def test_a_page_is_read_as_a_browser_decodes_it(name: str) -> None:
    # A UTF-16 label read as Python reads it (big-endian; a page's own
    # declaration of UTF-16 taken at its word) lost the noindex a browser reads.
    page = CHARSET_PAGES[name]
    response = HtmlResponse(
        "https://e.com/", body=page.body, headers={"Content-Type": page.content_type}
    )
    assert page_directives(response, "mybot").noindex
    assert meta_tags(response, {"robots"}) == [("robots", "noindex")]


def test_a_page_read_two_ways_counts_each_tag_once_and_every_tag_either_finds() -> None:
    # Scrapy decodes this page as koi8-r (its XML declaration, which it reads first), a
    # browser as UTF-8 (its meta charset): a tag either reading finds counts.
    body = (
        '<?xml version="1.0" encoding="koi8-r"?><html><head><meta charset="utf-8">'
        '<meta name="robots" content="noindex"><meta name="robots" content="max-snippet:5 \u0416">'
    ).encode("utf-8")
    response = HtmlResponse("https://e.com/", body=body, headers={"Content-Type": "text/html"})
    assert response.encoding == "koi8-r"
    assert meta_tags(response, {"robots"}) == [
        ("robots", "noindex"),
        ("robots", "max-snippet:5 \u0416"),
        ("robots", "max-snippet:5 " + "\u0416".encode().decode("koi8-r")),
    ]


def test_an_encoding_named_by_the_response_s_creator_is_the_only_reading() -> None:
    body = "<meta name=robots content='nofollow, \u0422\u0435\u0441\u0442'>".encode("koi8-r")
    named = HtmlResponse("https://e.com/", body=body, encoding="koi8-r")
    assert meta_tags(named, {"robots"}) == [("robots", "nofollow, \u0422\u0435\u0441\u0442")]


def test_the_content_signal_header_is_read_into_the_statements() -> None:
    """Cloudflare's converted pages send their Content-Signal as a response header, read
    as one of the page's header fields (what it says: the page-level signal of
    tests/usage/test_purpose_content_signal_use.py)."""
    response = HtmlResponse(
        "https://example.com/article",
        body=b"<html><body>p</body></html>",
        headers={"Content-Signal": "ai-train=yes, search=yes, ai-input=yes"},
    )
    statements = read_statements(response, ("x",))
    assert statements.headers == (("content-signal", "ai-train=yes, search=yes, ai-input=yes"),)
