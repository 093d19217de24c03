"""A failed urllib download read as the crawl reads Scrapy's (scrapy_rep/checker/download.py;
docs/decisions.md, "A host that cannot be connected to is given up on quickly"), so that
both tools and the crawl give up on the same hosts (the tools on such hosts:
tests/integration/test_commands_deadhost.py)."""

from __future__ import annotations

import http.client
import socket
import ssl
import urllib.error

import pytest

from scrapy_rep.checker.download import failure_of
from scrapy_rep.crawl.documents.failures import failure_of as crawl_failure_of
from scrapy_rep.fetch.rules import FailureClass

#: A urllib error (or what it wraps), and what the crawl reads from the same error.
URLLIB_ERRORS: dict[str, tuple[BaseException, FailureClass]] = {
    "refused": (ConnectionRefusedError(111, "Connection refused"), FailureClass.REFUSED),
    "no such name": (
        socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
        FailureClass.NO_SUCH_HOST,
    ),
    "lookup failed for now": (
        socket.gaierror(socket.EAI_AGAIN, "Temporary failure"),
        FailureClass.DNS_FAILED,
    ),
    "certificate": (ssl.SSLCertVerificationError(1, "certificate verify failed"), FailureClass.TLS),
    "wrong TLS version": (ssl.SSLError(1, "wrong version number"), FailureClass.TLS),
    "TLS connection closed": (ssl.SSLEOFError(8, "EOF"), FailureClass.CONNECTION_LOST),
    "timeout": (TimeoutError("timed out"), FailureClass.TIMEOUT),
    "reset": (
        ConnectionResetError(104, "Connection reset by peer"),
        FailureClass.CONNECTION_LOST,
    ),
}


@pytest.mark.parametrize("name", list(URLLIB_ERRORS))
def test_urllib_failures_are_read_as_the_crawl_reads_them(name: str) -> None:
    reason, expected = URLLIB_ERRORS[name]
    assert failure_of(urllib.error.URLError(reason)) is expected  # as urlopen raises it
    assert failure_of(reason) is expected  # raised while reading the answer
    assert crawl_failure_of(reason) is expected  # the crawl's reading of the same error


def test_urllib_failures_the_crawl_has_no_twin_for() -> None:
    assert failure_of(http.client.RemoteDisconnected("closed")) is FailureClass.CONNECTION_LOST
    assert failure_of(http.client.IncompleteRead(b"")) is FailureClass.CONNECTION_LOST
    assert failure_of(http.client.BadStatusLine("x")) is FailureClass.OTHER
    assert failure_of(ValueError("unknown url type")) is FailureClass.OTHER
    refused = urllib.error.URLError(ConnectionRefusedError(111, "refused"))
    assert failure_of(refused, via_proxy=True) is FailureClass.PROXY  # the proxy's failure
