"""``scrapy rep-recheck DATASET... [--purpose P] …``: ``python -m scrapy_rep recheck`` inside
a Scrapy project, deciding with the project's settings (``REP_*``, ``USER_AGENT``,
``ROBOTSTXT_USER_AGENT``, ``ROBOTSTXT_OBEY``, and ``-s``) and fetching the documents with
a crawl of those settings. Same output and exit codes."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings

from rep_engine.trail.terminal import HELP_WIDTH
from rep_recheck.command import EXIT_CODES, EXIT_USAGE, add_options, run
from scrapy_rep.crawl.commands.recheck_crawl import fetch
from scrapy_rep.crawl.commands.robots_command import TableHelpFormatter


class RecheckCommand(ScrapyCommand):
    """``scrapy rep-recheck DATASET …``"""

    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "DATASET... [options]"

    def short_desc(self) -> str:
        return "Re-check a stored collection with the project's settings (scrapy_rep)"

    def long_desc(self) -> str:
        """Shown by ``-h`` as written (:class:`TableHelpFormatter`): wrapped here."""
        about = textwrap.fill(
            "Re-check a stored collection (JSON Lines, CSV, Parquet, an audit trail or its "
            "export): which of its items a site has since said no to, by which signal, line "
            "and document, decided as a crawl with the project's settings would decide them "
            "now.",
            width=HELP_WIDTH,
        )
        codes = EXIT_CODES.replace("scrapy rep-recheck", "python -m scrapy_rep recheck")
        return f"{about}\n\n{codes}"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.formatter_class = TableHelpFormatter
        add_options(parser.add_argument_group("scrapy_rep recheck options"), project=True)  # type: ignore[arg-type]

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if not args:
            print("scrapy_rep: error: give a DATASET: a file, several, a folder or a quoted "
                  "pattern", file=sys.stderr)  # fmt: skip
            self.exitcode = EXIT_USAGE
            return
        opts.dataset = list(args)
        self.exitcode = run(opts, project_settings(self.settings), fetch)


def project_settings(settings: BaseSettings) -> dict[str, Any]:
    """The settings a project or the command line set (above Scrapy's defaults): read as
    the add-on reads them at a crawl's start, where a setting left at Scrapy's default is
    the add-on's to choose (``ROBOTSTXT_OBEY`` on); Scrapy's defaults come back in the
    recheck's crawl, at their own priority (so that none reads as set, a deprecated one
    neither)."""
    default = SETTINGS_PRIORITIES["default"]
    chosen = (name for name in settings if (settings.getpriority(name) or 0) > default)
    return {name: settings[name] for name in chosen}
