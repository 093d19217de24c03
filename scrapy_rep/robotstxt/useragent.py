"""Crawler identity: the product token of a User-Agent, and the robots.txt groups that
apply to it (SPEC §1, "User-agent matching").

Pure: no Scrapy imports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

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


#: ``compatible; Name/1.0`` in a Mozilla-style User-Agent: the crawler's name (Google's
#: crawlers: ``Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)``,
#: also after a browser's tokens, as Googlebot Smartphone and bingbot write it).
_COMPATIBLE = re.compile(r"compatible;\s*([^\s*\"(),/:;<=>?@\[\\\]{}]+)", re.IGNORECASE)


def crawler_name(user_agent: str) -> str:
    """The crawler's name as it presents itself in ``user_agent``, lowercased: the
    :func:`product_token`, except in a Mozilla-style string, where it is the token after
    ``compatible;`` (Google's crawlers, and the crawlers that write their User-Agent as
    they do, are matched by that name: SPEC §1, "User-agent matching"). A Mozilla-style
    string without it is a browser's: its name is ``mozilla`` (see :func:`is_browser`)."""
    token = product_token(user_agent)
    if token == "mozilla":
        found = _COMPATIBLE.search(user_agent)
        if found:
            return found.group(1).lower()
    return token


def is_browser(user_agent: str) -> bool:
    """Whether ``user_agent`` is a browser's (a Mozilla-style string that names no crawler
    after ``compatible;``): robots.txt groups would be matched for ``mozilla``."""
    return crawler_name(user_agent) == "mozilla"


def is_global_agent(value: str) -> bool:
    """SPEC §1: a robots.txt ``user-agent`` value of ``*`` alone, or ``*`` followed by
    (ASCII) whitespace, names the global group."""
    return value[:1] == "*" and value[1:2] in ("", " ", "\t", "\v", "\f")


def select_groups(
    tokens: Mapping[str, int | tuple[int, ...]], user_agent: str, *, substring: bool, merge: bool
) -> tuple[int, ...]:
    """The robots.txt groups that apply to ``user_agent``, in file order (SPEC §1
    "User-agent matching"; §2 "user-agent match", "group merging").

    ``tokens``: each group name (a product token, or ``*``) -> the group(s) naming it.
    ``substring``: a name applies when it is a substring of our token (legacy), else when
    it equals it. No group for us: the ``*`` groups. ``merge``: all of them, else the
    first. Raises :class:`TypeError` when ``user_agent`` is not text.
    """
    token = product_token(user_agent)
    groups: tuple[int, ...] = ()
    if not token:
        pass
    elif not substring:
        groups = _as_groups(tokens.get(token))
    else:
        found = {
            group
            for name, named in tokens.items()
            if name != "*" and name in token
            for group in _as_groups(named)
        }
        groups = tuple(sorted(found))
    if not groups:
        groups = _as_groups(tokens.get("*"))
    return groups if merge else groups[:1]


def _as_groups(named: int | tuple[int, ...] | None) -> tuple[int, ...]:
    if named is None:
        return ()
    return (named,) if isinstance(named, int) else named
