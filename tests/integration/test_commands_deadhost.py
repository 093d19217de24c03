"""Both command-line tools on a host that cannot be connected to (SPEC §4; docs/decisions.md,
"A host that cannot be connected to is given up on quickly"): the crawl gives up on a
robots.txt whose host refuses connections, has no such name or fails the TLS handshake
after ``REP_UNREACHABLE_CONNECT_MAX_WAIT`` and drops its requests even with
``REP_UNREACHABLE_ACTION = "allow"``; the tools, which are a crawl, give up by the same
rule at once and say what the crawl does: DISALLOWED, exit 3, and why.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import pytest_twisted

from scrapy_rep.checker import EXIT_UNREACHABLE
from tests.support.localhttp import QuietHandler, free_port, serving
from tests.support.robotsite import crawl
from tests.support.tools import check_async, robots_async

DROPPED = (
    "note: unreachable, and the host cannot be connected to: the crawl gives up on it after "
    "REP_UNREACHABLE_CONNECT_MAX_WAIT and drops its requests, even with "
    "REP_UNREACHABLE_ACTION = allow"
)


class Plain(QuietHandler):
    """Plain HTTP: an ``https://`` request to it fails the TLS handshake."""

    def do_GET(self) -> None:
        self.send(200, b"User-agent: *\nAllow: /\n", {"Content-Type": "text/plain"})


@pytest.fixture(scope="module")
def plain_port() -> Iterator[int]:
    with serving(Plain) as port:
        yield port


async def check_within_5s(url: str, *options: str) -> tuple[int, str]:
    """``python -m scrapy_rep check URL OPTIONS --timeout 5``."""
    return await check_async(url, *options, "--timeout", "5")


async def robots_within_5s(url: str, *settings: str) -> tuple[int, str]:
    """``scrapy rep-robots --timeout 5 SETTINGS URL`` with no ``USER_AGENT`` of ours."""
    return await robots_async("--timeout", "5", *settings, url, user_agent=None)


def url_of(kind: str, plain_port: int) -> str:
    if kind == "refused":
        return f"http://127.0.0.1:{free_port()}/a"
    return f"https://127.0.0.1:{plain_port}/a"  # plain HTTP behind https://: TLS fails


@pytest.mark.parametrize(("kind", "words"), [("refused", "Connection refused"), ("tls", "SSL")])
@pytest_twisted.ensureDeferred
async def test_both_tools_drop_a_host_that_cannot_be_connected_to_even_under_allow(
    kind: str, words: str, plain_port: int
) -> None:
    url = url_of(kind, plain_port)
    check_code, check_output = await check_within_5s(url, "--unreachable-action", "allow")
    robots_code, robots_output = await robots_within_5s(url, "-s", "REP_UNREACHABLE_ACTION=allow")
    for code, output in ((check_code, check_output), (robots_code, robots_output)):
        assert code == EXIT_UNREACHABLE, output
        assert f"DISALLOWED  {url}" in output, output
        assert f"robots.txt {url.removesuffix('/a')}/robots.txt: unreachable (" in output
        assert words in output.splitlines()[2] and DROPPED in output, output
        assert "lets them through" not in output


@pytest_twisted.ensureDeferred
async def test_scrapy_robots_lets_it_through_when_the_connect_wait_is_the_whole_wait(
    plain_port: int,
) -> None:
    """With ``REP_UNREACHABLE_CONNECT_MAX_WAIT`` as long as ``REP_UNREACHABLE_MAX_WAIT`` the
    crawl gives up at the same time for every failure, and "allow" lets the requests
    through: the tool reads both settings as the crawl does."""
    url = url_of("refused", plain_port)
    code, output = await robots_within_5s(
        url, "-s", "REP_UNREACHABLE_ACTION=allow", "-s", "REP_UNREACHABLE_CONNECT_MAX_WAIT=600"
    )
    assert code == EXIT_UNREACHABLE, output
    assert f"allowed     {url}" in output and "lets them through" in output, output


@pytest_twisted.ensureDeferred
async def test_a_503_is_still_let_through_under_allow() -> None:
    """Only a host that cannot be connected to is dropped: a 503 waits the long wait,
    then "allow" lets its requests through, in the tools as in the crawl."""

    class Down(QuietHandler):
        def do_GET(self) -> None:
            self.send(503, b"down", {"Content-Type": "text/plain"})

    with serving(Down) as port:
        url = f"http://127.0.0.1:{port}/a"
        code, output = await check_within_5s(url, "--unreachable-action", "allow")
    assert code == EXIT_UNREACHABLE
    assert f"allowed     {url}" in output and "lets them through" in output


@pytest_twisted.ensureDeferred
async def test_the_crawl_and_both_tools_agree_on_a_refused_host_under_allow() -> None:
    url = f"http://127.0.0.1:{free_port()}/a"
    settings = {"REP_UNREACHABLE_ACTION": "allow", "REP_UNREACHABLE_CONNECT_MAX_WAIT": 0.3}
    _, spider = await crawl([url], settings)
    assert list(spider.dropped) == [url] and spider.downloaded == []
    check_code, check_output = await check_within_5s(url, "--unreachable-action", "allow")
    robots_code, robots_output = await robots_within_5s(
        url, *(arg for name, value in settings.items() for arg in ("-s", f"{name}={value}"))
    )
    assert f"DISALLOWED  {url}" in check_output and f"DISALLOWED  {url}" in robots_output
    assert check_code == robots_code == EXIT_UNREACHABLE


@pytest_twisted.ensureDeferred
async def test_a_request_through_a_proxy_of_the_environment_fails_the_proxys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Scrapy sends it through ``http_proxy``: a refused connection is the proxy's, held
    the long wait, and "allow" lets the requests through, as in the crawl."""
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{free_port()}")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    url = "http://robots.example/a"
    code, output = await check_within_5s(url, "--unreachable-action", "allow")
    assert code == EXIT_UNREACHABLE, output
    assert f"allowed     {url}" in output and "lets them through" in output, output
