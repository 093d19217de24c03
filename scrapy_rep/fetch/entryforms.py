"""The forms a cached entry is kept in besides whole, and the way back (SPEC §4
"Caching"; pure): plain (its rules as ``bytes``, for a kind with a plain form: robots.txt)
and compressed (its fields as a plain tuple, its rules parsed again from the body, or a
stand-in document by its index). Plain tuples are what CPython's collector stops tracking
(docs/decisions.md, 'Long-lived state out of the collector's sight');
:class:`scrapy_rep.fetch.cache.DocumentCache` chooses which form each entry is in.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic

from scrapy_rep.fetch.entry import CacheEntry, D, _Cold, _cold_fields_of, _Parsed


def plain_key(origin: Hashable) -> Hashable:
    """A key that is a tuple (an ``Origin``) as the plain tuple equal to it, which the
    collector stops tracking."""
    if isinstance(origin, tuple) and type(origin) is not tuple:
        return (*origin,)
    return origin


class EntryForms(Generic[D]):
    """How one kind's entries are kept besides whole, and made whole again: ``reparse``
    parses a body again (``reparse_cut``, when given, a body the download cut short);
    ``standins``: the documents that entries without a body share (kept by index);
    ``plain`` and ``unplain``: a document as ``bytes`` and back (both, or neither)."""

    __slots__ = ("_plain", "_reparse", "_reparse_cut", "_standins", "_unplain")

    def __init__(
        self,
        reparse: Callable[[bytes], D] | None,
        reparse_cut: Callable[[bytes], D] | None,
        standins: tuple[D, ...],
        plain: Callable[[D], bytes] | None,
        unplain: Callable[[bytes], D] | None,
    ) -> None:
        self._reparse = reparse
        self._reparse_cut = reparse_cut
        self._standins = standins
        self._plain = plain if unplain is not None else None
        self._unplain = unplain if plain is not None else None

    def parse_again(self, body: bytes, truncated: bool) -> D:
        """A compressed entry's body parsed again, as cut if the download cut it."""
        if truncated and self._reparse_cut is not None:
            return self._reparse_cut(body)
        assert self._reparse is not None  # only then is anything compressed
        return self._reparse(body)

    def kept_parsed(self, entry: CacheEntry[D]) -> _Parsed:
        """How the parsed tier keeps ``entry``: plain when its kind has a plain form (its
        rules' plain form, or a body-less entry's stand-in by index), else whole."""
        if self._plain is None:
            return entry
        rules: Any = entry.rules
        if not entry.body_zlib:
            return self.frozen(entry)
        if rules is None:
            return entry
        for standin in self._standins:
            if rules is standin:
                return entry
        return (self._plain(rules), *_cold_fields_of(entry))

    def frozen(self, entry: CacheEntry[D]) -> _Cold:
        """``entry`` compressed: with a body, its rules go (the body parses them again when
        needed); without one, its stand-in document is kept by index."""
        rules: Any = entry.rules
        if entry.body_zlib:
            rules = None
        else:
            rules = next((i for i, s in enumerate(self._standins) if s is rules), rules)
        return (rules, *_cold_fields_of(entry))

    def thawed(self, cold: _Cold, parsed: Any = None) -> CacheEntry[Any]:
        """The entry a compressed or plain one was, with ``parsed`` (its body parsed
        again) as its rules when given (else ``None`` when its body has them)."""
        rules = cold[0] if parsed is None else parsed
        if type(rules) is int:
            rules = self._standins[rules]
        elif type(rules) is bytes and self._unplain is not None:
            rules = self._unplain(rules)
        return CacheEntry(rules, *cold[1:])
