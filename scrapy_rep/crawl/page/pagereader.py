"""Read the page-level directives of a Scrapy response (SPEC §6 "Sources").

- Every ``X-Robots-Tag`` header, for any content type.
- For HTML/XHTML: every ``<meta name=… content=…>`` whose name is ``robots`` or one of
  the crawler's tokens, anywhere in the document, except inside ``<script>``, ``<style>``,
  ``<template>`` (and ``<noscript>`` when switched off); comments never count.

The meta tags are read from the page's bytes (:func:`scan_meta_tags`), so the usual page
is not parsed at all; where the scan cannot be certain (a tag after a ``<template>``, an
unusual comment or attribute, an encoding whose bytes do not show the markup) the page is
parsed with lxml through the response's own (cached) selector, with which
:func:`rel_nofollow_targets` reads the page's ``rel="nofollow"`` links (SPEC §6: the URLs
it links to only with ``rel`` containing ``nofollow``; only on pages that mention
"nofollow" at all), whose requests the link gate drops; a tag whose name or content holds
a character reference is parsed alone.
"""

from __future__ import annotations

import codecs
import logging
import re
from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any, Final
from urllib.parse import urljoin

from lxml import etree
from parsel import Selector
from scrapy.http import HtmlResponse, Response
from scrapy.utils.response import get_base_url
from w3lib.encoding import to_unicode
from w3lib.url import canonicalize_url

from rep_engine.directives import PageDirectives, product_token
from rep_engine.directives._metascan import Found, byte_transparent, scan_meta_tags
from rep_engine.directives._sniffing import html_codec
from rep_engine.robotstxt.useragent import crawler_name
from rep_engine.verdict.page import SAYS_NOTHING, PageFacts, PageRules, PageStatements, decide_page
from rep_engine.verdict.signals import HEADER_KEYS, Field, meta_names
from scrapy_rep.crawl.internals import explicit_encoding

logger = logging.getLogger(__name__)


_EXCLUDED = ("script", "style", "template")


def attribute_of(element: Any, name: str) -> str:
    """One attribute of a parsed (parsel) element; ``""`` if absent or unreadable."""
    return _get(element.root, name) or ""


@lru_cache(maxsize=64)
def _meta_xpath(noscript: bool) -> str:
    excluded = (*_EXCLUDED, "noscript") if not noscript else _EXCLUDED
    conditions = "".join(f"[not(ancestor::{tag})]" for tag in excluded)
    return f"//meta[@name][@content]{conditions}"


def crawler_tokens(user_agent: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The lowercased product tokens a crawler answers to: its name as it presents itself
    (:func:`~rep_engine.robotstxt.useragent.crawler_name`), then ``extra``."""
    tokens = [crawler_name(user_agent)]
    tokens.extend(product_token(token) for token in extra)
    return tuple(dict.fromkeys(token for token in tokens if token))


def meta_tags(
    response: Response, names: Collection[str], *, noscript: bool = True
) -> list[tuple[str, str]]:
    """``(name, content)`` of the robots meta tags of an HTML response (names lowercased).

    The page is read as a browser decodes it (:func:`html_codec`: the HTML standard's
    encoding sniffing) and, where Scrapy decodes it otherwise, as Scrapy does too: the
    text the spider reads. A tag either reading finds counts (the reading that loses no
    "no": docs/decisions.md).
    """
    if not isinstance(response, HtmlResponse):
        return []
    wanted = names if isinstance(names, frozenset) else frozenset(names)
    scan: list[list[Found] | None] = []  # the byte scan, run once for both readings
    found = _read(response, wanted, noscript, None, scan)
    browser = _browser_codec(response)
    encoding = response.encoding
    if browser is not None and browser != encoding and not _same_codec(browser, encoding):
        read = _read(response, wanted, noscript, browser, scan)
        if read != found:
            seen = set(read)
            found = [*read, *(tag for tag in found if tag not in seen)]
    return found


def _read(
    response: HtmlResponse,
    names: frozenset[str],
    noscript: bool,
    codec: str | None,
    scan: list[list[Found] | None],
) -> list[tuple[str, str]]:
    """The tags of the page decoded with ``codec``, or (``None``) as Scrapy decodes it:
    its cached text and selector, which a spider's ``response.css()`` reuses."""
    if byte_transparent(codec or response.encoding):
        if not scan:
            scan.append(scan_meta_tags(response.body, names, noscript=noscript))
        if scan[0] is not None:
            found = _decoded(scan[0], names, codec or response.encoding) if scan[0] else []
            if found is not None:
                return found
        if codec is None:
            return _parsed(response, names, noscript)
    text = response.text if codec is None else _decode(response.body, codec)
    if "<meta" not in text.replace("\x00", "").lower():
        return []  # no meta tag at all (UTF-16, UTF-32… pages, read in their text)
    if codec is None:
        return _parsed(response, names, noscript)
    return _parsed_text(Selector(text=text, type="html"), names, noscript, response.url)


def _browser_codec(response: HtmlResponse) -> str | None:
    """The codec a browser decodes the page with (``None``: no text at all), or the one
    the response's creator named (``encoding=``), which overrides it as a user's choice
    does a browser's (WHATWG HTML §13.2.3.2, step 2)."""
    named = explicit_encoding(response)
    if named is not None:
        return named
    content_type = response.headers.get(b"Content-Type")  # _text's, inline
    said = None if content_type is None else content_type.decode("utf-8", "replace")
    return html_codec(said, response.body)


def _same_codec(one: str, other: str) -> bool:
    """Whether two codec names are one codec (``UTF-8`` and ``utf8``)."""
    try:
        return codecs.lookup(one).name == codecs.lookup(other).name
    except LookupError:
        return one == other


def _decode(body: bytes, codec: str) -> str:
    """``body`` in ``codec`` (a bad byte replaced, a byte order mark dropped: HTML's decode)."""
    return to_unicode(body, codec).removeprefix("\ufeff")


def _decoded(
    scanned: list[Found], names: frozenset[str], encoding: str
) -> list[tuple[str, str]] | None:
    """The scan's tags, each tag it hands back read by the HTML parser alone; ``None``
    if one cannot be decoded as the page is (the page is parsed then)."""
    found: list[tuple[str, str]] = []
    for tag in scanned:
        if isinstance(tag, tuple):
            found.append(tag)
            continue
        try:
            text = tag.decode(encoding)
        except UnicodeDecodeError:
            return None
        root = etree.fromstring(text.encode("utf-8"), _tag_parser())
        element = None if root is None else root.find(".//meta")
        if element is None:
            continue
        name, content = _get(element, "name"), _get(element, "content")
        if name is not None and content is not None and name.strip().lower() in names:
            found.append((name.strip().lower(), content))
    return found


@lru_cache(maxsize=1)
def _tag_parser() -> etree.HTMLParser:
    """The parser of one tag: parsel's (libxml2's HTML parser, recovering, UTF-8 in)."""
    return etree.HTMLParser(recover=True, encoding="utf-8", huge_tree=True)


def _get(element: Any, name: str) -> str | None:
    """One attribute of an lxml element, ``None`` if absent; ``""`` if lxml cannot hand it over
    (a stray control byte elsewhere in the tag, which lxml reads as an attribute name)."""
    try:
        value = element.get(name)
    except ValueError:
        return ""
    return value if isinstance(value, str) else None


def _parsed(response: HtmlResponse, names: frozenset[str], noscript: bool) -> list[tuple[str, str]]:
    """The meta tags of the response's own (cached) selector, which ``response.css()`` reuses."""
    selector: Selector
    try:
        selector = response.selector
    except ValueError:  # Scrapy's selector reads <base href> first, and raises on a broken one
        selector = Selector(text=response.text, type="html")
    return _parsed_text(selector, names, noscript, response.url)


def _parsed_text(
    selector: Selector, names: frozenset[str], noscript: bool, url: str
) -> list[tuple[str, str]]:
    """The meta tags of a parsed page."""
    try:
        elements = selector.xpath(_meta_xpath(noscript))
    except (ValueError, etree.LxmlError) as error:
        logger.debug("robots meta tags not read from %s: %s", url, error)
        return []
    found = []
    for element in elements:
        name = attribute_of(element, "name").strip().lower()
        if name in names:
            found.append((name, attribute_of(element, "content")))
    return found


def page_directives(
    response: Response,
    user_agent: str,
    *,
    extra_tokens: Iterable[str] = (),
    meta_in_noscript: bool = True,
) -> PageDirectives:
    """The directives of ``response`` that apply to ``user_agent`` (a product token or a
    full User-Agent; SPEC §6), as :func:`rep_engine.verdict.page.decide_page` reads them.
    ``extra_tokens``: more crawler tokens whose directives apply (``REP_DIRECTIVE_TOKENS``).
    """
    tokens = crawler_tokens(user_agent, extra_tokens)
    statements = read_statements(response, tokens, meta_in_noscript=meta_in_noscript)
    return decide_page(PageFacts(response.url, tokens), statements, _DIRECTIVES_ONLY).directives


#: The rules under which :func:`page_directives` reads a page: no purpose's signals.
_DIRECTIVES_ONLY: Final = PageRules()


def read_statements(
    response: Response, tokens: tuple[str, ...], *, meta_in_noscript: bool = True, ai: bool = False
) -> PageStatements:
    """What ``response`` says, as the table of signals reads it: the header fields its page rows
    name (:data:`~rep_engine.verdict.signals.HEADER_KEYS`: one set intersection on the usual
    page) and the meta tags named after them or after our crawler ``tokens``, in one look at
    the page. ``ai``: the crawl has an AI purpose (TDMRep's meta tags are looked for too)."""
    headers = response.headers
    fields: tuple[Field, ...] = ()
    present = headers.keys() & HEADER_KEYS
    if present:
        fields = tuple(
            (key.decode("latin-1").lower(), _text(value))
            for key in sorted(present)
            for value in headers.getlist(key)
        )
    meta = meta_tags(response, meta_names(tokens, ai), noscript=meta_in_noscript)
    return PageStatements(fields, tuple(meta)) if fields or meta else SAYS_NOTHING


def is_image(response: Response) -> bool:
    """Whether ``response`` is an image (``Content-Type: image/*``): its noimageai means noai."""
    content_type = response.headers.get(b"Content-Type") or b""
    return content_type.lstrip().lower().startswith(b"image/")


def _text(value: bytes | str) -> str:
    """A header value as text (UTF-8, as sites write bot names; a bad byte replaced)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


#: A cheap hint that a page may have a rel="nofollow" link (its ``search``).
NOFOLLOW_HINT = re.compile(rb"nofollow", re.IGNORECASE).search


def may_link_nofollow(response: Response) -> bool:
    """Whether the page may have a ``rel="nofollow"`` link (it mentions "nofollow")."""
    return isinstance(response, HtmlResponse) and NOFOLLOW_HINT(response.body) is not None


def rel_nofollow_targets(response: Response) -> frozenset[str]:
    """The URLs (canonicalised) the page links to only with ``rel`` containing ``nofollow``
    (SPEC §6; ``ugc`` and ``sponsored`` alone are followed); parses only pages that mention it."""
    if not (isinstance(response, HtmlResponse) and may_link_nofollow(response)):
        return frozenset()
    base = _base_url(response)
    nofollow: set[str] = set()
    followed: set[str] = set()
    for link in _links(response):
        url = _absolute(base, attribute_of(link, "href"))
        if url is not None:
            rel = attribute_of(link, "rel").lower().split()
            (nofollow if "nofollow" in rel else followed).add(url)
    return frozenset(nofollow - followed)


def _links(response: HtmlResponse) -> list[Any]:
    """The page's ``<a href>`` and ``<area href>`` elements; none if Scrapy's selector
    rejects the page (it raises on a broken ``<base href>``)."""
    try:
        return list(response.xpath("//a[@href]|//area[@href]"))
    except ValueError:
        logger.debug("Cannot read the links of %s (invalid <base href>)", response)
        return []


def _base_url(response: HtmlResponse) -> str:
    """The page's ``<base href>`` or, if that is unusable, the response URL."""
    try:
        return get_base_url(response)
    except ValueError:
        return response.url


def _absolute(base: str, href: str) -> str | None:
    """``href`` resolved against ``base`` and canonicalised; ``None`` for a broken URL
    (``http://[oops/``, a port over 65535): a bad link must not cost the page's output."""
    try:
        return canonicalize_url(urljoin(base, href.strip()))
    except ValueError:
        logger.debug("Ignoring a link with an invalid URL: %r", href)
        return None
