"""Crawler identity: the product token of a User-Agent (SPEC §1, "User-agent matching").

Pure: no Scrapy imports.
"""

from __future__ import annotations

import re

#: RFC 9309 §2.2.1: a product token is letters, ``-`` and ``_``; matching is on the
#: leading run of those characters, case-insensitively.
_TOKEN_RUN = re.compile(r"[A-Za-z_-]*")


def product_token(user_agent: str) -> str:
    """The leading run of letters, ``-`` and ``_`` of ``user_agent``, lowercased.

    ``"Scrapy/2.19 (+https://scrapy.org)"`` gives ``"scrapy"``; ``"FooBot*"`` gives
    ``"foobot"``. Leading whitespace is skipped. The result may be empty.
    """
    if not isinstance(user_agent, str):
        raise TypeError(f"user_agent must be str, not {type(user_agent).__name__}")
    match = _TOKEN_RUN.match(user_agent.lstrip())
    return match.group(0).lower() if match else ""
