"""The give-up rule (SPEC §4, giving up) is one function: the lifecycle gives up by it
(the command-line tools' crawl too, its waits run at once:
tests/crawl/commands/test_toolcrawl.py), and the verdict it writes is read back by one
reader (``audit verify``'s re-derivation of an earlier run's trail)."""

from __future__ import annotations

import pytest

from rep_engine.fetch.lifecycle.shared import GAVE_UP_FATE, gave_up_outcome, given_up_allowing
from rep_engine.fetch.rules import FailureClass, Policy
from tests.support.lifecycles import POLICIES, given_up


@pytest.mark.parametrize("numbers", POLICIES, ids=lambda n: "-".join(map(str, n)))
@pytest.mark.parametrize("failure", list(FailureClass), ids=lambda f: f.value)
def test_the_give_up_verdict_is_written_as_given(
    numbers: tuple[float, float, str], failure: FailureClass
) -> None:
    """For every failure and every setting of the waits and the action, the give-up
    verdict the lifecycle releases is the rule's, and the outcome it writes says it."""
    max_wait, connect_max_wait, action = numbers
    policy = Policy(
        retry_delay=10.0, max_wait=max_wait, connect_max_wait=connect_max_wait,
        unreachable_action=action,
    )  # fmt: skip
    release = given_up(policy, failure)
    crawl_allows = release.entry.rules.verdict is True
    assert release.entry.unreachable
    assert policy.allows_after_giving_up(policy.wait_limit(failure)) is crawl_allows
    assert given_up_allowing(release.entry.outcome) is crawl_allows


def test_allow_holds_for_the_long_wait_only() -> None:
    """``REP_UNREACHABLE_ACTION = "allow"`` after ``max_wait``; a shorter wait (a host
    that cannot be connected to) drops; "drop" always drops."""
    allow = Policy(max_wait=600.0, connect_max_wait=10.0, unreachable_action="allow")
    assert allow.allows_after_giving_up(600.0) and allow.allows_after_giving_up(900.0)
    assert not allow.allows_after_giving_up(10.0)
    assert not Policy(unreachable_action="drop").allows_after_giving_up(600.0)


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


@pytest.mark.parametrize("status", ["as 503 ", ""])
@pytest.mark.parametrize("allow", [True, False])
def test_a_recheck_s_give_up_of_a_capture_is_read_back(status: str, allow: bool) -> None:
    """A recheck says what a capture was, not a wait no one made (recheck.warc's
    ``captured_as``): ``audit verify`` read none of it as a give-up verdict."""
    at = "2025-04-01T12:00:00Z"
    for when in (at, "an unreadable WARC-Date"):
        said = (f"robots.txt captured {status}in record <urn:uuid:1> at {when} "
                f"(503: temporarily everything disallowed): {GAVE_UP_FATE[allow]}")  # fmt: skip
        assert given_up_allowing(said) is allow
