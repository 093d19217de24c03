"""Pattern normalisation and linear-time rule matching (SPEC §1 "Rule matching", §2).

Pure: no Scrapy imports. Strings here are "byte strings in disguise": the parser decodes
robots.txt as Latin-1, so one character is one byte of the file and a non-ASCII byte is
a character from U+0080 to U+00FF. URLs are ordinary text; their non-ASCII characters are
percent-encoded as UTF-8 before matching.

Matching never uses regular expressions on patterns: a pattern is split at its ``*``
into literal segments, and the segments are found left to right with ``str.find``. For
``*``-only globs the leftmost placement of every segment is always a valid choice, so
nothing is ever retried and the time is linear in URL × pattern length (the ReDoS of
Protego's CVE-2026-55520 cannot happen).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import NamedTuple

#: RFC 3986 §2.3 unreserved characters: their ``%xx`` escapes are decoded in "rfc9309" mode.
_UNRESERVED_ESCAPE = re.compile(r"%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])")
_LOWER_ESCAPE = re.compile(r"%(?:[a-f][0-9A-Fa-f]|[0-9A-F][a-f])")
#: Paths at least this long get a character-set prefilter before wildcard patterns are
#: tried (keeps one call on a 100 KB URL against thousands of patterns in milliseconds).
_LONG_PATH = 4096
#: The first character that ends a URL's authority (RFC 3986 §3.2).
_AUTHORITY_END = re.compile(r"[/?#]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")


class Rule(NamedTuple):
    """One ``allow``/``disallow`` line of a robots.txt group."""

    allow: bool
    #: 1-based line number in the file.
    line: int
    #: The key as written (``Disallow``, ``dissalow``…), for messages.
    key: str
    #: The value as written (without comment and surrounding whitespace).
    value: str


# --------------------------------------------------------------------------- encoding


def _encode_non_ascii(text: str, *, latin1: bool) -> str:
    """Percent-encode every non-ASCII character (as UTF-8, or as its Latin-1 byte)."""
    out = []
    for char in text:
        code = ord(char)
        if code < 0x80:
            out.append(char)
        elif latin1 and code < 0x100:
            out.append(f"%{code:02X}")
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
    return "".join(out)


def _upper_escapes(text: str) -> str:
    if _LOWER_ESCAPE.search(text) is None:
        return text
    return _LOWER_ESCAPE.sub(lambda m: m.group(0).upper(), text)


def _decode_unreserved(text: str) -> str:
    """Decode escapes of unreserved characters; uppercase the hex of the others."""
    if _UNRESERVED_ESCAPE.search(text) is not None:
        text = _UNRESERVED_ESCAPE.sub(lambda m: chr(int(m.group(0)[1:], 16)), text)
    return _upper_escapes(text)


def normalise_pattern(value: str, encoding: str) -> str:
    """A rule value as it is matched (SPEC §1 "Percent-encoding"; §2 for the modes).

    ``value`` is Latin-1-decoded file content. A value that does not start with ``/`` or
    ``*`` gets a leading ``/`` (SPEC §1: ``Disallow: fish/`` = ``Disallow: /fish/``).

    - ``google``: non-ASCII bytes become ``%XX``; existing escapes get uppercase hex.
    - ``rfc9309``: as ``google``, and escapes of unreserved characters are decoded
      (RFC 9309 §2.2.2).
    - ``none``: the value as written (legacy profile).
    """
    if value[:1] not in ("/", "*"):
        value = "/" + value
    if encoding == "none":
        return value
    if not value.isascii():
        value = _encode_non_ascii(value, latin1=True)
    if "%" in value:
        value = _decode_unreserved(value) if encoding == "rfc9309" else _upper_escapes(value)
    return value


def normalise_url_path(path: str, encoding: str) -> str:
    """A URL path+query as matched: as given but non-ASCII encoded (SPEC §1), or RFC 9309 §2.2.2."""
    if not path.isascii():
        path = _encode_non_ascii(path, latin1=False)
    if encoding == "rfc9309" and "%" in path:
        path = _decode_unreserved(path)
    return path


def path_of(url: str) -> str:
    """The path, parameters and query of ``url``, without the fragment; ``/`` when empty.

    Accepts absolute URLs (``https://h/p?q``), scheme-relative ones (``//h/p``) and bare
    paths (``/p?q``). SPEC §1: "The URL's path, parameters and query are matched".
    """
    authority = -1
    if url.startswith("//"):
        authority = 2
    elif not url.startswith("/"):
        scheme_end = url.find("://")
        if scheme_end > 0 and (
            url[:scheme_end].isalnum() or _SCHEME.fullmatch(url, 0, scheme_end) is not None
        ):
            authority = scheme_end + 3
    start = 0
    if authority >= 0:
        found = _AUTHORITY_END.search(url, authority)
        if found is None:
            return "/"
        start = found.start()
    hash_at = url.find("#", start)
    path = url[start:hash_at] if hash_at >= 0 else url[start:]
    return path if path.startswith("/") else "/" + path


# --------------------------------------------------------------------------- matching


def wildcard_match(path: str, segments: Sequence[str], anchored: bool) -> bool:
    """Does ``path`` match the pattern ``"*".join(segments)`` (+ ``$`` if ``anchored``)?

    The first segment is anchored at the start; every other one is placed at its leftmost
    occurrence after the previous one, which is always a valid choice for ``*``-only
    globs, so the cost is one left-to-right scan: O(len(path) × len(segments)).
    """
    first = segments[0]
    if not path.startswith(first):
        return False
    position = len(first)
    last = len(segments) - 1
    for index in range(1, last):
        segment = segments[index]
        found = path.find(segment, position)
        if found < 0:
            return False
        position = found + len(segment)
    tail = segments[last]
    if anchored:
        return len(path) - len(tail) >= position and path.endswith(tail)
    return path.find(tail, position) >= 0


def _better(priority: int, rule: Rule, best_priority: int, best: Rule | None) -> bool:
    """Longest pattern wins; allow wins ties (SPEC §1, RFC 9309 §2.2.2)."""
    if best is None or priority > best_priority:
        return True
    return priority == best_priority and rule.allow and not best.allow


#: A pattern with ``*``: priority, rule, length of its first segment, the segments after
#: the first but before the last (empty ones dropped), the last segment, ``$``-anchored.
_Wild = tuple[int, Rule, int, tuple[str, ...], str, bool]
_NO_WILD: tuple[_Wild, ...] = ()


class LongestMatcher:
    """The rules of one group, compiled for longest-match lookups (SPEC §1).

    Every pattern starts with a literal segment (up to its first ``*``, or the whole
    pattern). These segments are kept in a sorted list with "parent" links (the parent of
    an entry is the longest other entry that is a prefix of it). For a path, one bisection
    finds the greatest entry <= path; every entry that is a prefix of the path lies on that
    entry's parent chain, so a short walk visits exactly the candidate patterns:
    - literal prefixes (``/private``): the best one on the chain is precomputed per entry;
    - patterns with ``*``: stored with their first segment, longest first; only those on
      the chain are tried, each stopping as soon as it cannot beat the best match so far;
    - exact patterns (``/page$``): one dict lookup.
    """

    __slots__ = ("_best", "_exact", "_keys", "_parent", "_wild", "_wild_chars")

    def __init__(self, compiled: Iterable[tuple[str, Rule, bool]]) -> None:
        """``compiled``: (normalised pattern, rule, whether ``*``/``$`` are wildcards)."""
        literal: dict[str, tuple[int, Rule]] = {}
        exact: dict[str, tuple[int, Rule]] = {}
        wild: dict[str, list[_Wild]] = {}
        for pattern, rule, wildcards in compiled:
            priority = len(pattern)
            body, anchored = pattern, False
            if wildcards and body.endswith("$"):
                body, anchored = body[:-1], True
            segments = body.split("*") if wildcards else [body]
            if len(segments) == 1:
                table = exact if anchored else literal
                old = table.get(body)
                if old is None or _better(priority, rule, *old):
                    table[body] = (priority, rule)
            else:
                first, inner, tail = segments[0], segments[1:-1], segments[-1]
                entry = (priority, rule, len(first), tuple(s for s in inner if s), tail, anchored)
                wild.setdefault(first, []).append(entry)
        self._exact = exact
        self._keys = keys = sorted(literal.keys() | wild.keys())
        self._parent: list[int] = []
        self._best: list[tuple[int, Rule | None]] = []
        self._wild: list[tuple[_Wild, ...]] = []
        for index, key in enumerate(keys):
            candidate = index - 1
            while candidate >= 0 and not key.startswith(keys[candidate]):
                candidate = self._parent[candidate]
            self._parent.append(candidate)
            inherited = self._best[candidate] if candidate >= 0 else (-1, None)
            own = literal.get(key)
            self._best.append(own if own is not None and _better(*own, *inherited) else inherited)
            entries = wild.get(key)
            if entries:
                entries.sort(key=lambda e: (-e[0], not e[1].allow, e[1].line))
            self._wild.append(tuple(entries) if entries else _NO_WILD)
        self._wild_chars: dict[int, frozenset[str]] | None = None

    def match(self, path: str) -> Rule | None:
        """The deciding rule for ``path``, or ``None`` when no rule matches."""
        keys = self._keys
        parent = self._parent
        index = bisect_right(keys, path) - 1
        while index >= 0 and not path.startswith(keys[index]):
            index = parent[index]
        best_priority, best = self._best[index] if index >= 0 else (-1, None)
        if self._exact:
            hit = self._exact.get(path)
            if hit is not None and _better(*hit, best_priority, best):
                best_priority, best = hit
        present = frozenset(path) if len(path) >= _LONG_PATH else None
        wild = self._wild
        while index >= 0:
            for entry in wild[index]:
                priority, rule, first_length, inner, tail, anchored = entry
                if priority < best_priority:
                    break
                if (
                    best is not None
                    and priority == best_priority
                    and (best.allow or not rule.allow)
                ):
                    continue
                if present is not None and not self._chars(entry, keys[index]) <= present:
                    continue
                if inner:
                    matched = wildcard_match(path, (keys[index], *inner, tail), anchored)
                elif anchored:
                    matched = path.endswith(tail) and len(path) - len(tail) >= first_length
                else:
                    matched = path.find(tail, first_length) >= 0
                if matched:
                    best_priority, best = priority, rule
                    break
            index = parent[index]
        return best

    def _chars(self, entry: _Wild, first: str) -> frozenset[str]:
        """The characters of a pattern, collected on first use (long paths only).

        A path of 4 KiB or more first checks that it holds every character of a pattern:
        a cheap filter that keeps one call on a 100 KB URL against thousands of patterns
        in milliseconds.
        """
        if self._wild_chars is None:
            self._wild_chars = {}
        chars = self._wild_chars.get(id(entry))
        if chars is None:
            chars = frozenset(first + "".join(entry[3]) + entry[4])
            self._wild_chars[id(entry)] = chars
        return chars


class FirstMatcher:
    """The rules of one record in file order; the first matching line decides (legacy, SPEC §2)."""

    __slots__ = ("_rules",)

    def __init__(self, compiled: Iterable[tuple[str, Rule, bool]]) -> None:
        """``compiled``: (normalised pattern, rule, whether ``*``/``$`` are wildcards)."""
        rules = []
        for pattern, rule, wildcards in compiled:
            body, anchored = pattern, False
            if wildcards and body.endswith("$"):
                body, anchored = body[:-1], True
            segments = tuple(body.split("*")) if wildcards else (body,)
            if len(segments) == 1:
                segments = (body, "") if not anchored else (body,)
            rules.append((segments, anchored, rule))
        self._rules = tuple(rules)

    def match(self, path: str) -> Rule | None:
        """The first rule in file order that matches ``path``."""
        for segments, anchored, rule in self._rules:
            if len(segments) == 1:
                if path == segments[0]:
                    return rule
            elif wildcard_match(path, segments, anchored):
                return rule
        return None
