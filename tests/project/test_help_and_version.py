"""What the tools say about themselves: ``--version`` from the package metadata, and
help texts that match each tool (its own options, the exit-code table as a table).

The help texts and ``--version`` are read in this process (:mod:`tests.support.tools`:
``python -m scrapy_rep``'s ``main``, Scrapy's own ``scrapy.cmdline.execute``, in a
project's folder too: :func:`tests.support.scrapyproject.project_settings`); a process of
its own for what only a process shows: the error line first on the standard error of
``scrapy rep-robots -s …`` in a project, no log before it (the entry points:
tests/integration/test_check.py and test_commands.py; ``scrapy rep-recheck``:
tests/integration/test_recheck.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version

import pytest

import scrapy_rep
from tests.support.scrapyproject import project_settings
from tests.support.tools import main_streams, scrapy_streams


def test_version_comes_from_the_package_metadata() -> None:
    assert scrapy_rep.__version__ == version("scrapy_rep")
    code, stdout, stderr = main_streams("--version")
    assert code == 0, stderr
    assert stdout == f"scrapy_rep {version('scrapy_rep')}\n"


def exit_code_rows(text: str) -> list[str]:
    """The table's rows: a code at the start of its own line."""
    return re.findall(r"^  ([0-3])  \S", text, re.MULTILINE)


def test_scrapy_robots_help_keeps_the_exit_code_table_and_names_the_other_tool() -> None:
    code, stdout, stderr = scrapy_streams("rep-robots", "-h")
    assert code == 0, stderr
    assert exit_code_rows(stdout) == ["0", "1", "2", "3"]
    assert "exit codes (python -m scrapy_rep check uses the same):" in stdout
    assert "`scrapy rep-robots`" not in stdout  # it does not point at itself
    assert "--purpose" in stdout and "--page" in stdout  # its own options


def test_check_help_lists_only_the_options_check_has() -> None:
    from rep_engine.commandline import parser
    from scrapy_rep.checker import TOOL

    check = parser(TOOL, "python -m scrapy_rep check")
    own = {option for action in check._actions for option in action.option_strings}
    assert "--purpose" in own and "--page" in own
    code, stdout, stderr = main_streams("check", "--help")
    assert code == 0, stderr
    assert exit_code_rows(stdout) == ["0", "1", "2", "3"]
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", stdout))
    assert named <= own | {"--version", "--help"}, named - own
    assert "exit codes (scrapy rep-robots uses the same):" in stdout


def test_top_level_help_describes_both_commands() -> None:
    """``python -m scrapy_rep --help`` names both tools and where their options are."""
    code, stdout, stderr = main_streams("--help")
    assert code == 0, stderr
    assert "audit trail" in stdout.split("commands:")[0]
    assert "check --help" in stdout and "audit --help" in stdout


def test_top_level_help_lists_every_command() -> None:
    """Every command of both tools has a row of its own: ``check`` and each ``audit``
    command (``repair`` and ``export`` were left out)."""
    from rep_audit.cliargs import COMMANDS

    code, stdout, stderr = main_streams("--help")
    assert code == 0, stderr
    # (an audit command's name may have a hyphen: check-bundle)
    rows = re.findall(r"^  (check|recheck|audit [\w-]+|key-directory) ", stdout, re.MULTILINE)
    assert rows == [
        "check", "recheck", *(f"audit {command}" for command in COMMANDS), "key-directory"
    ]  # fmt: skip
    assert {"repair", "export"} <= set(COMMANDS)


def test_a_command_line_without_a_known_command_is_a_usage_error() -> None:
    for args, said in (([], "give a command"), (["chek"], "unknown command 'chek'")):
        code, _, stderr = main_streams(*args)
        assert code == 2
        assert f"scrapy_rep: error: {said}" in stderr, stderr


#: Every help text of both tools: its command line.
HELPS = [
    ["-m", "scrapy_rep", "--help"],
    ["-m", "scrapy_rep", "check", "--help"],
    ["-m", "scrapy_rep", "audit", "--help"],
    ["-m", "scrapy_rep", "recheck", "--help"],
    ["-m", "scrapy_rep", "key-directory", "--help"],
    *(["-m", "scrapy_rep", "audit", command, "--help"] for command in
      ("summary", "verify", "show", "report", "repair", "export", "bundle", "check-bundle")),
    ["-m", "scrapy", "rep-robots", "-h"],
    ["-m", "scrapy", "rep-audit", "-h"],
    ["-m", "scrapy", "rep-recheck", "-h"],
]  # fmt: skip


def streams(args: list[str]) -> tuple[int, str, str]:
    """``python ARGS`` (``-m scrapy_rep …`` or ``-m scrapy …``) in this process."""
    assert args[0] == "-m" and args[1] in ("scrapy_rep", "scrapy"), args
    run_it = main_streams if args[1] == "scrapy_rep" else scrapy_streams
    return run_it(*args[2:])


@pytest.mark.parametrize("args", HELPS, ids=[" ".join(args[1:]) for args in HELPS])
def test_every_help_fits_80_columns(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """In an 80-column terminal no line of any ``--help`` runs past the edge: argparse
    wraps what it lays out, and what we lay out ourselves (descriptions, the exit-code
    tables, the commands) is wrapped to 80 too."""
    monkeypatch.setenv("COLUMNS", "80")  # argparse reads it as it formats the help
    code, stdout, stderr = streams(args)
    assert code == 0, stderr
    assert stdout.count("\n") > 5
    wide = [line for line in stdout.splitlines() if len(line) > 80]
    assert wide == []


def test_the_commands_table_keeps_its_texts_readable() -> None:
    """``python -m scrapy_rep --help`` wrapped every command's text into a 7-character
    column after its longest synopsis (``audit list TRAIL... [--fate F] …``): a longer
    synopsis now has a line of its own, each text whole in a column of its own."""
    from rep_audit.cliargs import HELPS
    from rep_engine.commandline import TEXT_COLUMN
    from scrapy_rep.__main__ import commands_table

    table = commands_table().splitlines()[1:]
    # a text's lines: two spaces before its column (a name alone runs past it)
    texts = [line[TEXT_COLUMN:] for line in table if line[TEXT_COLUMN - 2 : TEXT_COLUMN] == "  "]
    joined = " ".join(texts)
    assert all(text in joined for text in HELPS.values()), table
    assert all(len(line) <= 80 for line in table), table


def test_every_audit_command_is_in_scrapy_rep_audit_help() -> None:
    from rep_audit.cliargs import COMMANDS
    from scrapy_rep.crawl.commands.audit_command import AuditCommand

    about = AuditCommand().long_desc()
    assert [c for c in COMMANDS if not re.search(rf"^  {c} ", about, re.MULTILINE)] == []


def test_scrapy_audit_help_keeps_the_exit_code_table_and_names_the_other_tool() -> None:
    from pathlib import Path

    project = Path(__file__).resolve().parents[2] / "example_project"
    with project_settings(project):  # in the project's folder
        code, stdout, stderr = scrapy_streams("rep-audit", "-h")
    assert code == 0, stderr
    assert exit_code_rows(stdout) == ["0", "1", "2", "3"]
    assert "exit codes (python -m scrapy_rep audit uses the same):" in stdout
    assert "`scrapy rep-audit`" not in stdout  # it does not point at itself
    # an option of two commands, listed once naming both (argparse kept the last one)
    assert re.search(r"^  --workers +verify, report: several trails", stdout, re.M), stdout
    assert stdout.count("--separate ") == 1


def test_check_synopsis_in_the_docs_names_every_option() -> None:
    """docs/cli.md's ``check`` synopsis lists every option ``check --help`` lists."""
    from pathlib import Path

    from rep_engine.commandline import parser
    from scrapy_rep.checker import TOOL

    check = parser(TOOL, "python -m scrapy_rep check")
    options = {o for a in check._actions for o in a.option_strings if o.startswith("--")}
    docs = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    section = docs.split("## `python -m scrapy_rep check`")[1].split("\n## ")[0]
    synopsis = section.split("```sh")[1].split("```")[0]
    missing = options - {"--help"} - set(re.findall(r"--[a-z][a-z-]*", synopsis))
    assert not missing


def test_every_tool_prefixes_its_errors_the_same_way(tmp_path: object) -> None:
    """One prefix for scrapy_rep's own error lines, as ``scrapy crawl`` prints a wrong
    setting (tests/integration/test_setting_errors.py): ``scrapy_rep: error: …``. In
    this process; ``scrapy rep-robots`` also in a project, in a process of its own (its
    standard error starts with the line: no log before it)."""
    from pathlib import Path

    project = Path(__file__).resolve().parents[2] / "example_project"
    runs = [
        ["-m", "scrapy_rep", "check", "/no/such/robots.txt", "https://e.com/"],
        ["-m", "scrapy_rep", "audit", "verify", "/no/such/trail.jsonl"],
        ["-m", "scrapy", "rep-robots", "-s", "REP_PROFILE=gogle", "https://e.com/"],
        ["-m", "scrapy", "rep-audit", "verify", "/no/such/trail.jsonl"],
    ]
    for args in runs:
        code, _, stderr = streams(args)
        assert code == 2, (args, stderr)
        assert stderr.startswith("scrapy_rep: error: "), (args, stderr)
    result = subprocess.run(
        [sys.executable, *runs[2]],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=project,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("scrapy_rep: error: "), result.stderr
