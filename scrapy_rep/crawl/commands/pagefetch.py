"""The pages ``scrapy rep-robots --page`` / ``--purpose`` fetch: one page over urllib as a
Scrapy response (its first 10 MiB, within the timeout), and its directives described
(SPEC §6), with where each one was found.
"""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from typing import Any

from scrapy.http import Headers
from scrapy.responsetypes import responsetypes

from scrapy_rep.checker.download import within
from scrapy_rep.crawl.page.otherdirectives import describe_sources
from scrapy_rep.crawl.page.pagereader import page_directives
from scrapy_rep.settings import RepConfig

#: The most of a page read for ``--page`` (the directives are in headers and HTML).
MAX_PAGE_BYTES = 10 * 1024 * 1024


def page_response(url: str, user_agent: str, timeout: float) -> Any:
    """The page as a Scrapy response, or why it could not be fetched."""
    answer = within(timeout, lambda: fetch_page(url, user_agent, timeout))
    if answer is None:
        return f"not fetched (no complete answer within {timeout:g} s)"
    if isinstance(answer, str):
        return answer
    status, headers, body = answer
    cls = responsetypes.from_args(headers=headers, url=url, body=body)
    return cls(url=url, status=status, headers=headers, body=body)


def page_report(
    url: str, user_agent: str, timeout: float, config: RepConfig, also: tuple[str, ...] = ()
) -> tuple[str, bool]:
    """Fetch ``url`` and describe its directives for ``user_agent`` and the further crawler
    names ``also`` (the name the crawl's requests are sent as, when another); (text,
    fetched successfully)."""
    response = page_response(url, user_agent, timeout)
    if isinstance(response, str):
        return response, False
    status = response.status
    directives = page_directives(
        response,
        user_agent,
        extra_tokens=(*also, *config.directive_tokens),
        meta_in_noscript=config.meta_in_noscript,
    )
    where = describe_sources(directives.sources, response)
    return f"{status}, directives: {directives} ({where})", True


def fetch_page(url: str, user_agent: str, timeout: float) -> tuple[int, Headers, bytes] | str:
    """``(status, headers, body)``, or why the page could not be fetched."""
    request = urllib.request.Request(url, headers={"User-Agent": user_agent})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status, raw_headers = answer.status, answer.headers
            body = answer.read(MAX_PAGE_BYTES)
    except urllib.error.HTTPError as error:
        status, raw_headers, body = error.code, error.headers, error.read(MAX_PAGE_BYTES)
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as error:
        return f"not fetched ({type(error).__name__}: {getattr(error, 'reason', error)})"
    headers = Headers({name: raw_headers.get_all(name) for name in set(raw_headers)})
    return status, headers, body
