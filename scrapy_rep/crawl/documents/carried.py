"""The document versions that released requests carry (docs/decisions.md, 'Released
requests carry their entry, not its parsed rules'): a small token in each request's state
(:attr:`~scrapy_rep.crawl.requeststate.RequestState.carried`), the entry kept here under
it until the request comes back, whatever the cache holds by then (an entry may have
expired or been evicted meanwhile). A token names its run: one read back from ``JOBDIR``
by the next run names nothing, and the request is decided afresh.

What is kept per token is a plain tuple where it can be (the entry as the cache's
compressed tier keeps it, and its key as a plain tuple), which CPython's garbage collector
stops tracking: a broad crawl has thousands of released requests waiting in Scrapy's queue
(docs/decisions.md, 'Long-lived state out of the collector's sight').

A carried version never decides against a newer one (docs/decisions.md, 'One request, one
verdict'): when the request comes back, the cache's own version decides if it is newer,
and a carried version older than one this process has already decided with for that key
is let go (the request is then decided from the cache, or held again). One past its
freshness lifetime is decided afresh by the document
(:meth:`~scrapy_rep.crawl.documents.documents.OriginDocument.entry_for`).
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Hashable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rep_engine.fetch.cache import plain_key
from scrapy_rep.crawl.requeststate import add_carried, carry_again, take_carried

if TYPE_CHECKING:
    from scrapy import Request

    from rep_engine.fetch.cache import CacheEntry, DocumentCache

D = TypeVar("D")


#: No key: a token of this kind that is not (or no longer) kept.
_NONE: Any = object()


class CarriedEntries(Generic[D]):
    """The carried entries of one document kind (``name``)."""

    def __init__(self, name: str, cache: DocumentCache[D] | None = None) -> None:
        self.name = name
        #: With a cache, entries carried ``compact`` keep no parsed rules: the cache
        #: gives them back (:meth:`DocumentCache.restore`).
        self._cache = cache
        #: Per token: the entry its requests carry (a plain tuple made by
        #: :meth:`DocumentCache.compact_plain`, or the entry); the key of the document it
        #: is of (one request may carry several keys' entries of one kind: an RSL license
        #: per ``License:`` line), an ``Origin`` as the plain tuple equal to it; how many of
        #: its requests are still to come back. Three maps of plain values, not one of
        #: pairs: a pair of tuples is untracked only a collection after its tuples are.
        self._kept: dict[str, Any] = {}
        self._key_of: dict[str, Hashable] = {}
        self._to_come: dict[str, int] = {}
        #: Per key with carried entries: how many tokens, and the newest version
        #: (``fetched_at``) any request of this process was decided with.
        self._tokens: dict[Hashable, int] = {}
        self._newest: dict[Hashable, float] = {}
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
        """Each of ``requests`` is decided by ``entry`` (``key``'s) when it comes back,
        unless a newer version is known by then. ``compact``: they may wait long (in the
        scheduler's queue), so the entry is kept without its parsed rules and parsed
        again, the same, when they come back."""
        if not requests:
            return
        kept: Any = entry
        if compact and self._cache is not None:
            kept = self._cache.compact_plain(entry)
        key = plain_key(key)
        token = f"{self._run}.{next(self._serial)}"
        self._kept[token] = kept
        self._key_of[token] = key
        self._to_come[token] = len(requests)
        # Carried is not used: only a request decided with a version makes the older ones
        # let go (``used``). Were carrying enough, two requests of one origin released
        # with successive versions would each let the other's go, and with a cache too
        # small to keep the newest, fetch it again for ever, each time the newer.
        self._tokens[key] = self._tokens.get(key, 0) + 1
        add_carried(requests, (self.name, token), partial(self._others, key=key))

    def used(self, key: Hashable, entry: CacheEntry[D]) -> None:
        """A request was decided with ``entry`` (``key``'s): carried versions older than
        it may no longer decide one."""
        if key in self._tokens and entry.fetched_at > self._newest.get(key, 0.0):
            self._newest[plain_key(key)] = entry.fetched_at

    def take(
        self,
        request: Request,
        key: Hashable,
        current: Callable[[Hashable], CacheEntry[D] | None] | None = None,
    ) -> CacheEntry[D] | None:
        """The entry of ``key`` that ``request`` carries (its token taken from its state),
        or ``None``; ``current(key)``: the cache's own usable version (by default what the
        cache holds), which decides instead when it is at least as new. Tokens of other
        keys of this kind stay; another run's go."""
        carried = take_carried(request)
        if not carried:
            return None
        entry: CacheEntry[D] | None = None
        rest: list[tuple[str, str]] = []
        newest_used = self._newest.get(key, 0.0)  # before its last token is redeemed
        for pair in carried:
            kept_key = self._key_of.get(pair[1], _NONE) if pair[0] == self.name else _NONE
            if kept_key is _NONE:
                if pair[0] != self.name:
                    rest.append(pair)  # another kind's; this kind's of another run go
            elif kept_key != key:
                rest.append(pair)
            else:
                found = self._redeem(pair[1])
                entry = entry or found
        if rest:
            carry_again(request, tuple(rest))
        if entry is None:
            return None
        newest = self._cache.peek(key) if self._cache is not None else None
        if newest is not None and newest.fetched_at >= entry.fetched_at:
            assert self._cache is not None
            now = (current or self._cache.get)(key)
            if now is not None and now.fetched_at >= entry.fetched_at:
                return now
        if entry.fetched_at < newest_used:
            return None  # a newer version decided requests since: never an older one
        if self._cache is not None:
            return self._cache.restore(key, entry)
        return entry

    def _is_of(self, token: str, key: Hashable) -> bool:
        return bool(self._key_of.get(token, _NONE) == key)

    def _others(
        self, carried: tuple[tuple[str, str], ...], key: Hashable
    ) -> tuple[tuple[str, str], ...]:
        """``carried`` without this kind's tokens of ``key`` (nor of another run)."""
        return tuple(
            pair
            for pair in carried
            if pair[0] != self.name or (pair[1] in self._kept and not self._is_of(pair[1], key))
        )

    def clear(self) -> None:
        self._kept.clear()
        self._key_of.clear()
        self._to_come.clear()
        self._tokens.clear()
        self._newest.clear()

    def _redeem(self, token: str) -> CacheEntry[D]:
        """One request of those carrying ``token`` came back: its entry (as
        :meth:`DocumentCache.compact` makes it, when it was carried compact)."""
        entry = self._kept[token]
        key = self._key_of[token]
        to_come = self._to_come[token] - 1
        if to_come > 0:
            self._to_come[token] = to_come
        else:
            del self._kept[token], self._key_of[token], self._to_come[token]
            left = self._tokens.get(key, 1) - 1
            if left:
                self._tokens[key] = left
            else:
                self._tokens.pop(key, None)
                self._newest.pop(key, None)
        if self._cache is None:  # only a cache makes plain entries
            return entry  # type: ignore[no-any-return]
        return self._cache.unplain(entry)
