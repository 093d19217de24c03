"""The embedded demo site: several local origins, each showing one part of the REP.

Every origin is a site on 127.0.0.1 with a free port, so the demo needs no network.
:func:`start_demo_site` starts them on the running reactor (``twisted.web``) or, in a crawl
without one (``-s TWISTED_REACTOR_ENABLED=False``), on the running asyncio loop (a small
HTTP/1.1 server of the standard library's ``asyncio``), and returns their base URLs;
:data:`EXPECTED` (in the tests) says what the crawl must do with each URL.

Origins:
- shop: robots.txt 200 with a group for the demo crawler and one for everybody else:
  rules by agent, ``*`` and ``$``, allow beating disallow, crawl-delay, sitemaps, and pages
  with robots meta tags and X-Robots-Tag headers;
- open: robots.txt 404, so everything is allowed;
- flaky: robots.txt 503 on the first request, then 200: requests are held, then released;
- moved: robots.txt redirects (301) to /robots-real.txt, which is followed; it says
  ``Content-Signal: search=yes, ai-train=no``;
- ai: every other machine-readable AI-usage signal: ``Content-Usage`` rules in
  robots.txt (IETF aipref), ``/.well-known/tdmrep.json`` (W3C TDMRep), the
  ``Content-Usage`` header, the ``tdm-reservation`` meta tag and ``noai``. A crawl for
  ``search`` keeps every page; a crawl for ``ai-train`` (``-s REP_PURPOSE=ai-train``)
  does not fetch or does not keep the pages they deny.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from dataclasses import dataclass, field
from html import escape
from http import HTTPStatus
from typing import Any

from twisted.web.resource import Resource
from twisted.web.server import Request, Site

#: The demo crawler's product token (its User-Agent starts with it).
DEMO_AGENT = "repdemo"

SHOP_ROBOTS = """\
# robots.txt of the demo shop
User-agent: otherbot
Disallow: /

User-agent: repdemo
Disallow: /private/
Allow: /private/press/
Disallow: /*?sort=
Disallow: /*.json$
Crawl-delay: 0.2

User-agent: *
Disallow: /

Sitemap: {base}/sitemap.xml
"""

MOVED_ROBOTS = """\
User-agent: *
Disallow: /secret/
Content-Signal: search=yes, ai-train=no
"""

AI_ROBOTS = """\
# AI-usage preferences (IETF aipref): longest path wins
User-agent: *
Allow: /
Content-Usage: /articles/ train-ai=n
Content-Usage: /open-data/ train-ai=y
"""

AI_TDMREP = """\
[{"location": "/books/*", "tdm-reservation": 1,
  "tdm-policy": "https://example.com/tdm-policy.json"}]
"""

FLAKY_ROBOTS = """\
User-agent: *
Disallow: /drafts/
"""


def _page(title: str, body: str, head: str = "") -> bytes:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title>{head}</head>"
        f"<body><h1>{title}</h1>{body}</body></html>"
    ).encode()


def _meta(content: str, name: str = "robots") -> str:
    return f'<meta name="{name}" content="{content}">'


@dataclass
class Page:
    """One resource: status, headers and body."""

    body: bytes
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html"})


class DemoOrigin(Resource):
    """One origin: a table of paths; counts the requests it serves (for tests)."""

    isLeaf = True

    def __init__(self, pages: dict[str, Page]) -> None:
        super().__init__()
        self.pages = pages
        self.hits: list[str] = []
        self.robots_failures_left = 0

    def answer(self, path: str) -> Page:
        """The answer to a request for ``path`` (counted in :attr:`hits`)."""
        self.hits.append(path)
        if path == "/robots.txt" and self.robots_failures_left > 0:
            self.robots_failures_left -= 1
            return Page(b"Service temporarily unavailable", 503, {"Retry-After": "1"})
        page = self.pages.get(path)
        if page is None:
            return Page(b"not found", 404, {})
        return page

    def render(self, request: Request) -> bytes:
        page = self.answer(request.uri.decode("latin-1"))
        request.setResponseCode(page.status)
        for name, value in page.headers.items():
            request.setHeader(name, value)
        return page.body

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection on the asyncio loop: one request answered, then closed."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            method, target = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")[:2]
            page = self.answer(target)
            lines = [
                f"HTTP/1.1 {page.status} {HTTPStatus(page.status).phrase}",
                *(f"{name}: {value}" for name, value in page.headers.items()),
                f"Content-Length: {len(page.body)}",
                "Connection: close",
            ]
            writer.write("\r\n".join([*lines, "", ""]).encode("latin-1"))
            if method != "HEAD":
                writer.write(page.body)
            await writer.drain()
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # a client gone, or a request line that is not one: nothing to answer
        finally:
            writer.close()


class LoopPort:
    """An origin listening on the running asyncio loop (a crawl without a reactor): bound
    and listening at once, served from the loop's next turn."""

    def __init__(self, origin: DemoOrigin, preferred: int) -> None:
        self.socket = _bound(preferred)
        self.socket.listen(128)
        self.socket.setblocking(False)
        serving = asyncio.start_server(origin.serve, sock=self.socket)
        self._server = asyncio.get_running_loop().create_task(serving)

    @property
    def port(self) -> int:
        return int(self.socket.getsockname()[1])

    def stopListening(self) -> None:  # Twisted's name, which DemoSite.stop calls
        if self._server.done() and not self._server.cancelled():
            self._server.result().close()
        else:
            self._server.cancel()
            self.socket.close()


def _bound(preferred: int) -> socket.socket:
    """A socket bound to 127.0.0.1, port ``preferred`` when free, else a free port."""
    for port in (preferred, 0) if preferred else (0,):
        bound = socket.socket()
        bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            bound.bind(("127.0.0.1", port))
        except OSError:
            bound.close()
            continue
        return bound
    raise OSError("no free port on 127.0.0.1")


@dataclass
class DemoSite:
    """The running demo site: base URL and resource of each origin."""

    bases: dict[str, str]
    origins: dict[str, DemoOrigin]
    #: Twisted's listening ports, or :class:`LoopPort`.
    ports: list[Any]

    def stop(self) -> None:
        for port in self.ports:
            port.stopListening()


def _shop(base: str, others: dict[str, str]) -> dict[str, Page]:
    links = "".join(
        f'<li><a href="{href}"{rel}>{text}</a></li>'
        for href, text, rel in [
            ("/products/1", "Product 1", ""),
            ("/products/2", "Product 2", ""),
            ("/products?sort=price", "Sorted list (Disallow: /*?sort=)", ""),
            ("/api/items.json", "JSON (Disallow: /*.json$)", ""),
            ("/api/items.json?v=2", "JSON with a query ($ anchors the end)", ""),
            ("/private/accounts", "Accounts (Disallow: /private/)", ""),
            ("/private/press/", "Press (Allow: /private/press/ beats it)", ""),
            ("/noindex", "A noindex page", ""),
            ("/nofollow", "A nofollow page", ""),
            ("/expired", "unavailable_after in the past", ""),
            ("/fresh", "unavailable_after in the future", ""),
            ("/files/catalogue.pdf", "PDF with X-Robots-Tag: none", ""),
            ("/scoped", "Header scoped to crawlers", ""),
            ("/ads/landing", "Sponsored link (rel=nofollow)", ' rel="nofollow sponsored"'),
            ("/community/post", "User content (rel=ugc)", ' rel="ugc"'),
            (others["open"] + "/", "Another origin without robots.txt", ""),
            (others["flaky"] + "/", "An origin whose robots.txt fails first", ""),
            (others["moved"] + "/", "An origin whose robots.txt redirects", ""),
            (others["ai"] + "/", "An origin with AI-usage signals", ""),
        ]
    )
    html = {"Content-Type": "text/html; charset=utf-8"}
    return {
        "/robots.txt": Page(
            SHOP_ROBOTS.format(base=base).encode(), headers={"Content-Type": "text/plain"}
        ),
        "/": Page(_page("Demo shop", f"<ul>{links}</ul>")),
        "/products/1": Page(_page("Product 1", "<p>A fine product.</p>")),
        "/products/2": Page(_page("Product 2", "<p>Another.</p>")),
        "/products/3": Page(_page("Product 3", "<p>Linked only from the noindex page.</p>")),
        "/products?sort=price": Page(_page("Sorted", "")),
        "/api/items.json": Page(b"[]", headers={"Content-Type": "application/json"}),
        "/api/items.json?v=2": Page(b"[]", headers={"Content-Type": "application/json"}),
        "/private/accounts": Page(_page("Accounts", "")),
        "/private/press/": Page(_page("Press", "<p>Press releases.</p>")),
        "/noindex": Page(
            _page("Noindex", '<a href="/products/3">Product 3</a>', _meta("noindex")),
            headers=html,
        ),
        "/nofollow": Page(
            _page(
                "Nofollow",
                '<a href="/products/4">Product 4</a>',
                _meta("nofollow"),
            ),
            headers=html,
        ),
        "/products/4": Page(_page("Product 4", "<p>Only linked from a nofollow page.</p>")),
        "/expired": Page(
            _page("Expired", "", _meta("unavailable_after: 2020-01-01")), headers=html
        ),
        "/fresh": Page(_page("Fresh", "", _meta("unavailable_after: 2099-12-31")), headers=html),
        "/files/catalogue.pdf": Page(
            b"%PDF-1.4\n%demo\n",
            headers={"Content-Type": "application/pdf", "X-Robots-Tag": "none"},
        ),
        "/scoped": Page(
            _page("Scoped", '<a href="/products/5">Product 5</a>'),
            headers={
                "Content-Type": "text/html",
                "X-Robots-Tag": "otherbot: noindex, nofollow, repdemo: nofollow",
            },
        ),
        "/products/5": Page(_page("Product 5", "")),
        "/ads/landing": Page(_page("Ad", "")),
        "/community/post": Page(_page("Post", "")),
        "/sitemap.xml": Page(
            (
                '<?xml version="1.0" encoding="UTF-8"?>'
                '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<url><loc>{base}/products/1</loc></url></urlset>"
            ).encode(),
            headers={"Content-Type": "application/xml"},
        ),
    }


def _open() -> dict[str, Page]:
    return {
        "/": Page(_page("Open origin", '<a href="/anything/goes">Anything</a>')),
        "/anything/goes": Page(_page("Anything goes", "")),
    }


def _flaky() -> dict[str, Page]:
    return {
        "/robots.txt": Page(FLAKY_ROBOTS.encode(), headers={"Content-Type": "text/plain"}),
        "/": Page(_page("Flaky origin", '<a href="/page">Page</a> <a href="/drafts/1">Draft</a>')),
        "/page": Page(_page("Held, then crawled", "")),
        "/drafts/1": Page(_page("Draft", "")),
    }


def _moved() -> dict[str, Page]:
    return {
        "/robots.txt": Page(b"", status=301, headers={"Location": "/robots-real.txt"}),
        "/robots-real.txt": Page(MOVED_ROBOTS.encode(), headers={"Content-Type": "text/plain"}),
        "/": Page(
            _page("Moved origin", '<a href="/public">Public</a> <a href="/secret/plan">Secret</a>')
        ),
        "/public": Page(_page("Public", "")),
        "/secret/plan": Page(_page("Secret", "")),
    }


def _ai() -> dict[str, Page]:
    links = "".join(
        f'<li><a href="{href}">{escape(text)}</a></li>'
        for href, text in [
            ("/articles/1", "robots.txt Content-Usage: /articles/ train-ai=n"),
            ("/open-data/set", "robots.txt Content-Usage: /open-data/ train-ai=y"),
            ("/books/1", "tdmrep.json reserves /books/*"),
            ("/header", "Content-Usage: train-ai=n header"),
            ("/tdm-meta", '<meta name="tdm-reservation" content="1">'),
            ("/noai", '<meta name="robots" content="noai">'),
        ]
    )
    text = {"Content-Type": "text/plain"}
    return {
        "/robots.txt": Page(AI_ROBOTS.encode(), headers=text),
        "/.well-known/tdmrep.json": Page(
            AI_TDMREP.encode(), headers={"Content-Type": "application/json"}
        ),
        "/": Page(_page("AI-usage signals", f"<ul>{links}</ul>")),
        "/articles/1": Page(_page("Article", "")),
        "/open-data/set": Page(_page("Open data", "")),
        "/books/1": Page(_page("Book", "")),
        "/header": Page(
            _page("Header", ""),
            headers={"Content-Type": "text/html", "Content-Usage": "train-ai=n"},
        ),
        "/tdm-meta": Page(_page("TDM meta", "", _meta("1", "tdm-reservation"))),
        "/noai": Page(_page("noai", "", _meta("noai"))),
    }


#: The demo's origins, in port order.
NAMES = ("shop", "open", "flaky", "moved", "ai")
#: The ports tried first (so the report reads the same as in docs/demo.md); when one is
#: taken, a free port is used instead.
PREFERRED_PORTS = (8301, 8302, 8303, 8304, 8305)


def _listen(origin: DemoOrigin, preferred: int) -> Any:
    """``origin`` listening on 127.0.0.1: on the reactor when one is installed, else on
    the running asyncio loop (a crawl without a reactor: importing Twisted's reactor is
    then forbidden)."""
    if "twisted.internet.reactor" not in sys.modules:
        return LoopPort(origin, preferred)
    from twisted.internet import reactor
    from twisted.internet.error import CannotListenError

    if _free(preferred):  # older Twisted leaks the socket of a failed listenTCP
        try:
            return reactor.listenTCP(preferred, Site(origin), interface="127.0.0.1")  # type: ignore[attr-defined]
        except CannotListenError:  # taken in between
            pass
    return reactor.listenTCP(0, Site(origin), interface="127.0.0.1")  # type: ignore[attr-defined]


def _free(port: int) -> bool:
    """Whether ``port`` can be listened on at 127.0.0.1 now (the test socket is closed)."""
    import socket

    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Twisted binds
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def start_demo_site(flaky_failures: int = 1, preferred_ports: bool = True) -> DemoSite:
    """Listen on 127.0.0.1, ports 8301-8305 when free, else free ports (needs a running
    or installed reactor, or without one a running asyncio loop)."""
    names = NAMES
    origins = {name: DemoOrigin({}) for name in names}
    ports = [
        _listen(origins[name], port if preferred_ports else 0)
        for name, port in zip(names, PREFERRED_PORTS, strict=True)
    ]
    bases = {
        name: f"http://127.0.0.1:{_port_number(port)}"
        for name, port in zip(names, ports, strict=True)
    }
    origins["shop"].pages = _shop(bases["shop"], bases)
    origins["open"].pages = _open()
    origins["flaky"].pages = _flaky()
    origins["flaky"].robots_failures_left = flaky_failures
    origins["moved"].pages = _moved()
    origins["ai"].pages = _ai()
    return DemoSite(bases, origins, ports)


def _port_number(port: Any) -> int:
    return port.port if isinstance(port, LoopPort) else int(port.getHost().port)


def main() -> None:
    """``python -m demo.site`` (from ``example_project``): serve the demo site until Ctrl-C.

    Prints one line per origin (``name URL``), for trying ``scrapy rep-robots`` or
    ``python -m scrapy_rep check`` against it. The flaky origin answers its first
    robots.txt request with a 503, as in the demo crawl.
    """
    from twisted.internet import reactor

    site = start_demo_site()
    for name, base in site.bases.items():
        print(f"{name:6} {base}", flush=True)
    print("Serving the demo site; Ctrl-C stops it.", flush=True)
    reactor.run()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
