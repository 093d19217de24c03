"""``python -m scrapy_rep``: the tools that need no Scrapy project, each a row
(:class:`rep_engine.commandline.Tool`) run by the one door
(:func:`rep_engine.commandline.run`): ``check`` is :data:`scrapy_rep.checker.TOOL` (the
robots.txt checker), ``recheck`` :data:`rep_recheck.options.TOOL` (a stored collection
re-checked), ``audit`` :data:`rep_audit.cliargs.TOOL` (the audit trail's reader),
``key-directory`` :data:`scrapy_rep.keydirectory.TOOL` (the key directory of signed
requests). This module only hands the arguments after the command's name to the one
named, with the crawl it runs (:data:`TOOLS`: Scrapy's, which the pure tools cannot
import), and says what they offer (``--help``) and which version is installed
(``--version``). Each command's row is imported only when it is named, and its crawl
only when it runs one, so ``check`` against a file loads no Scrapy, nor anything of the
trail reader.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from typing import Final, TextIO

from rep_engine.commandline import EXIT_USAGE, Door, help_rows, lazy, load, run
from rep_engine.trail.terminal import HELP_WIDTH
from scrapy_rep._version import __version__

#: Each command: its row, and the crawl its door hands it (``""``: none).
TOOLS: Final = {
    "check": ("scrapy_rep.checker:TOOL", "scrapy_rep.crawl.commands.toolcrawl:run_tools"),
    "recheck": ("rep_recheck.options:TOOL", "scrapy_rep.crawl.commands.recheck_crawl:fetch"),
    "audit": ("rep_audit.cliargs:TOOL", ""),
    "key-directory": ("scrapy_rep.keydirectory:TOOL", ""),
}


def commands_table() -> str:
    """Every command and what it does, one row each (a command of a tool's, such as
    ``audit verify``, a row of its own)."""
    rows = []
    for name, (row, _) in TOOLS.items():
        tool = load(row)
        rows += [(f"{name} {tool.synopsis}", tool.summary)] if not tool.commands else [
            (f"{name} {command.name} {command.synopsis}", command.summary)
            for command in tool.commands
        ]  # fmt: skip
    return "\n".join(["commands:", *help_rows(rows)])


def parser() -> argparse.ArgumentParser:
    """``python -m scrapy_rep`` without a command: its ``--help`` and ``--version``."""
    about = textwrap.fill(
        "scrapy_rep's tools without a Scrapy project: check URLs against a robots.txt (a "
        "local file, or each URL's own, fetched), re-check a stored collection, and read an "
        "audit trail; print the key directory of signed requests.",
        width=HELP_WIDTH,
    )
    where = ["Each command's options and exit codes:"]
    for name, (row, _) in TOOLS.items():
        where.append(f"  python -m scrapy_rep {name} --help")
        if load(row).commands:
            where.append(f"  python -m scrapy_rep {name} COMMAND --help (each command's own)")
    top = argparse.ArgumentParser(
        prog="python -m scrapy_rep",
        usage=f"python -m scrapy_rep [-h] [--version]\n       {{{','.join(TOOLS)}}} ...",
        description=f"{about}\n\n{commands_table()}",
        epilog="\n".join(where),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--version", action="version", version=f"scrapy_rep {__version__}")
    return top


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """``python -m scrapy_rep …`` with ``argv`` (``None``: ``sys.argv[1:]``); the exit
    status: the command's own, or :data:`EXIT_USAGE` for a command line without one."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    command, rest = (arguments[0], arguments[1:]) if arguments else ("", [])
    if command in TOOLS:
        row, crawl = TOOLS[command]
        door = Door(f"python -m scrapy_rep {command}", lazy(crawl) if crawl else None)
        return run(load(row), rest, out, door)
    top = parser()
    if not command.startswith("-"):  # no command, or an unknown one
        top.print_usage(sys.stderr)
        named = f"unknown command {command!r}: " if command else ""
        commands = f"{', '.join(list(TOOLS)[:-1])} or {list(TOOLS)[-1]}"
        print(f"scrapy_rep: error: {named}give a command: {commands}", file=sys.stderr)
        return EXIT_USAGE
    try:
        top.parse_args(arguments)  # --help and --version exit here
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else EXIT_USAGE
    return EXIT_USAGE  # not reached: argparse exits on every option it knows


if __name__ == "__main__":
    sys.exit(main())
