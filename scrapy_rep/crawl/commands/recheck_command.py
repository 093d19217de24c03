"""``scrapy rep-recheck DATASET... [--purpose P] …``: ``python -m scrapy_rep recheck`` inside
a Scrapy project (its row: :data:`rep_recheck.options.TOOL`), deciding with the project's
settings (``REP_*``, ``USER_AGENT``, ``ROBOTSTXT_USER_AGENT``, ``ROBOTSTXT_OBEY``, and
``-s``) and fetching the documents with a crawl of those settings. Same output and exit
codes."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from scrapy.settings import Settings

from rep_engine.commandline import Door, run
from rep_recheck.options import TOOL
from scrapy_rep.checker import usage_error
from scrapy_rep.crawl.commands import ToolCommand, project_settings
from scrapy_rep.crawl.commands.recheck_crawl import fetch


class RecheckCommand(ToolCommand):
    """``scrapy rep-recheck DATASET …``"""

    tool = TOOL
    synopsis = "DATASET... [options]"
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def run_tool(self, args: list[str], passed: list[str], settings: Settings) -> int:
        """The recheck of the DATASET files named, with the project's settings."""
        if not args:
            return usage_error("give a DATASET: a file, several, a folder or a quoted pattern")
        door = Door("scrapy rep-recheck", fetch, project_settings(settings))
        return run(TOOL, [*args, *passed], sys.stdout, door)
