"""The values an RSL document is read into (RSL 1.0 Specification): its licenses
(:class:`RslLicense`), its ``<content>`` elements (:class:`RslContent`, each pattern
compiled), the document (:class:`RslDocument`) and its stand-ins (:data:`ABSENT`,
:data:`UNREACHABLE`, :func:`not_read`). Values only, no XML:
:mod:`rep_engine.usage.rsl.document` reads a body into them and re-exports these names."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from rep_engine.urls.encoding import (
    dangling_variants,
    normalise_pattern,
    normalise_url_path,
    path_of,
)
from rep_engine.urls.matching import wildcard_match
from rep_engine.urls.origins import Origin, origin_of

#: ``<rsl xmlns>``: "Must be set to https://rslstandard.org/rsl" (compared exactly).
NAMESPACE: Final = "https://rslstandard.org/rsl"
#: The media type of an RSL document (the HTTP and HTML discovery guides).
MEDIA_TYPE: Final = "application/rsl+xml"
_STARS: Final = re.compile(r"\*\*+")
#: Payment types that ask nothing of the crawler (no payment element: free).
FREE_PAYMENTS: Final = frozenset({"free"})


@dataclass(frozen=True, slots=True)
class RslLicense:
    """One ``<license>`` of a ``<content>`` (RSL 1.0 ``<license>``)."""

    #: 1-based position inside its ``<content>``.
    index: int
    #: ``<permits type="usage">`` tokens, lowercased; ``None``: no usage ``<permits>``.
    permits: frozenset[str] | None
    #: ``<prohibits type="usage">`` tokens, lowercased.
    prohibits: frozenset[str]
    #: ``<payment type=…>`` values, lowercased (empty: none given, a free license).
    payments: tuple[str, ...] = ()
    #: ``user`` / ``geo`` terms as written: ``permits user: commercial``.
    conditions: tuple[str, ...] = ()

    @property
    def conditional(self) -> bool:
        """Must the crawler obtain or accept something first (a paid payment type, or
        user/geo terms it cannot check)?"""
        paid = any(payment not in FREE_PAYMENTS for payment in self.payments)
        return paid or bool(self.conditions)


@dataclass(frozen=True, slots=True)
class RslContent:
    """One ``<content>`` (RSL 1.0 ``<content>``) and its licenses."""

    #: 1-based position in the document.
    index: int
    #: The ``url`` as written (``"/"`` when missing: it covers everything, §9).
    url: str
    #: The ``server`` attribute: a license must be obtained there first.
    server: str | None
    licenses: tuple[RslLicense, ...]
    #: The origin of a full-URL ``url`` (scheme, IDNA host, port: as robots.txt origins
    #: are compared, so a Unicode host matches the punycode one requests are sent to);
    #: ``None`` for a path.
    origin: Origin | None = field(default=None, compare=False)
    #: The pattern's ``*``-separated segments, one tuple per dangling-escape variant.
    _segments: tuple[tuple[str, ...], ...] = field(default=(("/",),), compare=False, repr=False)
    _anchored: bool = field(default=False, compare=False, repr=False)

    def matches(self, url: str) -> bool:
        """Does the request ``url`` fall under this entry? Paths with RFC 9309 rules
        (``*``, ``$``, percent-encoding as §2.2.2); a full-URL entry also needs the same
        origin (:func:`rep_engine.urls.origins.origin_of`: IDNA host, default ports
        dropped)."""
        if self.origin is not None and self.origin != origin_of(url):
            return False
        path = normalise_url_path(path_of(url), "rfc9309")  # "$" and "*" as %24 and %2A
        return any(wildcard_match(path, one, self._anchored) for one in self._segments)

    @property
    def variants(self) -> int:
        """How many patterns it is matched with (its url's dangling-escape variants)."""
        return len(self._segments)

    @property
    def element(self) -> str:
        """``<content url="/news/*" server="…">``, for the audit trail."""
        server = "" if self.server is None else f' server="{self.server}"'
        return f'<content url="{self.url}"{server}>'


def make_content(
    index: int, url: str, server: str | None, licenses: tuple[RslLicense, ...]
) -> RslContent:
    """A :class:`RslContent` with its pattern compiled."""
    written = url.strip() or "/"
    origin = None
    pattern = written
    if written.lower().startswith(("http://", "https://")):
        origin = origin_of(written)
        pattern = path_of(written)
    latin1 = pattern.encode("utf-8", "surrogatepass").decode("latin-1")
    pattern = normalise_pattern(latin1, "rfc9309")
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    # A "$" before the end is a literal character, as in a URL: normalise_pattern wrote %24.
    body = _STARS.sub("*", body)
    variants = [body] if anchored else dangling_variants(body)  # "/%a$" ends the URL
    segments = tuple(tuple(variant.split("*")) for variant in variants)
    return RslContent(index, written, server, licenses, origin, segments, anchored)


@dataclass(frozen=True, slots=True)
class RslDocument:
    """A parsed RSL document. Immutable; safe to share between requests."""

    contents: tuple[RslContent, ...] = ()
    #: ``None``: a readable document (or the absent stand-in); else why it is not one
    #: (then it stands for "no AI use", as :data:`UNREACHABLE` does).
    problem: str | None = None
    #: ``True`` only for :data:`UNREACHABLE`.
    unreachable: bool = False

    def matching(self, url: str) -> tuple[RslContent, ...]:
        """Every ``<content>`` that covers ``url``, in document order."""
        return tuple(content for content in self.contents if content.matches(url))


#: No document (a 4xx): no license terms.
ABSENT: Final = RslDocument()
#: A document that stayed unreachable: no AI use for now (docs/purpose-notes.md §9).
UNREACHABLE: Final = RslDocument(problem="license document unreachable", unreachable=True)


#: The mapping row of :func:`not_read`, which its ``problem`` begins with.
NOT_READ: Final = "licenses not read"


#: What names the licenses of :func:`not_read`: a robots.txt (its file-wide lines and the
#: crawler's groups') or a page (its ``Link`` header and ``<link>`` elements).
ROBOTS_TXT_NAMES: Final = "robots.txt names {} for this crawler"
PAGE_NAMES: Final = "the page names {}"


def not_read(named: int, bound: int, naming: str = ROBOTS_TXT_NAMES) -> RslDocument:
    """The stand-in for the licenses of a robots.txt (or, with ``naming`` =
    :data:`PAGE_NAMES`, a page) that names ``named`` of them for a crawler, more than
    ``REP_RSL_MAX_LICENSES`` (``bound``): none is read, and their terms are taken as a no
    for every purpose (docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read
    per robots.txt'). Its ``problem`` begins with its mapping row."""
    return RslDocument(
        problem=f"{NOT_READ}: {naming.format(named)}, more than REP_RSL_MAX_LICENSES ({bound})"
    )
