"""What the tools say about themselves: ``--version`` from the package metadata, and
help texts that match each tool (its own options, the exit-code table as a table)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version

import scrapy_rep
from scrapy_rep.check import EXIT_CODES


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_version_comes_from_the_package_metadata() -> None:
    assert scrapy_rep.__version__ == version("scrapy_rep")
    result = run("-m", "scrapy_rep", "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"scrapy_rep {version('scrapy_rep')}\n"


def exit_code_rows(text: str) -> list[str]:
    """The table's rows: a code at the start of its own line."""
    return re.findall(r"^  ([0-3])  \S", text, re.MULTILINE)


def test_scrapy_robots_help_keeps_the_exit_code_table_and_names_the_other_tool() -> None:
    result = run("-m", "scrapy", "robots", "-h")
    assert result.returncode == 0, result.stderr
    assert exit_code_rows(result.stdout) == ["0", "1", "2", "3"]
    assert "exit codes (python -m scrapy_rep check uses the same):" in result.stdout
    assert "`scrapy robots`" not in result.stdout  # it does not point at itself
    assert "--purpose" in result.stdout and "--page" in result.stdout  # its own options
    assert max(len(line) for line in EXIT_CODES.splitlines()) <= 80


def test_check_help_lists_only_the_options_check_has() -> None:
    from scrapy_rep.check import _parser

    check = _parser()._subparsers._group_actions[0].choices["check"]  # type: ignore[union-attr]
    own = {option for action in check._actions for option in action.option_strings}
    assert "--purpose" in own and "--page" not in own
    for args in (("check", "--help"), ("--help",)):
        result = run("-m", "scrapy_rep", *args)
        assert result.returncode == 0, result.stderr
        assert exit_code_rows(result.stdout) == ["0", "1", "2", "3"]
        named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", result.stdout))
        assert named <= own | {"--version", "--help"}, named - own
        assert "exit codes (scrapy robots uses the same):" in result.stdout
