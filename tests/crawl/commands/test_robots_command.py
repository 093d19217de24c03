"""``scrapy rep-robots``' options as the crawl's settings, a pure table (the tools' crawls
with those settings: tests/integration/test_same_verdict.py; ``check``'s table:
tests/test_checker_tool.py): Scrapy's parser keeps them as given, the checker's own reads them."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from scrapy.settings import Settings

from rep_engine.commandline import SCRAPY, parser, settings_of
from scrapy_rep.checker import TOOL
from scrapy_rep.crawl.commands.robots_command import RobotsCommand

#: Each option that is a crawl setting: the command line, and the settings it sets.
OPTION_TABLE: list[tuple[list[str], dict[str, Any]]] = [
    (["--user-agent", "OtherBot/2.0"],
     {"USER_AGENT": "OtherBot/2.0", "ROBOTSTXT_USER_AGENT": "OtherBot/2.0"}),
    (["-A", "OtherBot"], {"USER_AGENT": "OtherBot", "ROBOTSTXT_USER_AGENT": "OtherBot"}),
    (["--rep-profile", "legacy"], {"REP_PROFILE": "legacy"}),
    (["--purpose", "ai-train,search"], {"REP_PURPOSE": "ai-train,search"}),
    ([], {}),
]  # fmt: skip
#: The command's options that are not settings: read by the command itself.
NOT_SETTINGS = ["--page", "--timeout", "5", "--robots-file", "robots.txt"]
#: Scrapy's own options, which every command has (``-s``: any setting, read by Scrapy).
SCRAPYS = {"--help", "--logfile", "--loglevel", "--nolog", "--profile", "--pidfile", "--set",
           "--pdb"}  # fmt: skip


def scrapys_parser() -> argparse.ArgumentParser:
    """The command's parser, as ``scrapy rep-robots`` builds it."""
    command = RobotsCommand()
    command.settings = Settings()
    scrapys = argparse.ArgumentParser(conflict_handler="resolve")
    command.add_options(scrapys)
    return scrapys


def robots_settings(argv: list[str]) -> dict[str, Any]:
    """The crawl settings of ``scrapy rep-robots ARGV``: its options kept by Scrapy's
    parser, read by the checker's."""
    opts, args = scrapys_parser().parse_known_args(argv)
    options = parser(TOOL, "scrapy rep-robots", SCRAPY).parse_intermixed_args([*args, *opts.passed])
    return settings_of(TOOL, options, SCRAPY)


@pytest.mark.parametrize(
    ("argv", "settings"),
    OPTION_TABLE,
    ids=[" ".join(argv) or "no option" for argv, _ in OPTION_TABLE],
)
def test_each_option_is_its_crawl_setting(argv: list[str], settings: dict[str, Any]) -> None:
    assert robots_settings([*argv, "https://e.com/"]) == settings
    assert robots_settings([*argv, *NOT_SETTINGS, "https://e.com/"]) == settings  # others: none


def test_the_table_has_every_option_of_the_command() -> None:
    named = {argv[0] for argv, _ in OPTION_TABLE if argv} | {"--page", "--timeout",
                                                              "--robots-file"}  # fmt: skip
    actions = [set(action.option_strings) for action in scrapys_parser()._actions]
    assert [strings for strings in actions if strings and not strings & (named | SCRAPYS)] == []
    assert named <= set().union(*actions)
