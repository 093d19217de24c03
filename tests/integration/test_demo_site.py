"""``python -m demo.site`` serves the example project's demo site on its own until it is
interrupted, printing the URL of each origin."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import urllib.request

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


def test_demo_site_serves_until_interrupted() -> None:
    command = [sys.executable, "-m", "demo.site"]
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
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=LINE_TIMEOUT) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            reader.join(timeout=LINE_TIMEOUT)
