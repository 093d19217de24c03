"""The ``Robots-Tag`` response header (draft-illyes-repext-03 §3.1.1, April 2026; pure).

"The ``robots-tag`` field is a List as defined in [RFC 8941]. Each member of the List is
an Item representing a product token. Rules applicable to a product token are defined as
Parameters of that Item": ``Robots-Tag: *;nosnippet, ExampleBot;noindex``. The product
token is an RFC 9309 §2.2.1 name or ``*``; "a restriction applied to the global ``*``
token applies to all accessors", and for a token named several times, or named beside
``*``, "the implementor MUST apply the union of all restrictive rules".

:func:`robots_tag_directives` gives the rules of one field line that apply to a crawler
with ``tokens``, as SPEC §6 directive words (``noindex``, ``max-snippet:0``), which
combine with ``X-Robots-Tag`` and the meta tags by the same union. Three readings, each
the one that loses no "no":

- a rule is a Parameter's key, case-insensitive (§3.1.3: "The values are case
  insensitive"); besides the two the draft defines (``noindex``, ``nosnippet``), every
  rule of ``X-Robots-Tag`` is read the same way ("Implementors may support other rules");
  only the Boolean ``?0`` states no rule: any other value states a rule that takes none
  (``noindex=1``, ``noindex="yes"``, ``noindex=:eWVz:``), a rule that takes one gets it
  (``max-snippet=0`` is ``max-snippet:0``), and a Date (``@1577836800``) or an Integer of
  seconds since 1970 is a date for ``unavailable_after``;
- a malformed member is skipped alone, not the whole field (RFC 8941 would fail the whole
  List, which would lift every "no" in it): the value is read member by member with a
  linear scan (quoted Strings and their escapes kept whole), and a member whose name is
  written as a String is read by that name;
- the field is read up to :data:`MAX_ROBOTS_TAG_CHARS` (the draft: a limit of "at least 8
  kibibytes"; members wholly inside it "MUST be honored", the one cut at the limit and
  everything after it ignored).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Final

from scrapy_rep.directives import _TOKEN as PRODUCT_TOKEN
from scrapy_rep.directives import FLAGS, NO_OPS
from scrapy_rep.directives._dates import epoch_date

#: How much of one field line is read (repext-03 §3.1.1: at least 8 KiB; 64 KiB keeps
#: more of a long field's rules, and the scan is linear).
MAX_ROBOTS_TAG_CHARS: Final = 65536

#: The rules that take no value: any value but ``?0`` states them.
_WORDS: Final = frozenset({*FLAGS, *NO_OPS, "none"})

#: One piece of a field: a quoted String (its escapes kept whole; an unterminated one runs
#: to the end), a run of other characters, or a separator. No two alternatives can match
#: the same character, so the scan cannot backtrack.
_PIECE: Final = re.compile(r'"(?:[^"\\]|\\.)*"?|[^,;"]+|[,;]', re.DOTALL)
_ESCAPE: Final = re.compile(r"\\(.)", re.DOTALL)


def robots_tag_directives(value: str, tokens: Collection[str]) -> list[str]:
    """The rules of one ``Robots-Tag`` field line that apply to a crawler with ``tokens``
    (lowercased product tokens): those of ``*`` and of each of our names, in order."""
    if len(value) > MAX_ROBOTS_TAG_CHARS:  # the member cut at the limit is ignored
        value = value[:MAX_ROBOTS_TAG_CHARS]
        value = value[: value.rfind(",") + 1]
    applying: list[str] = []
    for member in _members(value):
        name = _name(member[0])
        if name != "*" and _product_token(name) not in tokens:
            continue
        for parameter in member[1:]:
            rule = _rule(parameter)
            if rule:
                applying.append(rule)
    return applying


def _members(value: str) -> list[list[str]]:
    """The List's members, each as its Item and its Parameters (the text between ``;``)."""
    members: list[list[str]] = []
    parts: list[str] = []
    current: list[str] = []
    for match in _PIECE.finditer(value):
        piece = match.group(0)
        if piece == "," or piece == ";":
            parts.append("".join(current))
            current = []
            if piece == ",":
                members.append(parts)
                parts = []
            continue
        current.append(piece)
    parts.append("".join(current))
    members.append(parts)
    return members


def _name(item: str) -> str:
    """The product token an Item names: a Token, ``*``, or a String's text."""
    item = item.strip(" \t")
    if item.startswith('"'):
        return _string(item)
    return item


def _product_token(name: str) -> str:
    """A name's product token, lowercased (RFC 9309 §2.2.1: a name's leading run of token
    characters, as ``X-Robots-Tag``'s scopes are read: ``MyBot/2.0`` is ``mybot``)."""
    match = PRODUCT_TOKEN.match(name)
    return match.group(0).lower() if match else ""


def _string(text: str) -> str:
    """A quoted String's text (RFC 8941 §3.3.3: ``\\"`` and ``\\\\`` escaped)."""
    inner = text[1:-1] if len(text) > 1 and text.endswith('"') else text[1:]
    return _ESCAPE.sub(r"\1", inner)


def _rule(parameter: str) -> str:
    """A Parameter as a SPEC §6 directive word (``""``: no rule)."""
    key, equals, raw = parameter.partition("=")
    key = key.strip(" \t").lower()
    raw = raw.strip(" \t")
    if not key or raw == "?0":  # the Boolean false: this rule is not stated
        return ""
    if not equals or raw in ("", "?1") or key in _WORDS:
        return key  # any other value states a rule that takes none (noindex=1)
    if key == "unavailable_after" and (date := epoch_date(raw)) is not None:
        return f"{key}:{date.isoformat()}"
    return f"{key}:{_string(raw) if raw.startswith(chr(34)) else raw}"
