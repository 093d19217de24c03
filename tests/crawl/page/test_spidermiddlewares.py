"""PageDirectivesMiddleware with fake responses and callbacks (SPEC §6 "Effects in the crawl")."""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.http import HtmlResponse, Response
from scrapy.utils.test import get_crawler

from scrapy_rep import PageDirectives, RepSettingError
from scrapy_rep.crawl.page.spidermiddlewares import PageDirectivesMiddleware


def page_middleware(settings: dict[str, Any] | None = None) -> PageDirectivesMiddleware:
    crawler = get_crawler(Spider, {"USER_AGENT": "MyBot/1.0", **(settings or {})})
    crawler.spider = Spider("test")
    mw = PageDirectivesMiddleware.from_crawler(crawler)
    return mw


def page_response(
    body: str = "", headers: dict[str, str] | None = None, url: str = "https://e.com/p"
) -> HtmlResponse:
    response = HtmlResponse(url, body=body.encode(), headers=headers or {}, encoding="utf-8")
    response.request = Request(url)  # type: ignore[misc]
    return response


def meta_page(content: str, name: str = "robots") -> str:
    return (
        f'<html><head><meta name="{name}" content="{content}"></head><body>{{links}}</body></html>'
    )


def page_pass(mw: PageDirectivesMiddleware, response: Response, output: list[Any]) -> list[Any]:
    """The page pass over ``output``. With a purpose on Scrapy 2.13 to 2.15, the middleware
    has only its async method (Scrapy upgrades a callback's output to it): driven here to
    its end, which it reaches without waiting when the page names no license."""
    mw.process_spider_input(response)
    method: Any = mw.process_spider_output
    if not inspect.isasyncgenfunction(method):
        return list(method(response, output))

    async def upgraded() -> AsyncIterator[Any]:
        for each in output:
            yield each

    async def collect() -> list[Any]:
        return [each async for each in method(response, upgraded())]

    try:
        collect().send(None)
    except StopIteration as done:
        return list(done.value)
    raise AssertionError("the page pass waited for something")


def middleware_stat(mw: PageDirectivesMiddleware, key: str) -> int:
    assert mw.stats is not None
    return int(mw.stats.get_value(key, 0))


def test_spec6_directives_on_response_meta_before_the_callback() -> None:
    mw = page_middleware()
    response = page_response(meta_page("noindex"))
    mw.process_spider_input(response)
    directives = response.meta["rep_directives"]
    assert isinstance(directives, PageDirectives) and directives.noindex


def test_spec6_directives_on_meta_for_non_html_too() -> None:
    mw = page_middleware()
    response = Response("https://e.com/a.pdf", headers={"X-Robots-Tag": "none"})
    response.request = Request("https://e.com/a.pdf")  # type: ignore[misc]
    mw.process_spider_input(response)
    assert response.meta["rep_directives"].nofollow


def test_spec6_noindex_drops_items_keeps_requests(caplog: pytest.LogCaptureFixture) -> None:
    mw = page_middleware()
    item, request = {"a": 1}, Request("https://e.com/next")
    with caplog.at_level(logging.DEBUG, logger="scrapy_rep"):
        assert page_pass(mw, page_response(meta_page("noindex")), [item, request]) == [request]
    assert middleware_stat(mw, "rep/directives/items_dropped/noindex") == 1
    assert "https://e.com/p" in caplog.text and "noindex" in caplog.text


@pytest.mark.parametrize(
    ("purpose", "content", "setting"),
    [
        ("ai-input", "nosnippet", "REP_NOSNIPPET_MEANS_NO_AI_INPUT"),
        ("ai-input", "max-snippet:0", "REP_NOSNIPPET_MEANS_NO_AI_INPUT"),
        ("ai-train", "nocache", "REP_NOCACHE_MEANS_NO_AI_TRAIN"),
        ("ai-input", "noarchive", "REP_NOARCHIVE_MEANS_NO_AI_INPUT"),
    ],
)
def test_a_search_directive_read_as_an_ai_opt_out_drops_items_unless_its_setting_is_off(
    purpose: str, content: str, setting: str
) -> None:
    """The crawl's page pass reads each setting: on (the default), the page's items are
    dropped for the purpose; off, they are kept; its links are followed either way."""
    item, request = {"a": 1}, Request("https://e.com/next")
    mw = page_middleware({"REP_PURPOSE": purpose})
    assert page_pass(mw, page_response(meta_page(content)), [item, request]) == [request]
    assert middleware_stat(mw, f"rep/purpose/items_dropped/{purpose}") == 1
    mw = page_middleware({"REP_PURPOSE": purpose, setting: False})
    assert page_pass(mw, page_response(meta_page(content)), [item, request]) == [item, request]


def test_copied_meta_does_not_carry_the_parent_pages_directives() -> None:
    mw = page_middleware()
    parent = page_response(meta_page("noindex"))
    mw.process_spider_input(parent)
    child = HtmlResponse("https://e.com/child", body=b"<html></html>", encoding="utf-8")
    child.request = Request("https://e.com/child", meta=dict(parent.meta))  # type: ignore[misc]
    assert child.meta["rep_directives"].noindex  # what the spider copied
    assert page_pass(mw, child, [{"a": 1}]) == [{"a": 1}]
    assert not child.meta["rep_directives"].noindex


def test_spec6_expired_unavailable_after_drops_items() -> None:
    mw = page_middleware()
    assert (
        page_pass(mw, page_response(meta_page("unavailable_after: 2001-01-01")), [{"a": 1}]) == []
    )
    assert middleware_stat(mw, "rep/directives/items_dropped/unavailable_after") == 1
    assert page_pass(mw, page_response(meta_page("unavailable_after: 2999-01-01")), [{"a": 1}]) == [
        {"a": 1}
    ]


def test_spec6_noindex_keep_only_records() -> None:
    mw = page_middleware({"REP_NOINDEX_ACTION": "keep"})
    assert page_pass(mw, page_response(meta_page("noindex")), [{"a": 1}]) == [{"a": 1}]
    assert middleware_stat(mw, "rep/directives/items_kept/noindex") == 1


def test_spec6_nofollow_drops_requests_keeps_items(caplog: pytest.LogCaptureFixture) -> None:
    mw = page_middleware()
    item = {"a": 1}
    with caplog.at_level(logging.DEBUG, logger="scrapy_rep"):
        out = page_pass(
            mw, page_response(meta_page("nofollow")), [item, Request("https://e.com/next")]
        )
    assert out == [item]
    assert middleware_stat(mw, "rep/directives/requests_dropped/nofollow") == 1
    assert "nofollow" in caplog.text and "https://e.com/next" in caplog.text


def test_spec6_none_drops_both() -> None:
    mw = page_middleware()
    assert (
        page_pass(mw, page_response(meta_page("none")), [{"a": 1}, Request("https://e.com/next")])
        == []
    )


def test_spec6_nofollow_opt_out_in_request_meta() -> None:
    mw = page_middleware()
    request = Request("https://e.com/next", meta={"rep_ignore_nofollow": True})
    assert page_pass(mw, page_response(meta_page("nofollow")), [request]) == [request]


def test_spec6_nofollow_keep_action() -> None:
    mw = page_middleware({"REP_NOFOLLOW_ACTION": "keep"})
    request = Request("https://e.com/next")
    assert page_pass(mw, page_response(meta_page("nofollow")), [request]) == [request]
    assert middleware_stat(mw, "rep/directives/requests_kept/nofollow") == 1


def test_spec6_crawler_token_from_robotstxt_user_agent() -> None:
    mw = page_middleware({"ROBOTSTXT_USER_AGENT": "OtherBot"})
    assert page_pass(mw, page_response(meta_page("noindex", name="otherbot")), [{"a": 1}]) == []
    assert page_pass(
        page_middleware(), page_response(meta_page("noindex", name="otherbot")), [{"a": 1}]
    ) == [{"a": 1}]


def test_spec6_directive_tokens_setting_adds_tokens() -> None:
    mw = page_middleware({"REP_DIRECTIVE_TOKENS": ["googlebot"]})
    assert page_pass(mw, page_response(meta_page("noindex", name="googlebot")), [{"a": 1}]) == []


LINKS = (
    '<a href="/sponsored" rel="nofollow sponsored">ad</a>'
    '<a href="/ugc" rel="ugc">ugc</a>'
    '<a href="/sp" rel="sponsored">sp</a>'
    '<a href="/both" rel="nofollow">x</a><a href="/both">y</a>'
    '<a href="/plain">plain</a>'
)


def test_spec6_rel_nofollow_links_not_followed_ugc_sponsored_are() -> None:
    mw = page_middleware()
    response = page_response(f"<html><body>{LINKS}</body></html>")
    requests = [
        Request(f"https://e.com{p}") for p in ("/sponsored", "/ugc", "/sp", "/both", "/plain")
    ]
    out = page_pass(mw, response, requests)
    assert [r.url for r in out] == [
        "https://e.com/ugc",
        "https://e.com/sp",
        "https://e.com/both",
        "https://e.com/plain",
    ]
    assert middleware_stat(mw, "rep/directives/requests_dropped/rel_nofollow") == 1


def test_spec6_rel_nofollow_can_be_switched_off() -> None:
    mw = page_middleware({"REP_REL_NOFOLLOW": False})
    response = page_response(f"<html><body>{LINKS}</body></html>")
    assert len(page_pass(mw, response, [Request("https://e.com/sponsored")])) == 1


def test_spec6_rel_nofollow_respects_base_href() -> None:
    mw = page_middleware()
    response = page_response(
        '<html><head><base href="https://cdn.e.com/x/"></head>'
        '<body><a href="y" rel="nofollow">y</a></body></html>'
    )
    assert page_pass(mw, response, [Request("https://cdn.e.com/x/y")]) == []


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("REP_NOINDEX_ACTION", "delete"),
        ("REP_NOFOLLOW_ACTION", 3),
        ("REP_REL_NOFOLLOW", "maybe"),
        ("REP_DIRECTIVE_TOKENS", 5),
    ],
)
def test_wrong_setting_names_the_setting(name: str, value: object) -> None:
    with pytest.raises(RepSettingError, match=name):
        page_middleware({name: value})


def test_spec7_broken_hrefs_are_skipped_the_others_still_count() -> None:
    mw = page_middleware()
    response = page_response(
        "<html><body>"
        '<a href="http://[oops/x" rel="nofollow">a</a>'
        '<a href="http://e.com:99999/" rel="nofollow">b</a>'
        '<a href="https://e.com/sponsored" rel="nofollow">c</a>'
        "</body></html>"
    )
    requests = [Request("https://e.com/sponsored"), Request("https://e.com/plain")]
    assert [r.url for r in page_pass(mw, response, requests)] == ["https://e.com/plain"]


def test_spec7_broken_base_href_does_not_lose_the_page_output() -> None:
    mw = page_middleware()
    response = page_response(
        '<html><head><base href="http://[broken/"></head><body>'
        '<a href="/sponsored" rel="nofollow">c</a></body></html>'
    )
    requests = [Request("https://e.com/sponsored"), Request("https://e.com/plain")]
    # The links cannot be resolved, so none is known to be nofollow: both go on.
    assert len(page_pass(mw, response, requests)) == 2


@pytest.mark.parametrize("part", ["read_statements", "record_for"])
def test_a_page_whose_directives_cannot_be_read_keeps_its_output(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, part: str
) -> None:
    """A bug of ours reading what the page says, or its facts (the request's records),
    never costs the page's output."""
    import scrapy_rep.crawl.page.pagestate as module

    def broken(*args: Any, **kwargs: Any) -> PageDirectives:
        raise ValueError("lxml could not read an attribute")

    monkeypatch.setattr(module, part, broken)
    mw = page_middleware()
    response = page_response(meta_page("noindex, nofollow").format(links=""))
    response.meta["rep_image_usage"] = {"url": response.url}  # record_for is asked
    item, request = {"a": 1}, Request("https://e.com/next")
    with caplog.at_level(logging.WARNING):
        assert page_pass(mw, response, [item, request]) == [item, request]
    assert mw.stats is not None
    assert mw.stats.get_value("rep/directives/errors") == 1
    # Ours alone (Scrapy 2.13 logs its components as the crawler is made).
    assert [r.getMessage() for r in caplog.records if r.name.startswith("scrapy_rep")] == [
        "Could not read the directives of https://e.com/p (ValueError: lxml could not read "
        "an attribute); the page is treated as having none"
    ]
