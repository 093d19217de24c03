"""The encoding a browser decodes a page with (WHATWG HTML §13.2.3.2;
rep-engine/rep_engine/directives/_sniffing.py). Chromium's own reading of these pages is checked
in tests/integration/test_charsets.py."""

from __future__ import annotations

import pytest

from rep_engine.directives._sniffing import html_codec
from tests.support.charsetpages import CHARSET_PAGES, declaring_page


@pytest.mark.parametrize("name", list(CHARSET_PAGES))
def test_the_codec_of_each_page_is_the_browser_s(name: str) -> None:
    case = CHARSET_PAGES[name]
    assert html_codec(case.content_type, case.body) == case.codec


@pytest.mark.parametrize(
    ("content_type", "body", "codec"),
    [
        # The byte order mark first, over any label.
        ("text/html; charset=koi8-r", b"\xef\xbb\xbf<p>", "utf-8"),
        ("text/html; charset=utf-8", b"\xfe\xff\x00<", "utf-16-be"),
        # The header's label, read through the Encoding Standard's table.
        ("text/html; charset=latin1", b"", "cp1252"),
        ('text/html; charset="Shift_JIS"', b"", "cp932"),
        ("text/html; charset=gbk", b"", "gb18030"),
        ("text/html;charset=x-user-defined", b"", "latin-1"),
        ("text/html; charset=iso-2022-kr", b"", None),  # the replacement encoding
        ("text/html; charset=utf-7", b"<meta charset=koi8-r>", "koi8-r"),  # no label
        # The first charset parameter; none with a space before "=".
        ("text/html; charset=koi8-r; charset=utf-8", b"", "koi8-r"),
        ("text/html; charset =koi8-r", b"", "cp1252"),
        # The prescan: the first declaration outside comments and attribute values.
        (None, b"<!-- <meta charset=koi8-r> --><meta charset=euc-jp>", "euc_jp"),
        (None, b"<!--><meta charset=euc-jp>", "euc_jp"),  # "<!-->" closes itself
        (None, b'<a title="<meta charset=koi8-r>"><meta charset=euc-jp>', "euc_jp"),
        (None, b"<META CHARSET=KOI8-R>", "koi8-r"),
        (None, b"<meta charset=no-such-label><meta charset=koi8-r>", "koi8-r"),
        (None, b"<meta charset=koi8-r charset=euc-jp>", "koi8-r"),  # the first attribute
        # content= counts only with the pragma, and the first charset= in it.
        (None, b'<meta content="text/html; charset=koi8-r">', "cp1252"),
        (None, b"<meta http-equiv=content-type content=\"charset='koi8-r'\">", "koi8-r"),
        (None, b'<meta http-equiv=content-type content="charset=\'koi8-r">', "cp1252"),
        (None, b'<meta http-equiv=content-type content="x; charset = koi8-r;y">', "koi8-r"),
        # Only the first 1024 bytes, a tag cut by the end of the page is none.
        (None, b" " * 1020 + b"<meta charset=koi8-r>", "koi8-r"),
        (None, b" " * 1024 + b"<meta charset=koi8-r>", "cp1252"),
        (None, b"<meta charset=koi8-r", "cp1252"),
        # An XML declaration when no meta declares one; UTF-16 there is UTF-8 too.
        (None, b'<?xml version="1.0" encoding="utf-16"?><p>', "utf-8"),
        (None, b'<?xml version="1.0" encoding="koi8 r"?><p>', "cp1252"),
        (None, b' <?xml version="1.0" encoding="koi8-r"?><p>', "cp1252"),
        (None, '<?xml version="1.0"?>'.encode("utf-16-be"), "utf-16-be"),
        (None, b"", "cp1252"),
    ],
)
def test_the_sniffing_algorithm(content_type: str | None, body: bytes, codec: str | None) -> None:
    assert html_codec(content_type, body) == codec


def test_garbage_never_raises() -> None:
    for body in (b"<", b"<meta", b"<meta ", b'<meta a="', b"<!--", b"<!", b"<a b='", b"\x00" * 9):
        assert html_codec("text/html; charset=", body + declaring_page().encode()) is not None
        assert html_codec(None, body) == "cp1252"
