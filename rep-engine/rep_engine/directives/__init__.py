"""Page-level directives: ``X-Robots-Tag`` values and robots meta ``content`` (SPEC §6).

Pure: no Scrapy imports. :func:`header_directives` and :func:`meta_directives` turn raw
values into directive strings that apply to our crawler; :func:`combine` folds them into
one immutable :class:`PageDirectives` ("the more restrictive wins", "the sum of the
negative rules"). Nothing here raises on content: what cannot be understood is kept in
``unknown`` (unknown directives) or skipped and logged at DEBUG (bad values).

``unavailable_after`` dates are read in the forms sites write (:func:`parse_date`), as
UTC (SPEC §6).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Final

logger = logging.getLogger(__name__)

#: SPEC §6: the negative directives, each a flag of :class:`PageDirectives`.
FLAGS: Final = (
    "noindex",
    "nofollow",
    "noarchive",
    "nocache",
    "nosnippet",
    "notranslate",
    "noimageindex",
    "indexifembedded",
    "noai",
    "noimageai",
    # Mojeek's NoML proposal (noml.info, 2023): "a new 'noml' value to the already-existing
    # meta and X-Robots tag", for content that may be searched but not used in machine
    # learning; read like noai (docs/purpose-notes.md §4b).
    "noml",
)
#: Directives that change nothing and never cancel a negative one.
NO_OPS: Final = frozenset({"all", "index", "follow"})
#: Directives written ``key: value``; a header piece starting with one of these is a
#: directive, not a crawler token (SPEC §6).
KEYED: Final = frozenset(
    {"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"}
)
IMAGE_PREVIEWS: Final = ("none", "standard", "large")  # most restrictive first

#: A piece that starts a new directive (or a crawler prefix): a bare word, or ``word:``.
_DIRECTIVE_START = re.compile(r"\s*[A-Za-z_-]+\s*(?::|$)")
_SEPARATORS = re.compile(r"[,;]")
_WHITESPACE = re.compile(r"\s+")
#: The one-word value of a ``max-…:`` directive, with the spaces before it.
_ONE_WORD = re.compile(r"\s*\S+")
#: A product token (SPEC §1): a name runs up to the first character that ends one:
#: whitespace, ``*`` or an RFC 9110 §5.6.2 delimiter. For names of letters, ``-`` and
#: ``_`` this is Google's rule (its leading run of those characters); other names
#: (``Rule1TestBot``, ``AB42bot``, ``Jävla-Foobot``) are taken whole instead of being cut to
#: their first letters, so another crawler's group never applies to us; and a crawler
#: token before ``:`` in a header scopes what follows as ``googlebot:`` does.
_TOKEN = re.compile(r'[^\s"(),/:;<=>?@\[\\\]{}*]+')


def product_token(name: str) -> str:
    """The crawler name of a User-Agent, a robots.txt group's ``User-agent`` or an
    ``X-Robots-Tag`` scope, lowercased (compared case-insensitively; RFC 9309 §2.2.1).

    ``"Scrapy/2.19 (+https://scrapy.org)"`` gives ``"scrapy"``; ``"FooBot*"`` gives
    ``"foobot"``; ``"AB42bot"`` gives ``"ab42bot"``. Leading whitespace is skipped. The
    result may be empty (``"*"``, ``"/1.0"``).
    """
    if not isinstance(name, str):
        raise TypeError(f"user_agent must be str, not {type(name).__name__}")
    if name.isalnum():  # the usual "Googlebot": letters and digits end no token
        return name.lower()
    match = _TOKEN.match(name.lstrip())
    return match.group(0).lower() if match else ""


@dataclass(frozen=True)
class PageDirectives:
    """The directives of one response that apply to our crawler, combined."""

    noindex: bool = False
    nofollow: bool = False
    noarchive: bool = False
    nocache: bool = False
    nosnippet: bool = False
    notranslate: bool = False
    noimageindex: bool = False
    indexifembedded: bool = False
    noai: bool = False
    noimageai: bool = False
    noml: bool = False
    #: Characters of snippet allowed; 0 = nosnippet, -1 = no limit, None = not given.
    max_snippet: int | None = None
    #: ``"none"``, ``"standard"`` or ``"large"``; None = not given.
    max_image_preview: str | None = None
    #: Seconds of video preview; 0 = none, -1 = no limit, None = not given.
    max_video_preview: int | None = None
    #: The earliest ``unavailable_after`` date (UTC), None = not given.
    unavailable_after: datetime | None = None
    #: Directives kept but not understood (lowercased), in order of appearance.
    unknown: tuple[str, ...] = ()
    #: Where the directives came from (``X-Robots-Tag: none``, ``<meta name="robots" …>``).
    sources: tuple[str, ...] = field(default=(), compare=False)

    def is_expired(self, now: datetime | None = None) -> bool:
        """Has ``unavailable_after`` passed? (SPEC §6: then the page counts as noindex)."""
        if self.unavailable_after is None:
            return False
        now = now if now is not None else datetime.now(timezone.utc)
        if now.tzinfo is None:
            now = now.replace(tzinfo=timezone.utc)
        return now >= self.unavailable_after

    def blocks_indexing(self, now: datetime | None = None) -> bool:
        """noindex, or an ``unavailable_after`` that has passed."""
        return self.noindex or self.is_expired(now)

    def __bool__(self) -> bool:
        """True when any directive (known or unknown) was found."""
        return self != EMPTY

    def __str__(self) -> str:
        parts = [name for name in FLAGS if getattr(self, name)]
        for name in ("max_snippet", "max_image_preview", "max_video_preview"):
            value = getattr(self, name)
            if value is not None:
                parts.append(f"{name.replace('_', '-')}:{value}")
        if self.unavailable_after is not None:
            parts.append(f"unavailable_after:{self.unavailable_after.isoformat()}")
        parts.extend(self.unknown)
        return ", ".join(parts) if parts else "(none)"


EMPTY: Final = PageDirectives()


# --------------------------------------------------------------------------- syntax


def _pieces(value: str) -> list[str]:
    """Split on ``,`` and ``;``; a date after ``unavailable_after:`` keeps its commas.

    Linear in the length of ``value``: a piece is collected as a list of parts and joined
    once (a 1.6 MB date must not cost seconds of string copies)."""
    pieces: list[list[str]] = []
    in_date = False
    for piece in _SEPARATORS.split(value):
        if in_date and pieces and not _DIRECTIVE_START.match(piece):
            pieces[-1].append(piece)  # "unavailable_after: Friday, 25-Jun-10 …"
            continue
        piece = piece.strip()
        if not piece:
            in_date = False
            continue
        pieces.append([piece])
        head, colon, rest = piece.partition(":")
        head = head.strip().lower()
        in_date = head.rpartition(" ")[2] == "unavailable_after" or (
            bool(colon) and rest.strip().lower().startswith("unavailable_after")
        )
    return [",".join(parts) for parts in pieces]


def _words(piece: str) -> list[str]:
    """SPEC §6 leniency: a piece without a colon holding several words is split. One with
    a colon is split too around its ``key: value`` (the reading that errs toward
    restriction: ``noindex max-snippet:50`` is a noindex): the words before the key are
    directives, and so are those after the one-word value of a ``max-…`` key (an
    ``unavailable_after`` date runs to the piece's end; another key is no directive)."""
    head, colon, rest = piece.partition(":")
    if not colon:
        return _WHITESPACE.split(piece.strip())
    before = _WHITESPACE.split(head.strip())
    key = before.pop()
    value = _ONE_WORD.match(rest)
    if key.lower() not in KEYED or key.lower() == "unavailable_after" or value is None:
        return [*before, f"{key}:{rest}"]
    return [*before, f"{key}:{value[0]}", *_WHITESPACE.split(rest[value.end() :].strip())]


def meta_directives(content: str) -> list[str]:
    """The directives of one ``<meta name=… content=…>`` (no crawler prefixes in meta)."""
    return [word for piece in _pieces(content) for word in _words(piece) if word]


def header_directives(value: str, tokens: Collection[str]) -> list[str]:
    """The directives of one ``X-Robots-Tag`` value that apply to a crawler with ``tokens``.

    ``token: directives`` scopes what follows to that crawler until the next
    ``token:`` prefix; unscoped directives apply to everyone (SPEC §6), as do those
    scoped to ``*:`` (the name of every crawler in robots.txt and ``Robots-Tag``).
    ``tokens`` are lowercased product tokens.
    """
    applying: list[str] = []
    scope: str | None = None
    for piece in _pieces(value):
        head, colon, rest = piece.partition(":")
        name = head.strip().lower()
        if colon and name not in KEYED and (name == "*" or _TOKEN.fullmatch(name)):
            scope = None if name == "*" else name
            piece = rest.strip()
            if not piece:
                continue
        if scope is None or scope in tokens:
            applying.extend(word for word in _words(piece) if word)
    return applying


# --------------------------------------------------------------------------- values


def _limit(value: str) -> int | None:
    """``max-snippet`` / ``max-video-preview``: an integer >= -1, else invalid (None)."""
    value = value.strip()
    if not re.fullmatch(r"-?\d{1,12}", value):
        return None
    number = int(value)
    return number if number >= -1 else None


def _stricter_limit(old: int | None, new: int) -> int:
    """The more restrictive of two limits: any 0..N beats -1 (no limit); smaller wins."""
    if old is None or old == -1:
        return new
    if new == -1:
        return old
    return min(old, new)


# --------------------------------------------------------------------------- combining


def _earlier_date(
    unavailable: datetime | None, text: str, unknown: dict[str, None]
) -> datetime | None:
    """The earlier of ``unavailable`` and the date of the ``unavailable_after`` directive
    ``text``; an unparseable one is kept in ``unknown``, with no effect, so that the
    spider can see it."""
    date = parse_date(text.partition(":")[2])
    if date is None:
        logger.debug("unparseable unavailable_after date ignored: %r", text[:200])
        unknown[text.lower()] = None
        return unavailable
    return date if unavailable is None or date < unavailable else unavailable


def combine(directives: Iterable[str], sources: Iterable[str] = ()) -> PageDirectives:
    """Fold directive strings into one :class:`PageDirectives` (SPEC §6 "combination")."""
    flags: dict[str, bool] = {}
    max_snippet: int | None = None
    max_video: int | None = None
    image: str | None = None
    unavailable: datetime | None = None
    unknown: dict[str, None] = {}
    for directive in directives:
        text = directive.strip()
        lowered = text.lower()
        name, colon, value = lowered.partition(":")
        name = name.strip()
        if not colon:
            if lowered in FLAGS:
                flags[lowered] = True
            elif lowered == "none":
                flags["noindex"] = flags["nofollow"] = True
            elif lowered not in NO_OPS and lowered:
                unknown[lowered] = None
            continue
        if name == "max-snippet" and (limit := _limit(value)) is not None:
            max_snippet = _stricter_limit(max_snippet, limit)
        elif name == "max-video-preview" and (limit := _limit(value)) is not None:
            max_video = _stricter_limit(max_video, limit)
        elif name == "max-image-preview" and (choice := value.strip()) in IMAGE_PREVIEWS:
            image = min(choice, image or choice, key=IMAGE_PREVIEWS.index)  # the stricter
        elif name == "unavailable_after":
            unavailable = _earlier_date(unavailable, text, unknown)
        elif name in KEYED:
            logger.debug("invalid value ignored: %r", text)
        else:
            unknown[lowered] = None
    # SPEC §6 (`max-snippet:0` = nosnippet): nosnippet and max-snippet:0 are the same thing,
    # both ways.
    if flags.get("nosnippet") or max_snippet == 0:
        flags["nosnippet"] = True
        max_snippet = 0
    return PageDirectives(
        **flags,
        max_snippet=max_snippet,
        max_image_preview=image,
        max_video_preview=max_video,
        unavailable_after=unavailable,
        unknown=tuple(unknown),
        sources=tuple(sources),
    )


#: An RFC 9651 Date (``@`` and an Integer: seconds since 1970) or an Integer.
_EPOCH = re.compile(r"@?-?[0-9]{1,15}")
#: A leap second (``23:59:60``): read as ``23:59:59``, which ``datetime`` can hold.
_LEAP_SECOND = re.compile(r"(\d{1,2}:\d{2}):60(?!\d)")


def parse_date(text: str) -> datetime | None:
    """An ``unavailable_after`` date in UTC, or None (SPEC §6: RFC 822/1123, RFC 850,
    ISO 8601 with date only = 00:00 UTC, and a few widely used forms). A leap second
    counts as the second before it; a date ``datetime`` cannot hold (year 10000, or
    year 1 before UTC) is no date. Never raises on content."""
    text = _LEAP_SECOND.sub(r"\1:59", text.strip())
    if not text:
        return None
    try:
        parsed = _parse_any(text)
        if parsed is None:
            return None
        return parsed.replace(tzinfo=parsed.tzinfo or timezone.utc).astimezone(timezone.utc)
    except (OverflowError, ValueError):  # out of datetime's range, in any parser
        return None


def epoch_date(text: str) -> datetime | None:
    """A Structured Field Date (RFC 9651 §3.3.7, ``@1577836800``) or Integer of seconds
    since 1970, in UTC; ``None`` for another value or one ``datetime`` cannot hold."""
    if _EPOCH.fullmatch(text) is None:
        return None
    try:
        return datetime.fromtimestamp(int(text.lstrip("@")), timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _parse_any(text: str) -> datetime | None:
    try:
        parsed = parsedate_to_datetime(text)  # RFC 822/1123/850 with zone names (PST…)
    except (TypeError, ValueError, IndexError):
        parsed = None
    return parsed or _parse_iso(text) or _parse_loose(text)


def _parse_iso(text: str) -> datetime | None:
    candidate = text.replace(" ", "T", 1) if re.match(r"\d{4}-\d\d-\d\d \d", text) else text
    if candidate.endswith(("Z", "z")):
        candidate = candidate[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(candidate)
    except ValueError:
        return None


_LOOSE_FORMATS: Final = (
    "%d %B %Y",
    "%d %b %Y",
    "%B %d %Y",
    "%b %d %Y",
    "%d-%b-%Y",
    "%Y/%m/%d",
    "%d %B %Y %H:%M:%S",
    "%d %b %Y %H:%M:%S",
    "%B %d %Y %H:%M:%S",
    "%b %d %Y %H:%M:%S",
    "%A %d %B %Y",
    "%A %B %d %Y",
)


def _parse_loose(text: str) -> datetime | None:
    """``25 June 2010``, ``June 25, 2010``, ``Friday, June 25, 2010 15:00:00``…"""
    cleaned = _WHITESPACE.sub(" ", text.replace(",", " ")).strip()
    cleaned = re.sub(r"\s+(UTC|GMT|Z)$", "", cleaned, flags=re.IGNORECASE)
    for form in _LOOSE_FORMATS:
        try:
            return datetime.strptime(cleaned, form)
        except ValueError:
            continue
    return None
