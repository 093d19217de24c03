"""A plain threaded HTTP server on 127.0.0.1 for tests of the synchronous tools
(``python -m scrapy_rep check``, ``scrapy rep-robots``), which run without a reactor: the
server, the module-scoped fixtures a test module makes of its handler, and a free port."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler with a ``send`` helper and no access log on stderr."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """Serve ``handler`` on a free 127.0.0.1 port; yields the port."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield int(httpd.server_address[1])
    finally:
        httpd.shutdown()
        httpd.server_close()


def port_fixture(handler: type[BaseHTTPRequestHandler]) -> Callable[..., Any]:
    """A module-scoped fixture: the port of a local server of ``handler``
    (``port = port_fixture(SomeHandler)`` in a test module)."""

    @pytest.fixture(scope="module")
    def port() -> Iterator[int]:
        with serving(handler) as port:
            yield port

    return port


def base_url_fixture(
    handler: type[BaseHTTPRequestHandler], name: str = "base"
) -> Callable[..., Any]:
    """A module-scoped fixture named ``name``: ``http://127.0.0.1:PORT`` of a local server
    of ``handler``."""

    @pytest.fixture(scope="module", name=name)
    def base() -> Iterator[str]:
        with serving(handler) as port:
            yield f"http://127.0.0.1:{port}"

    return base


def free_port() -> int:
    """A 127.0.0.1 port nothing listens on (bound, read, closed): one a server may take, or
    one whose connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
