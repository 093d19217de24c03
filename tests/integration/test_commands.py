"""``scrapy rep-robots``: the Scrapy command, against a local server (docs/cli.md,
'`scrapy rep-robots`'; SPEC §4)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest_twisted

from tests.support.localhttp import QuietHandler, port_fixture
from tests.support.tools import robots_async, scrapy_robots, scrapy_streams

ROBOTS = b"User-agent: *\nDisallow: /private/\nCrawl-delay: 2\nSitemap: http://x/sitemap.xml\n"
PAGE = b'<html><head><meta name="robots" content="noindex, max-snippet:10"></head></html>'


class TwoHostsHandler(QuietHandler):
    def do_GET(self) -> None:
        host_port = self.headers.get("Host", "")
        if self.path == "/robots.txt" and host_port.startswith("127.0.0.1"):
            self.send(200, ROBOTS, {"Content-Type": "text/plain"})
        elif self.path == "/robots.txt":  # "localhost": a robots.txt that never answers
            time.sleep(5)
            self.send(200, b"", {"Content-Type": "text/plain"})
        elif self.path == "/page":
            self.send(200, PAGE, {"Content-Type": "text/html", "X-Robots-Tag": "nofollow"})
        else:
            self.send(404, b"not found", {"Content-Type": "text/html"})


port = port_fixture(TwoHostsHandler)


@pytest_twisted.ensureDeferred
async def test_robots_command_verdicts_lines_and_exit_1(port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    status, output = await robots_async(f"{base}/private/a", f"{base}/public")
    assert status == 1, output
    assert "crawler name testbot" in output
    assert f"robots.txt {base}/robots.txt: 200 (" in output
    assert "crawl-delay: 2 s" in output and "sitemap: http://x/sitemap.xml" in output
    assert f"DISALLOWED  {base}/private/a  line 2: Disallow: /private/" in output


@pytest_twisted.ensureDeferred
async def test_robots_command_page_directives_and_what_the_crawl_does(port: int) -> None:
    """Allowed by robots.txt, and its page says noindex: the crawl drops its items, and
    the tool says so and exits 1."""
    base = f"http://127.0.0.1:{port}"
    status, output = await robots_async("--page", f"{base}/page")
    assert status == 1, output
    assert "page: 200, directives: noindex, nofollow, max-snippet:10" in output
    assert "X-Robots-Tag: nofollow" in output
    assert output.rstrip().endswith(
        '=> not for this crawl: noindex by <meta name="robots" content="noindex, max-snippet:10">'
    )


@pytest_twisted.ensureDeferred
async def test_robots_command_non_existent_host_exit_3() -> None:
    status, output = await robots_async("http://nonexistent.invalid/x")
    assert status == 3, output
    assert "unreachable" in output and "DISALLOWED" in output


@pytest_twisted.ensureDeferred
async def test_robots_command_robots_txt_that_times_out_exit_3(port: int) -> None:
    status, output = await robots_async("--timeout", "1", f"http://localhost:{port}/x")
    assert status == 3, output
    assert "took longer than 1.0 seconds" in output, output


def test_robots_command_local_file(tmp_path: Path, port: int) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: testbot\nDisallow: /\n")
    status, output = scrapy_robots("--robots-file", str(robots), f"http://127.0.0.1:{port}/a")
    assert status == 1, output
    assert "(local file)" in output and "line 2: Disallow: /" in output


def test_robots_command_uses_the_project_profile(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\nDisallow: /pics/\nAllow: /pics/public/\n")
    url = "http://e.com/pics/public/a.jpg"
    assert scrapy_robots("--robots-file", str(robots), url)[0] == 0
    status, output = scrapy_robots("-s", "REP_PROFILE=legacy", "--robots-file", str(robots), url)
    assert status == 1, output  # first match wins in the 1994 standard
    assert "profile legacy" in output


def test_robots_command_without_urls_is_a_usage_error() -> None:
    status, output = scrapy_robots()
    assert status == 2
    assert "at least one URL" in output


def test_robots_command_rep_profile_and_user_agent_options(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\nDisallow: /pics/\nAllow: /pics/public/\n"
                       b"User-agent: otherbot\nDisallow: /\n")  # fmt: skip
    url = "http://e.com/pics/public/a.jpg"
    status, output = scrapy_robots("--rep-profile", "legacy", "--robots-file", str(robots), url)
    assert status == 1 and "profile legacy" in output
    status, output = scrapy_robots("-A", "OtherBot/3.0", "--robots-file", str(robots), url)
    assert status == 1 and "crawler name otherbot" in output
    # Scrapy's own --profile (cProfile) is left alone: no profile file is written here.
    assert not (tmp_path / "rfc9309").exists()


def test_robots_command_a_wrong_setting_is_one_line_and_a_usage_exit() -> None:
    status, output = scrapy_robots("-s", "REP_PROFILE=gogle", "http://e.com/")
    assert status == 2
    assert output.strip().splitlines() == [
        "scrapy_rep: error: REP_PROFILE: expected one of 'google', 'rfc9309', 'legacy', got 'gogle'"
    ]


def test_robots_command_a_url_without_a_scheme_is_a_usage_error() -> None:
    status, output = scrapy_robots("my.mail.ru/my/")
    assert status == 2
    assert output == "scrapy_rep: error: 'my.mail.ru/my/' has no scheme: add http:// or https://\n"


def test_robots_command_a_file_over_500_kib_says_where_it_was_cut(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\n" + b"# filler\n" * 60_000 + b"Disallow: /\n")
    status, output = scrapy_robots("--robots-file", str(robots), "http://e.com/")
    assert status == 0, output
    assert "only the first 500 KiB (512,000 bytes)" in output and "the cut falls in line" in output


def test_the_commands_are_named_for_whose_they_are(tmp_path: Path) -> None:
    """The entry points add ``rep-robots`` and ``rep-audit`` to every project of the
    environment; the generic ``robots`` and ``audit`` are not ours to take (docs/decisions.md,
    'The Scrapy commands are named rep-robots and rep-audit')."""
    listing = subprocess.run(
        [sys.executable, "-m", "scrapy", "-h"],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    commands = {line.split()[0] for line in listing.stdout.splitlines() if line.startswith("  ")}
    assert {"rep-robots", "rep-audit"} <= commands
    assert not {"robots", "audit"} & commands
    for old in ("robots", "audit"):  # looked up as scrapy looks commands up, in this process
        code, stdout, _ = scrapy_streams(old, "-h")
        assert code == 2
        assert f"Unknown command: {old}" in stdout
