"""``scrapy rep-robots URL…``: what robots.txt and the pages say, with the project's settings.

The robots.txt side is the checker of :mod:`scrapy_rep.check` (one fetch procedure, two
entry points): each origin's robots.txt is fetched once with the fetch rules of SPEC §4,
and every URL gets its verdict and the deciding line. The crawler's identity and profile
come from the project's settings (``ROBOTSTXT_USER_AGENT`` or ``USER_AGENT``,
``REP_PROFILE``), or from ``--user-agent`` and ``--rep-profile``. ``--page`` also fetches
each allowed page and prints its meta / ``X-Robots-Tag`` directives. ``--purpose``
(``ai-train``, ``ai-input``, ``search``, or several, comma-separated) explains every
AI-usage signal about each URL, the origin's (robots.txt, tdmrep.json) and the page's
own, and the answer for each purpose. The exit codes are the checker's
(:data:`scrapy_rep.check.EXIT_CODES`); a URL denied for a purpose counts as disallowed.
The URLs, paths, ``--robots-file`` and ``--timeout`` are read by
:mod:`scrapy_rep.checker.inputs`, as the checker reads its own.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand, ScrapyHelpFormatter
from scrapy.settings import SETTINGS_PRIORITIES

from scrapy_rep.check import (
    EXIT_ALLOWED,
    EXIT_CODES,
    EXIT_DISALLOWED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    HELP_WIDTH,
    report,
)
from scrapy_rep.checker.download import (
    OriginTdm,
    fetch_robotstxt,
    held_reason,
    read_robots_file,
    robots_url_for,
    robots_verdict,
)
from scrapy_rep.checker.inputs import (
    InputError,
    Paths,
    parse_timeout,
    parse_url,
    unreadable_file,
)
from scrapy_rep.checker.licenses import NO_LICENSES, OriginLicenses
from scrapy_rep.checker.report import (
    further_documents,
    origin_head,
    robots_allows,
    user_agent_line,
)
from scrapy_rep.crawl.commands.pagefetch import PageCheck
from scrapy_rep.fetch.rules import Policy
from scrapy_rep.robotstxt import RobotsTxt
from scrapy_rep.robotstxt.useragent import held_names
from scrapy_rep.settings import (
    PROFILES,
    RepConfig,
    RepSettingError,
    directive_readings,
    request_rules,
    robots_agent,
)
from scrapy_rep.settings.readers import read_purposes
from scrapy_rep.usage.policy import UsagePolicy
from scrapy_rep.usage.purpose import PURPOSES
from scrapy_rep.verdict import RequestRules, obey_of


class TableHelpFormatter(argparse.RawDescriptionHelpFormatter, ScrapyHelpFormatter):
    """Scrapy's layout of a command's help, with the description's own line breaks kept
    (argparse would reflow the exit-code table into one paragraph)."""


class RobotsCommand(ScrapyCommand):
    """``scrapy rep-robots [--robots-file FILE] [--page] URL…``"""

    requires_crawler_process = False
    #: ``--purpose``: the purposes whose usage signals are explained.
    policy: UsagePolicy | None = None
    #: The robots.txt profile checked (``--rep-profile`` or ``REP_PROFILE``).
    profile: str = "google"
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "[options] URL [URL ...]"

    def short_desc(self) -> str:
        return "Check URLs against robots.txt and page directives (scrapy_rep)"

    def long_desc(self) -> str:
        """Shown by ``-h`` as written (:class:`TableHelpFormatter`): wrapped here."""
        about = textwrap.fill(
            "Check URLs against each origin's robots.txt and, with --page, the pages' own "
            "directives, with the project's settings (REP_PROFILE, ROBOTSTXT_USER_AGENT or "
            "USER_AGENT). Note: Scrapy's own --profile writes a cProfile file; the "
            "robots.txt profile is --rep-profile (or -s REP_PROFILE=...).",
            width=HELP_WIDTH,
        )
        return f"{about}\n\n{EXIT_CODES}"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.formatter_class = TableHelpFormatter
        group = parser.add_argument_group("scrapy_rep options")
        group.add_argument("--robots-file", metavar="FILE", help="check against this robots.txt")
        group.add_argument(
            "--page", action="store_true", help="also fetch each allowed page: its directives"
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
            "--timeout", default="10", help="seconds per fetch (default: 10; at most 86400)"
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        self.exitcode = self._run(args, opts)

    def _run(self, args: list[str], opts: argparse.Namespace) -> int:
        """Check every URL, one origin at a time; the exit status (the worst)."""
        assert self.settings is not None
        if not args:
            return _usage("give at least one URL")
        try:
            config = RepConfig.from_settings(self.settings)
            self.policy = _policy(opts.purpose or self._purpose_setting(config), config)
        except RepSettingError as error:
            return _usage(str(error))
        self.request_rules = self._request_rules(config)
        try:  # the same words as python -m scrapy_rep check for the same input
            for url in args:
                parse_url(url, self._paths(opts))
            opts.timeout = parse_timeout(opts.timeout)
        except InputError as error:
            return _usage(str(error))
        profile = self.profile = opts.rep_profile or config.profile
        agent = opts.user_agent or robots_agent(self.settings)
        #: The User-Agent the crawl would send (its name is held to too, as in the
        #: crawl); ``--user-agent`` is both the name and what is sent.
        self.sent = "" if opts.user_agent else str(self.settings.get("USER_AGENT") or "")
        names = held_names(agent, self.sent)
        #: The further names the crawl's requests are held to (the name they are sent as).
        self.also = names[1:]
        local: RobotsTxt | None = None
        notes: list[str] = []
        if opts.robots_file:  # read before any output: an unreadable file comes alone
            try:
                local, notes = read_robots_file(Path(opts.robots_file), profile)
            except OSError as error:
                return _usage(str(unreadable_file(opts.robots_file, error.strerror or str(error))))
        print(user_agent_line(agent, profile, names))
        by_origin: dict[str, list[str]] = {}
        for url in args:  # a path (against a local file only) has no origin
            by_origin.setdefault(robots_url_for(url) or "", []).append(url)
        code = EXIT_ALLOWED
        for robots_url, urls in by_origin.items():
            checked = self._check_origin(
                robots_url, urls, (local, notes), agent, profile, opts, config
            )
            code = max(code, checked)
        return code

    def _paths(self, opts: argparse.Namespace) -> Paths:
        """Whether a path is checked (against ``--robots-file``, when no page is
        fetched: ``--page`` and a purpose fetch each page), and why not."""
        if not opts.robots_file:
            return Paths.NEED_A_FILE
        pages = opts.page or self.policy is not None
        return Paths.PAGES_FETCHED if pages else Paths.ACCEPTED

    def _purpose_setting(self, config: RepConfig) -> str | None:
        """``REP_PURPOSE`` set by the project or ``-s``: explained as ``--purpose`` is."""
        assert self.settings is not None
        if self.settings.getpriority("REP_PURPOSE") in (None, SETTINGS_PRIORITIES["default"]):
            return None
        return ",".join(config.purpose)

    def _request_rules(self, config: RepConfig) -> RequestRules:
        """The crawl's own decision, built by the crawl's own function from the same
        settings (REP_PURPOSE, or --purpose; REP_PURPOSE_AGENTS, REP_RSL_LICENSES,
        REP_OVERRIDES), and how much of robots.txt it obeys."""
        assert self.settings is not None
        purpose_set = (
            self.policy is not None or self.settings.getpriority("REP_PURPOSE") is not None
        )
        self.obey = obey_of(obey_robots(self.settings), purpose_set)
        return request_rules(config, purpose_set, self.policy)

    def _check_origin(
        self,
        robots_url: str,
        urls: list[str],
        local: tuple[RobotsTxt | None, list[str]],
        agent: str,
        profile: str,
        opts: argparse.Namespace,
        config: RepConfig,
    ) -> int:
        """One origin's documents (its robots.txt unless ``local`` gives a file's rules
        and notes, tdmrep.json, RSL licenses) and its block; its exit code (unreachable if
        one could not be had)."""
        held = ""
        local_rules, notes = local
        if local_rules is not None:
            rules, title, unreachable = local_rules, f"{opts.robots_file} (local file)", False
        else:
            fetched = fetch_robotstxt(
                robots_url, user_agent=agent, profile=profile, timeout=opts.timeout
            )
            rules, notes = robots_verdict(fetched, _give_up(config))
            title = f"{robots_url}: {fetched.outcome}"
            unreachable = fetched.unreachable
            held = held_reason(fetched)
        tdm, licenses = further_documents(
            robots_url, rules, self.request_rules, agent, opts.timeout, _give_up(config),
        )  # fmt: skip
        print("\n".join(origin_head(title, notes, rules, agent, tdm, licenses)))
        code = self._origin(rules, urls, agent, opts, config, tdm, licenses, held)
        if unreachable or (tdm is not None and tdm.unreachable) or licenses.unreachable:
            return EXIT_UNREACHABLE
        return code

    def _origin(
        self,
        rules: RobotsTxt,
        urls: list[str],
        agent: str,
        opts: argparse.Namespace,
        config: RepConfig,
        tdm: OriginTdm | None = None,
        licenses: OriginLicenses = NO_LICENSES,
        held: str = "",
    ) -> int:
        """Print one origin's URLs, under its block's head; its exit code. ``held``: why
        a URL is disallowed while robots.txt is unreachable (temporary)."""
        now = time.time()  # an override covers a URL only before it expires
        lines, all_allowed = report(
            rules, urls, agent, self.request_rules, tdm, licenses, self.profile, self.obey,
            held, now, self.sent,
        )  # fmt: skip
        code = EXIT_ALLOWED if all_allowed else EXIT_DISALLOWED
        pages = PageCheck(
            config, self.policy, self.request_rules.rsl_owned, self.also, self.profile,
            opts.timeout,
        )  # fmt: skip
        tdm_file = None if tdm is None else tdm.file
        for url, line in zip(urls, lines, strict=True):  # URLs here always have an origin
            print(f"  {line}")
            if not (opts.page or self.policy is not None):
                continue
            if robots_allows(rules, url, agent, self.obey, self.request_rules, now, self.sent):
                said, page_code = pages.lines(
                    url, agent, rules, tdm_file, licenses, directives=opts.page
                )
                print("\n".join(said))
                code = max(code, page_code)
        return code


def obey_robots(settings: Any) -> bool:
    """``ROBOTSTXT_OBEY`` as the crawl has it: the add-on turns it on unless the project
    set it (this command runs without the add-on's settings)."""
    if settings.getpriority("ROBOTSTXT_OBEY") == SETTINGS_PRIORITIES["default"]:
        return True
    return bool(settings.getbool("ROBOTSTXT_OBEY"))


def _give_up(config: RepConfig) -> Policy:
    """The crawl's ``REP_UNREACHABLE_*`` settings, for its give-up rule
    (:meth:`~scrapy_rep.fetch.rules.Policy.allows_when_given_up`)."""
    return Policy(
        max_wait=config.unreachable_max_wait,
        connect_max_wait=config.unreachable_connect_max_wait,
        unreachable_action=config.unreachable_action,
    )


def _policy(purpose: str | None, config: RepConfig) -> UsagePolicy | None:
    """``--purpose`` (one or several, comma-separated); ``RepSettingError`` if wrong."""
    if not purpose:
        return None
    purposes = read_purposes({"--purpose": purpose}, "--purpose", ())
    return UsagePolicy.of(purposes, config.purpose_unknown, readings=directive_readings(config))


def _usage(message: str) -> int:
    print(f"scrapy_rep: error: {message}", file=sys.stderr)
    return EXIT_USAGE
