"""How a key's fetch begins and where its document first comes from (SPEC §4): the
lifecycle's fetching phase (pure), the transitions before the download's outcome, which
:class:`~rep_engine.fetch.lifecycle.machine.Lifecycle`'s table names as any other.
"""

from __future__ import annotations

from typing import Any, TypeVar

from rep_engine.fetch.cache import Freshness
from rep_engine.fetch.lifecycle.events import (
    AcquireLease,
    Announce,
    Key,
    LeaseAnswered,
    LoadRecord,
    RecordLoaded,
    Release,
    RequestSeen,
    SlotFreed,
    StartDownload,
    TimerFired,
    WakeAt,
)
from rep_engine.fetch.lifecycle.shared import LEASE_POLL
from rep_engine.fetch.lifecycle.state import Keys, OriginState, Step
from rep_engine.fetch.records import SharedRecord

D = TypeVar("D")


class FetchingKeys(Keys[D]):
    """The lifecycle's keys, with how a fetch of one begins: a request that a usable copy
    decides or that begins a fetch, a store lookup first (another process's record
    adopted, or its retry schedule kept), the lease that makes one process download, the
    recheck once it is ours, then a download slot (at most ``concurrency`` at once; the
    wait for one does not count against ``max_wait``)."""

    def _request(self, key: Key, state: OriginState, event: RequestSeen, now: float) -> Step:
        """A usable copy decides; else a fetch begins (SPEC §4)."""
        entry = self.cache.get(key)
        if entry is not None:
            freshness = entry.freshness(now)
            if freshness is Freshness.FRESH:
                return Step.IDLE
            if freshness is Freshness.STALE:
                # The old copy stays in use while it is refreshed, and while refreshes
                # fail, up to its stale limit (SPEC §4).
                return self._begin(key, state, now) if now >= state.retry_at else Step.IDLE
            self.cache.discard(key)
        return self._begin(key, state, now)

    def _meanwhile(self, key: Key, state: OriginState, event: RequestSeen, now: float) -> Step:
        """A fetch is under way and serves the request; an expired copy goes meanwhile."""
        entry = self.cache.get(key)
        if entry is not None and entry.freshness(now) is Freshness.EXPIRED:
            self.cache.discard(key)
        return state.step

    def _begin(self, key: Key, state: OriginState, now: float) -> Step:
        self._states[key] = state
        if self.policy.store is None:
            return self._enqueue(key, state, now)
        self._do(LoadRecord(key, self.kind.store_name(key)))
        return Step.LOOKUP

    def _retry(self, key: Key, state: OriginState, event: TimerFired, now: float) -> Step:
        if state.failing_since is not None and now > state.retry_at:
            # A late timer (a busy process): the crawler's delay, not the site's.
            state.queued += now - state.retry_at
        self._stat("retries")
        return self._begin(key, state, now)

    # ------------------------------------------------------------------ download slots

    def _enqueue(self, key: Key, state: OriginState, now: float) -> Step:
        state.queued_at = now
        if self.running < self.policy.concurrency:
            return self._start(key, state, None, now)
        self._queue.append(key)
        return Step.QUEUED

    def _start(self, key: Key, state: OriginState, event: SlotFreed | None, now: float) -> Step:
        """A download slot is taken (``event``: it was freed for this queued key)."""
        self.running += 1
        if state.queued_at is not None and state.failing_since is not None:
            state.queued += now - state.queued_at  # our queue, not the site, made it wait
        state.queued_at = None
        self._do(StartDownload(key))
        return Step.DOWNLOAD

    def _announce(
        self, key: Key, state: OriginState, entry: Any, outcome: str, status: int | None
    ) -> Step:
        """A newly known document: its signals are sent; it decides its requests once
        every handler is done (:meth:`_announced`)."""
        state.announced = entry
        self._do(Announce(key, entry.rules, outcome, status, True))
        return Step.ANNOUNCING

    # ------------------------------------------------------------------ the shared store

    def _looked_up(self, key: Key, state: OriginState, event: RecordLoaded, now: float) -> Step:
        """Adopt another process's copy, keep to its retry schedule, or take the lease; a
        store of this process's alone (``Policy.store_exclusive``) needs no lease: nobody
        else can save a record meanwhile, so the download is queued at once."""
        step = self._use_record(key, state, event.record, now, warn=True)
        if step is not None:
            return step
        if self.policy.store_exclusive:
            return self._enqueue(key, state, now)
        self._do(AcquireLease(key, self.kind.store_name(key), self.policy.lease_seconds))
        return Step.LEASE

    def _rechecked(self, key: Key, state: OriginState, event: RecordLoaded, now: float) -> Step:
        """The lease is ours: a record saved between our first look and our lease, or
        the download (this race made two workers download one robots.txt)."""
        step = self._use_record(key, state, event.record, now, warn=False)
        return self._enqueue(key, state, now) if step is None else step

    def _use_record(
        self, key: Key, state: OriginState, record: SharedRecord | None, now: float, warn: bool
    ) -> Step | None:
        """``None``: nothing usable, or stale and nobody is trying: this process downloads."""
        entry = None if record is None else self._readable(record, warn)
        if record is None or entry is None:
            return None
        if record.fresh_until <= now and record.retry_at <= now:
            return None
        self._give_back_lease(key, state)
        if record.fresh_until > now:
            self._stat("store_hits")
            note = f" (from the {self.policy.store} cache)"
            self._states[key] = state
            return self._announce(key, state, entry, entry.outcome + note, entry.status)
        # Another process is failing to download: keep to its retry schedule.
        state.failures = max(state.failures, record.failures)
        state.failing_since = record.failing_since or state.failing_since
        state.retry_at = record.retry_at
        self._stat("store_schedule_followed")
        if record.stale_until > now and record.verdict is None and record.body_zlib:
            self.cache.put(key, entry)  # the stale copy goes on being used
            self._do(Release(key, entry, state.failures))
            return Step.IDLE
        self._do(WakeAt(key, record.retry_at))
        return Step.RETRY_WAIT

    def _lease_answered(
        self, key: Key, state: OriginState, event: LeaseAnswered, now: float
    ) -> Step:
        if event.granted is False:  # another process downloads: look again soon
            self._do(WakeAt(key, now + LEASE_POLL))
            return Step.LEASE_WAIT
        if event.granted is None:  # the store is down: download without it
            return self._enqueue(key, state, now)
        state.leased = True  # one more look: a record may have come meanwhile
        self._do(LoadRecord(key, self.kind.store_name(key)))
        return Step.RECHECK

    def _look_again(self, key: Key, state: OriginState, event: TimerFired, now: float) -> Step:
        """Has the process holding the lease finished?"""
        self._do(LoadRecord(key, self.kind.store_name(key)))
        return Step.LOOKUP
