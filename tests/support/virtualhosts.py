"""One local server, several sites told apart by the request's ``Host`` header (as
name-based virtual hosts are), not by the address connected to; and a spider whose
requests each carry a ``Host`` header of their own.

How the server reads the header is a parameter: :func:`name_before_colon` (the name
before the first colon, as nginx reads it) or :func:`authority_host` (the host of the
header read as a URL's authority, as Starlette's ``request.url`` or Node's ``new
URL(path, "http://" + host)`` read it). A robots.txt asked of a site the server does not
have is an error (a 500), never an empty robots.txt that allows everything."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from scrapy import Request
from twisted.internet import reactor
from twisted.web.resource import Resource
from twisted.web.server import Request as WebRequest
from twisted.web.server import Site

from tests.support.robotsite import ItemSpider


def name_before_colon(value: str) -> str:
    """The site a ``Host`` header names, as nginx reads it: the name before the colon."""
    return value.split(":")[0]


def authority_host(value: str) -> str:
    """The site a ``Host`` header names, read as a URL's authority (after a userinfo)."""
    return urlsplit(f"http://{value}/").hostname or ""


class VirtualHosts(Resource):
    """One server, the sites of ``robots_by_host`` (their robots.txt by host): what it
    serves depends on the ``Host`` header as ``read_host`` reads it. :attr:`log` has the
    (host, path) of every request."""

    isLeaf = True

    def __init__(
        self,
        robots_by_host: dict[str, str],
        read_host: Callable[[str], str] = name_before_colon,
    ) -> None:
        super().__init__()
        self.robots_by_host = robots_by_host
        self.read_host = read_host
        self.log: list[tuple[str, str]] = []

    def render_GET(self, request: WebRequest) -> bytes:
        host = self.read_host(request.getHeader("host") or "")
        path = request.uri.decode()
        self.log.append((host, path))
        if path == "/robots.txt":
            request.setHeader("Content-Type", "text/plain")
            return self.robots_by_host[host].encode()
        request.setHeader("Content-Type", "text/html")
        return f"<html><body>{host}{path}</body></html>".encode()


def serving_two_sites(
    own_rules: str, addressed_rules: str, read_host: Callable[[str], str] = name_before_colon
) -> tuple[VirtualHosts, Any, int]:
    """127.0.0.1 (a URL's own site) and localhost (the site its ``Host`` header names)
    served on one port of 127.0.0.1, each with its robots.txt, the header read by
    ``read_host``: the server, its port (stop it with ``stopListening``) and its number."""
    server = VirtualHosts({"127.0.0.1": own_rules, "localhost": addressed_rules}, read_host)
    port: Any = reactor.listenTCP(0, Site(server), interface="127.0.0.1")  # type: ignore[attr-defined]
    return server, port, port.getHost().port


class HostHeaderSpider(ItemSpider):
    """Each request carries its own ``Host`` header: ``(url, host)`` pairs (``host``
    empty: the request's own)."""

    sent_to: tuple[tuple[str, str], ...] = ()

    async def start(self) -> Any:
        for url, host in self.sent_to:
            yield Request(url, errback=self.failed, headers={"Host": host} if host else None)
