"""Linear-time rule matching: the longest-match matcher (SPEC §1 "Rule matching", §2).

Pure: no Scrapy imports. Patterns and URL paths arrive normalised by
:mod:`rep_engine.urls.encoding`; the ``*`` segment primitives and :class:`FirstMatcher` are in
:mod:`rep_engine.urls.wildcards`. All of them are re-exported here, the import path the
rest of the package and its users have always used.

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

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from itertools import repeat
from typing import Final

# Re-exported (``X as X``): the public import path of the encoding and first-match names.
from rep_engine.urls.encoding import normalise_pattern as normalise_pattern
from rep_engine.urls.encoding import normalise_url_path as normalise_url_path
from rep_engine.urls.encoding import path_of as path_of
from rep_engine.urls.wildcards import (
    _RAW,
    _SPLIT,
    _UNKNOWN,
    _Group,
    _keep_better,
    _key_table,
    _parent_of,
    _Raw,
    _split_all,
    _try_wild,
)
from rep_engine.urls.wildcards import FirstMatcher as FirstMatcher
from rep_engine.urls.wildcards import wildcard_match as wildcard_match

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

    Building costs one sort and a few dictionaries (mostly in C). A group of up to
    :data:`_EAGER_PARENTS` keys finds every parent then, in one pass; in a larger one a
    parent is looked up the first time a walk needs it and remembered, so a group of
    20,000 rules answers its first question in milliseconds.
    """

    __slots__ = (
        "_chars",
        "_exact",
        "_keys",
        "_plain",
        "_raw",
        "_table",
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
        # The parser's line numbers come as 2-byte codes when they all fit.
        code_type = "h" if isinstance(codes, array) and codes.typecode == "h" else "i"
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
                self._set_up(literal, exact, {}, code_type)
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
        self._set_up(literal, exact, wild, code_type)

    def _set_up(
        self,
        literal: dict[str, int],
        exact: dict[str, int],
        wild: dict[str, list[_Raw]],
        code_type: str,
    ) -> None:
        # A tuple of strings: the collector stops tracking it (a list it walks each time).
        # Sorted from the file's order (dicts keep it), not a set's: the runs a file
        # lists its paths in make fewer comparisons (2.4% fewer instructions to build).
        keys = tuple(
            sorted([*literal, *(k for k in wild if k not in literal)]) if wild else sorted(literal)
        )
        self._keys = keys
        #: Each key's code, parent and wildcard patterns' place, side by side: one object
        #: to read (:func:`~rep_engine.urls.wildcards._key_table`).
        codes = [*map(literal.get, keys, repeat(0))]
        table = self._table = _key_table(keys, codes, code_type, len(keys) <= _EAGER_PARENTS)
        self._exact = exact or None
        #: Key index -> its wildcard patterns as compiled, until a path first reaches the
        #: key; then split into segments, in ``_wild`` in the order they were split (its
        #: place in the key's third number; ``None``: no wildcard pattern at all). Tuples of
        #: atoms only, which the garbage collector stops tracking.
        self._raw: dict[int, tuple[_Raw, ...]] | None = None
        self._wild: list[_Group] | None = None
        if wild:
            self._raw = {bisect_left(keys, first): tuple(raws) for first, raws in wild.items()}
            self._wild = []
            for index in self._raw:
                table[3 * index + 2] = _RAW
        self._chars: dict[int, tuple[frozenset[str], ...]] | None = None
        #: Only literal prefixes: every key is a pattern, the longest prefix decides.
        self._plain = not wild and not exact

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
        """The wildcard patterns of key ``index``, split on first use and remembered."""
        where = 3 * index + 2
        assert self._wild is not None
        if self._table[where] >= _SPLIT:
            return self._wild[self._table[where] - _SPLIT]
        assert self._raw is not None
        group = _split_all(self._raw.pop(index))
        self._table[where] = _SPLIT + len(self._wild)
        self._wild.append(group)
        return group

    def _find_parent(self, index: int) -> int:
        """The index of the longest key that is a proper prefix of key ``index`` (or -1),
        looked up (:func:`~rep_engine.urls.wildcards._parent_of`) and remembered."""
        found = self._table[3 * index + 1] = _parent_of(self._keys, index)
        return found
