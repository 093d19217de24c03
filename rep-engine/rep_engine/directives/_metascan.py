"""A page's robots meta tags read from its bytes, where that is certain (SPEC §6 "Sources",
"Speed").

The HTML parse the crawl falls back on is libxml2's (through parsel), whose tokenizer
follows the WHATWG HTML standard's (§13.2.5 "Tokenization") since libxml2 2.14. This
module reads the same tags without building a tree, and answers ``None`` ("parse the
page") wherever its reading could differ from the parse's:

- A page in which ``<meta`` does not occur has no meta element: nothing to read. Nor has
  a page in which none of the wanted names occurs (lowercased), unless a meta tag's
  ``name`` holds a character reference or a non-ASCII character (``r&#111;bots``; the
  Kelvin sign, which ``str.lower()`` turns into ``k``) or a meta tag is outside what this
  module reads: such a page is read tag by tag, as is a page that has one of the names.
- Each ``<meta`` tag is read with the standard's attribute grammar (§13.2.5.32-42: a
  name ends at whitespace, ``/``, ``>`` or ``=``; a quote opens a value only after
  ``=``; an unquoted value ends at whitespace or ``>``; of two attributes of one name the
  first counts). A tag outside the strict part of that grammar this module reads (a
  ``<`` inside it, a quote inside a name or an unquoted value, a control character in a
  name, no ``>``, more than :data:`MAX_PIECES` attributes) is not guessed at.
- A tag whose name is wanted counts only where a tag can start (the data state): the
  text before it is read as tokens (text, tags, end tags, the doctype, comments, the raw
  text of ``<script>`` and ``<style>``, the escapable raw text of ``<title>`` and
  ``<textarea>``; §13.2.5.1-5, 43-53). A tag inside a comment, one of those elements or
  another tag's attribute value is no tag. Anything else before it sends the page to
  the parser: ``<template>`` (whose content never counts), ``<noscript>`` when its tags
  do not count, ``<svg>``, ``<math>``, ``<xmp>``, ``<iframe>``, ``<noembed>``,
  ``<noframes>``, ``<plaintext>``, ``<!x>``, ``<?x>``, ``</ x>``, a comment closed by
  ``--!>`` or opened as ``<!-->``, a ``<script>`` holding ``<script`` (the double-escaped
  state, §13.2.5.27), an element left open.
- A wanted tag whose ``name`` or ``content`` needs decoding (a character reference, a
  non-ASCII character, a carriage return, which the parse reads as a line feed) is handed
  back whole, for an HTML parser to read that one tag.

The patterns the scan reads a body with are the HTML standard's tokenizer (§13.2.5
"Tokenization") as bounded byte patterns: a tag's name and attributes, the tokens that
leave the tokenizer in the data state, the raw text elements and what ends them, and the
names a scan looks for.

Bounded (STYLE.md §5): no quantified group can match one text in two ways (a tag's
attributes are matched inside a lookahead, which is never re-entered, and each name or
value ends where the next cannot start), so no pattern backtracks; no attribute of a
``<meta`` tag crosses a ``<``, so reading one tag never reads into the next; and every
repeated group is bounded (:data:`MAX_PIECES`, :data:`_RUN`), since Python's ``re``
keeps state for each repetition of a group (hundreds of bytes: a 10 MB tag would take
gigabytes).
"""

from __future__ import annotations

import codecs
import re
import sys
from functools import lru_cache
from typing import Final

#: The most attributes and runs of whitespace a tag may have for this module to read it.
MAX_PIECES: Final = 256
#: The most tokens one match of the text before a tag reads (the loop goes on after).
_RUN: Final = 256

#: A byte that ends a name (§13.2.5.33): whitespace, ``/``, ``>``, ``=``. HTML whitespace
#: is tab, line feed, form feed and space; a carriage return is a line feed once the input
#: is preprocessed (§13.2.3.5).
_NAME_END: Final = rb"(?=[\t\n\f\r />=])"
_NAME: Final = rb"[^\t\n\f\r />=<\"'\x00-\x08\x0b\x0e-\x1f\x7f]+" + _NAME_END
#: An unquoted value (§13.2.5.38): up to whitespace or ``>``, without the bytes the
#: standard calls errors there (quotes, ``<``, ``=``, backtick), which this module leaves
#: to the parser.
_UNQUOTED: Final = rb"[^\t\n\f\r >\"'<=`]+(?=[\t\n\f\r >])"


def _attribute(name: bytes, double: bytes, single: bytes, unquoted: bytes = _UNQUOTED) -> bytes:
    """An attribute: ``name``, and ``=`` with a value, or with none before ``>``."""
    values = b"|".join((double, single, unquoted, rb"(?=>)"))
    return name + rb"(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:" + values + rb"))?"


def _attributes(*attributes: bytes) -> bytes:
    """A tag's attributes: runs of whitespace and ``/``, and ``attributes``, at most
    :data:`MAX_PIECES` of them."""
    return rb"(?:[\t\n\f\r /]+|" + b"|".join(attributes) + rb"){0,%d}" % MAX_PIECES


def _at_once(attributes: bytes, group: str) -> bytes:
    """``attributes`` matched once and never re-entered (a lookahead's match, then the
    same bytes by back-reference); ``group`` must be unique in its pattern."""
    return b"(?=(?P<%s>%s))(?P=%s)" % (group.encode(), attributes, group.encode())


#: The attributes of a ``<meta`` tag: no ``<`` inside quotes either.
_META_ATTRIBUTES: Final = _attributes(_attribute(_NAME, rb'"[^"<]*"', rb"'[^'<]*'"))

#: Every ``<meta`` tag (its name ends at whitespace, ``/`` or ``>``, §13.2.5.8), and the
#: ``>`` that ends it (group 2), missing when the tag is outside what this module reads.
_META_TAG: Final = re.compile(
    rb"<meta(?=[\t\n\f\r />])" + _at_once(_META_ATTRIBUTES, "attributes") + rb"(>)?"
)

#: One attribute of a tag :data:`_META_TAG` read: its name, and its value double-quoted,
#: single-quoted or unquoted (all three empty for no value).
_ATTRIBUTE: Final = re.compile(
    rb"([^\t\n\f\r />=<\"'\x00-\x08\x0b\x0e-\x1f\x7f]+)"
    + _NAME_END
    + rb"(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:\"([^\"<]*)\"|'([^'<]*)'|("
    + _UNQUOTED
    + rb")|(?=>)))?"
)

#: A meta tag that may name a wanted tag without spelling its name: outside what this
#: module reads, or with a ``name`` holding a character reference or a non-ASCII byte
#: (its value then does not read, and the tag does not reach its ``>``).
_UNSPELT_NAME: Final = re.compile(
    rb"<meta(?=[\t\n\f\r />])"
    + _at_once(
        _attributes(
            _attribute(
                b"name" + _NAME_END,
                rb'"[^"<&\x80-\xff]*"',
                rb"'[^'<&\x80-\xff]*'",
                rb"[^\t\n\f\r >\"'<=`&\x80-\xff]+(?=[\t\n\f\r >])",
            )
            + rb"(?![\t\n\f\r ]*=)",
            _attribute(b"(?!name" + _NAME_END + b")" + _NAME, rb'"[^"<]*"', rb"'[^'<]*'"),
        ),
        "attributes",
    )
    + rb"(?!>)"
)

#: Elements whose start changes how what follows is read, or whether a tag in them counts.
_RAW_TEXT: Final = (b"script", b"style", b"title", b"textarea")
_UNREAD: Final = (
    b"xmp", b"iframe", b"noembed", b"noframes", b"plaintext", b"template", b"svg", b"math"
)  # fmt: skip
_TAG_NAME: Final = rb"[a-z][^\t\n\f\r /><\x00-\x1f\x7f]*(?=[\t\n\f\r />])"
_ANY_ATTRIBUTES: Final = _attributes(_attribute(_NAME, rb'"[^"]*"', rb"'[^']*'"))
#: An end tag, whose attributes the tokenizer reads as a start tag's (§13.2.5.7).
_END_TAG: Final = re.compile(b"</" + _TAG_NAME + _at_once(_ANY_ATTRIBUTES, "e") + b">")


@lru_cache(maxsize=2)
def _tokens(noscript: bool) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """One token that leaves the tokenizer in the data state, and a run of them: text, a
    ``<`` that starts nothing (§13.2.5.6), the doctype (it ends at the first ``>``), a
    comment with no ``--`` inside, an element of raw text with no ``<`` inside (the
    others are read by :func:`_token_end`), an end tag, a start tag but of the elements
    above (and ``<noscript>`` when its tags do not count)."""
    special = (*_RAW_TEXT, *_UNREAD) if noscript else (*_RAW_TEXT, *_UNREAD, b"noscript")
    raw_texts = [
        b"<%s(?=[\t\n\f\r />])" % name
        + _at_once(_ANY_ATTRIBUTES, f"rs{number}")
        + b">[^<]*</%s(?=[\t\n\f\r />])" % name
        + _at_once(_ANY_ATTRIBUTES, f"re{number}")
        + b">"
        for number, name in enumerate(_RAW_TEXT)
    ]
    token = b"|".join(
        (
            rb"[^<]+",
            rb"<(?![a-z!?/])",
            rb"<!doctype[^>]*>",
            rb"<!--(?!-?>)[^-]*(?:-[^-]+){0,%d}-->" % MAX_PIECES,
            *raw_texts,
            b"</" + _TAG_NAME + _at_once(_ANY_ATTRIBUTES, "e") + b">",
            b"<(?!(?:%s)[\t\n\f\r />])" % b"|".join(special)
            + _TAG_NAME
            + _at_once(_ANY_ATTRIBUTES, "s")
            + b">",
        )
    )
    return re.compile(token), re.compile(b"(?:%s){0,%d}" % (token, _RUN))


#: The start of a comment or of a raw text element.
_OPENING: Final = re.compile(rb"<(?:!--|(%s)(?=[\t\n\f\r />]))" % b"|".join(_RAW_TEXT))
_START_TAG_REST: Final = re.compile(_at_once(_ANY_ATTRIBUTES, "s") + b">")
#: What ends a raw text element's content; in a script, ``<script`` too (not read here).
_CLOSING: Final = {
    name: re.compile(rb"<%s%s[\t\n\f\r />]" % (b"/?" if name == b"script" else b"/", name))
    for name in _RAW_TEXT
}


@lru_cache(maxsize=64)
def _wanted(names: frozenset[str]) -> tuple[tuple[bytes, ...], re.Pattern[bytes]]:
    """The names spelt in ASCII, and a pattern found in any tag that may carry a name."""
    spelt = tuple(sorted(name.encode() for name in names if name.isascii()))
    return spelt, re.compile(b"|".join((*(re.escape(name) for name in spelt), rb"[&\x80-\xff]")))


@lru_cache(maxsize=64)
def byte_transparent(encoding: str) -> bool:
    """Whether ``encoding`` writes every ASCII character as that one byte and no other
    character with a byte below 0x80, so that the bytes show the markup as the text does:
    UTF-8, and the single-byte codecs (one character per byte, a table of 256) whose
    first half is ASCII. Not UTF-16, Shift_JIS, UTF-7, ISO-2022-JP (whose escapes turn
    ASCII bytes into other characters) or EBCDIC."""
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        return False
    if info.name in ("utf-8", "utf-8-sig", "ascii", "iso8859-1"):
        return True
    module = sys.modules.get(getattr(info.incrementaldecoder, "__module__", ""))
    table = getattr(module, "decoding_table", None)
    return (
        isinstance(table, str)
        and len(table) == 256
        and table[:128] == bytes(range(128)).decode("ascii")
        and all(char > "\x7f" for char in table[128:])
    )


#: What :func:`scan_meta_tags` finds: ``(name, content)`` of a tag read here, or the
#: bytes of a wanted tag whose attributes an HTML parser must read.
Found = tuple[str, str] | bytes


def scan_meta_tags(
    body: bytes, names: frozenset[str], *, noscript: bool = True
) -> list[Found] | None:
    """The meta tags named one of ``names`` in an HTML ``body`` whose encoding is
    :func:`byte_transparent`, in document order; ``None`` where only a parse can tell.

    Names are compared as the parse's are: the ``name`` attribute stripped and
    lowercased. ``noscript``: tags inside ``<noscript>`` count (libxml2 reads its content
    as elements). NUL bytes are dropped first, as they are from the parse's input.
    """
    if b"\x00" in body:
        body = body.replace(b"\x00", b"")
    lowered = body.lower()
    if b"<meta" not in lowered:
        return []
    spelt, needle = _wanted(names)
    for name in spelt:
        if name in lowered:
            break
    else:
        if _UNSPELT_NAME.search(lowered) is None:
            return []  # no meta tag may carry a wanted name
    return _read_tags(body, lowered, names, needle, noscript)


def _read_tags(
    body: bytes,
    lowered: bytes,
    names: frozenset[str],
    needle: re.Pattern[bytes],
    noscript: bool,
) -> list[Found] | None:
    """Each ``<meta`` tag that may be wanted, read and placed (see the module's text)."""
    found: list[Found] = []
    position = 0  # a token boundary: the page is read up to here
    for match in _META_TAG.finditer(lowered):
        start, end = match.span()
        if start < position:
            continue  # inside a token read already
        tag: Found | None = None
        if match.lastindex == 2:  # read up to its ">"
            if needle.search(lowered, start, end) is None:
                continue  # no wanted name, nothing unspelt: no wanted tag
            tag = _wanted_tag(body, lowered, start, end, names)
            if tag is None:
                continue
        reached = _read_up_to(lowered, position, start, noscript)
        if reached is None:
            return None  # what comes before the tag is not read here
        if reached > start:
            position = reached
            continue  # inside a comment, a raw text or another tag: no tag
        if tag is None:
            return None  # a tag this module does not read
        found.append(tag)
        position = end
    return found


def _read_up_to(lowered: bytes, position: int, start: int, noscript: bool) -> int | None:
    """Read tokens from ``position`` (a token boundary) to ``start``: ``start`` if a token
    starts there, the end of the token that holds ``start`` if one does, ``None`` if what
    comes first is not read here."""
    token, run = _tokens(noscript)
    while True:
        position = run.match(lowered, position, start).end()  # type: ignore[union-attr]  # a run of no token matches too
        if position == start:
            return start
        end = _token_end(lowered, position, token)
        if end is None or end > start:
            return end
        position = end


def _token_end(lowered: bytes, position: int, token: re.Pattern[bytes]) -> int | None:
    """The end of the token at ``position`` (not cut at the tag being placed): a comment,
    a raw text element with its end tag, or one :func:`_tokens` reads; ``None`` if none."""
    opening = _OPENING.match(lowered, position)
    if opening is None:
        match = token.match(lowered, position)
        return None if match is None else match.end()
    name = opening.group(1)
    if name is None:  # a comment: up to the first "-->" (§13.2.5.43-52)
        if lowered.startswith((b"<!-->", b"<!--->"), position):
            return None  # closed at once: not read here
        close = lowered.find(b"-->", position + 4)
        if close < 0 or lowered.find(b"--!>", position + 4, close + 2) >= 0:
            return None  # unclosed, or closed by "--!>"
        return close + 3
    tag = _START_TAG_REST.match(lowered, opening.end())
    if tag is None:
        return None
    closing = _CLOSING[name].search(lowered, tag.end())
    if closing is None or lowered[closing.start() + 1] != ord("/"):
        return None  # left open, or a script holding "<script"
    end_tag = _END_TAG.match(lowered, closing.start())
    return None if end_tag is None else end_tag.end()


def _wanted_tag(
    body: bytes, lowered: bytes, start: int, end: int, names: frozenset[str]
) -> Found | None:
    """A read tag's ``(name, content)``, its bytes if they need a parser, or ``None`` if
    it is no wanted tag (another name, or no ``content``)."""
    name = content = None
    for attribute, double, single, unquoted in _ATTRIBUTE.findall(lowered, start + 5, end):
        if attribute == b"name" and name is None:
            name = double or single or unquoted
        elif attribute == b"content" and content is None:
            content = double or single or unquoted
    if name is None or content is None:
        return None
    if not name.isascii() or b"&" in name:
        return body[start:end]  # a parser reads what the name says
    text = name.decode("ascii").strip()
    if text not in names:
        return None
    if lowered[start:end] != body[start:end]:  # the content as written, not lowercased
        for attribute, double, single, unquoted in _ATTRIBUTE.findall(body, start + 5, end):
            if attribute.lower() == b"content":
                content = double or single or unquoted
                break
    if not content.isascii() or b"&" in content or b"\r" in content:
        return body[start:end]  # a reference, a non-ASCII character, a carriage return
    return text, content.decode("ascii")
