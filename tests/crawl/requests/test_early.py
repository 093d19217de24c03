"""A request the cached robots.txt (tdmrep.json) already refuses is refused in the spider
middleware's output pass, before the scheduler (docs/decisions.md, 'Early refusal before
the scheduler'), with the same outcome as the downloader middleware's refusal: stats, log
line, ``request_refused``, audit record (real crawls: tests/integration/test_early_refusal.py).
Here, a fault in the early path never loses a request."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from scrapy import Request, Spider

from scrapy_rep.crawl.requests.early import EarlyRefusal


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

    early._refusal = broken_lookup
    request = Request("https://example.com/private")
    assert early.request(request) is request  # decided late, as before

    def broken_refusal() -> bool:
        raise RuntimeError("boom")

    early._refusal = lambda request: broken_refusal
    with caplog.at_level(logging.ERROR, logger="scrapy_rep"):
        passed = early.request(request)
    # Scheduled already (its fingerprint is in the dupefilter): it goes on unfiltered.
    assert passed is not None
    assert passed.url == request.url
    assert passed.dont_filter
    assert "internal error refusing" in caplog.text


def test_a_failing_dupefilter_in_the_early_path_never_loses_the_request() -> None:
    from scrapy.utils.test import get_crawler

    class Unwritable:
        def request_seen(self, request: Request) -> bool:
            raise OSError("JOBDIR/requests.seen: no space left on device")

    crawler = get_crawler(Spider)
    early = EarlyRefusal(crawler)
    early._dupefilter = Unwritable()
    early._refusal = lambda request: lambda: True
    request = Request("https://example.com/private")
    passed = early.request(request)  # raised out of the spider middleware before
    assert passed is not None
    assert passed.url == request.url
