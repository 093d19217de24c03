"""The encoding a browser decodes an HTML page with (pure; SPEC §6 "Sources").

The HTML standard's encoding sniffing algorithm (WHATWG HTML §13.2.3.2, "Determining the
character encoding"), as far as a page's bytes and headers tell it: the byte order mark
first (UTF-8, UTF-16BE, UTF-16LE: the Encoding Standard's three, so a UTF-32 one reads as
UTF-16LE), then the ``charset`` of ``Content-Type``, then the prescan of the first 1024
bytes (``<meta charset>``, ``<meta http-equiv=content-type content="…charset=…">``, then
an XML declaration), then ``windows-1252``, the default of the locales we test in. Every
label is read through the Encoding Standard's table (the ``webencodings`` library), not
Python's aliases: ``utf-16`` means UTF-16LE, ``utf-32`` and ``utf16`` are no labels, and
a page's own declaration of UTF-16 means UTF-8 ("if charset is UTF-16BE/LE, then set
charset to UTF-8"; ``x-user-defined`` means ``windows-1252``), since a page that can
declare itself in ASCII bytes is not UTF-16.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

import webencodings

#: The prescan reads the constructs that start in the first 1024 bytes (§13.2.3.2:
#: "User agents are encouraged to only prescan the first 1024 bytes"), each to its end
#: within the first :data:`_PRESCAN_WINDOW` bytes (one cut there is read as one cut by
#: the end of the page: it declares nothing).
PRESCAN_BYTES: Final = 1024
_PRESCAN_WINDOW: Final = 4096
#: The byte order marks of the Encoding Standard ("BOM sniff"), longest first.
_BOMS: Final = ((b"\xef\xbb\xbf", "utf-8"), (b"\xfe\xff", "utf-16be"), (b"\xff\xfe", "utf-16le"))
#: The WHATWG encodings Python names otherwise, or decodes with no codec of its own:
#: GBK's decoder is gb18030's (Encoding Standard §10.1.1); x-user-defined keeps ASCII and
#: turns every other byte into one private-use character, which no directive word holds
#: (Latin-1 keeps ASCII and one character a byte too); the replacement encoding decodes
#: a page into one U+FFFD: a browser reads nothing in it (``None``).
_PYTHON_CODECS: Final[dict[str, str | None]] = {
    "gbk": "gb18030",
    "x-user-defined": "latin-1",
    "replacement": None,
}
#: The ``charset`` parameter of a MIME type (MIME Sniffing §4.4 "parse a MIME type": the
#: name lowercased, no whitespace before ``=``; the value quoted or up to ``;``).
_CHARSET_PARAMETER: Final = re.compile(r';[\t\n\r ]*charset=("[^"]*"?|[^;]*)', re.I)


def html_codec(content_type: str | None, body: bytes) -> str | None:
    """The Python codec a browser decodes ``body`` with, served with ``content_type``
    (the ``Content-Type`` header, ``None`` when absent); ``None`` when it decodes no text
    at all (the replacement encoding)."""
    encoding = bom_encoding(body) or transport_encoding(content_type) or prescan(body)
    return python_codec(encoding or "windows-1252")


def bom_encoding(body: bytes) -> str | None:
    """The encoding a byte order mark at the start of ``body`` names ("BOM sniff")."""
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return encoding
    return None


def transport_encoding(content_type: str | None) -> str | None:
    """The encoding the ``charset`` parameter of ``Content-Type`` names, if a label
    (the first such parameter, its quotes removed)."""
    found = _CHARSET_PARAMETER.search(content_type or "")
    return None if found is None else _encoding(found.group(1).strip('"'))


@lru_cache(maxsize=64)
def python_codec(encoding: str) -> str | None:
    """The Python codec of a WHATWG encoding name (``None``: the replacement encoding)."""
    if encoding in _PYTHON_CODECS:
        return _PYTHON_CODECS[encoding]
    return str(webencodings.lookup(encoding).codec_info.name)


def _encoding(label: str | bytes) -> str | None:
    """The Encoding Standard's "get an encoding": a label's encoding name, ``None`` for
    no label (surrounding ASCII whitespace stripped, ASCII case-insensitive)."""
    if isinstance(label, bytes):
        label = label.decode("latin-1")
    found = webencodings.lookup(label)
    return None if found is None else str(found.name)


def _declared(label: str | bytes) -> str | None:
    """A page's own declaration of its encoding, as the prescan takes it."""
    encoding = _encoding(label)
    if encoding in ("utf-16be", "utf-16le"):
        return "utf-8"
    return "windows-1252" if encoding == "x-user-defined" else encoding


#: "Get an attribute" (§13.2.3.2) on lowercased bytes: a name (its first byte may be
#: ``=``), then ``=`` and a value, quoted (group 3 or 5 is the closing quote, empty when
#: the bytes run out first) or not; none when the tag ends (``>``) or the bytes do.
_ATTRIBUTE: Final = re.compile(
    rb"[\t\n\f\r /]*(?:([^\t\n\f\r />][^\t\n\f\r />=]*)[\t\n\f\r ]*"
    rb"(?:=[\t\n\f\r ]*(?:\"([^\"]*)(\"?)|'([^']*)('?)|([^\t\n\f\r >]*)))?)?"
)
_TAG_NAME: Final = re.compile(rb"[^\t\n\f\r >]*")
_CHARSET_IN_CONTENT: Final = re.compile(rb"charset[\t\n\f\r ]*=[\t\n\f\r ]*(\"[^\"]*\"|'[^']*'|)")
_XML_EQUALS: Final = re.compile(rb"[\x00- ]*=[\x00- ]*([\"'])")


def prescan(body: bytes) -> str | None:
    """The encoding a page declares in its first bytes ("prescan a byte stream to
    determine its encoding"), ``None`` if none."""
    if body.startswith(b"<\x00?\x00x\x00"):
        return "utf-16le"
    if body.startswith(b"\x00<\x00?\x00x"):
        return "utf-16be"
    lowered = body[:_PRESCAN_WINDOW].lower()
    # A declaring tag holds "charset": none starts after the last one.
    end = min(PRESCAN_BYTES, lowered.rfind(b"charset") + 1)
    position = lowered.find(b"<", 0, end)
    while 0 <= position < end:
        after = lowered[position + 1 : position + 2]
        if lowered.startswith(b"<!--", position):
            position = lowered.find(b"-->", position + 2)  # "<!-->" ends itself
            position = position if position < 0 else position + 2
        elif lowered.startswith(b"<meta", position) and lowered[position + 5 : position + 6] in (
            b"\t", b"\n", b"\x0c", b"\r", b" ", b"/"
        ):  # fmt: skip
            position, encoding = _meta(lowered, position + 5)
            if encoding is not None:
                return encoding
        elif after.isalpha() or (after == b"/" and lowered[position + 2 : position + 3].isalpha()):
            position = _TAG_NAME.match(lowered, position + 1).end()  # type: ignore[union-attr]  # the pattern matches the empty string
            if lowered[position : position + 1] != b">":
                position = _attributes(lowered, position)[0]
        elif after in (b"!", b"/", b"?"):
            position = lowered.find(b">", position + 1)
        if position < 0:
            break  # the bytes ran out inside a construct
        position = lowered.find(b"<", position + 1, end)
    return _xml_encoding(body)


def _attributes(lowered: bytes, position: int) -> tuple[int, list[tuple[bytes, bytes]]]:
    """A tag's attributes from ``position``, each name once (the first counts), and
    where they end; position ``-1`` when the bytes run out first."""
    found: dict[bytes, bytes] = {}
    while True:
        match = _ATTRIBUTE.match(lowered, position)
        position = match.end()  # type: ignore[union-attr]  # the pattern matches the empty string
        if position >= len(lowered) or match.group(3) == b"" or match.group(5) == b"":  # type: ignore[union-attr]
            return -1, []
        name = match.group(1)  # type: ignore[union-attr]
        if name is None:
            return position, list(found.items())
        value = match.group(2) or match.group(4) or match.group(6) or b""  # type: ignore[union-attr]
        found.setdefault(name, value)


def _meta(lowered: bytes, position: int) -> tuple[int, str | None]:
    """A ``<meta`` tag's declaration of the page's encoding, and where the tag ends."""
    position, attributes = _attributes(lowered, position)
    charset: str | None = None
    need_pragma: bool | None = None
    got_pragma = False
    for name, value in attributes:
        if name == b"http-equiv":
            got_pragma = got_pragma or value == b"content-type"
        elif name == b"content":
            found = _charset_in_content(value)
            if found is not None and charset is None:
                charset, need_pragma = found, True
        elif name == b"charset":
            charset, need_pragma = _encoding(value), False
    if need_pragma is None or (need_pragma and not got_pragma) or charset is None:
        return position, None
    return position, _declared(charset)


def _charset_in_content(value: bytes) -> str | None:
    """ "The algorithm for extracting a character encoding from a meta element" (HTML
    §2.5.3): the first ``charset`` followed by ``=`` gives the label, quoted or up to
    whitespace or ``;`` (an unmatched quote gives none)."""
    match = _CHARSET_IN_CONTENT.search(value)
    if match is None:
        return None
    if match.group(1):
        return _encoding(match.group(1)[1:-1])
    rest = value[match.end() :]
    if not rest or rest[:1] in (b'"', b"'"):
        return None
    return _encoding(re.split(rb"[\t\n\f\r ;]", rest, maxsplit=1)[0])


def _xml_encoding(body: bytes) -> str | None:
    """ "Get an XML encoding": the ``encoding`` of an XML declaration at the very start
    of the page (its value quoted, with no byte 0x20 or below)."""
    end = body.find(b">")
    at = body.find(b"encoding", 0, end) if body.startswith(b"<?xml") else -1
    match = _XML_EQUALS.match(body, at + 8) if at >= 0 else None
    if match is None:
        return None
    close = body.find(match.group(1), match.end())
    label = body[match.end() : close]
    if close < 0 or any(byte <= 0x20 for byte in label):
        return None
    return _declared(label)
