"""The give-up rule (SPEC §4, giving up) is one function: the lifecycle gives up by it,
both command-line tools foretell it, and the verdict it writes is read back by one
reader (``audit verify``'s re-derivation of an earlier run's trail)."""

from __future__ import annotations

import pytest

from scrapy_rep.checker.download import FetchedRobots, robots_verdict
from scrapy_rep.fetch.cache import DocumentCache
from scrapy_rep.fetch.lifecycle import Lifecycle
from scrapy_rep.fetch.lifecycle.events import Downloaded, Release, RequestSeen, TimerFired, WakeAt
from scrapy_rep.fetch.lifecycle.shared import gave_up_outcome, given_up_allowing
from scrapy_rep.fetch.procedure import ROBOTS_TXT, Fetched, FetchProcedure
from scrapy_rep.fetch.rules import FailureClass, Policy
from scrapy_rep.robotstxt import ALLOW_ALL, DISALLOW_ALL, RobotsTxt, parse_robotstxt
from tests.support.lifecycles import T0, A, actions_of

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


def _given_up(policy: Policy, failure: FailureClass) -> Release:
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


@pytest.mark.parametrize("numbers", POLICIES, ids=lambda n: "-".join(map(str, n)))
@pytest.mark.parametrize("failure", list(FailureClass), ids=lambda f: f.value)
def test_the_tools_foretell_the_crawls_give_up_verdict(
    numbers: tuple[float, float, str], failure: FailureClass
) -> None:
    """For every failure and every setting of the waits and the action, what the tools
    say the crawl will do once it gives up is what the crawl's lifecycle does, and the
    outcome it writes says the same."""
    max_wait, connect_max_wait, action = numbers
    policy = Policy(
        retry_delay=10.0, max_wait=max_wait, connect_max_wait=connect_max_wait,
        unreachable_action=action,
    )  # fmt: skip
    release = _given_up(policy, failure)
    crawl_allows = release.entry.rules.verdict is True
    assert release.entry.unreachable
    assert policy.allows_when_given_up(failure) is crawl_allows
    fetched = FetchedRobots(
        f"{A}/robots.txt", DISALLOW_ALL, "unreachable", None, None, True, failure
    )
    rules, _notes = robots_verdict(fetched, policy)
    assert (rules is ALLOW_ALL) is crawl_allows
    assert given_up_allowing(release.entry.outcome) is crawl_allows


def test_allow_holds_for_the_long_wait_only() -> None:
    """``REP_UNREACHABLE_ACTION = "allow"`` after ``max_wait``; a shorter wait (a host
    that cannot be connected to) drops; "drop" always drops."""
    allow = Policy(max_wait=600.0, connect_max_wait=10.0, unreachable_action="allow")
    assert allow.allows_after_giving_up(600.0) and allow.allows_after_giving_up(900.0)
    assert not allow.allows_after_giving_up(10.0)
    assert not Policy(unreachable_action="drop").allows_after_giving_up(600.0)
    assert allow.allows_when_given_up(None)  # an unknown failure: held for max_wait


@pytest.mark.parametrize("waited", [0.0, 1e-05, 4.5, 10.0, 600.0, 1200.0, 86_400.0])
@pytest.mark.parametrize("allow", [True, False])
def test_the_give_up_outcome_is_read_back_as_written(waited: float, allow: bool) -> None:
    """The reader of a trail's give-up verdict reads what the writer wrote, whatever the
    wait and the last failure (which may hold parentheses and colons), alone or quoted
    (a record's ``why``: ``robots.txt unreachable for …``)."""
    last = "unreachable (ConnectionRefusedError: [Errno 111] Connection refused (x): y)"
    outcome = gave_up_outcome(waited, last, allow)
    assert given_up_allowing(outcome) is allow
    assert given_up_allowing(f"robots.txt {outcome}") is allow


@pytest.mark.parametrize(
    "said",
    ["", "503: unreachable", "404: no robots.txt, everything allowed", "unreachable for a while"],
)
def test_other_words_quote_no_give_up(said: str) -> None:
    assert given_up_allowing(said) is None
