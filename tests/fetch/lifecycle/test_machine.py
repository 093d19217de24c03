"""The lifecycle's transition table, driven pair by pair (SPEC §4; docs/decisions.md,
'The lifecycle's transitions are one table').

Each case puts an origin in one :class:`Step`, sends one event and asserts the actions
and the next step. The events a step ignores (a store answer after a restart, a lease
answer after giving up, a timer already replaced, a download the machine did not start)
are cases too: nothing comes out and nothing changes. A last test checks that the
table and these cases cover every (step, event) pair the machine can meet.
"""

from __future__ import annotations

import ast
import logging
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_args

import pytest

from rep_engine.fetch.cache import DocumentCache
from rep_engine.fetch.kinds import ROBOTS_TXT, DocumentKind
from rep_engine.fetch.lifecycle.events import (
    AcquireLease,
    Action,
    Announce,
    Announced,
    Downloaded,
    DownloadStopped,
    Event,
    LeaseAnswered,
    LoadRecord,
    Log,
    RecordLoaded,
    Release,
    ReleaseLease,
    RequestSeen,
    SaveRecord,
    SlotFreed,
    StartDownload,
    Stat,
    TimerFired,
    WakeAt,
)
from rep_engine.fetch.lifecycle.machine import EVENTS, TRANSITIONS, Lifecycle
from rep_engine.fetch.lifecycle.shared import LEASE_POLL
from rep_engine.fetch.lifecycle.state import Phase, Step
from rep_engine.fetch.procedure import Fetched, FetchProcedure
from rep_engine.fetch.rules import FailureClass, Policy
from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from tests.support.lifecycles import RULES, T0, actions_of, robots_fetched, shared_record
from tests.support.paths import ENGINE

A, B = "http://a.example", "http://b.example"
LIFECYCLE = ENGINE / "fetch" / "lifecycle"
#: ``connect_max_wait`` of these machines: shorter than the first retry delay (10 s).
CONNECT_WAIT = 4.0


def failed(failure: FailureClass) -> Fetched:
    """A download that got no answer, for the reason ``failure`` (the driver's reading)."""
    procedure = FetchProcedure(ROBOTS_TXT, f"{A}/robots.txt")
    return procedure.on_network_error(f"{failure.value} error", failure)


#: Another process is failing: nothing usable, retry at T0 + 40.
FAILING = shared_record(
    body_zlib=b"", verdict=False, status=None, fresh_until=0.0, stale_until=0.0,
    failures=2, failing_since=T0 - 30, retry_at=T0 + 40,
)  # fmt: skip


def stepwise_lifecycle(
    store: str | None = None, concurrency: int = 4, max_wait: float = 100.0
) -> Lifecycle[RobotsTxt]:
    policy = Policy(
        retry_delay=10.0, max_wait=max_wait, connect_max_wait=CONNECT_WAIT, store=store,
        concurrency=concurrency,
    )  # fmt: skip
    return Lifecycle(policy, ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt))


def arrive(step: Step, store: str | None) -> Lifecycle[RobotsTxt]:
    """A machine whose origin A is in ``step`` at T0 (by events only)."""
    if step is Step.QUEUED:
        life = stepwise_lifecycle(concurrency=1)
        assert life.handle(RequestSeen(B), T0) == [StartDownload(B)]  # B takes the slot
    elif step in (Step.IDLE, Step.DOWNLOAD, Step.RETRY_WAIT, Step.ANNOUNCING):
        life = stepwise_lifecycle(store)
    else:
        life = stepwise_lifecycle("redis")
    #: With a store, the download starts once the store is found down.
    start: list[Event] = [RequestSeen(A)]
    if store is not None:
        start += [RecordLoaded(A, None), LeaseAnswered(A, None)]
    path: dict[Step, list[Event]] = {
        Step.IDLE: [],
        Step.LOOKUP: [RequestSeen(A)],
        Step.LEASE: [RequestSeen(A), RecordLoaded(A, None)],
        Step.LEASE_WAIT: [RequestSeen(A), RecordLoaded(A, None), LeaseAnswered(A, False)],
        Step.RECHECK: [RequestSeen(A), RecordLoaded(A, None), LeaseAnswered(A, True)],
        Step.QUEUED: [RequestSeen(A)],
        Step.DOWNLOAD: start,
        Step.RETRY_WAIT: [*start, Downloaded(A, robots_fetched(503), held=1)],
        Step.ANNOUNCING: [*start, Downloaded(A, robots_fetched(200, RULES))],
    }
    for event in path[step]:
        life.handle(event, T0)
    assert life.step_of(A) is step
    return life


@dataclass(frozen=True)
class Row:
    step: Step
    event: Any
    #: The actions, in order, or their types when the values are long (entries, logs).
    actions: list[Any]
    then: Step
    store: str | None = None
    at: float = T0
    #: What else must hold afterwards.
    check: Callable[[Lifecycle[RobotsTxt]], bool] = field(default=lambda life: True)

    @property
    def id(self) -> str:
        return f"{self.step.value}+{type(self.event).__name__}"


def actions_match(actions: list[Action], expected: list[Any]) -> bool:
    """Each action equals the expected one, or is of the expected type."""
    return len(actions) == len(expected) and all(
        isinstance(action, want) if isinstance(want, type) else action == want
        for action, want in zip(actions, expected, strict=True)
    )


HANDLED = [
    Row(Step.IDLE, RequestSeen(A), [StartDownload(A)], Step.DOWNLOAD),
    Row(Step.IDLE, RequestSeen(A), [LoadRecord(A, A)], Step.LOOKUP, store="redis"),
    Row(Step.LOOKUP, RecordLoaded(A, None), [AcquireLease(A, A, 185.0)], Step.LEASE),
    Row(
        Step.LOOKUP, RecordLoaded(A, shared_record()),
        [Stat("rep/robotstxt/store_hits"), Announce], Step.ANNOUNCING,
        check=lambda life: life.phase(A, T0) is Phase.FETCHING,  # its handlers still run
    ),
    Row(
        Step.LOOKUP, RecordLoaded(A, FAILING),
        [Stat("rep/robotstxt/store_schedule_followed"), WakeAt(A, T0 + 40)], Step.RETRY_WAIT,
    ),
    Row(
        Step.LOOKUP,
        RecordLoaded(A, shared_record(fresh_until=T0 - 1, failures=1, retry_at=T0 + 40)),
        [Stat("rep/robotstxt/store_schedule_followed"), Release], Step.IDLE,
        check=lambda life: life.phase(A, T0) is Phase.STALE_REFRESHING,
    ),
    Row(
        Step.LOOKUP, RecordLoaded(A, shared_record(fresh_until=T0 - 1)),  # stale, nobody trying
        [AcquireLease], Step.LEASE,
    ),
    Row(
        Step.LOOKUP, RecordLoaded(A, shared_record(body_zlib=b"not zlib")),
        [Stat("rep/robotstxt/store_corrupt"), Log, AcquireLease], Step.LEASE,
    ),
    Row(Step.LEASE, LeaseAnswered(A, True), [LoadRecord(A, A)], Step.RECHECK),
    Row(Step.LEASE, LeaseAnswered(A, False), [WakeAt(A, T0 + LEASE_POLL)], Step.LEASE_WAIT),
    Row(Step.LEASE, LeaseAnswered(A, None), [StartDownload(A)], Step.DOWNLOAD),
    Row(Step.LEASE_WAIT, TimerFired(A), [LoadRecord(A, A)], Step.LOOKUP),
    Row(Step.RECHECK, RecordLoaded(A, None), [StartDownload(A)], Step.DOWNLOAD),
    Row(
        Step.RECHECK, RecordLoaded(A, shared_record()),
        [ReleaseLease(A, A), Stat("rep/robotstxt/store_hits"), Announce], Step.ANNOUNCING,
    ),
    Row(  # looking again under the lease: a corrupt record is not counted twice
        Step.RECHECK, RecordLoaded(A, shared_record(body_zlib=b"not zlib")),
        [StartDownload(A)], Step.DOWNLOAD,
    ),
    Row(Step.QUEUED, SlotFreed(A), [StartDownload(A)], Step.DOWNLOAD,
         check=lambda life: life.running == 2),
    Row(
        Step.DOWNLOAD, Downloaded(A, robots_fetched(200, RULES)),
        [Stat("rep/robotstxt/outcome/parsed"), Log, Announce], Step.ANNOUNCING,
        check=lambda life: life.fresh_entry(A, T0) is None and life.running == 0,
    ),
    # The signals of a known document were handled: it decides, its requests go on.
    Row(
        Step.ANNOUNCING, Announced(A), [Release], Step.IDLE,
        check=lambda life: life.phase(A, T0) is Phase.FRESH and life.fresh_entry(A, T0),
    ),
    Row(
        Step.DOWNLOAD, Downloaded(A, robots_fetched(503)),
        [Stat("rep/robotstxt/outcome/unreachable"), Stat("rep/robotstxt/failure/server"),
         Announce, Log, Log, WakeAt(A, T0 + 10)],
        Step.RETRY_WAIT, check=lambda life: life.phase(A, T0) is Phase.FAILING,
    ),
    # A host that cannot be connected to: the same row, a shorter wait (CONNECT_WAIT).
    Row(
        Step.DOWNLOAD, Downloaded(A, failed(FailureClass.REFUSED)),
        [Stat("rep/robotstxt/outcome/network_error"), Stat("rep/robotstxt/failure/refused"),
         Announce, Log, Log, WakeAt(A, T0 + CONNECT_WAIT)],
        Step.RETRY_WAIT, check=lambda life: life.phase(A, T0) is Phase.FAILING,
    ),
    Row(
        Step.DOWNLOAD, Downloaded(A, failed(FailureClass.TIMEOUT)),
        [Stat("rep/robotstxt/outcome/network_error"), Stat("rep/robotstxt/failure/timeout"),
         Announce, Log, Log, WakeAt(A, T0 + 10)],
        Step.RETRY_WAIT, check=lambda life: life.phase(A, T0) is Phase.FAILING,
    ),
    # Stopped with the crawl: the slot is free, nothing counted, nothing learned.
    Row(
        Step.DOWNLOAD, DownloadStopped(A), [], Step.IDLE,
        check=lambda life: life.running == 0 and life.phase(A, T0) is Phase.UNKNOWN,
    ),
    Row(
        Step.RETRY_WAIT, TimerFired(A), [Stat("rep/robotstxt/retries"), StartDownload(A)],
        Step.DOWNLOAD, at=T0 + 10,
    ),
    Row(
        Step.RETRY_WAIT, TimerFired(A),
        [Stat("rep/robotstxt/retries"), LoadRecord(A, A)], Step.LOOKUP, store="redis", at=T0 + 10,
    ),
]  # fmt: skip

#: One event of each type, as it could come at any time.
SAMPLES: dict[type[Any], Any] = {
    RequestSeen: RequestSeen(A),
    RecordLoaded: RecordLoaded(A, shared_record()),
    LeaseAnswered: LeaseAnswered(A, True),
    Downloaded: Downloaded(A, robots_fetched(200, RULES)),
    TimerFired: TimerFired(A),
    Announced: Announced(A),
    SlotFreed: SlotFreed(A),
    DownloadStopped: DownloadStopped(A),
}

#: Every pair the table ignores, and RequestSeen while a fetch is under way (it waits).
UNCHANGED = [
    Row(step, SAMPLES[event], [], step)
    for step in Step
    for event, handler in TRANSITIONS[step].items()
    if handler.__name__ == "_ignore" or (event is RequestSeen and step is not Step.IDLE)
]


@pytest.mark.parametrize("case", HANDLED, ids=lambda case: case.id)
def test_each_transition_gives_its_actions_and_its_next_step(case: Row) -> None:
    life = arrive(case.step, case.store)
    actions = life.handle(case.event, case.at)
    assert actions_match(actions, case.actions), actions
    assert life.step_of(A) is case.then
    assert case.check(life)


@pytest.mark.parametrize("case", UNCHANGED, ids=lambda case: case.id)
def test_an_event_a_step_does_not_take_changes_nothing(case: Row) -> None:
    """Stale answers (after a restart, after giving up, a replaced timer) and requests
    while a fetch is under way: no action, the same step, the same phase."""
    life = arrive(case.step, case.store)
    before = (life.phase(A, T0), life.running, life.downloading)
    assert life.handle(case.event, T0) == []
    assert life.step_of(A) is case.step
    assert (life.phase(A, T0), life.running, life.downloading) == before


def test_stale_answers_after_a_give_up_and_a_restart_change_nothing() -> None:
    life = stepwise_lifecycle("redis", max_wait=0.0)
    for event in (RequestSeen(A), RecordLoaded(A, None), LeaseAnswered(A, None)):
        life.handle(event, T0)
    [release] = [
        a for a in life.handle(Downloaded(A, robots_fetched(503)), T0) if isinstance(a, Release)
    ]
    assert release.entry.unreachable and life.phase(A, T0) is Phase.GAVE_UP
    # The answers of the attempts before the give-up, arriving late:
    for late in (LeaseAnswered(A, True), RecordLoaded(A, None), TimerFired(A), SAMPLES[Downloaded]):
        assert life.handle(late, T0 + 1) == []
    assert life.phase(A, T0 + 1) is Phase.GAVE_UP and life.step_of(A) is Step.IDLE


def test_the_table_covers_every_step_and_every_event() -> None:
    """A new step or event cannot be forgotten: each row names every event the machine
    meets (handled or ignored), and each handled pair is a case above."""
    assert set(get_args(Event)) | {SlotFreed} == set(EVENTS)
    assert set(TRANSITIONS) == set(Step)
    for step in Step:
        assert set(TRANSITIONS[step]) == set(EVENTS), step
    handled = {(c.step, type(c.event)) for c in HANDLED}
    unchanged = {(c.step, type(c.event)) for c in UNCHANGED}
    assert handled | unchanged == {(step, event) for step in Step for event in EVENTS}
    for step, event in handled - {(s, RequestSeen) for s in Step if s is not Step.IDLE}:
        assert TRANSITIONS[step][event].__name__ != "_ignore", (step, event)


def test_a_step_changes_in_one_place_and_no_kind_is_tested() -> None:
    """``step`` is assigned only where an event is dispatched, and the lifecycle asks its
    kind, never which kind it is."""
    assignments = []
    assert sorted(path.name for path in LIFECYCLE.glob("*.py"))[:1] == ["__init__.py"]
    for path in sorted(LIFECYCLE.glob("*.py")):
        source = path.read_text()
        assert "ROBOTS_TXT" not in source and "TDMREP" not in source, path.name
        for node in ast.walk(ast.parse(source)):
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr == "step":
                    assignments.append((path.name, node.lineno))
    assert len(assignments) == 1, assignments
    [(name, line)] = assignments
    assert name == "machine.py"
    source = (LIFECYCLE / "machine.py").read_text().splitlines()
    assert any("def _dispatch" in text for text in source[line - 10 : line])


# --------------------------------------------------------------------------- any kind, any key

LICENSE_URL = "https://a.example/license.xml"
#: A document found by its URL (as an RSL license will be): no path, its own store suffix.
BY_URL: DocumentKind[bytes] = DocumentKind(
    name="license", path="", when_absent="no license", when_unreachable="license unknown",
    stat_prefix="rep/license", absent=b"", unreachable=b"?", parse=bytes,
    size_of=lambda document, body: len(body),
    store_suffix="#license",
)  # fmt: skip


def test_a_kind_keyed_by_url_goes_through_the_same_machine() -> None:
    life: Lifecycle[bytes] = Lifecycle(
        Policy(retry_delay=10.0, max_wait=100.0, store="redis"), BY_URL, DocumentCache(10)
    )
    name = f"{LICENSE_URL}#license"
    assert life.handle(RequestSeen(LICENSE_URL), T0) == [LoadRecord(LICENSE_URL, name)]
    assert life.handle(RecordLoaded(LICENSE_URL, None), T0)[0].name == name  # type: ignore[union-attr]
    life.handle(LeaseAnswered(LICENSE_URL, True), T0)
    life.handle(RecordLoaded(LICENSE_URL, None), T0)
    body = b"<rsl/>"
    answer = FetchProcedure(BY_URL, LICENSE_URL).on_response(200, body)
    assert isinstance(answer, Fetched)
    actions = life.handle(Downloaded(LICENSE_URL, answer), T0)
    assert [a.name for a in actions if isinstance(a, Stat)] == ["rep/license/outcome/parsed"]
    [save] = [a for a in actions if isinstance(a, SaveRecord)]
    assert save.record.origin == name and zlib.decompress(save.record.body_zlib) == body
    [release] = actions_of(Release, life.handle(Announced(LICENSE_URL), T0))
    assert release.entry.rules == body and release.entry.size == len(body) + len(
        save.record.body_zlib
    )
    [log] = [a for a in actions if isinstance(a, Log) and a.level == logging.DEBUG]
    assert log.args[:2] == ("license", LICENSE_URL)
    assert actions[-1] == ReleaseLease(LICENSE_URL, name)
    # Read back by another process as the same kind, stand-ins included.
    other: Lifecycle[bytes] = Lifecycle(Policy(store="redis"), BY_URL, DocumentCache(10))
    other.handle(RequestSeen(LICENSE_URL), T0)
    other.handle(RecordLoaded(LICENSE_URL, save.record), T0 + 1)
    other.handle(Announced(LICENSE_URL), T0 + 1)
    entry = other.fresh_entry(LICENSE_URL, T0 + 1)
    assert entry is not None and entry.rules == body


# ----------------------------------------------------------------- how long a failure holds

#: Failures that say the host cannot be connected to: given up on after CONNECT_WAIT.
CANNOT_CONNECT = [FailureClass.REFUSED, FailureClass.NO_SUCH_HOST, FailureClass.TLS]
#: Failures that may pass (or be ours): held for max_wait, as a 5xx.
MAY_PASS = [
    FailureClass.TIMEOUT, FailureClass.CONNECTION_LOST, FailureClass.DNS_FAILED,
    FailureClass.PROXY, FailureClass.OTHER,
]  # fmt: skip


def failing(life: Lifecycle[RobotsTxt], answer: Fetched, at: float, held: int = 2) -> list[Action]:
    """The retry timer fires at ``at`` and the download it starts comes to ``answer``."""
    assert actions_of(StartDownload, life.handle(TimerFired(A), at)) == [StartDownload(A)]
    return life.handle(Downloaded(A, answer, held=held), at)


def first_failure(life: Lifecycle[RobotsTxt], answer: Fetched, held: int = 2) -> list[Action]:
    assert life.handle(RequestSeen(A), T0) == [StartDownload(A)]
    return life.handle(Downloaded(A, answer, held=held), T0)


def logs(actions: list[Action], level: int) -> list[str]:
    return [log.message % log.args for log in actions_of(Log, actions) if log.level == level]


@pytest.mark.parametrize("failure", CANNOT_CONNECT, ids=lambda f: f.value)
def test_a_host_that_cannot_be_connected_to_is_given_up_on_after_the_connect_wait(
    failure: FailureClass,
) -> None:
    """Refused, no such host, a failed TLS handshake: one more try at CONNECT_WAIT (the
    backoff's 10 s cut to the wait), then the held requests are dropped (complete
    disallow, RFC 9309 §2.3.1.4), not held for max_wait (100 s)."""
    life = stepwise_lifecycle()
    actions = first_failure(life, failed(failure))
    assert (
        actions_of(WakeAt, actions) == [WakeAt(A, T0 + CONNECT_WAIT)]
        and actions_of(Release, actions) == []
    )
    actions = failing(life, failed(failure), T0 + CONNECT_WAIT)
    [release] = actions_of(Release, actions)
    assert release.entry.unreachable and release.entry.rules.verdict is False  # dropped
    assert release.entry.outcome == (
        f"unreachable for 4 s (unreachable ({failure.value} error)): requests dropped"
    )
    assert {s.name for s in actions_of(Stat, actions)} >= {
        "rep/robotstxt/gave_up", "rep/robotstxt/gave_up_connect",
        f"rep/robotstxt/failure/{failure.value}",
    }  # fmt: skip
    [warning] = logs(actions, logging.WARNING)
    assert warning == (  # one clause per fact
        f"robots.txt of {A} given up on after 4 s (REP_UNREACHABLE_CONNECT_MAX_WAIT; last "
        f"try: unreachable ({failure.value} error)); 2 held request(s) dropped"
    )
    assert life.phase(A, T0 + CONNECT_WAIT) is Phase.GAVE_UP and actions_of(WakeAt, actions) == []


@pytest.mark.parametrize("failure", MAY_PASS, ids=lambda f: f.value)
def test_a_failure_that_may_pass_holds_as_long_as_a_5xx(failure: FailureClass) -> None:
    """Timeouts, resets, a DNS lookup that failed for now, a proxy error, anything not
    named: the 5xx schedule (10, 20, 40 s, cut at max_wait = 100 s), then given up on."""
    life = stepwise_lifecycle()
    actions = first_failure(life, failed(failure))
    assert actions_of(WakeAt, actions) == [WakeAt(A, T0 + 10)]
    wakes = [T0 + 10]
    for _ in range(3):
        actions = failing(life, failed(failure), wakes[-1])
        assert actions_of(Release, actions) == []
        [wake] = actions_of(WakeAt, actions)
        wakes.append(wake.when)
    assert [w - T0 for w in wakes] == [10, 30, 70, 100]
    actions = failing(life, failed(failure), T0 + 100)
    [release] = actions_of(Release, actions)
    assert release.entry.unreachable and release.entry.outcome.startswith("unreachable for 100 s")
    assert Stat("rep/robotstxt/gave_up_connect") not in actions


def test_allow_lets_a_5xx_through_but_never_a_host_that_cannot_be_connected_to() -> None:
    """``unreachable_action = "allow"`` is for the long outage: after the connect wait the
    requests are dropped all the same (the host may be back before robots.txt is read)."""
    policy = Policy(retry_delay=10.0, max_wait=100.0, connect_max_wait=4.0,
                    unreachable_action="allow")  # fmt: skip
    life = Lifecycle(policy, ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt))
    first_failure(life, failed(FailureClass.REFUSED))
    [release] = actions_of(Release, failing(life, failed(FailureClass.REFUSED), T0 + 4))
    assert release.entry.rules.verdict is False and "requests dropped" in release.entry.outcome
    life.handle(RequestSeen(B), T0)
    actions = life.handle(Downloaded(B, robots_fetched(503), held=1), T0)
    now = T0
    while actions_of(WakeAt, actions):
        [wake] = actions_of(WakeAt, actions)
        now = wake.when
        life.handle(TimerFired(B), now)
        actions = life.handle(Downloaded(B, robots_fetched(503), held=1), now)
    [release] = actions_of(Release, actions)
    assert now == T0 + 100 and release.entry.rules.verdict is True  # let through


def test_a_connect_wait_as_long_as_max_wait_is_an_ordinary_give_up() -> None:
    """``connect_max_wait`` is never more than ``max_wait``; at ``max_wait`` the failures
    are held as any other, and ``unreachable_action`` applies to them."""
    policy = Policy(retry_delay=10.0, max_wait=30.0, connect_max_wait=600.0,
                    unreachable_action="allow")  # fmt: skip
    assert policy.wait_limit(FailureClass.REFUSED) == 30.0
    life = Lifecycle(policy, ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt))
    actions = first_failure(life, failed(FailureClass.REFUSED))
    assert actions_of(WakeAt, actions) == [WakeAt(A, T0 + 10)]
    failing(life, failed(FailureClass.REFUSED), T0 + 10)
    actions = failing(life, failed(FailureClass.REFUSED), T0 + 30)
    [release] = actions_of(Release, actions)
    assert release.entry.rules.verdict is True and "gave_up_connect" not in str(actions)
    assert logs(actions, logging.WARNING) == [
        f"robots.txt of {A} given up on after 30 s (REP_UNREACHABLE_MAX_WAIT; last try: "
        'unreachable (refused error)); 2 held request(s) go on (REP_UNREACHABLE_ACTION = "allow")'
    ]


def test_the_give_up_warning_says_why_allow_did_not_let_a_dead_host_through() -> None:
    """After the short wait of a host that cannot be connected to, the requests are
    dropped even with ``unreachable_action = "allow"``: the line says so, once."""
    policy = Policy(retry_delay=10.0, max_wait=100.0, connect_max_wait=CONNECT_WAIT,
                    unreachable_action="allow")  # fmt: skip
    life = Lifecycle(policy, ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt))
    first_failure(life, failed(FailureClass.NO_SUCH_HOST))
    actions = failing(life, failed(FailureClass.NO_SUCH_HOST), T0 + CONNECT_WAIT)
    [warning] = logs(actions, logging.WARNING)
    assert warning.endswith(
        '; 2 held request(s) dropped (REP_UNREACHABLE_ACTION = "allow" is for the long wait only)'
    )


def test_a_host_that_answered_5xx_and_then_refuses_is_given_up_on_at_once() -> None:
    """The wait counts from the first failure in a row, whatever the failures were."""
    life = stepwise_lifecycle()
    first_failure(life, robots_fetched(503))
    actions = failing(life, failed(FailureClass.REFUSED), T0 + 10)
    [release] = actions_of(Release, actions)
    assert release.entry.outcome.startswith("unreachable for 10 s") and release.failures == 2


def test_a_refused_host_then_answering_5xx_waits_for_max_wait() -> None:
    """The wait of the last failure decides: a host back up but failing is a busy one."""
    life = stepwise_lifecycle()
    first_failure(life, failed(FailureClass.REFUSED))
    actions = failing(life, robots_fetched(503), T0 + CONNECT_WAIT)
    assert actions_of(Release, actions) == [] and actions_of(WakeAt, actions) == [
        WakeAt(A, T0 + 24)
    ]


def test_the_given_up_verdict_lasts_the_connect_wait_then_a_later_request_fetches_again() -> None:
    """Never more than a while: the verdict lasts max(connect wait, retry delay) = 10 s,
    doubling while the host stays down, and a request after it downloads again; a host
    back up is then read and decides."""
    life = stepwise_lifecycle()
    first_failure(life, failed(FailureClass.REFUSED))
    [release] = actions_of(Release, failing(life, failed(FailureClass.REFUSED), T0 + 4))
    assert release.entry.fresh_until == T0 + 4 + 10
    assert life.handle(RequestSeen(A), T0 + 13) == []  # the verdict decides: dropped
    assert life.phase(A, T0 + 13) is Phase.GAVE_UP
    now = T0 + 15
    assert life.handle(RequestSeen(A), now) == [StartDownload(A)]
    life.handle(Downloaded(A, failed(FailureClass.REFUSED), held=1), now)
    [release] = actions_of(Release, failing(life, failed(FailureClass.REFUSED), now + 4))
    assert release.entry.fresh_until == now + 4 + 20  # given up on again: twice as long
    now += 4 + 21
    assert life.handle(RequestSeen(A), now) == [StartDownload(A)]
    life.handle(Downloaded(A, robots_fetched(200, RULES), held=1), now)
    [release] = actions_of(Release, life.handle(Announced(A), now))
    assert not release.entry.unreachable and life.phase(A, now) is Phase.FRESH
    assert not release.entry.rules.allowed(f"{A}/private", "bot")


def test_a_stale_copy_still_decides_while_the_host_cannot_be_connected_to() -> None:
    """RFC 9309 §2.4 / SPEC §4: an expired copy stays in use while refreshes fail, for any
    failure; nothing is given up on."""
    policy = Policy(retry_delay=10.0, max_wait=100.0, connect_max_wait=4.0, cache_ttl=60.0,
                    min_ttl=0.0)  # fmt: skip
    life = Lifecycle(policy, ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt))
    life.handle(RequestSeen(A), T0)
    life.handle(Downloaded(A, robots_fetched(200, RULES), held=0), T0)
    life.handle(Announced(A), T0)
    life.handle(RequestSeen(A), T0 + 61)
    actions = life.handle(Downloaded(A, failed(FailureClass.REFUSED), held=1), T0 + 61)
    [release] = actions_of(Release, actions)
    assert not release.entry.unreachable and release.entry.outcome == "200 (33 bytes)"
    assert Stat("rep/robotstxt/stale_kept") in actions


def test_the_wait_is_said_once_at_info_with_its_end_and_each_retry_at_debug() -> None:
    """One INFO line per origin and wait (the held requests, until when: the time of day
    and the seconds left), a DEBUG line per failure: a broad crawl's log is not flooded."""
    life = stepwise_lifecycle()
    actions = first_failure(life, failed(FailureClass.REFUSED), held=2)
    [info] = logs(actions, logging.INFO)
    until = time.strftime("%H:%M:%S", time.localtime(T0 + CONNECT_WAIT))
    assert info == (  # the time is the give-up time, with the setting that gives it
        f"robots.txt of {A} is unreachable (connection refused); holding 2 request(s) and "
        f"retrying; giving up at {until} (in 4 s, REP_UNREACHABLE_CONNECT_MAX_WAIT)"
    )
    assert logs(actions, logging.DEBUG) == [
        f"robots.txt of {A}: unreachable (refused error); holding its 2 request(s), retry 1 in 4 s"
    ]
    life = stepwise_lifecycle()
    actions = first_failure(life, robots_fetched(503), held=3)
    [info] = logs(actions, logging.INFO)
    assert info.endswith(  # an answer: Scrapy counts each one as a crawled page
        "is unreachable (503); holding 3 request(s) and retrying (each answer counts as a "
        """page in Scrapy's "Crawled N pages"); giving up at """
        f"{time.strftime('%H:%M:%S', time.localtime(T0 + 100))} (in 100 s, "
        "REP_UNREACHABLE_MAX_WAIT)"
    )
    actions = failing(life, robots_fetched(503), T0 + 10, held=5)
    assert logs(actions, logging.INFO) == []  # the same wait: no second INFO line
    assert logs(actions, logging.DEBUG) == [
        f"robots.txt of {A}: 503: temporarily everything disallowed; holding its 5 "
        "request(s), retry 2 in 20 s"
    ]


def test_the_end_of_the_crawl_sums_up_the_origins_given_up_on_by_failure() -> None:
    life = stepwise_lifecycle()
    assert life.summary() == []
    for key in (A, B):
        life.handle(RequestSeen(key), T0)
        life.handle(Downloaded(key, failed(FailureClass.REFUSED), held=1), T0)
        life.handle(TimerFired(key), T0 + 4)
        life.handle(Downloaded(key, failed(FailureClass.REFUSED), held=1), T0 + 4)
    life.handle(RequestSeen("http://c.example"), T0)
    life.handle(Downloaded("http://c.example", failed(FailureClass.NO_SUCH_HOST)), T0)
    life.handle(TimerFired("http://c.example"), T0 + 4)
    life.handle(Downloaded("http://c.example", failed(FailureClass.NO_SUCH_HOST)), T0 + 4)
    [line] = life.summary()
    assert isinstance(line, Log) and line.level == logging.INFO
    assert line.message % line.args == (
        "scrapy_rep: 3 robots.txt given up on as unreachable in this crawl "
        "(2 connection refused, 1 no such host)"
    )
