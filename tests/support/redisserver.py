"""A throwaway ``redis-server`` on 127.0.0.1 for the shared-cache tests
(docs/deployment.md, 'Several processes: the shared cache on Redis').

Debian's ``redis-server`` (``.ci/run`` installs it). Without it the tests that need it
are skipped, saying so, unless ``REP_REQUIRE_REDIS=1`` (CI sets it) makes that a failure.

A test's Redis is one database of a server the tests of its worker share
(:meth:`RedisServer.database`: its keys apart from every other test's, as on a server of
its own); a test that stops its Redis has a server of its own.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.localhttp import free_port

#: The databases of a server the tests of a worker share: one a test.
DATABASES = 4096


class RedisServer:
    def __init__(self, directory: Path, databases: int = 16) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            message = "redis-server is not installed (Debian: apt-get install redis-server)"
            if os.environ.get("REP_REQUIRE_REDIS") == "1":
                pytest.fail(message)
            pytest.skip(message)
        self.binary = binary
        self.directory = directory
        self.databases = databases
        self.used = 0
        #: ``False``: a view of one database of a shared server (:meth:`database`).
        self.own = True
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start redis-server on ``self.port``. The port was free when it was chosen; if
        another process (a parallel test worker) took it since, redis-server exits at once
        and it is started again on another free port."""
        for _ in range(5):
            if self._start_once():
                return
            self.port = free_port()
            self.url = f"redis://127.0.0.1:{self.port}/0"
        raise RuntimeError("redis-server did not start (5 ports tried)")

    def _start_once(self) -> bool:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
                "--databases",
                str(self.databases),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:  # exited: the port was taken
                return False
            try:
                pid = self._server_pid()
            except OSError:
                time.sleep(0.05)
                continue
            if pid == self.process.pid:
                return True
            # Another worker's redis-server answers on this port: ours is about to exit.
            self.process.wait(timeout=30)
            return False
        self.stop()
        raise RuntimeError("redis-server did not start")

    def _server_pid(self) -> int:
        """The process id of the redis-server answering on ``self.port`` (OSError if
        none does yet)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
            conn.sendall(b"INFO server\r\n")
            data = b""
            while not re.search(rb"process_id:\d+\r\n", data):
                chunk = conn.recv(4096)
                if not chunk:
                    raise ConnectionError("redis-server closed the connection")
                data += chunk
        match = re.search(rb"process_id:(\d+)\r\n", data)
        assert match is not None
        return int(match.group(1))

    def database(self) -> RedisServer:
        """This server seen through a database no one used before (``url`` names it):
        a test's own keys, as on a server of its own; it cannot be stopped."""
        self.used += 1
        assert self.used < self.databases, f"more than {self.databases - 1} databases asked"
        view = copy.copy(self)
        view.url = f"redis://127.0.0.1:{self.port}/{self.used}"
        view.own = False
        return view

    def stop(self) -> None:
        assert self.own, "a shared server's database: stop a server of the test's own"
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


@contextmanager
def running_redis(directory: Path, databases: int = 16) -> Iterator[RedisServer]:
    server = RedisServer(directory, databases)
    server.start()
    try:
        yield server
    finally:
        server.stop()
