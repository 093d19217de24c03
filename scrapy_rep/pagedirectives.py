"""Read the page-level directives of a Scrapy response (SPEC §6 "Sources").

- Every ``X-Robots-Tag`` header, for any content type.
- For HTML/XHTML: every ``<meta name=… content=…>`` whose name is ``robots`` or one of
  the crawler's tokens, anywhere in the document, except inside ``<script>``, ``<style>``,
  ``<template>`` (and ``<noscript>`` when switched off); comments never count.

A page with no robots meta tag pays only for one case-insensitive byte search: the HTML
is parsed only when one of the meta names occurs in the body, and then through the
response's own (cached) selector, so a spider's later ``response.css()`` parses nothing
again.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any

from lxml import etree
from scrapy.http import HtmlResponse, Response

from scrapy_rep.directives import EMPTY, PageDirectives, combine, header_directives, meta_directives
from scrapy_rep.useragent import product_token

logger = logging.getLogger(__name__)

_EXCLUDED = ("script", "style", "template")


def _mentions_any(response: HtmlResponse, names: Collection[str]) -> bool:
    """The cheap check: may any meta name occur in the page at all (case-insensitively)?

    ``bytes.lower`` and ``in`` run in C at memory speed; a case-insensitive regex would
    cost more than the HTML parse it is meant to avoid. The byte search only works when
    the page's encoding writes ASCII as ASCII: UTF-16 and UTF-32 pages are searched in
    their decoded text. A meta tag with a character reference (``name="r&#111;bots"``)
    always gets the parse.
    """
    if not _ascii_compatible(response.encoding):
        text = response.text.lower()
        return any(name in text for name in names)
    lowered = response.body.lower()
    if any(name.encode("ascii", "ignore") in lowered for name in names):
        return True
    return _REFERENCE_IN_META.search(lowered) is not None


#: ``&#`` inside a ``<meta`` tag (bounded, so the search stays linear).
_REFERENCE_IN_META = re.compile(rb"<meta\b[^>]{0,4000}?&#")


@lru_cache(maxsize=64)
def _ascii_compatible(encoding: str) -> bool:
    """Does ``encoding`` write ASCII text as the same bytes (UTF-8, Latin-1, cp1252…)?"""
    try:
        return "robots<meta>".encode(encoding) == b"robots<meta>"
    except (LookupError, UnicodeError):
        return False


def attribute_of(element: Any, name: str) -> str:
    """One attribute of a parsed element; ``""`` if absent or unreadable. Reading only
    that attribute (not ``element.attrib``) copes with a stray control byte elsewhere in
    the tag, which lxml reads as an attribute name it cannot hand over."""
    try:
        value = element.root.get(name)
    except ValueError:
        return ""
    return value if isinstance(value, str) else ""


@lru_cache(maxsize=64)
def _meta_xpath(noscript: bool) -> str:
    excluded = (*_EXCLUDED, "noscript") if not noscript else _EXCLUDED
    conditions = "".join(f"[not(ancestor::{tag})]" for tag in excluded)
    return f"//meta[@name][@content]{conditions}"


def crawler_tokens(user_agent: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The lowercased product tokens a crawler answers to (its own first)."""
    tokens = [product_token(user_agent)]
    tokens.extend(product_token(token) for token in extra)
    return tuple(dict.fromkeys(token for token in tokens if token))


@lru_cache(maxsize=64)
def _tokens_and_names(
    user_agent: str, extra_tokens: tuple[str, ...]
) -> tuple[tuple[str, ...], frozenset[str]]:
    """:func:`crawler_tokens` and the meta names they read, once per crawler (not per page)."""
    tokens = crawler_tokens(user_agent, extra_tokens)
    return tokens, frozenset(("robots", *tokens))


def meta_tags(
    response: Response, names: Collection[str], *, noscript: bool = True
) -> list[tuple[str, str]]:
    """``(name, content)`` of the robots meta tags of an HTML response (names lowercased)."""
    if not isinstance(response, HtmlResponse):
        return []
    if not _mentions_any(response, names):
        return []  # no meta name occurs anywhere: no parse needed
    try:
        elements = response.selector.xpath(_meta_xpath(noscript))
    except (ValueError, etree.LxmlError) as error:
        logger.debug("robots meta tags not read from %s: %s", response.url, error)
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
    """The directives of ``response`` that apply to ``user_agent`` (SPEC §6).

    ``user_agent`` is a product token or a full User-Agent; ``extra_tokens`` are more
    crawler tokens whose directives apply too (``REP_DIRECTIVE_TOKENS``).
    """
    if isinstance(user_agent, str):
        tokens, names = _tokens_and_names(user_agent, tuple(extra_tokens))
    else:  # crawler_tokens says what is wrong with it
        tokens = crawler_tokens(user_agent, extra_tokens)
        names = frozenset(("robots", *tokens))
    directives: list[str] = []
    sources: list[str] = []
    for raw in response.headers.getlist(b"X-Robots-Tag"):
        value = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        applying = header_directives(value, tokens)
        if applying:
            directives.extend(applying)
            sources.append(f"X-Robots-Tag: {value.strip()}")
    for name, content in meta_tags(response, names, noscript=meta_in_noscript):
        applying = meta_directives(content)
        if applying:
            directives.extend(applying)
            sources.append(f'<meta name="{name}" content="{content.strip()}">')
    if not directives:
        return EMPTY
    return combine(directives, sources)
