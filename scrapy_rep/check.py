"""The robots.txt checker: ``python -m scrapy_rep check ROBOTS_FILE_OR_URL URL…``.

Prints, for each URL, whether the crawler may fetch it and the robots.txt line (or the
group) that decided it, like a robots.txt tester. A URL as first argument has its
origin's ``/robots.txt`` fetched by the same procedure the crawl uses
(:mod:`scrapy_rep.fetchprocedure`, driven here over urllib), so the outcome reads the
same as in the crawl's log and report. Standard library only: nothing from Scrapy.
"""

from __future__ import annotations

import argparse
import http.client
import socket
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final, TextIO, TypeVar

from scrapy_rep.fetchpolicy import Effect
from scrapy_rep.fetchprocedure import ROBOTS_TXT, Fetched, FetchProcedure, Follow
from scrapy_rep.origins import origin_of
from scrapy_rep.robotstxt import (
    ALLOW_ALL,
    DISALLOW_ALL,
    MAX_BODY_BYTES,
    PROFILES,
    RobotsTxt,
    parse_robotstxt,
)
from scrapy_rep.useragent import product_token

T = TypeVar("T")

#: What a default Scrapy project calls itself (``Scrapy/2.x (+https://scrapy.org)``).
DEFAULT_USER_AGENT: Final = "Scrapy"

#: The exit codes of ``python -m scrapy_rep check`` and ``scrapy robots`` alike.
EXIT_ALLOWED: Final = 0
EXIT_DISALLOWED: Final = 1
EXIT_USAGE: Final = 2
EXIT_UNREACHABLE: Final = 3
EXIT_CODES: Final = f"""exit codes (the same for `scrapy robots`):
  {EXIT_ALLOWED}  every URL is allowed
  {EXIT_DISALLOWED}  at least one URL is disallowed
  {EXIT_USAGE}  usage error: a wrong argument, option or setting, an unreadable file
  {EXIT_UNREACHABLE}  a robots.txt (or, with --page, a page) could not be fetched: the
     verdicts shown for its URLs are temporary ("everything disallowed for now")"""


@dataclass(frozen=True)
class FetchedRobots:
    """The outcome of fetching one robots.txt (SPEC §4)."""

    #: The robots.txt URL asked for.
    url: str
    #: The rules that apply: parsed, or ALLOW_ALL / DISALLOW_ALL.
    rules: RobotsTxt
    #: One line for people, the same words as the crawl's: ``200 (1,234 bytes)``…
    outcome: str
    #: The HTTP status of the last response, ``None`` when there was none.
    status: int | None = None
    #: Where the robots.txt was found after redirects.
    final_url: str | None = None
    #: The robots.txt could not be fetched (429, 5xx, network error, no answer in time).
    unreachable: bool = False


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are followed by the fetch procedure itself, which counts the hops (and
    reads a ``Location`` that is not a URL as a 404): urllib raises them as errors."""

    def _raise(self, *args: Any) -> None:
        return None

    http_error_301 = http_error_302 = http_error_303 = _raise  # type: ignore[assignment]
    http_error_307 = http_error_308 = _raise  # type: ignore[assignment]


def robots_url_for(url: str) -> str | None:
    """The ``/robots.txt`` of ``url``'s origin (SPEC §3: scheme, lowercased IDNA host and
    port, default port folded); ``None`` for a URL without an origin."""
    origin = origin_of(url)
    return origin.robots_url if origin is not None else None


def within(seconds: float, work: Callable[[], T]) -> T | None:
    """``work()`` in a background thread, waited for at most ``seconds`` of wall-clock
    time (socket timeouts bound each read, not a site that sends one byte a second);
    ``None`` when it did not finish in time."""
    result: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as error:  # handed to the caller's thread
            errors.append(error)

    thread = threading.Thread(target=run, daemon=True, name="scrapy_rep-fetch")
    thread.start()
    thread.join(seconds)
    if errors:
        raise errors[0]
    return result[0] if result else None


def fetch_robotstxt(
    url: str,
    *,
    user_agent: str = DEFAULT_USER_AGENT,
    profile: str = "google",
    timeout: float = 10.0,
) -> FetchedRobots:
    """Fetch ``url`` (a robots.txt URL), within ``timeout`` seconds in all."""
    procedure = FetchProcedure(ROBOTS_TXT, url)
    fetched = within(timeout, lambda: _follow(procedure, user_agent, timeout))
    if fetched is None:
        fetched = procedure.on_network_error(f"timed out: no complete answer within {timeout:g} s")
    if fetched.effect is Effect.PARSE:
        rules = parse_robotstxt(fetched.body, profile)
    else:
        rules = DISALLOW_ALL if fetched.effect is Effect.UNREACHABLE else ALLOW_ALL
    unreachable = fetched.effect is Effect.UNREACHABLE
    return FetchedRobots(
        url, rules, fetched.outcome, fetched.status, fetched.final_url, unreachable
    )


def _follow(procedure: FetchProcedure, user_agent: str, timeout: float) -> Fetched:
    opener = urllib.request.build_opener(_NoRedirects())
    step: Follow | Fetched = procedure.start
    while isinstance(step, Follow):
        request = urllib.request.Request(step.url, headers={"User-Agent": user_agent})
        try:
            with opener.open(request, timeout=timeout) as response:
                status, headers = response.status, response.headers
                body = response.read(MAX_BODY_BYTES)
                truncated = bool(response.read(1))
        except urllib.error.HTTPError as error:
            status, headers, body, truncated = error.code, error.headers, b"", False
            error.close()
        except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as error:
            reason = getattr(error, "reason", error)
            if isinstance(reason, socket.timeout | TimeoutError):
                reason = "timed out"
            return procedure.on_network_error(f"{type(error).__name__}: {reason}")
        step = procedure.on_response(
            status,
            body,
            location=headers.get("Location"),
            cache_control=headers.get("Cache-Control"),
            retry_after=headers.get("Retry-After"),
            truncated=truncated,
        )
    return step


def read_robots_file(path: Path, profile: str) -> tuple[RobotsTxt, list[str]]:
    """A local robots.txt and what a reader must know about it (a cut at 500 KiB, with
    the line where it fell). Raises ``OSError`` when it cannot be read."""
    with path.open("rb") as file:
        body = file.read(MAX_BODY_BYTES + 1)
    notes = []
    if len(body) > MAX_BODY_BYTES:
        body = body[:MAX_BODY_BYTES]
        line = body.count(b"\n") + 1
        notes.append(
            f"note: only the first 500 KiB ({MAX_BODY_BYTES:,} bytes) of {path} count, as "
            f"in a crawl; the cut falls in line {line}, and everything after it is ignored"
        )
    return parse_robotstxt(body, profile), notes


def report(rules: RobotsTxt, urls: Sequence[str], user_agent: str) -> tuple[list[str], bool]:
    """One line per URL (with a note for a URL read as a path); and whether every URL is
    allowed."""
    lines = []
    all_allowed = True
    width = max(len(url) for url in urls)
    for url in urls:
        decision = rules.decide(url, user_agent)
        all_allowed = all_allowed and decision.allowed
        verdict = "allowed   " if decision.allowed else "DISALLOWED"
        lines.append(f"{verdict}  {url:<{width}}  {decision.explanation}")
        if origin_of(url) is None and not url.startswith("/"):
            lines.append(f"            note: {url!r} has no scheme; it was read as a path")
    return lines, all_allowed


# --------------------------------------------------------------------------- the command


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scrapy_rep",
        description="Check URLs against a robots.txt (a local file or fetched from a URL).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="check")
    check = commands.add_parser(
        "check",
        help="check URLs against a robots.txt",
        description="Check URLs against a robots.txt. With a URL as first argument, the "
        "robots.txt of each URL's own origin is fetched.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "robots",
        metavar="ROBOTS_FILE_OR_URL",
        nargs="?",
        help="a robots.txt file, or an http(s) URL whose origin's /robots.txt is fetched",
    )
    check.add_argument("urls", metavar="URL", nargs="*", help="the URLs to check")
    check.add_argument(
        "--example",
        action="store_true",
        help="use the robots.txt bundled with scrapy_rep; every argument is then a URL",
    )
    check.add_argument(
        "--user-agent",
        "-A",
        default=DEFAULT_USER_AGENT,
        help=f"a product token or a full User-Agent (default: {DEFAULT_USER_AGENT})",
    )
    check.add_argument("--profile", default="google", help="google (default), rfc9309, legacy")
    check.add_argument(
        "--timeout", type=float, default=10.0, help="seconds for each robots.txt (default: 10)"
    )
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """``python -m scrapy_rep``; returns the exit status (see :data:`EXIT_CODES`)."""
    out = out if out is not None else sys.stdout
    parser = _parser()
    try:
        options = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit_:
        return EXIT_ALLOWED if exit_.code == 0 else EXIT_USAGE
    if options.command != "check":
        parser.print_usage(sys.stderr)
        print("error: give a command: check", file=sys.stderr)
        return EXIT_USAGE
    problem = _usage_problem(options)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return _check(options, out)
    except OSError as error:
        print(f"error: cannot read {options.robots}: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE


def _usage_problem(options: argparse.Namespace) -> str:
    urls = ([options.robots] if options.robots else []) + options.urls
    if options.profile not in PROFILES:
        return f"--profile must be one of {', '.join(PROFILES)}, got {options.profile!r}"
    if not (urls if options.example else urls[1:]):
        return "give a robots.txt (file or URL, or --example) and at least one URL"
    if options.timeout <= 0:
        return f"--timeout must be a positive number of seconds, got {options.timeout:g}"
    return ""


@dataclass
class _Source:
    """One robots.txt and the URLs checked against it."""

    title: str
    rules: RobotsTxt
    urls: list[str]
    notes: list[str]
    unreachable: bool = False


def _check(options: argparse.Namespace, out: TextIO) -> int:
    agent, profile = options.user_agent, options.profile
    print(
        f"user agent: {agent} (product token {product_token(agent) or '-'}), profile {profile}",
        file=out,
    )
    code = EXIT_ALLOWED
    for source in _sources(options):
        print(f"robots.txt: {source.title}", file=out)
        for note in source.notes:
            print(note, file=out)
        delay = source.rules.crawl_delay(agent)
        print(f"crawl-delay: {'none' if delay is None else f'{delay:g} s'}", file=out)
        for sitemap in source.rules.sitemaps:
            print(f"sitemap: {sitemap}", file=out)
        lines, all_allowed = report(source.rules, source.urls, agent)
        for line in lines:
            print(line, file=out)
        if source.unreachable:
            code = EXIT_UNREACHABLE
        elif not all_allowed and code == EXIT_ALLOWED:
            code = EXIT_DISALLOWED
    return code


def _sources(options: argparse.Namespace) -> list[_Source]:
    """The robots.txt files to read and the URLs for each (raises ``OSError`` for an
    unreadable file)."""
    profile = options.profile
    if options.example:
        body = resources.files("scrapy_rep").joinpath("examples/robots.txt").read_bytes()
        urls = ([options.robots] if options.robots else []) + options.urls
        return [_Source("bundled example robots.txt", parse_robotstxt(body, profile), urls, [])]
    first = robots_url_for(options.robots) if "://" in options.robots else None
    if first is None:
        rules, notes = read_robots_file(Path(options.robots), profile)
        origins = {robots_url_for(url) for url in options.urls} - {None}
        if len(origins) > 1:
            notes.append(
                f"note: the URLs are on {len(origins)} origins; in a crawl each origin has "
                "its own robots.txt, here this file is checked for all of them"
            )
        return [_Source(options.robots, rules, options.urls, notes)]
    by_origin: dict[str, list[str]] = {first: []}
    for url in options.urls:
        by_origin.setdefault(robots_url_for(url) or first, []).append(url)
    sources = []
    for robots_url, urls in by_origin.items():
        if not urls:
            continue
        fetched = fetch_robotstxt(
            robots_url, user_agent=options.user_agent, profile=profile, timeout=options.timeout
        )
        notes = []
        if robots_url != first:
            notes.append(f"note: these URLs are on another origin than {options.robots}: "
                         "their own origin's robots.txt was fetched")  # fmt: skip
        title = f"{robots_url}: {fetched.outcome}"
        sources.append(_Source(title, fetched.rules, urls, notes, fetched.unreachable))
    return sources
