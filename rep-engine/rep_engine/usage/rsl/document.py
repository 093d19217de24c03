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

The XML parser is lxml with entities, DTD loading and the network off and no huge-tree
allowance (:func:`_root`). A body that is not an RSL document is unreadable
(:func:`parse_rsl`); the decision per URL is in :mod:`rep_engine.usage.rsl.terms`.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Final

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES, body_bytes

# Re-exported (``X as X``): this module is the public import path of these names.
from rep_engine.usage.rsl.content import ABSENT as ABSENT
from rep_engine.usage.rsl.content import MEDIA_TYPE as MEDIA_TYPE
from rep_engine.usage.rsl.content import NAMESPACE as NAMESPACE
from rep_engine.usage.rsl.content import NOT_READ as NOT_READ
from rep_engine.usage.rsl.content import PAGE_NAMES as PAGE_NAMES
from rep_engine.usage.rsl.content import ROBOTS_TXT_NAMES as ROBOTS_TXT_NAMES
from rep_engine.usage.rsl.content import UNREACHABLE as UNREACHABLE
from rep_engine.usage.rsl.content import RslContent as RslContent
from rep_engine.usage.rsl.content import RslDocument as RslDocument
from rep_engine.usage.rsl.content import RslLicense as RslLicense
from rep_engine.usage.rsl.content import make_content as make_content
from rep_engine.usage.rsl.content import not_read as not_read

if TYPE_CHECKING:
    from lxml import etree

logger = logging.getLogger(__name__)

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
