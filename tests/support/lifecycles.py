"""The document lifecycle as its adapter drives it, for tests of the pure machine: the
events that go in (a robots.txt download's answer, another process's record) and the
actions that come out, picked by type."""

from __future__ import annotations

import zlib
from typing import Any, TypeVar

from rep_engine.fetch.cache import DocumentCache
from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.fetch.lifecycle.events import (
    Action,
    Announce,
    Announced,
    Downloaded,
    Release,
    RequestSeen,
    TimerFired,
    WakeAt,
)
from rep_engine.fetch.lifecycle.machine import Lifecycle
from rep_engine.fetch.procedure import Fetched, FetchProcedure
from rep_engine.fetch.records import SharedRecord
from rep_engine.fetch.rules import FailureClass, Policy
from rep_engine.robotstxt import RobotsTxt, parse_robotstxt

D = TypeVar("D")

#: The origin whose robots.txt the tests drive, its rules, and the time they start at.
A = "http://a.example"
RULES = b"User-agent: *\nDisallow: /private\n"
T0 = 1_000_000.0


class Announcing(Lifecycle[D]):
    """A lifecycle whose known documents' ``Announce`` is answered at once with
    ``Announced``, as the adapter does when no signal handler is async: the actions that
    follow (the ``Release``) come in the same list. The step ``ANNOUNCING`` itself is
    driven in tests/fetch/lifecycle/test_machine.py."""

    def handle(self, event: Any, now: float) -> list[Action]:
        actions = super().handle(event, now)
        for action in list(actions):
            if isinstance(action, Announce) and action.known:
                actions += super().handle(Announced(action.key), now)
        return actions


def actions_of(kind: type, actions: list[Action]) -> list[Any]:
    """The actions of type ``kind``, in order."""
    return [action for action in actions if isinstance(action, kind)]


def robots_fetched(
    status: int,
    body: bytes = b"",
    cache_control: str | None = None,
    retry_after: str | None = None,
) -> Fetched:
    """The end of a download of A's robots.txt answered ``status`` with ``body``."""
    fetched = FetchProcedure(ROBOTS_TXT, f"{A}/robots.txt").on_response(
        status, body, cache_control=cache_control, retry_after=retry_after
    )
    assert isinstance(fetched, Fetched)
    return fetched


def shared_record(origin: str = A, **fields: Any) -> SharedRecord:
    """Another process's record of ``origin``: fresh rules unless ``fields`` say otherwise."""
    values: dict[str, Any] = {
        "origin": origin, "body_zlib": zlib.compress(RULES), "verdict": None, "status": 200,
        "outcome": "200 (33 bytes)", "fetched_at": T0 - 10, "fresh_until": T0 + 100,
        "stale_until": T0 + 1000,
    }  # fmt: skip
    values.update(fields)
    return SharedRecord(**values)


#: (max_wait, connect_max_wait, REP_UNREACHABLE_ACTION): the connect wait shorter (as
#: by default) or not, and each action.
POLICIES = [
    (100.0, 4.0, "allow"),
    (100.0, 4.0, "drop"),
    (30.0, 600.0, "allow"),
    (30.0, 30.0, "allow"),
    (30.0, 30.0, "drop"),
]


def _failed(failure: FailureClass) -> Fetched:
    procedure = FetchProcedure(ROBOTS_TXT, f"{A}/robots.txt")
    return procedure.on_network_error(f"{failure.value} error", failure)


def given_up(policy: Policy, failure: FailureClass) -> Release:
    """Drive a lifecycle whose robots.txt fails with ``failure`` every time until it
    gives up; its release (the give-up verdict)."""
    life: Lifecycle[RobotsTxt] = Lifecycle(
        policy, ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt)
    )
    life.handle(RequestSeen(A), T0)
    actions = life.handle(Downloaded(A, _failed(failure), held=1), T0)
    while not actions_of(Release, actions):
        [wake] = actions_of(WakeAt, actions)
        life.handle(TimerFired(A), wake.when)
        actions = life.handle(Downloaded(A, _failed(failure), held=1), wake.when)
    [release] = actions_of(Release, actions)
    assert isinstance(release, Release)
    return release
