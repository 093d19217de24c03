"""The page reader's byte scan of a page's meta tags against the HTML parse it stands in
for (SPEC §6 "Sources", "Speed"; the scan: rep-engine/rep_engine/directives/_metascan.py,
tests/directives/test_metascan.py; the parse and the reading of both:
scrapy_rep/crawl/page/pagereader.py).

The property: wherever the scan answers, its tags (and so the page's directives) are the
parse's, for generated pages with meta tags written every way HTML allows (attribute
order, quoting, case, character references, whitespace) in every place (head, body,
``<noscript>``, ``<script>``, ``<style>``, ``<template>``, comments, attribute values…).
Where it cannot be certain it must say so (``None``) and the page is parsed.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scrapy.http import HtmlResponse

from rep_engine.directives._metascan import scan_meta_tags
from scrapy_rep.crawl.page.pagereader import _decoded, _parsed, meta_tags

NAMES = frozenset({"robots", "mybot", "kbot", "tdm-reservation"})


def full_parse(body: bytes, noscript: bool, encoding: str = "utf-8") -> list[tuple[str, str]]:
    """The tags as the parsed page has them (the response's selector, lxml)."""
    response = HtmlResponse("https://e.com/", body=body, encoding=encoding)
    return _parsed(response, NAMES, noscript)


def scanned(body: bytes, noscript: bool, encoding: str = "utf-8") -> list[tuple[str, str]] | None:
    """The tags as the scan reads them, ``None`` where it defers to the parse."""
    found = scan_meta_tags(body, NAMES, noscript=noscript)
    return None if found is None else _decoded(found, NAMES, encoding)


# ---------------------------------------------------------------- generated pages

_SPACE = st.sampled_from([" ", "  ", "\n", "\t", "\r\n", "\r", "\x0c", "\n  "])
_NAME_VALUES = st.sampled_from(
    [
        "robots",
        "ROBOTS",
        "Robots",
        " robots ",
        "robots\t",
        "\x1crobots",
        "\xa0robots",
        "mybot",
        "MyBot",
        "kbot",
        "\u212abot",  # the Kelvin sign: "kbot" once lowercased
        "r&#111;bots",
        "&#x72;obots",
        "&#82;OBOTS",
        "rob&shy;ots",
        "robots&amp;",
        "rob\rots",
        "rob\x01ots",
        "tdm-reservation",
        "tdm&#45;reservation",
        "googlebot",
        "description",
        "viewport",
        "robot",
        "robotss",
        "",
    ]
)
_CONTENT_VALUES = st.sampled_from(
    [
        "noindex",
        "NOINDEX, NOFOLLOW",
        "noindex nofollow",
        " noarchive ",
        "max-snippet:20, max-image-preview:large",
        "unavailable_after: 25 Jun 2010 15:00:00 PST",
        "none",
        "index, follow",
        "noai, noimageai",
        "1",
        "",
        "no&#105;ndex",
        "noindex&comma; nofollow",
        "&notit; &not &amp=x",
        "no\rindex",
        "no\r\nfollow",
        "noindex\tnofollow",
        "nofollow\x02",
        "é noindex",
        "a>b",
        "a'b",
        'a"b',
    ]
)
_ATTRIBUTE_NAMES = {
    "name": st.sampled_from(["name", "NAME", "Name"]),
    "content": st.sampled_from(["content", "CONTENT", "Content"]),
    "other": st.sampled_from(["http-equiv", "charset", "property", "data-x", "itemprop", "x"]),
}


@st.composite
def attribute(draw: Any, kind: str) -> str:
    name = draw(_ATTRIBUTE_NAMES[kind])
    if kind == "name":
        value = draw(_NAME_VALUES)
    elif kind == "content":
        value = draw(_CONTENT_VALUES)
    else:
        value = draw(st.sampled_from(["utf-8", "og:title", "a b", "x&amp;y", "", "é"]))
    form = draw(st.sampled_from(["double", "single", "unquoted", "bare", "spaced"]))
    if form == "bare":
        return name
    if form == "double":
        return f'{name}="{value}"'
    if form == "single":
        return f"{name}='{value}'"
    if form == "spaced":
        return f'{name}{draw(_SPACE)}={draw(_SPACE)}"{value}"'
    return f"{name}={value}"


@st.composite
def meta_tag(draw: Any) -> str:
    kinds = draw(
        st.lists(st.sampled_from(["name", "content", "other"]), min_size=0, max_size=4).map(
            lambda drawn: ["name", "content", *drawn]
        )
    )
    attributes = [draw(attribute(kind)) for kind in draw(st.permutations(kinds))]
    parts = []
    for text in attributes:
        parts.append(draw(st.sampled_from(["", "/"])) if parts and parts[-1].endswith('"') else "")
        parts.append(draw(_SPACE) + text)
    end = draw(st.sampled_from([">", "/>", " />", " >", ""]))
    return draw(st.sampled_from(["<meta", "<META", "<Meta"])) + "".join(parts) + end


_TEXT = st.sampled_from(
    [
        "text",
        "a < b",
        "x &amp; y",
        "&lt;meta name=robots content=noindex&gt;",
        "robots",
        "1 <2",
        "</ >",
        "-->",
        "",
    ]
)
_OTHER_TAGS = st.sampled_from(
    [
        '<link rel="stylesheet" href="/s.css">',
        "<div class='a>b'>",
        "</div>",
        "<p>",
        "<br/>",
        '<a href="/x" title="<b>">',
        "</a>",
        "<img src=x alt=y>",
        "<table><tr><td>",
        "</table>",
        "<select><option>",
        "</select>",
        "<span\ndata-x='1'\n>",
        '<input value="a"b>',
        "</p foo='>'>",
        "<!doctype html>",
        '<!DOCTYPE html PUBLIC "a>b">',
        "<!-- a comment -->",
        "<!---->",
        "<!-- a -- b --->",
        "<!-->",
        "<!--->",
        "<!-- x --!>",
        "<!x>",
        "<?php ?>",
        "<![CDATA[ x ]]>",
        "<xmp>x</xmp>",
        "<iframe>x</iframe>",
        "<div<meta>",
        "<scriptx>",
        "<",
        "<1>",
    ]
)


def _wrapped(draw: Any, inner: str) -> str:
    """``inner`` put somewhere a tag may or may not count."""
    place = draw(
        st.sampled_from(
            [
                "as is",
                "head",
                "body",
                "noscript",
                "script",
                "script-comment",
                "script-double",
                "style",
                "template",
                "title",
                "textarea",
                "comment",
                "attribute",
                "single-attribute",
                "svg",
                "unclosed-comment",
                "unclosed-script",
            ]
        )
    )
    return {
        "as is": inner,
        "head": f"<head>{inner}</head>",
        "body": f"<body>{inner}</body>",
        "noscript": f"<noscript>{inner}</noscript>",
        "script": f"<script>document.write('{inner}')</script>",
        "script-comment": f"<script><!--\n{inner}\n//--></script>",
        "script-double": f"<script><!--<script>{inner}</script>--></script>",
        "style": f"<style>/* {inner} */</style>",
        "template": f"<template>{inner}</template>",
        "title": f"<title>{inner}</title>",
        "textarea": f"<textarea>{inner}</textarea>",
        "comment": f"<!-- {inner} -->",
        "attribute": f'<div title="{inner}">',
        "single-attribute": f"<div title='{inner}'>",
        "svg": f"<svg>{inner}</svg>",
        "unclosed-comment": f"<!-- {inner}",
        "unclosed-script": f"<script>{inner}",
    }[place]


@st.composite
def block(draw: Any, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["meta", "meta", "meta", "text", "tag", "nest"]))
    if kind == "meta":
        return _wrapped(draw, draw(meta_tag()))
    if kind == "text":
        return draw(_TEXT)
    if kind == "tag" or depth >= 2:
        return draw(_OTHER_TAGS)
    inner = "".join(draw(st.lists(block(depth + 1), max_size=3)))
    return _wrapped(draw, inner)


@st.composite
def generated_page(draw: Any) -> str:
    blocks = draw(st.lists(block(), min_size=1, max_size=6))
    head = draw(st.sampled_from(["", "<!DOCTYPE html>", "<html><head><meta charset=utf-8>"]))
    return head + "".join(blocks)


def assert_same(html: str) -> None:
    body = html.encode("utf-8")
    for noscript in (True, False):
        fast = scanned(body, noscript)
        if fast is not None:
            assert fast == full_parse(body, noscript), (html, noscript)


@settings(max_examples=600, deadline=None)
@given(generated_page())
def test_the_scan_reads_what_the_parse_reads(html: str) -> None:
    assert_same(html)


#: Markup cut into pieces and shuffled: the tokenizer's corners, in any order.
_PIECES = st.sampled_from(
    [
        "<", ">", '"', "'", "=", "/", " ", "\n", "\r", "\x00", "&", "&#111;", "-", "!",
        "<!--", "-->", "--!>", "<!-->", "<!", "<?", "</", "<![CDATA[",
        "<script>", "</script>", "<style>", "</style>", "<title>", "</title>",
        "<noscript>", "</noscript>", "<template>", "</template>", "<svg>", "<plaintext>",
        "<meta ", "<META ", "<meta/", "name=robots", 'name="robots"', "NAME='ROBOTS'",
        "name=r&#111;bots", 'content="noindex"', "content=nofollow", "content", "é",
        "<div ", "<div title='", "</div>", "<p>", "x",
    ]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_the_scan_reads_what_the_parse_reads_in_markup_soup(html: str) -> None:
    assert_same(html)


# ---------------------------------------------------------------- where the scan answers

#: Pages the scan reads alone, with what it finds (and the parse finds the same).
READ_CASES = [
    ("no meta tag", "<html><head><title>t</title></head><body><p>robots</p></body></html>", []),
    (
        "other names only",
        '<meta charset=utf-8><meta name="description" content="Café &amp; co">'
        '<meta name="viewport" content="width=device-width">',
        [],
    ),
    (
        "robots after a title and a script",
        "<!DOCTYPE html><html><head><meta charset=utf-8><title>Robots</title>"
        '<script>var s = \'<meta name="robots" content="x">\';</script>'
        '<meta name="robots" content="noarchive"></head><body></body></html>',
        [("robots", "noarchive")],
    ),
    (
        "in a comment",
        '<!-- <meta name="robots" content="noindex"> --><meta name=robots content=nofollow>',
        [("robots", "nofollow")],
    ),
    (
        "in another tag's attribute",
        '<a title=\'<meta name="robots" content="noindex">\'>x</a>',
        [],
    ),
    ("in the body", '<p>x</p><META NAME="MyBot" CONTENT="NOINDEX">', [("mybot", "NOINDEX")]),
    ("a quoted >", '<meta content="a>b" name="robots">', [("robots", "a>b")]),
    ("reference in the name", '<meta name="r&#111;bots" content="x">', [("robots", "x")]),
    ("reference in the content", "<meta name=robots content='no&#105;x'>", [("robots", "noix")]),
    ("noscript counts", "<noscript><meta name=robots content=a></noscript>", [("robots", "a")]),
]


@pytest.mark.parametrize(("case", "html", "expected"), READ_CASES, ids=[c[0] for c in READ_CASES])
def test_spec6_speed_the_scan_reads_usual_pages_alone(
    case: str, html: str, expected: list[tuple[str, str]]
) -> None:
    body = html.encode()
    assert scanned(body, True) == expected == full_parse(body, True)


#: Pages the scan hands to the parse: what precedes the tag, or the tag itself, is
#: outside what it reads.
DEFERRED_CASES = [
    ("template before", "<template></template><meta name=robots content=noindex>"),
    ("svg before", "<svg></svg><meta name=robots content=noindex>"),
    ("bogus comment before", "<!x><meta name=robots content=noindex>"),
    ("processing instruction before", '<?xml version="1.0"?><meta name=robots content=noindex>'),
    ("comment closed by --!>", "<!-- x --!><meta name=robots content=noindex>"),
    ("abrupt empty comment", "<!--><meta name=robots content=noindex>"),
    ("double-escaped script", "<script><!--<script></script><meta name=robots content=a></script>"),
    ("unclosed comment", "<!-- <meta name=robots content=noindex>"),
    ("< inside the tag", '<meta name="rob<ots" content=noindex>'),
    ("quote inside an unquoted value", '<meta name=rob"ots content=noindex>'),
    ("control character in a name", '<meta name="robots"\x01 content="x">'),
    ("no closing >", "<meta name=robots content=noindex"),
    ("xmp before", "<xmp>x</xmp><meta name=robots content=noindex>"),
]


@pytest.mark.parametrize(("case", "html"), DEFERRED_CASES, ids=[c[0] for c in DEFERRED_CASES])
def test_the_scan_defers_what_it_cannot_read_with_certainty(case: str, html: str) -> None:
    body = html.encode()
    assert scan_meta_tags(body, NAMES, noscript=True) is None
    response = HtmlResponse("https://e.com/", body=body, encoding="utf-8")
    assert meta_tags(response, NAMES) == full_parse(body, True)


def test_noscript_switched_off_sends_a_page_with_noscript_to_the_parse() -> None:
    body = b"<noscript><meta name=robots content=noindex></noscript>"
    assert scan_meta_tags(body, NAMES, noscript=False) is None
    assert meta_tags(HtmlResponse("https://e.com/", body=body), NAMES, noscript=False) == []


# ---------------------------------------------------------------- encodings


@pytest.mark.parametrize(
    ("encoding", "word"),
    [("cp1252", "Tést"), ("koi8-r", "Тест"), ("utf-16", "Тест"), ("shift_jis", "テスト")],
)
def test_a_page_in_any_encoding_reads_as_its_parse(encoding: str, word: str) -> None:
    html = (
        f"<html><head><title>{word}</title><meta name='description' content='{word}'>"
        '<meta name="r&#111;bots" content="noindex">'
        f'<meta name=robots content="nofollow, {word}"></head></html>'
    )
    body = html.encode(encoding)
    response = HtmlResponse("https://e.com/", body=body, encoding=encoding)
    expected = [("robots", "noindex"), ("robots", f"nofollow, {word}")]
    assert meta_tags(response, NAMES) == expected == full_parse(body, True, encoding)
