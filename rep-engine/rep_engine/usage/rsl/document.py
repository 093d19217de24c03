"""RSL 1.0 license documents (Really Simple Licensing, RSL-SPEC-1.0): bytes ->
:class:`RslDocument` (pure).

Follows the RSL 1.0 Specification (Recommendation, 2025-11-06,
https://rslstandard.org/rsl; element names are cited, the section numbers of the
elements were not in the copy read). What is read:

- ``<rsl xmlns="https://rslstandard.org/rsl">``, the root; or an RSS feed whose
  items hold ``<rsl:content>`` (the RSL module for feeds);
- ``<content url=… server=…>``: ``url`` is a full URL or a path "that follows the
  URL-matching rules of the Robots Exclusion Protocol (RFC 9309)" with ``*`` and ``$``;
  ``server``: "clients must obtain a license for this asset, even if the license is
  free";
- ``<license>`` with its ``<permits>`` / ``<prohibits>`` of ``type="usage"``
  (and ``user`` / ``geo``, kept as conditions we cannot check) and ``<payment type=…>``;
  their values are tokens separated by whitespace (commas too, leniently): ``all ai-all
  ai-train ai-input ai-index search`` (§3.4.1).

Unknown extension elements, in the RSL namespace or another, are ignored with their
content wherever they stand (errata 2026-08-07): the document is still read.

The values a document is read into: its licenses (:class:`RslLicense`), its
``<content>`` elements (:class:`RslContent`, each pattern compiled), the document
(:class:`RslDocument`) and its stand-ins (:data:`ABSENT`, :data:`UNREACHABLE`,
:func:`not_read`).

The XML parser is lxml with entities, DTD loading and the network off and no huge-tree
allowance (:func:`_root`). A body that is not an RSL document is unreadable
(:func:`parse_rsl`); the decision per URL is in :mod:`rep_engine.usage.rsl.terms`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES, body_bytes
from rep_engine.urls.encoding import (
    dangling_variants,
    normalise_pattern,
    normalise_url_path,
    path_of,
)
from rep_engine.urls.matching import wildcard_match
from rep_engine.urls.origins import Origin, origin_of

if TYPE_CHECKING:
    from lxml import etree

logger = logging.getLogger(__name__)


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


_NS: Final = "{" + NAMESPACE + "}"
_SEPARATORS: Final = re.compile(r"[\s,]+")


def _tokens(text: str | None) -> list[str]:
    return [token.lower() for token in _SEPARATORS.split(text or "") if token]


def _own_text(element: etree._Element) -> str:
    """The text of ``<permits>`` / ``<prohibits>`` itself: an unknown extension element
    inside it is ignored (errata 2026-08-07) with its content, as are comments and
    processing instructions, and each separates tokens (``ai-input<x/>ai-train`` is two):
    the tokens after it still count."""
    parts = [element.text or ""]
    parts.extend(child.tail or "" for child in element)
    return " ".join(parts)


def _license(index: int, element: etree._Element) -> RslLicense:
    """One ``<license>``: its usage terms, conditions and payment types."""
    permits: set[str] | None = None
    prohibits: set[str] = set()
    payments: list[str] = []
    conditions: list[str] = []
    for child in element:
        if not isinstance(child.tag, str):
            continue
        tag = child.tag
        if tag in (_NS + "permits", _NS + "prohibits"):
            kind = (child.get("type") or "usage").strip().lower()
            verb = tag[len(_NS) :]
            values = _tokens(_own_text(child))
            if kind != "usage":
                conditions.append(f"{verb} {kind}: {' '.join(values)}")
            elif verb == "prohibits":
                prohibits.update(values)
            else:
                permits = (permits or set()) | set(values)
        elif tag == _NS + "payment":
            payments.append((child.get("type") or "free").strip().lower())
    return RslLicense(
        index,
        None if permits is None else frozenset(permits),
        frozenset(prohibits),
        tuple(payments),
        tuple(conditions),
    )


def _content(index: int, element: etree._Element) -> RslContent:
    licenses = tuple(
        _license(position, child)
        for position, child in enumerate(element.iterchildren(_NS + "license"), 1)
    )
    server = (element.get("server") or "").strip() or None
    return make_content(index, element.get("url") or "", server, licenses)


def _root(data: bytes) -> etree._Element | str:
    """The parsed root, or why there is none. A DTD is refused before lxml sees it
    (RSL needs none; libxml2 would otherwise read its entity declarations); the check
    after the parse catches one the byte search missed (a UTF-16 body). lxml is
    imported here, on the first document parsed: importing the engine or the checker
    stays light."""
    if b"<!doctype" in data.lower():
        return _DTD
    if not data.strip():  # lxml's own words for it name a line and a column
        return "not XML (empty)"
    from lxml import etree

    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        # Kept, never merged: "ai-input<!-- -->ai-train" is two tokens (_own_text).
        remove_comments=False,
        remove_pis=False,
    )
    try:
        root = etree.fromstring(data, parser)
    except (etree.LxmlError, ValueError) as error:
        return f"not XML ({str(error)[:120]})"
    if root is None:
        return "not XML (empty)"
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None:
        return _DTD
    return root


_DTD: Final = "has a DTD (refused: entities are never expanded)"


def parse_rsl(body: bytes | str, truncated: bool = False) -> RslDocument:
    """An RSL body -> :class:`RslDocument`. Never raises on content. A body the download
    cut short (``truncated``: the fetch says so, whatever its length) or of 500 KiB or more
    (a download stops there: cut), one that is not XML, has a DTD, whose root is not
    ``<rsl>`` in the RSL namespace (nor a feed with ``<rsl:content>``), or that has no
    ``<content>`` is unreadable: its ``problem`` says why, and it stands for "no AI use"
    (docs/purpose-notes.md §9)."""
    body = body_bytes(body)
    if len(body) >= MAX_BODY_BYTES:
        return _unreadable(f"{MAX_BODY_BYTES} bytes or more (cut)")
    if truncated:  # its prohibits may be in the part that never came: no AI use
        return _unreadable(f"cut short after {len(body):,} bytes")
    root = _root(body)
    if isinstance(root, str):
        return _unreadable(root)
    if root.tag == _NS + "rsl":
        elements = list(root.iterchildren(_NS + "content"))
    elif root.tag == "rss":
        elements = list(root.iter(_NS + "content"))
    else:
        return _unreadable(f"root {root.tag!r} is not <rsl> in namespace {NAMESPACE}")
    if not elements:
        return _unreadable("no <content>")
    return RslDocument(tuple(_content(index, e) for index, e in enumerate(elements, 1)))


def _unreadable(problem: str) -> RslDocument:
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("RSL document unreadable: %s", problem)
    return RslDocument(problem=f"license document unreadable: {problem}")
