"""Where a page's RSL license is named (pure): the HTTP ``Link`` header and the HTML
``<link rel="license">`` (robots.txt's ``License:`` line is read by the robots.txt engine:
:attr:`rep_engine.robotstxt.RobotsTxt.licenses`).

- RSL 1.0 HTTP guide: ``Link: <license-URL>; rel="license"; type="application/rsl+xml"``
  (RFC 8288 syntax: several links separated by commas, parameters by semicolons).
- RSL 1.0 HTML guide: ``<link rel="license" type="application/rsl+xml" href=…>``, and
  the license inline in ``<script type="application/rsl+xml">`` (File Format guide).

Only links whose ``type`` is ``application/rsl+xml`` count: ``rel="license"`` alone also
names Creative Commons and other human-readable licenses, which are not RSL documents.
Relative targets are resolved against the page's URL; only http(s) URLs are kept, each
once, in order. Nothing here raises on content; scanning is linear in the input.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final
from urllib.parse import urljoin

from rep_engine.usage.rsl.document import MEDIA_TYPE, RslDocument, parse_rsl

if TYPE_CHECKING:
    from lxml import etree

#: A ``Link`` header value longer than this is read up to here (a guard, not a limit
#: any real header reaches).
MAX_HEADER_CHARS: Final = 16_384


def _split_outside_quotes(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` where it is not inside a quoted string."""
    parts: list[str] = []
    start = 0
    quoted = False
    for position, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            parts.append(text[start:position])
            start = position + 1
    parts.append(text[start:])
    return parts


def _params(text: str) -> dict[str, str]:
    """``; rel="license"; type=…`` -> ``{"rel": "license", "type": …}`` (names
    lowercased, quotes removed; the first of a repeated parameter counts, RFC 8288 §3)."""
    found: dict[str, str] = {}
    for part in _split_outside_quotes(text, ";"):
        name, _, value = part.partition("=")
        name = name.strip().lower()
        if name and name not in found:
            found[name] = value.strip().strip('"').strip()
    return found


def _is_rsl(rel: str, media_type: str) -> bool:
    rels = rel.lower().split()
    return "license" in rels and media_type.split(";")[0].strip().lower() == MEDIA_TYPE


def _absolute(target: str, base_url: str) -> str | None:
    try:
        url = urljoin(base_url, target.strip())
    except ValueError:
        return None
    return url if url.lower().startswith(("http://", "https://")) else None


def link_header_licenses(values: Iterable[bytes | str], base_url: str) -> tuple[str, ...]:
    """The RSL license URLs named by the ``Link`` header values of a response."""
    found: dict[str, None] = {}
    for raw in values:
        text = raw.decode("latin-1") if isinstance(raw, bytes) else raw
        text = text[:MAX_HEADER_CHARS]
        position = 0
        while True:
            start = text.find("<", position)
            end = text.find(">", start + 1) if start >= 0 else -1
            if end < 0:
                break
            # The parameters run to the next comma outside quotes.
            rest = _split_outside_quotes(text[end + 1 :], ",")[0]
            position = end + 1 + len(rest)
            params = _params(rest)
            if _is_rsl(params.get("rel", ""), params.get("type", "")):
                url = _absolute(text[start + 1 : end], base_url)
                if url is not None:
                    found[url] = None
    return tuple(found)


#: ``<link>`` elements with an href, and ``<script>`` elements (RSL File Format guide:
#: "using a <script> tag with type="application/rsl+xml" to include the full license
#: inline"), outside ``<template>``.
_XPATH: Final = "(//link[@href][@rel] | //script[@type])[not(ancestor::template)]"


@dataclass(frozen=True, slots=True)
class PageLicenses:
    """The RSL licenses an HTML page names or holds."""

    #: ``<link rel="license" type="application/rsl+xml" href>`` URLs, absolute, once each.
    urls: tuple[str, ...] = ()
    #: ``<script type="application/rsl+xml">`` bodies, parsed (see ``parse_rsl``).
    inline: tuple[RslDocument, ...] = ()


NO_LICENSES: Final = PageLicenses()


def _elements(text: str) -> list[etree._Element]:
    # As UTF-8 bytes with the encoding given: lxml refuses a str that declares an
    # encoding (<?xml … encoding=…?>, XHTML), which would hide its licenses. A parser
    # per call: lxml parsers are not to be shared between threads. lxml is imported
    # only when a page is parsed (a light import of the package).
    import lxml.html
    from lxml import etree

    parser = lxml.html.HTMLParser(encoding="utf-8", no_network=True)
    root = lxml.html.document_fromstring(text.encode("utf-8", "surrogatepass"), parser=parser)
    found = root.xpath(_XPATH)
    return [e for e in found if isinstance(e, etree._Element)] if isinstance(found, list) else []


def page_licenses(text: str, base_url: str) -> PageLicenses:
    """The RSL licenses of an HTML page (``text``, decoded). Pages that do not mention
    ``rsl+xml`` are not parsed at all."""
    if "rsl+xml" not in text.lower():
        return NO_LICENSES
    from lxml import etree

    try:
        elements = _elements(text)
    except (etree.LxmlError, ValueError):
        return NO_LICENSES
    urls: dict[str, None] = {}
    inline: list[RslDocument] = []
    for element in elements:
        media_type = element.get("type") or ""
        if element.tag == "script":
            if media_type.split(";")[0].strip().lower() == MEDIA_TYPE:
                inline.append(parse_rsl(element.text or ""))
        elif _is_rsl(element.get("rel") or "", media_type):
            url = _absolute(element.get("href") or "", base_url)
            if url is not None:
                urls[url] = None
    return PageLicenses(tuple(urls), tuple(inline))
