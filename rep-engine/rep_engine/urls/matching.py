"""Linear-time rule matching: ``*``/``$`` patterns as literal segments, the first-match
and the longest-match matchers (SPEC §1 "Rule matching", §2).

Pure: no Scrapy imports. Patterns and URL paths arrive normalised by
:mod:`rep_engine.urls.encoding`. A pattern is split at its ``*`` into literal segments,
found left to right (:func:`wildcard_match`). :class:`FirstMatcher` (legacy profile,
tdmrep.json) tries the rules in file order; :class:`LongestMatcher` uses the same
primitives.

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
from collections.abc import Collection, Iterable, Sequence
from itertools import compress, repeat
from operator import contains
from struct import pack
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


def _split_all(patterns: Sequence[str], codes: Sequence[int]) -> _Group:
    """The wildcard patterns of one key (each holds a ``*``) split into segments as
    :func:`split_segments` does (the first one, the key, left out), in the order they are
    tried: longest first, at equal length allow first (SPEC §1), then the first line (the
    smaller ``abs(code)``: the codes keep the file's order)."""
    ranked = []
    for pattern, code in zip(patterns, codes, strict=True):
        anchored = pattern[-1] == "$"
        _, inner, tail, anchored = split_segments(pattern[:-1] if anchored else pattern, anchored)
        priority = len(pattern)
        # (2 * priority + allow, then the first line: -abs(code)), the greatest first
        rank = 2 * priority + 1 if code > 0 else 2 * priority
        ranked.append((rank, -code if code > 0 else code, tail, (priority, code, inner, anchored)))
    if len(ranked) > 1:
        ranked.sort(reverse=True)  # (equal up to the tail: the same line, the same answer)
    _, _, tails, entries = zip(*ranked, strict=True)
    return entries[0][0], tails, entries


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


def _distinct(patterns: Sequence[str], codes: Sequence[int]) -> dict[str, int]:
    """Each distinct pattern of ``patterns`` and its code (``codes``, in the same order): of
    equal patterns, as :func:`_keep_better` keeps them."""
    rules: dict[str, int] = {}
    for pattern, code in zip(patterns, codes, strict=True):
        if rules.setdefault(pattern, code) < 0 < code:
            rules[pattern] = code
    return rules


def _take_exact(rules: dict[str, int], joined: str, exact: dict[str, int]) -> None:
    """Each pattern of ``rules`` that ends with ``$`` moved to ``exact`` without it: a
    line of the text ``joined`` before a ``$`` that ends one (those with a ``*`` are gone
    from ``rules``, each after the first is a double)."""
    for line in (joined + "\n").split("$\n")[:-1]:
        body = line.rpartition("\n")[2]
        if code := rules.pop(body + "$", 0):  # (codes are not 0)
            _keep_better(exact, body, code)


def _parents(keys: Sequence[str], ascii: bool) -> list[int] | None:
    """The parent of each of the sorted, distinct ``keys`` (the longest other key that is
    a prefix of it; -1: none), all at once; ``None`` when no key has one.

    The keys that start with a key lie right after it (every key sorted between a prefix
    and a key starting with it starts with the prefix too), so a key that is a prefix of
    any other is one of the key right after it: which keys start with the key before them
    is found first, in C. When none does (most files), no key has a parent.

    ``ascii``: every key is ASCII. Then the keys that start with a key end before the
    first one that sorts after it followed by a character above them all (``"\x80"``),
    which a bisection finds; each key that is a prefix of another, in order, names itself
    the parent of those keys (in C), and those inside a longer prefix are named again
    after it, by the longer one. Otherwise one pass up the chains of parents: a key's
    parent is the key just before it or on that one's chain."""
    # (a key that holds the one before it may start with it: "in" costs less to ask)
    follows = [*map(contains, keys[1:], keys)]
    if True not in follows:
        return None
    parents = [-1] * len(keys)
    if ascii:  # (a key that does not start with the one before it sorts after the bound)
        for index in compress(range(len(follows)), follows):
            end = bisect_left(keys, keys[index] + "\x80", index + 1)
            parents[index + 1 : end] = repeat(index, end - index - 1)
        return parents
    follows = [*map(str.startswith, keys[1:], keys)]
    for index, prefixed in enumerate(follows, 1):
        if prefixed:
            parents[index] = index - 1
        elif (up := parents[index - 1]) >= 0:
            key = keys[index]
            while up >= 0 and not key.startswith(keys[up]):
                up = parents[up]
            parents[index] = up
    return parents


#: A parent index not computed yet (``LongestMatcher._find_parent``).
_UNKNOWN: Final = -2
#: The third number of a key in :meth:`LongestMatcher._set_up`'s table: its wildcard
#: patterns not split yet, or split into segments (``_SPLIT`` + their place among the
#: split ones); 0: it has none.
_RAW: Final = 1
_SPLIT: Final = 2


def _numbers(width: str, numbers: Iterable[int]) -> array[int]:
    """``numbers`` as an ``array`` of type ``width``, packed by :func:`struct.pack` (an
    ``array`` made from ints parses each with ``PyArg_Parse``: several times the cost)."""
    values = (*numbers,)
    return array(width, pack(f"{len(values)}{width}", *values))


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


#: Paths at least this long get a character-set prefilter before wildcard patterns are
#: tried (keeps one call on a 100 KB URL against thousands of patterns in milliseconds).
_LONG_PATH: Final = 4096
#: Groups with at most this many keys get every parent when built (see LongestMatcher).
_EAGER_PARENTS: Final = 512


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

    Building costs a sort, a dictionary and a few passes over the patterns (in C, or a
    loop with an operator a pattern). A group of up to :data:`_EAGER_PARENTS` keys finds
    every parent then, in one pass; in a larger one a parent is looked up the first time
    a walk needs it and remembered, so a group of 20,000 rules answers its first question
    in milliseconds. The wildcard patterns are kept sorted as written (those of a key lie
    side by side) and split into segments when a path first reaches their key.
    """

    __slots__ = (
        "_chars",
        "_exact",
        "_keys",
        "_plain",
        "_stars",
        "_table",
        "_wild",
    )

    def __init__(
        self,
        patterns: Sequence[str],
        codes: Sequence[int],
        wildcards: bool = True,
        exact_at: Collection[int] = (),
        joined: str | None = None,
    ):
        """``patterns``: normalised patterns; ``codes``: the rule code of each (non-zero),
        in file order: their absolute values never decrease (the parser's line numbers,
        or positions), which orders the wildcard patterns of a key as the file does.

        ``wildcards``: ``*`` and a final ``$`` are special (SPEC §2); ``exact_at``: the
        positions of patterns that match only the path equal to them, whatever the mode;
        ``joined``: ``"\\n".join(patterns)``, when the caller has it (the patterns are
        lines of a file: none holds a line break).
        """
        # The parser's line numbers come as 2-byte codes when they all fit.
        code_type = "h" if isinstance(codes, array) and codes.typecode == "h" else "i"
        exact: dict[str, int] = {}
        if exact_at:
            for position in exact_at:
                _keep_better(exact, patterns[position], codes[position])
            rest = [position for position in range(len(patterns)) if position not in exact_at]
            patterns = [patterns[position] for position in rest]
            codes = [codes[position] for position in rest]
            joined = None
        if joined is None:
            joined = "\n".join(patterns)
        #: Each distinct pattern and its code (most files: no pattern twice, one call).
        rules = dict(zip(patterns, codes, strict=True))
        if len(rules) < len(patterns):
            rules = _distinct(patterns, codes)
        # (loops with an operator a pattern cost less than a call of one in C a pattern)
        starred: list[str] = []
        star_codes: list[int] = []
        heads: dict[str, None] = {}
        if wildcards and "*" in joined:
            # split into segments when a path first reaches their key (the first one)
            starred = sorted([pattern for pattern in rules if "*" in pattern])
            star_codes = [*map(rules.pop, starred)]
            heads = {pattern.partition("*")[0]: None for pattern in starred}
        if wildcards and "$" in joined:
            _take_exact(rules, joined, exact)
        for head in heads:
            if head not in rules:
                rules[head] = 0
        self._set_up(rules, exact, starred, star_codes, heads, code_type, joined.isascii())

    def _set_up(
        self,
        rules: dict[str, int],
        exact: dict[str, int],
        starred: list[str],
        star_codes: list[int],
        heads: dict[str, None],
        code_type: str,
        ascii: bool,
    ) -> None:
        # A tuple of strings: the collector stops tracking it (a list it walks each time).
        # Sorted from the file's order (dicts keep it), not a set's: the runs a file
        # lists its paths in make fewer comparisons (2.4% fewer instructions to build).
        keys = self._keys = tuple(sorted(rules))
        count = len(keys)
        #: Three numbers a key, side by side (one object, one buffer: a match reads them
        #: together, and when the matchers of thousands of origins are visited in turn
        #: each object read is likely a cache miss): at ``3 * i`` the code of the literal
        #: pattern equal to key ``i`` (0: none); at ``3 * i + 1`` its parent (found now
        #: when there are at most :data:`_EAGER_PARENTS` keys, else :data:`_UNKNOWN`); at
        #: ``3 * i + 2`` 0, or :data:`_RAW` for a key with wildcard patterns. Three more
        #: at the end, ``0, -1, 0``, read as index -1 (no key is a prefix of the path);
        #: after them the codes of the wildcard patterns, as ``_stars`` orders them. 2
        #: bytes a number where they fit (the parser's line numbers; fewer keys than
        #: that, less :data:`_SPLIT`).
        width = "h" if code_type == "h" and count <= 0x8000 - _SPLIT else "i"
        eager = count <= _EAGER_PARENTS
        table = self._table = array(width, (0, -1 if eager else _UNKNOWN, 0)) * (count + 1)
        table[-2] = -1
        table[0 : 3 * count : 3] = _numbers(width, map(rules.__getitem__, keys))
        if eager and count > 1:
            parents = _parents(keys, ascii)
            if parents is not None:
                table[1 : 3 * count : 3] = _numbers(width, parents)
        self._exact = exact or None
        #: The wildcard patterns, sorted (those of a key side by side; ``None``: none),
        #: and the groups of them split so far (a key's third number, less _SPLIT, is
        #: the place of its own): strings and tuples of atoms, which the garbage
        #: collector stops tracking.
        self._stars: tuple[str, ...] | None = None
        self._wild: list[_Group] | None = None
        if starred:
            self._set_up_stars(starred, star_codes, heads, width)
        self._chars: dict[int, tuple[frozenset[str], ...]] | None = None
        #: Only literal prefixes: every key is a pattern, the longest prefix decides.
        self._plain = not starred and not exact

    def _set_up_stars(
        self, starred: list[str], star_codes: list[int], heads: dict[str, None], width: str
    ) -> None:
        """The wildcard patterns (``starred``, sorted; ``heads``: their first segments):
        their codes after the keys' numbers, and each key that starts some marked
        :data:`_RAW` (split when a path first reaches it)."""
        keys, table = self._keys, self._table
        count = len(keys)
        self._stars = tuple(starred)
        self._wild = []
        table.extend(_numbers(width, star_codes))
        # a bisection a first segment, or where there are many, a lookup a key
        found = (
            map(bisect_left, repeat(keys), heads)
            if 8 * len(heads) < count
            else compress(range(count), map(heads.__contains__, keys))
        )
        for index in found:
            table[3 * index + 2] = _RAW

    def match(self, path: str) -> int:
        """The code of the deciding rule for ``path``; ``0`` when no rule matches."""
        keys = self._keys
        index = bisect_right(keys, path) - 1
        if index < 0:  # no key sorts before the path, so none is a prefix of it
            return self._exact[path] if self._exact is not None and path in self._exact else 0
        table = self._table
        while index >= 0 and not path.startswith(keys[index]):
            up = table[3 * index + 1]
            index = up if up != _UNKNOWN else self._find_parent(index)
        if self._plain:
            return table[3 * index]  # index -1: the final 0
        exact, wild = self._exact, self._wild
        best = exact[path] if exact is not None and path in exact else 0  # "in", [] (no call)
        best_priority = len(path) + 1 if best else -1
        if wild is not None and len(path) >= _LONG_PATH:
            return self._match_long(path, index, best_priority, best)
        while index >= 0:
            at = 3 * index
            code = table[at]
            if code:
                priority = len(keys[index])
                # Longest wins, allow wins ties (SPEC §1); keys further up are shorter.
                if priority > best_priority or (priority == best_priority and code > 0 > best):
                    best_priority, best = priority, code
                if wild is None:
                    break
            place = table[at + 2]
            if place:  # the wildcard patterns of this key, longest first
                split = wild if place >= _SPLIT else None  # (None: split them now)
                group = split[place - _SPLIT] if split is not None else self._group(index)
                if group[0] >= best_priority:  # the longest can still win (or tie)
                    # Every pattern needs its last segment in the path: the usual reject,
                    # one test a pattern, inline; the first pattern it lets by goes on.
                    for tail in group[1]:
                        if tail in path:  # from it on (the first equal tail is this one)
                            best_priority, best = _try_wild(
                                path, group, len(keys[index]), best_priority, best,
                                group[1].index(tail),
                            )  # fmt: skip
                            break
            up = table[at + 1]
            index = up if up != _UNKNOWN else self._find_parent(index)
        return best

    def _match_long(self, path: str, index: int, best_priority: int, best: int) -> int:
        """:meth:`match` for a path of :data:`_LONG_PATH` characters or more: a wildcard
        pattern is tried only when the path holds every character of it."""
        keys, table = self._keys, self._table
        present = frozenset(path)
        while index >= 0:
            code = table[3 * index]
            if code:
                priority = len(keys[index])
                if priority > best_priority or (priority == best_priority and code > 0 > best):
                    best_priority, best = priority, code
            if table[3 * index + 2]:
                best_priority, best = _try_wild(
                    path, self._group(index), len(keys[index]), best_priority, best, 0,
                    present, self._characters(index),
                )  # fmt: skip
            up = table[3 * index + 1]
            index = up if up != _UNKNOWN else self._find_parent(index)
        return best

    def _characters(self, index: int) -> tuple[frozenset[str], ...]:
        """The characters of each wildcard pattern of key ``index``, collected on first use
        (only :meth:`_match_long`'s paths need them)."""
        if self._chars is None:
            self._chars = {}
        charsets = self._chars.get(index)
        if charsets is None:
            first = self._keys[index]
            _, tails, entries = self._group(index)
            charsets = tuple(
                frozenset(first + "".join(entry[2]) + tail)
                for entry, tail in zip(entries, tails, strict=True)
            )
            self._chars[index] = charsets
        return charsets

    def _group(self, index: int) -> _Group:
        """The wildcard patterns of key ``index``, split on first use and remembered:
        those that start with the key and a ``*`` (side by side in ``_stars``)."""
        table, where = self._table, 3 * index + 2
        assert self._wild is not None and self._stars is not None
        if table[where] >= _SPLIT:
            return self._wild[table[where] - _SPLIT]
        key, stars = self._keys[index], self._stars
        low = bisect_left(stars, key + "*")
        high = bisect_left(stars, key + "+", low)  # ("+" follows "*")
        codes = 3 * len(self._keys) + 3  # where the codes of the wildcard patterns start
        group = _split_all(stars[low:high], table[codes + low : codes + high])
        table[where] = _SPLIT + len(self._wild)
        self._wild.append(group)
        return group

    def _find_parent(self, index: int) -> int:
        """The index of the longest key that is a proper prefix of key ``index`` (or -1),
        looked up (:func:`_parent_of`) and remembered."""
        found = self._table[3 * index + 1] = _parent_of(self._keys, index)
        return found


class ScanningMatcher:
    """The rules of one group set matched by trying each in turn (SPEC §1: the longest
    pattern wins, allow wins a tie, then a ``…$`` pattern without ``*``, then the longer
    literal start, then the first in the file: the code :class:`LongestMatcher` gives),
    until it has been asked :data:`SCANS` times: then it builds that matcher and asks it.
    Building one costs about as much as parsing the file; a group set asked once or
    twice (an origin with two items in a dataset, a crawl's origin of one page) never
    pays it back. For patterns without ``exact_at`` positions (:func:`compile_matcher`'s
    ``/index.html`` directories go straight to :class:`LongestMatcher`)."""

    __slots__ = ("_asked", "_codes", "_compiled", "_joined", "_patterns", "_wildcards")

    def __init__(
        self, patterns: Sequence[str], codes: Sequence[int], wildcards: bool, joined: str | None
    ) -> None:
        self._patterns, self._codes, self._wildcards = patterns, codes, wildcards
        self._joined = joined
        self._asked = 0
        self._compiled: LongestMatcher | None = None

    def match(self, path: str) -> int:
        """The code of the deciding rule for ``path``; ``0`` when no rule matches."""
        compiled = self._compiled
        if compiled is not None:
            return compiled.match(path)
        self._asked += 1
        if self._asked > SCANS:
            compiled = self._compiled = LongestMatcher(
                self._patterns, self._codes, self._wildcards, (), self._joined
            )  # fmt: skip
            return compiled.match(path)
        best: tuple[int, bool, bool, int, int] | None = None
        found = 0
        wildcards = self._wildcards
        for position, pattern in enumerate(self._patterns):
            if wildcards and ("*" in pattern or pattern[-1:] == "$"):
                anchored = pattern[-1:] == "$"
                body = pattern[:-1] if anchored else pattern
                star = body.find("*")
                if not wildcard_match(path, body.split("*"), anchored):
                    continue
                rank = (len(pattern), self._codes[position] > 0, anchored and star < 0,
                        len(body) if star < 0 else star, -position)  # fmt: skip
            elif path.startswith(pattern):
                rank = (len(pattern), self._codes[position] > 0, False, len(pattern), -position)
            else:
                continue
            if best is None or rank > best:
                best, found = rank, self._codes[position]
        return found


#: The paths a :class:`ScanningMatcher` matches by trying each rule before it builds a
#: :class:`LongestMatcher`.
SCANS: Final = 4
#: The most rules a group set may have to be scanned first: past it, a scan costs more
#: than a build.
SCANNED: Final = 64
