"""``scrapy rep-robots URL…``: what robots.txt and the pages say, with the project's settings.

The checker's Scrapy command (its row: :data:`scrapy_rep.checker.TOOL`, as for ``python -m
scrapy_rep check``; its options and exit codes, the rest done by the checker's runner,
:func:`scrapy_rep.checker.run`). The tools are a crawl
(:mod:`scrapy_rep.crawl.commands.toolcrawl`) with the project's settings (``-s`` ones
included) and the add-on; what it decided is printed (docs/cli.md). The crawler's identity
and profile: ``ROBOTSTXT_USER_AGENT`` or ``USER_AGENT``, ``REP_PROFILE``, or
``--user-agent`` and ``--rep-profile``. ``--page`` also fetches each allowed page and
prints its directives and what the crawl does with its items; ``--purpose`` (or the
project's ``REP_PURPOSE``) explains every AI-usage signal about each page, the origin's
(robots.txt, tdmrep.json, RSL) and the page's own, and the answer per purpose (a URL
denied for a purpose counts as disallowed).
"""

from __future__ import annotations

import sys
from functools import partial

from scrapy.settings import Settings

from rep_engine.commandline import Door, run
from scrapy_rep.checker import TOOL
from scrapy_rep.crawl.commands import ToolCommand, project_settings
from scrapy_rep.crawl.commands.toolcrawl import run_tools


class RobotsCommand(ToolCommand):
    """``scrapy rep-robots [--robots-file FILE] [--page] URL…``"""

    tool = TOOL
    synopsis = "[options] URL [URL ...]"

    def run_tool(self, args: list[str], passed: list[str], settings: Settings) -> int:
        """The checker with the project's settings (the User-Agent its crawl sends among
        them), its crawl run over them."""
        project = {"USER_AGENT": settings["USER_AGENT"], **project_settings(settings)}
        crawl = partial(run_tools, base=settings)
        return run(TOOL, [*args, *passed], sys.stdout, Door("scrapy rep-robots", crawl, project))
