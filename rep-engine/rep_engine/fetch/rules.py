"""What a robots.txt download means (SPEC §4; each answer's effect is the table of
:mod:`rep_engine.fetch.procedure`): pure, no Scrapy or Twisted imports.

How long the requests are held depends on the failure (:class:`FailureClass`): a host
that cannot be connected to at all (refused, no such host, a TLS handshake that fails)
is given up on after ``connect_max_wait``, every other failure after ``max_wait``
(docs/decisions.md, "A host that cannot be connected to is given up on quickly").
"""

from __future__ import annotations

import enum
import math
import re
import socket
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Final
from urllib.parse import urlsplit

#: SPEC §4 / RFC 9309 §2.3.1.2: at least five redirect hops are followed.
MAX_REDIRECTS: Final = 5
#: Schemes a robots.txt redirect may lead to (SPEC §7: a site must not make the crawler
#: read local files through ``file:`` or ``data:``); any other target counts as 404.
REDIRECT_SCHEMES: Final = frozenset({"http", "https"})
_MAX_AGE = re.compile(r"(?:^|[,\s])(s-maxage|max-age)\s*=\s*\"?(\d{1,12})\"?", re.IGNORECASE)
_NO_CACHE = re.compile(r"(?:^|[,\s])(no-store|no-cache)(?:$|[,\s=])", re.IGNORECASE)


class Effect(enum.Enum):
    """What the rules of an origin become after a download."""

    PARSE = "parse"
    FOLLOW = "follow"
    ALLOW_ALL = "allow_all"
    UNREACHABLE = "unreachable"


class FailureClass(enum.Enum):
    """Why a download got no usable answer (SPEC §4's "unreachable" row, RFC 9309
    §2.3.1.4: "unreachable due to server or network errors"), as far as the driver can
    tell. Each one holds the requests and means complete disallow meanwhile; they differ
    only in how long they are held (:meth:`Policy.wait_limit`)."""

    #: A 429 or 5xx: the site answered, and says to wait.
    SERVER = "server"
    #: No complete answer in time (the site may be slow or overloaded).
    TIMEOUT = "timeout"
    #: The connection was reset or closed before a complete answer (something listens).
    CONNECTION_LOST = "connection_lost"
    #: Nothing listens on the port: the host cannot serve any page.
    REFUSED = "refused"
    #: The host name does not exist (NXDOMAIN) or has no address.
    NO_SUCH_HOST = "no_such_host"
    #: The name lookup failed for now (the resolver did not answer, or said "try again").
    DNS_FAILED = "dns_failed"
    #: The TLS handshake failed: the host cannot serve any page over https.
    TLS = "tls"
    #: The proxy between us and the host failed: nothing is known about the host.
    PROXY = "proxy"
    #: Anything else: an invalid answer, an error the driver cannot name, our own bug.
    OTHER = "other"

    @property
    def cannot_connect(self) -> bool:
        """The host cannot be connected to at all: its pages cannot be fetched either,
        so holding them longer only delays the end of the crawl."""
        return self in _CANNOT_CONNECT

    @property
    def words(self) -> str:
        """A few words for the log: ``connection refused``, ``no such host``…"""
        return _WORDS[self]


_CANNOT_CONNECT: Final = frozenset(
    {FailureClass.REFUSED, FailureClass.NO_SUCH_HOST, FailureClass.TLS}
)
_WORDS: Final = {
    FailureClass.SERVER: "server error (429/5xx)",
    FailureClass.TIMEOUT: "timed out",
    FailureClass.CONNECTION_LOST: "connection lost",
    FailureClass.REFUSED: "connection refused",
    FailureClass.NO_SUCH_HOST: "no such host",
    FailureClass.DNS_FAILED: "DNS lookup failed",
    FailureClass.TLS: "TLS handshake failed",
    FailureClass.PROXY: "proxy error",
    FailureClass.OTHER: "no usable answer",
}


#: ``getaddrinfo`` errors that say the name has no address: it does not exist (NXDOMAIN),
#: or has no record of any address family. Every other one (``EAI_AGAIN``: the
#: resolver did not answer or said "try again"; ``EAI_FAIL``: it refused or failed) may
#: be ours, and is held like a timeout. Read by the crawl and by both tools' fetcher.
NO_SUCH_HOST_ERRORS: Final = frozenset(
    code
    for code in (
        socket.EAI_NONAME,
        getattr(socket, "EAI_NODATA", None),
        getattr(socket, "EAI_ADDRFAMILY", None),
    )
    if code is not None
)


def lookup_failure(code: int | None) -> FailureClass:
    """A ``getaddrinfo`` error code as a failure: no such host, or a lookup that failed."""
    return FailureClass.NO_SUCH_HOST if code in NO_SUCH_HOST_ERRORS else FailureClass.DNS_FAILED


def effect_of_status(status: int, has_location: bool = True) -> Effect:
    """SPEC §4 for an HTTP status (a 3xx without ``Location`` cannot be followed: as 404)."""
    if 200 <= status < 300:
        return Effect.PARSE
    if 300 <= status < 400:
        return Effect.FOLLOW if has_location else Effect.ALLOW_ALL
    if status == 429 or status >= 500:
        return Effect.UNREACHABLE
    return Effect.ALLOW_ALL  # 4xx (401 and 403 included), and 1xx nonsense


def may_follow(url: str) -> bool:
    """Whether a robots.txt redirect to ``url`` is followed: an http(s) URL with a host
    and a valid port (anything else: the redirect has no usable target, as a 404)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a bad port)
    except ValueError:
        return False
    return parts.scheme.lower() in REDIRECT_SCHEMES and bool(parts.hostname)


#: The longest wait a ``Retry-After`` can ask for; a larger value is cut to this.
MAX_RETRY_AFTER: Final = 365 * 86_400.0
_DELTA_SECONDS = re.compile(r"[0-9]+")


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds from ``now`` (delta-seconds or an HTTP date), at most a
    year; ``None`` when it is absent or neither (never raises on content)."""
    if value is None:
        return None
    text = value.strip()
    if _DELTA_SECONDS.fullmatch(text):  # ASCII digits only: "²" is no number of seconds
        return MAX_RETRY_AFTER if len(text) > 12 else min(float(text), MAX_RETRY_AFTER)
    try:
        when = parsedate_to_datetime(text)
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        now = now if now is not None else datetime.now(timezone.utc)
        seconds = (when - now).total_seconds()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return min(max(0.0, seconds), MAX_RETRY_AFTER)


def retry_delay(attempt: int, base: float, maximum: float, retry_after: float | None) -> float:
    """Backoff before robots.txt retry number ``attempt`` (0-based): ``base × 2^attempt``,
    at least what ``Retry-After`` asked for, at most ``maximum``."""
    delay = base * math.pow(2, min(attempt, 60))
    if retry_after is not None:
        delay = max(delay, retry_after)
    return min(delay, maximum)


def cache_lifetime(
    cache_control: str | None, default: float, minimum: float, maximum: float
) -> float:
    """How long a fetched robots.txt stays fresh (SPEC §4 "Caching"): ``max-age`` (or
    ``s-maxage``) shortens or lengthens ``default`` within ``[minimum, maximum]``;
    ``no-store``/``no-cache`` mean ``minimum``. Without either (no ``Cache-Control``, or
    one that gives no age) the lifetime is ``default`` as set (docs/settings.md,
    ``REP_CACHE_TTL``): ``minimum`` bounds what ``Cache-Control`` gives only, and never
    lengthens a ``default`` set shorter (a shorter lifetime sees a robots.txt's change
    sooner); ``maximum`` caps every lifetime, the longest any copy stays fresh (what
    ``audit verify`` bounds a record's ``expires`` by)."""
    if cache_control and _NO_CACHE.search(cache_control):
        return min(minimum, maximum)
    ages: dict[str, float] = {
        name.lower(): float(age) for name, age in _MAX_AGE.findall(cache_control or "")
    }
    given = ages.get("s-maxage", ages.get("max-age"))
    if given is None:
        return min(default, maximum)
    return min(max(given, minimum), maximum)


@dataclass(frozen=True)
class Policy:
    """The numbers of SPEC §4, from the ``REP_*`` settings, and what follows from them."""

    #: First wait before retrying an unreachable document (doubles with each failure).
    retry_delay: float = 30.0
    #: How long requests are held for an unreachable document before giving up.
    max_wait: float = 600.0
    #: How long they are held when the host cannot be connected to
    #: (:attr:`FailureClass.cannot_connect`); at most ``max_wait``.
    connect_max_wait: float = 10.0
    #: ``"drop"`` or ``"allow"`` the held requests after giving up.
    unreachable_action: str = "drop"
    #: Lifetime without ``Cache-Control``, and the bounds of ``max-age``.
    cache_ttl: float = 86_400.0
    min_ttl: float = 60.0
    max_ttl: float = 7 * 86_400.0
    #: How long an expired copy is used while refreshes fail.
    stale_max: float = 30 * 86_400.0
    #: Downloads at once.
    concurrency: int = 8
    #: How long one process may hold an origin's download lease.
    lease_seconds: float = 185.0
    #: The shared store asked before downloading (its name), or ``None``.
    store: str | None = None
    #: The store is this process's alone (``JOBDIR``: one process per ``JOBDIR``, as Scrapy
    #: requires): no other process can download meanwhile, so no lease is taken and no
    #: second look is made under it (two store calls and a release less per download).
    store_exclusive: bool = False

    def lifetime(self, cache_control: str | None) -> float:
        return cache_lifetime(cache_control, self.cache_ttl, self.min_ttl, self.max_ttl)

    def backoff(self, failures: int, retry_after: float | None) -> float:
        """The wait after ``failures`` failed downloads in a row."""
        upper = max(self.retry_delay, self.max_wait)
        return retry_delay(failures - 1, self.retry_delay, upper, retry_after)

    def wait_limit(self, failure: FailureClass) -> float:
        """How long requests are held after a download failed with ``failure`` (counted
        from the first failure in a row): ``connect_max_wait`` when the host cannot be
        connected to, else ``max_wait``, never more than ``max_wait``."""
        if failure.cannot_connect:
            return min(self.connect_max_wait, self.max_wait)
        return self.max_wait

    def allows_after_giving_up(self, waited: float) -> bool:
        """The give-up rule (SPEC §4, giving up): whether the requests held for a
        document given up on after ``waited`` seconds go on. ``REP_UNREACHABLE_ACTION =
        "allow"`` lets them through after the long wait (``max_wait``) only: a host that
        cannot be connected to, given up on after the shorter ``connect_max_wait``, has
        them dropped (a few seconds are not the long outage "allow" is for, and the host
        may be back before its document is read; docs/decisions.md, "A host that cannot
        be connected to is given up on quickly"). Every other answer: dropped. The
        crawl's lifecycle gives up by it (the tools' crawl too, its waits run at once:
        :func:`scrapy_rep.crawl.commands.toolcrawl.unreachable_waits`)."""
        return self.unreachable_action == "allow" and waited >= self.max_wait

    def wait_setting(self, failure: FailureClass) -> str:
        """The setting that gives :meth:`wait_limit` for ``failure``, as the log names it."""
        if failure.cannot_connect and self.connect_max_wait < self.max_wait:
            return "REP_UNREACHABLE_CONNECT_MAX_WAIT"
        return "REP_UNREACHABLE_MAX_WAIT"

    def gave_up_lifetime(self, times: int, waited_for: float | None = None) -> float:
        """How long a give-up verdict lasts: the wait it ended (``waited_for``, by
        default ``max_wait``; at least ``retry_delay``), doubling each time the same
        origin is given up on again (a dead site is not probed every few seconds all
        crawl long), at most the cache lifetime."""
        limit = self.max_wait if waited_for is None else waited_for
        base = max(limit, self.retry_delay)
        return min(base * math.pow(2, min(times - 1, 30)), max(base, self.cache_ttl))
