"""``python -m scrapy_rep recheck --pages`` against local servers, in a process of its
own as a user runs it: an origin without ``Crawl-delay`` is not queued behind a slow one
(:mod:`rep_recheck.pacing`), the page fetch says its progress, and a Ctrl-C stops it at
once (exit status 130)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from itertools import pairwise
from pathlib import Path
from typing import ClassVar

from rep_recheck.command import EXIT_KEPT
from tests.support.localhttp import QuietHandler, serving
from tests.support.paths import checkout_environment
from tests.support.recheck import report_lines, write_jsonl


class _Slow(QuietHandler):
    """A ``Crawl-delay: 1`` origin whose pages take ``SLEEP`` seconds each."""

    SLEEP: ClassVar[float] = 1.0
    finished: ClassVar[list[float]] = []
    asked: ClassVar[threading.Event] = threading.Event()

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self.send(200, b"User-agent: *\nCrawl-delay: 1\n", {"Content-Type": "text/plain"})
            return
        if self.path.startswith("/page"):
            self.asked.set()
            time.sleep(self.SLEEP)
            self.send(200, b"<html><body>slow</body></html>", {"Content-Type": "text/html"})
            self.finished.append(time.monotonic())
            return
        self.send(404, b"", {})


class _Fast(QuietHandler):
    """An origin with no ``Crawl-delay`` whose pages answer at once."""

    finished: ClassVar[list[float]] = []

    def do_GET(self) -> None:
        if self.path.startswith("/page"):
            self.send(200, b"<html><body>fast</body></html>", {"Content-Type": "text/html"})
            self.finished.append(time.monotonic())
            return
        self.send(404, b"", {})


def _pages_command(dataset: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "scrapy_rep", "recheck", str(dataset), "--purpose",
            "search", "--pages", "-s", "REP_UNREACHABLE_MAX_WAIT=3", *extra]  # fmt: skip


def test_an_origin_without_crawl_delay_is_not_queued_behind_a_slow_one(tmp_path: Path) -> None:
    """The slow origin's pages come first in the dataset, more of them than the crawl's
    CONCURRENT_REQUESTS (2 here): they held every place (each waiting its Crawl-delay)
    and the fast origin's pages waited for them. Now every fast page is done before the
    slow origin's first."""
    _Slow.finished.clear()
    _Fast.finished.clear()
    with serving(_Slow) as slow_port, serving(_Fast) as fast_port:
        _Slow.SLEEP = 0.5
        try:
            slow = [f"http://127.0.0.1:{slow_port}/page/{n}" for n in range(3)]
            fast = [f"http://127.0.0.1:{fast_port}/page/{n}" for n in range(4)]
            dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
            write_jsonl(dataset, [*slow, *fast])
            result = subprocess.run(
                _pages_command(dataset, f"--report={report}", "-s", "CONCURRENT_REQUESTS=2"),
                capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
                env=checkout_environment(),
            )  # fmt: skip
        finally:
            _Slow.SLEEP = 1.0
    assert result.returncode == EXIT_KEPT, result.stderr
    assert [line["status"] for line in report_lines(report)] == ["kept"] * 7
    assert len(_Fast.finished) == 4 and len(_Slow.finished) == 3
    assert max(_Fast.finished) < min(_Slow.finished)
    assert "recheck: fetching pages: " in result.stderr  # the slow pages take seconds


def test_a_ctrl_c_while_pages_are_fetched_stops_the_run_at_once(tmp_path: Path) -> None:
    """Ctrl-C while pages are fetched: the first Ctrl-C waited for the page under way
    and said the run interrupted (exit 3), a minute for the pages behind a Crawl-delay.
    Now the crawl stops at once (the page under way never waited for: its site has not
    answered it when the run has ended), nothing is decided, one line says so, exit 130."""
    _Slow.asked.clear()
    _Slow.finished.clear()
    with serving(_Slow) as port:
        _Slow.SLEEP = 30.0
        try:
            dataset = tmp_path / "items.jsonl"
            write_jsonl(dataset, [f"http://127.0.0.1:{port}/page/{n}" for n in range(5)])
            with subprocess.Popen(
                _pages_command(dataset), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                cwd=tmp_path, env=checkout_environment(),
            ) as child:  # fmt: skip
                assert _Slow.asked.wait(60), "no page was asked for"
                child.send_signal(signal.SIGINT)
                out, err = child.communicate(timeout=60)
                assert _Slow.finished == []  # the page under way: not waited for
        finally:
            _Slow.SLEEP = 1.0
    assert child.returncode == 130, err
    stops = [line for line in err.splitlines() if line.startswith("recheck: stopped by ")]
    assert stops == ["recheck: stopped by SIGINT: no output written, each as it was (exit "
                     "status 130)"], err  # fmt: skip
    assert "Traceback" not in err and out == ""


def test_a_hosts_download_slots_delay_is_kept_for_its_pages(tmp_path: Path) -> None:
    """The project's ``DOWNLOAD_SLOTS`` entry of a host (a delay of 1 s, no jitter) holds
    for the pages of its origin as it does in a crawl (each page in its origin's own slot
    must not leave the host's setting behind): the pages come at least 1 s apart."""
    _Fast.finished.clear()
    slots = '{"127.0.0.1": {"delay": 1.0, "randomize_delay": false, "jitter": 0}}'
    with serving(_Fast) as port:
        dataset = tmp_path / "items.jsonl"
        write_jsonl(dataset, [f"http://127.0.0.1:{port}/page/{n}" for n in range(3)])
        result = subprocess.run(
            _pages_command(dataset, "-s", f"DOWNLOAD_SLOTS={slots}"),
            capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
            env=checkout_environment(),
        )  # fmt: skip
    assert result.returncode == EXIT_KEPT, result.stderr
    done = sorted(_Fast.finished)
    assert len(done) == 3, result.stderr
    assert min(b - a for a, b in pairwise(done)) >= 0.9, done
