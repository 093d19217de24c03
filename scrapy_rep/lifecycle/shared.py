"""The shared-store steps of :class:`scrapy_rep.lifecycle.Lifecycle` (SPEC §4, several
crawler processes): before downloading, a process looks for what another one found,
follows another one's retry schedule, or takes the origin's lease and downloads; after
downloading, it shares what the download came to. Pure: store calls are actions."""

from __future__ import annotations

import logging
from abc import abstractmethod
from typing import Any, Final, Generic, TypeVar

from scrapy_rep.cache import CacheEntry
from scrapy_rep.fetchpolicy import Policy
from scrapy_rep.lifecycle.events import (
    AcquireLease,
    Action,
    Announce,
    Key,
    LoadRecord,
    Release,
    ReleaseLease,
    SaveRecord,
    WakeAt,
)
from scrapy_rep.lifecycle.state import OriginState, Step
from scrapy_rep.records import SharedRecord, StoreCorrupt, record_of

D = TypeVar("D")

#: How often a process waiting for another one's download looks at the store (seconds).
LEASE_POLL: Final = 0.2


class SharedStoreSteps(Generic[D]):
    """The part of the lifecycle that talks to the shared store (a mixin)."""

    policy: Policy
    _states: dict[Key, OriginState]

    @abstractmethod
    def _do(self, action: Action) -> None: ...

    @abstractmethod
    def _stat(self, name: str, count: int = 1) -> None: ...

    @abstractmethod
    def _log(self, level: int, message: str, *args: Any) -> None: ...

    @abstractmethod
    def _put(self, key: Key, entry: CacheEntry[D]) -> None: ...

    @abstractmethod
    def _name(self, key: Key) -> str: ...

    @abstractmethod
    def _entry_of(self, record: SharedRecord) -> CacheEntry[D]: ...

    @abstractmethod
    def _enqueue(self, key: Key, state: OriginState, now: float) -> None: ...

    @abstractmethod
    def _verdict_of(self, entry: CacheEntry[D]) -> bool | None: ...

    def _record_loaded(self, key: Key, record: SharedRecord | None, now: float) -> None:
        state = self._states.get(key)
        if state is None or state.step not in (Step.LOOKUP, Step.RECHECK):
            return
        if record is None:
            return self._no_record(key, state, now)
        try:
            entry = self._entry_of(record)
        except StoreCorrupt as error:
            if state.step is Step.LOOKUP:  # not again when looking again under the lease
                self._stat("store_corrupt")
                self._log(
                    logging.WARNING,
                    "scrapy_rep: ignoring a %s record: %s",
                    self.policy.store,
                    error,
                )
            return self._no_record(key, state, now)
        if record.fresh_until > now or record.retry_at > now:
            self._give_back_lease(key, state)
        if record.fresh_until > now:
            self._put(key, entry)
            self._stat("store_hits")
            note = f" (from the {self.policy.store} cache)"
            self._do(Announce(key, entry.rules, entry.outcome + note, entry.status, True))
            self._states.pop(key, None)
            self._do(Release(key, entry, state.failures))
        elif record.retry_at > now:
            self._follow_schedule(key, state, record, entry, now)
        else:
            self._no_record(key, state, now)  # stale and nobody is trying: we download

    def _no_record(self, key: Key, state: OriginState, now: float) -> None:
        """Nothing usable in the store: take the lease, or, holding it, download."""
        if state.step is Step.RECHECK:
            self._enqueue(key, state, now)
        else:
            self._lease(key, state)

    def _give_back_lease(self, key: Key, state: OriginState) -> None:
        if state.leased:
            state.leased = False
            self._do(ReleaseLease(key, self._name(key)))

    def _follow_schedule(
        self, key: Key, state: OriginState, record: SharedRecord, entry: CacheEntry[D], now: float
    ) -> None:
        """Another process is failing to download: keep to its retry schedule."""
        state.failures = max(state.failures, record.failures)
        state.failing_since = record.failing_since or state.failing_since
        state.retry_at = record.retry_at
        self._stat("store_schedule_followed")
        if record.stale_until > now and record.verdict is None and record.body_zlib:
            self._put(key, entry)  # the stale copy goes on being used
            state.step = None
            self._do(Release(key, entry, state.failures))
            return
        state.step = Step.RETRY_WAIT
        self._do(WakeAt(key, record.retry_at))

    def _lease(self, key: Key, state: OriginState) -> None:
        state.step = Step.LEASE
        self._do(AcquireLease(key, self._name(key), self.policy.lease_seconds))

    def _lease_answered(self, key: Key, granted: bool | None, now: float) -> None:
        state = self._states.get(key)
        if state is None or state.step is not Step.LEASE:
            return
        if granted is False:
            state.step = Step.LEASE_WAIT
            self._do(WakeAt(key, now + LEASE_POLL))
            return
        if granted is None:  # the store is down: download without it
            return self._enqueue(key, state, now)
        # Another process may have saved a record between our lookup and our lease.
        state.leased = True
        state.step = Step.RECHECK
        self._do(LoadRecord(key, self._name(key)))

    def _share(
        self, key: Key, entry: CacheEntry[D] | None, failing: OriginState | None, now: float
    ) -> None:
        """Tell the other processes what the download came to (SPEC §4, shared cache):
        the usable ``entry`` (if any) and, while ``failing``, its retry schedule."""
        if self.policy.store is None:
            return
        verdict = None if entry is None else self._verdict_of(entry)
        if failing is None:
            schedule: tuple[int, float | None, float, str] = (0, None, 0.0, "")
        else:
            schedule = (
                failing.failures,
                failing.failing_since,
                failing.retry_at,
                failing.last_outcome,
            )
        record = record_of(self._name(key), entry, verdict, *schedule, now)
        self._do(SaveRecord(key, record, record.keep_until - now))
