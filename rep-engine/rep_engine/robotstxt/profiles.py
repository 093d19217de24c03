"""robots.txt profiles: the switches of SPEC §2 and their three bundles (pure).

:class:`ParseOptions` holds one field per switch; :data:`PROFILES` names the bundles
"google" (default), "rfc9309" and "legacy" (the 1994 standard and the 1996 draft: the
reading of Python's ``urllib.robotparser`` before gh-138907, fixed in Python 3.13 and 3.14's
May 2026 releases: first matching line, blank lines end records, names matched as
substrings); :func:`profile_options` gives a profile with single switches overridden. Also
the size limits that apply to every profile.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Final, Literal

#: SPEC §1 / Google: only the first 500 KiB of a body count (RFC 9309 §2.5 asks for >= 500 KiB).
MAX_BODY_BYTES: Final = 512_000
#: SPEC §1: a longer line keeps its first 16663 bytes, as Google's parser does
#: (``kMaxLineLen - 1``, with ``kMaxLineLen = 2083 * 8``).
GOOGLE_MAX_LINE_BYTES: Final = 2083 * 8 - 1


def body_bytes(body: bytes | bytearray | memoryview | str, what: str = "body") -> bytes:
    """A document body (``what``, as a ``TypeError`` names it) as bytes, for every parser
    (robots.txt, tdmrep.json, RSL, an AI-usage statement): text is encoded as UTF-8 (lone
    surrogates kept), anything else is a ``TypeError``."""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8", "surrogatepass")
    if isinstance(body, (bytearray, memoryview)):
        return bytes(body)
    raise TypeError(f"{what} must be bytes or str, not {type(body).__name__}")


Profile = Literal["google", "rfc9309", "legacy"]


@dataclass(frozen=True)
class ParseOptions:
    """The switches of SPEC §2; a profile is a bundle of them."""

    #: ``"longest"``: longest pattern wins, allow wins ties; ``"first"``: first matching line.
    precedence: Literal["longest", "first"] = "longest"
    #: ``*`` and a final ``$`` are wildcards (otherwise plain prefix matching).
    wildcards: bool = True
    #: ``"token"``: exact product token; ``"substring"``: record name is a substring of ours.
    agent_match: Literal["token", "substring"] = "token"
    #: All groups naming the agent are merged (otherwise the first matching record only).
    merge_groups: bool = True
    #: A blank line ends a record (1994 standard).
    blank_line_ends_group: bool = False
    #: Accept Google's misspelled keys and a missing colon.
    lenient_syntax: bool = True
    #: Lines are cut after this many bytes (``None``: no limit).
    max_line_length: int | None = GOOGLE_MAX_LINE_BYTES
    #: ``allow: /d/index.html`` also allows ``/d/`` (Google).
    index_html_is_directory: bool = True
    #: ``/robots.txt`` is always allowed (RFC 9309 §2.2.2).
    robots_txt_always_allowed: bool = False
    #: ``"google"``, ``"rfc9309"``, ``"legacy"`` (1996 draft §3.2.2) or ``"none"``: see
    #: :func:`rep_engine.urls.encoding.normalise_pattern`.
    percent_encoding: Literal["google", "rfc9309", "legacy", "none"] = "google"
    #: Whether the profile's reference (Google's parser, RFC 9309, the 1996 draft) honours
    #: crawl-delay. The crawl obeys it in every profile unless ``REP_OBEY_CRAWL_DELAY`` is
    #: False (docs/settings.md says why).
    obey_crawl_delay: bool = False

    def __post_init__(self) -> None:
        _check_choice("precedence", self.precedence, ("longest", "first"))
        _check_choice("agent_match", self.agent_match, ("token", "substring"))
        _check_choice(
            "percent_encoding", self.percent_encoding, ("google", "rfc9309", "legacy", "none")
        )
        for switch in fields(self):
            value = getattr(self, switch.name)
            if switch.type in ("bool", bool) and not isinstance(value, bool):
                raise TypeError(f"{switch.name} must be a bool, not {type(value).__name__}")
        limit = self.max_line_length
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise TypeError(f"max_line_length must be an int or None, not {type(limit).__name__}")
        if limit is not None and limit < 1:
            raise ValueError(f"max_line_length must be at least 1, got {limit}")


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


#: SPEC §2: each profile as a bundle of switches.
PROFILES: Final[dict[str, ParseOptions]] = {
    "google": ParseOptions(),
    "rfc9309": ParseOptions(
        lenient_syntax=False,
        max_line_length=None,
        index_html_is_directory=False,
        robots_txt_always_allowed=True,
        percent_encoding="rfc9309",
    ),
    "legacy": ParseOptions(
        precedence="first",
        wildcards=False,
        agent_match="substring",
        merge_groups=False,
        blank_line_ends_group=True,
        lenient_syntax=False,
        max_line_length=None,
        index_html_is_directory=False,
        percent_encoding="legacy",
        obey_crawl_delay=True,
    ),
}

_SWITCHES: Final = frozenset(f.name for f in fields(ParseOptions))


def profile_options(profile: str = "google", **switches: Any) -> ParseOptions:
    """The options of ``profile`` with ``switches`` overriding single fields."""
    if not isinstance(profile, str):
        raise TypeError(f"profile must be str, not {type(profile).__name__}")
    try:
        options = PROFILES[profile]
    except KeyError:
        raise ValueError(
            f"unknown profile {profile!r}; expected one of {', '.join(map(repr, PROFILES))}"
        ) from None
    unknown = set(switches) - _SWITCHES
    if unknown:
        raise TypeError(f"unknown switch(es): {', '.join(sorted(unknown))}")
    return replace(options, **switches) if switches else options
