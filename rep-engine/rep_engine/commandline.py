"""The tools' command lines, each written once (pure; docs/cli.md).

A tool is one :class:`Tool` row: its name, what it does, its arguments, its runner and
its exit table. Every door of it is made from that row: ``python -m scrapy_rep NAME``
and a part's own door (``rep-audit``, ``python -m rep_recheck``) by :func:`run`, its
``--help`` by :func:`parser`, its Scrapy command (``scrapy rep-NAME``) by
:class:`scrapy_rep.crawl.commands.ToolCommand`, which hands the options it was given to
the same :func:`run`. What a tool cannot import itself (Scrapy's crawl, a project's
settings) its door hands it in a :class:`Door`.

An argument is a row too: its flags (or a positional's name), then ``add_argument``'s
keywords, with two of our own, taken out before argparse sees them: ``"setting"``, the
crawl setting (or settings) the option sets (:func:`settings_of`; :data:`EACH_SETTING`:
``NAME=VALUE`` pairs, as ``scrapy``'s ``-s``), and ``"door"``, the one door that has it
(:data:`PYTHON` or :data:`SCRAPY`; without it, every door).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TextIO

from rep_engine.trail.terminal import HELP_WIDTH, exit_table

#: Every tool's exit status for a command line it cannot use (argparse's too).
EXIT_USAGE: Final = 2
#: The doors an argument may be for alone: ``python -m …`` (and a part's own), ``scrapy …``.
PYTHON: Final = "python"
SCRAPY: Final = "scrapy"
#: The ``"setting"`` of an option whose values are ``NAME=VALUE`` pairs, one setting each.
EACH_SETTING: Final = "NAME=VALUE"
#: Where a help table's texts start at most (argparse's ``max_help_position``): a name
#: longer than that has a line of its own, its text below it, so that no synopsis (``audit
#: list TRAIL... [--fate F] …``) squeezes every text into a column of a few characters.
TEXT_COLUMN: Final = 28


class UsageError(ValueError):
    """A command line a tool cannot use, found once argparse has read it: one line."""


#: Our keywords of an argument row (module docstring), not argparse's.
OURS: Final = ("setting", "door")
#: One argument: its flags (a positional: its name), then its keywords (module docstring).
Argument = tuple[Any, ...]


@dataclass(frozen=True)
class Tool:
    """One tool, written once: every door of it is made from this row."""

    #: Its command under ``python -m scrapy_rep``.
    name: str
    #: Its arguments, as ``python -m scrapy_rep --help`` lists them.
    synopsis: str
    #: What it does, in a line (``python -m scrapy_rep --help``, its Scrapy command's).
    summary: str
    #: Its ``--help``'s description.
    about: str
    #: What each exit status means.
    exits: Mapping[int | str, str]
    arguments: tuple[Argument, ...] = ()
    #: ``module:function`` run on the options read, ``(options, out, door) -> exit status``;
    #: imported only then.
    runner: str = ""
    #: Its commands (``audit verify``…), each a row of its own (their ``exits`` unused).
    commands: tuple[Tool, ...] = ()
    #: Its Scrapy command (``rep-robots``; ``""``: none).
    scrapy: str = ""


@dataclass(frozen=True)
class Door:
    """What the door a tool is run from hands it."""

    #: The door's name, as the tool's usage and errors name it.
    prog: str
    #: The crawl the tool runs (Scrapy's, which the tool cannot import; ``None``: none).
    crawl: Callable[..., Any] | None = None
    #: The settings a Scrapy project set (``scrapy rep-…``, whose options the tool's
    #: :data:`SCRAPY` arguments are; ``None``: no project, its :data:`PYTHON` ones).
    project: Mapping[str, Any] | None = None

    @property
    def kind(self) -> str:
        """:data:`SCRAPY` or :data:`PYTHON`: the arguments this door reads."""
        return PYTHON if self.project is None else SCRAPY


def load(path: str) -> Any:
    """The object ``module:name`` names, its module imported now."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def lazy(path: str) -> Callable[..., Any]:
    """A callable that imports ``module:name`` only once it is called (a tool's crawl:
    Scrapy loaded only when a crawl runs)."""
    return lambda *args, **kwargs: load(path)(*args, **kwargs)


def help_rows(rows: Iterable[tuple[str, str]]) -> list[str]:
    """``(name, what it does)`` rows as a ``--help`` table: each text in one column after
    the longest name (at most :data:`TEXT_COLUMN`; a longer name on a line of its own),
    wrapped to :data:`HELP_WIDTH`."""
    rows = list(rows)
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


def about(tool: Tool) -> str:
    """What the tool does, as its help says it: wrapped to :data:`HELP_WIDTH`, a URL or an
    option never cut at its hyphens."""
    return textwrap.fill(tool.about, width=HELP_WIDTH, break_on_hyphens=False)


def exits_of(tool: Tool, other: str) -> str:
    """The tool's exit table, naming the ``other`` door that uses the same (if any)."""
    return exit_table(
        f"exit codes ({other} uses the same):" if other else "exit codes:", tool.exits
    )


def rows_of(
    rows: Iterable[Argument], door: str
) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Each argument of ``door``: its flags and its keywords (ours among them)."""
    for *flags, keywords in rows:
        if keywords.get("door", door) == door:
            yield tuple(flags), keywords


def add_arguments(parser: argparse.ArgumentParser, rows: Iterable[Argument], door: str) -> None:
    """Each argument of ``door`` added to ``parser`` (our keywords taken out)."""
    for flags, keywords in rows_of(rows, door):
        parser.add_argument(*flags, **{k: v for k, v in keywords.items() if k not in OURS})


def parser(tool: Tool, prog: str, door: str = PYTHON) -> argparse.ArgumentParser:
    """The command line of ``tool`` at ``door`` (its commands' too), named ``prog``."""
    other = f"scrapy {tool.scrapy}" if door == PYTHON else f"python -m scrapy_rep {tool.name}"
    raw = argparse.RawDescriptionHelpFormatter
    epilog = exits_of(tool, other if tool.scrapy else "")
    top = argparse.ArgumentParser(
        prog=prog, description=about(tool), epilog=epilog, formatter_class=raw
    )
    add_arguments(top, tool.arguments, door)
    if tool.commands:
        commands = top.add_subparsers(dest="command", metavar="COMMAND")
        for command in tool.commands:
            one = commands.add_parser(command.name, help=command.summary, epilog=epilog,
                                      description=command.summary, formatter_class=raw)  # fmt: skip
            add_arguments(one, command.arguments, door)
    return top


def run(tool: Tool, argv: Sequence[str], out: TextIO | None, door: Door) -> int:
    """``tool`` on ``argv`` (the arguments after its name) at ``door``: its runner on the
    options read (a positional may come after an option), or the exit status of a
    command line it cannot use (argparse's message said) or of ``--help``."""
    command_line = parser(tool, door.prog, door.kind)
    try:
        if tool.commands:  # argparse reads a command's options after it only
            options = command_line.parse_args(list(argv))
        else:
            options = command_line.parse_intermixed_args(list(argv))
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else EXIT_USAGE
    return int(load(tool.runner)(options, out if out is not None else sys.stdout, door))


def options_setting(
    tool: Tool, options: argparse.Namespace, door: str
) -> Iterator[tuple[str, tuple[str, ...], Any]]:
    """Each option of ``door`` that sets crawl settings: its flag, the settings, and its
    value in ``options`` (``None``: not given, and no default)."""
    for flags, keywords in rows_of(tool.arguments, door):
        if named := keywords.get("setting"):
            flag = next((flag for flag in flags if flag.startswith("--")), flags[0])
            dest = keywords.get("dest") or flag.lstrip("-").replace("-", "_")
            yield flag, (named,) if isinstance(named, str) else named, getattr(options, dest)


def settings_of(tool: Tool, options: argparse.Namespace, door: str = PYTHON) -> dict[str, Any]:
    """The crawl settings the options of ``door`` set (given, or with a default), the
    ``NAME=VALUE`` pairs last (a setting given both ways takes the pair's value). Raises
    :class:`UsageError` for a pair without ``=`` or a name."""
    settings: dict[str, Any] = {}
    pairs: list[str] = []
    for _, names, value in options_setting(tool, options, door):
        if names == (EACH_SETTING,):
            pairs += value
        elif value is not None:
            settings.update(dict.fromkeys(names, value))
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise UsageError(f"-s: expected NAME=VALUE, got {pair!r}")
        settings[name.strip()] = value
    return settings


def option_of(tool: Tool, options: argparse.Namespace, door: str, setting: str) -> str:
    """The option of ``door`` given in ``options`` that set ``setting`` (``""``: none)."""
    setting_it = options_setting(tool, options, door)
    return next((f for f, names, v in setting_it if setting in names and v is not None), "")
