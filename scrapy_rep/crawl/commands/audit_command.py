"""``scrapy rep-audit COMMAND [TRAIL…] …``: the trail reader of :mod:`rep_audit.cli`
as a Scrapy command. Without ``TRAIL``, the project's ``REP_AUDIT_FILE`` is read. Same
output and exit codes as ``python -m scrapy_rep audit``."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand

from rep_audit.cli import main
from rep_audit.cliargs import COMMANDS, EXIT_UNUSABLE, HELPS, OPTIONS, exit_codes
from rep_engine.trail.terminal import HELP_WIDTH
from scrapy_rep.checker import help_rows
from scrapy_rep.crawl.commands.robots_command import TableHelpFormatter


class AuditCommand(ScrapyCommand):
    """``scrapy rep-audit COMMAND [TRAIL] …``"""

    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "COMMAND [TRAIL...] [URL] [options]"

    def short_desc(self) -> str:
        return (
            "Read the audit trail: summary, verify, show URL, list, report --html, repair, export "
            "(scrapy_rep)"
        )

    def long_desc(self) -> str:
        """Shown by ``-h`` as written (:class:`TableHelpFormatter`): wrapped here."""
        about = textwrap.fill(
            "Read a scrapy_rep audit trail: the TRAIL files named, else the project's "
            "REP_AUDIT_FILE. summary, verify, show, list and report take several TRAIL "
            "files: read together (a crawl's workers' trails checked as one, separate "
            "crawls' told apart). COMMAND is one of:",
            width=HELP_WIDTH,
        )
        table = "\n".join(help_rows([(name, HELPS[name]) for name in COMMANDS]))
        return f"{about}\n{table}\n\n{exit_codes('`python -m scrapy_rep audit`')}"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        """Each command's options, as ``python -m scrapy_rep audit COMMAND`` has them
        (:data:`~rep_audit.cliargs.OPTIONS`), their help naming the command."""
        super().add_options(parser)
        parser.formatter_class = TableHelpFormatter
        group = parser.add_argument_group("scrapy_rep audit options")
        taking: dict[str, tuple[dict[str, Any], list[str]]] = {}  # an option several take
        for command, options in OPTIONS.items():
            for flag, keywords in options:
                if flag.startswith("--"):  # a positional (show's URL) comes with the args
                    taking.setdefault(flag, (keywords, []))[1].append(command)
        for flag, (keywords, commands) in taking.items():
            said = f"{', '.join(commands)}: {keywords['help']}"
            group.add_argument(flag, **{**keywords, "required": False, "help": said})

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        self.exitcode = self._run(args, opts)

    def _run(self, args: list[str], opts: argparse.Namespace) -> int:
        assert self.settings is not None
        if not args or args[0] not in COMMANDS:
            print(f"scrapy_rep: error: give a command: {', '.join(COMMANDS)}", file=sys.stderr)
            return EXIT_UNUSABLE
        command, rest = args[0], args[1:]
        options = OPTIONS.get(command, ())
        if len(rest) == sum(not flag.startswith("--") for flag, _ in options):  # no TRAIL
            trail = self.settings.get("REP_AUDIT_FILE")
            if not trail:
                print("scrapy_rep: error: give TRAIL, or set REP_AUDIT_FILE", file=sys.stderr)
                return EXIT_UNUSABLE
            rest = [str(trail), *rest]
        argv = [command, *rest]
        for flag, keywords in options:  # handed on as the audit command line reads them
            if not flag.startswith("--"):
                continue
            value: Any = getattr(opts, flag[2:].replace("-", "_"))
            if keywords.get("action") == "append":
                argv += [arg for each in value for arg in (flag, each)]
            elif keywords.get("action") == "store_true":
                argv += [flag] if value else []
            elif value is not None:
                argv += [flag, str(value)]
        return main(argv, prog="scrapy rep-audit")
