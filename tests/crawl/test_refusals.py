"""The one performer of a refusal (:mod:`scrapy_rep.crawl.refusals`): a request refused
before its fetch, a link a page keeps from being followed, an item a page keeps from
being kept and a request dropped without a verdict are counted from one table, logged
and signalled alike."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from rep_engine.records import Action, Dropped, Link, PageOutput, Reason
from rep_engine.settings import RepConfig
from rep_engine.usage.purpose import UsageSignal
from rep_engine.usage.rsl.document import not_read
from rep_engine.usage.rsl.terms import rsl_signals
from rep_engine.verdict.decide import ROBOTS, Refused, RequestFacts
from rep_engine.verdict.page import PAGE
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.auditing import Refusal
from scrapy_rep.crawl.documents.slots import CrawlDelaySlots
from scrapy_rep.crawl.refusals import (
    count_unread,
    drop_request,
    refusal_stats,
    refuse_item,
    refuse_request,
)
from scrapy_rep.crawl.requests.perform import Performer
from tests.support.scrapyversions import open_stats

URL = "https://example.com/page"


def crawler_with_signals() -> tuple[Any, list[tuple[str, dict[str, Any]]]]:
    crawler = get_crawler(Spider)
    crawler.spider = Spider("s")
    open_stats(crawler)
    sent: list[tuple[str, dict[str, Any]]] = []
    crawler.signals.connect(
        lambda **kw: sent.append(("request", kw)), signal=rep_signals.request_refused, weak=False
    )
    crawler.signals.connect(
        lambda **kw: sent.append(("item", kw)), signal=rep_signals.item_refused, weak=False
    )
    return crawler, sent


def test_every_refused_request_and_item_is_counted_under_its_reason_with_its_detail() -> None:
    forbidden = Refused(Reason.FORBIDDEN, "m", ROBOTS, "mybot")
    assert refusal_stats(Action.FETCH, forbidden) == (
        "robotstxt/forbidden",
        "rep/requests/dropped/forbidden",
    )
    nofollow = Refused(Reason.NOFOLLOW, "m", PAGE, "mybot")
    assert refusal_stats(Action.FOLLOW, nofollow) == (
        "rep/directives/requests_dropped/nofollow",
        "rep/requests/dropped/nofollow",
    )
    image = Refused(Reason.PURPOSE, "m", PAGE, "mybot", purpose="ai-train")
    assert refusal_stats(Action.FOLLOW, image) == (
        "rep/purpose/images_refused/ai-train",
        "rep/requests/dropped/purpose",
    )
    item = Refused(Reason.PURPOSE, "m", PAGE, "mybot", purpose="ai-input")
    assert refusal_stats(Action.KEEP, item) == (
        "rep/purpose/items_dropped/ai-input",
        "rep/items/dropped/purpose",
    )
    # a reason without a detail row still lands in its family
    unreachable = Refused(Reason.ROBOTSTXT_UNREACHABLE, "m", ROBOTS, "mybot")
    assert refusal_stats(Action.FETCH, unreachable) == (
        "rep/requests/dropped/robotstxt_unreachable",
    )


def test_a_refusal_for_licenses_not_read_says_so() -> None:
    signal = rsl_signals(not_read(9, 8), URL, license_url="https://example.com/l.xml")[0]
    refused = Refused(Reason.PURPOSE, "m", ROBOTS, "mybot", purpose="ai-train", signal=signal)
    assert refusal_stats(Action.FETCH, refused)[-1] == "rep/rsl/requests_dropped/licenses_not_read"
    other = UsageSignal("aipref", (None, False, None), "Content-Usage: train-ai=n")
    plain = Refused(Reason.PURPOSE, "m", ROBOTS, "mybot", purpose="ai-train", signal=other)
    assert "rep/rsl/requests_dropped/licenses_not_read" not in refusal_stats(Action.FETCH, plain)


def test_before_and_after_the_fetch_one_performer_counts_logs_and_signals(
    caplog: pytest.LogCaptureFixture,
) -> None:
    crawler, sent = crawler_with_signals()
    config = RepConfig.from_settings(crawler.settings)
    performer = Performer(crawler, config, CrawlDelaySlots(crawler, config.crawl_delay_max))
    before = Refused(Reason.FORBIDDEN, "Forbidden by robots.txt", ROBOTS, "mybot")
    facts = RequestFacts(URL, None, "mybot")
    caplog.set_level(logging.DEBUG, logger="scrapy_rep")
    refusal = performer.refused(Request(URL), facts, before)
    assert isinstance(refusal, IgnoreRequest) and refusal.verdict is before  # for Scrapy
    page = HtmlResponse(URL, body=b"<html></html>", request=Request(URL))
    link = Refused(Reason.NOFOLLOW, "Not followed: nofollow", PAGE, "mybot")
    ledger = PageOutput()  # the page's, which the URL ledger settles on its entry
    next_url = f"{URL}/next"
    refuse_request(crawler, Action.FOLLOW, Request(next_url), link, page, "X-Robots-Tag", ledger)
    item = Refused(Reason.NOINDEX, "noindex by X-Robots-Tag: noindex", PAGE, "mybot")
    refuse_item(crawler, {"a": 1}, page, item, ledger)
    refuse_item(crawler, {"a": 2}, page, item, ledger)
    assert ledger.links == [Link(next_url, Reason.NOFOLLOW, "Not followed: nofollow")]
    assert ledger.dropped == {(Reason.NOINDEX, item.message): 2} and ledger.items_dropped == 2
    assert (ledger.reason, ledger.why) == (Reason.NOINDEX, item.message)
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/forbidden"] == 1
    assert stats["rep/requests/dropped/forbidden"] == 1
    assert stats["rep/requests/dropped/nofollow"] == 1
    assert stats["rep/directives/requests_dropped/nofollow"] == 1
    assert stats["rep/items/dropped/noindex"] == 2
    assert stats["rep/directives/items_dropped/noindex"] == 2
    assert [(kind, kw["verdict"]) for kind, kw in sent] == [
        ("request", before),
        ("request", link),
        ("item", item),
        ("item", item),
    ]
    reasons = [kw["reason"] for _, kw in sent]
    assert reasons == [Reason.FORBIDDEN, Reason.NOFOLLOW, Reason.NOINDEX, Reason.NOINDEX]
    assert sent[1][1]["response"] is page and sent[0][1]["response"] is None
    logged = [r.getMessage() for r in caplog.records if r.name == "scrapy_rep.crawl.refusals"]
    assert len(logged) == 4
    assert logged[1].startswith("Not followed: nofollow (X-Robots-Tag): <GET")
    assert logged[2] == f"Dropped an item of {URL}: noindex by X-Robots-Tag: noindex"


def test_a_request_dropped_without_a_verdict_is_performed_as_a_refusal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Held when the spider closed, or not kept in ``JOBDIR``: the one performer counts it
    under its word, logs it at DEBUG and sends ``request_refused`` without a verdict, a
    request not kept signalled as ``spider_closed`` (its row's ``refused_by``, "closed")."""
    crawler, sent = crawler_with_signals()
    caplog.set_level(logging.DEBUG, logger="scrapy_rep")
    closed = Request(URL)
    drop_request(crawler, closed, Reason.SPIDER_CLOSED, "Not downloaded: the spider closed")
    kept = Request(f"{URL}/kept")
    drop_request(crawler, kept, Dropped.NOT_SERIALIZABLE, "Not downloaded: not kept")
    count_unread(crawler, Dropped.NOT_SERIALIZABLE, 2)
    count_unread(crawler, Reason.SPIDER_CLOSED, 0)
    stats = crawler.stats.get_stats()
    assert stats["rep/requests/dropped/spider_closed"] == 1
    assert stats["rep/requests/dropped/not_serializable"] == 3
    assert [(kind, kw["request"], kw["reason"], kw["message"]) for kind, kw in sent] == [
        ("request", closed, Reason.SPIDER_CLOSED, "Not downloaded: the spider closed"),
        ("request", kept, Reason.SPIDER_CLOSED, "Not downloaded: not kept"),
    ]
    assert all(kw["verdict"] is None and kw["response"] is None for _, kw in sent)
    logged = [r for r in caplog.records if r.name == "scrapy_rep.crawl.refusals"]
    assert [r.levelno for r in logged] == [logging.DEBUG, logging.DEBUG]
    assert logged[1].getMessage() == f"Not downloaded: not kept: <GET {URL}/kept>"


def test_a_bug_of_ours_at_the_send_is_refused_by_the_performer() -> None:
    """A request that could not be decided again as it is sent (nothing of it known to
    decide with) is refused as ``internal_error`` as every refusal is: both its stats, its
    signal with the verdict, the ``IgnoreRequest`` its check raises for Scrapy."""
    crawler, sent = crawler_with_signals()
    config = RepConfig.from_settings(crawler.settings)
    performer = Performer(crawler, config, CrawlDelaySlots(crawler, config.crawl_delay_max))
    request = Request(URL)
    refusal = performer.internal_error(request, "Dropped: could not decide it")
    assert isinstance(refusal, Refusal) and refusal.verdict is not None
    assert refusal.verdict.reason is Reason.INTERNAL_ERROR
    stats = crawler.stats.get_stats()
    assert stats["rep/requests/internal_errors"] == 1
    assert stats["rep/requests/dropped/internal_error"] == 1
    [(kind, kw)] = sent
    assert (kind, kw["request"], kw["reason"]) == ("request", request, Reason.INTERNAL_ERROR)
    assert kw["verdict"].message == kw["message"] == "Dropped: could not decide it"
