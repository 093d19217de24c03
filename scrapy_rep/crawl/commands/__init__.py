"""The Scrapy side of the command-line tools: each tool's Scrapy command made from its row
(:class:`ToolCommand`, from a :class:`rep_engine.commandline.Tool`): ``scrapy rep-robots``
(the checker's, :mod:`~scrapy_rep.crawl.commands.robots_command`), ``scrapy rep-audit``
(the audit trail's, :mod:`~scrapy_rep.crawl.commands.audit_command`) and ``scrapy
rep-recheck`` (:mod:`~scrapy_rep.crawl.commands.recheck_command`), and the crawls the
tools run.

A Scrapy command's options are the tool's own: Scrapy's parser lists them in its help and
keeps each as it was given (:class:`PassedOn`), and the tool's own parser reads them, as
at ``python -m scrapy_rep`` (:func:`rep_engine.commandline.run`), so that every door
reads a command line one way, with one message for one mistake.
"""

from __future__ import annotations

import argparse
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand, ScrapyHelpFormatter
from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings, Settings

from rep_engine.commandline import SCRAPY, Tool, about, exits_of, help_rows, rows_of


class TableHelpFormatter(argparse.RawDescriptionHelpFormatter, ScrapyHelpFormatter):
    """Scrapy's layout of a command's help, with the description's own line breaks kept
    (argparse would reflow the exit-code table into one paragraph)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Each section's heading, as argparse writes it (``options:``).
        self._headings: set[str] = set()

    def start_section(self, heading: str | None) -> None:
        self._headings.add(f"{heading}:\n")
        super().start_section(heading)

    def format_part_strings(self, part_strings: list[str]) -> list[str]:
        """Scrapy's headings, title-cased and underlined: only a section's. An option's
        help line that ends in a colon where it wraps (``(default:``) is kept as written
        (its line break a part of its own, so that Scrapy does not take it for one)."""
        parts: list[str] = []
        for part in part_strings:
            wrapped = part.endswith(":\n") and part.lstrip(" ") not in self._headings
            parts += [part[:-1], "\n"] if wrapped else [part]
        return super().format_part_strings(parts)


class PassedOn(argparse.Action):
    """A tool's option, kept as it was given (its flag and values, in their order) for the
    tool's own parser to read."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = values if isinstance(values, list) else [values]
        namespace.passed = [*namespace.passed, option_string, *given]


def _nargs(keywords: dict[str, Any]) -> Any:
    """How many values an option takes: none for a switch."""
    switch = keywords.get("action") in ("store_true", "store_false", "store_const")
    return 0 if switch else keywords.get("nargs")


class ToolCommand(ScrapyCommand):
    """A tool's Scrapy command, made from its row (:attr:`tool`): its help (the row's
    description, commands, options and exit table, naming ``python -m scrapy_rep``), and
    its options read by the tool's own parser; what the command adds is its
    :meth:`run_tool`."""

    requires_crawler_process = False  # a tool runs its own crawl, if any
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}
    tool: ClassVar[Tool]
    #: Its arguments, as ``scrapy -h`` and its usage line show them.
    synopsis: ClassVar[str]

    def syntax(self) -> str:
        return self.synopsis

    def short_desc(self) -> str:
        return f"{self.tool.summary[0].upper()}{self.tool.summary[1:]} (scrapy_rep)"

    def long_desc(self) -> str:
        """Shown by ``-h`` as written (:class:`TableHelpFormatter`): wrapped here."""
        tool = self.tool
        lines = [about(tool)]
        if tool.commands:
            rows = help_rows((one.name, one.summary) for one in tool.commands)
            lines += ["COMMAND is one of:", *rows]
        return "\n".join([*lines, "", exits_of(tool, f"python -m scrapy_rep {tool.name}")])

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        """The tool's options (a command's, for a tool of commands, its help naming the
        commands that take it), each kept as given (:class:`PassedOn`)."""
        super().add_options(parser)
        parser.formatter_class = TableHelpFormatter
        parser.set_defaults(passed=[])
        group = parser.add_argument_group("scrapy_rep options")
        taking: dict[tuple[str, ...], tuple[dict[str, Any], list[str], set[Any]]] = {}
        for command in self.tool.commands or (self.tool,):
            for flags, keywords in rows_of(command.arguments, SCRAPY):
                if flags[0].startswith("-"):  # a positional comes with the args
                    _, names, counts = taking.setdefault(flags, (keywords, [], set()))
                    names.append(command.name)
                    counts.add(_nargs(keywords))
        for flags, (keywords, names, counts) in taking.items():
            nargs = counts.pop() if len(counts) == 1 else "*"  # several kinds: as many as given
            said = f"{', '.join(names)}: {keywords['help']}" if self.tool.commands else None
            metavar = keywords.get("metavar") or flags[0].lstrip("-").replace("-", "_").upper()
            if nargs == 0 or "choices" in keywords:  # a switch's, or its choices shown
                metavar = None
            group.add_argument(*flags, action=PassedOn, dest="passed", nargs=nargs,
                               metavar=metavar, choices=keywords.get("choices"),
                               help=said or keywords["help"])  # fmt: skip

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        self.exitcode = self.run_tool(args, opts.passed, self.settings)

    def run_tool(self, args: list[str], passed: list[str], settings: Settings) -> int:
        """The tool on the command's arguments (Scrapy's ``args``) and its options as given
        (``passed``), in the project of ``settings``; the exit status."""
        raise NotImplementedError


def project_settings(settings: BaseSettings) -> dict[str, Any]:
    """The settings a project or the command line set (above Scrapy's defaults): read as
    the add-on reads them at a crawl's start, where a setting left at Scrapy's default is
    the add-on's to choose (``ROBOTSTXT_OBEY`` on); Scrapy's defaults come back in the
    tool's crawl, at their own priority (so that none reads as set, a deprecated one
    neither)."""
    default = SETTINGS_PRIORITIES["default"]
    chosen = (name for name in settings if (settings.getpriority(name) or 0) > default)
    return {name: settings[name] for name in chosen}
