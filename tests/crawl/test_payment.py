"""``PaymentRequiredMiddleware`` (scrapy_rep/crawl/payment.py) without a crawl: a 402's
request gets Scrapy's ``dont_retry`` and ``dont_redirect`` (those a project set are left
as they are), taken back once the middlewares that read them are through; every other
answer, and our own documents' 402, pass untouched; each 402 is counted."""

from __future__ import annotations

import inspect
from typing import Any

from scrapy import Request, Spider
from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.http import HtmlResponse, Response
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl import meta, payment
from scrapy_rep.crawl.payment import STAT, PaymentRequiredMiddleware, payment_of

#: A project that retries a 402, and follows a meta refresh.
RETRYING = {"RETRY_ENABLED": True, "RETRY_HTTP_CODES": [402], "RETRY_TIMES": 3}
REFRESH = b'<html><head><meta http-equiv="refresh" content="0;url=/pay"></head></html>'


def _payment_chain(settings: dict[str, Any] | None = None) -> tuple[Any, list[Any]]:
    """A crawler, and the response side of the chain the add-on builds, in its order:
    ours (895), Scrapy's meta refresh (580) and retry (550)."""
    crawler = get_crawler(Spider, {**RETRYING, **(settings or {})})
    crawler.spider = Spider.from_crawler(crawler, "s")
    retry = RetryMiddleware.from_crawler(crawler)
    refresh = MetaRefreshMiddleware.from_crawler(crawler)
    return crawler, [PaymentRequiredMiddleware.from_crawler(crawler), refresh, retry]


def _through(chain: list[Any], request: Request, response: Response, spider: Spider) -> Any:
    """What the chain makes of ``response``: a response, or a request sent again. The
    spider is passed where a middleware requires it (Scrapy's own did before 2.14)."""
    result: Any = response
    for middleware in chain:
        if not isinstance(result, Response):
            return result
        taken = inspect.signature(middleware.process_response).parameters.get("spider")
        if taken is not None and taken.default is inspect.Parameter.empty:
            result = middleware.process_response(request, result, spider)
        else:
            result = middleware.process_response(request, result)
    return result


def _answer(request: Request, status: int, **headers: str) -> HtmlResponse:
    return HtmlResponse(request.url, status=status, body=REFRESH, headers=headers,
                        request=request)  # fmt: skip


def test_a_402_is_neither_retried_nor_followed_and_the_keys_are_taken_back() -> None:
    crawler, chain = _payment_chain()
    request = Request("http://a.test/p")
    answer = _answer(request, 402, **{"crawler-price": "USD 0.01"})
    # not a Request: not sent again
    assert _through(chain, request, answer, crawler.spider) is answer
    assert request.meta[meta.DONT_RETRY] is request.meta[meta.DONT_REDIRECT] is True
    assert crawler.stats.get_value(STAT) == 1
    assert payment_of(answer) == {"crawler-price": "USD 0.01"}
    payment.settled(request)  # the page-verdict middleware, after Scrapy's
    assert meta.DONT_RETRY not in request.meta and meta.DONT_REDIRECT not in request.meta
    payment.settled(request)  # once only


def test_the_control_case_without_it_retries_and_follows() -> None:
    """The same chain without ours: Scrapy follows a 402's meta refresh, and retries it."""
    crawler, chain = _payment_chain()
    request = Request("http://a.test/p")
    followed = _through(chain[1:], request, _answer(request, 402), crawler.spider)
    assert isinstance(followed, Request) and followed.url == "http://a.test/pay"
    retried = _through(chain[2:], request, _answer(request, 402), crawler.spider)
    assert isinstance(retried, Request) and retried.meta["retry_times"] == 1


def test_a_key_the_project_set_is_its_own_and_stays() -> None:
    crawler, chain = _payment_chain()
    request = Request("http://a.test/p", meta={meta.DONT_RETRY: False})
    _through(chain[:1], request, _answer(request, 402), crawler.spider)
    payment.settled(request)
    assert request.meta == {meta.DONT_RETRY: False}  # its own value, not ours, kept


def test_other_answers_and_our_own_documents_pass_untouched() -> None:
    crawler, chain = _payment_chain()
    for status in (200, 401, 403, 404, 429, 503):
        request = Request("http://a.test/p")
        _through(chain[:1], request, _answer(request, status), crawler.spider)
        assert request.meta == {}
    robots = Request("http://a.test/robots.txt", meta={meta.ROBOTS_REQUEST: "http://a.test"})
    _through(chain[:1], robots, _answer(robots, 402), crawler.spider)  # RFC 9309 §2.3.1.3: its 4xx
    assert meta.DONT_RETRY not in robots.meta
    assert crawler.stats.get_value(STAT) is None
