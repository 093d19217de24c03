"""A ``Host`` header with a userinfo that names the URL's own host before '@'
(``127.0.0.1:P@localhost:P`` for ``http://127.0.0.1:P/…``): a server that reads the
header as a URL's authority (Starlette's ``request.url``, Node's ``new URL(path,
"http://" + host)``) serves localhost's page, which localhost's robots.txt disallows.
The crawl asks the site of that reading too (scrapy_rep/crawl/requests/facts.py
``_named_site``; docs/decisions.md, 'A request sent with another Host is decided by both
sites'): the page is refused."""

from __future__ import annotations

from typing import Any

import pytest_twisted
from scrapy import Request

from tests.support.robotsite import ItemSpider, crawl
from tests.support.virtualhosts import authority_host, serving_two_sites


@pytest_twisted.ensureDeferred
async def test_a_host_header_naming_the_urls_host_as_its_userinfo_asks_the_host_after_it(
    tmp_path: Any,
) -> None:
    server, port, number = serving_two_sites(
        "User-agent: *\nAllow: /\n", "User-agent: *\nDisallow: /private\n", authority_host
    )

    class Spider(ItemSpider):
        async def start(self) -> Any:
            url = f"http://127.0.0.1:{number}/private/1"
            host = f"127.0.0.1:{number}@localhost:{number}"
            yield Request(url, errback=self.failed, headers={"Host": host})

    try:
        await crawl([], {"REP_AUDIT_FILE": str(tmp_path / "trail.jsonl")}, Spider)
    finally:
        await port.stopListening()
    assert ("localhost", "/private/1") not in server.log, server.log
