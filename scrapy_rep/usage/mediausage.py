"""What a downloaded file says about its own use, inside the file (pure).

Two standards carry an AI opt-out in the file itself, so it travels with every copy:

- IPTC Photo Metadata Standard 2023.1 "Data Mining" (also Video Metadata Hub 1.5): XMP
  ``plus:DataMining`` (namespace ``http://ns.useplus.org/ldf/xmp/1.0/``) holding a PLUS
  LDF vocabulary URI ``http://ns.useplus.org/ldf/vocab/DMI-*``. The packets come from
  :mod:`scrapy_rep.usage._xmp`; each is parsed with lxml, entities never expanded, no DTD, no
  network, no huge trees.
- The C2PA / CAWG training-and-mining assertions (:mod:`scrapy_rep.usage._c2pa`).

:func:`read_media` turns a file's bytes into a :class:`MediaReading`: the signals, mapped
onto the purposes through the one table (:mod:`scrapy_rep.usage._purpose_table`), what could
not be read, and whether C2PA was read. Never raises on content.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from lxml import etree

from scrapy_rep.usage._c2pa import C2paResult, read_c2pa
from scrapy_rep.usage._xmp import DEFAULT_LIMITS, Limits, XmpScan, find_packets
from scrapy_rep.usage.purpose import MAPPING, UsageSignal

PLUS_NS: Final = "http://ns.useplus.org/ldf/xmp/1.0/"
PLUS_VOCAB: Final = "http://ns.useplus.org/ldf/vocab/"
RDF_NS: Final = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_DATA_MINING: Final = f"{{{PLUS_NS}}}DataMining"
#: The values whose text says "see" constraints a crawler cannot check.
SEE_VALUES: Final = frozenset(
    {
        "DMI-PROHIBITED-SEECONSTRAINT",
        "DMI-PROHIBITED-SEEEMBEDDEDRIGHTSEXPR",
        "DMI-PROHIBITED-SEELINKEDRIGHTSEXPR",
    }
)
#: A DMI value in a packet the parser could not read (bounded byte search, so a broken
#: packet that says "prohibited" still counts: the reading that loses no "no").
_DMI_BYTES: Final = re.compile(rb"DMI-PROHIBITED[A-Z-]{0,40}")
#: In bytes not read as a packet (:attr:`XmpScan.raw`), a value counts only where XMP
#: would hold it: right after the PLUS vocabulary, or within this many bytes after the
#: name ``DataMining`` (element, attribute, ``rdf:li`` items).
_RAW_CONTEXT: Final = 512
#: Values looked at in those bytes (each costs a look back).
_RAW_MATCHES: Final = 64


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
        dtd_validation=False,
        remove_comments=True,
        remove_pis=True,
    )


_PARSER: Final = _parser()


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
    return MediaReading(scan.format, tuple(signals), tuple(problems), result.status)


def xmp_signals(scan: XmpScan, *, constraints_met: bool = False) -> Iterable[UsageSignal]:
    """One signal per ``plus:DataMining`` value in the packets of ``scan`` (problems found
    on the way are added to ``scan.problems``)."""
    said: set[str] = set()  # the values read: the bytes not read add only others
    for index, packet in enumerate(scan.packets):
        if b"DataMining" not in packet:
            continue  # the usual packet: no statement, no parse
        try:
            values = data_mining_values(packet)
        except ValueError as error:
            scan.problems.append(f"XMP packet {index + 1} unreadable ({error})")
            values = _bytes_values(packet)
        said.update(values)
        for value in values:
            yield dmi_signal(value, f"XMP plus:DataMining {value}", constraints_met)
    for packet in scan.oversized:
        for value in _bytes_values(packet):
            said.add(value)
            yield dmi_signal(value, f"oversized XMP packet mentions {value}", constraints_met)
    for data in scan.raw:
        for value in _raw_values(data):
            if value not in said:
                said.add(value)
                yield dmi_signal(value, f"XMP not wholly read mentions {value}", constraints_met)


def _bytes_values(packet: bytes) -> list[str]:
    found = dict.fromkeys(m.group().decode("ascii") for m in _DMI_BYTES.finditer(packet))
    return list(found)[:8]


def _raw_values(data: bytes) -> list[str]:
    """The prohibiting DMI values in bytes not read as a packet (a cut or unterminated
    packet, the rest of a broken file), where XMP would hold them (the reading that
    loses no "no": docs/media.md, "Hostile files")."""
    found: dict[str, None] = {}
    for count, match in enumerate(_DMI_BYTES.finditer(data)):
        if count >= _RAW_MATCHES:
            break
        start = match.start()
        if (
            data.endswith(b"ldf/vocab/", 0, start)
            or data.find(b"DataMining", max(0, start - _RAW_CONTEXT), start) >= 0
        ):
            found[match.group().decode("ascii")] = None
    return list(found)[:8]


def data_mining_values(packet: bytes) -> list[str]:
    """The ``plus:DataMining`` values of one packet (the DMI token: ``DMI-PROHIBITED``);
    raises :class:`ValueError` if the packet is not XML we read."""
    if b"<!DOCTYPE" in packet or b"<!ENTITY" in packet:
        raise ValueError("a DTD in an XMP packet")
    try:
        root = etree.fromstring(packet, _PARSER)
    except etree.XMLSyntaxError as error:
        raise ValueError(f"XML: {error}") from None
    if root is None:
        raise ValueError("no XML element")
    values: list[str] = []
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        attribute = element.get(_DATA_MINING)
        if attribute is not None:
            values.append(attribute)
        if element.tag == _DATA_MINING:
            values.extend(_element_values(element))
    return [token for token in map(_token, values) if token]


def _element_values(element: Any) -> list[str]:
    """An element's value: its text, its ``rdf:resource``, or its ``rdf:li`` items."""
    resource = element.get(f"{{{RDF_NS}}}resource")
    if resource:
        return [resource]
    items = [li.text or "" for li in element.iter(f"{{{RDF_NS}}}li")]
    return items or [element.text or ""]


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
