"""``python -m scrapy_rep check`` against a local server, and once as a process of its own
(the entry point): its crawl's robots.txt fetched as a crawl fetches it, its output and
exit status (the fetch rules of SPEC §4 themselves: tests/fetch/test_procedure.py and the
crawl's tests/integration/test_robotstxt.py; the rest: tests/test_checker_tool.py)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest_twisted

from tests.support.localhttp import QuietHandler, base_url_fixture, free_port, serving
from tests.support.tools import ROBOTS_TXT, check_async, main_streams


class RobotsTxtHandler(QuietHandler):
    """ROBOTS_TXT, and a 404 for anything else."""

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self.send(200, ROBOTS_TXT)
        else:
            self.send(404, b"<h1>Not found</h1>")


server = base_url_fixture(RobotsTxtHandler, name="server")


@pytest_twisted.ensureDeferred
async def test_cli_fetches_a_url_and_uses_the_user_agent(server: str) -> None:
    status, output = await check_async(
        f"{server}/some/page", f"{server}/private/x", "--user-agent", "MyBot/2.0"
    )
    assert status == 1
    assert f"robots.txt {server}/robots.txt: 200 (72 bytes)" in output
    assert "crawler name mybot" in output


@pytest_twisted.ensureDeferred
async def test_every_url_given_is_checked(server: str) -> None:
    """The first URL was once only where the robots.txt came from, and never checked: now
    every URL given is, each once."""
    first, second = f"{server}/private/first", f"{server}/public"
    status, output = await check_async(first, second, first)
    assert status == 1, output
    assert output.count(f"DISALLOWED  {first}  line 2: Disallow: /private/") == 1, output
    assert f"allowed     {second}" in output


def test_python_dash_m_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scrapy_rep", "check", "--example", "https://example.com/search"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "Disallow: /search" in result.stdout


@pytest_twisted.ensureDeferred
async def test_the_timeout_bounds_the_whole_download_of_a_trickling_robotstxt() -> None:
    class Trickle(QuietHandler):
        def do_GET(self) -> None:  # one byte a second, for 30 s
            self.send_response(200)
            self.send_header("Content-Length", "30")
            self.end_headers()
            for _ in range(30):
                self.wfile.write(b"#")
                self.wfile.flush()
                time.sleep(1)

    with serving(Trickle) as port:
        status, output = await check_async(f"http://127.0.0.1:{port}/a", "--timeout", "1.5")
    # Each byte comes within a socket timeout; only the download's own bound stops it
    # (a whole answer would have been a 200).
    assert status == 3, output
    assert "took longer than 1.5 seconds" in output, output


@pytest_twisted.ensureDeferred
async def test_cli_exit_3_when_a_robotstxt_is_unreachable() -> None:
    url = f"http://127.0.0.1:{free_port()}/x"  # a port that was free a moment ago
    status, output = await check_async(url, "--timeout", "5")
    assert status == 3, output
    assert f"robots.txt {url.removesuffix('/x')}/robots.txt: unreachable (" in output
    assert "Connection was refused" in output or "Connection refused" in output, output
    # Temporary, and not what a crawl does at once (it holds the request and retries).
    assert (
        f"DISALLOWED  {url}  disallowed while robots.txt is unreachable "
        "(temporary; a crawl holds the request and retries)"
    ) in output


@pytest_twisted.ensureDeferred
async def test_cli_a_url_of_another_origin_gets_its_own_robotstxt(server: str) -> None:
    other = server.replace("127.0.0.1", "localhost")
    status, output = await check_async(f"{server}/", f"{other}/private/x")
    assert status == 1
    assert f"robots.txt {server}/robots.txt: 200 (72 bytes)" in output
    assert f"robots.txt {other}/robots.txt: 200 (72 bytes)" in output
    assert f"DISALLOWED  {other}/private/x  line 2: Disallow: /private/" in output


def test_cli_help_exits_0_and_lists_the_exit_codes() -> None:
    """In this process (the entry point: :func:`test_python_dash_m_entry_point`)."""
    status, stdout, stderr = main_streams("check", "--help")
    assert status == 0, stderr
    said = " ".join(stdout.split())  # one table for both tools: what rep-robots fetches too
    assert (
        "3 a robots.txt (or a tdmrep.json, or with --page, and for scrapy rep-robots with "
        "--purpose too, a page) could not be fetched"
    ) in said


@pytest_twisted.ensureDeferred
async def test_cli_one_url_alone_is_checked_against_its_own_robots_txt(server: str) -> None:
    """``check URL`` alone fetches the URL's own origin's robots.txt, as ``scrapy rep-robots
    URL`` does (docs/cli.md)."""
    status, output = await check_async(f"{server}/private/x")
    assert status == 1
    assert f"robots.txt {server}/robots.txt: 200 (72 bytes)" in output
    assert f"DISALLOWED  {server}/private/x  line 2: Disallow: /private/" in output
    assert (await check_async(f"{server}/public"))[0] == 0
