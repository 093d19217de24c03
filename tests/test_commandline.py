"""The tools' command lines written once (rep-engine/rep_engine/commandline.py): a row's
arguments read at each door, its settings, its exit table, and the door that runs it."""

from __future__ import annotations

import argparse
import io
from contextlib import redirect_stderr, redirect_stdout
from typing import TextIO

import pytest

from rep_engine.commandline import (
    EACH_SETTING,
    EXIT_USAGE,
    PYTHON,
    SCRAPY,
    Door,
    Tool,
    UsageError,
    option_of,
    parser,
    run,
    settings_of,
)

#: What :func:`ran` was handed, for the test to read.
HANDED: list[tuple[argparse.Namespace, Door]] = []


def ran(options: argparse.Namespace, out: TextIO, door: Door) -> int:
    """A row's runner: what it was handed kept, its exit status the options' ``--status``."""
    HANDED.append((options, door))
    print("ran", file=out)
    return int(options.status)


ROW = Tool(
    name="demo",
    synopsis="THING...",
    summary="a tool of the tests",
    about="A tool whose doors the tests read.",
    exits={0: "fine", EXIT_USAGE: "a command line it cannot use"},
    arguments=(
        ("things", {"metavar": "THING", "nargs": "*", "help": "the things"}),
        ("--status", {"default": "0", "help": "the exit status"}),
        ("--agent", "-A", {"default": "Bot", "setting": "USER_AGENT", "door": PYTHON,
                           "help": "the agent"}),
        ("--agent", "-A", {"setting": ("USER_AGENT", "ROBOTSTXT_USER_AGENT"), "door": SCRAPY,
                           "help": "the agent, both names"}),
        ("--rep-profile", {"setting": "REP_PROFILE", "door": SCRAPY, "help": "the profile"}),
        ("-s", "--set", {"action": "append", "default": [], "setting": EACH_SETTING,
                         "door": PYTHON, "help": "a setting"}),
    ),
    runner=f"{__name__}:ran",
    scrapy="rep-demo",
)  # fmt: skip


def test_each_door_reads_its_own_arguments_and_their_settings() -> None:
    python = parser(ROW, "python -m demo").parse_intermixed_args(["-A", "X", "a", "-s", "N=1"])
    assert python.things == ["a"]
    assert settings_of(ROW, python) == {"USER_AGENT": "X", "N": "1"}
    scrapy = parser(ROW, "scrapy rep-demo", SCRAPY).parse_intermixed_args(["-A", "X", "a"])
    assert settings_of(ROW, scrapy, SCRAPY) == {"USER_AGENT": "X", "ROBOTSTXT_USER_AGENT": "X"}
    with pytest.raises(SystemExit), redirect_stderr(io.StringIO()):
        parser(ROW, "scrapy rep-demo", SCRAPY).parse_args(["-s", "N=1"])  # not that door's


def test_a_default_sets_its_setting_and_a_pair_wins_over_an_option() -> None:
    options = parser(ROW, "python -m demo").parse_args(["-s", "USER_AGENT=Y", "--set", " M =2"])
    assert settings_of(ROW, options) == {"USER_AGENT": "Y", "M": "2"}
    assert settings_of(ROW, parser(ROW, "python -m demo").parse_args([])) == {"USER_AGENT": "Bot"}


@pytest.mark.parametrize("pair", ["N", "=1", " =1"])
def test_a_pair_without_a_name_or_an_equals_sign_is_one_line(pair: str) -> None:
    options = parser(ROW, "python -m demo").parse_args(["-s", pair])
    with pytest.raises(UsageError, match=rf"^-s: expected NAME=VALUE, got {pair!r}$"):
        settings_of(ROW, options)


def test_the_option_that_set_a_setting_is_named_only_if_given() -> None:
    scrapy = parser(ROW, "scrapy rep-demo", SCRAPY)
    given = scrapy.parse_args(["--rep-profile", "x", "-A", "Y"])
    assert option_of(ROW, given, SCRAPY, "REP_PROFILE") == "--rep-profile"
    assert option_of(ROW, given, SCRAPY, "ROBOTSTXT_USER_AGENT") == "--agent"
    assert option_of(ROW, scrapy.parse_args([]), SCRAPY, "REP_PROFILE") == ""


def test_the_door_runs_the_row_or_says_why_not() -> None:
    HANDED.clear()
    out, err = io.StringIO(), io.StringIO()
    door = Door("python -m demo")
    with redirect_stderr(err):
        assert run(ROW, ["a", "--status", "1", "b"], out, door) == 1  # options among things
        assert run(ROW, ["--nope"], out, door) == EXIT_USAGE
    ((options, handed),) = HANDED
    assert options.things == ["a", "b"] and handed is door and out.getvalue() == "ran\n"
    assert "python -m demo: error: unrecognized arguments: --nope" in err.getvalue()
    assert door.kind == PYTHON and Door("scrapy rep-demo", project={}).kind == SCRAPY


def test_the_help_names_the_other_door_in_its_exit_table() -> None:
    said = io.StringIO()
    with redirect_stdout(said):
        assert run(ROW, ["--help"], None, Door("python -m demo")) == 0
    assert (
        "exit codes (scrapy rep-demo uses the same):\n  0  fine\n  2  a command" in said.getvalue()
    )
    scrapy = parser(ROW, "scrapy rep-demo", SCRAPY).format_help()
    assert "exit codes (python -m scrapy_rep demo uses the same):" in scrapy


def test_a_tool_of_commands_reads_each_commands_arguments() -> None:
    command = Tool("one", "FILE", "the first", "the first", {}, (("file", {"help": "a file"}),
                   ("--x", {"action": "store_true", "help": "x"})))  # fmt: skip
    row = Tool("many", "COMMAND", "many", "Many commands.", {0: "done"}, commands=(command,))
    options = parser(row, "python -m many").parse_args(["one", "f", "--x"])
    assert (options.command, options.file, options.x) == ("one", "f", True)
    assert "exit codes:\n  0  done" in parser(row, "python -m many").format_help()
