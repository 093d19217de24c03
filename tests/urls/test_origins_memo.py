"""The origin memo's side of long-lived state out of the collector's sight
(docs/decisions.md): the per-request memo of origins adds no object that each full
garbage collection walks."""

from __future__ import annotations

from rep_engine.urls.origins import OriginMemo, origin_of
from tests.support.counting import tracked_under


def test_the_origin_memo_adds_no_tracked_object() -> None:
    """The per-request memo of origins keeps 1,000 authorities as the collector sees 10,
    and answers each URL's ``origin_of``."""

    def filled(authorities: int) -> OriginMemo:
        memo = OriginMemo()
        for number in range(authorities):
            url = f"https://h{number}.example:8443/page?q={number}"
            assert memo.get(url) == origin_of(url)
            assert memo.get(url) == origin_of(url)  # from the memo
        assert memo.get("data:text/plain,x") is None
        return memo

    assert tracked_under(filled(1000)) - tracked_under(filled(10)) == 0
