"""A plain threaded HTTP server on 127.0.0.1 for tests of the synchronous tools
(``python -m scrapy_rep check``, ``scrapy rep-robots``), which run without a reactor: the
server, the module-scoped fixtures a test module makes of its handler, and a free port.

A request's thread may end long after its test (a handler that sleeps past the client's
timeout answers a connection the client closed, seconds later): what it says of an error
never goes to ``sys.stdout`` or ``sys.stderr``, which by then may be another test's
captured output (:class:`LocalServer`)."""

from __future__ import annotations

import socket
import sys
import threading
import traceback
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


class LocalServer(ThreadingHTTPServer):
    """A thread for each request, not waited for. An error in a request's thread is not
    printed on ``sys.stderr`` as :meth:`socketserver.BaseServer.handle_error` prints it:
    ``sys.stderr`` is whatever the running test has put there (``contextlib.redirect_stderr``,
    ``capsys``), and the thread may write into it while another test's tool runs (a line of
    dashes at the end of that tool's output). A client that hung up (a timeout, a size
    cap; what it saw is its test's to assert) is said nothing of; any other error goes to
    the process's own standard error, ``sys.__stderr__``, which no test redirects."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError) or sys.__stderr__ is None:
            return
        said = f"Error in a request of a local site, from {client_address}:\n"
        sys.__stderr__.write(said + traceback.format_exc())
        sys.__stderr__.flush()


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """Serve ``handler`` on a free 127.0.0.1 port (a :class:`LocalServer`); yields the port."""
    httpd = LocalServer(("127.0.0.1", 0), handler)
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


@contextmanager
def refusing_port() -> Iterator[int]:
    """A 127.0.0.1 port whose connections are refused for as long as the block runs: bound
    and never listening (the kernel answers a connection with a reset), so no server of
    another test, in another worker, may take it meanwhile, as it may a :func:`free_port`
    (a crawl that waits 10 s on a refused host once met another test's server there)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def free_port() -> int:
    """A 127.0.0.1 port nothing listens on (bound, read, closed): one a server may take, or
    one whose connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
