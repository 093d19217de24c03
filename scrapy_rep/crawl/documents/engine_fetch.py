"""robots.txt downloads over Scrapy's engine, driving :mod:`rep_engine.fetch.procedure`.

Each hop is a Scrapy request sent with ``engine.download_async``
(:func:`scrapy_rep.crawl.internals.download`): it passes the project's downloader
middlewares (proxies, headers, Scrapy's HTTP cache…) but not the scheduler, and takes
none of the spider's concurrency slots. Around it:

- the body stops after 500 KiB (``bytes_received``), without failing (SPEC §4);
- :class:`RobotsTxtResponseGuard` caps the inflation of a compressed robots.txt at
  16 MiB whatever answered it, the network or Scrapy's HTTP cache (a "zip bomb" is an
  invalid response: unreachable);
- an unreachable answer (429, 5xx) replayed by Scrapy's HTTP cache is never used: the
  hop is asked again past the cache;
- a request another component refuses (``IgnoreRequest``: a URL filter, the HTTP cache
  with ``HTTPCACHE_IGNORE_MISSING``) is not the site's answer: robots.txt counts as absent;
- an exception in scrapy_rep's own code is an internal error, logged as ours.

Each hop takes the route of the request that made the origin's robots.txt be fetched: its
Scrapy download slot (its ``download_slot`` meta, else Scrapy's default: the hostname), so
robots.txt counts against the same per-slot concurrency and delay as that origin's pages
and never waits in another origin's queue, nor behind the pages in its own (it goes first
in the slot's queue: :func:`~scrapy_rep.crawl.internals.first_in_slot`; docs/decisions.md,
'The verdict holds when the request leaves'); and its proxy (``proxy`` meta), so robots.txt
is asked of the site by the way its pages are (docs/decisions.md, 'One request, one
verdict').

A failed download of a per-origin document is named here (:func:`failure_of`): the
exception Scrapy's download handler raised, read as a
:class:`~rep_engine.fetch.rules.FailureClass` (SPEC §4's "unreachable" row, RFC 9309
§2.3.1.4). The lifecycle holds the document's requests for as long as that class says
(docs/decisions.md, "A host that cannot be connected to is given up on quickly"); this
module only names the failure.

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
import logging
import socket
import ssl
import zlib
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any, Final

from OpenSSL import SSL
from scrapy import Request
from scrapy.core.downloader.handlers.http11 import TunnelError
from scrapy.exceptions import IgnoreRequest, StopDownload
from scrapy.http import Headers, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.responsetypes import responsetypes
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet import error as tx
from twisted.internet.defer import DeferredSemaphore
from twisted.web.client import ResponseFailed

from rep_engine.fetch.kinds import ROBOTS_TXT, DocumentKind
from rep_engine.fetch.procedure import Fetched, FetchProcedure, Follow
from rep_engine.fetch.rules import FailureClass, lookup_failure
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from scrapy_rep.crawl.internals import (
    LOOKUP_ERRORS,
    LOST_ERRORS,
    TIMEOUT_ERRORS,
    download,
    error_line,
    first_in_slot,
    in_thread,
)
from scrapy_rep.crawl.meta import DONT_OBEY_ROBOTSTXT, ROBOTS_REQUEST
from scrapy_rep.crawl.requeststate import KEY, FetchState, fetch_state_of
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from rep_engine.fetch.cache import CacheEntry

logger = logging.getLogger(__name__)


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


#: A compressed robots.txt larger than this once inflated is refused (SPEC §4, §7).
MAX_INFLATED_BYTES: Final = 16 * 1024 * 1024
#: Priority of :class:`RobotsTxtResponseGuard`: its ``process_response`` runs after
#: Scrapy's HTTP cache (900) and before its decompression (590).
GUARD_PRIORITY: Final = 595
DOWNLOAD_PRIORITY: Final = 1000


class RobotsTxtResponseGuard:
    """A downloader middleware that caps the inflation of robots.txt answers.

    Scrapy's decompression reads ``download_maxsize``, which robots.txt requests set to 0
    so that a large plain robots.txt is cut at 500 KiB instead of refused; a compressed
    answer gets the 16 MiB cap here, whether it came from the network or the HTTP cache.
    """

    def process_response(
        self, request: Request, response: Response, spider: Any = None
    ) -> Response:
        state = request.meta.get(KEY)  # inline: every response passes here
        if type(state) is FetchState:
            encoding = response.headers.get(b"Content-Encoding") or b""
            if encoding.strip().lower() not in (b"", b"identity"):
                request.meta["download_maxsize"] = MAX_INFLATED_BYTES
                state.inflating = True
        return response


class EngineFetcher:
    """Downloads one origin's robots.txt (or another per-origin ``document``, with
    redirects) through the crawl's engine."""

    def __init__(
        self,
        crawler: Crawler,
        timeout: float,
        document: DocumentKind[Any] = ROBOTS_TXT,
        route_of: Callable[[Hashable], dict[str, Any]] = lambda key: {},
        download_stats: str | None = None,
    ) -> None:
        self.crawler = crawler
        self.timeout = timeout
        self.document = document
        self.stats = crawler.stats
        #: Where the download stats go (Scrapy's own ``robotstxt/…`` for robots.txt: see
        #: :mod:`scrapy_rep.crawl.documents.kinds`); by default the kind's own prefix.
        self._stat_prefix = download_stats or document.stat_prefix
        #: The route an origin's document takes: the download slot and the proxy of the
        #: request that triggered the fetch (``request.meta`` items; none: Scrapy's
        #: default slot, the hostname, and no proxy).
        self.route_of = route_of
        #: Why a name did not resolve, when Twisted's resolver does not say.
        self.dns = DnsAsker()

    async def fetch(self, origin: Hashable) -> Fetched:
        """What downloading ``origin``'s document came to; never raises."""
        procedure = FetchProcedure(self.document, self.document.url(origin))
        try:
            return await self._follow(procedure, origin)
        except Exception as error:  # a bug in scrapy_rep: never stall, never blame the site
            inc(self.stats, f"{self.document.stat_prefix}/internal_errors")
            logger.exception(
                "scrapy_rep internal error while downloading the %s of %s; please "
                "report it. Its requests are held and retried as if it were unreachable.",
                self.document.name,
                origin,
                extra={"spider": self.crawler.spider},
            )
            return procedure.on_internal_error(error_line(error))

    async def _follow(self, procedure: FetchProcedure, origin: Hashable) -> Fetched:
        step: Follow | Fetched = procedure.start
        bypass_cache = False
        while isinstance(step, Follow):
            request = self._request(step.url, origin, bypass_cache)
            inc(self.stats, f"{self._stat_prefix}/request_count")
            put_back = first_in_slot(self.crawler, request)  # never behind the origin's pages
            try:
                response = await download(self.crawler, request)
            except IgnoreRequest as error:
                state = fetch_state_of(request)
                if state is not None and state.inflating:  # our bomb cap: an invalid response
                    return procedure.on_network_error(error_line(error))
                inc(self.stats, f"{self.document.stat_prefix}/ignored")
                return procedure.on_ignored(error_line(error))
            except Exception as error:  # DNS, timeout, refused/reset, truncated
                inc(self.stats, f"{self._stat_prefix}/exception_count/{type(error)}")
                failure = await self._failure_of(error, request)
                return procedure.on_network_error(error_line(error), failure)
            finally:
                put_back()
            inc(self.stats, f"{self._stat_prefix}/response_count")
            inc(self.stats, f"{self._stat_prefix}/response_status_count/{response.status}")
            if "cached" in response.flags and _unreachable(response.status) and not bypass_cache:
                # Scrapy's HTTP cache replays a 429/5xx: never use it, ask the site.
                inc(self.stats, f"{self.document.stat_prefix}/httpcache_bypassed")
                bypass_cache = True
                continue
            bypass_cache = False
            step = procedure.on_response(
                response.status,
                response.body,
                location=_header(response, b"Location"),
                cache_control=_header(response, b"Cache-Control"),
                retry_after=_header(response, b"Retry-After"),
                truncated="download_stopped" in response.flags,
            )
        return step

    async def _failure_of(self, error: Exception, request: Request) -> FailureClass:
        """What the failed download says about the host (docs/decisions.md, "A host that
        cannot be connected to is given up on quickly"): a name lookup that failed
        without saying why is asked again of the system resolver."""
        failure = failure_of(error, via_proxy=bool(request.meta.get("proxy")))
        if failure is None:
            host = urlparse_cached(request).hostname or ""
            failure = await self.dns.failure(host, self.timeout)
        return failure

    def _request(self, url: str, origin: Hashable, bypass_cache: bool) -> Request:
        meta: dict[str, Any] = {
            DONT_OBEY_ROBOTSTXT: True,
            "dont_redirect": True,  # we count the hops (SPEC §4)
            "dont_retry": True,  # we retry with backoff
            "handle_httpstatus_all": True,
            "allow_offsite": True,  # a cross-host redirect is still followed
            "download_maxsize": 0,  # we stop at 500 KiB ourselves, without failing
            "download_warnsize": 0,
            "download_timeout": self.timeout,
            ROBOTS_REQUEST: str(origin),
            KEY: FetchState(self.document.name),
            **self.route_of(origin),
        }
        if bypass_cache:
            meta["dont_cache"] = True
        return Request(
            url, priority=DOWNLOAD_PRIORITY, callback=NO_CALLBACK, dont_filter=True, meta=meta
        )

    def bytes_received(self, data: bytes, request: Request, spider: Any = None) -> None:
        """SPEC §4: stop a download of this fetcher's kind after 500 KiB (parse what
        came): RFC 9309 §2.5's 500 KiB is the least read. Connected to ``bytes_received``
        only while a download of its kind runs; the fetchers of other kinds are connected
        too while theirs run, so each counts only its own requests (``FetchState.kind``): every
        byte counts once, against its own document. Stopped only past 500 KiB: a file of
        exactly 500 KiB is whole, not cut (its unended last line read, as every reader of
        the file reads it)."""
        state = fetch_state_of(request)
        if state is None or state.kind != self.document.name:
            return
        state.received += len(data)
        if state.received > MAX_BODY_BYTES:
            raise StopDownload(fail=False)


def _unreachable(status: int) -> bool:
    return status == 429 or status >= 500


def _header(response: Response, name: bytes) -> str | None:
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None


def robots_response_from_cache(request: Request, entry: CacheEntry[Any]) -> Response | None:
    """A spider's own request for a robots.txt we have (a SitemapSpider's ``sitemap_urls``),
    answered from the cache: no second download (SPEC §5). ``None``: download it."""
    parts = urlparse_cached(request)
    if parts.path != "/robots.txt" or parts.query or entry.unreachable or entry.status is None:
        return None
    if entry.body_zlib:
        status, body = 200, zlib.decompress(entry.body_zlib)
    elif 400 <= entry.status < 500:
        status, body = entry.status, b""
    else:
        return None
    headers = Headers({"Content-Type": "text/plain"})
    cls = responsetypes.from_args(headers=headers, url=request.url, body=body)
    flags = ["cached", "scrapy_rep"]
    return cls(
        url=request.url, status=status, headers=headers, body=body, flags=flags, request=request
    )
