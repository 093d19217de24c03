"""``scrapy rep-audit COMMAND [TRAIL…] …``: the trail reader of
:mod:`scrapy_rep.audit.cli` as a Scrapy command. Without ``TRAIL``, the project's
``REP_AUDIT_FILE`` is read. Same output and exit codes as ``python -m scrapy_rep audit``.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand

from scrapy_rep.audit.cli import COMMANDS, EXIT_UNUSABLE, HELPS, exit_codes, main
from scrapy_rep.audit.html import MAX_ROWS
from scrapy_rep.checker.exits import HELP_WIDTH, help_rows
from scrapy_rep.crawl.commands.robots_command import TableHelpFormatter

#: How many positional arguments each command takes with the trail (``show``: the URL).
_ARGUMENTS = {"summary": 1, "verify": 1, "show": 2, "list": 1, "report": 1, "repair": 1,
              "export": 1}  # fmt: skip


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
            "REP_AUDIT_FILE. summary, verify, show and report take several TRAIL files: "
            "several workers' trails read as one. COMMAND is one of:",
            width=HELP_WIDTH,
        )
        table = "\n".join(help_rows([(name, HELPS[name]) for name in COMMANDS]))
        return f"{about}\n{table}\n\n{exit_codes('`python -m scrapy_rep audit`')}"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.formatter_class = TableHelpFormatter
        group = parser.add_argument_group("scrapy_rep audit options")
        group.add_argument("--html", metavar="FILE", help="report: the page to write")
        group.add_argument(
            "--head", metavar="SHA256", action="append", default=[],
            help="verify: a head printed by an earlier verify (repeatable)",
        )  # fmt: skip
        group.add_argument("--json", action="store_true", help="verify: one JSON object")
        group.add_argument("--export", metavar="FILE", help="verify: also check this export")
        group.add_argument("--out", metavar="FILE", help="export: the file (default: stdout)")
        group.add_argument(
            "--summary", metavar="FILE", help="export: the Markdown summary (default: stderr)"
        )
        group.add_argument("--fate", action="append", default=[], help="list: only these fates")
        group.add_argument("--reason", action="append", default=[], help="list: only these reasons")
        group.add_argument(
            "--format", choices=("text", "csv", "jsonl"), default="text", help="list: the format"
        )
        group.add_argument(
            "--max-rows",
            type=int,
            default=MAX_ROWS,
            help=f"report: table rows (default {MAX_ROWS})",
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        self.exitcode = self._run(args, opts)

    def _run(self, args: list[str], opts: argparse.Namespace) -> int:
        assert self.settings is not None
        if not args or args[0] not in COMMANDS:
            print(f"scrapy_rep: error: give a command: {', '.join(COMMANDS)}", file=sys.stderr)
            return EXIT_UNUSABLE
        command, rest = args[0], args[1:]
        if len(rest) == _ARGUMENTS[command] - 1:
            trail = self.settings.get("REP_AUDIT_FILE")
            if not trail:
                print("scrapy_rep: error: give TRAIL, or set REP_AUDIT_FILE", file=sys.stderr)
                return EXIT_UNUSABLE
            rest = [str(trail), *rest]
        argv = [command, *rest]
        if command == "report" and opts.html:
            argv += ["--html", opts.html, "--max-rows", str(opts.max_rows)]
        if command == "verify":
            argv += [arg for head in opts.head for arg in ("--head", head)]
            argv += ["--json"] if opts.json else []
            argv += ["--export", opts.export] if opts.export else []
        if command == "list":
            argv += [arg for fate in opts.fate for arg in ("--fate", fate)]
            argv += [arg for reason in opts.reason for arg in ("--reason", reason)]
            argv += ["--format", opts.format]
        if command == "export":
            argv += ["--out", opts.out] if opts.out else []
            argv += ["--summary", opts.summary] if opts.summary else []
        return main(argv, prog="scrapy rep-audit")
