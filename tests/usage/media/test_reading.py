"""IPTC Data Mining and C2PA/CAWG training-mining read from files the tests build
(rep_engine.usage.media.reading, rep_engine.usage.media.xmp, rep_engine.usage.media.c2pa)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rep_engine.usage.media import _xmp_scan, _xmp_tiff
from rep_engine.usage.media._xmp_scan import Limits, packet_text
from rep_engine.usage.media.c2pa import available, manifest_signals
from rep_engine.usage.media.reading import property_values, read_media
from rep_engine.usage.media.xmp import find_packets, sniff
from rep_engine.usage.purpose import MAPPING, usage_decision
from tests.support.answers import purpose_answers
from tests.support.mediafiles import (
    DMI_VALUES,
    PAST_THE_COUNT,
    PLUS_VOCAB,
    RDF_FORMS,
    blank_node_bag,
    box,
    c2pa_jpeg,
    encoded,
    gif,
    heif,
    jpeg,
    jpeg_exif,
    jpeg_extended,
    jpeg_photoshop,
    late_no_packet,
    mp4,
    past_the_count,
    pdf,
    png,
    png_chunk,
    png_exif,
    png_raw_profile,
    png_with,
    raw_profile,
    text_chunk,
    tiff,
    tiff_block,
    tiff_fan_out,
    tiff_ifd_last,
    tiff_in,
    tiff_sub_ifds,
    webp,
    xmp_packet,
)

Y, N, U = True, False, None

#: Each DataMining value and what it means for (search, ai-train, ai-input).
DMI_CASES = [
    ("DMI-UNSPECIFIED", (U, U, U)),
    ("DMI-ALLOWED", (U, Y, Y)),
    ("DMI-PROHIBITED-AIMLTRAINING", (U, N, U)),
    ("DMI-PROHIBITED-GENAIMLTRAINING", (U, N, U)),
    ("DMI-PROHIBITED-EXCEPTSEARCHENGINEINDEXING", (Y, N, N)),
    ("DMI-PROHIBITED", (N, N, N)),
    ("DMI-PROHIBITED-SEECONSTRAINT", (N, N, N)),
    ("DMI-PROHIBITED-SEEEMBEDDEDRIGHTSEXPR", (N, N, N)),
    ("DMI-PROHIBITED-SEELINKEDRIGHTSEXPR", (N, N, N)),
]
assert [value for value, _ in DMI_CASES] == list(DMI_VALUES)

BUILDERS: dict[str, Callable[[bytes], bytes]] = {"jpeg": jpeg, "png": png}


@pytest.mark.parametrize("fmt", sorted(BUILDERS))
@pytest.mark.parametrize(("value", "expected"), DMI_CASES, ids=[v for v, _ in DMI_CASES])
def test_iptc_2023_1_data_mining_in_jpeg_and_png(
    fmt: str, value: str, expected: tuple[bool | None, ...]
) -> None:
    data = BUILDERS[fmt](xmp_packet(value))
    reading = read_media(data)
    assert reading.format == fmt and not reading.unreadable
    assert [s.source for s in reading.signals] == [f"XMP plus:DataMining {value}"]
    assert media_answers(data) == expected


@pytest.mark.parametrize("value", [v for v in DMI_VALUES if "SEE" in v])
def test_see_constraint_values_say_nothing_when_the_crawl_meets_the_constraints(value: str) -> None:
    assert media_answers(jpeg(xmp_packet(value)), constraints_met=True) == (U, U, U)


@pytest.mark.parametrize("form", ["attribute", *RDF_FORMS])
def test_xmp_part1_every_rdf_form_of_the_property(form: str) -> None:
    """XMP Part 1 §7.9.2: a simple value, an attribute, ``rdf:resource``, an array
    (``rdf:li`` with text, ``rdf:resource`` or a qualified value), a qualified value
    (``rdf:parseType="Resource"``, a nested ``rdf:Description``, an ``rdf:value``
    attribute): each is the value, its qualifier is not. Qualified values and
    ``rdf:li rdf:resource`` said nothing before."""
    packet = xmp_packet("DMI-PROHIBITED", form=form)
    assert data_mining_values(packet) == ["DMI-PROHIBITED"]
    reading = read_media(png(packet))
    assert [s.source for s in reading.signals] == ["XMP plus:DataMining DMI-PROHIBITED"]
    assert not reading.unreadable and media_answers(png(packet)) == (N, N, N)


def data_mining_values(packet: bytes) -> list[str]:
    """The ``plus:DataMining`` values the reading of a PNG holding ``packet`` finds."""
    said = "XMP plus:DataMining "
    signals = read_media(png(packet)).signals
    return [s.source.removeprefix(said) for s in signals if s.source.startswith(said)]


def _packet_with(body: str) -> bytes:
    return xmp_packet().replace(b"</rdf:Description>", body.encode() + b"</rdf:Description>", 1)


RDF_EDGE_CASES = [
    # A struct without rdf:value: its field is not the property's value (ExifTool names
    # it XMP-plus:DataMiningSource).
    ('<plus:DataMining rdf:parseType="Resource"><q:source>http://ns.useplus.org/ldf/vocab/'
     "DMI-PROHIBITED</q:source></plus:DataMining>", []),
    # A blank node described elsewhere (rdf:nodeID), as ExifTool reads it.
    ('<plus:DataMining rdf:nodeID="b1"/></rdf:Description><rdf:Description rdf:nodeID="b1">'
     "<rdf:value>DMI-PROHIBITED</rdf:value>", ["DMI-PROHIBITED"]),
    # A nodeID that names itself ends.
    ('<plus:DataMining rdf:nodeID="b1"/></rdf:Description><rdf:Description rdf:nodeID="b1">'
     '<rdf:value rdf:nodeID="b1"/>', []),
    # An empty element's rdf:about (ExifTool takes it as the value).
    ('<plus:DataMining rdf:about="DMI-PROHIBITED-AIMLTRAINING"/>', ["DMI-PROHIBITED-AIMLTRAINING"]),
    # A value of a value, and an array of both kinds: each value once, in order.
    ('<plus:DataMining rdf:parseType="Resource"><rdf:value rdf:parseType="Resource"><rdf:value>'
     "DMI-ALLOWED</rdf:value></rdf:value></plus:DataMining>", ["DMI-ALLOWED"]),
    ("<plus:DataMining><rdf:Bag><rdf:li>DMI-ALLOWED</rdf:li><rdf:li "
     'rdf:resource="DMI-PROHIBITED"/><rdf:li>DMI-ALLOWED</rdf:li></rdf:Bag></plus:DataMining>',
     ["DMI-ALLOWED", "DMI-PROHIBITED"]),
]  # fmt: skip


@pytest.mark.parametrize(("body", "expected"), RDF_EDGE_CASES)
def test_rdf_forms_exiftool_reads_and_what_is_not_the_value(body: str, expected: list[str]) -> None:
    assert data_mining_values(_packet_with(body)) == expected


def test_a_thousand_values_are_kept_to_32_prohibiting_ones_first() -> None:
    items = "".join(f"<rdf:li>DMI-ALLOWED-{n}</rdf:li>" for n in range(1000))
    packet = _packet_with(
        f"<plus:DataMining><rdf:Bag>{items}<rdf:li>DMI-PROHIBITED</rdf:li></rdf:Bag>"
        "</plus:DataMining>"
    )
    values = data_mining_values(packet)
    assert len(values) == 32 and values[0] == "DMI-PROHIBITED"
    assert media_answers(jpeg(packet)) == (N, N, N)


# --------------------------------------------------------------------------- encodings

ENCODINGS = ["utf-16-be", "utf-16-le", "utf-32-be", "utf-32-le", "utf-16", "utf-32", "utf-8-sig"]


@pytest.mark.parametrize("codec", ENCODINGS)
@pytest.mark.parametrize("where", ["jpeg", "pdf"])
def test_iso16684_7_3_2_a_packet_in_utf16_or_utf32(codec: str, where: str) -> None:
    """A packet is UTF-8, UTF-16 or UTF-32, either byte order, with or without a
    byte-order mark; in a JPEG segment, and found by packet scanning (PDF). It said
    nothing before (not even "unreadable")."""
    packet = encoded(xmp_packet("DMI-PROHIBITED", form="qualified"), codec)
    data = jpeg(packet) if where == "jpeg" else pdf(packet)
    reading = read_media(data)
    assert [s.source for s in reading.signals] == ["XMP plus:DataMining DMI-PROHIBITED"]
    assert not reading.unreadable


def test_a_utf16_packet_declared_utf16_and_an_8bit_one_declared_utf16() -> None:
    declaration = '<?xml version="1.0" encoding="UTF-16"?>'
    packet = declaration.encode() + xmp_packet("DMI-PROHIBITED")
    assert media_answers(jpeg(encoded(packet, "utf-16-le"))) == (N, N, N)
    assert media_answers(jpeg(packet)) == (N, N, N)  # transcoded to UTF-8, declaration kept


def test_a_latin1_packet_declared_so_is_read() -> None:
    packet = b'<?xml version="1.0" encoding="ISO-8859-1"?>' + xmp_packet(
        "DMI-PROHIBITED", extra="<dc:x>caf\u00e9</dc:x>"
    ).decode().encode("latin-1", errors="replace")
    reading = read_media(jpeg(packet))
    assert not reading.unreadable and media_answers(jpeg(packet)) == (N, N, N)


# ---------------------------------------------------------------- where ExifTool reads XMP

LOCATION_CASES = [
    ("png-tEXt", lambda p: png(p, chunk="tEXt")),
    ("png-zTXt", lambda p: png(p, chunk="zTXt")),
    ("png-raw-profile-zTXt", png_raw_profile),
    ("png-raw-profile-tEXt", lambda p: png_raw_profile(p, chunk="tEXt")),
    ("png-raw-profile-iTXt", lambda p: png_raw_profile(p, chunk="iTXt")),
    ("png-eXIf", png_exif),
    ("tiff-ifd0", lambda p: tiff_in(p, "ifd0")),
    ("tiff-ifd1", lambda p: tiff_in(p, "ifd1")),
    ("tiff-ifd2", lambda p: tiff_in(p, "ifd2")),
    ("tiff-exif-ifd", lambda p: tiff_in(p, "exif")),
    ("tiff-subifd", lambda p: tiff_in(p, "subifd")),
    ("jpeg-exif-ifd0", jpeg_exif),
    ("jpeg-exif-exif-ifd", lambda p: jpeg_exif(p, "exif")),
    ("jpeg-photoshop-app13", jpeg_photoshop),
    ("webp-EXIF", lambda p: _webp_exif(p)),
]


def _webp_exif(packet: bytes) -> bytes:
    body = webp(b"")
    block = tiff_block({0: {700: packet}})
    chunk = b"EXIF" + struct.pack("<I", len(block)) + block + b"\x00" * (len(block) & 1)
    riff = body[12:] + chunk
    return b"RIFF" + struct.pack("<I", len(riff) + 4) + b"WEBP" + riff


@pytest.mark.parametrize(("name", "build"), LOCATION_CASES, ids=[n for n, _ in LOCATION_CASES])
def test_xmp_where_exiftool_reads_it(name: str, build: Callable[[bytes], bytes]) -> None:
    """PNG text chunks of every kind, ImageMagick's raw profiles, every IFD of a TIFF
    structure (the chain, the Exif IFD, SubIFDs; in a JPEG's, PNG's or WebP's Exif
    block too), Photoshop image resources: ExifTool reads the packet there
    (tests/integration/test_xmp_exiftool.py); none of these was read before."""
    data = build(xmp_packet("DMI-PROHIBITED", begin=""))
    reading = read_media(data)
    assert [s.source for s in reading.signals] == ["XMP plus:DataMining DMI-PROHIBITED"], reading
    assert not reading.unreadable


def test_a_tiff_ifd_loop_and_a_wild_offset_are_bounded() -> None:
    data = bytearray(tiff_in(xmp_packet("DMI-PROHIBITED"), "ifd1"))
    first = struct.unpack_from("<I", data, 4)[0]
    count = struct.unpack_from("<H", data, first)[0]
    data[first + 2 + 12 * count : first + 6 + 12 * count] = struct.pack("<I", first)  # IFD0 -> IFD0
    reading = read_media(bytes(data))
    assert reading.signals == () and not reading.unreadable  # IFD1 is no longer linked
    data[4:8] = struct.pack("<I", 10**9)
    assert read_media(bytes(data)).problems == ("file truncated in a TIFF IFD",)


# ---------------------------------------------------------- unreadable XMP fails closed

CHUNK_XMP = b"XML:com.adobe.xmp"
EBCDIC = xmp_packet("DMI-PROHIBITED", begin="").decode().encode("cp500")
UNSEEN_CASES = [
    ("zTXt that does not inflate",
     png_with(png(), png_chunk(b"zTXt", CHUNK_XMP + b"\x00\x00" + b"not deflate at all"))),
    ("compressed iTXt that does not inflate",
     png_with(png(), png_chunk(b"iTXt", CHUNK_XMP + b"\x00\x01\x00\x00\x00" + b"garbage"))),
    ("zTXt compression method 1",
     png_with(png(), png_chunk(b"zTXt", CHUNK_XMP + b"\x00\x01" + zlib.compress(xmp_packet())))),
    ("zTXt whose compressed text ends early",
     png_with(png(), png_chunk(b"zTXt", CHUNK_XMP + b"\x00\x00" + zlib.compress(b"x" * 999)[:-9]))),
    ("raw profile that is not hexadecimal",
     png_with(png(), text_chunk(b"\nxmp\n     10\nnot hex digits\n", chunk="zTXt",
                                keyword=b"Raw profile type xmp"))),
    ("raw profile without its header",
     png_with(png(), text_chunk(xmp_packet("DMI-ALLOWED").hex().encode(), chunk="tEXt",
                                keyword=b"Raw profile type xmp"))),
    ("UTF-16 packet that does not decode",
     jpeg(b"\xff\xfe" + "<?xpacket begin=".encode("utf-16-le") + b"\x00\xd8<\x00")),
    ("packet in an encoding not read",
     jpeg(b'<?xml version="1.0" encoding="cp500"?>' + EBCDIC)),
    ("packet with no XML in it (EBCDIC)", jpeg(EBCDIC)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "data"), UNSEEN_CASES, ids=[n for n, _ in UNSEEN_CASES])
def test_xmp_whose_text_cannot_be_seen_fails_closed_for_the_ai_purposes(
    name: str, data: bytes
) -> None:
    """docs/media.md, "Hostile files": XMP that is there but whose text cannot be got at
    (no byte search can see a "no" in it) is unreadable and a "no" for ai-train and
    ai-input. Before, such a file said nothing and was stored."""
    reading = read_media(data)
    assert reading.unreadable, reading
    assert any(p.startswith("unreadable XMP: ") for p in reading.problems), reading.problems
    assert [s.source.split(" (")[0] for s in reading.signals] == ["unreadable XMP"]
    assert media_answers(data) == (U, N, N)


def test_an_unseen_packet_beside_an_allowed_one_is_still_a_no() -> None:
    unseen = xmp_packet(begin="").decode().encode("cp500")
    data = jpeg([xmp_packet("DMI-ALLOWED"), unseen])
    assert media_answers(data) == (U, N, N)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from([b"tEXt", b"zTXt", b"iTXt"]),
    keyword=st.sampled_from([CHUNK_XMP, b"Raw profile type xmp", b"Raw profile type APP1",
                             b"Raw profile type 8bim"]),
    body=st.binary(max_size=300),
    compress=st.booleans(),
)  # fmt: skip
def test_any_text_chunk_that_may_hold_xmp_reads_without_raising(
    kind: bytes, keyword: bytes, body: bytes, compress: bool
) -> None:
    """Whatever a PNG text chunk that may hold XMP contains (compressed or not), the
    reading never raises; what it cannot read is unreadable."""
    text = zlib.compress(body) if compress else body
    read_media(png_with(png(), png_chunk(kind, keyword + b"\x00" + text)), c2pa=False)


@settings(max_examples=300, deadline=None)
@given(order=st.sampled_from([b"II*\x00", b"MM\x00*"]), body=st.binary(max_size=400))
def test_any_tiff_structure_in_a_jpeg_exif_block_reads_without_raising(
    order: bytes, body: bytes
) -> None:
    payload = b"Exif\x00\x00" + order + body
    data = jpeg()
    read_media(data[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + data[2:])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_packet_bytes_read_without_raising(packet: bytes) -> None:
    """A packet's encoding, found from any bytes (BOMs and zero bytes included)."""
    read_media(jpeg(packet), c2pa=False)
    read_media(jpeg(b"\xff\xfe" + packet), c2pa=False)
    read_media(jpeg(b"\x00\x00\xfe\xff" + packet), c2pa=False)


def test_text_that_is_there_but_malformed_keeps_the_byte_search_not_a_refusal() -> None:
    """Malformed XML, a DTD: the text can be searched, so only a "no" in it counts."""
    assert media_answers(jpeg(xmp_packet("DMI-ALLOWED").replace(b"</rdf:RDF>", b""))) == (U, U, U)
    assert media_answers(jpeg(BILLION_LAUGHS)) == (U, U, U)


def test_a_bare_token_and_an_unknown_prohibited_value_read_as_prohibited() -> None:
    packet = xmp_packet().replace(
        b"</rdf:Description>",
        b"<plus:DataMining>dmi-prohibited-newkind</plus:DataMining></rdf:Description>",
    )
    assert data_mining_values(packet) == ["DMI-PROHIBITED-NEWKIND"]
    assert media_answers(jpeg(packet)) == (N, N, N)


def test_another_namespace_with_the_same_local_name_is_not_read() -> None:
    packet = xmp_packet().replace(
        b"</rdf:Description>",
        b'<o:DataMining xmlns:o="http://example.com/other/">DMI-PROHIBITED</o:DataMining>'
        b"</rdf:Description>",
    )
    assert read_media(jpeg(packet)).signals == ()


def test_a_file_without_xmp_says_nothing() -> None:
    reading = read_media(jpeg())
    assert reading.signals == () and reading.problems == () and reading.c2pa == "none"


def test_the_reading_as_json() -> None:
    reading = read_media(png(xmp_packet("DMI-PROHIBITED-AIMLTRAINING")))
    assert reading.to_dict() == {
        "format": "png",
        "signals": [
            {
                "v": "iptc",
                "a": {"ai-train": False},
                "src": "XMP plus:DataMining DMI-PROHIBITED-AIMLTRAINING",
            }
        ],
        "problems": [],
        "c2pa": "none",
    }


# --------------------------------------------------------------------------- formats

FORMAT_CASES = [
    ("jpeg", jpeg),
    ("png", png),
    ("png-compressed-itxt", lambda p: png(p, compressed=True)),
    ("webp", webp),
    ("tiff", tiff),
    ("gif", gif),
    ("mp4-uuid", mp4),
    ("mp4-moov-udta-XMP_", lambda p: mp4(p, where="udta")),
    ("pdf", pdf),
]


@pytest.mark.parametrize(("name", "build"), FORMAT_CASES, ids=[n for n, _ in FORMAT_CASES])
def test_xmp_found_where_each_format_keeps_it(name: str, build: Callable[[bytes], bytes]) -> None:
    packet = xmp_packet("DMI-PROHIBITED-GENAIMLTRAINING")
    scan = find_packets(build(packet))
    assert scan.format == name.split("-")[0] and scan.problems == []
    assert len(scan.packets) == 1 and b"DMI-PROHIBITED-GENAIMLTRAINING" in scan.packets[0]
    assert media_answers(build(packet)) == (U, N, U)


def test_packet_scanning_for_an_unknown_format() -> None:
    data = b"some container " + xmp_packet("DMI-PROHIBITED") + b" trailing"
    assert sniff(data) == "unknown"
    assert media_answers(data) == (N, N, N)


def test_two_packets_any_no_wins() -> None:
    data = jpeg([xmp_packet("DMI-ALLOWED"), xmp_packet("DMI-PROHIBITED-AIMLTRAINING")])
    assert media_answers(data) == (U, N, Y)


# --------------------------------------------------------------------------- hostile files

BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "DMI-ALLOWED">'
    + b"".join(
        b'<!ENTITY %s "%s">' % (bytes([98 + i]), (b"&%s;" % bytes([97 + i])) * 10) for i in range(9)
    )
    + b']><x:xmpmeta xmlns:x="adobe:ns:meta/"><plus:DataMining '
    b'xmlns:plus="http://ns.useplus.org/ldf/xmp/1.0/">&j;</plus:DataMining></x:xmpmeta>'
)


def test_entity_expansion_is_refused_and_the_file_is_unreadable() -> None:
    reading = read_media(jpeg(BILLION_LAUGHS))
    assert reading.signals == ()
    assert reading.unreadable and "DTD" in reading.problems[0]


def test_malformed_xml_is_unreadable_but_a_prohibited_value_in_it_still_counts() -> None:
    broken = xmp_packet("DMI-PROHIBITED-AIMLTRAINING").replace(b"</rdf:RDF>", b"</rdf:XX>")
    reading = read_media(png(broken))
    assert reading.unreadable and "XML" in reading.problems[0]
    assert media_answers(png(broken)) == (U, N, U)


def test_a_huge_packet_is_not_parsed_but_searched_for_a_prohibited_value() -> None:
    padding = b"<dc:x>" + b"a" * 3_000_000 + b"</dc:x>"
    packet = xmp_packet("DMI-PROHIBITED", extra=padding.decode())
    reading = read_media(png(packet, compressed=True), limits=Limits(max_packet=64 * 1024))
    assert reading.unreadable and "limit 65536" in reading.problems[0]
    assert [s.source for s in reading.signals] == ["oversized XMP packet mentions DMI-PROHIBITED"]
    plain = read_media(png(packet), limits=Limits(max_packet=64 * 1024))  # its bytes too
    assert [s.source for s in plain.signals] == ["oversized XMP packet mentions DMI-PROHIBITED"]


def test_a_zip_bomb_itxt_is_inflated_only_to_the_files_budget_and_fails_closed() -> None:
    """Compressed XMP over the packet limit is searched as it inflates, up to the file's
    budget of inflated bytes (REP_MEDIA_MAX_SCAN_BYTES); past it, a "no" may hide, so
    the file fails closed (docs/media.md, "Hostile files")."""
    bomb = zlib.compress(b" " * 50_000_000, 9)  # 50 MB of spaces in about 50 KB
    body = png()
    chunk = png_chunk(b"iTXt", b"XML:com.adobe.xmp\x00\x01\x00\x00\x00" + bomb)
    data = body[:33] + chunk + body[33:]
    limits = Limits(max_packet=1024, max_scan=1024 * 1024)
    scan = find_packets(data, limits)
    assert scan.packets == scan.oversized == scan.mentions == []
    assert scan.inflated == 1024 * 1024
    assert scan.unseen == ["iTXt XML:com.adobe.xmp: inflates past 1048576 bytes in the file"]
    assert media_answers(data, limits=limits) == (U, N, N)


def test_many_packets_are_capped_and_a_no_past_the_cap_is_kept() -> None:
    data = jpeg([xmp_packet("DMI-UNSPECIFIED")] * 40 + [xmp_packet("DMI-PROHIBITED")])
    reading = read_media(data, limits=Limits(max_packets=16))
    assert "more than 16 XMP packets" in reading.problems
    assert len(reading.signals) == 17  # 16 parsed, and the "no" of the bytes not read
    assert reading.signals[-1].source == "XMP not wholly read mentions DMI-PROHIBITED"
    assert media_answers(data, limits=Limits(max_packets=16)) == (N, N, N)


@pytest.mark.parametrize(("name", "build"), FORMAT_CASES, ids=[n for n, _ in FORMAT_CASES])
def test_every_truncation_of_a_file_reads_without_raising(
    name: str, build: Callable[[bytes], bytes]
) -> None:
    data = build(xmp_packet("DMI-PROHIBITED"))
    for cut in range(0, len(data), max(1, len(data) // 200)):
        read_media(data[:cut])  # never raises
    assert media_answers(data) == (N, N, N)


CUT_CASES = [
    *FORMAT_CASES,
    ("jpeg-extended", lambda p: jpeg_extended(p + b" " * 2000)),
    ("heif", lambda p: mp4(p)[:8] + b"avif" + mp4(p)[12:]),
    ("jpeg-utf-16-le", lambda p: jpeg(encoded(p, "utf-16-le"))),
    ("pdf-utf-32-be", lambda p: pdf(encoded(p, "utf-32-be"))),
    ("png-tEXt", lambda p: png(p, chunk="tEXt")),
    ("png-zTXt-compressed", lambda p: png(p, chunk="zTXt")),
    ("png-raw-profile-compressed", png_raw_profile),
    ("png-raw-profile-tEXt", lambda p: png_raw_profile(p, chunk="tEXt")),
    ("tiff-ifd1", lambda p: tiff_in(p, "ifd1")),
]


@pytest.mark.parametrize(("name", "build"), CUT_CASES, ids=[n for n, _ in CUT_CASES])
def test_a_packet_cut_by_the_end_of_the_file_keeps_its_no(
    name: str, build: Callable[[bytes], bytes]
) -> None:
    """docs/media.md, "Hostile files": a broken packet keeps its "no". The file ends in
    the packet, after its DataMining value: what is left is searched as bytes."""
    packet = xmp_packet("DMI-PROHIBITED", extra="<dc:x>" + "z" * 300 + "</dc:x>")
    data = build(packet)
    if "compressed" in name:  # the value is in the deflate stream: cut that stream
        chunk = max(data.find(kind) for kind in (b"iTXt", b"zTXt"))
        cut = data[: chunk + 4 + int.from_bytes(data[chunk - 4 : chunk], "big") - 10]
    elif "raw-profile" in name:  # the value is hexadecimal: cut after it
        cut = data[: data.find(b"DMI-PROHIBITED".hex().encode()) + 200]
    elif "utf" in name:
        wide = "DMI-PROHIBITED".encode(name.split("-", 1)[1])
        cut = data[: data.find(wide) + 100 * len(wide) // 14]
    else:
        cut = data[: data.find(b"DMI-PROHIBITED") + 100]
    reading = read_media(cut)
    assert reading.unreadable, reading
    assert media_answers(cut) == (N, N, N), reading


def test_a_pdf_packet_without_its_end_or_over_the_limit_keeps_its_no() -> None:
    packet = xmp_packet("DMI-PROHIBITED-AIMLTRAINING")
    unterminated = pdf(packet.replace(b'<?xpacket end="w"?>', b""))
    assert media_answers(unterminated) == (U, N, U)
    # Over 1 MiB: the packet's first value allows, a later one (past the limit) prohibits.
    prohibited = b"<plus:DataMining>DMI-PROHIBITED</plus:DataMining></rdf:Description>"
    huge = xmp_packet("DMI-ALLOWED", extra="<dc:x>" + "z" * 1_100_000 + "</dc:x>").replace(
        b"</rdf:Description>", prohibited
    )
    reading = read_media(pdf(huge))
    assert reading.unreadable and "unterminated within the limit" in reading.problems[0]
    assert media_answers(pdf(huge)) == (N, N, N)


def test_bytes_not_read_count_only_where_xmp_would_hold_the_value() -> None:
    """A damaged PDF that only talks about the value (no DataMining near it, not after
    the PLUS vocabulary) says nothing; one more byte of XMP form and it says no."""
    text = b"<?xpacket begin='' The IPTC value DMI-PROHIBITED means: do not mine. " + b"." * 600
    assert media_answers(pdf(text)[:-30]) == (U, U, U)
    assert media_answers(pdf(text.replace(b"IPTC value ", b"ldf/vocab/"))[:-30]) == (N, N, N)


@pytest.mark.parametrize("brand", [b"isom", b"avif"])
def test_deeply_nested_boxes_are_bounded_and_keep_their_no(brand: bytes) -> None:
    """1,500 nested ISO BMFF boxes raised RecursionError; the walk stops at a depth,
    names it, and the packet inside still counts as bytes not read."""
    inner = box(b"XMP_", xmp_packet("DMI-PROHIBITED"))
    for _ in range(1500):
        inner = box(b"moov", inner)
    data = box(b"ftyp", brand + b"\x00\x00\x00\x00mif1") + inner
    reading = read_media(data)
    assert reading.format == "mp4"
    assert "ISO BMFF boxes nested more than 16 deep" in reading.problems
    assert media_answers(data) == (N, N, N)


def test_a_cut_jpeg_segment_is_named() -> None:
    data = jpeg(xmp_packet("DMI-PROHIBITED"))
    reading = read_media(data[:60])
    assert reading.problems == ("file truncated in a JPEG segment",)


def test_bytes_past_the_scan_limit_are_not_scanned_and_fail_closed() -> None:
    """docs/media.md, "Hostile files": a statement that cannot be reached within the
    limits fails closed for the AI purposes, like an unreadable one (before: it said
    nothing)."""
    data = b"x" * 5000 + xmp_packet("DMI-PROHIBITED")
    reading = read_media(data, limits=Limits(max_scan=4096))
    assert reading.problems == ("bytes past the first 4096 not scanned for XMP",)
    assert [s.source for s in reading.signals] == [
        "unreadable XMP (bytes past the first 4096 not scanned for XMP)"
    ]
    assert media_answers(data, limits=Limits(max_scan=4096)) == (U, N, N)
    assert media_answers(data[:4096], limits=Limits(max_scan=4096)) == (U, U, U)


def test_a_structure_loop_is_bounded_by_steps_and_fails_closed() -> None:
    """The budget is ``max_steps`` and one step per 256 bytes of the file (4,002 bytes:
    15 more); a walk that spends it fails closed (before: it said nothing)."""
    data = b"\xff\xd8" + b"\xff\xfe\x00\x02" * 1000  # empty comment segments
    scan = find_packets(data, Limits(max_steps=100))
    assert scan.problems == ["more than 115 structure steps"]
    assert media_answers(data, limits=Limits(max_steps=100)) == (U, N, N)
    assert media_answers(data, limits=Limits(max_steps=1000)) == (U, U, U)


HEADS = [
    b"\xff\xd8\xff",
    b"\x89PNG\r\n\x1a\n",
    b"RIFF\x00\x00\x00\x00WEBP",
    b"II*\x00",
    b"MM\x00*",
    b"GIF89a",
    b"\x00\x00\x00\x18ftyp",
    b"%PDF-",
]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(HEADS), st.binary(max_size=400))
def test_any_bytes_after_a_known_header_read_without_raising(head: bytes, tail: bytes) -> None:
    reading = read_media(head + tail, c2pa=False)
    assert reading.format != "unknown"  # every head is one of the formats walked


# --------------------------------------------------------------------------- C2PA / CAWG

C2PA_CASES = [
    ({"cawg.ai_generative_training": "notAllowed"}, (U, N, U)),
    ({"cawg.ai_training": "notAllowed"}, (U, N, U)),
    ({"cawg.ai_training": "constrained"}, (U, N, U)),
    ({"cawg.ai_inference": "notAllowed"}, (U, U, N)),
    ({"cawg.ai_inference": "constrained"}, (U, U, N)),
    ({"cawg.data_mining": "notAllowed"}, (U, N, N)),
    ({"cawg.data_mining": "constrained"}, (U, N, N)),
    ({"cawg.data_mining": "allowed"}, (U, U, U)),
    ({"cawg.ai_training": "allowed", "cawg.ai_inference": "allowed"}, (U, Y, Y)),
    ({"cawg.ai_generative_training": "allowed", "cawg.ai_training": "notAllowed"}, (U, N, U)),
    ({"cawg.custom_thing": "notAllowed"}, (U, U, U)),
]


def store(
    entries: dict[str, str], label: str = "cawg.training-mining", **extra: object
) -> dict[str, object]:
    """A manifest store as ``c2pa.Reader.json()`` returns it."""
    assertion = {"label": label, "data": {"entries": {k: {"use": v} for k, v in entries.items()}}}
    return {"manifests": {"urn:c2pa:1": {"assertions": [assertion]}}, **extra}


def decided(signals: list) -> tuple[bool | None, ...]:  # type: ignore[type-arg]
    return purpose_answers(usage_decision(signals))


@pytest.mark.parametrize(("entries", "expected"), C2PA_CASES, ids=[str(e) for e, _ in C2PA_CASES])
def test_cawg_training_mining_from_the_manifest_json(
    entries: dict[str, str], expected: tuple[bool | None, ...]
) -> None:
    assert decided(manifest_signals(store(entries))) == expected
    c2pa_1x = {k.replace("cawg.", "c2pa."): v for k, v in entries.items()}
    assert decided(manifest_signals(store(c2pa_1x, "c2pa.training-mining"))) == expected


def test_constrained_says_nothing_when_the_crawl_meets_the_constraints() -> None:
    signals = manifest_signals(store({"cawg.ai_training": "constrained"}), constraints_met=True)
    assert decided(signals) == (U, U, U)


def test_an_allowed_from_an_invalid_store_is_not_kept_but_a_no_is() -> None:
    entries = {"cawg.ai_training": "allowed", "cawg.ai_inference": "notAllowed"}
    signals = manifest_signals(store(entries, validation_state="Invalid"))
    assert decided(signals) == (U, U, N)


def test_versioned_and_numbered_labels_and_junk_json() -> None:
    assert decided(
        manifest_signals(store({"cawg.ai_training": "notAllowed"}, "cawg.training-mining__1"))
    ) == (U, N, U)
    for junk in (
        {},
        {"manifests": []},
        {"manifests": {"a": {"assertions": [1, {"label": 2}]}}},
        store({"cawg.ai_training": "maybe"}),
    ):
        assert manifest_signals(junk) == []  # type: ignore[arg-type]


def test_every_cawg_row_is_reachable() -> None:
    keys = {k for v, k in MAPPING if v == "cawg"}
    assert len(keys) == 16


needs_c2pa = pytest.mark.skipif(
    not available(), reason="c2pa-python (the media extra) is not installed"
)


@needs_c2pa
@pytest.mark.parametrize(
    ("entries", "expected"), C2PA_CASES[:6], ids=[str(e) for e, _ in C2PA_CASES[:6]]
)
def test_a_signed_c2pa_file_is_read_with_c2pa_python(
    entries: dict[str, str], expected: tuple[bool | None, ...]
) -> None:
    data = c2pa_jpeg(entries)
    reading = read_media(data)
    assert reading.c2pa == "read" and not reading.unreadable
    assert decided(list(reading.signals)) == expected


@needs_c2pa
def test_xmp_and_c2pa_in_one_file_combine() -> None:
    data = c2pa_jpeg(
        {"cawg.ai_inference": "notAllowed"}, base=jpeg(xmp_packet("DMI-PROHIBITED-AIMLTRAINING"))
    )
    assert decided(list(read_media(data).signals)) == (U, N, N)


@needs_c2pa
@pytest.mark.parametrize("damage", [(40, 80), (200, 260)])
def test_a_damaged_manifest_is_unreadable_not_a_crash(damage: tuple[int, int]) -> None:
    data = bytearray(c2pa_jpeg({"cawg.ai_training": "notAllowed"}))
    start, stop = (data.find(b"jumb") + offset for offset in damage)
    data[start:stop] = b"\x00" * (stop - start)
    reading = read_media(bytes(data))
    assert reading.c2pa.startswith("not read: ") and reading.unreadable
    assert reading.problems == (f"C2PA manifest {reading.c2pa}",)


def _jumbf_box(data: bytes, label: bytes) -> range:
    """The bytes of the JUMBF superbox labelled ``label`` (its ``jumb`` header on): the
    label of a description box follows its toggles byte (3: requestable, labelled)."""
    at = data.find(b"\x03" + label)
    assert at > 0
    start = data.rfind(b"jumb", 0, at) - 4
    return range(start, start + int.from_bytes(data[start : start + 4], "big"))


@lru_cache(maxsize=1)
def _signed_no() -> bytes:
    return c2pa_jpeg({"cawg.ai_training": "notAllowed"})


@needs_c2pa
@settings(max_examples=300, deadline=None)
@given(
    box=st.sampled_from([b"c2pa.claim", b"c2pa.signature"]),
    where=st.floats(0, 1, exclude_max=True),
    mask=st.integers(1, 255),
)
def test_a_damaged_claim_or_signature_never_loses_not_allowed(
    box: bytes, where: float, mask: int
) -> None:
    """Any one byte of the claim or of the signature box changed: the library cannot
    read the store (or finds it invalid), and the notAllowed of the assertion, intact in
    the raw bytes, is kept (docs/media.md, "Hostile files")."""
    data = bytearray(_signed_no())
    region = _jumbf_box(bytes(data), box)
    data[region[int(where * len(region))]] ^= mask
    reading = read_media(bytes(data))
    assert decided(list(reading.signals))[1] is N, reading


@needs_c2pa
def test_a_cut_manifest_keeps_its_no_and_never_keeps_an_allowed() -> None:
    data = _signed_no()
    cut = data[: _jumbf_box(data, b"c2pa.claim").start + 40]
    reading = read_media(cut)
    assert reading.c2pa.startswith("not read: ") and reading.unreadable
    assert [s.source for s in reading.signals] == [
        "C2PA cawg.training-mining cawg.ai_training: notAllowed"
        " (in the raw bytes of a damaged manifest store)"
    ]
    assert decided(list(reading.signals)) == (U, N, U)
    allowed = c2pa_jpeg({"cawg.ai_training": "allowed", "cawg.ai_inference": "constrained"})
    cut = allowed[: _jumbf_box(allowed, b"c2pa.claim").start + 40]
    assert decided(list(read_media(cut).signals)) == (U, U, N)
    assert decided(list(read_media(cut, constraints_met=True).signals)) == (U, U, U)


@needs_c2pa
def test_without_c2pa_python_a_not_allowed_in_the_raw_bytes_still_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    data = _signed_no()
    monkeypatch.setitem(sys.modules, "c2pa", None)
    reading = read_media(data)
    assert reading.c2pa == "not read: not installed" and not reading.unreadable
    assert decided(list(reading.signals)) == (U, N, U)


@pytest.mark.parametrize("use", [b"\x6anotAllowed", b"\x6bconstrained"])
def test_decoy_uses_in_a_damaged_store_do_not_hide_its_no(
    monkeypatch: pytest.MonkeyPatch, use: bytes
) -> None:
    """64 uses without an entry name before them spent the raw search of a store the
    library cannot read, and the entry's own ``notAllowed`` after them was not looked
    at: past its 64 looks, the search fails closed."""
    import sys

    monkeypatch.setitem(sys.modules, "c2pa", None)
    entry = b"cawg.ai_training\xa1\x63use" + use
    store = b"c2pa" + (b"\x63use" + use + b" ") * 64 + entry
    assert decided(list(read_media(jpeg() + store).signals)) == (U, N, N)
    assert decided(list(read_media(jpeg() + store[: -len(entry)]).signals)) == (U, U, U)
    assert decided(list(read_media(jpeg() + b"c2pa" + entry).signals)) == (U, N, U)


def test_without_c2pa_python_the_manifest_is_not_read_and_the_reading_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "c2pa", None)  # import c2pa raises ImportError
    assert not available()
    reading = read_media(jpeg(xmp_packet("DMI-PROHIBITED")) + b"c2pa")
    assert reading.c2pa == "not read: not installed" and not reading.unreadable
    assert [s.source for s in reading.signals] == ["XMP plus:DataMining DMI-PROHIBITED"]


def test_jpeg_extended_xmp_is_put_together_from_its_pieces() -> None:
    extended = xmp_packet("DMI-PROHIBITED-GENAIMLTRAINING", extra="<dc:x>" + "b" * 3000 + "</dc:x>")
    data = jpeg_extended(extended)
    scan = find_packets(data)
    assert scan.problems == [] and extended in scan.packets
    assert media_answers(data) == (U, N, U)
    assert "extended XMP incomplete" in read_media(data[:900] + data[1400:]).problems


@pytest.mark.parametrize("brand", [b"heic", b"avif", b"mif1", b"miaf", b"MA1B", b"jpeg", b"isom"])
def test_heif_xmp_items_are_read_by_iinf_and_iloc_whatever_the_brand(brand: bytes) -> None:
    """XMP in a HEIF / AVIF ``meta`` item (an ``infe`` of content type
    ``application/rdf+xml``, its bytes where ``iloc`` says): files of major brand
    ``miaf``, ``MA1B`` or ``jpeg`` were not read at all (only ten brands were scanned for
    packets), and are stored; ExifTool reads each (tests/integration/test_xmp_exiftool.py).
    The item is read whatever the brand, in the ``mdat`` or in ``idat``."""
    packet = xmp_packet("DMI-PROHIBITED-AIMLTRAINING")
    for data in (heif(packet, brand), heif(packet, brand, method=1)):
        reading = read_media(data)
        assert reading.format == "mp4" and not reading.unreadable, reading
        assert [s.source for s in reading.signals] == [
            "XMP plus:DataMining DMI-PROHIBITED-AIMLTRAINING"
        ]
    video = mp4(b"")[:-72] + box(b"free", packet)  # not an item: a plain MP4 says nothing
    assert media_answers(video) == (U, U, U)


def test_a_heif_xmp_item_is_read_beside_an_xmp_uuid_box() -> None:
    """A HEIC with a harmless XMP ``uuid`` box before its ``meta``: the item was read
    only when no box gave a packet, and the file was stored."""
    harmless = box(b"uuid", bytes.fromhex("BE7ACFCB97A942E89C71999491E3AFAC") + xmp_packet())
    data = heif(xmp_packet("DMI-PROHIBITED"), before=harmless)
    assert [s.source for s in read_media(data).signals] == ["XMP plus:DataMining DMI-PROHIBITED"]
    assert media_answers(data) == (N, N, N)


def test_a_heif_xmp_item_we_cannot_get_at_fails_closed() -> None:
    """An XMP item whose bytes are another item's (construction method 2) or encoded
    (``content_encoding``): its text cannot be seen, so the file is a "no" for the AI
    purposes; an ``iloc`` that names more items than it holds is a broken structure,
    whose bytes are searched."""
    allowed = xmp_packet("DMI-ALLOWED")
    assert media_answers(heif(allowed)) == (U, Y, Y)
    other = heif(allowed, method=2)
    assert read_media(other).problems == ("unreadable XMP: HEIF XMP item 2: construction method 2",)
    assert media_answers(other) == (U, N, N)
    encoded_item = heif(allowed, encoding=b"gzip")
    assert read_media(encoded_item).problems == (
        "unreadable XMP: HEIF XMP item 2: content encoding 'gzip'",
    )
    assert media_answers(encoded_item) == (U, N, N)
    data = heif(xmp_packet("DMI-PROHIBITED"))
    count = data.find(b"iloc") + 10  # the item count: 3 items in the room of 2
    cut = data[:count] + struct.pack(">H", 3) + data[count + 2 :]
    assert read_media(cut).problems[0] == "broken mp4 structure (a cut iloc box)"
    assert media_answers(cut) == (N, N, N)


@needs_c2pa
def test_a_remote_manifest_is_not_fetched_in_the_crawl() -> None:
    """The library would fetch a remote manifest (and OCSP answers) in the crawl's
    thread; ours never reaches the network: the manifest is named as not read."""
    from tests.support.localhttp import QuietHandler, serving

    hits: list[str] = []

    class Handler(QuietHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send(404, b"")

    with serving(Handler) as port:
        url = f"http://127.0.0.1:{port}/manifest.c2pa"
        data = c2pa_jpeg({"cawg.ai_training": "notAllowed"}, remote_url=url)
        reading = read_media(data)
    assert hits == []
    assert reading.c2pa == "not read: the manifest is remote (not fetched)"
    assert reading.problems == ("C2PA manifest not read: the manifest is remote (not fetched)",)


@needs_c2pa
def test_a_manifest_in_a_file_over_the_scan_limit_is_not_given_to_the_library() -> None:
    """The library reads and hashes the whole file: over the limit, its cost is not
    bounded, so the manifest is named as not read."""
    data = c2pa_jpeg({"cawg.ai_training": "notAllowed"})
    reading = read_media(data, limits=Limits(max_scan=4096))
    assert reading.c2pa == "not read: the file is over REP_MEDIA_MAX_SCAN_BYTES"
    assert reading.unreadable and reading.signals == ()
    assert read_media(data).c2pa == "read"


def media_answers(data: bytes, **kw: Any) -> tuple[bool | None, ...]:
    """What a file says of each purpose, read by ``read_media``."""
    return purpose_answers(usage_decision(read_media(data, **kw).signals))


# ------------------------------------------------- offsets followed, work bounded


PAST_THE_LIMIT_CASES = [
    ("tiff-ifd-after-the-image-little-endian", lambda p: tiff_ifd_last(p, "<")),
    ("tiff-ifd-after-the-image-big-endian", lambda p: tiff_ifd_last(p, ">")),
    ("mp4-moov-after-mdat", lambda p: mp4(p, where="udta", mdat_bytes=5000)),
    ("mp4-uuid-after-mdat", lambda p: mp4(p, mdat_bytes=5000)),
]


@pytest.mark.parametrize(
    ("name", "build"), PAST_THE_LIMIT_CASES, ids=[n for n, _ in PAST_THE_LIMIT_CASES]
)
def test_xmp_past_the_scan_limit_is_found_by_following_offsets(
    name: str, build: Callable[[bytes], bytes]
) -> None:
    """A TIFF whose IFD follows its image data (as libtiff writes it)
    and an MP4 whose ``moov`` (or XMP ``uuid``) follows its ``mdat`` were read only to
    the scan limit, and stored. The structure is followed by its offsets and sizes, so
    the XMP is read where it is, however far (here past a lowered limit)."""
    limits = Limits(max_scan=4096)
    data = build(xmp_packet("DMI-PROHIBITED"))
    assert data.find(b"DMI-PROHIBITED") > 5000
    reading = read_media(data, limits=limits)
    assert [s.source for s in reading.signals] == ["XMP plus:DataMining DMI-PROHIBITED"]
    assert not reading.unreadable, reading.problems
    assert media_answers(data, limits=limits) == (N, N, N)


def test_a_broken_structure_past_the_scan_limit_fails_closed() -> None:
    """A file not read wholly (its IFD offset past its end) whose bytes past the limit
    cannot be searched: a "no" may lie there, so it fails closed; within the limit, the
    byte search decides as before."""
    data = bytearray(tiff_ifd_last(xmp_packet("DMI-ALLOWED")))
    data[4:8] = struct.pack("<I", 10**9)
    reading = read_media(bytes(data), limits=Limits(max_scan=4096))
    assert reading.problems == (
        "file truncated in a TIFF IFD",
        "bytes past the first 4096 not searched (a file not read wholly)",
    )
    assert media_answers(bytes(data), limits=Limits(max_scan=4096)) == (U, N, N)
    assert media_answers(bytes(data)) == (U, U, U)


def test_a_tiff_naming_its_ifds_over_and_over_fails_closed_at_the_step_bound() -> None:
    """The TIFF reader queued every offset named, popping from the
    front of a list: 8,000 SubIFD entries took 3 s here, and 19
    such Exif blocks in a 1.1 MB JPEG 30 s, all within the step budget (only entries
    spent steps), so the file was stored. Each offset is queued once, each offset read
    spends a step: the walk stops at the bound and the file fails closed."""
    data = tiff_fan_out(8000)
    reading = read_media(data, c2pa=False)
    assert reading.problems == (f"more than {100_000 + len(data) // 256} structure steps",)
    assert media_answers(data) == (U, N, N)
    segment = b"Exif\x00\x00" + tiff_fan_out(5000, ">")
    app1 = b"\xff\xe1" + struct.pack(">H", len(segment) + 2) + segment
    jpeg_data = b"\xff\xd8" + app1 * 3 + b"\xff\xd9"
    reading = read_media(jpeg_data, c2pa=False)
    assert reading.problems == (f"more than {100_000 + len(jpeg_data) // 256} structure steps",)
    assert media_answers(jpeg_data) == (U, N, N)


def test_the_tiff_walk_visits_each_ifd_once_whatever_names_it() -> None:
    """The same file with few entries (within the budget): all 32 IFDs are walked once
    each, the work is one step per IFD, entry and offset read."""
    spent: list[int] = []
    real = _xmp_scan.Steps.spend

    def counting(self: _xmp_scan.Steps, count: int) -> None:
        spent.append(count)
        real(self, count)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_xmp_scan.Steps, "spend", counting)
        reading = read_media(tiff_fan_out(100), c2pa=False)
    assert not reading.unreadable
    # IFD0 and its 100 entries, 100 x 32 offsets read, 32 empty IFDs.
    assert sum(spent) == 1 + 100 + 100 * 32 + 32


# ---------------------------------------------- compressed XMP over the packet limit

LATE_NO = late_no_packet("DMI-PROHIBITED-AIMLTRAINING")
LATE_NO_CASES = [
    ("zTXt", lambda p: png(p, chunk="zTXt")),
    ("iTXt-compressed", lambda p: png(p, compressed=True)),
    ("iTXt-compressed-utf-16-le", lambda p: png(encoded(p, "utf-16-le"), compressed=True)),
    ("raw-profile-zTXt", png_raw_profile),
    ("raw-profile-tEXt", lambda p: png_raw_profile(p, chunk="tEXt")),
    ("raw-profile-iTXt-compressed", lambda p: png_with(png(), text_chunk(
        raw_profile(p), chunk="iTXt", compressed=True, keyword=b"Raw profile type xmp"))),
]  # fmt: skip


@pytest.mark.parametrize(("name", "build"), LATE_NO_CASES, ids=[n for n, _ in LATE_NO_CASES])
def test_compressed_xmp_over_the_limit_keeps_a_no_past_its_first_mib(
    name: str, build: Callable[[bytes], bytes]
) -> None:
    """A PNG zTXt, a compressed iTXt or an ImageMagick raw profile
    whose inflated text is over 1 MiB was searched only in its first 1 MiB + 1 byte,
    and stored (ExifTool reads the DMI-PROHIBITED in all three). All of it is searched
    as it inflates, within the file's budget."""
    data = build(LATE_NO)
    assert len(data) < 100_000 or "tEXt" in name  # the 1.2 MB of text are compressed
    reading = read_media(data)
    assert [s.source for s in reading.signals] == [
        "oversized XMP packet mentions DMI-PROHIBITED-AIMLTRAINING"
    ], reading
    assert "limit 1048576" in reading.problems[0]
    assert media_answers(data) == (U, N, U)


def test_compressed_xmp_over_the_limit_is_never_held_whole() -> None:
    """8 MB of inflated text is searched a piece (64 KiB) at a time: the reading's
    memory never holds it (Python's allocations traced, far below the text's size)."""
    import tracemalloc

    packet = xmp_packet(extra="<dc:x>" + "z" * 8_000_000 + "</dc:x>")
    data = png(packet, chunk="zTXt")
    tracemalloc.start()
    try:
        reading = read_media(data, c2pa=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert reading.signals == () and find_packets(data).inflated == len(packet)
    assert peak < 3_000_000, peak


def test_a_value_cut_between_two_pieces_is_found_whole() -> None:
    """The search carries the end of each piece into the next (the longest value)."""
    text = b"a" * 70 + b"ldf/vocab/DMI-PROHIBITED-AIMLTRAINING</x>" + b"b" * 70
    for cut in range(len(text) + 1):
        search = _xmp_scan.ValueSearch()
        search.feed(text[:cut])
        search.feed(text[cut:])
        assert search.values() == ["DMI-PROHIBITED-AIMLTRAINING"], cut
    search = _xmp_scan.ValueSearch()
    for byte in range(len(text)):
        search.feed(text[byte : byte + 1])
    assert search.values() == ["DMI-PROHIBITED-AIMLTRAINING"]


def test_a_blank_node_named_by_thousands_of_properties_is_followed_once() -> None:
    """Each ``plus:DataMining`` naming the head of a chain of 60 blank nodes followed
    the whole chain again: 1,700 such properties in each of 18 APP1 packets (a 1.15 MB
    JPEG) took 24 s. A blank node is followed once per packet: its value is taken once,
    and the work is linear in the packet."""
    chain = "".join(
        f'<rdf:Description rdf:nodeID="b{n}"><rdf:value rdf:nodeID="b{n + 1}"/></rdf:Description>'
        for n in range(59)
    )
    chain += '<rdf:Description rdf:nodeID="b59"><rdf:value>DMI-PROHIBITED</rdf:value>'
    packet = _packet_with(
        '<plus:DataMining rdf:nodeID="b0"/>' * 1700 + "</rdf:Description>" + chain
    )
    assert property_values(packet_text(packet)) == ["DMI-PROHIBITED"]
    assert media_answers(jpeg([packet] * 3)) == (N, N, N)


def test_each_thread_parses_with_its_own_parsers() -> None:
    """The crawl reads files in the reactor's thread pool, and an lxml parser must not
    be used by two threads at once: each thread has its own."""
    from concurrent.futures import ThreadPoolExecutor

    from rep_engine.usage.media import reading

    here = reading._PARSERS.by_override
    with ThreadPoolExecutor(1) as pool:
        there = pool.submit(lambda: reading._PARSERS.by_override).result()
    assert there[True] is not here[True] and there[False] is not here[False]
    files = [jpeg(xmp_packet(value)) for value, _ in DMI_CASES] * 4
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(media_answers, files))
    assert answers == [expected for _, expected in DMI_CASES] * 4


def test_each_problem_is_named_once_and_a_few_dozen_at_most() -> None:
    """A TIFF whose 5,000 tag 700 entries each point past its end named the same cut
    5,000 times (in the item's ``rep_unreadable`` and the audit trail): each problem is
    named once, at most 32 of them, and the rest counted."""
    entries = b"".join(struct.pack("<HHII", 700, 1, 100, 10**8 + n) for n in range(5000))
    data = b"II*\x00" + struct.pack("<IH", 8, 5000) + entries + b"\x00" * 4
    assert read_media(data).problems == ("file truncated in a TIFF tag 700",)
    broken = xmp_packet("DMI-ALLOWED").replace(b"</rdf:RDF>", b"")  # 40 packets, each named
    reading = read_media(jpeg([broken] * 40), limits=Limits(max_packets=100))
    assert reading.problems[0].startswith("XMP packet 1 unreadable (XML: ")
    assert len(reading.problems) == 33 and reading.problems[-1] == "and 8 more problems"


def test_a_gif_packet_without_an_end_is_cut_at_the_limit_not_the_end_of_the_file() -> None:
    """A GIF's raw XMP ends at its ``<?xpacket end`` or its magic trailer; sixteen
    extensions with neither each copied the rest of the file (256 MiB of memory for a
    16 MB GIF). Each is cut at the packet limit (+ 1 byte: over it), and the bytes of
    the file, not wholly read, keep their "no"."""
    extension = b"\x21\xff\x0bXMP DataXMP\x00"
    tail = b"a" * 300_000 + b"<plus:DataMining>http://ns.useplus.org/ldf/vocab/DMI-PROHIBITED"
    data = b"GIF89a\x01\x00\x01\x00\x00\x00\x00" + extension * 16 + tail
    limits = Limits(max_packet=64 * 1024)
    scan = find_packets(data, limits)
    assert [len(packet) for packet in scan.oversized] == [64 * 1024 + 1] * 16
    assert media_answers(data, limits=limits) == (N, N, N)


@pytest.mark.parametrize("tag", [700, 34377])
def test_a_tiff_value_named_by_many_entries_is_read_once(tag: int) -> None:
    """2,000 entries naming the same XMP (tag 700) or Photoshop resources (34377, the
    whole file): each was copied and read again, time quadratic in the file's size
    (1.6 s for 20,000 entries over 1.2 MB). A value is read once; the resources are
    walked in place."""
    resource = b"8BIM" + struct.pack(">HHI", 0x0424, 0, 0)  # an empty XMP resource
    count, pad = 2000, resource * 1000
    size = 8 + 2 + 12 * count + 4 + len(pad)
    entry = struct.pack("<HHII", tag, 7, size - 8, 8)
    data = b"II*\x00" + struct.pack("<IH", 8, count) + entry * count + b"\x00" * 4 + pad
    walked: list[int] = []
    walk = _xmp_tiff.image_resources

    def counting(block: Any, *args: Any) -> bool:
        walked.append(len(block))
        return walk(block, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_xmp_tiff, "image_resources", counting)
        scan = find_packets(data)
    if tag == 700:
        assert len(scan.packets) + len(scan.oversized) == 1
    else:
        assert walked == [size - 8]
    assert "more than 16 XMP packets" not in scan.problems


# ------------------------------------------------ what a limit keeps from the reading


@pytest.mark.parametrize("where", PAST_THE_COUNT)
def test_xmp_past_the_packet_count_is_searched_where_bytes_cannot_show_it(where: str) -> None:
    """16 packets that say nothing, then the "no" in a zTXt, a compressed iTXt, an
    ImageMagick raw profile (hexadecimal, compressed or not), or an extended XMP cut
    between two JPEG segments: the walk stopped at the count and the byte search of the
    file could not see it, so the file was stored (ExifTool reads each:
    tests/integration/test_xmp_exiftool.py). Packets past the count are not parsed but
    searched, as a packet over the size limit is."""
    data = past_the_count(xmp_packet("DMI-PROHIBITED"), where)
    reading = read_media(data)
    assert reading.problems == ("more than 16 XMP packets",)
    assert [s.source for s in reading.signals] == ["XMP not wholly read mentions DMI-PROHIBITED"]
    assert media_answers(data) == (N, N, N)
    assert media_answers(past_the_count(xmp_packet("DMI-ALLOWED"), where)) == (U, U, U)


def test_the_bytes_taken_as_packets_are_bounded_per_file_and_fail_closed_past_it() -> None:
    """Packets past the count are searched, so the count no longer bounds the work: a
    TIFF whose 2,000 tag 700 entries each name most of the file (each a different
    value, so each is read) is read to REP_MEDIA_MAX_SCAN_BYTES of packets, and what
    is past that fails closed."""
    count, size = 2000, 100_000
    base = 8 + 2 + 12 * count + 4
    entries = b"".join(struct.pack("<HHII", 700, 1, size - n, base + n) for n in range(count))
    data = b"II*\x00" + struct.pack("<IH", 8, count) + entries + b"\x00" * 4 + b"a" * size
    scan = find_packets(data)
    assert scan.taken <= Limits().max_scan + size
    assert scan.unseen == [f"XMP packets of more than {Limits().max_scan} bytes in the file"]
    assert media_answers(data) == (U, N, N)


@pytest.mark.parametrize(("decoys", "expected"), [(64, (U, N, U)), (300, (U, N, N))])
def test_decoy_values_do_not_hide_a_cut_packets_no(
    decoys: int, expected: tuple[bool | None, ...]
) -> None:
    """64 bare DMI-PROHIBITED in a JPEG comment spent the byte search's 64 looks, and the
    packet cut by the end of the file after them said nothing: the file was stored. The
    values looked at in bytes not parsed have a budget per file (256): the packet's
    value is found after 64 decoys; past the budget, the rest fails closed."""
    text = b"DMI-PROHIBITED " * decoys
    comment = b"\xff\xfe" + struct.pack(">H", len(text) + 2) + text
    body = jpeg(xmp_packet("DMI-PROHIBITED-AIMLTRAINING"))
    data = body[:2] + comment + body[2:]
    cut = data[: data.rfind(b"DMI-PROHIBITED-AIMLTRAINING") + 100]
    assert media_answers(cut) == expected
    spent = "more than 256 DMI-PROHIBITED values in bytes not parsed"
    assert (spent in read_media(cut).problems) is (decoys > 256)


def test_a_gif_packet_over_the_limit_is_searched_to_its_end() -> None:
    """A GIF packet over the packet limit was cut there: a value past the cut, more
    than 512 bytes after its ``DataMining``, was seen by no search, and the file was
    stored (ExifTool reads it). The rest of the packet is searched, in place, a piece at
    a time, to its end."""
    bag = "<rdf:li>DMI-UNSPECIFIED</rdf:li>" + " " * 600 + "<rdf:li>DMI-PROHIBITED</rdf:li>"
    big = "<dc:x>" + "z" * 1_100_000 + f"</dc:x><plus:DataMining><rdf:Bag>{bag}</rdf:Bag>"
    data = gif(xmp_packet(extra=big + "</plus:DataMining>"))
    reading = read_media(data)
    assert reading.problems == ("XMP packet of 1048577 bytes (limit 1048576)",)
    assert [s.source for s in reading.signals] == ["oversized XMP packet mentions DMI-PROHIBITED"]
    assert media_answers(data) == (N, N, N)


@pytest.mark.parametrize("count", [33, 1000])
def test_every_subifd_an_entry_names_is_walked(count: int) -> None:
    """The SubIFD offsets of an entry were read to 32: the XMP of the 33rd SubIFD was
    dropped silently (ExifTool reads ten, and warns that it ignores the rest). All are
    walked, each spending a step of the budget (which fails closed when spent)."""
    data = tiff_sub_ifds(xmp_packet("DMI-PROHIBITED"), count)
    reading = read_media(data)
    assert not reading.unreadable
    assert [s.source for s in reading.signals] == ["XMP plus:DataMining DMI-PROHIBITED"]


@pytest.mark.parametrize("count", [65, 300])
def test_every_blank_node_of_a_value_is_followed(count: int) -> None:
    """A bag of 65 blank nodes (``rdf:li rdf:nodeID``): the value of the 65th was
    dropped silently (ExifTool reads it). Each node is followed once per packet, so the
    work is linear without a cap."""
    packet = blank_node_bag(["DMI-UNSPECIFIED"] * (count - 1) + ["DMI-PROHIBITED"])
    assert property_values(packet_text(packet))[-1] == PLUS_VOCAB + "DMI-PROHIBITED"
    assert media_answers(jpeg(packet)) == (N, N, N)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_the_byte_search_reads_wide_text_without_decoding_the_file(codec: str) -> None:
    """The byte search of a file not read wholly decoded all of it once per wide
    encoding it held a value in (a 31.5 MB file: 2.4 s and 177 MB, in C calls that hold
    the GIL, so the crawl's reactor waited). Each width's spaced-out bytes are now
    searched in place: the value is found, and nothing the size of the file is made."""
    import tracemalloc

    decoys = b"".join("DMI-PROHIBITED ".encode(other) for other in _UNITS)
    value = f"<plus:DataMining>{PLUS_VOCAB}DMI-PROHIBITED-AIMLTRAINING</plus:DataMining>"
    data = b"%PDF-1.7\n<?xpacket begin=" + b"%" * 4_000_000 + decoys + value.encode(codec)
    tracemalloc.start()
    try:
        reading = read_media(data, c2pa=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [s.source for s in reading.signals] == [
        "XMP not wholly read mentions DMI-PROHIBITED-AIMLTRAINING"
    ]
    assert peak < 1_000_000, peak


_UNITS = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")


def test_packets_past_the_count_are_searched_up_to_64_times_as_many() -> None:
    """Each packet past the count costs a few steps of Python to find and search, and a
    32 MB PDF holds 800,000 empty ones (8.8 s): 16 are parsed, 1,024 more searched, and
    the rest fails closed."""
    empty = b'<?xpacket begin=""?><?xpacket end="w"?>'
    data = b"%PDF-1.7\n" + empty * 2000
    scan = find_packets(data)
    assert len(scan.packets) + len(scan.unparsed) == 16 + 1024
    assert scan.unseen == ["more than 1040 XMP packets"]
    assert media_answers(data) == (U, N, N)
    assert media_answers(b"%PDF-1.7\n" + empty * 1040) == (U, U, U)


def test_a_packet_of_too_many_elements_is_searched_not_parsed() -> None:
    """A 1 MiB packet of 250,000 empty elements took 0.3 s to parse (16 of them in a
    22 KB PNG: 5 s); a packet of more than 8,192 elements is searched as bytes, as a
    malformed one is, and keeps its "no"."""
    packet = xmp_packet("DMI-PROHIBITED-AIMLTRAINING", extra="<a/>" * 9000)
    reading = read_media(png(packet, chunk="zTXt"))
    assert reading.problems == ("XMP packet 1 unreadable (more than 8192 elements)",)
    assert media_answers(png(packet, chunk="zTXt")) == (U, N, U)
    assert not read_media(png(xmp_packet("DMI-ALLOWED", extra="<a/>" * 8000))).unreadable
