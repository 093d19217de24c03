"""docs/cli.md quotes what the tools print: every ``text`` block that starts with a
``$`` command is run (both tools in this process, as :mod:`tests.support.tools` runs
them), against a local server whose robots.txt is the bundled example (the page's port
8301 is the server's), and prints the block's lines. (That both tools lay out the same
facts alike, printing the same lines: tests/integration/test_tools_agree.py.)"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from importlib import resources

import pytest
import pytest_twisted

from tests.support.localhttp import QuietHandler, serving
from tests.support.paths import ROOT
from tests.support.tools import check_async, robots_async

PAGE = ROOT / "docs" / "cli.md"
#: The port the page's examples use (``python -m http.server 8301``).
DOCS_PORT = "8301"
EXAMPLE = resources.files("scrapy_rep").joinpath("examples/robots.txt").read_bytes()


class ExampleSite(QuietHandler):
    """The bundled example robots.txt, and nothing else."""

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self.send(200, EXAMPLE, {"Content-Type": "text/plain"})
        else:
            self.send(404, b"")


@pytest.fixture(scope="module")
def port() -> Iterator[str]:
    with serving(ExampleSite) as port:
        yield str(port)


def examples() -> list[tuple[str, str]]:
    """(command, output) of each ``$`` command quoted in a ``text`` block of the page."""
    found = []
    for block in re.findall(r"```text\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = part.partition("\n")
            found.append((command, output))
    return found


async def run_quoted(command: str, port: str) -> str:
    """What ``command`` prints, the local server's port written as the page's."""
    words = shlex.split(command.replace(f":{DOCS_PORT}/", f":{port}/"))
    if words[:4] == ["python", "-m", "scrapy_rep", "check"]:
        _, output = await check_async(*words[4:])
    elif words[:2] == ["scrapy", "rep-robots"]:
        _, output = await robots_async(*words[2:], user_agent=None)
    else:
        raise AssertionError(f"docs/cli.md quotes a command the test cannot run: {command}")
    return output.replace(f":{port}/", f":{DOCS_PORT}/")


def test_the_page_quotes_both_tools() -> None:
    commands = [command for command, _ in examples()]
    assert any(c.startswith("python -m scrapy_rep check ") for c in commands)
    assert any(c.startswith("scrapy rep-robots ") for c in commands)


@pytest.mark.parametrize(("command", "output"), examples(), ids=lambda value: value[:40])
@pytest_twisted.ensureDeferred
async def test_each_quoted_output_is_what_the_tool_prints(
    command: str, output: str, port: str
) -> None:
    assert await run_quoted(command, port) == output
