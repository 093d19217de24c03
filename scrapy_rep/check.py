"""The robots.txt checker: ``python -m scrapy_rep check [ROBOTS_FILE] URL…``.

Prints, for each URL, whether the crawler may fetch it and the robots.txt line (or the
signal) that decided it, like a robots.txt tester. Its options are the crawl's settings
(``--purpose`` is ``REP_PURPOSE``…; ``-s NAME=VALUE`` sets any other). Every URL given is
checked: against a local robots.txt file (or the bundled example) without fetching
anything, unless ``--page``; otherwise by the tools' crawl, which fetches each origin's
robots.txt (and each page with ``--page``) as a crawl with those settings would, through
Scrapy's own download stack. That crawl is not imported here: ``python -m scrapy_rep``
(its ``__main__``) hands :func:`run` the runner
(:func:`scrapy_rep.crawl.commands.toolcrawl.run_tools`), so ``check`` against a file
loads no Scrapy. Once its options are read, :func:`scrapy_rep.checker.check` does the rest, as
for ``scrapy rep-robots`` (the same message for the same bad input).
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, Final, TextIO

from rep_engine.robotstxt.profiles import PROFILES
from rep_engine.settings import RepConfig
from rep_engine.settings.names import check_names, known_names
from rep_engine.settings.readers import RepSettingError, read_bool
from rep_engine.trail.terminal import HELP_WIDTH
from scrapy_rep.checker import (
    CHECK_EXIT_CODES,
    DEFAULT_USER_AGENT,
    EXIT_ALLOWED,
    EXIT_USAGE,
    InputError,
    Runner,
    ToolRequest,
    check,
    first_is_url,
    usage_error,
)

#: What ``check`` does, as its ``--help`` and ``python -m scrapy_rep --help`` say it.
SUMMARY: Final = "check URLs against a robots.txt"

#: Each option that is a crawl setting, and the setting.
OPTION_SETTINGS: Final = {
    "user_agent": "USER_AGENT",
    "profile": "REP_PROFILE",
    "purpose": "REP_PURPOSE",
    "purpose_agents": "REP_PURPOSE_AGENTS",
    "rsl_licenses": "REP_RSL_LICENSES",
    "overrides": "REP_OVERRIDES",
    "unreachable_action": "REP_UNREACHABLE_ACTION",
}


def parser(prog: str = "python -m scrapy_rep check") -> argparse.ArgumentParser:
    """The ``check`` command line (``python -m scrapy_rep`` dispatches to it)."""
    description = textwrap.fill(
        "Check URLs against a robots.txt: each URL's own origin's, fetched (and with --page "
        "the page too) by a crawl with the options' settings, or a local file's.",
        width=HELP_WIDTH,
    )
    check = argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog=CHECK_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_inputs(check)
    _add_policy(check)
    _add_settings(check)
    check.add_argument(
        "--page",
        action="store_true",
        help="also fetch each URL robots.txt allows, as the crawl would: its directives, "
        "with --purpose its usage signals, and what the crawl does with its items",
    )
    return check


def _add_inputs(check: argparse.ArgumentParser) -> None:
    """The options naming what is checked: the robots.txt and the URLs."""
    check.add_argument(
        "robots",
        metavar="ROBOTS_FILE_OR_URL",
        nargs="?",
        help="a robots.txt file; or the first URL to check (http or https)",
    )
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


def _add_policy(check: argparse.ArgumentParser) -> None:
    """The options naming who checks and for what: agent, profile, timeout, purpose."""
    check.add_argument(
        "--user-agent",
        "-A",
        default=DEFAULT_USER_AGENT,
        help=f"USER_AGENT: a product token or a full User-Agent (default: {DEFAULT_USER_AGENT})",
    )
    check.add_argument("--profile", help="REP_PROFILE: google (default), rfc9309, legacy")
    check.add_argument(
        "--timeout", default="10", help="seconds for each download (default: 10; at most 86400)"
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


def _add_settings(check: argparse.ArgumentParser) -> None:
    """The options that set other settings of the crawl."""
    check.add_argument("--purpose-agents", help="REP_PURPOSE_AGENTS, comma-separated")
    check.add_argument("--rsl-licenses", help="REP_RSL_LICENSES, comma-separated")
    check.add_argument(
        "--overrides",
        metavar="JSON",
        help='REP_OVERRIDES as JSON: [{"host": …, "reason": …, "expires": …}]',
    )
    check.add_argument(
        "--unreachable-action", choices=("drop", "allow"), help="REP_UNREACHABLE_ACTION"
    )
    check.add_argument(
        "-s",
        "--set",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="any other setting of the crawl (REP_DIRECTIVE_TOKENS=mybot, "
        "REP_META_IN_NOSCRIPT=False, DOWNLOAD_MAXSIZE=…), as scrapy's -s",
    )


def run(argv: Sequence[str], out: TextIO | None = None, crawl: Runner | None = None) -> int:
    """The checker on ``argv``, the arguments after ``check``; the exit status.
    ``crawl``: what runs the tools' crawl (``python -m scrapy_rep`` hands it; ``None``:
    only a local robots.txt can be checked, without ``--page``)."""
    out = out if out is not None else sys.stdout
    try:
        options = parser().parse_args(list(argv))
    except SystemExit as exit_:
        return EXIT_ALLOWED if exit_.code == 0 else EXIT_USAGE
    try:
        settings = _settings(options)
        file, urls = _read_arguments(options)
        _validate(settings)
    except InputError as error:
        return usage_error(error)
    except RepSettingError as error:
        return usage_error(_as_option(str(error)))
    purpose_set = "REP_PURPOSE" in settings
    asked = ToolRequest((), settings, options.page, 0.0, purpose_set)
    obey = read_bool(settings, "ROBOTSTXT_OBEY", True)
    return check(
        urls,
        file,
        settings,
        crawl or _no_crawl,
        out,
        asked=asked,
        timeout=options.timeout,
        obey=obey,
        example=options.example,
    )


def _no_crawl(request: ToolRequest, out: TextIO) -> int:
    """``check`` run without the tools' crawl (not as ``python -m scrapy_rep check``)."""
    return usage_error("run it as python -m scrapy_rep check")


def _settings(options: argparse.Namespace) -> dict[str, Any]:
    """The options as the crawl's settings (:func:`_validate` checks them); the profile
    checked first (:class:`InputError`)."""
    settings: dict[str, Any] = {
        setting: getattr(options, option)
        for option, setting in OPTION_SETTINGS.items()
        if getattr(options, option) is not None
    }
    if not options.robotstxt_obey:
        settings["ROBOTSTXT_OBEY"] = False
    for pair in options.set:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise InputError(f"-s: expected NAME=VALUE, got {pair!r}")
        settings[name.strip()] = value
    profile = settings.get("REP_PROFILE", "google")
    if profile not in PROFILES:
        raise InputError(f"--profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    return settings


def _validate(settings: dict[str, Any]) -> None:
    """The settings read and checked as the crawl reads them: ``RepSettingError`` naming
    the setting (:func:`_as_option`: the option, for one that has one)."""
    check_names(settings, known_names(), RepConfig.from_settings(settings).unknown_settings)
    read_bool(settings, "ROBOTSTXT_OBEY", True)


def _as_option(message: str) -> str:
    """A settings reader's message (``REP_PURPOSE_AGENTS: …``) as the option's
    (``--purpose-agents: …``), for a setting that has one: only the name before the
    first colon is rewritten, never the value quoted after."""
    name, colon, rest = message.partition(":")
    options = {setting: option for option, setting in OPTION_SETTINGS.items()}
    if name not in options:
        return message
    return f"--{options[name].replace('_', '-')}{colon}{rest}"


def _read_arguments(options: argparse.Namespace) -> tuple[str | None, list[str]]:
    """The local robots.txt file (``None``: each URL's own origin's is fetched, or the
    bundled one with ``--example``) and every URL to check, as given (:func:`check` reads
    them). Raises :class:`InputError` when no URL is given."""
    urls, first = options.urls, options.robots
    file = None
    if options.example:
        urls = ([first] if first else []) + urls
    elif first and first_is_url(first, alone=not urls, is_file=os.path.exists(first)):
        urls = [first, *urls]
    else:
        file = first
    if not urls:
        raise InputError(
            "give at least one URL (after a robots.txt file, or with --example, to check "
            "against a local file)"
        )
    return file, urls
