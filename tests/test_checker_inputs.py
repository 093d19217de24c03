"""Both command-line tools read their inputs one way (scrapy_rep.checker;
docs/cli.md, "What the tools accept"): every bad input gives, in ``python -m scrapy_rep
check`` and in ``scrapy rep-robots`` alike, exit status 2 and the same one line on stderr,
before anything is fetched or printed. (Good inputs at their edges, printed alike by both
tools: tests/integration/test_tools_agree.py.)

``scrapy rep-robots`` runs through Scrapy's own command line (``scrapy.cmdline.execute``)
in this process: the command class, its options and its exit status, as ``scrapy``
runs them, without starting a new interpreter for each of the cases.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from scrapy.cmdline import execute
from scrapy.settings import Settings

from scrapy_rep.checker import EXIT_USAGE, MAX_TIMEOUT, InputError, Paths, parse_timeout, parse_url
from tests.support.tools import check_run

ROBOTS = b"User-agent: *\nDisallow: /private/\n"
#: Placeholders in the argument lists: a readable robots.txt, a file that does not
#: exist, a directory.
FILE, MISSING, FOLDER = "{file}", "{missing}", "{folder}"


@dataclass(frozen=True)
class Bad:
    """One bad input: the message both tools give, and the command lines that give it
    (each tool's, in every place the input can stand)."""

    message: str
    check: list[list[str]] = field(default_factory=list)
    robots: list[list[str]] = field(default_factory=list)


def url_everywhere(url: str, message: str) -> Bad:
    """A bad URL in every place a URL stands: alone, after a robots.txt file or URL, with
    the bundled example; ``scrapy rep-robots`` with and without ``--robots-file``."""
    return Bad(
        message,
        check=[[url], [FILE, url], ["https://e.com/", url], ["--example", url]],
        robots=[[url], ["--robots-file", FILE, url], ["https://e.com/", url]],
    )


def timeout(value: str) -> Bad:
    message = (
        f"--timeout: expected a number of seconds greater than 0 and at most 86400, got {value!r}"
    )
    return Bad(
        message,
        check=[
            ["--timeout", value, FILE, "https://e.com/"],
            ["--timeout", value, "--example", "/"],
        ],
        robots=[["--timeout", value, "--robots-file", FILE, "https://e.com/"]],
    )


NO_SCHEME = "has no scheme: add http:// or https://"
HTTP_ONLY = "only http:// and https:// URLs are checked"
NEED_A_FILE = (
    "is a path: a path is checked only against a local robots.txt file; give a URL with "
    "http:// or https://"
)
PAGES = (
    "is a path: --page and --purpose (or REP_PURPOSE) fetch each page; give a URL with "
    "http:// or https://"
)

BAD: dict[str, Bad] = {
    "a host and path without a scheme": url_everywhere(
        "example.com/a", f"'example.com/a' {NO_SCHEME}"
    ),
    "a host alone without a scheme": url_everywhere("example.com", f"'example.com' {NO_SCHEME}"),
    "a host and port without a scheme": url_everywhere(
        "localhost:8080/a", f"'localhost:8080/a' {NO_SCHEME}"
    ),
    "a scheme-relative URL": url_everywhere("//example.com/a", f"'//example.com/a' {NO_SCHEME}"),
    "ftp": url_everywhere("ftp://example.com/a", f"'ftp://example.com/a': {HTTP_ONLY}"),
    "a file: URL to check": url_everywhere(
        "file:///etc/passwd",
        f"'file:///etc/passwd': {HTTP_ONLY} (name a local robots.txt by its path)",
    ),
    "a file: URL for the robots.txt": Bad(
        f"'file:///tmp/robots.txt': {HTTP_ONLY} (name a local robots.txt by its path)",
        check=[["file:///tmp/robots.txt", "https://e.com/a"]],
        robots=[["file:///tmp/robots.txt"]],
    ),
    "a broken IPv6 literal": url_everywhere(
        "http://[oops/a", "'http://[oops/a' is not a valid URL: Invalid IPv6 URL"
    ),
    "a port out of range": url_everywhere(
        "http://e.com:99999/", "'http://e.com:99999/' is not a valid URL: Port out of range 0-65535"
    ),
    "no host": url_everywhere("http:///a", "'http:///a' is not a valid URL: it has no host"),
    "a space in the host": url_everywhere(
        "http://exa mple.com/",
        "'http://exa mple.com/' is not a valid URL: its host 'exa mple.com' has a character "
        "a host name cannot have",
    ),
    "one slash after the scheme": url_everywhere(
        "https:/e.com/a", "'https:/e.com/a' is not a valid URL: no // after the scheme"
    ),
    "a path where robots.txt is fetched": Bad(
        f"'/a' {NEED_A_FILE}",
        check=[["https://e.com/", "/a"]],
        robots=[["/a"], ["https://e.com/", "/a"]],
    ),
    "a path where each page is fetched": Bad(
        f"'/a' {PAGES}",
        robots=[
            ["--robots-file", FILE, "--page", "/a"],
            ["--robots-file", FILE, "--purpose", "ai-train", "/a"],
            ["--robots-file", FILE, "-s", "REP_PURPOSE=ai-train", "/a"],
        ],
    ),
    "a robots.txt file that does not exist": Bad(
        f"cannot read {MISSING}: No such file or directory",
        check=[[MISSING, "https://e.com/a"]],
        robots=[["--robots-file", MISSING, "https://e.com/a"]],
    ),
    "a folder for the robots.txt": Bad(
        f"cannot read {FOLDER}: Is a directory",
        check=[[FOLDER, "https://e.com/a"]],
        robots=[["--robots-file", FOLDER, "https://e.com/a"]],
    ),
    "--timeout 0": timeout("0"),
    "--timeout negative": timeout("-1"),
    "--timeout nan": timeout("nan"),
    "--timeout inf": timeout("inf"),
    "--timeout over a day": timeout("86401"),
    "--timeout not a number": timeout("5s"),
    "--timeout empty": timeout(""),
}


@pytest.fixture
def places(tmp_path: Path) -> dict[str, str]:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS)
    return {FILE: str(robots), MISSING: str(tmp_path / "missing.txt"), FOLDER: str(tmp_path)}


def filled(args: list[str], places: dict[str, str]) -> list[str]:
    for placeholder, value in places.items():
        args = [arg.replace(placeholder, value) for arg in args]
    return args


def run_check(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    out = io.StringIO()
    status = check_run(args, out)
    return status, out.getvalue(), capsys.readouterr().err


def run_robots(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``scrapy rep-robots ARGS`` as ``scrapy`` runs it, without a project."""
    with pytest.raises(SystemExit) as exit_:
        execute(
            ["scrapy", "rep-robots", "-s", "USER_AGENT=TestBot/1.0", *args], settings=Settings()
        )
    captured = capsys.readouterr()
    return int(exit_.value.code or 0), captured.out, captured.err


@pytest.mark.parametrize("name", list(BAD))
def test_a_bad_input_is_the_same_usage_error_in_both_tools(
    name: str, places: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    bad = BAD[name]
    expected = "scrapy_rep: error: " + filled([bad.message], places)[0] + "\n"
    for tool, forms in ((run_check, bad.check), (run_robots, bad.robots)):
        for args in forms:
            status, out, err = tool(filled(args, places), capsys)
            assert (status, err) == (EXIT_USAGE, expected), (tool.__name__, args, out)
            assert out == "", (tool.__name__, args)  # nothing before the error
    assert bad.check or bad.robots


def test_check_a_file_alone_asks_for_a_url(
    places: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A file alone has nothing to check; a name that is no file, alone, is a URL."""
    status, _, err = run_check([places[FILE]], capsys)
    assert status == EXIT_USAGE and "at least one URL" in err
    status, _, err = run_check(["robots.example"], capsys)
    assert (status, err) == (EXIT_USAGE, f"scrapy_rep: error: 'robots.example' {NO_SCHEME}\n")


# ----------------------------------------------------------------- the parser itself


@pytest.mark.parametrize(
    ("text", "paths", "accepted"),
    [
        ("https://e.com/a?b#c", Paths.NEED_A_FILE, True),
        ("HTTP://E.COM", Paths.NEED_A_FILE, True),
        ("http://exämple.com/", Paths.NEED_A_FILE, True),  # IDNA: compared as punycode
        ("/a", Paths.ACCEPTED, True),
        ("/a", Paths.NEED_A_FILE, False),
        ("/a", Paths.PAGES_FETCHED, False),
        ("//e.com/a", Paths.ACCEPTED, False),  # scheme-relative: no path
        ("a/b", Paths.ACCEPTED, False),
        ("", Paths.ACCEPTED, False),
        ("data:text/plain,x", Paths.ACCEPTED, False),
        ("mailto://x", Paths.ACCEPTED, False),
        ("http://./", Paths.ACCEPTED, False),
    ],
)
def test_parse_url(text: str, paths: Paths, accepted: bool) -> None:
    if accepted:
        assert parse_url(text, paths) == text
    else:
        with pytest.raises(InputError):
            parse_url(text, paths)


def test_parse_timeout_bounds() -> None:
    assert parse_timeout("10") == 10.0
    assert parse_timeout("1e-3") == 0.001
    assert parse_timeout(str(MAX_TIMEOUT)) == MAX_TIMEOUT
    for text in ("0", "-0", "0.0", "-5", "nan", "inf", "-inf", "1e400", "86400.001", "x", ""):
        with pytest.raises(InputError, match=r"^--timeout: "):
            parse_timeout(text)
