"""A request's state (scrapy_rep/crawl/requeststate.py) across its decisions: an override
is counted at the first decision it lets the request through, never again for the same
request (which modules may write a state: tests/project/test_requeststate.py)."""

from __future__ import annotations

import pickle

from scrapy import Request
from scrapy.utils.request import request_from_dict

from scrapy_rep.crawl.requeststate import decided, state_of

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
