"""``scrapy rep-robots URL…``: what robots.txt and the pages say, with the project's settings.

The tools are a crawl (:mod:`scrapy_rep.crawl.commands.toolcrawl`) with the project's
settings (``-s`` ones included) and the add-on; what it decided is printed (docs/cli.md).
The crawler's identity and profile: ``ROBOTSTXT_USER_AGENT`` or ``USER_AGENT``,
``REP_PROFILE``, or ``--user-agent`` and ``--rep-profile``. ``--page`` also fetches each
allowed page and prints its directives and what the crawl does with its items; ``--purpose``
(or the project's ``REP_PURPOSE``) explains every AI-usage signal about each page, the
origin's (robots.txt, tdmrep.json, RSL) and the page's own, and the answer per purpose.
The exit codes are the checker's (:data:`scrapy_rep.checker.EXIT_CODES`; a URL denied
for a purpose counts as disallowed), the rest done by its front end once the options are
read (:func:`scrapy_rep.checker.check`, as for ``python -m scrapy_rep check``).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from functools import partial
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand, ScrapyHelpFormatter
from scrapy.settings import SETTINGS_PRIORITIES

from rep_engine.settings import PROFILES, RepConfig
from rep_engine.settings.readers import RepSettingError, read_purposes
from rep_engine.trail.terminal import HELP_WIDTH
from rep_engine.usage.purpose import PURPOSES
from scrapy_rep.checker import EXIT_CODES, ToolRequest, check, usage_error
from scrapy_rep.crawl.commands.toolcrawl import run_tools


class TableHelpFormatter(argparse.RawDescriptionHelpFormatter, ScrapyHelpFormatter):
    """Scrapy's layout of a command's help, with the description's own line breaks kept
    (argparse would reflow the exit-code table into one paragraph)."""


class RobotsCommand(ScrapyCommand):
    """``scrapy rep-robots [--robots-file FILE] [--page] URL…``"""

    requires_crawler_process = False  # its crawl makes its own (toolcrawl.run_tools)
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "[options] URL [URL ...]"

    def short_desc(self) -> str:
        return "Check URLs against robots.txt and page directives (scrapy_rep)"

    def long_desc(self) -> str:
        """Shown by ``-h`` as written (:class:`TableHelpFormatter`): wrapped here."""
        about = textwrap.fill(
            "Check URLs against each origin's robots.txt and, with --page, the pages' own "
            "directives, as a crawl with the project's settings would (REP_PROFILE, "
            "ROBOTSTXT_USER_AGENT or USER_AGENT, REP_PURPOSE...). Note: Scrapy's own "
            "--profile writes a cProfile file; the robots.txt profile is --rep-profile (or -s "
            "REP_PROFILE=...).",
            width=HELP_WIDTH,
        )
        return f"{about}\n\n{EXIT_CODES}"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.formatter_class = TableHelpFormatter
        group = parser.add_argument_group("scrapy_rep options")
        group.add_argument("--robots-file", metavar="FILE", help="check against this robots.txt")
        group.add_argument(
            "--page",
            action="store_true",
            help="also fetch each allowed page: its directives, and what the crawl does with it",
        )
        group.add_argument(
            "--rep-profile", choices=PROFILES, help="the robots.txt profile (REP_PROFILE)"
        )
        group.add_argument("--user-agent", "-A", help="the crawler's User-Agent or product token")
        group.add_argument(
            "--purpose",
            metavar="PURPOSE",
            help=f"explain the AI-usage signals for these purposes ({', '.join(PURPOSES)}; "
            "comma-separated); fetches each allowed page",
        )
        group.add_argument(
            "--timeout", default="10", help="seconds per download (default: 10; at most 86400)"
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        self.exitcode = self._run(args, opts)

    def _run(self, args: list[str], opts: argparse.Namespace) -> int:
        """Check every URL (each once); the exit status (the worst)."""
        assert self.settings is not None
        if not args:
            return usage_error("give at least one URL")
        overrides = option_settings(opts)
        settings = self.settings.copy()
        settings.setdict(overrides, priority="cmdline")
        try:
            if opts.purpose:  # its error names the option
                read_purposes({"--purpose": opts.purpose}, "--purpose", ())
            RepConfig.from_settings(settings)
        except RepSettingError as error:
            return usage_error(str(error))
        purpose_set = settings.getpriority("REP_PURPOSE") not in (
            None, SETTINGS_PRIORITIES["default"]
        )  # fmt: skip
        asked = ToolRequest((), overrides, bool(opts.page or purpose_set), 0.0, purpose_set)
        crawl = partial(run_tools, base=self.settings)
        obey = obey_robots(settings)
        return check(
            args,
            opts.robots_file,
            settings,
            crawl,
            sys.stdout,
            asked=asked,
            timeout=opts.timeout,
            obey=obey,
        )


def option_settings(opts: argparse.Namespace) -> dict[str, Any]:
    """The options that are crawl settings (over the project's, at the ``cmdline`` priority)."""
    overrides: dict[str, Any] = {}
    if opts.user_agent:  # both the name and what is sent
        overrides["USER_AGENT"] = overrides["ROBOTSTXT_USER_AGENT"] = opts.user_agent
    if opts.rep_profile:
        overrides["REP_PROFILE"] = opts.rep_profile
    if opts.purpose:
        overrides["REP_PURPOSE"] = opts.purpose
    return overrides


def obey_robots(settings: Any) -> bool:
    """``ROBOTSTXT_OBEY`` as the crawl has it: the add-on turns it on unless the project set it."""
    default = settings.getpriority("ROBOTSTXT_OBEY") == SETTINGS_PRIORITIES["default"]
    return default or bool(settings.getbool("ROBOTSTXT_OBEY"))
