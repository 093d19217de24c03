"""The per-origin document cache (SPEC §4 "Caching"): pure, no Scrapy imports.

- An entry is fresh for its lifetime (24 h by default, ``Cache-Control`` within bounds).
- When a refresh fails (5xx, 429, network error), the old entry stays in use until its
  stale limit (30 days by default).
- At most ``max_origins`` entries are kept parsed (least recently used first out).
  Beyond that an entry is kept *compressed* (its zlib body and outcome, no parsed rules)
  and parsed again when its origin is next asked about: a cache smaller than the set of
  origins a crawl is busy with costs CPU, never another robots.txt download.
- All entries together, parsed (estimated) and compressed, stay within ``max_bytes``.
  Parsed entries take at most half of it: beyond that the least recently used are
  compressed (so one large robots.txt cannot flush the compressed tier, which would cost
  a download per origin dropped). Beyond ``max_bytes`` the least recently used
  compressed entries are dropped, then parsed ones. The most recently stored entry
  always stays, however large: a crawl must decide.
- A compressed entry is kept as a plain tuple of strings, bytes and numbers, which
  CPython's garbage collector stops tracking: a broad crawl's compressed tier adds nothing
  to what each full collection walks (docs/decisions.md, 'Long-lived state out of the
  collector's sight'). An entry without a body keeps its stand-in document (``standins``:
  a kind's absent and unreachable documents) by its index.
"""

from __future__ import annotations

import enum
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, fields, replace
from operator import attrgetter
from typing import Any, Final, Generic, TypeVar

from scrapy_rep.robotstxt import MAX_BODY_BYTES

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

    @property
    def compressed_size(self) -> int:
        return len(self.body_zlib) + COMPRESSED_OVERHEAD


#: A compressed entry as the cache keeps it: the entry's fields in order, its rules first
#: as ``None`` (parsed again from the body), the index of a stand-in document (an
#: ``int``), or, for an entry without a body whose document is none of them, the
#: document itself (the one case the collector keeps tracking).
_Cold = tuple[Any, ...]
#: The fields a :data:`_Cold` keeps after the rules (:class:`CacheEntry`'s first), in order.
_COLD_FIELDS: Final = tuple(f.name for f in fields(CacheEntry) if f.name != "rules")
#: Those fields of an entry, read in one call.
_cold_fields_of: Final = attrgetter(*_COLD_FIELDS)
#: The index of ``body_zlib`` and of ``truncated`` in a :data:`_Cold`.
_BODY: Final = 1 + _COLD_FIELDS.index("body_zlib")
_TRUNCATED: Final = 1 + _COLD_FIELDS.index("truncated")


def _cold_size(cold: _Cold) -> int:
    """What a compressed entry costs (:attr:`CacheEntry.compressed_size`)."""
    return len(cold[_BODY]) + COMPRESSED_OVERHEAD


class DocumentCache(Generic[D]):
    """An LRU map origin -> :class:`CacheEntry`: parsed up to ``max_origins``, compressed
    beyond, all within ``max_bytes``."""

    def __init__(
        self,
        max_origins: int,
        max_bytes: int | None = None,
        reparse: Callable[[bytes], D] | None = None,
        reparse_cut: Callable[[bytes], D] | None = None,
        standins: tuple[D, ...] = (),
    ) -> None:
        """``reparse`` parses a body again (``reparse_cut``, when given, a body the
        download cut short); without it, entries are never compressed and the least
        recently used parsed ones are dropped instead. ``standins``: the documents that
        entries without a body share (compressed by index)."""
        if max_origins < 1:
            raise ValueError(f"max_origins must be at least 1, got {max_origins}")
        self.max_origins = max_origins
        self.max_bytes = max_bytes
        self._reparse = reparse
        self._reparse_cut = reparse_cut
        self._standins = standins
        self._parsed: OrderedDict[Hashable, CacheEntry[D]] = OrderedDict()
        #: Estimated bytes of the parsed entries.
        self._parsed_bytes = 0
        self._compressed: OrderedDict[Hashable, _Cold] = OrderedDict()
        #: Estimated bytes of all entries, parsed and compressed.
        self.bytes = 0
        #: Entries dropped altogether because the cache was full (for stats).
        self.evictions = 0
        #: Compressed entries parsed again (for stats).
        self.reparsed = 0

    def __len__(self) -> int:
        return len(self._parsed) + len(self._compressed)

    def __contains__(self, origin: Hashable) -> bool:
        return origin in self._parsed or origin in self._compressed

    @property
    def parsed(self) -> int:
        return len(self._parsed)

    def get(self, origin: Hashable) -> CacheEntry[D] | None:
        """The entry of ``origin`` (any freshness), marking it recently used."""
        entry = self._parsed.get(origin)
        if entry is not None:
            self._parsed.move_to_end(origin)
            return entry
        kept = self._compressed.pop(origin, None)
        if kept is None:
            return None
        self.bytes -= _cold_size(kept)
        body_zlib = kept[_BODY]
        if body_zlib:
            assert self._reparse is not None  # only then is anything compressed
            body = zlib.decompressobj().decompress(body_zlib, MAX_BODY_BYTES)
            cold = self._thawed(kept, self._parse_again(body, kept[_TRUNCATED]))
            self.reparsed += 1
        else:
            cold = self._thawed(kept)
        self.put(origin, cold)
        return cold

    def compact(self, entry: CacheEntry[D]) -> CacheEntry[Any]:
        """``entry`` without its parsed rules when its body can parse them again (as the
        compressed tier keeps it), for a holder that needs it later: released requests
        waiting in the scheduler must not keep every origin's rules parsed beyond
        ``max_origins`` (memory, and the garbage collector's work: docs/decisions.md, 'Released
        requests carry their entry, not its parsed rules')."""
        kept: CacheEntry[Any] = entry
        if self._reparse is None or not entry.body_zlib or entry.rules is None:
            return kept
        return replace(kept, rules=None)

    def compact_plain(self, entry: CacheEntry[D]) -> CacheEntry[Any] | _Cold:
        """:meth:`compact`'s entry as a plain tuple (its fields, as the compressed tier keeps
        them), which the collector stops tracking, when its rules can be had again (parsed
        from its body, or a stand-in by its index); else :meth:`compact`'s entry itself.
        :meth:`unplain` gives back :meth:`compact`'s entry."""
        kept = self.compact(entry)
        if kept.body_zlib and kept.rules is not None:
            return kept  # its rules could not be parsed again: kept whole
        return self._frozen(kept)

    def unplain(self, kept: CacheEntry[Any] | _Cold) -> CacheEntry[Any]:
        """The entry :meth:`compact_plain` kept, as :meth:`compact` makes it."""
        return self._thawed(kept) if type(kept) is tuple else kept  # type: ignore[return-value]

    def restore(self, origin: Hashable, entry: CacheEntry[Any]) -> CacheEntry[D]:
        """The entry :meth:`compact` made, parsed: the cache's own when it holds the same
        version (every field equal but the rules), else parsed again from its body. Never
        another version: what decided to release a request still decides it."""
        if entry.rules is not None or not entry.body_zlib:
            return entry  # not compacted
        assert self._reparse is not None  # compact() only drops rules then
        current = self.get(origin)
        if current is not None:
            bare: CacheEntry[Any] = current
            if replace(bare, rules=None) == entry:
                return current
        body = zlib.decompressobj().decompress(entry.body_zlib, MAX_BODY_BYTES)
        self.reparsed += 1
        return replace(entry, rules=self._parse_again(body, entry.truncated))

    def _parse_again(self, body: bytes, truncated: bool) -> D:
        """A compressed entry's body parsed again, as cut if the download cut it."""
        if truncated and self._reparse_cut is not None:
            return self._reparse_cut(body)
        assert self._reparse is not None  # only then is anything compressed
        return self._reparse(body)

    def peek(self, origin: Hashable) -> CacheEntry[Any] | None:
        """The entry of ``origin``, parsed or compressed (then without rules), without
        marking it used: for inspection."""
        entry = self._parsed.get(origin)
        if entry is not None:
            return entry
        kept = self._compressed.get(origin)
        return None if kept is None else self._thawed(kept)

    def put(self, origin: Hashable, entry: CacheEntry[D]) -> None:
        """Store ``entry``; compress or drop the least recently used beyond the bounds. A
        key that is a tuple (an ``Origin``) is kept as a plain tuple, equal to it and
        untracked by the collector."""
        self.discard(origin)
        if isinstance(origin, tuple) and type(origin) is not tuple:
            origin = (*origin,)
        self._parsed[origin] = entry
        self.bytes += entry.size
        self._parsed_bytes += entry.size
        while len(self._parsed) > self.max_origins:
            self._compress_oldest()
        if self.max_bytes is None:
            return
        while self._parsed_bytes > self.max_bytes // 2 and len(self._parsed) > 1:
            self._compress_oldest()
        while self.bytes > self.max_bytes:
            if self._compressed:
                _, dropped = self._compressed.popitem(last=False)
                self.bytes -= _cold_size(dropped)
            elif len(self._parsed) > 1:
                _, evicted = self._parsed.popitem(last=False)
                self.bytes -= evicted.size
                self._parsed_bytes -= evicted.size
            else:
                return
            self.evictions += 1

    def discard(self, origin: Hashable) -> None:
        entry = self._parsed.pop(origin, None)
        if entry is not None:
            self.bytes -= entry.size
            self._parsed_bytes -= entry.size
        kept = self._compressed.pop(origin, None)
        if kept is not None:
            self.bytes -= _cold_size(kept)

    def _compress_oldest(self) -> None:
        origin, entry = self._parsed.popitem(last=False)
        self.bytes -= entry.size
        self._parsed_bytes -= entry.size
        if self._reparse is None:
            self.evictions += 1
            return
        cold = self._frozen(entry)
        self._compressed[origin] = cold
        self.bytes += _cold_size(cold)

    def _frozen(self, entry: CacheEntry[D]) -> _Cold:
        """``entry`` compressed: with a body, its rules go (the body parses them again when
        needed); without one, its stand-in document is kept by index."""
        rules: Any = entry.rules
        if entry.body_zlib:
            rules = None
        else:
            rules = next((i for i, s in enumerate(self._standins) if s is rules), rules)
        return (rules, *_cold_fields_of(entry))

    def _thawed(self, cold: _Cold, parsed: Any = None) -> CacheEntry[Any]:
        """The entry a compressed one was, with ``parsed`` (its body parsed again) as its
        rules when given (else ``None`` when its body has them)."""
        rules = cold[0] if parsed is None else parsed
        if type(rules) is int:
            rules = self._standins[rules]
        return CacheEntry(rules, *cold[1:])
