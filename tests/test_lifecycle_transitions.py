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
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import pytest

from scrapy_rep.fetch.cache import DocumentCache
from scrapy_rep.fetch.kinds import DocumentKind, body_size
from scrapy_rep.fetch.lifecycle import LEASE_POLL, Lifecycle, Phase
from scrapy_rep.fetch.lifecycle.events import (
    AcquireLease,
    Action,
    Announce,
    Downloaded,
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
from scrapy_rep.fetch.lifecycle.machine import EVENTS, TRANSITIONS
from scrapy_rep.fetch.lifecycle.state import Step
from scrapy_rep.fetch.policy import Policy
from scrapy_rep.fetch.procedure import ROBOTS_TXT, Fetched, FetchProcedure
from scrapy_rep.fetch.records import SharedRecord
from scrapy_rep.robotstxt import RobotsTxt, parse_robotstxt

A, B = "http://a.example", "http://b.example"
RULES = b"User-agent: *\nDisallow: /private\n"
T0 = 1_000_000.0
LIFECYCLE = Path(__file__).parent.parent / "scrapy_rep" / "fetch" / "lifecycle"


def fetched(status: int, body: bytes = b"") -> Fetched:
    answer = FetchProcedure(ROBOTS_TXT, f"{A}/robots.txt").on_response(status, body)
    assert isinstance(answer, Fetched)
    return answer


def record(**fields: Any) -> SharedRecord:
    """Another process's record of A: fresh rules unless ``fields`` say otherwise."""
    values: dict[str, Any] = {
        "origin": A, "body_zlib": zlib.compress(RULES), "verdict": None, "status": 200,
        "outcome": "200 (33 bytes)", "fetched_at": T0 - 10, "fresh_until": T0 + 100,
        "stale_until": T0 + 1000,
    }  # fmt: skip
    values.update(fields)
    return SharedRecord(**values)


#: Another process is failing: nothing usable, retry at T0 + 40.
FAILING = record(
    body_zlib=b"", verdict=False, status=None, fresh_until=0.0, stale_until=0.0,
    failures=2, failing_since=T0 - 30, retry_at=T0 + 40,
)  # fmt: skip


def machine(
    store: str | None = None, concurrency: int = 4, max_wait: float = 100.0
) -> Lifecycle[RobotsTxt]:
    policy = Policy(retry_delay=10.0, max_wait=max_wait, store=store, concurrency=concurrency)
    return Lifecycle(policy, ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt))


def arrive(step: Step, store: str | None) -> Lifecycle[RobotsTxt]:
    """A machine whose origin A is in ``step`` at T0 (by events only)."""
    if step is Step.QUEUED:
        life = machine(concurrency=1)
        assert life.handle(RequestSeen(B), T0) == [StartDownload(B)]  # B takes the slot
    elif step in (Step.IDLE, Step.DOWNLOAD, Step.RETRY_WAIT):
        life = machine(store)
    else:
        life = machine("redis")
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
        Step.RETRY_WAIT: [*start, Downloaded(A, fetched(503), held=1)],
    }
    for event in path[step]:
        life.handle(event, T0)
    assert life.step_of(A) is step
    return life


@dataclass(frozen=True)
class Case:
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


def matches(actions: list[Action], expected: list[Any]) -> bool:
    """Each action equals the expected one, or is of the expected type."""
    return len(actions) == len(expected) and all(
        isinstance(action, want) if isinstance(want, type) else action == want
        for action, want in zip(actions, expected, strict=True)
    )


HANDLED = [
    Case(Step.IDLE, RequestSeen(A), [StartDownload(A)], Step.DOWNLOAD),
    Case(Step.IDLE, RequestSeen(A), [LoadRecord(A, A)], Step.LOOKUP, store="redis"),
    Case(Step.LOOKUP, RecordLoaded(A, None), [AcquireLease(A, A, 185.0)], Step.LEASE),
    Case(
        Step.LOOKUP, RecordLoaded(A, record()),
        [Stat("rep/robotstxt/store_hits"), Announce, Release], Step.IDLE,
        check=lambda life: life.phase(A, T0) is Phase.FRESH,
    ),
    Case(
        Step.LOOKUP, RecordLoaded(A, FAILING),
        [Stat("rep/robotstxt/store_schedule_followed"), WakeAt(A, T0 + 40)], Step.RETRY_WAIT,
    ),
    Case(
        Step.LOOKUP, RecordLoaded(A, record(fresh_until=T0 - 1, failures=1, retry_at=T0 + 40)),
        [Stat("rep/robotstxt/store_schedule_followed"), Release], Step.IDLE,
        check=lambda life: life.phase(A, T0) is Phase.STALE_REFRESHING,
    ),
    Case(
        Step.LOOKUP, RecordLoaded(A, record(fresh_until=T0 - 1)),  # stale, nobody trying
        [AcquireLease], Step.LEASE,
    ),
    Case(
        Step.LOOKUP, RecordLoaded(A, record(body_zlib=b"not zlib")),
        [Stat("rep/robotstxt/store_corrupt"), Log, AcquireLease], Step.LEASE,
    ),
    Case(Step.LEASE, LeaseAnswered(A, True), [LoadRecord(A, A)], Step.RECHECK),
    Case(Step.LEASE, LeaseAnswered(A, False), [WakeAt(A, T0 + LEASE_POLL)], Step.LEASE_WAIT),
    Case(Step.LEASE, LeaseAnswered(A, None), [StartDownload(A)], Step.DOWNLOAD),
    Case(Step.LEASE_WAIT, TimerFired(A), [LoadRecord(A, A)], Step.LOOKUP),
    Case(Step.RECHECK, RecordLoaded(A, None), [StartDownload(A)], Step.DOWNLOAD),
    Case(
        Step.RECHECK, RecordLoaded(A, record()),
        [ReleaseLease(A, A), Stat("rep/robotstxt/store_hits"), Announce, Release], Step.IDLE,
    ),
    Case(  # looking again under the lease: a corrupt record is not counted twice
        Step.RECHECK, RecordLoaded(A, record(body_zlib=b"not zlib")),
        [StartDownload(A)], Step.DOWNLOAD,
    ),
    Case(Step.QUEUED, SlotFreed(A), [StartDownload(A)], Step.DOWNLOAD,
         check=lambda life: life.running == 2),
    Case(
        Step.DOWNLOAD, Downloaded(A, fetched(200, RULES)),
        [Stat("rep/robotstxt/outcome/parsed"), Log, Announce, Release], Step.IDLE,
        check=lambda life: life.phase(A, T0) is Phase.FRESH and life.running == 0,
    ),
    Case(
        Step.DOWNLOAD, Downloaded(A, fetched(503)),
        [Stat("rep/robotstxt/outcome/unreachable"), Announce, Log, WakeAt(A, T0 + 10)],
        Step.RETRY_WAIT, check=lambda life: life.phase(A, T0) is Phase.FAILING,
    ),
    Case(
        Step.RETRY_WAIT, TimerFired(A), [Stat("rep/robotstxt/retries"), StartDownload(A)],
        Step.DOWNLOAD, at=T0 + 10,
    ),
    Case(
        Step.RETRY_WAIT, TimerFired(A),
        [Stat("rep/robotstxt/retries"), LoadRecord(A, A)], Step.LOOKUP, store="redis", at=T0 + 10,
    ),
]  # fmt: skip

#: One event of each type, as it could come at any time.
SAMPLES: dict[type[Any], Any] = {
    RequestSeen: RequestSeen(A),
    RecordLoaded: RecordLoaded(A, record()),
    LeaseAnswered: LeaseAnswered(A, True),
    Downloaded: Downloaded(A, fetched(200, RULES)),
    TimerFired: TimerFired(A),
    SlotFreed: SlotFreed(A),
}

#: Every pair the table ignores, and RequestSeen while a fetch is under way (it waits).
UNCHANGED = [
    Case(step, SAMPLES[event], [], step)
    for step in Step
    for event, handler in TRANSITIONS[step].items()
    if handler.__name__ == "_ignore" or (event is RequestSeen and step is not Step.IDLE)
]


@pytest.mark.parametrize("case", HANDLED, ids=lambda case: case.id)
def test_each_transition_gives_its_actions_and_its_next_step(case: Case) -> None:
    life = arrive(case.step, case.store)
    actions = life.handle(case.event, case.at)
    assert matches(actions, case.actions), actions
    assert life.step_of(A) is case.then
    assert case.check(life)


@pytest.mark.parametrize("case", UNCHANGED, ids=lambda case: case.id)
def test_an_event_a_step_does_not_take_changes_nothing(case: Case) -> None:
    """Stale answers (after a restart, after giving up, a replaced timer) and requests
    while a fetch is under way: no action, the same step, the same phase."""
    life = arrive(case.step, case.store)
    before = (life.phase(A, T0), life.running, life.downloading)
    assert life.handle(case.event, T0) == []
    assert life.step_of(A) is case.step
    assert (life.phase(A, T0), life.running, life.downloading) == before


def test_stale_answers_after_a_give_up_and_a_restart_change_nothing() -> None:
    life = machine("redis", max_wait=0.0)
    for event in (RequestSeen(A), RecordLoaded(A, None), LeaseAnswered(A, None)):
        life.handle(event, T0)
    [release] = [a for a in life.handle(Downloaded(A, fetched(503)), T0) if isinstance(a, Release)]
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
    stat_prefix="rep/license", absent=b"", unreachable=b"?", parse=bytes, size_of=body_size,
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
    [release] = [a for a in actions if isinstance(a, Release)]
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
    entry = other.fresh_entry(LICENSE_URL, T0 + 1)
    assert entry is not None and entry.rules == body
