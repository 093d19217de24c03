"""Pages that declare their encoding every way a browser reads one (WHATWG HTML
§13.2.3.2), each with a ``<meta name="robots" content="noindex">``: the codec a browser
decodes it with (what headless Chromium reported: tests/integration/test_charsets.py
checks it again where Chromium is installed) and whether the declaration names one."""

from __future__ import annotations

from typing import NamedTuple

_PAGE = (
    '<html><head>{}<meta name="robots" content="noindex"><title>t</title></head>'
    "<body>x</body></html>"
)


def declaring_page(declaration: str = "") -> str:
    """An HTML page with ``declaration`` first in its head, then a robots noindex."""
    return _PAGE.format(declaration)


class CharsetPage(NamedTuple):
    content_type: str
    body: bytes
    #: The Python codec a browser decodes it with.
    codec: str | None
    #: No declaration names an encoding: the browser's default (or its guess) decides.
    undeclared: bool = False


CHARSET_PAGES: dict[str, CharsetPage] = {
    # The label utf-16 is UTF-16LE (Encoding Standard §4.2), not Python's big-endian guess.
    "header utf-16, UTF-16LE body": CharsetPage(
        "text/html; charset=utf-16", declaring_page().encode("utf-16-le"), "utf-16-le"
    ),
    "header utf-16be": CharsetPage(
        "text/html; charset=utf-16be", declaring_page().encode("utf-16-be"), "utf-16-be"
    ),
    # A page's own declaration of UTF-16 is UTF-8: its ASCII bytes declared it.
    **{
        f"meta charset {label}": CharsetPage(
            "text/html", declaring_page(f'<meta charset="{label}">').encode(), "utf-8"
        )
        for label in ("utf-16", "utf-16le", "utf-16be")
    },
    "meta http-equiv utf-16": CharsetPage(
        "text/html",
        declaring_page(
            '<meta http-equiv="Content-Type" content="text/html; charset=utf-16">'
        ).encode(),
        "utf-8",
    ),
    # No labels of the Encoding Standard: the declaration is ignored.
    **{
        f"meta charset {label}": CharsetPage(
            "text/html", declaring_page(f'<meta charset="{label}">').encode(), "cp1252", True
        )
        for label in ("utf16", "utf-32")
    },
    **{
        f"header {label}": CharsetPage(
            f"text/html; charset={label}", declaring_page().encode(), "cp1252", True
        )
        for label in ("utf16", "utf-32")
    },
    "xml declaration koi8-r": CharsetPage(
        "text/html",
        ('<?xml version="1.0" encoding="koi8-r"?>' + declaring_page()).encode(),
        "koi8-r",
    ),
    # A UTF-32LE byte order mark starts with UTF-16LE's: a browser reads UTF-16LE, and
    # sees no tag in it (every character is followed by a NUL).
    "UTF-32LE byte order mark": CharsetPage(
        "text/html", b"\xff\xfe\x00\x00" + declaring_page().encode("utf-32-le"), "utf-16-le"
    ),
    # The replacement encoding: a browser decodes the page into one U+FFFD.
    "meta charset iso-2022-kr": CharsetPage(
        "text/html", declaring_page('<meta charset="iso-2022-kr">').encode(), None
    ),
    "plain, undeclared": CharsetPage("text/html", declaring_page().encode(), "cp1252", True),
}
