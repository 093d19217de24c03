"""What :mod:`rep_engine.fetch.lifecycle` knows: each key's step and failures, the download
slots, and the named phase the adapter and the report ask for. Pure. No step changes
here: the transitions are all in :mod:`rep_engine.fetch.lifecycle.machine`."""

from __future__ import annotations

import enum
import logging
import time
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from rep_engine.fetch.cache import CacheEntry, DocumentCache, Freshness
from rep_engine.fetch.kinds import DocumentKind
from rep_engine.fetch.lifecycle.events import Action, Key, Log, ReleaseLease, SaveRecord, Stat
from rep_engine.fetch.records import SharedRecord, StoreCorrupt
from rep_engine.fetch.rules import FailureClass, Policy

D = TypeVar("D")

#: At most this many keys remember how often they were given up on.
_MAX_GAVE_UP: Final = 10_000


class Phase(enum.Enum):
    UNKNOWN = "unknown"
    FETCHING = "fetching"
    FRESH = "fresh"
    STALE = "stale"
    STALE_REFRESHING = "stale-refreshing"
    FAILING = "failing"
    GAVE_UP = "gave-up"


class Step(enum.Enum):
    """What is under way for a key: the rows of the transition table."""

    #: Nothing: the next request starts a fetch, unless a usable copy decides.
    IDLE = "idle"
    LOOKUP = "lookup"
    LEASE = "lease"
    LEASE_WAIT = "lease-wait"
    #: The lease is ours: one more look at the store, for a record another process saved
    #: between our first look and our lease.
    RECHECK = "recheck"
    QUEUED = "queued"
    DOWNLOAD = "download"
    RETRY_WAIT = "retry-wait"
    #: The document is known: the signals that say so are being handled (Scrapy's
    #: ``robots_parsed`` handlers may be async); its requests wait until they are done.
    ANNOUNCING = "announcing"


# --------------------------------------------------------------------------- the keys


@dataclass
class OriginState:
    """What is under way for one key, and its failures since the last success."""

    #: Changed only where :class:`~rep_engine.fetch.lifecycle.machine.Lifecycle`
    #: dispatches an event, to what the transition's handler answers.
    step: Step = Step.IDLE
    failures: int = 0
    failing_since: float | None = None
    #: Seconds the crawler, not the site, made the retries wait since failing began: in
    #: the queue for a download slot, and retry timers that fired late (a busy process).
    queued: float = 0.0
    queued_at: float | None = None
    #: No refresh of a stale copy, and no retry, before this time.
    retry_at: float = 0.0
    last_outcome: str = ""
    leased: bool = False
    #: While announcing: the entry the requests go on with, once every handler is done.
    announced: CacheEntry[Any] | None = None


class Keys(Generic[D]):
    """Every key's state, its cached copy, the download slots and the actions being
    collected: what the transitions read and write, and the queries about it."""

    def __init__(self, policy: Policy, kind: DocumentKind[D], cache: DocumentCache[D]) -> None:
        self.policy = policy
        self.kind = kind
        #: The adapter's name for :attr:`kind`.
        self.document = kind
        self.cache = cache
        self._states: dict[Key, OriginState] = {}
        #: Keys waiting for a download slot (SPEC §4: at most ``concurrency`` at once).
        self._queue: deque[Key] = deque()
        #: Downloads running (at most ``policy.concurrency``).
        self.running = 0
        #: How often each key was given up on, for the doubling of the give-up lifetime.
        self._gave_up: OrderedDict[Key, int] = OrderedDict()
        #: Keys given up on (the first time in a row: one WARNING each), by the failure
        #: that ended the wait, for the line at the end of the crawl.
        self.gave_up_by_failure: Counter[FailureClass] = Counter()
        self._actions: list[Action] = []

    def usable_entry(self, key: Key, now: float) -> CacheEntry[D] | None:
        """The entry whose rules decide a request now (fresh, or stale while refreshing)."""
        entry = self.cache.get(key)
        return entry if entry is not None and now < entry.stale_until else None

    def fresh_entry(self, key: Key, now: float) -> CacheEntry[D] | None:
        """The entry if it is fresh: the hot path, no event needed. Never starts a fetch,
        nor a refresh (a stale entry answers ``None``); a document whose ``robots_parsed``
        handlers still run is not in the cache yet (the step ``ANNOUNCING``)."""
        entry = self.cache.get(key)
        return entry if entry is not None and now < entry.fresh_until else None

    def phase(self, key: Key, now: float) -> Phase:
        state = self._states.get(key)
        step = self.step_of(key)
        entry = self.cache.peek(key)
        if entry is not None and entry.usable(now):
            if entry.unreachable:
                return Phase.GAVE_UP
            if entry.freshness(now) is Freshness.FRESH:
                return Phase.FRESH
            busy = state is not None and (step is not Step.IDLE or state.failures > 0)
            return Phase.STALE_REFRESHING if busy else Phase.STALE
        if step is Step.IDLE:
            return Phase.UNKNOWN
        return Phase.FAILING if step is Step.RETRY_WAIT else Phase.FETCHING

    def step_of(self, key: Key) -> Step:
        """What is under way for ``key`` (the row of the transition table it is in)."""
        state = self._states.get(key)
        return Step.IDLE if state is None else state.step

    def under_way(self, key: Key) -> bool:
        return self.step_of(key) is not Step.IDLE

    @property
    def downloading(self) -> bool:
        """A store lookup, lease, queued or running download (the spider must stay open)."""
        return any(s.step not in (Step.IDLE, Step.RETRY_WAIT) for s in self._states.values())

    def summary(self) -> list[Action]:
        """At the end of the crawl: one INFO line saying how many keys were given up on
        as unreachable, by failure (each has had its WARNING), or nothing."""
        if not self.gave_up_by_failure:
            return []
        total = sum(self.gave_up_by_failure.values())
        by_failure = ", ".join(
            f"{count} {failure.words}" for failure, count in self.gave_up_by_failure.most_common()
        )
        message = "scrapy_rep: %d %s given up on as unreachable in this crawl (%s)"
        return [Log(logging.INFO, message, (total, self.kind.name, by_failure))]

    def leases_held(self) -> list[Action]:
        """At the close: the leases this process still holds (a download queued in this
        process's document slots, or a second look at the store, under its lease: never
        to run now), let go so that another process downloads at once instead of after
        the lease's time (``Policy.lease_seconds``: 95 s with a 15 s ``DOWNLOAD_TIMEOUT``,
        18 min with Scrapy's default 180 s), holding that origin's requests meanwhile."""
        actions: list[Action] = []
        for key, state in self._states.items():
            if state.leased:
                state.leased = False
                actions.append(ReleaseLease(key, self.kind.store_name(key)))
        return actions

    # ------------------------------------------------------------------ actions

    def _do(self, action: Action) -> None:
        self._actions.append(action)

    def _stat(self, name: str) -> None:
        self._actions.append(Stat(f"{self.kind.stat_prefix}/{name}"))

    def _log(self, level: int, message: str, *args: Any) -> None:
        self._actions.append(Log(level, message, args))

    def _give_back_lease(self, key: Key, state: OriginState) -> None:
        if state.leased:
            state.leased = False
            self._do(ReleaseLease(key, self.kind.store_name(key)))

    def _share(
        self, key: Key, entry: CacheEntry[D] | None, failing: OriginState | None, now: float
    ) -> None:
        """Tell the other processes what the download came to (SPEC §4, shared cache): the
        usable ``entry`` (if any) and, while ``failing``, its retry schedule."""
        if self.policy.store is None:
            return
        schedule = OriginState() if failing is None else failing  # none: no failures
        record = self.kind.record_of(
            key, entry, schedule.failures, schedule.failing_since, schedule.retry_at,
            schedule.last_outcome, now,
        )  # fmt: skip
        self._do(SaveRecord(key, record, record.keep_until - now))

    def _given_up_again(self, key: Key) -> int:
        """How many times in a row ``key`` is given up on, this time included."""
        times = self._gave_up.pop(key, 0) + 1
        self._gave_up[key] = times
        if len(self._gave_up) > _MAX_GAVE_UP:
            self._gave_up.popitem(last=False)
        return times

    def _readable(self, record: SharedRecord, warn: bool) -> CacheEntry[D] | None:
        """The entry of another process's record; ``None``: it is corrupt (counted and
        logged if ``warn``)."""
        try:
            return self.kind.entry_of(record)
        except StoreCorrupt as error:
            if warn:  # not again when looking again under the lease
                self._stat("store_corrupt")
                message = "scrapy_rep: ignoring a %s record: %s"
                self._log(logging.WARNING, message, self.policy.store, error)
            return None


def clock_time(when: float) -> str:
    """``when`` (seconds since the epoch) as the local time of day, as log lines show it."""
    return time.strftime("%H:%M:%S", time.localtime(when))


def seconds(value: float) -> str:
    """A number of seconds for people: whole seconds from 10 on (``600``, ``1,200``),
    two significant digits below (``4.5``, ``0.2``)."""
    return f"{value:,.0f}" if value >= 10 else f"{value:.2g}"
