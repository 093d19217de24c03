"""The local sites' request threads and the output a test captures
(tests/support/localhttp.py, tests/support/tools.py).

``sys.stdout`` and ``sys.stderr`` are the whole process's, and a request's thread may end
seconds after its test: a handler that sleeps past a tool's timeout answers, late, a
connection its client closed, while another test's tool runs with its output redirected.
Python's own server printed that error, a traceback between two lines of dashes, on
``sys.stderr``: into that tool's output. A local site says nothing of a client that hung
up and writes any other error to the process's own standard error; a tool's output, as
the tests capture it, is what the test's thread wrote."""

from __future__ import annotations

import io
import socket
import struct
import sys
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from typing import ClassVar

import pytest
import pytest_twisted

from tests.support.localhttp import QuietHandler, serving
from tests.support.tools import robots_async

#: How long a test waits for a request's thread, at most.
WAIT = 10.0


def _thread_of(threads: list[threading.Thread]) -> threading.Thread:
    """The request's thread, once its handler has started."""
    deadline = time.monotonic() + WAIT
    while not threads and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threads, "the local site never started the request"
    return threads[0]


def _reset(client: socket.socket) -> None:
    """Close ``client`` with a reset (no lingering): as a client that gives up does."""
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()


class LateAnswer(QuietHandler):
    """Answers only once its client has gone, until a write fails (``hung_up_on``)."""

    threads: ClassVar[list[threading.Thread]] = []
    client_gone: ClassVar[threading.Event] = threading.Event()
    hung_up_on: ClassVar[list[ConnectionError]] = []

    def do_GET(self) -> None:
        self.threads.append(threading.current_thread())
        self.client_gone.wait(WAIT)
        try:
            for _ in range(200):  # a write may still be taken in before the reset is seen
                self.send(200, b"late", {"Content-Type": "text/plain"})
                time.sleep(0.01)
        except ConnectionError as error:
            self.hung_up_on.append(error)
            raise


def test_a_late_answer_to_a_client_that_hung_up_writes_nothing_into_captured_output(
    capfd: pytest.CaptureFixture[str],
) -> None:
    captured = io.StringIO()
    with serving(LateAnswer) as port, redirect_stdout(captured), redirect_stderr(captured):
        client = socket.create_connection(("127.0.0.1", port))
        client.sendall(b"GET /late HTTP/1.0\r\n\r\n")
        thread = _thread_of(LateAnswer.threads)
        _reset(client)
        LateAnswer.client_gone.set()
        thread.join(WAIT)
    assert not thread.is_alive()
    assert LateAnswer.hung_up_on, "the late answer was taken in: nothing was tested"
    assert captured.getvalue() == ""
    assert capfd.readouterr() == ("", "")


class Broken(QuietHandler):
    """A handler with a bug of its own."""

    threads: ClassVar[list[threading.Thread]] = []

    def do_GET(self) -> None:
        self.threads.append(threading.current_thread())
        raise ValueError("a bug of the handler's own")


def test_another_error_of_a_request_goes_to_the_process_standard_error(
    capfd: pytest.CaptureFixture[str],
) -> None:
    captured = io.StringIO()
    with serving(Broken) as port, redirect_stdout(captured), redirect_stderr(captured):
        with socket.create_connection(("127.0.0.1", port)) as client:
            client.sendall(b"GET /x HTTP/1.0\r\n\r\n")
            assert client.recv(1024) == b""  # closed unanswered
        _thread_of(Broken.threads).join(WAIT)
    assert captured.getvalue() == ""
    out, err = capfd.readouterr()
    assert out == ""
    assert "Error in a request of a local site, from ('127.0.0.1', " in err
    assert "ValueError: a bug of the handler's own" in err


class Chatty(QuietHandler):
    """Writes on ``sys.stdout`` and ``sys.stderr`` from its request's thread, then
    answers."""

    def do_GET(self) -> None:
        print("the site's thread, on stdout")
        print("the site's thread, on stderr", file=sys.stderr)
        self.send(200, b"User-agent: *\nDisallow: /private\n", {"Content-Type": "text/plain"})


@pytest_twisted.ensureDeferred
async def test_a_tools_output_is_what_the_tests_thread_wrote(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What another thread writes while the tool runs goes where it went before the tool's
    output was captured."""
    with serving(Chatty) as port:
        status, output = await robots_async(f"http://127.0.0.1:{port}/private/a")
    assert status == 1, output
    assert f"robots.txt http://127.0.0.1:{port}/robots.txt: 200 (" in output
    assert "site's thread" not in output
    out, err = capsys.readouterr()
    assert out == "the site's thread, on stdout\n"
    assert err == "the site's thread, on stderr\n"
