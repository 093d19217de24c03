"""The entries that released requests carry (docs/decisions.md, 'Released requests carry
their entry, not its parsed rules'): a small token in each request's meta
(:data:`~scrapy_rep.crawl.meta.DECIDED`), the entry kept here under it until the request
comes back, whatever the cache holds by then (an entry may have expired or been evicted
meanwhile). A token names its run: one read back from ``JOBDIR`` by the next run names
nothing, and the request is decided afresh."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from scrapy_rep.crawl import meta

if TYPE_CHECKING:
    from scrapy import Request

    from scrapy_rep.fetch.cache import CacheEntry, DocumentCache

D = TypeVar("D")
Decided = tuple[tuple[str, str], ...]


@dataclass
class _Kept(Generic[D]):
    """The entry released requests carry, and how many of them are still to come back."""

    entry: CacheEntry[D]
    to_come: int
    #: The key of the document the entry is of (one request may carry several keys'
    #: entries of one kind: an RSL license per ``License:`` line).
    key: Hashable = None


class CarriedEntries(Generic[D]):
    """The carried entries of one document kind (``name``)."""

    def __init__(self, name: str, cache: DocumentCache[D] | None = None) -> None:
        self.name = name
        #: With a cache, entries carried ``compact`` keep no parsed rules: the cache
        #: gives them back (:meth:`DocumentCache.restore`).
        self._cache = cache
        self._kept: dict[str, _Kept[D]] = {}
        self._run = uuid.uuid4().hex[:8]
        self._serial = itertools.count()

    def __len__(self) -> int:
        return len(self._kept)

    def carry(
        self,
        requests: Sequence[Request],
        entry: CacheEntry[D],
        key: Hashable,
        compact: bool = False,
    ) -> None:
        """Each of ``requests`` is decided by ``entry`` (``key``'s) when it comes back.
        ``compact``: they may wait long (in the scheduler's queue), so the entry is kept
        without its parsed rules and parsed again, the same, when they come back."""
        if not requests:
            return
        if compact and self._cache is not None:
            entry = self._cache.compact(entry)
        token = f"{self._run}.{next(self._serial)}"
        self._kept[token] = _Kept(entry, len(requests), key)
        for request in requests:
            others = self._others(request.meta.get(meta.DECIDED, ()), key)
            request.meta[meta.DECIDED] = (*others, (self.name, token))

    def take(self, request: Request, key: Hashable) -> CacheEntry[D] | None:
        """The entry of ``key`` that ``request`` carries (its token taken from its meta),
        or ``None``. Tokens of other keys of this kind stay; another run's go."""
        decided = request.meta.get(meta.DECIDED)
        if not decided:
            return None
        mine = [token for name, token in decided if name == self.name]
        if not mine:
            return None
        rest = self._others(decided, key)
        if rest:
            request.meta[meta.DECIDED] = rest
        else:
            del request.meta[meta.DECIDED]
        found = [self._redeem(token) for token in mine if self._is_of(token, key)]
        entries = [entry for entry in found if entry is not None]
        if not entries:
            return None
        if self._cache is not None:
            return self._cache.restore(key, entries[0])
        return entries[0]

    def _is_of(self, token: str, key: Hashable) -> bool:
        kept = self._kept.get(token)
        return kept is not None and kept.key == key

    def _others(self, decided: Decided, key: Hashable) -> Decided:
        """``decided`` without this kind's tokens of ``key`` (nor of another run)."""
        return tuple(
            pair
            for pair in decided
            if pair[0] != self.name or (pair[1] in self._kept and not self._is_of(pair[1], key))
        )

    def clear(self) -> None:
        self._kept.clear()

    def _redeem(self, token: str) -> CacheEntry[D] | None:
        kept = self._kept.get(token)
        if kept is None:  # another run's token (JOBDIR), or already taken
            return None
        kept.to_come -= 1
        if kept.to_come <= 0:
            del self._kept[token]
        return kept.entry
