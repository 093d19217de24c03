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
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PERCENT_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
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
    def replace(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _PERCENT_ESCAPE.sub(replace, text)


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


#: A pattern with ``*``: priority, rule, first segment and its length, the segments
#: between the first and the last (empty ones dropped), last segment, ``$``-anchored.
_Wild = tuple[int, Rule, str, int, tuple[str, ...], str, bool]


class LongestMatcher:
    """The rules of one group, compiled for longest-match lookups.

    Three kinds of pattern, each with the lookup that suits it:
    - literal prefixes (``/private``): a sorted list; the longest entry that is a prefix of
      the path is found with one bisection and a walk up precomputed "parent" links;
    - exact patterns (``/page$``): a dict;
    - patterns with ``*``: checked in order of decreasing length, stopping as soon as no
      remaining pattern can beat the best match so far.
    """

    __slots__ = (
        "_exact",
        "_prefix_best",
        "_prefix_keys",
        "_prefix_parent",
        "_wild",
        "_wild_chars",
    )

    def __init__(self, compiled: Iterable[tuple[str, Rule]], wildcards: bool) -> None:
        literal: dict[str, tuple[int, Rule]] = {}
        exact: dict[str, tuple[int, Rule]] = {}
        wild: list[_Wild] = []
        for pattern, rule in compiled:
            priority = len(pattern)
            body, anchored = pattern, False
            if wildcards and body.endswith("$"):
                body, anchored = body[:-1], True
            segments = tuple(body.split("*")) if wildcards else (body,)
            if len(segments) == 1:
                table = exact if anchored else literal
                old = table.get(body)
                if old is None or _better(priority, rule, *old):
                    table[body] = (priority, rule)
            else:
                inner = tuple(s for s in segments[1:-1] if s)
                first, tail = segments[0], segments[-1]
                wild.append((priority, rule, first, len(first), inner, tail, anchored))
        wild.sort(key=lambda item: (-item[0], not item[1].allow, item[1].line))
        self._wild = tuple(wild)
        self._wild_chars: tuple[frozenset[str], ...] | None = None
        self._exact = exact
        keys = sorted(literal)
        parent: list[int] = []
        best: list[tuple[int, Rule]] = []
        for index, key in enumerate(keys):
            # The parent of a key is the longest other key that is a prefix of it: walk the
            # chain of the previous key (the same argument as in ``match`` below).
            candidate = index - 1
            while candidate >= 0 and not key.startswith(keys[candidate]):
                candidate = parent[candidate]
            parent.append(candidate)
            own = literal[key]
            if candidate >= 0 and not _better(own[0], own[1], *best[candidate]):
                own = best[candidate]
            best.append(own)
        self._prefix_keys = keys
        self._prefix_parent = parent
        self._prefix_best = best

    def match(self, path: str) -> Rule | None:
        """The deciding rule for ``path``, or ``None`` when no rule matches."""
        best_priority, best = -1, None
        keys = self._prefix_keys
        if keys:
            # Every key that is a prefix of ``path`` is a prefix of the greatest key <= path,
            # so they all lie on that key's parent chain.
            index = bisect_right(keys, path) - 1
            parent = self._prefix_parent
            while index >= 0 and not path.startswith(keys[index]):
                index = parent[index]
            if index >= 0:
                best_priority, best = self._prefix_best[index]
        if self._exact:
            hit = self._exact.get(path)
            if hit is not None and _better(hit[0], hit[1], best_priority, best):
                best_priority, best = hit
        if len(path) >= _LONG_PATH and self._wild:
            return self._match_long(path, best_priority, best)
        for priority, rule, first, first_length, inner, tail, anchored in self._wild:
            if priority < best_priority:
                break
            if best is not None and priority == best_priority and (best.allow or not rule.allow):
                continue
            if not path.startswith(first):
                continue
            if inner:
                if wildcard_match(path, (first, *inner, tail), anchored):
                    return rule
            elif anchored:
                if path.endswith(tail) and len(path) - len(tail) >= first_length:
                    return rule
            elif path.find(tail, first_length) >= 0:
                return rule
        return best

    def _match_long(self, path: str, best_priority: int, best: Rule | None) -> Rule | None:
        """:meth:`match` for long paths: skip patterns with a character ``path`` lacks."""
        if self._wild_chars is None:
            self._wild_chars = tuple(
                frozenset(first + "".join(inner) + tail)
                for _, _, first, _, inner, tail, _ in self._wild
            )
        present = frozenset(path)
        for (priority, rule, first, _, inner, tail, anchored), chars in zip(
            self._wild, self._wild_chars, strict=True
        ):
            if priority < best_priority:
                break
            if best is not None and priority == best_priority and (best.allow or not rule.allow):
                continue
            if chars <= present and wildcard_match(path, (first, *inner, tail), anchored):
                return rule
        return best


class FirstMatcher:
    """The rules of one record in file order; the first matching line decides (legacy, SPEC §2)."""

    __slots__ = ("_rules",)

    def __init__(self, compiled: Iterable[tuple[str, Rule]], wildcards: bool) -> None:
        rules = []
        for pattern, rule in compiled:
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
