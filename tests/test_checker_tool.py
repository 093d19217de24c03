"""``python -m scrapy_rep check``: output and exit status on local files and the bundled
example, and usage errors (against a local server, its crawl in a process of its own:
tests/integration/test_check.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.urls.origins import origin_of
from scrapy_rep.__main__ import main
from tests.support.tools import ROBOTS_TXT, ROBOTS_TXT_OVER_500_KIB, check_tool


def robots_url_for(url: str) -> str | None:
    origin = origin_of(url)
    return None if origin is None else origin.robots_url


def test_spec3_robots_txt_is_only_at_the_origin_root() -> None:
    assert (
        robots_url_for("https://Example.com:8443/a/b?c#d") == "https://example.com:8443/robots.txt"
    )


def test_cli_local_file_prints_the_deciding_line(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS_TXT)
    status, output = check_tool(
        str(robots), "https://e.com/private/a", "https://e.com/private/press/b"
    )
    assert status == 1
    assert "DISALLOWED  https://e.com/private/a        line 2: Disallow: /private/" in output
    assert "line 3: Allow: /private/press/" in output
    assert "crawl-delay: 3 s" in output


def test_cli_exit_0_when_all_allowed(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS_TXT)
    assert check_tool(str(robots), "https://e.com/public")[0] == 0


def test_cli_example_is_bundled() -> None:
    status, output = check_tool(
        "--example", "https://example.com/shop/cart", "https://example.com/"
    )
    assert status == 1
    assert "\nrobots.txt (the example bundled with scrapy_rep)\n" in output
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
    assert check_tool(*args)[0] == 2
    assert capsys.readouterr().err  # a message says what is wrong


def test_cli_without_the_check_subcommand_exits_2() -> None:
    assert main([], out=io.StringIO()) == 2


def test_spec3_the_robotstxt_url_has_the_normalised_origin() -> None:
    assert robots_url_for("http://Example.COM:80/a") == "http://example.com/robots.txt"
    assert robots_url_for("http://exämple.com/x") == "http://xn--exmple-cua.com/robots.txt"
    assert robots_url_for("my.mail.ru/my/") is None


def test_cli_a_url_without_a_scheme_is_a_usage_error_against_a_file_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was read as a path (``/private/x``), silently checking another URL than the
    one meant; a path is given as one (docs/cli.md, "What the tools accept")."""
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS_TXT)
    status, output = check_tool(str(robots), "my.mail.ru/private/x")
    assert (status, output) == (2, "")
    err = capsys.readouterr().err
    assert (
        err == "scrapy_rep: error: 'my.mail.ru/private/x' has no scheme: add http:// or https://\n"
    )
    assert check_tool(str(robots), "/private/x")[0] == 1  # the path itself is checked


def test_cli_a_file_over_500_kib_is_cut_and_says_where(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS_TXT_OVER_500_KIB)
    status, output = check_tool(str(robots), "https://e.com/late")
    assert status == 0  # the last line, Disallow: /late, is past the cut
    assert "only the first 500 KiB (512,000 bytes)" in output
    line = ROBOTS_TXT_OVER_500_KIB[:MAX_BODY_BYTES].count(b"\n") + 1
    assert f"the cut falls in line {line}" in output


def test_cli_option_error_quotes_the_value_as_given(capsys: pytest.CaptureFixture[str]) -> None:
    """Only the option's name is spelled with dashes: the value quoted stays as typed."""
    assert check_tool("--example", "--purpose", "ai_train", "https://example.com/")[0] == 2
    err = capsys.readouterr().err
    assert err.startswith("scrapy_rep: error: --purpose: ")
    assert "--purpose: 'ai_train' is not a purpose (did you mean 'ai-train'?)" in err


def test_cli_unreadable_file_prints_nothing_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    """The error comes alone: no ``user agent:`` line on stdout before it."""
    status, output = check_tool("/no/such/file/robots.txt", "https://e.com/")
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
    status, output = check_tool("--purpose", "ai-input", str(robots), *urls)
    assert status == 1
    assert (
        "DISALLOWED  https://e.com/a   Not fetched: ai-input denied by robots.txt line 3: "
        f"Content-Usage: /a ai-use=n{note}\n"
    ) in output
    status, output = check_tool("--purpose", "ai-train", str(robots), *urls)
    assert (
        "DISALLOWED  https://e.com/b   Not fetched: ai-train denied by robots.txt line 2: "
        f"Content-Signal: search=yes, ai-train=no{note}\n"
    ) in output
    assert "DISALLOWED  https://e.com/ms  line 4: DisallowAITraining: /ms\n" in output
    for profile in ("rfc9309", "legacy"):
        status, output = check_tool(
            "--profile", profile, "--purpose", "ai-train", str(robots), *urls
        )
        assert status == 1 and "Content-Signal: search=yes, ai-train=no\n" in output
        assert "Google's parser" not in output


#: Each ``check`` option that is a crawl setting: the command line, and the settings it
#: sets (over ``USER_AGENT``, which ``check`` always sets; ``scrapy rep-robots``' table:
#: tests/crawl/commands/test_robots_command.py).
OPTION_TABLE: list[tuple[list[str], dict[str, object]]] = [
    ([], {}),
    (["--user-agent", "OtherBot/2.0"], {"USER_AGENT": "OtherBot/2.0"}),
    (["-A", "OtherBot"], {"USER_AGENT": "OtherBot"}),
    (["--profile", "legacy"], {"REP_PROFILE": "legacy"}),
    (["--purpose", "ai-train,search"], {"REP_PURPOSE": "ai-train,search"}),
    (["--purpose-agents", "GPTBot"], {"REP_PURPOSE_AGENTS": "GPTBot"}),
    (["--rsl-licenses", "https://l.example/t"], {"REP_RSL_LICENSES": "https://l.example/t"}),
    (["--overrides", '[{"host": "e.com"}]'], {"REP_OVERRIDES": '[{"host": "e.com"}]'}),
    (["--unreachable-action", "allow"], {"REP_UNREACHABLE_ACTION": "allow"}),
    (["--no-robotstxt-obey"], {"ROBOTSTXT_OBEY": False}),
    (["-s", "REP_META_IN_NOSCRIPT=False"], {"REP_META_IN_NOSCRIPT": "False"}),
    (["--set", " DOWNLOAD_MAXSIZE =8"], {"DOWNLOAD_MAXSIZE": "8"}),
]


@pytest.mark.parametrize(
    ("argv", "settings"),
    OPTION_TABLE,
    ids=[" ".join(argv) or "no option" for argv, _ in OPTION_TABLE],
)
def test_each_check_option_is_its_crawl_setting(
    argv: list[str], settings: dict[str, object]
) -> None:
    from rep_engine.commandline import parser, settings_of
    from scrapy_rep.checker import DEFAULT_USER_AGENT, TOOL

    options = parser(TOOL, "check").parse_args(
        [*argv, "--page", "--timeout", "5", "https://e.com/"]
    )
    assert settings_of(TOOL, options) == {"USER_AGENT": DEFAULT_USER_AGENT, **settings}


def test_the_check_option_table_has_every_option_that_is_a_setting() -> None:
    from rep_engine.commandline import PYTHON, rows_of
    from scrapy_rep.checker import TOOL

    tabled = {argv[0] for argv, _ in OPTION_TABLE if argv}
    setting = [
        flags[0] for flags, keywords in rows_of(TOOL.arguments, PYTHON) if "setting" in keywords
    ]
    assert set(setting) <= tabled | {"-s"}
    set_by_table = {name for _, settings in OPTION_TABLE for name in settings}
    named = {k["setting"] for _, k in rows_of(TOOL.arguments, PYTHON) if "setting" in k}
    assert named - {"NAME=VALUE"} <= set_by_table
