"""The robots.txt checker: ``python -m scrapy_rep check ROBOTS_FILE_OR_URL URL…``.

Prints, for each URL, whether the crawler may fetch it and the robots.txt line (or the
group) that decided it, like a robots.txt tester. A URL as first argument has its
origin's ``/robots.txt`` fetched by the same procedure the crawl uses
(:mod:`scrapy_rep.fetch.procedure`, driven here over urllib), so the outcome reads the
same as in the crawl's log and report. Standard library only: nothing from Scrapy. The
arguments are read by :mod:`scrapy_rep.checker.inputs`, as ``scrapy rep-robots`` reads
its own (the same message for the same bad input); what is read per origin, and the line
per URL, are :mod:`scrapy_rep.checker.report`'s. ``python -m scrapy_rep`` (its
``__main__``) hands the arguments after ``check`` to :func:`run`.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, TextIO

from scrapy_rep.checker.download import DEFAULT_USER_AGENT
from scrapy_rep.checker.inputs import (
    InputError,
    Paths,
    first_is_url,
    parse_timeout,
    parse_url,
    unreadable_file,
)
from scrapy_rep.checker.report import origin_head, robots_allows, sources, user_agent_line
from scrapy_rep.checker.report import report as report
from scrapy_rep.robotstxt import PROFILES
from scrapy_rep.settings import RepConfig, RepSettingError, request_rules
from scrapy_rep.verdict import obey_of

if TYPE_CHECKING:
    from scrapy_rep.crawl.commands.pagefetch import PageCheck

#: The width every help text of the tools fits in (a terminal's 80 columns).
HELP_WIDTH: Final = 80
#: The exit codes of ``python -m scrapy_rep check`` and ``scrapy rep-robots`` alike.
EXIT_ALLOWED: Final = 0
EXIT_DISALLOWED: Final = 1
EXIT_USAGE: Final = 2
EXIT_UNREACHABLE: Final = 3


def exit_code_table(same_for: str, *, pages: str) -> str:
    """The exit codes as a table, for one tool's ``--help`` (``same_for``: the other tool,
    which uses the same codes; ``pages``: the options that fetch each page). Both have
    ``--purpose`` and ``--page``."""
    disallowed = "at least one URL is disallowed (or, with --purpose, denied for a purpose)"
    fetched = f"a robots.txt (or a tdmrep.json, or with {pages} a page)"
    lines = [
        f"exit codes ({same_for} uses the same):",
        f"  {EXIT_ALLOWED}  every URL is allowed",
        f"  {EXIT_DISALLOWED}  {disallowed}",
        f"  {EXIT_USAGE}  usage error: a wrong argument, option or setting, an unreadable file",
        *textwrap.wrap(
            f"{EXIT_UNREACHABLE}  {fetched} could not be fetched: the verdicts shown for its "
            'URLs are temporary ("everything disallowed for now")',
            width=HELP_WIDTH,
            initial_indent="  ",
            subsequent_indent="     ",
        ),
    ]
    return "\n".join(lines)


#: The exit codes of ``scrapy rep-robots``, as its ``--help`` shows them.
EXIT_CODES: Final = exit_code_table("python -m scrapy_rep check", pages="--page or --purpose")
#: The exit codes of ``python -m scrapy_rep check`` (it fetches pages only with --page).
CHECK_EXIT_CODES: Final = exit_code_table("scrapy rep-robots", pages="--page")


# --------------------------------------------------------------------------- the command

#: What ``check`` does, as its ``--help`` and ``python -m scrapy_rep --help`` say it.
SUMMARY: Final = "check URLs against a robots.txt"


def parser(prog: str = "python -m scrapy_rep check") -> argparse.ArgumentParser:
    """The ``check`` command line (``python -m scrapy_rep`` dispatches to it)."""
    description = textwrap.fill(
        "Check URLs against a robots.txt. With a URL as first argument, the robots.txt of "
        "each URL's own origin is fetched.",
        width=HELP_WIDTH,
    )
    check = argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog=CHECK_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "robots",
        metavar="ROBOTS_FILE_OR_URL",
        nargs="?",
        help="a robots.txt file, or an http(s) URL whose origin's /robots.txt is fetched",
    )
    _check_options(check)
    return check


def _check_options(check: argparse.ArgumentParser) -> None:
    """The arguments and options of ``check`` (the robots file or URL is added above)."""
    check.add_argument(
        "urls",
        metavar="URL",
        nargs="*",
        help="the URLs to check (http or https; against a file, a path)",
    )
    check.add_argument(
        "--example",
        action="store_true",
        help="use the robots.txt bundled with scrapy_rep; every argument is then a URL",
    )
    check.add_argument(
        "--user-agent",
        "-A",
        default=DEFAULT_USER_AGENT,
        help=f"a product token or a full User-Agent (default: {DEFAULT_USER_AGENT})",
    )
    check.add_argument("--profile", default="google", help="google (default), rfc9309, legacy")
    check.add_argument(
        "--timeout", default="10", help="seconds for each robots.txt (default: 10; at most 86400)"
    )
    check.add_argument(
        "--purpose", help="REP_PURPOSE: search (default), ai-train, ai-input, comma-separated"
    )
    check.add_argument(
        "--no-robotstxt-obey",
        dest="robotstxt_obey",
        action="store_false",
        help="as ROBOTSTXT_OBEY = False: only the opt-outs of a --purpose given are checked",
    )
    check.add_argument("--purpose-agents", default="", help="REP_PURPOSE_AGENTS, comma-separated")
    check.add_argument("--rsl-licenses", default="", help="REP_RSL_LICENSES, comma-separated")
    check.add_argument(
        "--overrides",
        metavar="JSON",
        help='REP_OVERRIDES as JSON: [{"host": …, "reason": …, "expires": …}]',
    )
    check.add_argument(
        "--page",
        action="store_true",
        help="also fetch each URL robots.txt allows: its directives, and with --purpose its "
        "own usage signals and the page's verdict, as scrapy rep-robots prints them",
    )
    check.add_argument(
        "--unreachable-action",
        choices=("drop", "allow"),
        default="drop",
        help="REP_UNREACHABLE_ACTION (default: drop)",
    )


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """``python -m scrapy_rep check …`` as typed: ``argv`` is what follows
    ``python -m scrapy_rep`` and starts with ``check`` (``None``: ``sys.argv[1:]``).
    Returns the exit status (see :data:`CHECK_EXIT_CODES`)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] != ["check"]:
        print("scrapy_rep: error: give the command: check", file=sys.stderr)
        return EXIT_USAGE
    return run(arguments[1:], out)


def run(argv: Sequence[str], out: TextIO | None = None) -> int:
    """The checker on ``argv``, the arguments after ``check``; the exit status."""
    out = out if out is not None else sys.stdout
    try:
        options = parser().parse_args(list(argv))
    except SystemExit as exit_:
        return EXIT_ALLOWED if exit_.code == 0 else EXIT_USAGE
    problem = _usage_problem(options)
    if problem:
        print(f"scrapy_rep: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return _check(options, out)
    except OSError as error:
        unreadable = unreadable_file(options.robots, error.strerror or str(error))
        print(f"scrapy_rep: error: {unreadable}", file=sys.stderr)
        return EXIT_USAGE


#: ``check`` without a URL to check.
NO_URL: Final = (
    "give a robots.txt (file or URL, or --example) and at least one URL, "
    "or one URL alone (its own robots.txt is fetched)"
)


def _usage_problem(options: argparse.Namespace) -> str:
    if options.profile not in PROFILES:
        return f"--profile must be one of {', '.join(PROFILES)}, got {options.profile!r}"
    try:
        options.timeout = parse_timeout(options.timeout)
        _read_arguments(options)
    except InputError as error:
        return str(error)
    settings = {  # the options as the crawl's settings, read and built as the crawl does
        "REP_PURPOSE": options.purpose,
        "REP_PURPOSE_AGENTS": options.purpose_agents,
        "REP_RSL_LICENSES": options.rsl_licenses,
        "REP_OVERRIDES": options.overrides,
    }
    try:  # an option not given is a setting left out (an empty one is refused)
        config = RepConfig.from_settings({k: v for k, v in settings.items() if v is not None})
    except RepSettingError as error:
        return _as_option(str(error))
    options.config = config
    options.request_rules = request_rules(config, options.purpose is not None)
    options.obey = obey_of(options.robotstxt_obey, options.purpose is not None)
    return ""


def _as_option(message: str) -> str:
    """A settings reader's message (``REP_PURPOSE_AGENTS: …``) as the option's
    (``--purpose-agents: …``): only the name before the first colon is rewritten, never
    the value quoted after."""
    name, colon, rest = message.partition(":")
    return f"--{name.removeprefix('REP_').lower().replace('_', '-')}{colon}{rest}"


def _read_arguments(options: argparse.Namespace) -> None:
    """The robots.txt and the URLs to check, read by :mod:`scrapy_rep.checker.inputs`
    as ``scrapy rep-robots`` reads its own: ``options.urls`` becomes every URL to check (a
    URL alone is checked against its own origin's robots.txt, as ``scrapy rep-robots URL``
    does); ``options.robots`` the robots.txt file or URL (``None`` with ``--example``).
    A path is checked only against a local file. Raises :class:`InputError`."""
    # against a local file, a path is checked, unless each page is fetched
    urls, paths = options.urls, Paths.PAGES_FETCHED if options.page else Paths.ACCEPTED
    if options.example:  # the bundled file: every argument is a URL or a path
        urls = ([options.robots] if options.robots else []) + urls
        options.robots = None
    elif options.robots and first_is_url(
        options.robots, alone=not urls, is_file=os.path.exists(options.robots)
    ):
        paths = Paths.NEED_A_FILE
        parse_url(options.robots, paths)
        urls = urls or [options.robots]
    if not urls:
        raise InputError(NO_URL)
    options.urls = [parse_url(url, paths) for url in urls]


def _check(options: argparse.Namespace, out: TextIO) -> int:
    """Print each robots.txt's block, laid out as ``scrapy rep-robots`` lays out its own
    (:func:`~scrapy_rep.checker.report.origin_head`); the exit status (the worst over the
    sources)."""
    agent, profile = options.user_agent, options.profile
    sources_read = sources(options)  # an unreadable file fails here, before any output
    print(user_agent_line(agent, profile), file=out)
    code = EXIT_ALLOWED
    pages = _pages(options) if options.page else None
    for source in sources_read:
        head = origin_head(source.title, source.notes, source.rules, agent, source.tdm,
                           source.licenses)  # fmt: skip
        now = time.time()  # an override covers a URL only before it expires
        lines, all_allowed = report(
            source.rules, source.urls, agent, options.request_rules, source.tdm,
            source.licenses, profile, options.obey, source.held, now,
        )  # fmt: skip
        print("\n".join(head), file=out)
        tdm_file = None if source.tdm is None else source.tdm.file
        for url, line in zip(source.urls, lines, strict=True):
            print(f"  {line}", file=out)
            if pages is not None and robots_allows(
                source.rules, url, agent, options.obey, options.request_rules, now
            ):
                said, page_code = pages.lines(url, agent, source.rules, tdm_file, source.licenses)
                print("\n".join(said), file=out)
                code = max(code, page_code)
        tdm_unreachable = source.tdm is not None and source.tdm.unreachable
        if source.unreachable or tdm_unreachable or source.licenses.unreachable:
            code = EXIT_UNREACHABLE
        elif not all_allowed:
            code = max(code, EXIT_DISALLOWED)
    return code


def _pages(options: argparse.Namespace) -> PageCheck:
    """What ``--page`` prints under a URL robots.txt allows: the page ``scrapy rep-robots
    --page`` prints, with the crawl's decision after the fetch (its Scrapy side, imported
    only then)."""
    from scrapy_rep.crawl.commands.pagefetch import PageCheck

    rules = options.request_rules
    policy = rules.policy if options.purpose is not None else None
    return PageCheck(options.config, policy, rules.rsl_owned, (), options.profile, options.timeout)
