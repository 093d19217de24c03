"""The robots.txt checker: ``python -m scrapy_rep check ROBOTS_FILE_OR_URL URL…``.

Prints, for each URL, whether the crawler may fetch it and the robots.txt line that
decided it, like a robots.txt tester. A URL as first argument is fetched with the status
rules of SPEC §4 (standard library only: this module imports nothing from Scrapy):

- 2xx: the body is parsed (at most 500 KiB are read);
- 3xx: followed, at most 5 hops, to any host; more hops or a loop count as 404;
- 4xx except 429: no robots.txt, everything allowed;
- 429, 5xx, DNS errors, timeouts, refused or reset connections: everything temporarily
  disallowed.

Exit status: 0 when every URL is allowed, 1 when any is disallowed, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import http.client
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TextIO

from scrapy_rep.fetchpolicy import MAX_REDIRECTS, Effect, effect_of_status, may_follow
from scrapy_rep.robotstxt import (
    ALLOW_ALL,
    DISALLOW_ALL,
    MAX_BODY_BYTES,
    PROFILES,
    RobotsTxt,
    parse_robotstxt,
)
from scrapy_rep.useragent import product_token

#: What a default Scrapy project calls itself (``Scrapy/2.x (+https://scrapy.org)``).
DEFAULT_USER_AGENT = "Scrapy"


@dataclass(frozen=True)
class FetchedRobots:
    """The outcome of fetching one robots.txt (SPEC §4)."""

    #: The robots.txt URL asked for.
    url: str
    #: The rules that apply: parsed, or ALLOW_ALL / DISALLOW_ALL.
    rules: RobotsTxt
    #: One line for people: "200 OK, 1,234 bytes", "404: no robots.txt, everything allowed"…
    outcome: str
    #: The HTTP status of the last response, ``None`` on a network error.
    status: int | None = None
    #: Where the robots.txt was found after redirects.
    final_url: str | None = None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are followed by :func:`fetch_robotstxt` itself, to count the hops."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def robots_url_for(url: str) -> str:
    """The ``/robots.txt`` of ``url``'s origin (SPEC §3: only there, never in sub-folders)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/robots.txt", "", ""))


def fetch_robotstxt(
    url: str,
    *,
    user_agent: str = DEFAULT_USER_AGENT,
    profile: str = "google",
    timeout: float = 10.0,
) -> FetchedRobots:
    """Fetch ``url`` (a robots.txt URL) and apply the status rules of SPEC §4."""
    opener = urllib.request.build_opener(_NoRedirects())
    current = url
    seen = {url}
    for _ in range(MAX_REDIRECTS + 1):
        request = urllib.request.Request(current, headers={"User-Agent": user_agent})
        try:
            with opener.open(request, timeout=timeout) as response:
                status = response.status
                body = response.read(MAX_BODY_BYTES)
                truncated = bool(response.read(1))
        except urllib.error.HTTPError as error:
            status = error.code
            location = error.headers.get("Location")
            error.close()
            if effect_of_status(status, has_location=bool(location)) is Effect.FOLLOW:
                current = urllib.parse.urljoin(current, location)
                if not may_follow(current):  # never file:, data:, ftp:… (SPEC §7)
                    return FetchedRobots(
                        url,
                        ALLOW_ALL,
                        f"{status}: redirect to {current[:200]} not followed, treated as 404",
                        status,
                    )
                if current in seen:
                    return FetchedRobots(
                        url, ALLOW_ALL, f"{status}: redirect loop, treated as 404", status
                    )
                seen.add(current)
                continue
            return _by_status(url, status, current)
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            reason = getattr(error, "reason", error)
            if isinstance(reason, socket.timeout | TimeoutError):
                reason = "timed out"
            return FetchedRobots(
                url,
                DISALLOW_ALL,
                f"unreachable ({reason}): everything temporarily disallowed",
                None,
            )
        if not 200 <= status < 300:
            return _by_status(url, status, current)
        size = f"{len(body):,} bytes" + (", cut at 500 KiB" if truncated else "")
        hops = "" if current == url else f", via redirect to {current}"
        return FetchedRobots(
            url, parse_robotstxt(body, profile), f"{status} OK ({size}{hops})", status, current
        )
    return FetchedRobots(
        url, ALLOW_ALL, f"more than {MAX_REDIRECTS} redirects: treated as 404", None
    )


def _by_status(url: str, status: int, final_url: str) -> FetchedRobots:
    effect = effect_of_status(status, has_location=False)
    if effect is Effect.UNREACHABLE:
        return FetchedRobots(
            url, DISALLOW_ALL, f"{status}: everything temporarily disallowed", status, final_url
        )
    if 400 <= status < 500:
        return FetchedRobots(
            url, ALLOW_ALL, f"{status}: no robots.txt, everything allowed", status, final_url
        )
    # 1xx or an unfollowable 3xx (no Location): nothing usable, as for a 404.
    return FetchedRobots(url, ALLOW_ALL, f"{status}: no usable robots.txt", status, final_url)


def report(rules: RobotsTxt, urls: Sequence[str], user_agent: str) -> tuple[list[str], bool]:
    """One line per URL; and whether every URL is allowed."""
    lines = []
    all_allowed = True
    width = max(len(url) for url in urls)
    for url in urls:
        decision = rules.decide(url, user_agent)
        all_allowed = all_allowed and decision.allowed
        verdict = "allowed   " if decision.allowed else "DISALLOWED"
        why = (
            f"line {decision.line}: {decision.line_text}"
            if decision.line is not None
            else decision.reason
        )
        lines.append(f"{verdict}  {url:<{width}}  {why}")
    return lines, all_allowed


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scrapy_rep check",
        description="Check URLs against a robots.txt (a local file or fetched from a URL).",
    )
    parser.add_argument(
        "robots",
        metavar="ROBOTS_FILE_OR_URL",
        nargs="?",
        help="a robots.txt file, or an http(s) URL whose origin's /robots.txt is fetched",
    )
    parser.add_argument("urls", metavar="URL", nargs="*", help="the URLs to check")
    parser.add_argument(
        "--example",
        action="store_true",
        help="use the robots.txt bundled with scrapy_rep; every argument is then a URL",
    )
    parser.add_argument(
        "--user-agent",
        "-A",
        default=DEFAULT_USER_AGENT,
        help=f"a product token or a full User-Agent (default: {DEFAULT_USER_AGENT})",
    )
    parser.add_argument("--profile", default="google", help="google (default), rfc9309, legacy")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds (default: 10)")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """The ``check`` command; returns the exit status."""
    out = out if out is not None else sys.stdout
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "check":
        print("usage: python -m scrapy_rep check ROBOTS_FILE_OR_URL URL…", file=sys.stderr)
        return 2
    parser = _parser()
    try:
        options = parser.parse_args(args[1:])
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else 2
    urls = ([options.robots] if options.robots else []) + options.urls
    source = None
    if not options.example:
        source, urls = (urls[0], urls[1:]) if urls else (None, [])
    if not urls or (source is None and not options.example):
        print(
            "error: give a robots.txt (file or URL, or --example) and at least one URL",
            file=sys.stderr,
        )
        return 2
    if options.profile not in PROFILES:
        print(
            f"error: --profile must be one of {', '.join(PROFILES)}, got {options.profile!r}",
            file=sys.stderr,
        )
        return 2
    if options.example:
        body = resources.files("scrapy_rep").joinpath("examples/robots.txt").read_bytes()
        rules, origin = parse_robotstxt(body, options.profile), "bundled example robots.txt"
    elif source is not None and source.startswith(("http://", "https://")):
        fetched = fetch_robotstxt(
            robots_url_for(source),
            user_agent=options.user_agent,
            profile=options.profile,
            timeout=options.timeout,
        )
        rules, origin = fetched.rules, f"{fetched.url}: {fetched.outcome}"
    else:
        path = Path(str(source))
        try:
            body = path.read_bytes()
        except OSError as error:
            print(f"error: cannot read {path}: {error.strerror or error}", file=sys.stderr)
            return 2
        rules, origin = parse_robotstxt(body, options.profile), str(path)
    token = product_token(options.user_agent) or "(none: only the * group applies)"
    print(f"robots.txt: {origin}", file=out)
    print(
        f"user agent: {options.user_agent} (product token {token}), profile {options.profile}",
        file=out,
    )
    delay = rules.crawl_delay(options.user_agent)
    print(f"crawl-delay: {'none' if delay is None else f'{delay:g} s'}", file=out)
    for sitemap in rules.sitemaps:
        print(f"sitemap: {sitemap}", file=out)
    lines, all_allowed = report(rules, urls, options.user_agent)
    for line in lines:
        print(line, file=out)
    return 0 if all_allowed else 1
