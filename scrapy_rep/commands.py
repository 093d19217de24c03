"""``scrapy robots URL…``: what robots.txt and the pages say, with the project's settings.

The robots.txt side is the checker of :mod:`scrapy_rep.check` (one implementation, two
entry points): each origin's robots.txt is fetched once with the fetch rules of SPEC §4,
and every URL gets its verdict and the deciding line. The crawler's identity and profile
come from the project's settings (``ROBOTSTXT_USER_AGENT`` or ``USER_AGENT``,
``REP_PROFILE``). ``--page`` also fetches each allowed page and prints its meta /
``X-Robots-Tag`` directives.

Exit status: 0 when every URL is allowed, 1 when any is forbidden, 2 on errors (an
origin unreachable, a page that cannot be fetched, an unreadable ``--robots-file``).
"""

from __future__ import annotations

import argparse
import urllib.error
import urllib.request
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.http import Headers
from scrapy.responsetypes import responsetypes

from scrapy_rep.check import fetch_robotstxt, report, robots_url_for
from scrapy_rep.pagedirectives import page_directives
from scrapy_rep.robotstxt import MAX_BODY_BYTES, RobotsTxt, parse_robotstxt
from scrapy_rep.settings import RepConfig
from scrapy_rep.useragent import product_token

#: The most of a page read for ``--page`` (the directives are in headers and HTML).
MAX_PAGE_BYTES = 10 * 1024 * 1024


class RobotsCommand(ScrapyCommand):
    """``scrapy robots [--robots-file FILE] [--page] URL…``"""

    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "[options] URL [URL ...]"

    def short_desc(self) -> str:
        return "Check URLs against robots.txt and page directives (scrapy_rep)"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument(
            "--robots-file", metavar="FILE", help="check against this local robots.txt"
        )
        parser.add_argument(
            "--page", action="store_true", help="also fetch each allowed page: its directives"
        )
        parser.add_argument("--timeout", type=float, default=10.0, help="seconds (default: 10)")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if not args:
            raise UsageError("give at least one URL")
        assert self.settings is not None
        user_agent = str(
            self.settings.get("ROBOTSTXT_USER_AGENT") or self.settings.get("USER_AGENT") or ""
        )
        config = RepConfig.from_settings(self.settings)
        profile = config.profile
        print(
            f"user agent: {user_agent} (product token {product_token(user_agent) or '-'}), "
            f"profile {profile}"
        )
        local: RobotsTxt | None = None
        if opts.robots_file:
            try:
                with open(opts.robots_file, "rb") as file:
                    local = parse_robotstxt(file.read(MAX_BODY_BYTES), profile)
            except OSError as error:
                print(f"error: cannot read {opts.robots_file}: {error.strerror or error}")
                self.exitcode = 2
                return
        by_origin: dict[str, list[str]] = {}
        for url in args:
            by_origin.setdefault(robots_url_for(url), []).append(url)
        errors = forbidden = False
        for robots_url, urls in by_origin.items():
            if local is not None:
                rules, outcome = local, f"{opts.robots_file} (local file)"
            else:
                fetched = fetch_robotstxt(
                    robots_url, user_agent=user_agent, profile=profile, timeout=opts.timeout
                )
                rules, outcome = fetched.rules, f"{robots_url}: {fetched.outcome}"
                errors = errors or fetched.status is None
            print(f"\nrobots.txt {outcome}")
            delay = rules.crawl_delay(user_agent)
            print(f"  crawl-delay: {'none' if delay is None else f'{delay:g} s'}")
            for sitemap in rules.sitemaps:
                print(f"  sitemap: {sitemap}")
            lines, all_allowed = report(rules, urls, user_agent)
            forbidden = forbidden or not all_allowed
            for url, line in zip(urls, lines, strict=True):
                print(f"  {line}")
                if opts.page and rules.allowed(url, user_agent):
                    page_line, ok = _page_report(url, user_agent, opts.timeout, config)
                    errors = errors or not ok
                    print(f"      page: {page_line}")
        self.exitcode = 2 if errors else (1 if forbidden else 0)


def _page_report(url: str, user_agent: str, timeout: float, config: RepConfig) -> tuple[str, bool]:
    """Fetch ``url`` and describe its directives; (text, fetched successfully)."""
    request = urllib.request.Request(url, headers={"User-Agent": user_agent})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status, raw_headers = answer.status, answer.headers
            body = answer.read(MAX_PAGE_BYTES)
    except urllib.error.HTTPError as error:
        status, raw_headers, body = error.code, error.headers, error.read(MAX_PAGE_BYTES)
    except (urllib.error.URLError, OSError) as error:
        return f"not fetched ({getattr(error, 'reason', error)})", False
    headers = Headers({name: raw_headers.get_all(name) for name in set(raw_headers)})
    cls = responsetypes.from_args(headers=headers, url=url, body=body)
    response = cls(url=url, status=status, headers=headers, body=body)
    directives = page_directives(
        response,
        user_agent,
        extra_tokens=config.directive_tokens,
        meta_in_noscript=config.meta_in_noscript,
    )
    where = "; ".join(directives.sources) if directives.sources else "no robots meta tag or header"
    return f"{status}, directives: {directives} ({where})", True
