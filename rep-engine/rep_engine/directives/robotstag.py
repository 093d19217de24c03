"""The ``Robots-Tag`` response header (draft-illyes-repext-03 §3.1.1, April 2026; pure).

"The ``robots-tag`` field is a List as defined in [RFC 8941]. Each member of the List is
an Item representing a product token. Rules applicable to a product token are defined as
Parameters of that Item": ``Robots-Tag: *;nosnippet, ExampleBot;noindex``. The product
token is an RFC 9309 §2.2.1 name or ``*``; "a restriction applied to the global ``*``
token applies to all accessors", and for a token named several times, or named beside
``*``, "the implementor MUST apply the union of all restrictive rules".

:func:`robots_tag_directives` gives the rules of one field line that apply to a crawler
with ``tokens``, as SPEC §6 directive words (``noindex``, ``max-snippet:0``), which
combine with ``X-Robots-Tag`` and the meta tags by the same union. Four readings, each
the one that loses no "no" (docs/decisions.md, "Robots-Tag written another way"):

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
- what the draft's syntax does not say is read as a site that wrote it means it: a bare
  rule (``Robots-Tag: noindex``) is a rule for every crawler; a member in
  ``X-Robots-Tag``'s syntax (``advbot: noindex, nofollow``) is read as ``X-Robots-Tag``
  reads it, with the bare rules after it, up to the next member in the draft's syntax;
  each name of an inner List (``(advbot otherbot);noindex``) gets its Parameters;
- the field is read up to :data:`MAX_ROBOTS_TAG_CHARS` (the draft: a limit of "at least 8
  kibibytes"; members wholly inside it "MUST be honored", the one cut at the limit and
  everything after it ignored).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Final

from rep_engine.directives import (
    FLAGS,
    KEYED,
    NO_OPS,
    epoch_date,
    header_directives,
    product_token,
)

#: How much of one field line is read (repext-03 §3.1.1: at least 8 KiB; 64 KiB keeps
#: more of a long field's rules, and the scan is linear). A crawl through Scrapy's
#: HTTP/1.1 client reads no header line over 16 KiB (Twisted's
#: ``LineReceiver.MAX_LENGTH``): a longer one fails the download, and nothing of that page
#: is kept; the rest of 64 KiB is read from folded lines and other download handlers.
MAX_ROBOTS_TAG_CHARS: Final = 65536

#: The rules that take no value: any value but ``?0`` states them.
_WORDS: Final = frozenset({*FLAGS, *NO_OPS, "none"})

#: One piece of a field: a quoted String (its escapes kept whole; an unterminated one runs
#: to the end), a run of other characters, or a separator. No two alternatives can match
#: the same character, so the scan cannot backtrack.
_PIECE: Final = re.compile(r'"(?:[^"\\]|\\.)*"?|[^,;"]+|[,;]', re.DOTALL)
_ESCAPE: Final = re.compile(r"\\(.)", re.DOTALL)
#: An inner List (RFC 9651 §3.1.1): its Items between parentheses (Strings whole), then
#: its Parameters.
_INNER_LIST: Final = re.compile(r'\(((?:"(?:[^"\\]|\\.)*"|[^")])*)\)(.*)', re.DOTALL)
_INNER_ITEM: Final = re.compile(r'(?:"(?:[^"\\]|\\.)*"?|[^ \t"])+')


def robots_tag_directives(value: str, tokens: Collection[str]) -> list[str]:
    """The rules of one ``Robots-Tag`` field line that apply to a crawler with ``tokens``
    (lowercased product tokens): those of ``*`` and of each of our names, in order."""
    if len(value) > MAX_ROBOTS_TAG_CHARS:  # the member cut at the limit is ignored
        value = value[:MAX_ROBOTS_TAG_CHARS]
        value = value[: value.rfind(",") + 1]
    applying: list[str] = []
    written: list[str] = []  # a run of members in X-Robots-Tag's syntax
    for member in _members(value):
        item = member[0].strip(" \t")
        if _in_header_syntax(item, len(member), bool(written)):
            written.append(";".join(member))
            continue
        applying.extend(header_directives(",".join(written), tokens))  # none when none written
        written = []
        applying.extend(_member_rules(item, member[1:], tokens))
    return applying + header_directives(",".join(written), tokens)


def _in_header_syntax(item: str, parts: int, in_run: bool) -> bool:
    """Whether a member is written as ``X-Robots-Tag`` is (``advbot: noindex``,
    ``unavailable_after: …``), or, after one, goes on in that syntax (a bare rule word, a
    date's pieces) rather than starting a member of the draft's (``*``, a String, an
    inner List, a name with parameters)."""
    if item.startswith(('"', "(")):
        return False
    if ":" in item and "=" not in item.partition(":")[0]:
        return True  # not a Parameter's value (unavailable_after=…T00:00:00Z)
    return in_run and not item.startswith("*") and (parts == 1 or _rule_word(item))


def _member_rules(item: str, parameters: list[str], tokens: Collection[str]) -> list[str]:
    """The rules of one member that apply to us: a bare rule word's, the Parameters of
    ``*`` and of our names, and of an inner List naming one of them."""
    if item.startswith("("):
        return _inner_list_rules(";".join((item, *parameters)), tokens)
    rules = [_rule(parameter) for parameter in parameters]
    if _rule_word(item):
        rules.insert(0, _rule(item))
    else:
        name = _name(item)
        if name != "*" and product_token(name) not in tokens:
            return []
    return [rule for rule in rules if rule]


def _inner_list_rules(member: str, tokens: Collection[str]) -> list[str]:
    """An inner List's Parameters for each of its names that is ours, with that name's
    own Parameters (``(advbot;nosnippet otherbot);noindex``); none if it is not closed."""
    found = _INNER_LIST.match(member)
    if found is None:
        return []
    shared = [_rule(parameter) for parameter in found.group(2).split(";")[1:]]
    rules: list[str] = []
    for inner in _INNER_ITEM.findall(found.group(1)):
        name, *own = inner.split(";")
        if _name(name) == "*" or product_token(_name(name)) in tokens:
            rules.extend(rule for rule in (*map(_rule, own), *shared) if rule)
    return rules


def _rule_word(item: str) -> bool:
    """Whether an Item is a rule rather than a name (``noindex``, ``max-snippet=0``)."""
    key = _rule(item).partition(":")[0]
    return key in _WORDS or key in KEYED


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
    return _string(item) if item.startswith('"') else item


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
