"""``scrapy rep-audit COMMAND [TRAIL…] …``: the trail reader of :mod:`rep_audit.cli` as a
Scrapy command, made from its row (:data:`rep_audit.cliargs.TOOL`). Without ``TRAIL``,
the project's ``REP_AUDIT_FILE`` is read. Same output and exit codes as ``python -m
scrapy_rep audit``."""

from __future__ import annotations

from scrapy.settings import Settings

from rep_audit.cli import main
from rep_audit.cliargs import TOOL
from scrapy_rep.checker import usage_error
from scrapy_rep.crawl.commands import ToolCommand


class AuditCommand(ToolCommand):
    """``scrapy rep-audit COMMAND [TRAIL] …``"""

    tool = TOOL
    synopsis = "COMMAND [TRAIL...] [URL] [options]"

    def run_tool(self, args: list[str], passed: list[str], settings: Settings) -> int:
        """The command named, on the trails named, else on the project's
        ``REP_AUDIT_FILE``."""
        commands = {command.name: command for command in TOOL.commands}
        if not args or args[0] not in commands:  # one line, as Scrapy's commands say it
            return usage_error(f"give a command: {', '.join(commands)}")
        others = [flags for *flags, _ in commands[args[0]].arguments[1:]]  # after TRAIL
        if len(args) == 1 + sum(not flags[0].startswith("-") for flags in others):
            if not settings.get("REP_AUDIT_FILE"):
                return usage_error("give TRAIL, or set REP_AUDIT_FILE")
            args = [args[0], str(settings.get("REP_AUDIT_FILE")), *args[1:]]
        return main([*args, *passed], prog="scrapy rep-audit")
