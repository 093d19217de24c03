"""What the two command-line tools read from their command line, read one way for both
(``python -m scrapy_rep check`` and ``scrapy rep-robots``; docs/cli.md, "What the tools
accept"): a URL to check, a path where a local robots.txt is given, a robots.txt file,
and ``--timeout``.

Pure and without I/O: it says what an argument is and, for a bad one, the one message
of its kind, which both tools print as ``scrapy_rep: error: <message>`` before they
exit with status 2 (:data:`scrapy_rep.checker.exits.EXIT_USAGE`). Reading the file, fetching
and deciding are elsewhere. What it accepts:

- a URL: ``http://`` or ``https://`` with a host (RFC 3986 §3: scheme and authority).
  The tools check http(s) URLs only; an ``ftp:`` origin has a robots.txt of its own in
  a crawl (SPEC §3), but not in the tools. ``example.com/a``
  is refused, saying to add ``http://`` or ``https://``: the scheme is part of the
  origin (RFC 9309 §2.3: one robots.txt per protocol, host and port), so guessing it
  could check the URL against a robots.txt the crawl would never read.
- a path (``/a?b``): only where a local robots.txt is given (``check FILE``,
  ``check --example``, ``scrapy rep-robots --robots-file`` without ``--page`` or a
  purpose), which has no origin: the path is what robots.txt rules match (RFC 9309
  §2.2.2). Elsewhere: :class:`Paths`.
- ``check``'s first argument (:func:`first_is_url`) and ``--timeout``
  (:func:`parse_timeout`).
"""

from __future__ import annotations

import enum
import math
import re
from typing import Final
from urllib.parse import urlsplit

#: The schemes of a URL the tools check: robots.txt is fetched over http(s) only.
URL_SCHEMES: Final = ("http", "https")
#: The longest ``--timeout``, in seconds: a day. Nothing needs more per download, and the
#: reactor's timers overflow for far larger values.
MAX_TIMEOUT: Final = 86_400.0
#: ``scheme://`` at the start of an argument (RFC 3986 §3.1: a letter, then letters,
#: digits, ``+``, ``-`` or ``.``). Only with ``//``: ``localhost:8080/a`` or
#: ``example.com:81/a`` would otherwise read as the scheme ``localhost`` or
#: ``example.com`` (Python's ``urlsplit`` reads them so).
_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
#: Characters no host name holds (RFC 3986 §3.2.2 reg-name; §2.2 delimiters outside it,
#: whitespace and controls).
_NOT_IN_HOST: Final = re.compile(r"[\x00-\x20\x7f<>\"{}|\\^`]")
#: The hint every URL message ends with.
ADD_SCHEME: Final = "give a URL with http:// or https://"


class InputError(ValueError):
    """An argument the tools cannot use; ``str()`` is the one message of its kind."""


class Paths(enum.Enum):
    """Whether a path (``/a``) is accepted where a URL is expected, and if not, why."""

    #: A local robots.txt is given and nothing is fetched per URL: a path is checked.
    ACCEPTED = "accepted"
    #: Each URL's own origin's robots.txt is fetched: a path has no origin.
    NEED_A_FILE = "a path is checked only against a local robots.txt file"
    #: ``scrapy rep-robots --page`` or a purpose fetches each page: a path cannot be.
    PAGES_FETCHED = "--page and --purpose (or REP_PURPOSE) fetch each page"


def parse_url(text: str, paths: Paths = Paths.NEED_A_FILE) -> str:
    """``text`` as a URL to check (or, where ``paths`` accepts one, a path), as given;
    :class:`InputError` with the message of its kind when the tools cannot check it."""
    if text.startswith("/") and not text.startswith("//"):
        if paths is Paths.ACCEPTED:
            return text
        raise InputError(f"{text!r} is a path: {paths.value}; {ADD_SCHEME}")
    match = _SCHEME.match(text)
    if match is None:
        if text.lower().startswith(("http:", "https:")):  # http:/a, https:example.com
            raise InputError(f"{text!r} is not a valid URL: no // after the scheme")
        raise InputError(f"{text!r} has no scheme: add http:// or https://")
    scheme = match.group(1).lower()
    if scheme not in URL_SCHEMES:
        hint = " (name a local robots.txt by its path)" if scheme == "file" else ""
        raise InputError(f"{text!r}: only http:// and https:// URLs are checked{hint}")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (raises ValueError for a port that is no number or too big)
    except ValueError as error:  # "Invalid IPv6 URL", "Port out of range 0-65535"
        raise InputError(f"{text!r} is not a valid URL: {error}") from None
    host = parts.hostname or ""
    if not host.strip("."):
        raise InputError(f"{text!r} is not a valid URL: it has no host")
    if _NOT_IN_HOST.search(host):
        why = f"its host {host!r} has a character a host name cannot have"
        raise InputError(f"{text!r} is not a valid URL: {why}")
    return text


def first_is_url(text: str, *, alone: bool, is_file: bool) -> bool:
    """Whether ``check``'s first argument (``ROBOTS_FILE_OR_URL``) is a URL: it has a
    scheme (``scheme://``: meant as a URL, never as a file); or it comes alone (``check
    URL``: a file alone has nothing to check) and names no file (``is_file``: the caller
    looked). Otherwise it is a robots.txt file."""
    return _SCHEME.match(text) is not None or (alone and not is_file)


def unreadable_file(path: str, reason: str) -> InputError:
    """A robots.txt file that cannot be read (``reason``: the system's words, such as
    ``No such file or directory``)."""
    return InputError(f"cannot read {path}: {reason}")


def parse_timeout(text: str) -> float:
    """``--timeout``: seconds for each fetch, greater than 0 and at most
    :data:`MAX_TIMEOUT` (not a number, ``nan``, ``inf``, 0 or less: :class:`InputError`)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_TIMEOUT:  # False for nan
        raise InputError(
            f"--timeout: expected a number of seconds greater than 0 and at most "
            f"{MAX_TIMEOUT:g}, got {text!r}"
        )
    return seconds
