"""A ``Host`` header whose port the crawl cannot read
(``localhost:99999``, ``localhost:abc``, ``localhost:P:P``, a comma-joined list), or
that names the URL's site after a userinfo (``localhost:P@127.0.0.1:P``), is taken for
the URL's own site, so only the URL's robots.txt decides the request; a name-based
virtual host server (this one, as nginx does) reads the name before the colon and
serves the other site's page, which that site's robots.txt disallows. Expected: the
site named is asked too (or the request is refused as addressed to no site the crawl can
name), never the URL's site alone (found by a hostile review; the URL's site alone
decided before)."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted

from tests.support.robotsite import crawl
from tests.support.virtualhosts import HostHeaderSpider, serving_two_sites


@pytest.mark.parametrize(
    "spelling",
    [
        "{name}:99999",
        "{name}:abc",
        "{name}:{n}:{n}",
        "{name}:{n}, 127.0.0.1:{n}",
        "{name}:{n}@127.0.0.1:{n}",
    ],
)
@pytest_twisted.ensureDeferred
async def test_a_host_header_with_an_unreadable_port_is_not_the_urls_site(
    tmp_path: Any, spelling: str
) -> None:
    server, port, number = serving_two_sites(
        "User-agent: *\nAllow: /\n", "User-agent: *\nDisallow: /private\n"
    )
    ip = f"http://127.0.0.1:{number}"

    class Spider(HostHeaderSpider):
        sent_to = ((f"{ip}/private/1", spelling.format(name="localhost", n=number)),)

    try:
        await crawl([], {"REP_AUDIT_FILE": str(tmp_path / "trail.jsonl")}, Spider)
    finally:
        await port.stopListening()
    assert ("localhost", "/private/1") not in server.log, server.log
