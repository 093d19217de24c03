"""The byte scan of a page's meta tags (SPEC §6 "Sources", "Speed";
rep-engine/rep_engine/directives/_metascan.py): it reads only the encodings whose bytes
show the markup, and it reads hostile pages in linear time. That it reads what the HTML
parse it stands in for reads, on generated pages, and defers to it where it cannot be
certain: tests/crawl/page/test_pagereader_metascan.py (the page reader parses)."""

from __future__ import annotations

import pytest

from rep_engine.directives._metascan import byte_transparent, scan_meta_tags
from tests.support.bounds import finishes_within

NAMES = frozenset({"robots", "mybot", "kbot", "tdm-reservation"})


# ---------------------------------------------------------------- encodings


@pytest.mark.parametrize(
    ("encoding", "transparent"),
    [
        ("utf-8", True),
        ("cp1252", True),
        ("latin-1", True),
        ("iso-8859-5", True),
        ("koi8-r", True),
        ("utf-16", False),
        ("utf-16-le", False),
        ("utf-32", False),
        ("shift_jis", False),
        ("gb18030", False),
        ("big5", False),
        ("utf-7", False),
        ("iso-2022-jp", False),
        ("cp500", False),  # EBCDIC
        ("no-such-encoding", False),
    ],
)
def test_the_bytes_are_scanned_only_where_they_show_the_markup(
    encoding: str, transparent: bool
) -> None:
    assert byte_transparent(encoding) is transparent


# ---------------------------------------------------------------- hostile pages

HOSTILE = {
    "10 MB of unclosed meta tags": b"<meta " * 1_700_000,
    "10 MB of metas opening quotes": b'<meta name="' * 850_000,
    "10 MB of metas with a robots name each, none closed": b"<meta name=robots content=" * 400_000,
    "10 MB of attribute names": b"<meta " + b"a " * 5_000_000,
    "a title of 10 MB of < before the tag": (
        b"<title>" + b"<" * 10_000_000 + b"</title><meta name=robots content=x>"
    ),
    "a div attribute of 10 MB before the tag": (
        b'<div title="' + b"<meta " * 1_700_000 + b'"><meta name=robots content=x>'
    ),
    "10 MB of comments opening": b"<!--" * 2_500_000 + b"<meta name=robots content=x>",
    "10 MB of dashes in a comment": b"<!--" + b"-" * 10_000_000 + b"<meta name=robots content=x>",
    "10 MB of scripts opening": b"<script>" * 1_250_000 + b"<meta name=robots content=x>",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_spec7_hostile_pages_scan_in_linear_time_within_10s(name: str) -> None:
    body = HOSTILE[name]
    with finishes_within(10):  # measured: under 0.5 s each
        for noscript in (True, False):
            scan_meta_tags(body, NAMES, noscript=noscript)
