"""The lifecycle's transitions, all in one file (SPEC §4; the shape of h11's ``_state.py``).

:data:`TRANSITIONS`, at the end of this file, names for each :class:`Step` a key can be
in and each event that can come the handler that runs: it performs its actions and
answers the next step, which :meth:`Lifecycle.handle` sets (``_dispatch``). ``step``
changes nowhere else. The pairs a step ignores are listed too, so that a new event is
a choice in every step (an answer that comes after the key moved on: a store record or a
download after a restart, a lease answer after giving up, a timer already replaced).
Pure: the key is any hashable value, and the kind says what the document is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final, TypeVar

from rep_engine.fetch.cache import CacheEntry, Freshness
from rep_engine.fetch.lifecycle.events import (
    Action,
    Announce,
    Announced,
    Downloaded,
    DownloadStopped,
    Event,
    Key,
    LeaseAnswered,
    RecordLoaded,
    Release,
    RequestSeen,
    SlotFreed,
    TimerFired,
    WakeAt,
)
from rep_engine.fetch.lifecycle.fetching import FetchingKeys
from rep_engine.fetch.lifecycle.shared import downloaded_entry, gave_up_entry
from rep_engine.fetch.lifecycle.state import OriginState, Step, clock_time, seconds
from rep_engine.fetch.procedure import Fetched
from rep_engine.fetch.rules import Effect, FailureClass

D = TypeVar("D")


class Lifecycle(FetchingKeys[D]):
    """Every key's document lifecycle (SPEC §4): one object per document kind.
    ``Lifecycle(policy, kind, cache)``; the queries are those of :class:`Keys`, how a
    fetch begins those of :class:`FetchingKeys`."""

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
