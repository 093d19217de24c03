"""A request the cached robots.txt (tdmrep.json) already refuses is refused in the spider
middleware's output pass, before the scheduler (docs/decisions.md, 'Early refusal before
the scheduler'), with the same outcome as the downloader middleware's refusal: stats, log
line, ``request_refused``, audit record (real crawls: tests/integration/test_early_refusal.py).
Here, a fault in the early path never loses a request, nor raises."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from scrapy import Request, Spider

from scrapy_rep.crawl.requests.early import EarlyRefusal


class Owner:
    """The crawl's robots.txt middleware as the early pass sees it: the cache refuses every
    request; its performer may fail (a bug of ours)."""

    def __init__(self, refuse: Any) -> None:
        self.perform = self
        self.refused = refuse

    def refusal_if_known(self, request: Request) -> Any:
        return ("facts", "verdict")


def test_a_bug_in_the_early_path_never_loses_the_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from scrapy.dupefilters import RFPDupeFilter
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(Spider)
    early = EarlyRefusal(crawler)
    early._dupefilter = RFPDupeFilter.from_crawler(crawler)

    def broken_lookup(request: Request) -> Any:
        raise RuntimeError("boom")

    owner = Owner(None)
    owner.refusal_if_known = broken_lookup  # type: ignore[method-assign]
    early._owner = owner  # type: ignore[assignment]
    request = Request("https://example.com/private")
    assert early.request(request) is request  # decided late, as before

    def broken_refusal(*_: Any, **__: Any) -> Any:
        raise RuntimeError("boom")

    early._owner = Owner(broken_refusal)  # type: ignore[assignment]
    with caplog.at_level(logging.ERROR, logger="scrapy_rep"):
        passed = early.request(request)
    # Past the dupefilter already (its fingerprint is remembered): it goes on unfiltered.
    assert passed is not None
    assert passed.url == request.url
    assert passed.dont_filter
    assert "internal error refusing" in caplog.text


def test_a_failing_dupefilter_in_the_early_path_never_loses_the_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The dupefilter raises: the request is refused all the same (its site said no), never
    raised out of the spider middleware."""
    from scrapy.utils.test import get_crawler

    class Unwritable:
        def request_seen(self, request: Request) -> bool:
            raise OSError("JOBDIR/requests.seen: no space left on device")

    crawler = get_crawler(Spider)
    early = EarlyRefusal(crawler)
    early._dupefilter = Unwritable()
    performed: list[Request] = []
    early._owner = Owner(lambda request, *_, **__: performed.append(request))  # type: ignore[assignment]
    request = Request("https://example.com/private")
    with caplog.at_level(logging.ERROR, logger="scrapy_rep"):
        assert early.request(request) is None  # raised out of the spider middleware before
    assert performed == [request]
    assert "internal error filtering" in caplog.text
