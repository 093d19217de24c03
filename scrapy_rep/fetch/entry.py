"""One origin's document as the cache holds it (SPEC §4 "Caching"): :class:`CacheEntry`,
its :class:`Freshness`, and its compressed form (a plain tuple of its fields, the rules
parsed again from the body). Values only, no Scrapy imports:
:class:`scrapy_rep.fetch.cache.DocumentCache` keeps them and re-exports these names."""

from __future__ import annotations

import enum
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
