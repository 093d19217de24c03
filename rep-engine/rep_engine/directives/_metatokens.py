"""The patterns of the meta-tag scan (:mod:`rep_engine.directives._metascan`): the HTML
standard's tokenizer (§13.2.5 "Tokenization") as bounded byte patterns: a tag's name and
attributes, the tokens that leave the tokenizer in the data state, the raw text elements
and what ends them, and the names a scan looks for. Values only: the scan reads a body
with them.

Bounded (STYLE.md §5): no quantified group can match one text in two ways, so no
pattern backtracks, and every repeated group is bounded (:data:`MAX_PIECES`,
:data:`_RUN`)."""

from __future__ import annotations

import re
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
