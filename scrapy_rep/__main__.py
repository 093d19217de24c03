"""``python -m scrapy_rep``: the tools that need no Scrapy project.

``check`` is :mod:`scrapy_rep.check` (the robots.txt checker), ``recheck`` is
:mod:`rep_recheck.command` (a stored collection re-checked; its documents fetched
by :mod:`scrapy_rep.crawl.commands.recheck_crawl`), ``audit`` is
:mod:`rep_audit.cli` (the audit trail's reader), ``key-directory`` is
:mod:`scrapy_rep.keydirectory` (the key directory of signed requests); this module only hands the
arguments after the command's name to the one named (and ``check`` the runner of the
tools' crawl, :func:`scrapy_rep.crawl.commands.toolcrawl.run_tools`, which ``check``
cannot import), and says what they offer (``--help``) and which version is installed
(``--version``). Each command's module is imported only when it is named, and the crawl
only when ``check`` runs one, so ``check`` against a file loads no Scrapy, nor anything
of the trail reader.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from rep_engine.trail.terminal import HELP_WIDTH
from scrapy_rep._version import __version__
from scrapy_rep.checker import EXIT_USAGE, help_rows

if TYPE_CHECKING:
    from scrapy_rep.checker import ToolRequest


def commands_table() -> str:
    """Every command and what it does, one row each (wrapped to :data:`HELP_WIDTH`)."""
    from rep_audit.cliargs import HELPS, SYNOPSES
    from rep_recheck.command import SUMMARY as RECHECK
    from scrapy_rep.check import SUMMARY
    from scrapy_rep.keydirectory import SUMMARY as KEY_DIRECTORY

    rows = [("check ROBOTS_FILE_OR_URL URL...", SUMMARY)]
    rows.append(("recheck DATASET --purpose P", RECHECK))
    rows += [(f"audit {name} {SYNOPSES[name]}", HELPS[name]) for name in HELPS]
    rows.append(("key-directory KEY_FILE...", KEY_DIRECTORY))
    return "\n".join(["commands:", *help_rows(rows)])


def _fetch(request: Any) -> Any:
    """The crawl that fetches a recheck's documents (Scrapy, imported only then)."""
    from scrapy_rep.crawl.commands.recheck_crawl import fetch

    return fetch(request)


def parser() -> argparse.ArgumentParser:
    """``python -m scrapy_rep`` without a command: its ``--help`` and ``--version``."""
    about = textwrap.fill(
        "scrapy_rep's tools without a Scrapy project: check URLs against a robots.txt (a "
        "local file, or each URL's own, fetched), re-check a stored collection, and read an "
        "audit trail; print the key directory of signed requests.",
        width=HELP_WIDTH,
    )
    where = "\n".join(
        [
            "Each command's options and exit codes:",
            "  python -m scrapy_rep check --help",
            "  python -m scrapy_rep recheck --help",
            "  python -m scrapy_rep audit --help",
            "  python -m scrapy_rep audit verify --help (and each audit command's own)",
            "  python -m scrapy_rep key-directory --help",
        ]
    )
    top = argparse.ArgumentParser(
        prog="python -m scrapy_rep",
        usage=(
            "python -m scrapy_rep [-h] [--version]\n"
            "       {check,recheck,audit,key-directory} ..."  # wrapped to 80 columns
        ),
        description=f"{about}\n\n{commands_table()}",
        epilog=where,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--version", action="version", version=f"scrapy_rep {__version__}")
    return top


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """``python -m scrapy_rep …`` with ``argv`` (``None``: ``sys.argv[1:]``); the exit
    status: the command's own, or :data:`EXIT_USAGE` for a command line without one."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    command, rest = (arguments[0], arguments[1:]) if arguments else ("", [])
    if command == "check":
        from scrapy_rep.check import run

        return run(rest, out, crawl=tool_crawl)
    if command == "audit":
        from rep_audit.cli import main as audit

        return audit(rest, out)
    if command == "recheck":
        from rep_recheck.command import main as recheck

        return recheck(rest, out, _fetch)
    if command == "key-directory":
        from scrapy_rep.keydirectory import main as key_directory

        return key_directory(rest, out)
    top = parser()
    if not command.startswith("-"):  # no command, or an unknown one
        top.print_usage(sys.stderr)
        named = f"unknown command {command!r}: " if command else ""
        commands = "check, recheck, audit or key-directory"
        print(f"scrapy_rep: error: {named}give a command: {commands}", file=sys.stderr)
        return EXIT_USAGE
    try:
        top.parse_args(arguments)  # --help and --version exit here
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else EXIT_USAGE
    return EXIT_USAGE  # not reached: argparse exits on every option it knows


def tool_crawl(request: ToolRequest, out: TextIO) -> int:
    """The tools' crawl for ``check`` (Scrapy imported only now)."""
    from scrapy_rep.crawl.commands.toolcrawl import run_tools

    return run_tools(request, out)


if __name__ == "__main__":
    sys.exit(main())
