"""``python -m demo.site`` serves the example project's demo site on its own until it is
interrupted, printing the URL of each origin."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from tests.support.paths import EXAMPLE_PROJECT

PROJECT = EXAMPLE_PROJECT
#: How long to wait for each line before calling the server hung (not a timing check).
LINE_TIMEOUT = 60


def line_reader(process: subprocess.Popen[str]) -> tuple[queue.Queue[str], threading.Thread]:
    """The lines the process prints, read by a thread (a read cannot time out)."""
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout

    def read() -> None:
        for line in stdout:
            lines.put(line)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return lines, thread


#: ``python -m demo.site`` as a terminal starts it: Ctrl-C (SIGINT) neither ignored nor
#: blocked, whatever the test process inherited (a child inherits both, and an ignored
#: SIGINT makes the site hang exactly as it did, once each, in two full suite runs on a
#: loaded machine; the test workers' own SIGINT was never found ignored, so the cause of
#: those two hangs is not known: a hang now names the site's signal masks).
TERMINAL_START = (
    "import runpy, signal; "
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('demo.site', run_name='__main__', alter_sys=True)"
)


def signal_state(pid: int) -> str:
    """The blocked, ignored and caught signal masks of process ``pid`` (Linux), for a
    failure message."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "unknown"
    return ", ".join(line for line in status if line.startswith(("SigBlk", "SigIgn", "SigCgt")))


def test_demo_site_serves_until_interrupted() -> None:
    command = [sys.executable, "-c", TERMINAL_START]
    with subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.PIPE, text=True) as process:
        lines, reader = line_reader(process)
        try:
            bases = dict(lines.get(timeout=LINE_TIMEOUT).split() for _ in range(5))
            assert list(bases) == ["shop", "open", "flaky", "moved", "ai"]
            assert "Ctrl-C stops it" in lines.get(timeout=LINE_TIMEOUT)
            with urllib.request.urlopen(bases["shop"] + "/robots.txt", timeout=30) as response:
                assert response.status == 200
                body = response.read().decode()
            assert "User-agent: repdemo\nDisallow: /private/\n" in body
            assert f"Sitemap: {bases['shop']}/sitemap.xml" in body
            before = signal_state(process.pid)
            process.send_signal(signal.SIGINT)
            try:
                returncode = process.wait(timeout=LINE_TIMEOUT)
            except subprocess.TimeoutExpired:
                pytest.fail(
                    f"the demo site did not stop within {LINE_TIMEOUT} s of SIGINT; its "
                    f"signals before: {before}; now: {signal_state(process.pid)}"
                )
            assert returncode == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            reader.join(timeout=LINE_TIMEOUT)
