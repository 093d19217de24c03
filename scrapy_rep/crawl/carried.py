"""The entries that released requests carry (issue 23): a small token in each request's
meta (:data:`~scrapy_rep.crawl.meta.DECIDED`), the entry kept here under it until the
request comes back, whatever the cache holds by then (an entry may have expired or been
evicted meanwhile). A token names its run: one read back from ``JOBDIR`` by the next run
names nothing, and the request is decided afresh."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from scrapy_rep.crawl import meta

if TYPE_CHECKING:
    from scrapy import Request

    from scrapy_rep.cache import CacheEntry

D = TypeVar("D")
Decided = tuple[tuple[str, str], ...]


@dataclass
class _Kept(Generic[D]):
    """The entry released requests carry, and how many of them are still to come back."""

    entry: CacheEntry[D]
    to_come: int


class CarriedEntries(Generic[D]):
    """The carried entries of one document kind (``name``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._kept: dict[str, _Kept[D]] = {}
        self._run = uuid.uuid4().hex[:8]
        self._serial = itertools.count()

    def __len__(self) -> int:
        return len(self._kept)

    def carry(self, requests: Sequence[Request], entry: CacheEntry[D]) -> None:
        """Each of ``requests`` is decided by ``entry`` when it comes back."""
        if not requests:
            return
        token = f"{self._run}.{next(self._serial)}"
        self._kept[token] = _Kept(entry, len(requests))
        for request in requests:
            others = _others(request.meta.get(meta.DECIDED, ()), self.name)
            request.meta[meta.DECIDED] = (*others, (self.name, token))

    def take(self, request: Request) -> CacheEntry[D] | None:
        """The entry ``request`` carries (its token taken from its meta), or ``None``."""
        decided = request.meta.get(meta.DECIDED)
        if not decided:
            return None
        mine = [token for name, token in decided if name == self.name]
        if not mine:
            return None
        rest = _others(decided, self.name)
        if rest:
            request.meta[meta.DECIDED] = rest
        else:
            del request.meta[meta.DECIDED]
        found = [entry for entry in map(self._redeem, mine) if entry is not None]
        return found[0] if found else None

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


def _others(decided: Decided, name: str) -> Decided:
    return tuple(pair for pair in decided if pair[0] != name)
