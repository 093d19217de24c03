"""The per-origin document cache (SPEC §4 "Caching"): pure, no Scrapy imports.

- An entry is fresh for its lifetime (24 h by default, ``Cache-Control`` within bounds).
- When a refresh fails (5xx, 429, network error), the old entry stays in use until its
  stale limit (30 days by default).
- At most ``max_origins`` entries are kept parsed (least recently used first out).
  Beyond that an entry is kept *compressed* (its zlib body and outcome, no parsed rules)
  and parsed again when its origin is next asked about: a cache smaller than the set of
  origins a crawl is busy with costs CPU, never another robots.txt download.
- A kind whose document has a plain form (``plain``/``unplain``: robots.txt) keeps its
  parsed entries as plain tuples (the rules as ``bytes``), which the collector does not
  track, and at most ``max_live`` of them (the origins in active use) also as objects,
  ready to decide: a broad crawl parses each file once, however many origins it keeps
  parsed (docs/decisions.md, 'Parsed once per origin'). Made objects again on use, a
  plain entry costs a few microseconds, not a parse.
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

One origin's document as the cache holds it is a :class:`CacheEntry`, with its
:class:`Freshness`; :class:`EntryForms` keeps it in the forms besides whole, plain and
compressed, and makes it whole again; :class:`DocumentCache` chooses which form each
entry is in.
"""

from __future__ import annotations

import enum
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, fields, replace
from operator import attrgetter
from typing import Any, Final, Generic, TypeVar

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES

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


#: Parsed entries kept as objects, ready to decide, beside their plain form (a kind with
#: one): about ten objects each for the collector, so only the origins in active use
#: (a crawl's concurrent requests are on at most that many).
LIVE_ORIGINS: Final = 256
#: At most this many parsed entries of a kind without a plain form (tdmrep.json, RSL
#: licenses) are kept, whatever ``REP_CACHE_MAX_ORIGINS`` allows: each is objects the
#: collector walks (the setting's default before robots.txt had a plain form).
WHOLE_MAX_ORIGINS: Final = 1_000


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
        plain: Callable[[D], bytes] | None = None,
        unplain: Callable[[bytes], D] | None = None,
        max_live: int = LIVE_ORIGINS,
    ) -> None:
        """``reparse``, ``reparse_cut``, ``standins``, ``plain`` and ``unplain``: as
        :class:`EntryForms` takes them. Without ``reparse``,
        entries are never compressed and the least recently used parsed ones are dropped
        instead; with ``plain``, at most ``max_live`` parsed entries are objects too."""
        if max_origins < 1:
            raise ValueError(f"max_origins must be at least 1, got {max_origins}")
        self.max_origins = max_origins
        self.max_bytes = max_bytes
        self._reparse = reparse
        #: How entries are kept besides whole (plain, compressed) and made whole again.
        self._forms = EntryForms(reparse, reparse_cut, standins, plain, unplain)
        self.max_live = max_live
        #: Every parsed entry: whole, or plain for a kind with a plain form.
        self._parsed: OrderedDict[Hashable, _Parsed] = OrderedDict()
        #: A kind with a plain form: the parsed entries used most recently, as objects.
        self._live: OrderedDict[Hashable, CacheEntry[D]] = OrderedDict()
        #: Estimated bytes of the parsed entries.
        self._parsed_bytes = 0
        self._compressed: OrderedDict[Hashable, _Cold] = OrderedDict()
        #: Estimated bytes of all entries, parsed and compressed.
        self.bytes = 0
        #: Entries dropped altogether because the cache was full (for stats).
        self.evictions = 0
        #: Compressed entries parsed again (for stats).
        self.reparsed = 0
        #: Plain entries made objects again, without a parse.
        self.unplained = 0

    def __len__(self) -> int:
        return len(self._parsed) + len(self._compressed)

    def __contains__(self, origin: Hashable) -> bool:
        return origin in self._parsed or origin in self._compressed

    @property
    def parsed(self) -> int:
        return len(self._parsed)

    def get(self, origin: Hashable) -> CacheEntry[D] | None:
        """The entry of ``origin`` (any freshness), marking it recently used."""
        entry = self._live.get(origin)
        if entry is not None:
            self._live.move_to_end(origin)
            self._parsed.move_to_end(origin)
            return entry
        parsed = self._parsed.get(origin)
        if parsed is not None:
            self._parsed.move_to_end(origin)
            if type(parsed) is not tuple:
                return parsed  # type: ignore[return-value]
            entry = self._forms.thawed(parsed)
            self.unplained += 1
            self._keep_live(plain_key(origin), entry)
            return entry
        kept = self._compressed.pop(origin, None)
        if kept is None:
            return None
        self.bytes -= _cold_size(kept)
        body_zlib = kept[_BODY]
        if body_zlib:
            assert self._reparse is not None  # only then is anything compressed
            body = zlib.decompressobj().decompress(body_zlib, MAX_BODY_BYTES)
            cold = self._forms.thawed(kept, self._forms.parse_again(body, kept[_TRUNCATED]))
            self.reparsed += 1
        else:
            cold = self._forms.thawed(kept)
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
        return self._forms.frozen(kept)

    def unplain(self, kept: CacheEntry[Any] | _Cold) -> CacheEntry[Any]:
        """The entry :meth:`compact_plain` kept, as :meth:`compact` makes it."""
        return self._forms.thawed(kept) if type(kept) is tuple else kept  # type: ignore[return-value]

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
        return replace(entry, rules=self._forms.parse_again(body, entry.truncated))

    def peek(self, origin: Hashable) -> CacheEntry[Any] | None:
        """The entry of ``origin``, without marking it used: for inspection. Kept plain
        and not as objects, or compressed, it comes without its parsed rules (a
        stand-in's are there)."""
        parsed = self._parsed.get(origin)
        if parsed is not None:
            if type(parsed) is not tuple:
                return parsed  # type: ignore[return-value]
            live = self._live.get(origin)
            if live is not None:
                return live
            return CacheEntry(None, *parsed[1:]) if parsed[_BODY] else self._forms.thawed(parsed)
        kept = self._compressed.get(origin)
        return None if kept is None else self._forms.thawed(kept)

    def put(self, origin: Hashable, entry: CacheEntry[D]) -> None:
        """Store ``entry``; compress or drop the least recently used beyond the bounds. A
        key that is a tuple (an ``Origin``) is kept as a plain tuple, equal to it and
        untracked by the collector."""
        self.discard(origin)
        origin = plain_key(origin)
        kept = self._forms.kept_parsed(entry)
        self._parsed[origin] = kept
        if kept is not entry:
            self._keep_live(origin, entry)
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
                self._unparse(*self._parsed.popitem(last=False))
            else:
                return
            self.evictions += 1

    def discard(self, origin: Hashable) -> None:
        parsed = self._parsed.pop(origin, None)
        if parsed is not None:
            self._unparse(origin, parsed)
        kept = self._compressed.pop(origin, None)
        if kept is not None:
            self.bytes -= _cold_size(kept)

    def _compress_oldest(self) -> None:
        origin, parsed = self._parsed.popitem(last=False)
        self._unparse(origin, parsed)
        if self._reparse is None:
            self.evictions += 1
            return
        if type(parsed) is tuple:  # plain: its rules go if its body has them
            cold: _Cold = (None, *parsed[1:]) if parsed[_BODY] else parsed
        else:
            cold = self._forms.frozen(parsed)  # type: ignore[arg-type]
        self._compressed[origin] = cold
        self.bytes += _cold_size(cold)

    def _unparse(self, origin: Hashable, parsed: _Parsed) -> None:
        """``origin``'s entry ``parsed``, taken out of the parsed tier, no longer counted."""
        self._live.pop(origin, None)
        size = _parsed_size(parsed)
        self.bytes -= size
        self._parsed_bytes -= size

    def _keep_live(self, origin: Hashable, entry: CacheEntry[D]) -> None:
        """``entry`` (kept plain) is also kept as an object, the least recently used
        beyond ``max_live`` no longer."""
        live = self._live
        live[origin] = entry
        if len(live) > self.max_live:
            live.popitem(last=False)
