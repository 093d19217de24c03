"""Crawler identity: the crawler name of a User-Agent (its product token:
:func:`rep_engine.directives.product_token`), and the robots.txt groups that apply to it
(SPEC §1, "User-agent matching").

Pure: no Scrapy imports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Final

from rep_engine.directives import product_token

#: ``compatible; Name/1.0`` in a Mozilla-style User-Agent: the crawler's name (Google's
#: crawlers: ``Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)``,
#: also after a browser's tokens, as Googlebot Smartphone and bingbot write it).
_COMPATIBLE = re.compile(r"compatible;\s*([^\s*\"(),/:;<=>?@\[\\\]{}]+)", re.IGNORECASE)

#: The tokens browsers write after ``compatible;`` (``Mozilla/5.0 (compatible; MSIE 9.0;
#: Windows NT 6.1; Trident/5.0)``, Konqueror, Opera's Internet Explorer mask, IE Mobile):
#: a browser's, never a crawler's name. A crawler that writes its name after one
#: (``…; compatible; mybot/1.0)``) is named by its own token.
BROWSER_TOKENS: Final = frozenset({"msie", "konqueror", "opera", "iemobile", "u"})


def crawler_name(user_agent: str) -> str:
    """The crawler's name as it presents itself in ``user_agent``, lowercased: the
    :func:`product_token`, except in a Mozilla-style string, where it is the first token
    after ``compatible;`` that is not a browser's (:data:`BROWSER_TOKENS`; Google's
    crawlers, and the crawlers that write their User-Agent as they do, are matched by that
    name: SPEC §1, "User-agent matching"). A Mozilla-style string without one is a
    browser's: its name is ``mozilla`` (see :func:`is_browser`). So
    ``Mozilla/5.0 (compatible; mybot/1.0; …)`` selects mybot's group.

    The one function that names a crawler: the engine (:meth:`RobotsTxt.allowed` and the
    other queries), the crawl, the page pass and the tools all read a User-Agent with it.
    """
    token = product_token(user_agent)
    if token != "mozilla":
        return token
    names = (found.group(1).lower() for found in _COMPATIBLE.finditer(user_agent))
    return next((name for name in names if name not in BROWSER_TOKENS), token)


@lru_cache(maxsize=1024)
def held_names(declared: str, sent: str | None = "") -> tuple[str, ...]:
    """The crawler names a request is held to: the crawler's declared name (of
    ``declared``: ``ROBOTSTXT_USER_AGENT``, else the project's ``USER_AGENT``) first, then
    the name it is sent as (of ``sent``, the ``User-Agent`` it carries; ``""``: none other
    than the declared one; ``None``: sent with no ``User-Agent`` at all, or an empty one),
    each read by :func:`crawler_name`, without duplicates.

    A request may go only if every name allows it, and a page's directives addressed to
    any of them apply (docs/decisions.md, 'Every name a request can be held to'): a
    crawler sent as another crawler, or as a browser (whose name gives the ``*`` group),
    keeps its own group's "no", and gets none of the other name's exemptions. A request
    sent with a ``User-Agent`` that names no crawler (``*``, ``/1.0``), an empty one or
    none is read by a site under the ``*`` group: it is held to ``""`` too, the name
    that selects it. Never empty: a crawler with no name at all is held to ``""``.
    Memoised: a crawl has one declared name and a rotator's few sent ones.
    """
    own = crawler_name(declared)
    if sent == "":
        return (own,)
    other = crawler_name(sent) if sent is not None else ""
    if other == own:
        return (own,)
    return (other,) if not own else (own, other)


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

    ``user_agent``: a product token or a whole User-Agent, read by :func:`crawler_name`.
    ``tokens``: each group name (a product token, or ``*``) -> the group(s) naming it.
    ``substring``: a name applies when it is a substring of our token (legacy), else when
    it equals it. No group for us: the ``*`` groups. ``merge``: all of them, else the
    first. Raises :class:`TypeError` when ``user_agent`` is not text.
    """
    token = crawler_name(user_agent)
    groups: tuple[int, ...] = ()
    if token and not substring:
        groups = _as_groups(tokens.get(token))
    elif token:
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
