"""``*``/``$`` patterns as literal segments, and the first-match matcher (SPEC §1, §2).

Pure: no Scrapy imports. A pattern is split at its ``*`` into literal segments, found
left to right (:func:`wildcard_match`). :class:`FirstMatcher` (legacy profile,
tdmrep.json) tries the rules in file order; :class:`rep_engine.urls.matching.LongestMatcher`
uses the same primitives.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Collection, Sequence
from typing import Final

_STARS = re.compile(r"\*\*+")


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
    return match_rest(path, len(first), segments[1:-1], segments[-1], anchored)


def match_rest(path: str, position: int, inner: Sequence[str], tail: str, anchored: bool) -> bool:
    """The segments after the first, from ``position`` on (see :func:`wildcard_match`)."""
    for segment in inner:
        found = path.find(segment, position)
        if found < 0:
            return False
        position = found + len(segment)
    if anchored:
        return len(path) - len(tail) >= position and path.endswith(tail)
    return path.find(tail, position) >= 0


def split_segments(body: str, anchored: bool) -> tuple[str, tuple[str, ...], str, bool]:
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
                rules.append((*split_segments(body, anchored), code))
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
            elif match_rest(path, len(first), inner, tail, anchored):
                return code
        return 0


# ------------------------------------------------ helpers of the longest-match matcher


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
#: (empty ones dropped), ``$``-anchored. The first segment is its key; the last is in
#: :data:`_Group`'s tails.
_Wild = tuple[int, int, tuple[str, ...], bool]
#: The wildcard patterns of one key, in the order they are tried: the longest priority,
#: the last segment of each, and each (:data:`_Wild`), side by side. A pattern whose
#: last segment is not in the path (the usual case) is rejected reading only its tail.
_Group = tuple[int, tuple[str, ...], tuple[_Wild, ...]]
#: A pattern with ``*`` as compiled, not yet split: priority, code, pattern.
_Raw = tuple[int, int, str]


def _rank(raw: _Raw) -> tuple[int, bool]:
    """Longest first; at equal length allow first (SPEC §1); the sort keeps file order."""
    return -raw[0], raw[1] < 0


def _split_all(raws: Sequence[_Raw]) -> _Group:
    """The wildcard patterns of one key, split into segments, in the order they are tried."""
    tails, entries = [], []
    for priority, code, pattern in sorted(raws, key=_rank):
        anchored = pattern.endswith("$")
        _, inner, tail, anchored = split_segments(pattern[:-1] if anchored else pattern, anchored)
        tails.append(tail)
        entries.append((priority, code, inner, anchored))
    return entries[0][0], tuple(tails), tuple(entries)


def _try_wild(
    path: str,
    group: _Group,
    first_length: int,
    best_priority: int,
    best: int,
    first: int,
    present: frozenset[str] | None = None,
    charsets: Sequence[frozenset[str]] = (),
) -> tuple[int, int]:
    """The best of (best so far, the wildcard patterns of ``group`` from its ``first`` on),
    for a path that starts with their first segment (``first_length`` characters long).

    ``present``: the characters of a long path, and ``charsets`` those of each pattern (a
    pattern is tried only when the path holds all of them); ``None`` for a short path.
    """
    _, tails, entries = group
    for number in range(first, len(entries)):
        tail = tails[number]
        if present is not None:  # a long path: its characters first, no scan of it
            if not charsets[number] <= present:
                continue
        elif tail not in path:  # every pattern needs its last segment: the usual reject
            continue  # (before the pattern is read: one that cannot win is let by too)
        priority, code, inner, anchored = entries[number]
        if priority < best_priority:
            break
        if priority == best_priority and (best > 0 or code < 0):
            continue
        if inner:
            matched = match_rest(path, first_length, inner, tail, anchored)
        elif anchored:
            matched = len(path) - len(tail) >= first_length and path.endswith(tail)
        else:
            matched = path.find(tail, first_length) >= 0
        if matched:
            return priority, code
    return best_priority, best


def _keep_better(table: dict[str, int], pattern: str, code: int) -> None:
    """Equal patterns: allow wins (SPEC §1), otherwise the first line in the file."""
    old = table.get(pattern)
    if old is None or code > 0 > old:
        table[pattern] = code


def _parents(keys: Sequence[str]) -> list[int]:
    """The parent of each of the sorted, distinct ``keys`` (the longest other key that is
    a prefix of it; -1: none), all at once.

    A key's parent is the key just before it or on that one's chain of parents (every key
    sorted between a prefix and the key starts with the prefix, so the key before starts
    with the parent too), so one pass up those chains finds them all."""
    parents = [-1] * len(keys)
    for index in range(1, len(keys)):
        key = keys[index]
        up = index - 1
        while up >= 0 and not key.startswith(keys[up]):
            up = parents[up]
        parents[index] = up
    return parents


#: A parent index not computed yet (``LongestMatcher._find_parent``).
_UNKNOWN: Final = -2
#: The third number of a key in :func:`_key_table`: its wildcard patterns as compiled,
#: or split into segments (``_SPLIT`` + their place among the split ones); 0: it has none.
_RAW: Final = 1
_SPLIT: Final = 2


def _key_table(keys: Sequence[str], codes: list[int], code_type: str, eager: bool) -> array[int]:
    """Three numbers a key, side by side (one object, one buffer: a match reads them
    together, and when the matchers of thousands of origins are visited in turn each
    object read is likely a cache miss): at ``3 * i`` ``codes[i]``, the code of the
    literal pattern equal to key ``i`` (0: none); at ``3 * i + 1`` its parent (found now
    when ``eager``, else :data:`_UNKNOWN`); at ``3 * i + 2`` 0 (set to :data:`_RAW` for a
    key with wildcard patterns). Three more at the end, ``0, -1, 0``, read as index -1 (no
    key is a prefix of the path). 2 bytes a number where they fit (``code_type`` "h": the
    parser's line numbers; fewer keys than that, less :data:`_SPLIT`)."""
    width = "h" if code_type == "h" and len(keys) <= 0x8000 - _SPLIT else "i"
    table = array(width, [0, -1, 0]) * (len(keys) + 1)
    table[0::3] = array(width, [*codes, 0])
    parents = _parents(keys) if eager else [_UNKNOWN] * len(keys)
    table[1::3] = array(width, [*parents, -1])
    return table


def _parent_of(keys: Sequence[str], index: int) -> int:
    """The index of the longest of the sorted ``keys`` that is a proper prefix of key
    ``index`` (or -1): by bisection on ever shorter prefixes (each step at least one
    character shorter)."""
    key = keys[index]
    found = -1
    if key:
        target = key[:-1]
        found = bisect_right(keys, target, 0, index) - 1
        while found >= 0 and not target.startswith(keys[found]):
            target = target[: _common_prefix_length(keys[found], target)]
            found = bisect_right(keys, target, 0, found) - 1
    return found
