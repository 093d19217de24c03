"""SPEC §4 as a state machine: an origin's robots.txt lifecycle, driven by plain calls.

No reactor, no engine, no Scrapy: events go in with the time, actions come out (h11's
way of testing a protocol). Each test names the clause it covers.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from rep_engine.fetch.cache import DocumentCache
from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.fetch.lifecycle.events import (
    AcquireLease,
    Action,
    Announce,
    Downloaded,
    DownloadStopped,
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
    TimerFired,
    WakeAt,
)
from rep_engine.fetch.lifecycle.machine import Lifecycle
from rep_engine.fetch.lifecycle.shared import LEASE_POLL
from rep_engine.fetch.lifecycle.state import Phase, Step
from rep_engine.fetch.procedure import Fetched, FetchProcedure
from rep_engine.fetch.rules import Policy
from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, RobotsTxt, parse_robotstxt
from tests.support.lifecycles import (
    RULES,
    T0,
    Announcing,
    actions_of,
    robots_fetched,
    shared_record,
)

A, B, C = "http://a.example", "http://b.example", "http://c.example"


def robots_lifecycle(**policy: Any) -> Lifecycle[RobotsTxt]:
    settings = {"retry_delay": 10.0, "max_wait": 100.0, **policy}
    return Announcing(Policy(**settings), ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt))


def stats(actions: list[Action]) -> dict[str, int]:
    return {s.name: s.count for s in actions_of(Stat, actions)}


def download(life: Lifecycle[RobotsTxt], key: str, fetched: Fetched, now: float) -> list[Action]:
    """A request arrives and the download it starts comes to ``fetched``."""
    started = life.handle(RequestSeen(key), now)
    assert actions_of(StartDownload, started) == [StartDownload(key)]
    return life.handle(Downloaded(key, fetched, held=1), now)


# --------------------------------------------------------------------------- one download


def test_spec4_one_download_per_origin_then_fresh_copy_decides() -> None:
    life = robots_lifecycle()
    assert life.phase(A, T0) is Phase.UNKNOWN
    assert life.handle(RequestSeen(A), T0) == [StartDownload(A)]
    assert life.phase(A, T0) is Phase.FETCHING
    assert life.handle(RequestSeen(A), T0) == []  # the same download serves it
    assert life.usable_entry(A, T0) is None  # hold
    actions = life.handle(Downloaded(A, robots_fetched(200, RULES), held=2), T0 + 1)
    [release] = actions_of(Release, actions)
    assert release.failures == 0 and release.entry.outcome == "200 (33 bytes)"
    assert not release.entry.rules.allowed(f"{A}/private", "bot")
    [announce] = actions_of(Announce, actions)
    assert announce.known and announce.status == 200
    assert stats(actions) == {"rep/robotstxt/outcome/parsed": 1}
    assert life.phase(A, T0 + 1) is Phase.FRESH
    assert life.fresh_entry(A, T0 + 1) is release.entry
    assert life.handle(RequestSeen(A), T0 + 2) == []


def test_spec4_4xx_caches_allow_all_for_the_default_lifetime() -> None:
    life = robots_lifecycle(cache_ttl=3600.0)
    [release] = actions_of(Release, download(life, A, robots_fetched(404), T0))
    assert release.entry.rules is ALLOW_ALL
    assert release.entry.fresh_until == T0 + 3600


# --------------------------------------------------------------------------- freshness


def test_spec4_cache_control_max_age_then_the_stale_copy_decides_while_refreshing() -> None:
    life = robots_lifecycle()
    download(life, A, robots_fetched(200, RULES, cache_control="max-age=120"), T0)
    assert life.phase(A, T0 + 119) is Phase.FRESH
    assert life.handle(RequestSeen(A), T0 + 119) == []
    assert life.phase(A, T0 + 121) is Phase.STALE
    assert life.handle(RequestSeen(A), T0 + 121) == [StartDownload(A)]
    assert life.phase(A, T0 + 121) is Phase.STALE_REFRESHING
    stale = life.usable_entry(A, T0 + 121)
    assert stale is not None and stale.outcome == "200 (33 bytes)"  # it still decides
    life.handle(
        Downloaded(A, robots_fetched(200, b"User-agent: *\nDisallow: /\n"), held=0), T0 + 122
    )
    fresh = life.fresh_entry(A, T0 + 122)
    assert fresh is not None and not fresh.rules.allowed(f"{A}/x", "bot")


@pytest.mark.parametrize(
    ("cache_control", "lifetime"),
    [
        ("max-age=10", 60.0),
        ("max-age=999999999", 7 * 86_400.0),
        ("no-store", 60.0),
        (None, 86_400.0),
    ],
)
def test_spec4_cache_control_is_honoured_within_bounds(
    cache_control: str | None, lifetime: float
) -> None:
    life = robots_lifecycle(min_ttl=60.0, max_ttl=7 * 86_400.0, cache_ttl=86_400.0)
    headers = {"cache_control": cache_control} if cache_control else {}
    [release] = actions_of(Release, download(life, A, robots_fetched(200, RULES, **headers), T0))
    assert release.entry.fresh_until - T0 == lifetime


def test_spec4_a_failed_refresh_keeps_the_old_copy_until_the_stale_limit() -> None:
    life = robots_lifecycle(cache_ttl=100.0, min_ttl=0.0, stale_max=1000.0)
    download(life, A, robots_fetched(200, RULES), T0)
    actions = download(life, A, robots_fetched(503), T0 + 101)
    assert stats(actions)["rep/robotstxt/stale_kept"] == 1
    [release] = actions_of(Release, actions)  # requests held meanwhile go on with the old copy
    assert release.failures == 1 and release.entry.outcome == "200 (33 bytes)"
    assert actions_of(WakeAt, actions) == []  # no timer: the next request after the backoff tries
    assert life.phase(A, T0 + 102) is Phase.STALE_REFRESHING
    assert life.handle(RequestSeen(A), T0 + 105) == []  # the backoff (10 s) is not over
    assert life.handle(RequestSeen(A), T0 + 112) == [StartDownload(A)]
    life.handle(Downloaded(A, robots_fetched(503), held=0), T0 + 112)
    assert life.usable_entry(A, T0 + 1099) is not None
    assert life.usable_entry(A, T0 + 1101) is None  # past the stale limit: hold again
    assert life.handle(RequestSeen(A), T0 + 1101) == [StartDownload(A)]


# --------------------------------------------------------------------------- unreachable


def test_spec4_backoff_doubles_honours_retry_after_and_gives_up() -> None:
    life = robots_lifecycle(retry_delay=10.0, max_wait=100.0)
    actions = download(life, A, robots_fetched(429, retry_after="45"), T0)
    assert actions_of(WakeAt, actions) == [WakeAt(A, T0 + 45)]  # Retry-After beats the 10 s
    assert [a.known for a in actions_of(Announce, actions)] == [False]
    assert actions_of(Release, actions) == []  # held
    assert life.phase(A, T0 + 1) is Phase.FAILING
    assert life.handle(RequestSeen(A), T0 + 1) == []  # still held, no extra download
    retry = life.handle(TimerFired(A), T0 + 45)
    assert retry == [Stat("rep/robotstxt/retries"), StartDownload(A)]
    actions = life.handle(Downloaded(A, robots_fetched(503), held=3), T0 + 45)
    assert actions_of(WakeAt, actions) == [WakeAt(A, T0 + 45 + 20)]  # second try: 10 × 2
    life.handle(TimerFired(A), T0 + 65)
    actions = life.handle(Downloaded(A, robots_fetched(503), held=3), T0 + 65)
    assert actions_of(WakeAt, actions) == [WakeAt(A, T0 + 65 + 35)]  # 40 s, cut to the 100 s limit
    life.handle(TimerFired(A), T0 + 100)
    actions = life.handle(Downloaded(A, robots_fetched(503), held=3), T0 + 100)
    [release] = actions_of(Release, actions)
    assert release.entry.rules is DISALLOW_ALL and release.entry.unreachable
    assert release.failures == 4
    assert release.entry.outcome == (
        "unreachable for 100 s (503: temporarily everything disallowed): requests dropped"
    )
    assert stats(actions)["rep/robotstxt/gave_up"] == 1
    [warning] = [log for log in actions_of(Log, actions) if log.level == logging.WARNING]
    assert warning.args[-2:] == (3, "dropped")
    assert life.phase(A, T0 + 101) is Phase.GAVE_UP


def test_spec4_unreachable_action_allow_lets_the_held_requests_go_on() -> None:
    life = robots_lifecycle(max_wait=0.0, unreachable_action="allow")
    [release] = actions_of(Release, download(life, A, robots_fetched(500), T0))
    assert release.entry.rules is ALLOW_ALL and release.entry.unreachable


def test_spec4_an_origin_given_up_on_again_is_left_alone_twice_as_long() -> None:
    life = robots_lifecycle(retry_delay=10.0, max_wait=0.0)
    lifetimes = []
    now = T0
    for _ in range(3):
        [release] = actions_of(Release, download(life, A, robots_fetched(503), now))
        lifetimes.append(release.entry.fresh_until - now)
        now = release.entry.fresh_until + 1  # the verdict is over: try again
    assert lifetimes == [10, 20, 40]


def test_spec4_network_errors_and_our_own_errors_are_held_and_retried() -> None:
    for fetched, kind in [
        (FetchProcedure(ROBOTS_TXT, A).on_network_error("ConnectionRefusedError"), "network_error"),
        (FetchProcedure(ROBOTS_TXT, A).on_internal_error("AttributeError: x"), "internal_error"),
    ]:
        life = robots_lifecycle()
        actions = download(life, A, fetched, T0)
        # Not named by the driver: held as long as a 5xx.
        assert stats(actions) == {
            f"rep/robotstxt/outcome/{kind}": 1,
            "rep/robotstxt/failure/other": 1,
        }
        assert (
            actions_of(WakeAt, actions) == [WakeAt(A, T0 + 10)]
            and actions_of(Release, actions) == []
        )


def test_a_robotstxt_ignored_by_another_component_allows_at_once_with_a_warning() -> None:
    life = robots_lifecycle()
    actions = download(life, A, FetchProcedure(ROBOTS_TXT, A).on_ignored("filtered"), T0)
    [release] = actions_of(Release, actions)
    assert release.entry.rules is ALLOW_ALL and not release.entry.unreachable
    assert [log.level for log in actions_of(Log, actions)] == [logging.WARNING]


# --------------------------------------------------------------------------- download slots


def test_spec4_downloads_wait_for_a_slot_and_queue_time_is_not_the_sites_fault() -> None:
    life = robots_lifecycle(concurrency=1, retry_delay=10.0, max_wait=30.0)
    assert life.handle(RequestSeen(A), T0) == [StartDownload(A)]
    assert life.handle(RequestSeen(B), T0) == []  # queued behind A
    assert life.phase(B, T0) is Phase.FETCHING
    assert actions_of(
        StartDownload, life.handle(Downloaded(A, robots_fetched(503), held=1), T0 + 1)
    ) == [StartDownload(B)]
    life.handle(TimerFired(A), T0 + 11)  # A's retry waits for B's slot
    assert life.running == 1
    # B takes 100 s to answer; A waited for the slot all that time.
    actions = life.handle(Downloaded(B, robots_fetched(200, RULES), held=1), T0 + 101)
    assert actions_of(StartDownload, actions) == [StartDownload(A)]
    actions = life.handle(Downloaded(A, robots_fetched(503), held=1), T0 + 102)
    # 101 s after A first failed, but 90 s of it in the queue: A is retried, not given up.
    assert actions_of(Release, actions) == [] and len(actions_of(WakeAt, actions)) == 1


def test_spec4_a_retry_timer_that_fires_late_is_not_the_sites_fault() -> None:
    life = robots_lifecycle(retry_delay=1.0, max_wait=10.0)
    actions = download(life, A, robots_fetched(503), T0)
    assert actions_of(WakeAt, actions) == [WakeAt(A, T0 + 1)]
    # The process was busy: the 1 s timer fires 12 s late.
    assert actions_of(StartDownload, life.handle(TimerFired(A), T0 + 13)) == [StartDownload(A)]
    actions = life.handle(Downloaded(A, robots_fetched(503), held=1), T0 + 13.5)
    # 13.5 s after the first failure, but 12 s of it the crawler's: retried, not given up.
    assert actions_of(Release, actions) == [] and actions_of(WakeAt, actions) == [
        WakeAt(A, T0 + 15.5)
    ]
    life.handle(TimerFired(A), T0 + 15.5)
    actions = life.handle(Downloaded(A, robots_fetched(503), held=1), T0 + 26)
    [release] = actions_of(Release, actions)  # 14 s of the site's own time: given up
    assert release.entry.unreachable


# --------------------------------------------------------------------------- shared store


def test_shared_store_a_fresh_record_is_adopted_without_a_download() -> None:
    life = robots_lifecycle(store="redis")
    assert life.handle(RequestSeen(A), T0) == [LoadRecord(A, A)]
    actions = life.handle(RecordLoaded(A, shared_record()), T0)
    assert actions_of(StartDownload, actions) == []
    [announce] = actions_of(Announce, actions)
    assert announce.outcome == "200 (33 bytes) (from the redis cache)"
    assert stats(actions) == {"rep/robotstxt/store_hits": 1}
    assert actions_of(Release, actions)[0].entry.fresh_until == T0 + 100


def test_shared_store_one_process_downloads_under_a_lease_and_shares_the_result() -> None:
    life = robots_lifecycle(store="redis", lease_seconds=185.0)
    life.handle(RequestSeen(A), T0)
    assert life.handle(RecordLoaded(A, None), T0) == [AcquireLease(A, A, 185.0)]
    assert life.handle(LeaseAnswered(A, True), T0) == [LoadRecord(A, A)]  # one more look
    assert life.handle(RecordLoaded(A, None), T0) == [StartDownload(A)]
    actions = life.handle(Downloaded(A, robots_fetched(200, RULES), held=0), T0 + 1)
    [save] = actions_of(SaveRecord, actions)
    assert save.record.body_zlib and save.record.failures == 0
    assert save.keep_for == pytest.approx(save.record.stale_until - (T0 + 1))
    store_calls = [a for a in actions if isinstance(a, (SaveRecord, ReleaseLease))]
    assert store_calls[-1] == ReleaseLease(A, A)  # after the record is shared


def test_the_close_lets_go_a_lease_whose_download_is_queued_in_this_process() -> None:
    """A lease taken for a download queued behind another (one document download at a
    time) was kept past the close: a resumed or other worker waited the lease's time
    (95 s with a 15 s ``DOWNLOAD_TIMEOUT``) before it downloaded that robots.txt, holding
    the origin's requests meanwhile. At the close the lifecycle names the leases it holds,
    once; none is named for a download that ended (its own was given back then)."""
    life = robots_lifecycle(store="redis", lease_seconds=95.0, concurrency=1)
    for key in (A, B):
        life.handle(RequestSeen(key), T0)
        assert life.handle(RecordLoaded(key, None), T0) == [AcquireLease(key, key, 95.0)]
        assert life.handle(LeaseAnswered(key, True), T0) == [LoadRecord(key, key)]
    assert life.handle(RecordLoaded(A, None), T0) == [StartDownload(A)]
    assert life.handle(RecordLoaded(B, None), T0) == []  # queued behind A's download
    life.handle(Downloaded(A, robots_fetched(200, RULES), held=0), T0 + 1)  # B starts
    actions = life.handle(Downloaded(B, robots_fetched(200, RULES), held=0), T0 + 2)
    assert actions_of(ReleaseLease, actions) == [ReleaseLease(B, B)]
    assert life.leases_held() == []
    life = robots_lifecycle(store="redis", lease_seconds=95.0, concurrency=1)
    for key in (A, B):
        life.handle(RequestSeen(key), T0)
        life.handle(RecordLoaded(key, None), T0)
        life.handle(LeaseAnswered(key, True), T0)
        life.handle(RecordLoaded(key, None), T0)
    assert life.leases_held() == [ReleaseLease(A, A), ReleaseLease(B, B)]
    assert life.leases_held() == []


def test_a_download_stopped_with_the_crawl_frees_its_slot_and_lease_and_learns_nothing() -> None:
    """A download that ended as the crawl stopped (mostly the stop's own cut) is not the
    site's answer: the lifecycle counts, shares and gives up on nothing, but its slot
    goes to the download queued behind it (a request awaiting that document in place kept
    the close waiting forever when the slot stayed taken) and its lease is let go."""
    life = robots_lifecycle(store="redis", lease_seconds=95.0, concurrency=1)
    for key in (A, B):
        life.handle(RequestSeen(key), T0)
        life.handle(RecordLoaded(key, None), T0)
        life.handle(LeaseAnswered(key, True), T0)
    assert life.handle(RecordLoaded(A, None), T0) == [StartDownload(A)]
    assert life.handle(RecordLoaded(B, None), T0) == []  # queued behind A's download
    actions = life.handle(DownloadStopped(A), T0 + 1)
    assert actions == [StartDownload(B), ReleaseLease(A, A)]
    assert (life.step_of(A), life.step_of(B), life.running) == (Step.IDLE, Step.DOWNLOAD, 1)
    assert life.phase(A, T0 + 1) is Phase.UNKNOWN and life.leases_held() == [ReleaseLease(B, B)]
    # The next request for A fetches it again, as if the stopped download never ran.
    assert life.handle(RequestSeen(A), T0 + 2) == [LoadRecord(A, A)]


def test_a_store_of_this_process_alone_is_looked_up_once_and_takes_no_lease() -> None:
    """JOBDIR's store (``Policy.store_exclusive``): nobody else can save a record between
    our look and our download, so no lease is asked for, no second look is made and none
    is given back: one load and one save per download, the record still adopted and
    shared as with a shared store."""
    life = robots_lifecycle(store="jobdir", store_exclusive=True)
    assert life.handle(RequestSeen(A), T0) == [LoadRecord(A, A)]
    assert life.handle(RecordLoaded(A, None), T0) == [StartDownload(A)]
    actions = life.handle(Downloaded(A, robots_fetched(200, RULES), held=0), T0 + 1)
    assert actions_of(AcquireLease, actions) == actions_of(ReleaseLease, actions) == []
    [save] = actions_of(SaveRecord, actions)
    assert save.record.body_zlib and save.record.failures == 0
    # A record of the run before (a resumed crawl) is adopted as before, no lease given back.
    assert life.handle(RequestSeen(B), T0) == [LoadRecord(B, B)]
    actions = life.handle(RecordLoaded(B, shared_record(B)), T0)
    assert actions_of(StartDownload, actions) == actions_of(ReleaseLease, actions) == []
    assert stats(actions) == {"rep/robotstxt/store_hits": 1}
    # A stale record nobody refreshes: downloaded at once, still without a lease.
    life.handle(RequestSeen(C), T0)
    stale = shared_record(C, fresh_until=T0 - 1)
    assert life.handle(RecordLoaded(C, stale), T0) == [StartDownload(C)]


def test_shared_store_another_process_holds_the_lease_we_wait_and_adopt() -> None:
    life = robots_lifecycle(store="redis")
    life.handle(RequestSeen(A), T0)
    life.handle(RecordLoaded(A, None), T0)
    assert life.handle(LeaseAnswered(A, False), T0) == [WakeAt(A, T0 + LEASE_POLL)]
    assert life.handle(TimerFired(A), T0 + LEASE_POLL) == [LoadRecord(A, A)]
    actions = life.handle(RecordLoaded(A, shared_record()), T0 + LEASE_POLL)
    assert actions_of(Release, actions) and actions_of(StartDownload, actions) == []


def test_shared_store_a_record_saved_between_our_lookup_and_our_lease_is_adopted() -> None:
    """Another process downloaded, saved and released its lease after our first look
    and before our lease: the look again under the lease finds its record (this race
    made two workers download one robots.txt)."""
    life = robots_lifecycle(store="redis")
    life.handle(RequestSeen(A), T0)
    life.handle(RecordLoaded(A, None), T0)
    assert life.handle(LeaseAnswered(A, True), T0) == [LoadRecord(A, A)]
    actions = life.handle(RecordLoaded(A, shared_record()), T0)
    assert actions_of(StartDownload, actions) == []
    assert actions_of(Release, actions) and actions_of(ReleaseLease, actions) == [
        ReleaseLease(A, A)
    ]
    assert life.phase(A, T0) is Phase.FRESH


def test_shared_store_a_failing_origin_keeps_to_the_shared_retry_schedule() -> None:
    life = robots_lifecycle(store="redis")
    life.handle(RequestSeen(A), T0)
    failing = shared_record(
        body_zlib=b"",
        verdict=False,
        status=None,
        fresh_until=0.0,
        stale_until=0.0,
        failures=2,
        failing_since=T0 - 30,
        retry_at=T0 + 40,
    )
    actions = life.handle(RecordLoaded(A, failing), T0)
    assert actions_of(WakeAt, actions) == [WakeAt(A, T0 + 40)]
    assert stats(actions) == {"rep/robotstxt/store_schedule_followed": 1}
    assert life.phase(A, T0 + 1) is Phase.FAILING
    assert life.handle(TimerFired(A), T0 + 40) == [
        Stat("rep/robotstxt/retries"),
        LoadRecord(A, A),
    ]


def test_shared_store_a_corrupt_record_is_ignored_and_a_store_outage_downloads_alone() -> None:
    life = robots_lifecycle(store="jobdir")
    life.handle(RequestSeen(A), T0)
    actions = life.handle(RecordLoaded(A, shared_record(body_zlib=b"not zlib")), T0)
    assert stats(actions) == {"rep/robotstxt/store_corrupt": 1}
    assert actions_of(AcquireLease, actions)
    assert life.handle(LeaseAnswered(A, None), T0) == [StartDownload(A)]  # store down
    actions = life.handle(Downloaded(A, robots_fetched(404), held=0), T0)
    assert actions_of(ReleaseLease, actions) == []  # no lease was taken


def test_answers_that_come_too_late_change_nothing() -> None:
    life = robots_lifecycle(store="redis")
    assert life.handle(RecordLoaded(A, shared_record()), T0) == []
    assert life.handle(LeaseAnswered(A, True), T0) == []
    assert life.handle(TimerFired(A), T0) == []
    assert life.handle(Downloaded(A, robots_fetched(200, RULES)), T0) == []
    assert life.phase(A, T0) is Phase.UNKNOWN


def test_spec4_an_expired_copy_is_dropped_and_fetched_again() -> None:
    life = robots_lifecycle(cache_ttl=100.0, min_ttl=0.0, stale_max=0.0)
    download(life, A, robots_fetched(200, RULES), T0)
    assert life.usable_entry(A, T0 + 100) is None
    assert life.handle(RequestSeen(A), T0 + 100) == [StartDownload(A)]
    assert life.phase(A, T0 + 100) is Phase.FETCHING
    assert life.usable_entry(C, T0) is None
