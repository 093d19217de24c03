"""An origin's robots.txt over time: every fetch decision of SPEC §4, as a state machine.

Pure and sans-I/O, in the shape of h11's ``_state.py``: events come in as frozen
objects (:class:`RequestSeen`, :class:`RecordLoaded`, :class:`LeaseAnswered`,
:class:`Downloaded`, :class:`TimerFired`), the clock is an argument, and
:meth:`Lifecycle.handle` answers with frozen actions (:class:`LoadRecord`,
:class:`StartDownload`, :class:`WakeAt`, :class:`Release`, :class:`SaveRecord`,
:class:`Stat`, :class:`Log`…) that the Scrapy adapter performs. No timer, download,
store or request lives here.

The phases of one origin (:meth:`Lifecycle.phase`):

| phase | what is known | what is under way |
|---|---|---|
| unknown | nothing | nothing: the next request starts a fetch |
| fetching | nothing usable | a store lookup, a lease wait, a download slot or the download |
| fresh | a copy within its lifetime | nothing |
| stale | a copy past its lifetime, within the stale limit | nothing: next request refreshes |
| stale-refreshing | a stale copy, still used | a refresh, or the wait to retry one |
| failing | nothing usable; the download failed | the wait to retry; requests held |
| gave-up | the give-up verdict (drop or allow) | nothing until it expires |

One download slot is taken per download, at most ``concurrency`` at once (robots.txt
files that hang cannot take the whole crawl); the time an origin waits for a slot while
failing does not count against ``max_wait``, since the site was not asked meanwhile.
"""

from __future__ import annotations

import enum
import logging
import zlib
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from scrapy_rep.cache import CacheEntry, DocumentCache, Freshness
from scrapy_rep.fetchpolicy import Effect, cache_lifetime, retry_delay
from scrapy_rep.fetchprocedure import ROBOTS_TXT, Document, Fetched
from scrapy_rep.lifecycle_messages import (
    AcquireLease,
    Action,
    Announce,
    Downloaded,
    Event,
    Key,
    LeaseAnswered,
    LoadRecord,
    Log,
    RecordLoaded,
    Release,
    ReleaseLease,
    RequestSeen,
    SaveRecord,
    StartDownload,
    Stat,
    WakeAt,
)
from scrapy_rep.records import SharedRecord, StoreCorrupt, entry_of, record_of

D = TypeVar("D")

#: How often a process waiting for another one's download looks at the store (seconds).
LEASE_POLL: Final = 0.2
#: At most this many origins remember how often they were given up on.
_MAX_GAVE_UP: Final = 10_000


class Phase(enum.Enum):
    UNKNOWN = "unknown"
    FETCHING = "fetching"
    FRESH = "fresh"
    STALE = "stale"
    STALE_REFRESHING = "stale-refreshing"
    FAILING = "failing"
    GAVE_UP = "gave-up"


class _Step(enum.Enum):
    """What is under way for an origin."""

    LOOKUP = "lookup"
    LEASE = "lease"
    LEASE_WAIT = "lease-wait"
    QUEUED = "queued"
    DOWNLOAD = "download"
    RETRY_WAIT = "retry-wait"


# --------------------------------------------------------------------------- the machine


@dataclass(frozen=True)
class Policy:
    """The SPEC §4 numbers, from the ``REP_*`` settings."""

    retry_delay: float = 30.0
    max_wait: float = 600.0
    #: ``"drop"`` or ``"allow"`` the held requests after giving up.
    unreachable_action: str = "drop"
    cache_ttl: float = 86_400.0
    min_ttl: float = 60.0
    max_ttl: float = 7 * 86_400.0
    stale_max: float = 30 * 86_400.0
    #: Downloads at once.
    concurrency: int = 8
    lease_seconds: float = 185.0
    #: A shared store is asked before downloading (``None``: no store; else its name).
    store: str | None = None


@dataclass
class _Origin:
    """What is under way for one origin, and its failures since the last success."""

    step: _Step | None = None
    failures: int = 0
    failing_since: float | None = None
    #: Seconds spent waiting for a download slot since failing began.
    queued: float = 0.0
    queued_at: float | None = None
    #: No refresh of a stale copy, and no retry, before this time.
    retry_at: float = 0.0
    last_outcome: str = ""
    leased: bool = False


class Lifecycle(Generic[D]):
    """Every origin's document lifecycle (SPEC §4): one object per document kind."""

    def __init__(
        self,
        policy: Policy,
        parse: Callable[[bytes], D],
        stand_in: Callable[[bool], D],
        cache: DocumentCache[D],
        size_of: Callable[[D, bytes], int] = lambda rules, body: len(body),
        document: Document = ROBOTS_TXT,
    ) -> None:
        self.policy = policy
        self.document = document
        self.cache = cache
        self._parse = parse
        self._stand_in = stand_in
        self._size_of = size_of
        self._states: dict[Key, _Origin] = {}
        self._queue: deque[Key] = deque()
        self._running = 0
        self._gave_up: OrderedDict[Key, int] = OrderedDict()
        self._actions: list[Action] = []

    # ------------------------------------------------------------------ queries

    def usable_entry(self, key: Key, now: float) -> CacheEntry[D] | None:
        """The entry whose rules decide a request now (fresh, or stale while refreshing)."""
        entry = self.cache.get(key)
        return entry if entry is not None and now < entry.stale_until else None

    def fresh_entry(self, key: Key, now: float) -> CacheEntry[D] | None:
        """The entry if it is fresh: the hot path, no event needed."""
        entry = self.cache.get(key)
        return entry if entry is not None and now < entry.fresh_until else None

    def phase(self, key: Key, now: float) -> Phase:
        state = self._states.get(key)
        entry = self.cache.peek(key)
        if entry is not None and entry.usable(now):
            if entry.unreachable:
                return Phase.GAVE_UP
            if entry.freshness(now) is Freshness.FRESH:
                return Phase.FRESH
            busy = state is not None and (state.step is not None or state.failures > 0)
            return Phase.STALE_REFRESHING if busy else Phase.STALE
        if state is None or state.step is None:
            return Phase.UNKNOWN
        return Phase.FAILING if state.step is _Step.RETRY_WAIT else Phase.FETCHING

    def under_way(self, key: Key) -> bool:
        state = self._states.get(key)
        return state is not None and state.step is not None

    @property
    def downloading(self) -> bool:
        """A store lookup, lease, queued or running download (the spider must stay open)."""
        return any(
            s.step not in (None, _Step.RETRY_WAIT) for s in self._states.values()
        )  # fmt: skip

    @property
    def running(self) -> int:
        return self._running

    # ------------------------------------------------------------------ events

    def handle(self, event: Event, now: float) -> list[Action]:
        """Apply ``event`` at time ``now``; the actions for the adapter to perform."""
        actions: list[Action] = []
        self._actions = actions
        if isinstance(event, RequestSeen):
            self._request_seen(event.key, now)
        elif isinstance(event, RecordLoaded):
            self._record_loaded(event.key, event.record, now)
        elif isinstance(event, LeaseAnswered):
            self._lease_answered(event.key, event.granted, now)
        elif isinstance(event, Downloaded):
            self._downloaded(event.key, event.fetched, event.held, now)
        else:
            self._timer_fired(event.key, now)
        self._actions = []
        return actions

    def _request_seen(self, key: Key, now: float) -> None:
        entry = self.cache.get(key)
        state = self._states.get(key)
        if entry is not None:
            freshness = entry.freshness(now)
            if freshness is Freshness.FRESH:
                return
            if freshness is Freshness.STALE:
                # The old copy stays in use while it is refreshed, and while refreshes
                # fail, up to its stale limit (SPEC §4).
                if state is None or (state.step is None and now >= state.retry_at):
                    self._begin(key, now)
                return
            self.cache.discard(key)
        if state is None or state.step is None:
            self._begin(key, now)

    def _begin(self, key: Key, now: float) -> None:
        state = self._states.setdefault(key, _Origin())
        if self.policy.store is None:
            self._enqueue(key, state, now)
        else:
            state.step = _Step.LOOKUP
            self._do(LoadRecord(key, self._name(key)))

    def _record_loaded(self, key: Key, record: SharedRecord | None, now: float) -> None:
        state = self._states.get(key)
        if state is None or state.step is not _Step.LOOKUP:
            return
        if record is None:
            return self._lease(key, state)
        try:
            entry = entry_of(record, self._parse, self._stand_in, self._size_of)
        except StoreCorrupt as error:
            self._stat("store_corrupt")
            self._log(
                logging.WARNING, "scrapy_rep: ignoring a %s record: %s", self.policy.store, error
            )
            return self._lease(key, state)
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
            self._lease(key, state)  # stale and nobody is trying: this process downloads

    def _follow_schedule(
        self, key: Key, state: _Origin, record: SharedRecord, entry: CacheEntry[D], now: float
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
        state.step = _Step.RETRY_WAIT
        self._do(WakeAt(key, record.retry_at))

    def _lease(self, key: Key, state: _Origin) -> None:
        state.step = _Step.LEASE
        self._do(AcquireLease(key, self._name(key), self.policy.lease_seconds))

    def _lease_answered(self, key: Key, granted: bool | None, now: float) -> None:
        state = self._states.get(key)
        if state is None or state.step is not _Step.LEASE:
            return
        if granted is False:
            state.step = _Step.LEASE_WAIT
            self._do(WakeAt(key, now + LEASE_POLL))
            return
        state.leased = bool(granted)
        self._enqueue(key, state, now)

    def _timer_fired(self, key: Key, now: float) -> None:
        state = self._states.get(key)
        if state is None:
            return
        if state.step is _Step.LEASE_WAIT:  # has the other process finished?
            state.step = _Step.LOOKUP
            self._do(LoadRecord(key, self._name(key)))
        elif state.step is _Step.RETRY_WAIT:
            self._stat("retries")
            self._begin(key, now)

    # ------------------------------------------------------------------ download slots

    def _enqueue(self, key: Key, state: _Origin, now: float) -> None:
        state.queued_at = now
        if self._running < self.policy.concurrency:
            self._start(key, state, now)
        else:
            state.step = _Step.QUEUED
            self._queue.append(key)

    def _start(self, key: Key, state: _Origin, now: float) -> None:
        self._running += 1
        if state.queued_at is not None and state.failing_since is not None:
            state.queued += now - state.queued_at  # our queue, not the site, made it wait
        state.queued_at = None
        state.step = _Step.DOWNLOAD
        self._do(StartDownload(key))

    def _next_in_queue(self, now: float) -> None:
        while self._queue and self._running < self.policy.concurrency:
            key = self._queue.popleft()
            state = self._states.get(key)
            if state is not None and state.step is _Step.QUEUED:
                self._start(key, state, now)

    # ------------------------------------------------------------------ outcomes

    def _downloaded(self, key: Key, fetched: Fetched, held: int, now: float) -> None:
        state = self._states.get(key)
        if state is None or state.step is not _Step.DOWNLOAD:
            return
        self._running -= 1
        self._next_in_queue(now)
        state.step = None
        self._stat(f"outcome/{fetched.kind}")
        if fetched.truncated:
            self._stat("outcome/truncated")
        if fetched.effect is Effect.UNREACHABLE:
            self._failed(key, state, fetched, held, now)
        else:
            self._succeeded(key, state, fetched, now)
        if state.leased:
            state.leased = False
            self._do(ReleaseLease(key, self._name(key)))

    def _succeeded(self, key: Key, state: _Origin, fetched: Fetched, now: float) -> None:
        parsed = fetched.effect is Effect.PARSE
        rules = self._parse(fetched.body) if parsed else self._stand_in(True)
        policy = self.policy
        lifetime = cache_lifetime(
            fetched.cache_control, policy.cache_ttl, policy.min_ttl, policy.max_ttl
        )
        body_zlib = zlib.compress(fetched.body) if parsed else b""
        entry = CacheEntry(
            rules, fetched.outcome, now, now + lifetime, now + lifetime + policy.stale_max,
            fetched.status, body_zlib, False, self._size_of(rules, fetched.body) + len(body_zlib),
        )  # fmt: skip
        self._put(key, entry)
        self._share(key, entry, None, now)
        self._gave_up.pop(key, None)
        if fetched.kind == "ignored":  # not the site's answer: say so once per download
            self._log(logging.WARNING, "%s of %s %s", self.document.name, key, fetched.outcome)
        else:
            self._log(logging.DEBUG, "%s of %s: %s", self.document.name, key, fetched.outcome)
        if state.failures:
            self._log(
                logging.INFO, "%s of %s is back after %d failed attempt(s): %s",
                self.document.name, key, state.failures, fetched.outcome,
            )  # fmt: skip
        self._states.pop(key, None)
        self._do(Announce(key, rules, fetched.outcome, fetched.status, True))
        self._do(Release(key, entry, state.failures))

    def _failed(self, key: Key, state: _Origin, fetched: Fetched, held: int, now: float) -> None:
        """SPEC §4: 429, 5xx, network error: stale copy, hold and retry, or give up."""
        policy = self.policy
        state.failures += 1
        state.last_outcome = fetched.outcome
        self._do(Announce(key, self._stand_in(False), fetched.outcome, fetched.status, False))
        if state.failing_since is None:
            state.failing_since = now
        upper = max(policy.retry_delay, policy.max_wait)
        delay = retry_delay(state.failures - 1, policy.retry_delay, upper, fetched.retry_after)
        old = self.cache.get(key)
        if old is not None and old.freshness(now) is Freshness.STALE and not old.unreachable:
            state.retry_at = now + delay
            self._stat("stale_kept")
            self._log(
                logging.INFO,
                "%s of %s: %s; keeping the copy fetched %.0f s ago, next try in %.0f s",
                self.document.name, key, fetched.outcome, now - old.fetched_at, delay,
            )  # fmt: skip
            self._share(key, old, state, now)
            self._do(Release(key, old, state.failures))
            return
        waited = now - state.failing_since - state.queued
        if waited >= policy.max_wait:
            self._give_up(key, state, held, waited, now)
            return
        delay = min(delay, policy.max_wait - waited)
        self._log(
            logging.INFO, "%s of %s: %s; holding its %d request(s), retry %d in %.3g s",
            self.document.name, key, fetched.outcome, held, state.failures, delay,
        )  # fmt: skip
        state.retry_at = now + delay
        state.step = _Step.RETRY_WAIT
        self._do(WakeAt(key, state.retry_at))
        self._share(key, None, state, now)

    def _give_up(self, key: Key, state: _Origin, held: int, waited: float, now: float) -> None:
        """``max_wait`` is over and no good copy exists: the held requests are dropped, or
        allowed. The verdict lasts ``max_wait``, doubling each time the same origin is
        given up on again (a dead site is not probed every few seconds all crawl long),
        at most the cache lifetime."""
        policy = self.policy
        allow = policy.unreachable_action == "allow"
        verdict = "treated as allowed (REP_UNREACHABLE_ACTION)" if allow else "requests dropped"
        outcome = f"unreachable for {waited:.0f} s ({state.last_outcome}): {verdict}"
        times = self._gave_up.pop(key, 0) + 1
        self._gave_up[key] = times
        if len(self._gave_up) > _MAX_GAVE_UP:
            self._gave_up.popitem(last=False)
        base = max(policy.max_wait, policy.retry_delay)
        lifetime = min(base * 2 ** min(times - 1, 30), max(base, policy.cache_ttl))
        rules = self._stand_in(allow)
        entry = CacheEntry(rules, outcome, now, now + lifetime, now + lifetime, None, b"", True)
        self._put(key, entry)
        self._states.pop(key, None)
        self._stat("gave_up")
        self._do(Announce(key, rules, outcome, None, False))
        self._log(
            logging.WARNING if times == 1 else logging.INFO,  # WARNING once, INFO if still down
            "%s of %s %s; %d held request(s) %s",
            self.document.name, key, outcome, held, "go on" if allow else "will be dropped",
        )  # fmt: skip
        self._share(key, entry, state, now)
        self._do(Release(key, entry, state.failures))

    # ------------------------------------------------------------------ helpers

    def _put(self, key: Key, entry: CacheEntry[D]) -> None:
        self.cache.put(key, entry)

    def _share(
        self, key: Key, entry: CacheEntry[D] | None, failing: _Origin | None, now: float
    ) -> None:
        """Tell the other processes what the download came to (SPEC §4, shared cache):
        the usable ``entry`` (if any) and, while ``failing``, its retry schedule."""
        if self.policy.store is None:
            return
        verdict = None if entry is None else getattr(entry.rules, "verdict", None)
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

    def _name(self, key: Key) -> str:
        """The origin's name in the shared store."""
        suffix = "" if self.document is ROBOTS_TXT else self.document.path
        return f"{key}{suffix}"

    def _do(self, action: Action) -> None:
        self._actions.append(action)

    def _stat(self, name: str, count: int = 1) -> None:
        self._actions.append(Stat(f"{self.document.stat_prefix}/{name}", count))

    def _log(self, level: int, message: str, *args: Any) -> None:
        self._actions.append(Log(level, message, args))
