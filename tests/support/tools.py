"""The command-line tools as the tests run them, and the robots.txt bodies the tests of
``python -m scrapy_rep check`` serve and read from a file."""

from __future__ import annotations

import io

from scrapy_rep.check import main as check_main
from scrapy_rep.robotstxt import MAX_BODY_BYTES

#: 72 bytes: a Disallow, the Allow inside it that wins, a Crawl-delay.
ROBOTS_TXT = b"User-agent: *\nDisallow: /private/\nAllow: /private/press/\nCrawl-delay: 3\n"
#: Its last line, ``Disallow: /late``, past the 500 KiB a crawler reads.
ROBOTS_TXT_OVER_500_KIB = (
    b"User-agent: *\n" + b"# filler\n" * (MAX_BODY_BYTES // 9) + b"Disallow: /late\n"
)


def check_tool(*args: str) -> tuple[int, str]:
    """``python -m scrapy_rep check ARGS`` in this process: (exit status, stdout)."""
    out = io.StringIO()
    return check_main(["check", *args], out=out), out.getvalue()
