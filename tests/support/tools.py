"""The command-line tools as the tests run them, and the robots.txt bodies the tests of
``python -m scrapy_rep check`` serve and read from a file.

The tools run in this process: their command lines are read as ``python -m scrapy_rep
check`` and ``scrapy rep-robots`` read them (:func:`check_run`, Scrapy's own
``scrapy.cmdline.execute``), up to the call of the tools' crawl, which then runs under
the test's reactor (:func:`scrapy_rep.crawl.commands.toolcrawl.tools_in_reactor`, the
body of ``run_tools`` without its ``CrawlerProcess``). A tool's crawl without a reactor
(:data:`NO_REACTOR`) runs so too, on an asyncio loop in a thread of this process that runs
none (:func:`tools_without_reactor`, the body of ``run_tools`` without its
``AsyncCrawlerProcess``: tests/support/loopcrawl.py). What only a process shows (the
entry points, the exit status of a process, stdout against stderr, no log without a
project) is tested where it is said, each once: tests/integration/test_check.py,
tests/integration/test_commands.py, tests/project/test_help_and_version.py."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NoReturn, TextIO
from unittest import mock

from rep_audit.cli import main as audit_main
from rep_engine.commandline import Door, run
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from scrapy_rep.checker import TOOL, Runner, ToolRequest, usage_error
from tests.support.trailfactory import write_trail

#: 72 bytes: a Disallow, the Allow inside it that wins, a Crawl-delay.
ROBOTS_TXT = b"User-agent: *\nDisallow: /private/\nAllow: /private/press/\nCrawl-delay: 3\n"
#: Its last line, ``Disallow: /late``, past the 500 KiB a crawler reads.
ROBOTS_TXT_OVER_500_KIB = (
    b"User-agent: *\n" + b"# filler\n" * (MAX_BODY_BYTES // 9) + b"Disallow: /late\n"
)


if TYPE_CHECKING:
    from scrapy.settings import Settings

#: What a tool's command line handed its crawl: (request, output, project settings).
Handed = tuple[ToolRequest, TextIO, "Settings | None"]


class OwnThreadStream(io.StringIO):
    """What one thread (the one that made it: the test's, which runs the tool and the
    reactor its crawl runs on) writes to a redirected ``sys.stdout`` or ``sys.stderr``,
    and the threads that run the tool's crawl without a reactor for it (``threads``).
    ``sys.stdout`` and ``sys.stderr`` are the whole process's: another thread writing
    while the tool runs (a local site's request thread, which may outlive its test by
    seconds) writes to ``passed_on``, the stream that was there before, not into the
    tool's output."""

    def __init__(self, passed_on: TextIO) -> None:
        super().__init__()
        self.passed_on = passed_on
        self.threads = {threading.get_ident()}

    def write(self, text: str) -> int:
        if threading.get_ident() not in self.threads:
            return self.passed_on.write(text)
        return super().write(text)


@contextmanager
def own_output() -> Iterator[tuple[OwnThreadStream, OwnThreadStream]]:
    """``sys.stdout`` and ``sys.stderr`` redirected to an :class:`OwnThreadStream` each,
    (stdout, stderr): what this thread writes, while the block runs."""
    stdout, stderr = OwnThreadStream(sys.stdout), OwnThreadStream(sys.stderr)
    with redirect_stdout(stdout), redirect_stderr(stderr):
        yield stdout, stderr


def check_run(argv: list[str], out: TextIO, crawl: Runner | None = None) -> int:
    """``python -m scrapy_rep check ARGV`` read by its door, which hands it ``crawl``
    (``None``: no crawl, as outside ``python -m scrapy_rep``)."""
    return run(TOOL, argv, out, Door("python -m scrapy_rep check", crawl))


def _needs_no_crawl(handed: list[Handed], tool: str) -> None:
    """A synchronous test's tool must not run a crawl (its test runs in the reactor's
    greenlet, which it cannot wait in: an async test awaits the ``…_async`` helper)."""
    assert not handed, f"{tool} runs a crawl here: await its _async helper in an async test"


#: The option that runs a tool's crawl without a Twisted reactor (the ``tool_mode``
#: fixture's): such a crawl runs in a thread of this process that runs none.
NO_REACTOR: Final = "TWISTED_REACTOR_ENABLED=False"


async def _handed_crawl(handed: list[Handed], code: int, args: tuple[str, ...] = ()) -> int:
    """The tools' crawl a command line (``args``) handed on, if it did: under the test's
    reactor, or without one (:data:`NO_REACTOR` among ``args``) in a thread of its own."""
    if not handed:
        return code
    from scrapy_rep.crawl.commands.toolcrawl import tools_in_reactor

    request, out, base = handed[0]
    if NO_REACTOR in args:
        return await tools_without_reactor(request, out, base)
    return await tools_in_reactor(request, out, base)


async def tools_without_reactor(
    request: ToolRequest, out: TextIO, base: Settings | None = None
) -> int:
    """``run_tools`` without a reactor, in this process: its body (settings, crawl, output,
    exit status) with an ``AsyncCrawlerRunner`` instead of the ``AsyncCrawlerProcess`` that
    starts and stops a loop, on an asyncio loop of its own in a thread that runs no reactor
    (tests/support/loopcrawl.py), as ``tools_in_reactor`` runs it under the test's
    reactor. What that thread writes to the test thread's :func:`own_output` streams is
    the tool's output."""
    from rep_engine.settings.readers import RepSettingError
    from scrapy_rep.crawl.commands.toolcrawl import crawl_tools, print_tools, tools_settings
    from scrapy_rep.crawl.internals import crawler_runner
    from tests.support.loopcrawl import run_without_reactor

    streams = [s for s in (sys.stdout, sys.stderr) if isinstance(s, OwnThreadStream)]

    async def on_the_loop() -> int:
        try:
            settings = tools_settings(request, base)
            runner = crawler_runner(settings, "the tools' crawl")
        except RepSettingError as error:
            return usage_error(error)
        run, started = crawl_tools(runner, request)
        await started
        return print_tools(request, settings, run, out)

    def tools() -> int:
        for stream in streams:
            stream.threads.add(threading.get_ident())
        try:
            return asyncio.run(on_the_loop())
        finally:
            for stream in streams:
                stream.threads.discard(threading.get_ident())

    return await run_without_reactor(tools)


async def check_async(*args: str) -> tuple[int, str]:
    """``python -m scrapy_rep check ARGS`` in this process: (exit status, stdout); its
    errors on this process's stderr. The command line is read by :func:`check_run`,
    which hands the crawl, when it runs one, to the tools' crawl under the test's
    reactor, or without one (:data:`NO_REACTOR`)."""
    handed: list[Handed] = []

    def crawl(request: ToolRequest, out: TextIO) -> int:
        handed.append((request, out, None))
        return 0

    out = io.StringIO()
    code = await _handed_crawl(handed, check_run(list(args), out, crawl=crawl), args)
    return code, out.getvalue()


def check_tool(*args: str) -> tuple[int, str]:
    """:func:`check_async` of a check that runs no crawl (a local robots.txt without
    ``--page``, an error), from a synchronous test."""
    handed: list[Handed] = []

    def crawl(request: ToolRequest, out: TextIO) -> int:
        handed.append((request, out, None))
        return 0

    out = io.StringIO()
    code = check_run(list(args), out, crawl=crawl)
    _needs_no_crawl(handed, "check")
    return code, out.getvalue()


def audit_tool(*argv: str) -> tuple[int, str]:
    """``python -m scrapy_rep audit ARGV`` in this process: (exit status, stdout)."""
    out = io.StringIO()
    return audit_main(list(argv), out), out.getvalue()


def audit_streams(*argv: str) -> tuple[int, str, str]:
    """``python -m scrapy_rep audit ARGV`` in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), OwnThreadStream(sys.stderr)
    with redirect_stderr(err):
        code = audit_main(list(argv), out)
    return code, out.getvalue(), err.getvalue()


def html_report(directory: Path, records: list[dict[str, Any]], clean: bool = True) -> Path:
    """The page ``audit report --html`` makes of a trail of ``records`` written in
    ``directory`` (:func:`~tests.support.trailfactory.write_trail`); ``clean``: the report
    finds no problem (exit status 0)."""
    trail = write_trail(directory / "trail.jsonl", records)
    html = directory / "report.html"
    status, said = audit_tool("report", str(trail), "--html", str(html))
    assert status == (0 if clean else 1), said
    return html


async def robots_async(
    *args: str, user_agent: str | None = "TestBot/1.0", sync: bool = False
) -> tuple[int, str]:
    """``scrapy rep-robots ARGS`` in this process, outside a project (with ``USER_AGENT``
    set to ``user_agent`` unless ``None``): (exit status, stdout and then stderr). Read by
    Scrapy's own ``scrapy.cmdline.execute`` (the command found by its entry point, the
    ``-s`` options, the command's default settings), whose call of the tools' crawl is
    then run under the test's reactor, or without one (:data:`NO_REACTOR`) in a thread
    of its own (``sync``: none may be needed)."""
    agent = ["-s", f"USER_AGENT={user_agent}"] if user_agent is not None else []
    handed: list[Handed] = []

    def hand(request: ToolRequest, out: TextIO, base: Settings | None = None) -> int:
        handed.append((request, out, base))
        return 0

    with own_output() as (stdout, stderr):
        with mock.patch("scrapy_rep.crawl.commands.robots_command.run_tools", hand):
            code = _execute(["rep-robots", *agent, *args])
        if sync:
            _needs_no_crawl(handed, "scrapy rep-robots")
        code = await _handed_crawl(handed, code, args)
    return code, stdout.getvalue() + stderr.getvalue()


def _exit_here(status: int) -> NoReturn:
    """A wrong setting's end of the ``scrapy`` command in this process: ``SystemExit``,
    as on Scrapy 2.14+ (on 2.13 the command ends its process at once: os._exit, which
    only the tests run as processes can see)."""
    raise SystemExit(status)


def _execute(argv: list[str]) -> int:
    """``scrapy ARGV`` read and run by Scrapy's own ``scrapy.cmdline.execute`` in this
    process, outside a project (or in the project of the working folder); its exit
    status."""
    from scrapy.cmdline import execute

    try:
        with mock.patch("scrapy_rep.crawl.startup.exit_command", _exit_here):
            execute(["scrapy", *argv])
    except SystemExit as exit_:
        return 0 if exit_.code is None else int(exit_.code)
    raise AssertionError("scrapy.cmdline.execute returned")  # pragma: no cover


def scrapy_streams(*argv: str) -> tuple[int, str, str]:
    """``scrapy ARGV`` in this process, outside a project, for a command line that runs
    no crawl (``-h``, ``rep-audit``): (exit status, stdout, stderr)."""
    with own_output() as (stdout, stderr):
        code = _execute(list(argv))
    return code, stdout.getvalue(), stderr.getvalue()


def main_streams(*argv: str) -> tuple[int, str, str]:
    """``python -m scrapy_rep ARGV`` in this process (its ``main``, as ``__main__`` runs it),
    for a command line that runs no crawl: (exit status, stdout, stderr)."""
    from scrapy_rep.__main__ import main

    with own_output() as (stdout, stderr):
        code = main(list(argv))
    return code, stdout.getvalue(), stderr.getvalue()


def scrapy_robots(*args: str, user_agent: str | None = "TestBot/1.0") -> tuple[int, str]:
    """``scrapy rep-robots ARGS`` in this process, a command line that runs no crawl (a
    local robots.txt without ``--page``, an error), from a synchronous test
    (:func:`robots_async` otherwise)."""
    coroutine = robots_async(*args, user_agent=user_agent, sync=True)
    try:
        coroutine.send(None)
    except StopIteration as done:
        result: tuple[int, str] = done.value
        return result
    raise AssertionError("unreachable: robots_async(sync=True) does not wait")
