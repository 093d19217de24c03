"""What a failed robots.txt download was, read from the exceptions Scrapy's download
handlers raise (SPEC §4's "unreachable" row; docs/decisions.md, "A host that cannot be
connected to is given up on quickly"): table-driven over the exceptions as Scrapy 2.15
and newer wrap them (the Twisted error kept as ``__cause__``, Twisted's ``ResponseFailed``
with its list of reasons) and as 2.13 and 2.14 raise them (Twisted's, bare), and the
system resolver asked again when Twisted's resolver gives no reason."""

from __future__ import annotations

import errno
import socket
import ssl
import threading
from typing import Any

import pytest
import pytest_twisted
from OpenSSL import SSL
from scrapy.core.downloader.handlers.http11 import TunnelError
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import error as tx
from twisted.python.failure import Failure
from twisted.web._newclient import ResponseNeverReceived, _DataLoss
from twisted.web.client import ResponseFailed

from rep_engine.fetch.rules import FailureClass
from scrapy_rep.crawl.documents.engine_fetch import DnsAsker, causes, failure_of
from scrapy_rep.crawl.internals import SCRAPY
from tests.support.scrapyversions import needs_scrapy

if SCRAPY >= (2, 15):
    from scrapy.exceptions import (
        CannotResolveHostError,
        DownloadConnectionRefusedError,
        DownloadFailedError,
        DownloadTimeoutError,
        ResponseDataLossError,
    )
else:  # Scrapy 2.13 and 2.14 raise Twisted's errors bare: stand-ins for the wrappers,
    # whose causes are read all the same (the cases of the classes alone skip there).

    class CannotResolveHostError(Exception):  # type: ignore[no-redef]
        pass

    class DownloadConnectionRefusedError(Exception):  # type: ignore[no-redef]
        pass

    class DownloadFailedError(Exception):  # type: ignore[no-redef]
        pass

    class DownloadTimeoutError(Exception):  # type: ignore[no-redef]
        pass

    class ResponseDataLossError(Exception):  # type: ignore[no-redef]
        pass


def wrapped(outer: BaseException, inner: BaseException) -> BaseException:
    """``outer`` raised from ``inner``, as Scrapy's ``wrap_twisted_exceptions`` does."""
    outer.__cause__ = inner
    return outer


def never_received(reason: BaseException) -> BaseException:
    """Twisted's answer when the connection failed before a response (a TLS handshake,
    a reset), wrapped by Scrapy."""
    inner = ResponseNeverReceived([Failure(reason)])
    return wrapped(DownloadFailedError(str(inner)), inner)


class ProxyError(Exception):
    """As httpx names its proxy failures (Scrapy maps them to a refused connection)."""


class ConnectError(Exception):
    """As httpx and httpcore name a connection that could not be made."""


class Group(Exception):
    """An exception group, as anyio raises one (Python 3.11's, or its backport)."""

    def __init__(self, message: str, exceptions: list[BaseException]) -> None:
        super().__init__(message, exceptions)
        self.exceptions = tuple(exceptions)


def httpx_connect(reason: BaseException) -> BaseException:
    """A connection that could not be made, under the httpx handler Scrapy 2.15 to 2.18
    download with without a reactor: Scrapy's refused connection raised from httpx's
    ``ConnectError``, raised from httpcore's, which holds the error the connection failed
    with as its argument (anyio's ``OSError("All connection attempts failed")`` raised
    from each address's error, or a TLS error)."""
    core = ConnectError(reason)  # httpcore raises it "from None": its cause is not kept
    outer = wrapped(ConnectError("All connection attempts failed"), core)
    return wrapped(DownloadConnectionRefusedError(str(outer)), outer)


def attempts(*errors: BaseException) -> BaseException:
    """anyio's error after each address's attempt failed with ``errors``."""
    reason = errors[0] if len(errors) == 1 else Group("attempts failed", list(errors))
    return wrapped(OSError("All connection attempts failed"), reason)


REFUSED = tx.ConnectionRefusedError("Connection was refused by other side: 111")
ECONNREFUSED = ConnectionRefusedError(errno.ECONNREFUSED, "Connect call failed")
NO_RESULTS = tx.DNSLookupError("no results for hostname lookup: gone.invalid")

CASES: list[tuple[str, BaseException, FailureClass | None]] = [
    ("twisted refused, wrapped",
     wrapped(DownloadConnectionRefusedError(str(REFUSED)), REFUSED), FailureClass.REFUSED),
    ("twisted refused, bare", tx.ConnectionRefusedError(), FailureClass.REFUSED),
    ("OSError ECONNREFUSED (aiohttp)",
     wrapped(DownloadConnectionRefusedError("x"), OSError(errno.ECONNREFUSED, "refused")),
     FailureClass.REFUSED),
    ("OSError ENETUNREACH, called refused by Scrapy",
     wrapped(DownloadConnectionRefusedError("x"), OSError(errno.ENETUNREACH, "unreachable")),
     FailureClass.OTHER),
    ("no route", tx.NoRouteError(), FailureClass.OTHER),
    ("twisted DNS failure: no reason given",
     wrapped(CannotResolveHostError(str(NO_RESULTS)), NO_RESULTS), None),
    ("gaierror EAI_NONAME (NXDOMAIN)",
     wrapped(CannotResolveHostError("x"), socket.gaierror(socket.EAI_NONAME, "not known")),
     FailureClass.NO_SUCH_HOST),
    ("gaierror EAI_NODATA",
     wrapped(CannotResolveHostError("x"), socket.gaierror(socket.EAI_NODATA, "no address")),
     FailureClass.NO_SUCH_HOST),
    ("gaierror EAI_AGAIN (try again)",
     wrapped(CannotResolveHostError("x"), socket.gaierror(socket.EAI_AGAIN, "temporary")),
     FailureClass.DNS_FAILED),
    ("gaierror EAI_FAIL (the resolver failed)",
     wrapped(CannotResolveHostError("x"), socket.gaierror(socket.EAI_FAIL, "failed")),
     FailureClass.DNS_FAILED),
    ("TLS handshake", never_received(SSL.Error([("SSL routines", "", "wrong version number")])),
     FailureClass.TLS),
    ("ssl module handshake", wrapped(DownloadFailedError("x"), ssl.SSLError(1, "bad")),
     FailureClass.TLS),
    ("certificate refused", tx.VerifyError("self-signed"), FailureClass.TLS),
    ("reset during the TLS handshake", never_received(SSL.SysCallError(104, "ECONNRESET")),
     FailureClass.CONNECTION_LOST),
    ("TLS closed early", wrapped(DownloadFailedError("x"), ssl.SSLEOFError(8, "eof")),
     FailureClass.CONNECTION_LOST),
    ("download timeout", DownloadTimeoutError("took longer than 30 s"), FailureClass.TIMEOUT),
    ("TCP connect timed out", tx.TCPTimedOutError(), FailureClass.TIMEOUT),
    ("connection lost mid-answer",
     wrapped(DownloadFailedError("x"), ResponseFailed([Failure(tx.ConnectionLost())])),
     FailureClass.CONNECTION_LOST),
    ("reset before an answer", never_received(tx.ConnectionLost()), FailureClass.CONNECTION_LOST),
    ("data loss", ResponseDataLossError(), FailureClass.CONNECTION_LOST),
    ("connection done", tx.ConnectionDone(), FailureClass.CONNECTION_LOST),
    ("CONNECT tunnel refused by the proxy", TunnelError("Could not open CONNECT tunnel"),
     FailureClass.PROXY),
    ("httpx's proxy error", wrapped(DownloadConnectionRefusedError("x"), ProxyError()),
     FailureClass.PROXY),
    ("httpx refused", httpx_connect(attempts(ECONNREFUSED)), FailureClass.REFUSED),
    ("httpx refused at every address",
     httpx_connect(attempts(OSError(errno.EADDRNOTAVAIL, "no IPv6"), ECONNREFUSED)),
     FailureClass.REFUSED),
    ("httpx network unreachable",
     httpx_connect(attempts(OSError(errno.ENETUNREACH, "unreachable"))), FailureClass.OTHER),
    ("httpx TLS handshake", httpx_connect(ssl.SSLError(1, "bad")), FailureClass.TLS),
    ("something else", ValueError("?"), FailureClass.OTHER),
    # As Scrapy 2.13 and 2.14 raise them (and Twisted under Scrapy's wrappers since).
    ("download timeout, Twisted's", tx.TimeoutError("took longer than 30 s"),
     FailureClass.TIMEOUT),
    ("data loss, Twisted's", ResponseFailed([Failure(_DataLoss())]),
     FailureClass.CONNECTION_LOST),
    ("twisted DNS failure, bare", NO_RESULTS, None),
]  # fmt: skip
#: The cases that only Scrapy 2.15's own exception classes make.
SCRAPY_CLASSES_ONLY = {"download timeout", "data loss"}
PARAMS = [
    pytest.param(
        *case[1:],
        id=case[0],
        marks=[needs_scrapy((2, 15), "Scrapy's download exceptions")]
        if case[0] in SCRAPY_CLASSES_ONLY
        else [],
    )
    for case in CASES
]


@pytest.mark.parametrize(("error", "failure"), PARAMS)
def test_each_exception_is_read_as_its_failure(
    error: BaseException, failure: FailureClass | None
) -> None:
    assert failure_of(error) is failure


@pytest.mark.parametrize(("error", "failure"), PARAMS)
def test_through_a_proxy_every_failure_is_the_proxys(
    error: BaseException, failure: FailureClass | None
) -> None:
    """A request sent through a proxy (``meta["proxy"]``) connects to the proxy: a refused
    connection or a failed lookup says nothing about the host."""
    assert failure_of(error, via_proxy=True) is FailureClass.PROXY


def test_the_chain_is_read_whole_and_bounded() -> None:
    inner = never_received(REFUSED)
    assert REFUSED in list(causes(inner))
    looped = DownloadFailedError("a")
    looped.__cause__ = looped  # never raised so, but never an endless walk
    assert len(list(causes(looped))) == 9


# --------------------------------------------------------------------------- asking the resolver


def asked_as_the_crawl_does(asker: DnsAsker, host: str, timeout: float) -> Any:
    """The question run as the crawl runs its downloads (an asyncio task under Scrapy's
    reactor), as a Deferred the test awaits."""
    return deferred_from_coro(asker.failure(host, timeout))


def raising(error: BaseException) -> Any:
    def lookup(host: str) -> object:
        raise error

    return lookup


@pytest.mark.parametrize(
    ("lookup", "failure"),
    [
        (raising(socket.gaierror(socket.EAI_NONAME, "not known")), FailureClass.NO_SUCH_HOST),
        (raising(socket.gaierror(socket.EAI_NODATA, "no address")), FailureClass.NO_SUCH_HOST),
        (raising(socket.gaierror(socket.EAI_AGAIN, "try again")), FailureClass.DNS_FAILED),
        (raising(OSError("?")), FailureClass.DNS_FAILED),
        (lambda host: [("an address",)], FailureClass.DNS_FAILED),  # resolves now: it passed
    ],
    ids=["nxdomain", "no-data", "try-again", "other-error", "resolves-now"],
)
@pytest_twisted.ensureDeferred
async def test_the_system_resolver_tells_a_name_that_does_not_exist(
    lookup: Any, failure: FailureClass
) -> None:
    asked: list[str] = []

    def recording(host: str) -> object:
        asked.append(host)
        return lookup(host)

    assert await asked_as_the_crawl_does(DnsAsker(recording), "gone.invalid", 5) is failure
    assert asked == ["gone.invalid"]


@pytest_twisted.ensureDeferred
async def test_a_resolver_that_does_not_answer_in_time_is_a_lookup_that_failed_for_now() -> None:
    release = threading.Event()

    def hanging(host: str) -> object:
        release.wait(5)
        raise socket.gaierror(socket.EAI_NONAME, "too late to count")

    try:
        answer = await asked_as_the_crawl_does(DnsAsker(hanging), "slow.invalid", 0.1)
        assert answer is FailureClass.DNS_FAILED
    finally:
        release.set()


@pytest_twisted.ensureDeferred
async def test_the_real_system_resolver_is_asked_for_a_reserved_name() -> None:
    """``.invalid`` never resolves (RFC 6761 §6.4): whatever this machine's resolver
    says, the answer is one of the two DNS failures, never a crash or a success."""
    answer = await asked_as_the_crawl_does(DnsAsker(), "scrapy-rep-test.invalid", 10)
    assert answer in (FailureClass.NO_SUCH_HOST, FailureClass.DNS_FAILED)
