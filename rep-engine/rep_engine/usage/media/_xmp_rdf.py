"""The ``plus:DataMining`` values of one XMP packet, read from its RDF (pure; see
:mod:`rep_engine.usage.media.reading`).

XMP Part 1 (ISO 16684-1) §7.9 serialises a property in RDF/XML in several forms, all of
which ExifTool reads as the property's value (``exiftool -X -XMP-plus:all``):

- a simple value: the element's text (§7.9.2.1), or an attribute of the
  ``rdf:Description`` (§7.9.2.2, "property attributes");
- a URI value: ``rdf:resource`` on the element (§7.9.2.1);
- an array: ``rdf:Bag`` / ``rdf:Seq`` / ``rdf:Alt`` whose ``rdf:li`` items are any of
  these forms, ``rdf:li rdf:resource="…"`` too (§7.9.2.4);
- a qualified value (§7.9.2.5): the value is ``rdf:value``, beside its qualifiers, in
  an element with ``rdf:parseType="Resource"``, in a nested ``rdf:Description``, or as
  an ``rdf:value`` attribute; qualifiers (other properties) are not the value.

ExifTool reads two forms more, read here too: an empty element's ``rdf:about``, and a
blank node named by ``rdf:nodeID`` and described elsewhere in the packet.

The packet is parsed with lxml, entities never expanded, no DTD, no network, no huge
trees; a packet with a ``<!DOCTYPE`` or ``<!ENTITY`` is not parsed (XMP has no DTD).
"""

from __future__ import annotations

import threading
from typing import Any, Final

from lxml import etree

from rep_engine.usage.media._xmp_scan import PacketText

PLUS_NS: Final = "http://ns.useplus.org/ldf/xmp/1.0/"
RDF_NS: Final = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
DATA_MINING: Final = f"{{{PLUS_NS}}}DataMining"
_RDF = f"{{{RDF_NS}}}"
#: The RDF syntax elements between a property and its value (a qualifier, or a struct
#: field, is any other element: not the value).
_SYNTAX: Final = frozenset(_RDF + name for name in ("Description", "Bag", "Seq", "Alt", "li",
                                                     "value"))  # fmt: skip
_VALUE_ATTRIBUTES: Final = (_RDF + "resource", _RDF + "value")
_NODE_ID: Final = _RDF + "nodeID"
_ABOUT: Final = _RDF + "about"
#: Elements of a packet parsed and walked: past it, the packet is searched as bytes (a
#: 1 MiB packet of 250,000 empty elements took 0.3 s, and a file has 16 packets). Each
#: element is walked once, a blank node followed once per packet: the walk is linear.
MAX_ELEMENTS: Final = 8192


def _parser(override: bool) -> etree.XMLParser:
    return etree.XMLParser(
        encoding="utf-8" if override else None,
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
        dtd_validation=False,
        remove_comments=True,
        remove_pis=True,
    )


class _Parsers(threading.local):
    """The parser of a packet in its own 8-bit encoding, and of one decoded to UTF-8,
    one pair per thread (an lxml parser must not be used by two threads at once; the
    crawl reads files in the reactor's thread pool)."""

    def __init__(self) -> None:
        self.by_override = {False: _parser(False), True: _parser(True)}


_PARSERS: Final = _Parsers()


def property_values(text: PacketText) -> list[str]:
    """Every value of ``plus:DataMining`` in the packet, as written; raises
    :class:`ValueError` if the packet is not XML we read."""
    if b"<!DOCTYPE" in text.data or b"<!ENTITY" in text.data:
        raise ValueError("a DTD in an XMP packet")
    if text.data.count(b"<") > MAX_ELEMENTS:
        raise ValueError(f"more than {MAX_ELEMENTS} elements")
    try:
        root = etree.fromstring(text.data, _PARSERS.by_override[text.override])
    except etree.XMLSyntaxError as error:
        raise ValueError(f"XML: {error}") from None
    if root is None:
        raise ValueError("no XML element")
    nodes: dict[str, Any] = {}
    values: list[str] = []
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        node = element.get(_NODE_ID)
        if node is not None and element.tag == _RDF + "Description":
            nodes.setdefault(node, element)
        attribute = element.get(DATA_MINING)
        if attribute is not None:
            values.append(attribute)
    followed: set[str] = set()  # a blank node's values are taken once per packet
    for element in root.iter(DATA_MINING):
        values.extend(_values(element, nodes, followed))
    return values


def _values(prop: Any, nodes: dict[str, Any], followed: set[str]) -> list[str]:
    """The values of one property element: its text, ``rdf:resource`` or ``rdf:value``
    (attribute or element), through arrays and nested descriptions, in document order.
    A blank node already ``followed`` (for this or another property of the packet) is
    not followed again: its values are already taken, and following it for each of
    thousands of properties naming it was quadratic."""
    found: list[str] = []
    stack = [prop]
    while stack:
        node = stack.pop()
        found.extend(node.get(name) for name in _VALUE_ATTRIBUTES if node.get(name) is not None)
        children = [child for child in node if isinstance(child.tag, str)]
        if not children:
            text = (node.text or "").strip()
            reference = node.get(_NODE_ID)
            if text:
                found.append(text)
            elif reference in nodes and reference not in followed:
                followed.add(reference)
                stack.append(nodes[reference])
            elif node.get(_ABOUT) and not any(node.get(n) for n in _VALUE_ATTRIBUTES):
                found.append(node.get(_ABOUT))
        stack.extend(reversed([child for child in children if child.tag in _SYNTAX]))
    return found
