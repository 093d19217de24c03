"""The lifecycle state machine (see :mod:`scrapy_rep.lifecycle`): requests, download
slots and the outcome of each download. Pure."""

from __future__ import annotations

import hashlib
import logging
import zlib
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any, Final, TypeVar

from scrapy_rep.cache import CacheEntry, DocumentCache, Freshness
from scrapy_rep.fetchpolicy import Effect, Policy
from scrapy_rep.fetchprocedure import ROBOTS_TXT, Document, Fetched
from scrapy_rep.lifecycle.events import (
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
    StartDownload,
    Stat,
    WakeAt,
)
from scrapy_rep.lifecycle.shared import SharedStoreSteps
from scrapy_rep.lifecycle.state import OriginState, Phase, Step
from scrapy_rep.records import SharedRecord, entry_of

D = TypeVar("D")

#: At most this many origins remember how often they were given up on.
_MAX_GAVE_UP: Final = 10_000


class Lifecycle(SharedStoreSteps[D]):
    """Every origin's document lifecycle (SPEC §4): one object per document kind."""

    def __init__(
        self,
        policy: Policy,
        parse: Callable[[bytes], D],
        stand_in: Callable[[bool], D],
        cache: DocumentCache[D],
        size_of: Callable[[D, bytes], int] = lambda rules, body: len(body),
        document: Document[Any] = ROBOTS_TXT,
    ) -> None:
        self.policy = policy
        self.document = document
        self.cache = cache
        self._parse = parse
        self._stand_in = stand_in
        #: The two stand-ins, to tell a shared record which one an entry holds.
        self._stand_ins: Final = ((stand_in(True), True), (stand_in(False), False))
        self._size_of = size_of
        self._states: dict[Key, OriginState] = {}
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
        return Phase.FAILING if state.step is Step.RETRY_WAIT else Phase.FETCHING

    def under_way(self, key: Key) -> bool:
        state = self._states.get(key)
        return state is not None and state.step is not None

    @property
    def downloading(self) -> bool:
        """A store lookup, lease, queued or running download (the spider must stay open)."""
        return any(
            s.step not in (None, Step.RETRY_WAIT) for s in self._states.values()
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
        state = self._states.setdefault(key, OriginState())
        if self.policy.store is None:
            self._enqueue(key, state, now)
        else:
            state.step = Step.LOOKUP
            self._do(LoadRecord(key, self._name(key)))

    def _timer_fired(self, key: Key, now: float) -> None:
        state = self._states.get(key)
        if state is None:
            return
        if state.step is Step.LEASE_WAIT:  # has the other process finished?
            state.step = Step.LOOKUP
            self._do(LoadRecord(key, self._name(key)))
        elif state.step is Step.RETRY_WAIT:
            if state.failing_since is not None and now > state.retry_at:
                # A late timer (a busy process): the crawler's delay, not the site's.
                state.queued += now - state.retry_at
            self._stat("retries")
            self._begin(key, now)

    # ------------------------------------------------------------------ download slots

    def _enqueue(self, key: Key, state: OriginState, now: float) -> None:
        state.queued_at = now
        if self._running < self.policy.concurrency:
            self._start(key, state, now)
        else:
            state.step = Step.QUEUED
            self._queue.append(key)

    def _start(self, key: Key, state: OriginState, now: float) -> None:
        self._running += 1
        if state.queued_at is not None and state.failing_since is not None:
            state.queued += now - state.queued_at  # our queue, not the site, made it wait
        state.queued_at = None
        state.step = Step.DOWNLOAD
        self._do(StartDownload(key))

    def _next_in_queue(self, now: float) -> None:
        while self._queue and self._running < self.policy.concurrency:
            key = self._queue.popleft()
            state = self._states.get(key)
            if state is not None and state.step is Step.QUEUED:
                self._start(key, state, now)

    # ------------------------------------------------------------------ outcomes

    def _downloaded(self, key: Key, fetched: Fetched, held: int, now: float) -> None:
        state = self._states.get(key)
        if state is None or state.step is not Step.DOWNLOAD:
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

    def _succeeded(self, key: Key, state: OriginState, fetched: Fetched, now: float) -> None:
        parsed = fetched.effect is Effect.PARSE
        rules = self._parse(fetched.body) if parsed else self._stand_in(True)
        policy = self.policy
        lifetime = policy.lifetime(fetched.cache_control)
        body_zlib = zlib.compress(fetched.body) if parsed else b""
        entry = CacheEntry(
            rules, fetched.outcome, now, now + lifetime, now + lifetime + policy.stale_max,
            fetched.status, body_zlib, False, self._size_of(rules, fetched.body) + len(body_zlib),
            hashlib.sha256(fetched.body).hexdigest() if parsed else "", fetched.final_url,
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

    def _failed(
        self, key: Key, state: OriginState, fetched: Fetched, held: int, now: float
    ) -> None:
        """SPEC §4: 429, 5xx, network error: stale copy, hold and retry, or give up."""
        policy = self.policy
        state.failures += 1
        state.last_outcome = fetched.outcome
        self._do(Announce(key, self._stand_in(False), fetched.outcome, fetched.status, False))
        if state.failing_since is None:
            state.failing_since = now
        delay = policy.backoff(state.failures, fetched.retry_after)
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
        state.step = Step.RETRY_WAIT
        self._do(WakeAt(key, state.retry_at))
        self._share(key, None, state, now)

    def _give_up(self, key: Key, state: OriginState, held: int, waited: float, now: float) -> None:
        """``max_wait`` is over and no good copy exists: the held requests are dropped, or
        allowed, for :meth:`Policy.gave_up_lifetime`."""
        policy = self.policy
        allow = policy.unreachable_action == "allow"
        verdict = "treated as allowed (REP_UNREACHABLE_ACTION)" if allow else "requests dropped"
        outcome = f"unreachable for {waited:.0f} s ({state.last_outcome}): {verdict}"
        times = self._gave_up.pop(key, 0) + 1
        self._gave_up[key] = times
        if len(self._gave_up) > _MAX_GAVE_UP:
            self._gave_up.popitem(last=False)
        lifetime = policy.gave_up_lifetime(times)
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

    def _entry_of(self, record: SharedRecord) -> CacheEntry[D]:
        return entry_of(record, self._parse, self._stand_in, self._size_of)

    def _verdict_of(self, entry: CacheEntry[D]) -> bool | None:
        """``True``/``False``: the entry holds the allow/disallow-all stand-in (what a
        record without a body stands for); ``None``: parsed rules, the body says it all.
        Asked of the stand-ins themselves, not of a ``verdict`` attribute only robots.txt
        has: a tdmrep.json "no file" was shared as ``None`` and read back as "reserved"."""
        for rules, verdict in self._stand_ins:
            if entry.rules is rules:
                return verdict
        return None

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
