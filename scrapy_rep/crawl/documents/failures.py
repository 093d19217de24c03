"""What a failed download of a per-origin document was: the exception Scrapy's download
handler raised, read as a :class:`~rep_engine.fetch.rules.FailureClass` (SPEC §4's
"unreachable" row, RFC 9309 §2.3.1.4). The lifecycle holds the document's requests
for as long as that class says (docs/decisions.md, "A host that cannot be connected to
is given up on quickly"); this module only names the failure.

Scrapy 2.15 and newer wrap Twisted's errors (``DownloadConnectionRefusedError``,
``CannotResolveHostError``, ``DownloadTimeoutError``, ``DownloadFailedError``…) and keep
the original as ``__cause__`` (2.13 and 2.14 raise Twisted's own:
:mod:`scrapy_rep.crawl.internals`); Twisted's ``ResponseFailed`` lists its reasons. The whole
chain is read, and only a sure sign makes a failure one that gives up quickly: a refused
connection, a name the resolver says does not exist, a TLS handshake that failed.
Anything not recognised is :attr:`FailureClass.OTHER`, held as long as a 5xx.

Twisted's resolver keeps no reason for a failed lookup ("no results for hostname
lookup"): the system resolver is asked once more (:class:`DnsAsker`), in a thread,
to tell a name that does not exist from a lookup that failed for now.
"""

from __future__ import annotations

import errno
import socket
import ssl
from collections.abc import Callable, Iterator
from typing import Final

from OpenSSL import SSL
from scrapy.core.downloader.handlers.http11 import TunnelError
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import error as tx
from twisted.internet.defer import DeferredSemaphore
from twisted.web.client import ResponseFailed

from rep_engine.fetch.rules import FailureClass, lookup_failure
from scrapy_rep.crawl.internals import LOOKUP_ERRORS, LOST_ERRORS, TIMEOUT_ERRORS, in_thread

#: TLS errors that are no handshake failure: the connection went away meanwhile.
_TLS_CONNECTION_LOST: Final = (
    SSL.SysCallError, SSL.ZeroReturnError, ssl.SSLEOFError, ssl.SSLZeroReturnError,
    ssl.SSLSyscallError,
)  # fmt: skip
_TLS: Final = (SSL.Error, ssl.SSLError, tx.SSLError, tx.VerifyError, tx.CertificateError)
_TIMEOUTS: Final = (*TIMEOUT_ERRORS, tx.TimeoutError, tx.TCPTimedOutError, TimeoutError)
_LOST: Final = (*LOST_ERRORS, tx.ConnectionClosed, ResponseFailed, ConnectionError)
#: At most this many lookups of the system resolver at a time: they run in the
#: reactor's thread pool, which Scrapy's own DNS lookups use too (without a reactor, the
#: asyncio loop's default executor, which its name lookups use).
DNS_ASKS_AT_ONCE: Final = 2


def failure_of(error: BaseException, via_proxy: bool = False) -> FailureClass | None:
    """What ``error`` (raised downloading a document) says about its host; ``None``: a
    failed name lookup that gives no reason (ask :class:`DnsAsker`). ``via_proxy``:
    the request went through a proxy, so a failure to connect is the proxy's."""
    chain = list(causes(error))
    if via_proxy or any(isinstance(e, TunnelError) or _names_a_proxy(e) for e in chain):
        return FailureClass.PROXY
    for cause in chain:
        if isinstance(cause, _TLS_CONNECTION_LOST):
            return FailureClass.CONNECTION_LOST
        if isinstance(cause, _TLS):
            return FailureClass.TLS
        if isinstance(cause, socket.gaierror):
            return lookup_failure(cause.errno)
    if any(_refused(e) for e in chain):
        return FailureClass.REFUSED
    if any(isinstance(e, (tx.DNSLookupError, *LOOKUP_ERRORS)) for e in chain):
        return None
    if any(isinstance(e, _TIMEOUTS) for e in chain):
        return FailureClass.TIMEOUT
    if any(isinstance(e, _LOST) for e in chain):
        return FailureClass.CONNECTION_LOST
    return FailureClass.OTHER


def causes(error: BaseException, depth: int = 8) -> Iterator[BaseException]:
    """``error``, what it was raised from, the reasons a Twisted ``ResponseFailed`` lists,
    the exceptions of an exception group and an exception that holds the one it wraps as
    its argument (httpcore's ``ConnectError(OSError(…))``, under the httpx handler Scrapy
    2.15 to 2.18 download with without a reactor, whose ``OSError`` anyio raised from the
    refused connection, or from a group of them), depth first (at most ``depth`` levels:
    a chain is never a loop, but bounded)."""
    yield error
    if depth <= 0:
        return
    for reason in getattr(error, "reasons", None) or ():
        value = getattr(reason, "value", reason)
        if isinstance(value, BaseException):
            yield from causes(value, depth - 1)
    grouped = getattr(error, "exceptions", None)
    if isinstance(grouped, (list, tuple)):
        for member in grouped:
            if isinstance(member, BaseException):
                yield from causes(member, depth - 1)
    if len(error.args) == 1 and isinstance(error.args[0], BaseException):
        yield from causes(error.args[0], depth - 1)
    if error.__cause__ is not None:
        yield from causes(error.__cause__, depth - 1)


def _refused(error: BaseException) -> bool:
    """Nothing listens: the host answered the connection with a reset (ECONNREFUSED)."""
    if isinstance(error, (tx.ConnectionRefusedError, ConnectionRefusedError)):
        return True
    return isinstance(error, OSError) and error.errno == errno.ECONNREFUSED


def _names_a_proxy(error: BaseException) -> bool:
    """The proxy errors of the optional download handlers (httpx's ``ProxyError``,
    aiohttp's ``ClientProxyConnectionError`` and ``ClientHttpProxyError``), by name:
    those libraries are not imported for this."""
    return "Proxy" in type(error).__name__


def system_lookup(host: str) -> object:
    """The system resolver's addresses of ``host`` (raises ``socket.gaierror``)."""
    return socket.getaddrinfo(host, None)


class DnsAsker:
    """Asks the system resolver why a name did not resolve, a few lookups at a time."""

    def __init__(self, lookup: Callable[[str], object] | None = None) -> None:
        #: ``None``: :func:`system_lookup`, looked up when asking.
        self._lookup = lookup
        self._at_once = DeferredSemaphore(DNS_ASKS_AT_ONCE)

    async def failure(self, host: str, timeout: float) -> FailureClass:
        """:attr:`~FailureClass.NO_SUCH_HOST` if the resolver says ``host`` has no
        address; else :attr:`~FailureClass.DNS_FAILED` (it failed for now, gave no answer
        within ``timeout`` seconds, or resolves now: a failure that passed)."""
        await maybe_deferred_to_future(self._at_once.acquire())
        try:
            await in_thread(self._lookup or system_lookup, host, timeout=timeout)
        except socket.gaierror as error:
            return lookup_failure(error.errno)
        except Exception:  # no answer in time, or an error that says nothing of the name
            return FailureClass.DNS_FAILED
        finally:
            self._at_once.release()
        return FailureClass.DNS_FAILED
