"""The requests' waits for their origins' documents as the URL ledger keeps them (the
report's origin lines read them: tests/crawl/test_report.py)."""

from __future__ import annotations

from scrapy import Request

from scrapy_rep.crawl.auditing import OriginWaits, Waits

A = "http://a.example"


def test_a_request_held_again_for_the_same_origin_is_one_more_wait() -> None:
    waits = Waits()
    twice, once = Request(f"{A}/twice"), Request(f"{A}/once")
    for request in (twice, once, twice):
        waits.held(request, A)
    waits.held(twice, f"{A}/license.xml")
    assert waits.origins == {
        A: OriginWaits(waited=2, waits=3),
        f"{A}/license.xml": OriginWaits(waited=1, waits=1),
    }
    assert waits.failures == {}


def test_a_request_released_after_failures_is_held_while_unreachable() -> None:
    waits = Waits()
    page = Request(f"{A}/p")
    waits.held(page, A)
    waits.released(page, A, failures=0)  # only waited for the first download
    assert waits.origins[A].held_unreachable == 0
    waits.released(page, A, failures=4)
    waits.released(Request(f"{A}/p"), A, failures=2)  # the most failures of the URL
    assert waits.origins[A] == OriginWaits(waited=1, waits=1, held_unreachable=2)
    assert waits.failures == {f"{A}/p": 4}
