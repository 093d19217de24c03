"""One origin's document as the cache holds it (SPEC §4 "Caching"): :class:`CacheEntry`,
its :class:`Freshness`, and the forms it is kept in besides whole, plain and compressed,
and the way back (:class:`EntryForms`; why: :mod:`rep_engine.fetch.cache`). Pure:
:class:`rep_engine.fetch.cache.DocumentCache` chooses which form each entry is in, and
re-exports these names."""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, Final, Generic, TypeVar

#: The parsed document an entry holds (a ``RobotsTxt``, a tdmrep.json reading…).
D = TypeVar("D")
#: Bytes a compressed entry costs besides its body (the entry, its key, the dict slot).
COMPRESSED_OVERHEAD: Final = 400


class Freshness(enum.Enum):
    FRESH = "fresh"
    #: Past its lifetime but within the stale limit: usable while a refresh fails.
    STALE = "stale"
    #: Past the stale limit: unusable.
    EXPIRED = "expired"


@dataclass(frozen=True)
class CacheEntry(Generic[D]):
    """One origin's document as fetched."""

    rules: D
    #: Human-readable outcome of the download ("200 (1,234 bytes)", "404: …").
    outcome: str
    fetched_at: float
    fresh_until: float
    stale_until: float
    #: The HTTP status of the last response (``None``: network error or gave up).
    status: int | None = None
    #: The body as downloaded (first 500 KiB), zlib-compressed; ``b""`` when there was
    #: none (404, unreachable). Kept to share the entry, to parse it again after it was
    #: compressed, and to answer a spider's own request for robots.txt.
    body_zlib: bytes = b""
    #: ``True`` for the verdict of an origin given up on after its document stayed
    #: unreachable (SPEC §4): requests it refuses are "unreachable", not "forbidden".
    unreachable: bool = False
    #: Estimated bytes this entry keeps in memory while parsed (``REP_CACHE_MAX_BYTES``).
    size: int = 0
    #: SHA-256 (hex) of the body the rules were parsed from, computed once when it was
    #: fetched or loaded (the audit trail's snapshot name); ``""``: no body.
    sha256: str = ""
    #: Where the document was found after redirects (``""``: not known, e.g. shared).
    final_url: str = ""
    #: The download cut the body short (at 500 KiB, or another component stopped it):
    #: parsed again as cut (``DocumentKind.read``).
    truncated: bool = False

    def freshness(self, now: float) -> Freshness:
        if now < self.fresh_until:
            return Freshness.FRESH
        if now < self.stale_until:
            return Freshness.STALE
        return Freshness.EXPIRED

    def usable(self, now: float) -> bool:
        """Fresh or stale: its rules may decide."""
        return now < self.stale_until


#: A compressed entry as the cache keeps it: the entry's fields in order, its rules first
#: as ``None`` (parsed again from the body), the index of a stand-in document (an
#: ``int``), or, for an entry without a body whose document is none of them, the
#: document itself (the one case the collector keeps tracking).
_Cold = tuple[Any, ...]
#: The fields a :data:`_Cold` keeps after the rules (:class:`CacheEntry`'s first), in order.
_COLD_FIELDS: Final = tuple(f.name for f in fields(CacheEntry) if f.name != "rules")
#: Those fields of an entry, read in one call.
_cold_fields_of: Final = attrgetter(*_COLD_FIELDS)
#: The index of ``body_zlib``, ``truncated`` and ``size`` in a :data:`_Cold`.
_BODY: Final = 1 + _COLD_FIELDS.index("body_zlib")
_TRUNCATED: Final = 1 + _COLD_FIELDS.index("truncated")
_SIZE: Final = 1 + _COLD_FIELDS.index("size")
#: A parsed entry as the cache keeps it: whole, or (a kind with a plain form) as a
#: :data:`_Cold` whose first field is the plain form of its rules (``bytes``).
_Parsed = CacheEntry[Any] | _Cold


def _parsed_size(kept: _Parsed) -> int:
    """What a parsed entry costs (:attr:`CacheEntry.size`), kept whole or plain."""
    return kept[_SIZE] if type(kept) is tuple else kept.size  # type: ignore[union-attr]


def _cold_size(cold: _Cold) -> int:
    """What a compressed entry costs: its body and :data:`COMPRESSED_OVERHEAD`."""
    return len(cold[_BODY]) + COMPRESSED_OVERHEAD


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
