"""A throwaway ``redis-server`` on 127.0.0.1 for the shared-cache tests (issue 7).

Debian's ``redis-server`` (``.ci/run`` installs it). Without it the tests that need it
are skipped, saying so, unless ``REP_REQUIRE_REDIS=1`` (CI sets it) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            message = "redis-server is not installed (Debian: apt-get install redis-server)"
            if os.environ.get("REP_REQUIRE_REDIS") == "1":
                pytest.fail(message)
            pytest.skip(message)
        self.binary = binary
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
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
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


@contextmanager
def running_redis(directory: Path) -> Iterator[RedisServer]:
    server = RedisServer(directory)
    server.start()
    try:
        yield server
    finally:
        server.stop()
