"""A request's state (scrapy_rep/crawl/requeststate.py) across its decisions: an override
is counted at the first decision it lets the request through, never again for the same
request; a state pickled by an earlier version reads back (which modules may write a
state: tests/project/test_requeststate.py)."""

from __future__ import annotations

import pickle
from typing import get_args, get_type_hints

import pytest
from scrapy import Request
from scrapy.utils.request import request_from_dict

from rep_engine.verdict.policy import NOTHING_BEFORE
from scrapy_rep.crawl import requeststate
from scrapy_rep.crawl.requeststate import (
    RequestState,
    add_carried,
    decided,
    decided_early,
    mark_held,
    recorded,
    state_of,
    to_decide_afresh,
)
from tests.support.requeststates import dumps_with_scheduled

URL = "https://site.example/private/1"


def test_an_override_is_counted_at_the_first_decision_that_goes_past_a_disallow() -> None:
    """``rep/requests/overridden`` counts requests: a request decided again (after a
    hold, at its send), retried (Scrapy's copy shares the state) or kept on disk and read
    back is counted once; one an override let through only at a later decision (a
    refreshed robots.txt disallows it) is counted then; a redirect's next URL is a
    request of its own."""
    request = Request(URL)
    assert decided(request, None, ("bot",), 0.0) is False  # allowed without the override
    assert decided(request, None, ("bot",), 0.0, True) is True  # a newer robots.txt: past it
    assert decided(request, None, ("bot",), 0.0, True) is False  # decided again at its send
    retry = request.copy()
    assert decided(retry, None, ("bot",), 0.0, True) is False
    read_back = request_from_dict(pickle.loads(pickle.dumps(request.to_dict())))
    assert state_of(read_back) == state_of(request)
    assert decided(read_back, None, ("bot",), 0.0, True) is False
    redirected = request.replace(url=URL + "/moved")
    assert decided(redirected, None, ("bot",), 0.0, True) is True


def a_state_of_every_field() -> Request:
    """A request whose state has a value other than its default in every field."""
    request = Request(URL, headers={"Host": "other.example"})
    decided_early(request, 7)
    recorded(request, "record-1")
    mark_held(request, ("robots.txt", "https://site.example", ()))
    add_carried([request], ("robots.txt", "run.1"), lambda carried: carried)
    decided(request, NOTHING_BEFORE, ("bot",), 12.5, True)
    decided_early(request, 9)
    to_decide_afresh(request)
    return request


@pytest.mark.parametrize("protocol", [2, 4, pickle.HIGHEST_PROTOCOL])
def test_a_state_pickled_with_scheduled_reads_back_without_it(protocol: int) -> None:
    """The tuple had ``scheduled`` (never set) until it was deleted: a request a paused
    crawl of an earlier version kept (``JOBDIR``'s queues and state file, scrapy-redis's
    queue: pickled at protocol 4 by Scrapy's queues, the highest by the state file) reads
    back with every other field in its place, and is its own request's state."""
    request = a_state_of_every_field()
    state = state_of(request)
    assert state is not None
    assert all(value != default for value, default in zip(state, RequestState(URL), strict=True)
               if value is not state.url)  # fmt: skip
    old = dumps_with_scheduled(request.to_dict(), protocol)
    assert old != pickle.dumps(request.to_dict(), protocol)  # the earlier layout indeed
    read_back = request_from_dict(pickle.loads(old))
    assert type(state_of(read_back)) is RequestState
    assert state_of(read_back) == state
    new = request_from_dict(pickle.loads(pickle.dumps(request.to_dict(), protocol)))
    assert state_of(new) == state


def test_the_values_a_transition_writes_are_typed_as_the_fields() -> None:
    """The transitions make a state of its values in order (no Python call on a request's
    path); their tuple's type is the fields', so the type checker sees a value out of
    place."""
    fields = get_type_hints(RequestState, vars(requeststate))
    assert list(get_args(requeststate._Values)) == list(fields.values())
    assert len(fields) == len(RequestState._fields)
