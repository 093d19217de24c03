"""``python -m scrapy_rep check``: output, exit status, and the fetch rules of SPEC §4."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from scrapy_rep.check import main
from scrapy_rep.checker.download import fetch_robotstxt, robots_url_for
from scrapy_rep.robotstxt import MAX_BODY_BYTES
from tests.support.localhttp import QuietHandler, serving

ROBOTS = b"User-agent: *\nDisallow: /private/\nAllow: /private/press/\nCrawl-delay: 3\n"
BIG_ROBOTS = b"User-agent: *\n" + b"# filler\n" * (MAX_BODY_BYTES // 9) + b"Disallow: /late\n"


class Handler(QuietHandler):
    """Routes by path; see the tests for what each path does."""

    def do_GET(self) -> None:

        path = self.path
        if path.startswith("/hop"):  # /hopN/... redirects N times, then serves ROBOTS
            left = int(path[4:].split("/")[0])
            target = f"/hop{left - 1}/robots.txt" if left > 1 else "/ok/robots.txt"
            self.send(301, b"", {"Location": target})
        elif path == "/loop/robots.txt":
            self.send(302, b"", {"Location": "/loop/robots.txt"})
        elif path == "/local/robots.txt":
            self.send(301, b"", {"Location": "file:///dev/zero"})
        elif path == "/ok/robots.txt" or path == "/robots.txt":
            self.send(200, ROBOTS)
        elif path == "/big/robots.txt":
            self.send(200, BIG_ROBOTS)
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


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving(Handler) as port:
        yield f"http://127.0.0.1:{port}"


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


def test_spec4_refused_connection_disallows_everything() -> None:
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago: nobody listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    fetched = fetch_robotstxt(f"http://127.0.0.1:{port}/robots.txt", timeout=5)
    assert not fetched.rules.allowed("/", "bot")
    assert fetched.status is None and "unreachable" in fetched.outcome


def test_spec3_robots_txt_is_only_at_the_origin_root() -> None:
    assert (
        robots_url_for("https://Example.com:8443/a/b?c#d") == "https://example.com:8443/robots.txt"
    )


def run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["check", *args], out=out), out.getvalue()


def test_cli_local_file_prints_the_deciding_line(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS)
    status, output = run(str(robots), "https://e.com/private/a", "https://e.com/private/press/b")
    assert status == 1
    assert "DISALLOWED  https://e.com/private/a        line 2: Disallow: /private/" in output
    assert "line 3: Allow: /private/press/" in output
    assert "crawl-delay: 3 s" in output


def test_cli_exit_0_when_all_allowed(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS)
    assert run(str(robots), "https://e.com/public")[0] == 0


def test_cli_fetches_a_url_and_uses_the_user_agent(server: str) -> None:
    status, output = run(f"{server}/some/page", f"{server}/private/x", "--user-agent", "MyBot/2.0")
    assert status == 1
    assert f"robots.txt: {server}/robots.txt: 200 (72 bytes)" in output
    assert "crawler name mybot" in output


def test_cli_example_is_bundled() -> None:
    status, output = run("--example", "https://example.com/shop/cart", "https://example.com/")
    assert status == 1
    assert "bundled example robots.txt" in output
    assert "Disallow: /shop/cart" in output


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["only-a-file.txt"],
        ["/no/such/file/robots.txt", "https://e.com/"],
        ["--example"],
        ["--example", "--profile", "nope", "https://e.com/"],
        ["--no-such-option", "x", "y"],
    ],
    ids=["nothing", "no-url", "missing-file", "example-without-url", "bad-profile", "bad-option"],
)
def test_cli_usage_errors_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(*args)[0] == 2
    assert capsys.readouterr().err  # a message says what is wrong


def test_cli_without_the_check_subcommand_exits_2() -> None:
    assert main([], out=io.StringIO()) == 2


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


def test_spec3_the_robotstxt_url_has_the_normalised_origin() -> None:
    assert robots_url_for("http://Example.COM:80/a") == "http://example.com/robots.txt"
    assert robots_url_for("http://exämple.com/x") == "http://xn--exmple-cua.com/robots.txt"
    assert robots_url_for("my.mail.ru/my/") is None


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
    status, output = run("http://127.0.0.1:1/", "http://127.0.0.1:1/x", "--timeout", "5")
    assert status == 3, output
    assert "unreachable (URLError: [Errno 111] Connection refused)" in output
    # Temporary, and not what a crawl ends with (it holds the request and retries).
    assert (
        "DISALLOWED  http://127.0.0.1:1/x  disallowed while robots.txt is unreachable "
        "(temporary; a crawl holds the request and retries)"
    ) in output


def test_cli_a_url_of_another_origin_gets_its_own_robotstxt(server: str) -> None:
    other = server.replace("127.0.0.1", "localhost")
    status, output = run(f"{server}/", f"{other}/private/x")
    assert status == 1
    assert f"robots.txt: {other}/robots.txt: 200 (72 bytes)" in output
    assert "their own origin's robots.txt was fetched" in output


def test_cli_a_url_without_a_scheme_is_a_usage_error_against_a_file_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was read as a path (``/private/x``), silently checking another URL than the
    one meant; a path is given as one (docs/cli.md, "What the tools accept")."""
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS)
    status, output = run(str(robots), "my.mail.ru/private/x")
    assert (status, output) == (2, "")
    err = capsys.readouterr().err
    assert (
        err == "scrapy_rep: error: 'my.mail.ru/private/x' has no scheme: add http:// or https://\n"
    )
    assert run(str(robots), "/private/x")[0] == 1  # the path itself is checked


def test_cli_a_file_over_500_kib_is_cut_and_says_where(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(BIG_ROBOTS)
    status, output = run(str(robots), "https://e.com/late")
    assert status == 0  # the last line, Disallow: /late, is past the cut
    assert "only the first 500 KiB (512,000 bytes)" in output
    line = BIG_ROBOTS[:MAX_BODY_BYTES].count(b"\n") + 1
    assert f"the cut falls in line {line}" in output


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
        assert "3  a robots.txt (or a tdmrep.json) could not be fetched" in result.stdout


def test_cli_one_url_alone_is_checked_against_its_own_robots_txt(server: str) -> None:
    """``check URL`` alone fetches the URL's own origin's robots.txt, as ``scrapy rep-robots
    URL`` does (docs/cli.md)."""
    status, output = run(f"{server}/private/x")
    assert status == 1
    assert f"robots.txt: {server}/robots.txt: 200 (72 bytes)" in output
    assert f"DISALLOWED  {server}/private/x  line 2: Disallow: /private/" in output
    assert run(f"{server}/public")[0] == 0


def test_cli_option_error_quotes_the_value_as_given(capsys: pytest.CaptureFixture[str]) -> None:
    """Only the option's name is spelled with dashes: the value quoted stays as typed."""
    assert run("--example", "--purpose", "ai_train", "https://example.com/")[0] == 2
    err = capsys.readouterr().err
    assert err.startswith("scrapy_rep: error: --purpose: ")
    assert "got 'ai_train'" in err


def test_cli_unreadable_file_prints_nothing_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    """The error comes alone: no ``user agent:`` line on stdout before it."""
    status, output = run("/no/such/file/robots.txt", "https://e.com/")
    assert status == 2
    assert output == ""
    assert "cannot read /no/such/file/robots.txt" in capsys.readouterr().err


def test_dir_shows_only_public_names() -> None:
    import scrapy_rep

    names = set(dir(scrapy_rep))
    assert {"Addon", "parse_robotstxt", "RobotsTxtMiddleware", "__version__"} <= names
    assert not names & {"Any", "TYPE_CHECKING", "annotations", "import_module", "_LAZY"}


def test_check_google_profile_says_google_ignores_content_usage_and_content_signal(
    tmp_path: Path,
) -> None:
    """google/robotstxt (reporting_robots.cc, commit 4af32e5) lists content-signal and
    content-usage among its unsupported tags; DisallowAITraining is read as Disallow."""
    robots = tmp_path / "robots.txt"
    robots.write_bytes(
        b"User-agent: *\nContent-Signal: search=yes, ai-train=no\n"
        b"Content-Usage: /a ai-use=n\nDisallowAITraining: /ms\n"
    )
    note = " (read by scrapy_rep, ignored by Google's parser)"
    urls = ("https://e.com/a", "https://e.com/b", "https://e.com/ms")
    status, output = run("--purpose", "ai-input", str(robots), *urls)
    assert status == 1
    assert (
        "DISALLOWED  https://e.com/a   Not fetched: ai-input denied by robots.txt line 3: "
        f"Content-Usage: /a ai-use=n{note}\n"
    ) in output
    status, output = run("--purpose", "ai-train", str(robots), *urls)
    assert (
        "DISALLOWED  https://e.com/b   Not fetched: ai-train denied by robots.txt "
        f"Content-Signal: search=yes, ai-train=no{note}\n"
    ) in output
    assert "DISALLOWED  https://e.com/ms  line 4: DisallowAITraining: /ms\n" in output
    for profile in ("rfc9309", "legacy"):
        status, output = run("--profile", profile, "--purpose", "ai-train", str(robots), *urls)
        assert status == 1 and "Content-Signal: search=yes, ai-train=no\n" in output
        assert "Google's parser" not in output
