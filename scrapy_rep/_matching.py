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

A rule is identified by a *code*: a non-zero int, positive for ``allow`` and negative for
``disallow`` (the parser uses the signed line number). Matchers return the deciding code,
``0`` when no rule matches. They hold few objects the garbage collector has to walk
(strings, ``array``, tuples of atoms), because a broad crawl keeps thousands alive.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from itertools import repeat
from typing import Final

#: RFC 3986 §2.3 unreserved characters: their ``%xx`` escapes are decoded in "rfc9309" mode.
_UNRESERVED_ESCAPE = re.compile(r"%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])")
_LOWER_ESCAPE = re.compile(r"%(?:[a-f][0-9A-Fa-f]|[0-9A-F][a-f])")
#: Paths at least this long get a character-set prefilter before wildcard patterns are
#: tried (keeps one call on a 100 KB URL against thousands of patterns in milliseconds).
_LONG_PATH: Final = 4096
#: google/robotstxt GetPathParamsQuery: the path starts at the first of these.
_PATH_START = re.compile(r"[/?;]")
#: An http(s) URL whose authority holds no path, query, parameter or fragment delimiter,
#: and its path+query (group 1).
_HTTP_PATH = re.compile(r"https?://[^/?;#]*(/[^#]*)")
_STARS = re.compile(r"\*\*+")
#: A parent index not computed yet (see :meth:`LongestMatcher._find_parent`).
_UNKNOWN: Final = -2


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


def has_lower_escape(text: str) -> bool:
    """Does ``text`` hold a ``%xx`` escape with a lowercase hex digit?"""
    if len(text) > 64 and not any(letter in text for letter in "abcdef"):
        return False  # six scans in C: quicker than the regex on long, escape-heavy text
    return _LOWER_ESCAPE.search(text) is not None


def upper_escapes(text: str) -> str:
    """RFC 3986 §2.1: ``%xx`` escapes with uppercase hex (``%c3`` and ``%C3`` are one octet)."""
    if not has_lower_escape(text):
        return text
    return _LOWER_ESCAPE.sub(lambda m: m.group(0).upper(), text)


def _decode_unreserved(text: str) -> str:
    """Decode escapes of unreserved characters; uppercase the hex of the others."""
    if _UNRESERVED_ESCAPE.search(text) is not None:
        text = _UNRESERVED_ESCAPE.sub(lambda m: chr(int(m.group(0)[1:], 16)), text)
    return upper_escapes(text)


def normalise_pattern(value: str, encoding: str) -> str:
    """A rule value as it is matched (SPEC §1 "Percent-encoding"; §2 for the modes).

    ``value`` is Latin-1-decoded file content. A value that does not start with ``/`` or
    ``*`` gets a leading ``/`` (SPEC §1: ``Disallow: fish/`` = ``Disallow: /fish/``).

    - ``google``: non-ASCII bytes become ``%XX``; existing escapes get uppercase hex.
    - ``rfc9309``: as ``google``, and escapes of unreserved characters are decoded
      (RFC 9309 §2.2.2).
    - ``none``: as written, but escapes get uppercase hex (legacy profile; the URL's
      escapes are uppercased too, so both sides stay comparable).
    """
    if value[:1] not in ("/", "*"):
        value = "/" + value
    if encoding != "none" and not value.isascii():
        value = _encode_non_ascii(value, latin1=True)
    if "%" in value:
        value = _decode_unreserved(value) if encoding == "rfc9309" else upper_escapes(value)
    return value


def normalise_url_path(path: str, encoding: str) -> str:
    """A URL path+query as matched (SPEC §1 "Percent-encoding", §2).

    Non-ASCII characters are encoded as UTF-8 ``%XX`` and escapes get uppercase hex in
    every mode; ``rfc9309`` also decodes escapes of unreserved characters (RFC 9309 §2.2.2).
    """
    if not path.isascii():
        path = _encode_non_ascii(path, latin1=False)
    if "%" in path:
        path = _decode_unreserved(path) if encoding == "rfc9309" else upper_escapes(path)
    return path


def path_of(url: str) -> str:
    """The path, parameters and query of ``url``, without the fragment; ``/`` when empty.

    SPEC §1 "Rule matching": read as google/robotstxt's ``GetPathParamsQuery`` reads it.
    ``https://h/p;x?q#f`` gives ``/p;x?q``; a URL without a scheme loses its first part
    as the host (``example.com/a?b`` gives ``/a?b``, ``a/b`` gives ``/b``, ``a`` gives
    ``/``, ``//host/p`` gives ``/p``); a URL starting with a single ``/`` is a path.
    """
    found = _HTTP_PATH.match(url)
    if found is not None:  # the usual case, answered without the general scan below
        return found.group(1)
    search_start = 2 if url.startswith("//") else 0
    early = _PATH_START.search(url, search_start)
    protocol_end = url.find("://", search_start)
    if protocol_end < 0 or (early is not None and early.start() < protocol_end):
        protocol_end = search_start  # "://" after a path delimiter is not a scheme's
    else:
        protocol_end += 3
    path_start = _PATH_START.search(url, protocol_end)
    if path_start is None:
        return "/"
    start = path_start.start()
    end = url.find("#", search_start)
    if 0 <= end < start:
        return "/"
    path = url[start:end] if end >= 0 else url[start:]
    return path if path[0] == "/" else "/" + path


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
    if len(segments) == 1:
        return not anchored or len(path) == len(first)
    return _match_rest(path, len(first), segments[1:-1], segments[-1], anchored)


def _match_rest(path: str, position: int, inner: Sequence[str], tail: str, anchored: bool) -> bool:
    """The segments after the first, from ``position`` on (see :func:`wildcard_match`)."""
    for segment in inner:
        found = path.find(segment, position)
        if found < 0:
            return False
        position = found + len(segment)
    if anchored:
        return len(path) - len(tail) >= position and path.endswith(tail)
    return path.find(tail, position) >= 0


def _common_prefix_length(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (binary search, in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) >> 1
        if a.startswith(b[:middle]):
            low = middle
        else:
            high = middle - 1
    return low


#: A pattern with ``*``: priority, code, the segments between the first and the last
#: (empty ones dropped), the last segment, ``$``-anchored. The first segment is its key.
_Wild = tuple[int, int, tuple[str, ...], str, bool]
#: A pattern with ``*`` as compiled, not yet split: priority, code, pattern.
_Raw = tuple[int, int, str]


def _rank(raw: _Raw) -> tuple[int, bool]:
    """Longest first; at equal length allow first (SPEC §1); the sort keeps file order."""
    return -raw[0], raw[1] < 0


def _split_all(raws: Sequence[_Raw]) -> tuple[_Wild, ...]:
    """The wildcard patterns of one key, split into segments, in the order they are tried."""
    entries = []
    for priority, code, pattern in sorted(raws, key=_rank):
        anchored = pattern.endswith("$")
        _, inner, tail, anchored = _segments(pattern[:-1] if anchored else pattern, anchored)
        entries.append((priority, code, inner, tail, anchored))
    return tuple(entries)


def _segments(body: str, anchored: bool) -> tuple[str, tuple[str, ...], str, bool]:
    """``(first, inner, tail, anchored)`` of a pattern body with at least one ``*``.

    Simplified without changing what matches: a run of stars is one star, and a final
    star (``/*x*``, ``/*x*$``) is dropped, the last segment before it becoming the tail.
    """
    if "**" in body:
        body = _STARS.sub("*", body)
    segments = body.split("*")
    first, tail = segments[0], segments[-1]
    inner: tuple[str, ...] = ()
    if len(segments) > 2:
        inner = tuple(filter(None, segments[1:-1]))
    if not tail:
        anchored = False
        if inner:
            inner, tail = inner[:-1], inner[-1]
    return first, inner, tail, anchored


class LongestMatcher:
    """The rules of one group set, indexed for longest-match lookups (SPEC §1).

    Every pattern starts with a literal segment (up to its first ``*``, or the whole
    pattern). These keys are kept sorted; for a path, one bisection finds the greatest key
    <= path, and every key that is a prefix of the path lies on that key's chain of
    "parents" (the parent of a key is the longest other key that is a prefix of it), so a
    short walk visits exactly the candidate patterns:

    - literal prefixes (``/private``): the first one met on the walk is the longest;
    - patterns with ``*``: stored under their first segment, longest first, each tried
      only while it can still beat the best match so far;
    - exact patterns (``/page$``): one dict lookup.

    Building costs one sort and a few dictionaries (all in C); a parent is looked up the
    first time a walk needs it and remembered, so a group of 20,000 rules answers its first
    question in milliseconds.
    """

    __slots__ = (
        "_chars",
        "_exact",
        "_keys",
        "_literal",
        "_parent",
        "_plain",
        "_split",
        "_wild",
    )

    def __init__(
        self,
        patterns: Sequence[str],
        codes: Sequence[int],
        wildcards: bool = True,
        exact_at: Collection[int] = (),
    ):
        """``patterns``: normalised patterns; ``codes``: the rule code of each (non-zero).

        ``wildcards``: ``*`` and a final ``$`` are special (SPEC §2); ``exact_at``: the
        positions of patterns that match only the path equal to them, whatever the mode.
        """
        exact: dict[str, int] = {}
        if exact_at:
            for position in exact_at:
                _keep_better(exact, patterns[position], codes[position])
            rest = [position for position in range(len(patterns)) if position not in exact_at]
            patterns = [patterns[position] for position in rest]
            codes = [codes[position] for position in rest]
        joined = "".join(patterns)
        literal: dict[str, int] = {}
        if not exact and (not wildcards or ("*" not in joined and "$" not in joined)):
            literal = dict(zip(patterns, codes, strict=True))
            if len(literal) == len(patterns):
                self._set_up(literal, exact, {})
                return
            literal = {}
        wild: dict[str, list[_Raw]] = {}
        for pattern, code in zip(patterns, codes, strict=True):
            if wildcards and ("*" in pattern or pattern[-1:] == "$"):
                star = pattern.find("*")
                if star >= 0:  # split into segments when a path first reaches its key
                    wild.setdefault(pattern[:star], []).append((len(pattern), code, pattern))
                else:
                    _keep_better(exact, pattern[:-1], code)
            else:
                old = literal.get(pattern)
                if old is None or code > 0 > old:  # equal patterns: as _keep_better
                    literal[pattern] = code
        self._set_up(literal, exact, wild)

    def _set_up(
        self, literal: dict[str, int], exact: dict[str, int], wild: dict[str, list[_Raw]]
    ) -> None:
        keys = sorted(literal.keys() | wild.keys()) if wild else sorted(literal)
        self._keys = keys
        #: The code of the literal pattern equal to each key, 0 when there is none.
        self._literal = array("i", map(literal.get, keys, repeat(0)))
        self._parent = array("i", [_UNKNOWN]) * len(keys)
        self._exact = exact or None
        #: Key index -> its wildcard patterns as compiled; split into segments in
        #: ``_split`` when a path first reaches the key. Tuples of atoms only, which the
        #: garbage collector stops tracking.
        self._wild: dict[int, tuple[_Raw, ...]] | None = None
        self._split: dict[int, tuple[_Wild, ...]] | None = None
        if wild:
            self._wild = {bisect_left(keys, first): tuple(raws) for first, raws in wild.items()}
        self._chars: dict[int, tuple[frozenset[str], ...]] | None = None
        #: Only literal prefixes: every key is a pattern, the longest prefix decides.
        self._plain = not wild and not exact

    def match(self, path: str) -> int:
        """The code of the deciding rule for ``path``; ``0`` when no rule matches."""
        keys = self._keys
        parent = self._parent
        index = bisect_right(keys, path) - 1
        while index >= 0 and not path.startswith(keys[index]):
            up = parent[index]
            index = up if up != _UNKNOWN else self._find_parent(index)
        if self._plain:
            return self._literal[index] if index >= 0 else 0
        best = 0
        best_priority = -1
        if self._exact is not None:
            best = self._exact.get(path, 0)
            if best:
                best_priority = len(path) + 1
        literal = self._literal
        wild = self._wild
        # Long paths first check that they hold every character of a wildcard pattern.
        present = frozenset(path) if wild is not None and len(path) >= _LONG_PATH else None
        while index >= 0:
            code = literal[index]
            if code:
                priority = len(keys[index])
                # Longest wins, allow wins ties (SPEC §1); keys further up are shorter.
                if priority > best_priority or (priority == best_priority and code > 0 > best):
                    best_priority, best = priority, code
                if wild is None:
                    break
            if wild is not None and index in wild:
                best_priority, best = self._try_wild(path, present, index, best_priority, best)
            up = parent[index]
            index = up if up != _UNKNOWN else self._find_parent(index)
        return best

    def _try_wild(
        self,
        path: str,
        present: frozenset[str] | None,
        index: int,
        best_priority: int,
        best: int,
    ) -> tuple[int, int]:
        """The best of (best so far, the wildcard patterns whose first segment is key ``index``).

        ``present``: the characters of a long path (``None`` for a short one).
        """
        entries = self._entries(index)
        first_length = len(self._keys[index])
        charsets = self._characters(index) if present is not None else None
        for number, (priority, code, inner, tail, anchored) in enumerate(entries):
            if priority < best_priority:
                break
            if priority == best_priority and (best > 0 or code < 0):
                continue
            if charsets is not None and present is not None and not charsets[number] <= present:
                continue
            if inner:
                matched = _match_rest(path, first_length, inner, tail, anchored)
            elif anchored:
                matched = len(path) - len(tail) >= first_length and path.endswith(tail)
            else:
                matched = path.find(tail, first_length) >= 0
            if matched:
                return priority, code
        return best_priority, best

    def _characters(self, index: int) -> tuple[frozenset[str], ...]:
        """The characters of each wildcard pattern of key ``index``, collected on first use.

        A path of 4 KiB or more first checks that it holds every character of a pattern:
        a cheap filter that keeps one call on a 100 KB URL against thousands of patterns
        in milliseconds. Only long paths need it, so it is built for them only.
        """
        if self._chars is None:
            self._chars = {}
        charsets = self._chars.get(index)
        if charsets is None:
            first = self._keys[index]
            charsets = tuple(
                frozenset(first + "".join(inner) + tail)
                for _, _, inner, tail, _ in self._entries(index)
            )
            self._chars[index] = charsets
        return charsets

    def _entries(self, index: int) -> tuple[_Wild, ...]:
        """The wildcard patterns of key ``index``, split on first use and remembered."""
        if self._split is None:
            self._split = {}
        entries = self._split.get(index)
        if entries is None:
            assert self._wild is not None
            entries = self._split[index] = _split_all(self._wild[index])
        return entries

    def _find_parent(self, index: int) -> int:
        """The index of the longest key that is a proper prefix of key ``index`` (or -1).

        Looked up by bisection on ever shorter prefixes (each step at least one character
        shorter), then remembered.
        """
        keys = self._keys
        key = keys[index]
        found = -1
        if key:
            target = key[:-1]
            found = bisect_right(keys, target, 0, index) - 1
            while found >= 0 and not target.startswith(keys[found]):
                target = target[: _common_prefix_length(keys[found], target)]
                found = bisect_right(keys, target, 0, found) - 1
        self._parent[index] = found
        return found


def _keep_better(table: dict[str, int], pattern: str, code: int) -> None:
    """Equal patterns: allow wins (SPEC §1), otherwise the first line in the file."""
    old = table.get(pattern)
    if old is None or code > 0 > old:
        table[pattern] = code


class FirstMatcher:
    """The rules of one record in file order; the first matching line decides (legacy, SPEC §2)."""

    __slots__ = ("_rules",)

    def __init__(
        self,
        patterns: Sequence[str],
        codes: Sequence[int],
        wildcards: bool = True,
        exact_at: Collection[int] = (),
    ):
        """As :class:`LongestMatcher`, with ``patterns`` in file order."""
        #: (first segment, the others or None for a literal, tail, $-anchored, code)
        rules: list[tuple[str, tuple[str, ...] | None, str, bool, int]] = []
        for position, (pattern, code) in enumerate(zip(patterns, codes, strict=True)):
            if position in exact_at:
                rules.append((pattern, None, "", True, code))
                continue
            anchored = wildcards and pattern.endswith("$")
            body = pattern[:-1] if anchored else pattern
            if wildcards and "*" in body:
                rules.append((*_segments(body, anchored), code))
            else:
                rules.append((body, None, "", anchored, code))
        self._rules = tuple(rules)

    def match(self, path: str) -> int:
        """The code of the first rule in file order that matches ``path``; ``0`` if none."""
        for first, inner, tail, anchored, code in self._rules:
            if not path.startswith(first):
                continue
            if inner is None:
                if not anchored or len(path) == len(first):
                    return code
            elif _match_rest(path, len(first), inner, tail, anchored):
                return code
        return 0
