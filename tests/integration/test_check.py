"""``python -m scrapy_rep check`` against a local server and as a process of its own: the
fetch rules of SPEC §4 as the tool reads them over urllib, its output and exit status
(the rest: tests/test_check.py)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from scrapy_rep.checker.download import fetch_robotstxt
from tests.support.localhttp import QuietHandler, base_url_fixture
from tests.support.tools import ROBOTS_TXT, ROBOTS_TXT_OVER_500_KIB, check_tool


class RobotsTxtCasesHandler(QuietHandler):
    """Routes by path; see the tests for what each path does."""

    def do_GET(self) -> None:

        path = self.path
        if path.startswith("/hop"):  # /hopN/... redirects N times, then serves ROBOTS_TXT
            left = int(path[4:].split("/")[0])
            target = f"/hop{left - 1}/robots.txt" if left > 1 else "/ok/robots.txt"
            self.send(301, b"", {"Location": target})
        elif path == "/loop/robots.txt":
            self.send(302, b"", {"Location": "/loop/robots.txt"})
        elif path == "/local/robots.txt":
            self.send(301, b"", {"Location": "file:///dev/zero"})
        elif path == "/ok/robots.txt" or path == "/robots.txt":
            self.send(200, ROBOTS_TXT)
        elif path == "/big/robots.txt":
            self.send(200, ROBOTS_TXT_OVER_500_KIB)
        elif path == "/unavailable/robots.txt":
            self.send(503, b"<h1>down</h1>")
        elif path == "/busy/robots.txt":
            self.send(429, b"slow down", {"Retry-After": "60"})
        elif path == "/forbidden/robots.txt":
            self.send(403, b"no")
        elif path == "/broken/robots.txt":
            self.send(301, b"", {"Location": "http://[oops/robots.txt"})
        elif path == "/trickle/robots.txt":  # one byte a second, for 30 s
            self.send_response(200)
            self.send_header("Content-Length", "30")
            self.end_headers()
            for _ in range(30):
                self.wfile.write(b"#")
                self.wfile.flush()
                time.sleep(1)
        else:
            self.send(404, b"<h1>Not found</h1>")


server = base_url_fixture(RobotsTxtCasesHandler, name="server")


def fetch(url: str) -> tuple[bool, bool, str]:
    fetched = fetch_robotstxt(url, timeout=5)
    return (
        fetched.rules.allowed("/private/x", "bot"),
        fetched.rules.allowed("/anything", "bot"),
        fetched.outcome,
    )


def test_spec4_2xx_is_parsed(server: str) -> None:
    private, anything, outcome = fetch(f"{server}/ok/robots.txt")
    assert (private, anything) == (False, True)
    assert outcome == "200 (72 bytes)"  # the same words as the crawl's


@pytest.mark.parametrize("status_path", ["/nothing/robots.txt", "/forbidden/robots.txt"])
def test_spec4_4xx_allows_everything(server: str, status_path: str) -> None:
    private, anything, outcome = fetch(server + status_path)
    assert (private, anything) == (True, True)
    assert "everything allowed" in outcome


@pytest.mark.parametrize("status_path", ["/unavailable/robots.txt", "/busy/robots.txt"])
def test_spec4_5xx_and_429_disallow_everything(server: str, status_path: str) -> None:
    private, anything, outcome = fetch(server + status_path)
    assert (private, anything) == (False, False)
    assert outcome.endswith(": temporarily everything disallowed")


def test_spec4_3_hop_redirect_is_followed(server: str) -> None:
    fetched = fetch_robotstxt(f"{server}/hop3/robots.txt", timeout=5)
    assert not fetched.rules.allowed("/private/x", "bot")
    assert fetched.final_url == f"{server}/ok/robots.txt"
    assert "via redirect" in fetched.outcome


def test_spec4_6_hop_redirect_counts_as_404(server: str) -> None:
    private, anything, outcome = fetch(f"{server}/hop6/robots.txt")
    assert (private, anything) == (True, True)
    assert "more than 5 redirects" in outcome


def test_spec7_redirect_to_a_local_file_is_not_followed(server: str) -> None:
    private, _, outcome = fetch(f"{server}/local/robots.txt")
    assert private
    assert outcome == "301: redirect to file:///dev/zero not followed, treated as 404"


def test_spec4_redirect_loop_counts_as_404(server: str) -> None:
    private, _, outcome = fetch(f"{server}/loop/robots.txt")
    assert private
    assert "loop" in outcome


def test_spec4_only_500_kib_are_read(server: str) -> None:
    fetched = fetch_robotstxt(f"{server}/big/robots.txt", timeout=5)
    assert fetched.rules.allowed("/late", "bot")  # the rule after the cap does not count
    assert "cut at 500 KiB" in fetched.outcome


def test_cli_fetches_a_url_and_uses_the_user_agent(server: str) -> None:
    status, output = check_tool(
        f"{server}/some/page", f"{server}/private/x", "--user-agent", "MyBot/2.0"
    )
    assert status == 1
    assert f"robots.txt {server}/robots.txt: 200 (72 bytes)" in output
    assert "crawler name mybot" in output


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


def test_a_malformed_redirect_counts_as_404_without_a_traceback(server: str) -> None:
    fetched = fetch_robotstxt(f"{server}/broken/robots.txt", timeout=5)
    assert fetched.rules.allowed("/private/x", "bot")
    assert (
        fetched.outcome == "301: redirect to http://[oops/robots.txt not followed, treated as 404"
    )


def test_the_timeout_bounds_the_whole_fetch_of_a_trickling_robotstxt(server: str) -> None:
    started = time.monotonic()
    fetched = fetch_robotstxt(f"{server}/trickle/robots.txt", timeout=1.5)
    # Each byte comes within the socket timeout; only a wall-clock bound stops it.
    assert time.monotonic() - started < 20
    assert fetched.unreachable
    assert fetched.outcome == "unreachable (timed out: no complete answer within 1.5 s)"


def test_cli_exit_3_when_a_robotstxt_is_unreachable(server: str) -> None:
    status, output = check_tool("http://127.0.0.1:1/", "http://127.0.0.1:1/x", "--timeout", "5")
    assert status == 3, output
    assert "unreachable (URLError: [Errno 111] Connection refused)" in output
    # Temporary, and not what a crawl ends with (it holds the request and retries).
    assert (
        "DISALLOWED  http://127.0.0.1:1/x  disallowed while robots.txt is unreachable "
        "(temporary; a crawl holds the request and retries)"
    ) in output


def test_cli_a_url_of_another_origin_gets_its_own_robotstxt(server: str) -> None:
    other = server.replace("127.0.0.1", "localhost")
    status, output = check_tool(f"{server}/", f"{other}/private/x")
    assert status == 1
    assert f"robots.txt {other}/robots.txt: 200 (72 bytes)" in output
    assert "their own origin's robots.txt was fetched" in output


def test_cli_help_exits_0_and_lists_the_exit_codes() -> None:
    for args in (["check", "--help"],):
        result = subprocess.run(
            [sys.executable, "-m", "scrapy_rep", *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert "3  a robots.txt (or a tdmrep.json, or with --page a page) could not" in (
            result.stdout
        )


def test_cli_one_url_alone_is_checked_against_its_own_robots_txt(server: str) -> None:
    """``check URL`` alone fetches the URL's own origin's robots.txt, as ``scrapy rep-robots
    URL`` does (docs/cli.md)."""
    status, output = check_tool(f"{server}/private/x")
    assert status == 1
    assert f"robots.txt {server}/robots.txt: 200 (72 bytes)" in output
    assert f"DISALLOWED  {server}/private/x  line 2: Disallow: /private/" in output
    assert check_tool(f"{server}/public")[0] == 0
