"""The command-line tools as the tests run them, and the robots.txt bodies the tests of
``python -m scrapy_rep check`` serve and read from a file."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from scrapy_rep.audit.cli import main as audit_main
from scrapy_rep.check import run as check_run
from scrapy_rep.checker.report import ToolRequest
from scrapy_rep.robotstxt import MAX_BODY_BYTES
from tests.support.paths import checkout_environment

#: 72 bytes: a Disallow, the Allow inside it that wins, a Crawl-delay.
ROBOTS_TXT = b"User-agent: *\nDisallow: /private/\nAllow: /private/press/\nCrawl-delay: 3\n"
#: Its last line, ``Disallow: /late``, past the 500 KiB a crawler reads.
ROBOTS_TXT_OVER_500_KIB = (
    b"User-agent: *\n" + b"# filler\n" * (MAX_BODY_BYTES // 9) + b"Disallow: /late\n"
)


def check_tool(*args: str) -> tuple[int, str]:
    """``python -m scrapy_rep check ARGS``: (exit status, stdout). Read and checked in this
    process (its errors on this process's stderr); its crawl, when it runs one, is the
    whole command in a process of its own (:func:`check_process`: this process's reactor
    is the tests')."""

    def crawl(_request: ToolRequest, out: TextIO) -> int:
        code, stdout, stderr = check_process(*args)
        out.write(stdout)
        sys.stderr.write(stderr)
        return code

    out = io.StringIO()
    return check_run(list(args), out, crawl=crawl), out.getvalue()


def check_process(*args: str) -> tuple[int, str, str]:
    """``python -m scrapy_rep check ARGS`` in a process of its own, this checkout's
    scrapy_rep: (exit status, stdout, stderr)."""
    result = subprocess.run(
        [sys.executable, "-m", "scrapy_rep", "check", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=checkout_environment(),
    )
    return result.returncode, result.stdout, result.stderr


def audit_tool(*argv: str) -> tuple[int, str]:
    """``python -m scrapy_rep audit ARGV`` in this process: (exit status, stdout)."""
    out = io.StringIO()
    return audit_main(list(argv), out), out.getvalue()


def audit_process(
    *argv: str, scrapy: bool = False, cwd: Path | None = None
) -> tuple[int, str, str]:
    """``python -m scrapy_rep audit ARGV`` (``scrapy rep-audit ARGV`` with ``scrapy``) in a
    process of its own, this checkout's scrapy_rep: (exit status, stdout, stderr)."""
    command = ["-m", "scrapy", "rep-audit"] if scrapy else ["-m", "scrapy_rep", "audit"]
    result = subprocess.run(
        [sys.executable, *command, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
        env=checkout_environment(),
    )
    return result.returncode, result.stdout, result.stderr


def scrapy_robots(
    *args: str, cwd: Path | None = None, user_agent: str | None = "TestBot/1.0"
) -> tuple[int, str]:
    """``scrapy rep-robots ARGS`` in a process of its own (with ``USER_AGENT`` set to
    ``user_agent`` unless ``None``): (exit status, stdout and stderr)."""
    agent = ["-s", f"USER_AGENT={user_agent}"] if user_agent is not None else []
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "rep-robots", *agent, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )
    return result.returncode, result.stdout + result.stderr
