"""The exit codes both command-line tools share (``python -m scrapy_rep check`` and ``scrapy
rep-robots``), their table for ``--help``, and the width every help text fits in. Below both
tools (:mod:`scrapy_rep.check`, :mod:`scrapy_rep.crawl.commands`), so neither imports the
other."""

from __future__ import annotations

import textwrap
from typing import Final

#: The width every help text of the tools fits in (a terminal's 80 columns).
HELP_WIDTH: Final = 80
EXIT_ALLOWED: Final = 0
EXIT_DISALLOWED: Final = 1
EXIT_USAGE: Final = 2
EXIT_UNREACHABLE: Final = 3


def exit_code_table(same_for: str, *, pages: str) -> str:
    """The exit codes as a table, for one tool's ``--help`` (``same_for``: the other tool,
    which uses the same codes; ``pages``: the options that fetch each page). Both have
    ``--purpose`` and ``--page``."""
    disallowed = (
        "at least one URL is disallowed (or, with --purpose, denied for a purpose, or its "
        "fetched page's items are dropped)"
    )
    fetched = f"a robots.txt (or a tdmrep.json, or with {pages} a page)"
    lines = [
        f"exit codes ({same_for} uses the same):",
        f"  {EXIT_ALLOWED}  every URL is allowed",
        *_row(f"{EXIT_DISALLOWED}  {disallowed}"),
        f"  {EXIT_USAGE}  usage error: a wrong argument, option or setting, an unreadable file",
        *_row(
            f"{EXIT_UNREACHABLE}  {fetched} could not be fetched: the verdicts shown for its "
            'URLs are temporary ("everything disallowed for now")'
        ),
    ]
    return "\n".join(lines)


def _row(text: str) -> list[str]:
    """One row of the table, wrapped under its text."""
    return textwrap.wrap(text, width=HELP_WIDTH, initial_indent="  ", subsequent_indent="     ")


#: Where a help table's texts start at most (argparse's ``max_help_position``): a name
#: longer than that has a line of its own, its text below it, so that no synopsis (``audit
#: list TRAIL... [--fate F] …``) squeezes every text into a column of a few characters.
TEXT_COLUMN: Final = 28


def help_rows(rows: list[tuple[str, str]]) -> list[str]:
    """``(name, what it does)`` rows as a ``--help`` table: each text in one column after
    the longest name (at most :data:`TEXT_COLUMN`; a longer name on a line of its own),
    wrapped to :data:`HELP_WIDTH`."""
    column = min(max(len(name) for name, _ in rows) + 4, TEXT_COLUMN)
    lines = []
    for name, text in rows:
        head = f"  {name}"
        if len(head) + 2 > column:
            lines.append(head)
            head = ""
        lines += textwrap.wrap(
            text,
            width=HELP_WIDTH,
            initial_indent=head.ljust(column),
            subsequent_indent=" " * column,
            break_on_hyphens=False,
        )
    return lines


#: The exit codes of ``scrapy rep-robots``, as its ``--help`` shows them.
EXIT_CODES: Final = exit_code_table("python -m scrapy_rep check", pages="--page or --purpose")
#: The exit codes of ``python -m scrapy_rep check`` (it fetches pages only with --page).
CHECK_EXIT_CODES: Final = exit_code_table("scrapy rep-robots", pages="--page")
