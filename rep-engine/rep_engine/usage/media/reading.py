"""What a downloaded file says about its own use, inside the file (pure).

Two standards carry an AI opt-out in the file itself, so it travels with every copy:

- IPTC Photo Metadata Standard 2023.1 "Data Mining" (also Video Metadata Hub 1.5): XMP
  ``plus:DataMining`` (namespace ``http://ns.useplus.org/ldf/xmp/1.0/``) holding a PLUS
  LDF vocabulary URI ``http://ns.useplus.org/ldf/vocab/DMI-*``. The packets come from
  :mod:`rep_engine.usage.media.xmp`, their text from :mod:`~rep_engine.usage.media._xmp_scan`
  (UTF-8, UTF-16, UTF-32), the values read here (:func:`property_values`: every RDF form
  of XMP Part 1 §7.9, parsed with lxml hardened).
- The C2PA / CAWG training-and-mining assertions (:mod:`rep_engine.usage.media.c2pa`).

:func:`read_media` turns a file's bytes into a :class:`MediaReading`: the signals, mapped
onto the purposes through the one table (:data:`rep_engine.usage.purpose.MAPPING`), what could
not be read, and whether C2PA was read. Never raises on content.

The ``plus:DataMining`` values of one packet are read from its RDF. XMP Part 1 (ISO
16684-1) §7.9 serialises a property in RDF/XML in several forms, all of which ExifTool
reads as the property's value (``exiftool -X -XMP-plus:all``):

- a simple value: the element's text (§7.9.2.1), or an attribute of the
  ``rdf:Description`` (§7.9.2.2, "property attributes");
- a URI value: ``rdf:resource`` on the element (§7.9.2.1);
- an array: ``rdf:Bag`` / ``rdf:Seq`` / ``rdf:Alt`` whose ``rdf:li`` items are any of
  these forms, ``rdf:li rdf:resource="…"`` too (§7.9.2.4);
- a qualified value (§7.9.2.5): the value is ``rdf:value``, beside its qualifiers, in
  an element with ``rdf:parseType="Resource"``, in a nested ``rdf:Description``, or as
  an ``rdf:value`` attribute; qualifiers (other properties) are not the value.

ExifTool reads two forms more, read here too: an empty element's ``rdf:about``, and a
blank node named by ``rdf:nodeID`` and described elsewhere in the packet. The packet is
parsed with lxml, entities never expanded, no DTD, no network, no huge trees; a packet
with a ``<!DOCTYPE`` or ``<!ENTITY`` is not parsed (XMP has no DTD).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from lxml import etree

from rep_engine.usage.media._xmp_scan import (
    MAX_BYTE_VALUES,
    Limits,
    PacketText,
    Undecodable,
    XmpScan,
    packet_text,
)
from rep_engine.usage.media.c2pa import C2paResult, read_c2pa
from rep_engine.usage.media.xmp import DEFAULT_LIMITS, find_packets
from rep_engine.usage.purpose import MAPPING, UsageSignal

PLUS_VOCAB: Final = "http://ns.useplus.org/ldf/vocab/"
#: The values whose text says "see" constraints a crawler cannot check.
SEE_VALUES: Final = frozenset(
    {
        "DMI-PROHIBITED-SEECONSTRAINT",
        "DMI-PROHIBITED-SEEEMBEDDEDRIGHTSEXPR",
        "DMI-PROHIBITED-SEELINKEDRIGHTSEXPR",
    }
)
#: In bytes not read as a packet (:attr:`XmpScan.raw`), a value counts only where XMP
#: would hold it: right after the PLUS vocabulary, or within this many characters after
#: the name ``DataMining`` (element, attribute, ``rdf:li`` items).
_RAW_CONTEXT: Final = 512
#: Those bytes are searched in the wide encodings of a packet too, without decoding
#: them: a UTF-16 text in either byte order holds ``D\0M\0I\0…`` (so does UTF-32 with
#: three zero bytes), one search per width for its spaced-out forms. (The zero bytes
#: between characters, the value's pattern, ``ldf/vocab/`` and ``DataMining``.)
_WIDTHS: Final = tuple(
    (
        gap,
        gap.join(bytes([c]) for c in b"DMI-PROHIBITED"),
        re.compile(rb"(?:" + re.escape(gap) + rb"[A-Z-]){0,40}"),
        gap.join(bytes([c]) for c in b"ldf/vocab/") + gap,
        gap.join(bytes([c]) for c in b"DataMining"),
    )
    for gap in (b"", b"\x00", b"\x00\x00\x00")
)
#: What XMP that is there but cannot be read says (docs/media.md, "Hostile files"): a
#: "no" for both AI purposes, nothing for search (the reading that loses no "no": its
#: statement cannot be seen, not even by a byte search). (search, ai-train, ai-input)
UNSEEN_ANSWERS: Final = (None, False, False)
#: Distinct values kept per packet (prohibiting ones first when there are more).
_MAX_VALUES: Final = 32
#: Signals of unreadable XMP per file (one says "no"; the rest are in the problems).
_MAX_UNSEEN: Final = 8
#: Problems named per file, each once (a hostile TIFF named the same cut IFD for each
#: of its thousands of entries); the rest are counted in one more line.
MAX_PROBLEMS: Final = 32


@dataclass(frozen=True, slots=True)
class MediaReading:
    """What one file says about its use."""

    #: ``"jpeg"``, ``"png"``, … ``"unknown"``.
    format: str
    signals: tuple[UsageSignal, ...]
    #: What could not be read (a broken packet, a cut file, a limit reached).
    problems: tuple[str, ...]
    #: Whether the C2PA manifest was read: ``"read"``, ``"none"`` (no manifest),
    #: ``"not read: …"`` (library missing or the manifest broken).
    c2pa: str

    @property
    def unreadable(self) -> bool:
        """Something in the file could not be read (a statement may be hidden in it)."""
        return bool(self.problems)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "signals": [signal.to_dict() for signal in self.signals],
            "problems": list(self.problems),
            "c2pa": self.c2pa,
        }


def read_media(
    data: bytes,
    *,
    limits: Limits = DEFAULT_LIMITS,
    constraints_met: bool = False,
    c2pa: bool = True,
) -> MediaReading:
    """The statements of one file (``constraints_met``: ``REP_MEDIA_CONSTRAINTS_MET``;
    ``c2pa``: read the C2PA manifest too, when the library is installed)."""
    scan = find_packets(data, limits)
    signals = list(xmp_signals(scan, constraints_met=constraints_met))
    problems = list(scan.problems)
    result = read_c2pa(data, limits, constraints_met) if c2pa else C2paResult((), "not read")
    signals.extend(result.signals)
    if result.status.startswith("not read:") and result.status != "not read: not installed":
        problems.append(f"C2PA manifest {result.status}")
    return MediaReading(scan.format, tuple(signals), _named(problems), result.status)


def _named(problems: list[str]) -> tuple[str, ...]:
    """Each problem once, at most :data:`MAX_PROBLEMS` of them and a count of the rest."""
    distinct = list(dict.fromkeys(problems))
    if len(distinct) <= MAX_PROBLEMS:
        return tuple(distinct)
    return (*distinct[:MAX_PROBLEMS], f"and {len(distinct) - MAX_PROBLEMS} more problems")


def xmp_signals(scan: XmpScan, *, constraints_met: bool = False) -> Iterable[UsageSignal]:
    """One signal per ``plus:DataMining`` value in the packets of ``scan``, and one "no"
    for the AI purposes per XMP that is there but cannot be read (problems found on the
    way are added to ``scan.problems``)."""
    said: set[str] = set()  # the values read: the bytes not read add only others
    for index, packet in enumerate(scan.packets):
        try:
            text = packet_text(packet)
        except Undecodable as error:
            scan.cannot_see(f"XMP packet {index + 1} is {error}")
            continue
        if b"DataMining" not in text.data:
            continue  # the usual packet: no statement, no parse
        try:
            values = _packet_values(property_values(text))
        except ValueError as error:
            scan.problems.append(f"XMP packet {index + 1} unreadable ({error})")
            values = scan.values_in(text.data)
        said.update(values)
        for value in values:
            yield dmi_signal(value, f"XMP plus:DataMining {value}", constraints_met)
    oversized = [*_searched(scan, scan.oversized, "an oversized"), *scan.mentions]
    for value in dict.fromkeys(oversized):
        said.add(value)
        yield dmi_signal(value, f"oversized XMP packet mentions {value}", constraints_met)
    not_read = _searched(scan, scan.unparsed, "an unparsed (past the packet count)")
    not_read += [value for data in scan.raw for value in _raw_values(data, scan)]
    for value in dict.fromkeys(not_read):
        if value not in said:
            said.add(value)
            yield dmi_signal(value, f"XMP not wholly read mentions {value}", constraints_met)
    for what in list(dict.fromkeys(scan.unseen))[:_MAX_UNSEEN]:
        yield UsageSignal("iptc", UNSEEN_ANSWERS, f"unreadable XMP ({what})"[:200])


def _packet_values(written: list[str]) -> list[str]:
    """The DMI tokens of a packet's values, each once, at most :data:`_MAX_VALUES`."""
    tokens = list(dict.fromkeys(token for token in map(_token, written) if token))
    if len(tokens) > _MAX_VALUES:
        prohibiting = [token for token in tokens if token.startswith("DMI-PROHIBITED")]
        others = [token for token in tokens if not token.startswith("DMI-PROHIBITED")]
        tokens = (prohibiting + others)[:_MAX_VALUES]
    return tokens


def _searched(scan: XmpScan, packets: list[bytes], what: str) -> list[str]:
    """The prohibiting values of packets not parsed (over the size or the count limit),
    searched as bytes (any value counts); one whose text cannot be got at is unseen."""
    found = []
    for packet in packets:
        try:
            found += scan.values_in(packet_text(packet).data)
        except Undecodable as error:
            scan.cannot_see(f"{what} XMP packet is {error}")
    return found


def _raw_values(data: bytes, scan: XmpScan) -> list[str]:
    """The prohibiting DMI values in bytes not read as a packet (a cut or unterminated
    packet, the rest of a broken file), where XMP would hold them (the reading that
    loses no "no": docs/media.md, "Hostile files"), in UTF-8 and in the wide encodings
    of a packet; each value looked at spends the file's budget
    (:meth:`XmpScan.match`), past which the rest is out of reach."""
    found: dict[str, None] = {}
    for gap, marker, rest, vocabulary, name in _WIDTHS:
        at = data.find(marker)
        while at >= 0 and len(found) < MAX_BYTE_VALUES:
            if not scan.match():
                return list(found)
            window = max(0, at - _RAW_CONTEXT * (len(gap) + 1))
            if data.endswith(vocabulary, 0, at) or data.find(name, window, at) >= 0:
                tail = rest.match(data, at + len(marker))  # (it matches, if only nothing)
                value = b"DMI-PROHIBITED" + (tail.group() if tail else b"").replace(b"\x00", b"")
                found[value.decode("ascii")] = None
            at = data.find(marker, at + 1)
    return list(found)


def _token(value: str) -> str:
    """``http://ns.useplus.org/ldf/vocab/DMI-ALLOWED`` -> ``DMI-ALLOWED`` ("" if not DMI)."""
    text = value.strip()
    if text.startswith(PLUS_VOCAB):
        text = text[len(PLUS_VOCAB) :]
    text = text.upper()
    return text[:80] if text.startswith("DMI-") else ""


def dmi_signal(token: str, source: str, constraints_met: bool = False) -> UsageSignal:
    """A DMI value as a signal (table rows ``iptc``); an unknown ``DMI-PROHIBITED-*``
    reads as ``DMI-PROHIBITED``, any other unknown value says nothing."""
    if token in SEE_VALUES and constraints_met:
        key = "DMI-PROHIBITED-SEE* (constraints met)"
    elif ("iptc", token) in MAPPING:
        key = token
    elif token.startswith("DMI-PROHIBITED"):
        key = "DMI-PROHIBITED"
    else:
        key = "DMI-UNSPECIFIED"
    return UsageSignal("iptc", MAPPING[("iptc", key)].answers, source[:200])


# The plus:DataMining values of one packet, read from its RDF.

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
