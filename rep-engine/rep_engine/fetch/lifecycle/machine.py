"""The lifecycle's transitions, all in one file (SPEC §4; the shape of h11's ``_state.py``).

:data:`TRANSITIONS`, at the end of this file, names for each :class:`Step` a key can be
in and each event that can come the handler that runs: it performs its actions and
answers the next step, which :meth:`Lifecycle.handle` sets (``_dispatch``). ``step``
changes nowhere else. The pairs a step ignores are listed too, so that a new event is
a choice in every step (an answer that comes after the key moved on: a store record or a
download after a restart, a lease answer after giving up, a timer already replaced).
Pure: the key is any hashable value, and the kind says what the document is.

The transitions of the fetching phase come first: how a key's fetch begins and where its
document first comes from (a usable copy, the shared store, the lease, a download slot),
before the download's outcome; then the outcomes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final, TypeVar

from rep_engine.fetch.cache import CacheEntry, Freshness
from rep_engine.fetch.lifecycle.events import (
    AcquireLease,
    Action,
    Announce,
    Announced,
    Downloaded,
    DownloadStopped,
    Event,
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
from rep_engine.fetch.lifecycle.shared import LEASE_POLL, downloaded_entry, gave_up_entry
from rep_engine.fetch.lifecycle.state import Keys, OriginState, Step, clock_time, seconds
from rep_engine.fetch.procedure import Fetched
from rep_engine.fetch.records import SharedRecord
from rep_engine.fetch.rules import Effect, FailureClass

D = TypeVar("D")


class Lifecycle(Keys[D]):
    """Every key's document lifecycle (SPEC §4): one object per document kind.
    ``Lifecycle(policy, kind, cache)``; the queries are those of :class:`Keys`.

    How a fetch of a key begins: a request that a usable copy decides or that begins a
    fetch, a store lookup first (another process's record adopted, or its retry schedule
    kept), the lease that makes one process download, the recheck once it is ours, then a
    download slot (at most ``concurrency`` at once; the wait for one does not count
    against ``max_wait``)."""

    def handle(self, event: Event, now: float) -> list[Action]:
        """Apply ``event`` at time ``now``; the actions for the adapter to perform."""
        actions: list[Action] = []
        self._actions = actions
        self._dispatch(event.key, event, now)
        self._actions = []
        return actions

    def _dispatch(self, key: Key, event: Event | SlotFreed, now: float) -> None:
        """The one place where a key's step changes: to what its transition answers."""
        state = self._states.get(key)
        if state is None:
            state = OriginState()  # kept only if the handler begins a fetch
        handler = TRANSITIONS[state.step].get(type(event), Lifecycle._ignore)
        state.step = handler(self, key, state, event, now)

    def _ignore(self, key: Key, state: OriginState, event: object, now: float) -> Step:
        """Not for this step: the answer came after the key moved on."""
        return state.step

    # ------------------------------------------------------------------ requests

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

    # ------------------------------------------------------------------ outcomes

    def _downloaded(self, key: Key, state: OriginState, event: Downloaded, now: float) -> Step:
        self._free_slot(now)
        fetched = event.fetched
        self._stat(f"outcome/{fetched.kind}")
        if fetched.truncated:
            self._stat("outcome/truncated")
        if fetched.effect is Effect.UNREACHABLE:
            step = self._failed(key, state, fetched, event.held, now)
        else:
            step = self._succeeded(key, state, fetched, now)
        self._give_back_lease(key, state)
        return step

    def _stopped(self, key: Key, state: OriginState, event: DownloadStopped, now: float) -> Step:
        """A download that ended as the crawl stopped, with no answer of the site's: its
        slot goes to the next key queued for one (a request awaiting that key's document
        in place would wait forever, and the stop with it), its lease is let go (another
        process downloads at once), and nothing is counted, shared or given up on."""
        self._free_slot(now)
        self._give_back_lease(key, state)
        return Step.IDLE

    def _free_slot(self, now: float) -> None:
        """A download ended: its slot goes to the keys queued for one, in order."""
        self.running -= 1
        while self._queue and self.running < self.policy.concurrency:
            queued = self._queue.popleft()
            self._dispatch(queued, SlotFreed(queued), now)

    def _succeeded(self, key: Key, state: OriginState, fetched: Fetched, now: float) -> Step:
        entry = downloaded_entry(self.kind, self.policy, fetched, now)
        self._share(key, entry, None, now)
        self._gave_up.pop(key, None)
        name = self.kind.name
        if fetched.kind == "ignored":  # not the site's answer: say so once per download
            self._log(logging.WARNING, "%s of %s %s", name, key, fetched.outcome)
        else:
            self._log(logging.DEBUG, "%s of %s: %s", name, key, fetched.outcome)
        if state.failures:
            self._log(
                logging.INFO, "%s of %s is back after %d failed attempt(s): %s",
                name, key, state.failures, fetched.outcome,
            )  # fmt: skip
        return self._announce(key, state, entry, fetched.outcome, fetched.status)

    def _announced(self, key: Key, state: OriginState, event: Announced, now: float) -> Step:
        """The document decides from now on; the requests held for it go on."""
        entry = state.announced
        assert entry is not None  # set with the step
        self.cache.put(key, entry)
        self._states.pop(key, None)
        self._do(Release(key, entry, state.failures))
        return Step.IDLE

    def _failed(
        self, key: Key, state: OriginState, fetched: Fetched, held: int, now: float
    ) -> Step:
        """SPEC §4: 429, 5xx, network error: stale copy, hold and retry, or give up. The
        requests are held for :meth:`Policy.wait_limit` of the failure, counted from the
        first failure in a row (docs/decisions.md, "A host that cannot be connected to
        is given up on quickly"); one INFO line when the wait begins, DEBUG per retry."""
        policy = self.policy
        failure = fetched.failure or FailureClass.OTHER
        state.failures += 1
        state.last_outcome = fetched.outcome
        self._stat(f"failure/{failure.value}")
        self._do(Announce(key, self.kind.unreachable, fetched.outcome, fetched.status, False))
        begins = state.failing_since is None  # a new wait: said once, at INFO
        if state.failing_since is None:
            state.failing_since = now
        delay = policy.backoff(state.failures, fetched.retry_after)
        old = self.cache.get(key)
        if old is not None and old.freshness(now) is Freshness.STALE and not old.unreachable:
            return self._keep_stale(key, state, old, fetched, delay, now)
        waited = now - state.failing_since - state.queued
        limit = policy.wait_limit(failure)
        if waited >= limit:
            return self._give_up(key, state, held, waited, now, failure)
        delay = min(delay, limit - waited)
        state.retry_at = now + delay
        if begins:  # the time of day is when it is given up on, not the next retry
            left = limit - waited
            self._log(
                logging.INFO,
                "%s of %s is unreachable (%s); holding %d request(s) and retrying%s; "
                "giving up at %s (in %s s, %s)",
                self.kind.name, key, _why(fetched, failure), held, _counted(fetched),
                clock_time(now + left), seconds(left), policy.wait_setting(failure),
            )  # fmt: skip
        self._log(
            logging.DEBUG, "%s of %s: %s; holding its %d request(s), retry %d in %s s",
            self.kind.name, key, fetched.outcome, held, state.failures, seconds(delay),
        )  # fmt: skip
        self._do(WakeAt(key, state.retry_at))
        self._share(key, None, state, now)
        return Step.RETRY_WAIT

    def _keep_stale(
        self,
        key: Key,
        state: OriginState,
        old: CacheEntry[D],
        fetched: Fetched,
        delay: float,
        now: float,
    ) -> Step:
        """SPEC §4: the origin failed while a stale copy is held: the copy answers, and the
        next request after ``delay`` tries again."""
        state.retry_at = now + delay
        self._stat("stale_kept")
        self._log(
            logging.INFO,
            "%s of %s: %s; keeping the copy fetched %.0f s ago, next try in %.0f s",
            self.kind.name, key, fetched.outcome, now - old.fetched_at, delay,
        )  # fmt: skip
        self._share(key, old, state, now)
        self._do(Release(key, old, state.failures))
        return Step.IDLE  # no timer: the next request after the backoff tries

    def _give_up(
        self, key: Key, state: OriginState, held: int, waited: float, now: float,
        failure: FailureClass,
    ) -> Step:  # fmt: skip
        """No good copy exists and the wait for ``failure`` is over: the held requests
        are dropped, or go on, by the give-up rule (:meth:`Policy.allows_after_giving_up`),
        a verdict that lasts :meth:`Policy.gave_up_lifetime`."""
        policy = self.policy
        limit = policy.wait_limit(failure)
        early = waited < policy.max_wait  # the shorter wait of a host one cannot connect to
        allow = policy.allows_after_giving_up(waited)
        times = self._given_up_again(key)
        lifetime = policy.gave_up_lifetime(times, limit)
        entry = gave_up_entry(self.kind, allow, waited, state.last_outcome, lifetime, now)
        self.cache.put(key, entry)
        self._states.pop(key, None)
        self._stat("gave_up")
        if early:
            self._stat("gave_up_connect")
        if times == 1:
            self.gave_up_by_failure[failure] += 1
        self._do(Announce(key, entry.rules, entry.outcome, None, False))
        # One clause per fact: how long, which setting, the last try, the requests' fate.
        fate = 'go on (REP_UNREACHABLE_ACTION = "allow")' if allow else "dropped"
        if early and policy.unreachable_action == "allow":
            fate += ' (REP_UNREACHABLE_ACTION = "allow" is for the long wait only)'
        self._log(
            logging.WARNING if times == 1 else logging.INFO,  # WARNING once, INFO if still down
            "%s of %s given up on after %s s (%s; last try: %s); %d held request(s) %s",
            self.kind.name, key, seconds(waited), policy.wait_setting(failure),
            state.last_outcome, held, fate,
        )  # fmt: skip
        self._share(key, entry, state, now)
        self._do(Release(key, entry, state.failures))
        return Step.IDLE


def _counted(fetched: Fetched) -> str:
    """What Scrapy makes of a retry that got an answer (429, 5xx): the engine sends it as
    any response, so Scrapy's stats and its "Crawled N pages" line count it (no clean
    way around: docs/behaviour.md, "Unreachable robots.txt")."""
    if fetched.status is None:
        return ""
    return ' (each answer counts as a page in Scrapy\'s "Crawled N pages")'


def _why(fetched: Fetched, failure: FailureClass) -> str:
    """Why a document is unreachable, in a few words: the status the site answered, or
    what kind of network failure it was (the whole outcome when that is not known)."""
    if fetched.status is not None:
        return str(fetched.status)
    return fetched.outcome if failure is FailureClass.OTHER else failure.words


#: One transition: performs its actions and answers the key's next step.
Handler = Callable[[Lifecycle[Any], Key, OriginState, Any, float], Step]

#: Every event type the machine meets: the adapter's seven, and its own :class:`SlotFreed`.
EVENTS: Final = (
    RequestSeen, RecordLoaded, LeaseAnswered, Downloaded, DownloadStopped, TimerFired,
    Announced, SlotFreed,
)  # fmt: skip


def _ignoring(*events: type[Any]) -> dict[type[Any], Handler]:
    return dict.fromkeys(events, Lifecycle._ignore)


#: (step, event type) -> handler: the whole lifecycle. ``RequestSeen`` while a fetch is
#: under way waits for it; every other event is for one step only.
TRANSITIONS: Final[dict[Step, dict[type[Any], Handler]]] = {
    Step.IDLE: {RequestSeen: Lifecycle._request,
                **_ignoring(RecordLoaded, LeaseAnswered, Downloaded, DownloadStopped,
                            TimerFired, Announced, SlotFreed)},
    Step.LOOKUP: {RequestSeen: Lifecycle._meanwhile, RecordLoaded: Lifecycle._looked_up,
                  **_ignoring(LeaseAnswered, Downloaded, DownloadStopped, TimerFired,
                              Announced, SlotFreed)},
    Step.LEASE: {RequestSeen: Lifecycle._meanwhile, LeaseAnswered: Lifecycle._lease_answered,
                 **_ignoring(RecordLoaded, Downloaded, DownloadStopped, TimerFired, Announced,
                             SlotFreed)},
    Step.LEASE_WAIT: {RequestSeen: Lifecycle._meanwhile, TimerFired: Lifecycle._look_again,
                      **_ignoring(RecordLoaded, LeaseAnswered, Downloaded, DownloadStopped,
                                  Announced, SlotFreed)},
    Step.RECHECK: {RequestSeen: Lifecycle._meanwhile, RecordLoaded: Lifecycle._rechecked,
                   **_ignoring(LeaseAnswered, Downloaded, DownloadStopped, TimerFired,
                               Announced, SlotFreed)},
    Step.QUEUED: {RequestSeen: Lifecycle._meanwhile, SlotFreed: Lifecycle._start,
                  **_ignoring(RecordLoaded, LeaseAnswered, Downloaded, DownloadStopped,
                              TimerFired, Announced)},
    Step.DOWNLOAD: {RequestSeen: Lifecycle._meanwhile, Downloaded: Lifecycle._downloaded,
                    DownloadStopped: Lifecycle._stopped,
                    **_ignoring(RecordLoaded, LeaseAnswered, TimerFired, Announced, SlotFreed)},
    Step.RETRY_WAIT: {RequestSeen: Lifecycle._meanwhile, TimerFired: Lifecycle._retry,
                      **_ignoring(RecordLoaded, LeaseAnswered, Downloaded, DownloadStopped,
                                  Announced, SlotFreed)},
    Step.ANNOUNCING: {RequestSeen: Lifecycle._meanwhile, Announced: Lifecycle._announced,
                      **_ignoring(RecordLoaded, LeaseAnswered, Downloaded, DownloadStopped,
                                  TimerFired, SlotFreed)},
}  # fmt: skip
