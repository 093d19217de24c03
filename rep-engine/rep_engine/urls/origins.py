"""Where a robots.txt applies: the origin of a URL (SPEC §3).

Pure: no Scrapy imports. One robots.txt per origin (scheme, host, port); default ports
are folded (``http://e.com:80/`` = ``http://e.com/``); hosts are lowercased and
internationalised names compared in their IDNA (punycode) form; an IP address is its
own host. ``data:``, ``file:`` and ``about:`` URLs are never checked.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple
from urllib.parse import urlsplit

#: RFC 3986 default ports of the schemes robots.txt is fetched for.
DEFAULT_PORTS: Final = {"http": 80, "https": 443, "ftp": 21}
#: Schemes whose URLs are never checked against a robots.txt (SPEC §3).
UNCHECKED_SCHEMES: Final = frozenset({"data", "file", "about"})


class Origin(NamedTuple):
    """Scheme, host (lowercase, IDNA) and port (``None`` for the scheme's default)."""

    scheme: str
    host: str
    port: int | None

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}" + (f":{self.port}" if self.port is not None else "")

    @property
    def robots_url(self) -> str:
        """``/robots.txt`` at the root of the origin, never in a sub-folder (SPEC §3)
        (``str(self)`` written out: every refusal names it)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.scheme}://{host}{port}/robots.txt"


#: An ``Origin`` made from a plain tuple of its three parts, without a call per field.
_ORIGIN_OF_TUPLE: Final = Origin._make
#: The start of an http(s) URL whose host is as :func:`_split_origin` leaves it (ASCII
#: letters in lowercase, digits and ``-``, in labels joined by single dots, none last:
#: no case to fold, no IDNA, no dot to strip), with no userinfo and no port, followed by
#: its path, query or fragment or by nothing: its scheme and host (the default port).
_PLAIN_ORIGIN: Final = re.compile(r"(https?)://([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?=[/?#]|\Z)").match


def _idna(host: str) -> str:
    """Lowercase; non-ASCII labels to punycode (``exämple.com`` -> ``xn--exmple-cua.com``)."""
    host = host.lower().rstrip(".")
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        # Not valid IDNA 2003: encode label by label with plain punycode.
        return ".".join(
            label if label.isascii() else "xn--" + label.encode("punycode").decode("ascii")
            for label in host.split(".")
        )


def origin_of(url: str) -> Origin | None:
    """The origin of ``url``; ``None`` when robots.txt does not apply (data:, file:,
    about:, or no host).

    The usual URL (:data:`_PLAIN_ORIGIN`: ``http`` or ``https``, a host already as it is
    compared, no userinfo or port) has its origin read off its start; any other is split
    (:func:`_split_origin`), which gives the same for the usual one."""
    found = _PLAIN_ORIGIN(url) if type(url) is str else None
    if found is not None:
        return _ORIGIN_OF_TUPLE((*found.groups(), None))
    return _split_origin(url)


def _split_origin(url: str) -> Origin | None:
    """:func:`origin_of` by :func:`urllib.parse.urlsplit`: any URL."""
    if not isinstance(url, str):
        raise TypeError(f"url must be str, not {type(url).__name__}")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None  # an invalid port or IPv6 literal: nothing to look up
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme in UNCHECKED_SCHEMES or not scheme or not host:
        return None
    if port is not None and DEFAULT_PORTS.get(scheme) == port:
        port = None
    return Origin(scheme, _idna(host), port)


#: ``scheme://authority`` at the start of a URL: the memo key of its origin.
_ORIGIN_PART: Final = re.compile(r"[^:/?#]+://[^/?#]*")
_MAX_MEMO: Final = 100_000


class OriginMemo:
    """:func:`origin_of` remembered by ``scheme://authority`` (the per-request hot path),
    for at most 100,000 authorities.

    Each origin is kept as a plain tuple of strings and an int, which CPython's garbage
    collector stops tracking (an ``Origin`` is a tuple subclass, which it never stops
    tracking): a broad crawl's memo adds nothing to the objects every full collection
    walks (docs/decisions.md, 'Long-lived state out of the collector's sight'). ``get``
    makes the ``Origin`` again, a short-lived object."""

    def __init__(self) -> None:
        self._origins: dict[str, tuple[str, str, int | None] | None] = {}

    def get(self, url: str) -> Origin | None:
        match = _ORIGIN_PART.match(url)
        key = match.group() if match else url
        try:
            kept = self._origins[key]
        except KeyError:
            if len(self._origins) >= _MAX_MEMO:
                self._origins.clear()
            origin = origin_of(url)
            self._origins[key] = None if origin is None else (*origin,)
            return origin
        return None if kept is None else _ORIGIN_OF_TUPLE(kept)
