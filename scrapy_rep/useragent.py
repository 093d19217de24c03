"""Crawler identity: the product token of a User-Agent (SPEC §1, "User-agent matching").

Pure: no Scrapy imports.
"""

from __future__ import annotations

import re

#: SPEC §1: a name runs up to the first character that ends a product token: whitespace,
#: ``*`` or an RFC 9110 §5.6.2 delimiter. For names of letters, ``-`` and ``_`` this is
#: Google's rule (its leading run of those characters); other names (``Rule1TestBot``,
#: ``AB42bot``, ``Jävla-Foobot``) are taken whole instead of being cut to their first
#: letters, so another crawler's group never applies to us.
_TOKEN = re.compile(r'[^\s*"(),/:;<=>?@\[\\\]{}]*')


def product_token(user_agent: str) -> str:
    """The crawler name of ``user_agent``, lowercased (compared case-insensitively).

    ``"Scrapy/2.19 (+https://scrapy.org)"`` gives ``"scrapy"``; ``"FooBot*"`` gives
    ``"foobot"``; ``"AB42bot"`` gives ``"ab42bot"``. Leading whitespace is skipped. The
    result may be empty (``"*"``, ``"/1.0"``).
    """
    if not isinstance(user_agent, str):
        raise TypeError(f"user_agent must be str, not {type(user_agent).__name__}")
    if user_agent.isalnum():  # the usual "Googlebot": letters and digits end no token
        return user_agent.lower()
    match = _TOKEN.match(user_agent.lstrip())
    return match.group(0).lower() if match else ""


def is_global_agent(value: str) -> bool:
    """SPEC §1: a robots.txt ``user-agent`` value of ``*`` alone, or ``*`` followed by
    (ASCII) whitespace, names the global group."""
    return value[:1] == "*" and value[1:2] in ("", " ", "\t", "\v", "\f")
