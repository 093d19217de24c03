"""Each tool's Scrapy command made from its row (scrapy_rep/crawl/commands/__init__.py:
``ToolCommand``): its options are the row's, kept as given for the tool's own parser, and
it runs as ``python -m scrapy_rep`` runs the tool (the help texts:
tests/project/test_help_and_version.py)."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
from scrapy.cmdline import execute
from scrapy.settings import Settings

from rep_engine.commandline import SCRAPY, rows_of
from scrapy_rep.__main__ import main
from scrapy_rep.crawl.commands import ToolCommand
from scrapy_rep.crawl.commands.audit_command import AuditCommand
from scrapy_rep.crawl.commands.recheck_command import RecheckCommand
from scrapy_rep.crawl.commands.robots_command import RobotsCommand
from tests.support.signatures import operator_key

#: Scrapy's own options, which every command has.
SCRAPYS_OWN = {"-h", "--help", "--logfile", "-L", "--loglevel", "--nolog", "--profile",
               "--pidfile", "-s", "--set", "--pdb"}  # fmt: skip


def scrapy_status(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``scrapy ARGV`` as ``scrapy`` runs it, without a project: (status, stdout, stderr)."""
    with pytest.raises(SystemExit) as exit_:
        execute(["scrapy", *argv], settings=Settings())
    captured = capsys.readouterr()
    return int(exit_.value.code or 0), captured.out, captured.err


@pytest.mark.parametrize("command", [RobotsCommand, AuditCommand, RecheckCommand])
def test_each_command_has_its_rows_options_and_no_other(command: type[ToolCommand]) -> None:
    tool = command.tool
    rows = {flag for one in tool.commands or (tool,) for flags, _ in
            rows_of(one.arguments, SCRAPY) for flag in flags if flag.startswith("-")}  # fmt: skip
    made = command()
    made.settings = Settings()
    parser = argparse.ArgumentParser(conflict_handler="resolve")
    made.add_options(parser)
    options = {flag for action in parser._actions for flag in action.option_strings}
    assert options - SCRAPYS_OWN == rows


def test_an_option_two_commands_take_in_two_shapes_is_passed_as_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--witness`` is a switch of ``audit vkey`` and takes a value in ``check-bundle``:
    ``scrapy rep-audit vkey KEY --name N --witness`` was refused (Scrapy's parser wanted a
    value after it); it prints what ``python -m scrapy_rep audit`` prints."""
    operator_key(tmp_path / "key.pem")
    argv = ["vkey", str(tmp_path / "key.pem"), "--name", "witness.example/w1", "--witness"]
    status, said, err = scrapy_status(["rep-audit", *argv], capsys)
    assert status == 0, err
    out = io.StringIO()
    assert main(["audit", *argv], out) == 0
    assert said == out.getvalue() and said.startswith("witness.example/w1+")


def test_rep_robots_refuses_a_misspelt_setting_against_a_local_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The crawl stops at a ``REP_*`` name it does not know: so does ``scrapy rep-robots``
    against a local robots.txt, which it read past before, as ``check`` does."""
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\nDisallow: /private\n")
    argv = ["rep-robots", "-s", "REP_PURPOSES=ai-train", "--robots-file", str(robots), "/a"]
    status, said, err = scrapy_status(argv, capsys)
    assert (status, said) == (2, "")
    assert err.startswith("scrapy_rep: error: REP_PURPOSES: unknown setting, did you mean ")


@pytest.mark.parametrize("argv", [[], ["nosuch"]], ids=["no command", "an unknown one"])
def test_rep_audit_without_a_command_it_has_says_so_in_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """As every Scrapy command of the add-on says a bad input: one line, exit 2 (not
    argparse's usage, which ``python -m scrapy_rep audit`` prints)."""
    status, said, err = scrapy_status(["rep-audit", *argv], capsys)
    assert (status, said) == (2, "")
    assert err == (
        "scrapy_rep: error: give a command: summary, verify, show, list, report, repair, "
        "export, bundle, check-bundle, witness, cosign, vkey\n"
    )


@pytest.mark.parametrize("command", ["rep-robots", "rep-audit", "rep-recheck"])
def test_an_options_help_line_ending_in_a_colon_is_not_a_heading(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scrapy's help title-cases and underlines each part that ends in a colon: an
    option's help wrapped after ``(default:`` or ``unknown:`` was turned into a heading
    (``Comma-Separated (Default`` over a line of ``=``). Only the sections are headings."""
    status, said, err = scrapy_status([command, "-h"], capsys)
    assert status == 0, err
    lines = said.splitlines()
    underlined = [lines[at - 1] for at, line in enumerate(lines) if set(line) in ({"="}, {"-"})]
    assert underlined and all(not line.startswith(" ") for line in underlined), underlined
    if command == "rep-recheck":
        assert "(default: the project's)" in " ".join(said.split())
