"""robots.txt fetched with urllib: the tools' driver of the fetch procedure.

``python -m scrapy_rep check`` and ``scrapy rep-robots`` fetch robots.txt here, with the
procedure the crawl uses (:mod:`scrapy_rep.fetch.procedure`), so the outcome reads the
same in both. Standard library only. Every fetch is bounded in wall-clock time
(:func:`within`): socket timeouts bound each read, not a site that sends a byte a second.
"""

from __future__ import annotations

import errno
import http.client
import socket
import ssl
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from scrapy_rep.fetch.kinds import DocumentKind
from scrapy_rep.fetch.procedure import ROBOTS_TXT, TDMREP, Fetched, FetchProcedure, Follow
from scrapy_rep.fetch.rules import Effect, FailureClass, Policy, lookup_failure
from scrapy_rep.robotstxt import ALLOW_ALL, DISALLOW_ALL, MAX_BODY_BYTES, RobotsTxt, parse_robotstxt
from scrapy_rep.urls.origins import origin_of
from scrapy_rep.usage.policy import tdm_stand_in
from scrapy_rep.usage.tdmrep import NO_FILE, TdmRepFile

T = TypeVar("T")

#: What a default Scrapy project calls itself (``Scrapy/2.x (+https://scrapy.org)``).
DEFAULT_USER_AGENT: Final = "Scrapy"


@dataclass(frozen=True)
class FetchedRobots:
    """The outcome of fetching one robots.txt (SPEC §4)."""

    #: The robots.txt URL asked for.
    url: str
    #: The rules that apply: parsed, or ALLOW_ALL / DISALLOW_ALL.
    rules: RobotsTxt
    #: One line for people, the same words as the crawl's: ``200 (1,234 bytes)``…
    outcome: str
    #: The HTTP status of the last response, ``None`` when there was none.
    status: int | None = None
    #: Where the robots.txt was found after redirects.
    final_url: str | None = None
    #: The robots.txt could not be fetched (429, 5xx, network error, no answer in time).
    unreachable: bool = False
    #: Why it could not be (``unreachable`` only), as the crawl reads its own failures.
    failure: FailureClass | None = None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are followed by the fetch procedure itself, which counts the hops (and
    reads a ``Location`` that is not a URL as a 404): urllib raises them as errors."""

    def _raise(self, *args: Any) -> None:
        return None

    http_error_301 = http_error_302 = http_error_303 = _raise  # type: ignore[assignment]
    http_error_307 = http_error_308 = _raise  # type: ignore[assignment]


def robots_url_for(url: str) -> str | None:
    """The ``/robots.txt`` of ``url``'s origin (SPEC §3: scheme, lowercased IDNA host and
    port, default port folded); ``None`` for a URL without an origin."""
    origin = origin_of(url)
    return origin.robots_url if origin is not None else None


def within(seconds: float, work: Callable[[], T]) -> T | None:
    """``work()`` in a background thread, waited for at most ``seconds`` of wall-clock
    time (socket timeouts bound each read, not a site that sends one byte a second);
    ``None`` when it did not finish in time."""
    result: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as error:  # handed to the caller's thread
            errors.append(error)

    thread = threading.Thread(target=run, daemon=True, name="scrapy_rep-fetch")
    thread.start()
    thread.join(seconds)
    if errors:
        raise errors[0]
    return result[0] if result else None


def fetch_robotstxt(
    url: str,
    *,
    user_agent: str = DEFAULT_USER_AGENT,
    profile: str = "google",
    timeout: float = 10.0,
) -> FetchedRobots:
    """Fetch ``url`` (a robots.txt URL), within ``timeout`` seconds in all."""
    fetched = fetch_document(url, ROBOTS_TXT, user_agent=user_agent, timeout=timeout)
    if fetched.effect is Effect.PARSE:
        rules = parse_robotstxt(fetched.body, profile)
    else:
        rules = DISALLOW_ALL if fetched.effect is Effect.UNREACHABLE else ALLOW_ALL
    unreachable = fetched.effect is Effect.UNREACHABLE
    return FetchedRobots(
        url, rules, fetched.outcome, fetched.status, fetched.final_url, unreachable,
        fetched.failure,
    )  # fmt: skip


def fetch_document(
    url: str,
    document: DocumentKind[Any],
    *,
    user_agent: str = DEFAULT_USER_AGENT,
    timeout: float = 10.0,
) -> Fetched:
    """What fetching ``url`` (a per-origin document) came to, within ``timeout`` seconds."""
    procedure = FetchProcedure(document, url)
    fetched = within(timeout, lambda: _follow(procedure, user_agent, timeout))
    if fetched is None:
        fetched = procedure.on_network_error(
            f"timed out: no complete answer within {timeout:g} s", FailureClass.TIMEOUT
        )
    return fetched


def fetch_tdmrep(
    origin_url: str, *, user_agent: str = DEFAULT_USER_AGENT, timeout: float = 10.0
) -> tuple[TdmRepFile, Fetched]:
    """An origin's ``/.well-known/tdmrep.json`` (``origin_url``: ``https://host``): the
    file (nothing reserved when absent or unreachable) and what the fetch came to."""
    fetched = fetch_document(
        origin_url + TDMREP.path, TDMREP, user_agent=user_agent, timeout=timeout
    )
    parsed = fetched.effect is Effect.PARSE
    tdm = TDMREP.read(fetched.body, fetched.truncated) if parsed else NO_FILE
    return tdm, fetched


def _follow(procedure: FetchProcedure, user_agent: str, timeout: float) -> Fetched:
    opener = urllib.request.build_opener(_NoRedirects())
    step: Follow | Fetched = procedure.start
    while isinstance(step, Follow):
        request = urllib.request.Request(step.url, headers={"User-Agent": user_agent})
        try:
            with opener.open(request, timeout=timeout) as response:
                status, headers = response.status, response.headers
                body = response.read(MAX_BODY_BYTES)
                truncated = bool(response.read(1))
        except urllib.error.HTTPError as error:
            status, headers, body, truncated = error.code, error.headers, b"", False
            error.close()
        except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as error:
            reason = getattr(error, "reason", error)
            if isinstance(reason, socket.timeout | TimeoutError):
                reason = "timed out"
            failure = failure_of(error, via_proxy=_via_proxy(step.url))
            return procedure.on_network_error(f"{type(error).__name__}: {reason}", failure)
        step = procedure.on_response(
            status,
            body,
            location=headers.get("Location"),
            cache_control=headers.get("Cache-Control"),
            retry_after=headers.get("Retry-After"),
            truncated=truncated,
        )
    return step


#: TLS errors that are no handshake failure: the connection went away meanwhile.
_TLS_CONNECTION_LOST: Final = (ssl.SSLEOFError, ssl.SSLZeroReturnError, ssl.SSLSyscallError)


def failure_of(error: BaseException, *, via_proxy: bool = False) -> FailureClass:
    """What a urllib error says about the host, read as the crawl reads Scrapy's
    (:mod:`scrapy_rep.crawl.documents.failures`; docs/decisions.md, "A host that cannot
    be connected to is given up on quickly"), so that both tools show what the crawl
    does: only a refused connection, a name the resolver says does not exist and a
    failed TLS handshake cannot connect; a request through a proxy fails the proxy's."""
    if via_proxy:
        return FailureClass.PROXY
    reason = getattr(error, "reason", None)  # URLError wraps the socket's error
    for cause in (error, reason) if isinstance(reason, BaseException) else (error,):
        if isinstance(cause, _TLS_CONNECTION_LOST):
            return FailureClass.CONNECTION_LOST
        if isinstance(cause, ssl.SSLError):  # certificate verification included
            return FailureClass.TLS
        if isinstance(cause, socket.gaierror):
            return lookup_failure(cause.errno)
        if isinstance(cause, ConnectionRefusedError) or getattr(cause, "errno", None) == (
            errno.ECONNREFUSED
        ):
            return FailureClass.REFUSED
        if isinstance(cause, TimeoutError):  # socket.timeout is TimeoutError
            return FailureClass.TIMEOUT
        if isinstance(cause, ConnectionError | http.client.IncompleteRead):
            return FailureClass.CONNECTION_LOST  # reset, aborted, closed before the answer
    return FailureClass.OTHER


def _via_proxy(url: str) -> bool:
    """urllib sends ``url`` through a proxy of the environment (``https_proxy``…,
    unless ``no_proxy`` names the host), as its default opener does."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies()
    if parts.scheme not in proxies:
        return False
    return not urllib.request.proxy_bypass(parts.hostname or "")


def read_robots_file(path: Path, profile: str) -> tuple[RobotsTxt, list[str]]:
    """A local robots.txt and what a reader must know about it (a cut at 500 KiB, with
    the line where it fell). Raises ``OSError`` when it cannot be read."""
    with path.open("rb") as file:
        body = file.read(MAX_BODY_BYTES + 1)
    notes = []
    if len(body) > MAX_BODY_BYTES:
        body = body[:MAX_BODY_BYTES]
        line = body.count(b"\n") + 1
        notes.append(
            f"note: only the first 500 KiB ({MAX_BODY_BYTES:,} bytes) of {path} count, as "
            f"in a crawl; the cut falls in line {line}, and everything after it is ignored"
        )
    return parse_robotstxt(body, profile), notes


@dataclass(frozen=True)
class OriginTdm:
    """An origin's tdmrep.json as the crawl would hold it (for AI purposes)."""

    file: TdmRepFile
    #: The outcome when it is unreachable and its requests would be dropped.
    given_up: str | None
    #: One line: ``tdmrep.json URL: outcome``.
    line: str
    unreachable: bool


def robots_verdict(fetched: FetchedRobots, policy: Policy) -> tuple[RobotsTxt, list[str]]:
    """The rules the crawl ends up with for a fetched robots.txt: an unreachable one
    holds the requests, then drops them (everything disallowed) or, with
    ``REP_UNREACHABLE_ACTION = "allow"``, lets them through (SPEC §4, giving up), except
    on a host that cannot be connected to: the crawl's give-up rule
    (:meth:`~scrapy_rep.fetch.rules.Policy.allows_when_given_up`) with ``policy``, the
    crawl's ``REP_UNREACHABLE_*`` settings."""
    if not fetched.unreachable or policy.unreachable_action != "allow":
        return fetched.rules, []
    if not policy.allows_when_given_up(fetched.failure):
        assert fetched.failure is not None
        note = (
            f"note: unreachable ({fetched.failure.words}): the crawl gives up on it after "
            "REP_UNREACHABLE_CONNECT_MAX_WAIT and drops its requests, even with "
            "REP_UNREACHABLE_ACTION = allow"
        )
        return fetched.rules, [note]
    note = (
        "note: unreachable: the crawl holds its requests, then lets them through "
        "(REP_UNREACHABLE_ACTION = allow)"
    )
    return ALLOW_ALL, [note]


def held_reason(fetched: FetchedRobots) -> str:
    """Why both tools call a URL disallowed while its robots.txt is unreachable (SPEC §4:
    a 429, 5xx or network error disallows everything for now): temporary, and not what
    the crawl ends with, which holds the request and retries; ``""`` when reachable."""
    if not fetched.unreachable:
        return ""
    said = f"answers {fetched.status}" if fetched.status is not None else "is unreachable"
    return f"disallowed while robots.txt {said} (temporary; a crawl holds the request and retries)"


def origin_tdm(origin_url: str, agent: str, timeout: float, policy: Policy) -> OriginTdm:
    """Fetch ``origin_url``'s tdmrep.json with the crawl's procedure. Unreachable: the crawl
    holds its requests, then drops them (``REP_UNREACHABLE_ACTION``, "drop" by default) or
    lets them through (not on a host that cannot be connected to: the give-up rule,
    :meth:`~scrapy_rep.fetch.rules.Policy.allows_when_given_up`); the tools show that
    verdict and exit 3 (it is temporary)."""
    file, fetched = fetch_tdmrep(origin_url, user_agent=agent, timeout=timeout)
    line = f"tdmrep.json {origin_url}{TDMREP.path}: {fetched.outcome}"
    if fetched.effect is not Effect.UNREACHABLE:
        return OriginTdm(file, None, line, False)
    if not policy.allows_when_given_up(fetched.failure):
        return OriginTdm(tdm_stand_in(False), fetched.outcome, line, True)
    return OriginTdm(tdm_stand_in(True), None, line, True)
