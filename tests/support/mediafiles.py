"""Sample media files built by the tests: real images (Pillow) with an XMP packet put
where each format keeps it (and where ExifTool reads one besides: PNG ``tEXt`` / ``zTXt``,
ImageMagick's raw profiles, every IFD of a TIFF, a JPEG's Exif and Photoshop blocks),
the packet in each RDF form and encoding of XMP, and C2PA-signed files (``c2pa-python``
and a throwaway certificate chain made with ``cryptography``).

``tests/integration/test_xmp_exiftool.py`` checks that ExifTool reads DMI-PROHIBITED in every form
built here."""

from __future__ import annotations

import datetime
import io
import itertools
import json
import struct
import zlib
from functools import lru_cache
from typing import Any

from PIL import Image

PLUS_VOCAB = "http://ns.useplus.org/ldf/vocab/"
DMI_VALUES = (
    "DMI-UNSPECIFIED",
    "DMI-ALLOWED",
    "DMI-PROHIBITED-AIMLTRAINING",
    "DMI-PROHIBITED-GENAIMLTRAINING",
    "DMI-PROHIBITED-EXCEPTSEARCHENGINEINDEXING",
    "DMI-PROHIBITED",
    "DMI-PROHIBITED-SEECONSTRAINT",
    "DMI-PROHIBITED-SEEEMBEDDEDRIGHTSEXPR",
    "DMI-PROHIBITED-SEELINKEDRIGHTSEXPR",
)


#: The RDF forms of a property value (XMP Part 1 §7.9.2), ``{uri}`` the value: each is
#: read by ExifTool as ``XMP-plus:DataMining`` (the qualifier ``q:source`` as another tag).
RDF_FORMS = {
    "element": "<plus:DataMining>{uri}</plus:DataMining>",
    "resource": '<plus:DataMining rdf:resource="{uri}"/>',
    "qualified": '<plus:DataMining rdf:parseType="Resource"><rdf:value>{uri}</rdf:value>'
    "<q:source>licence desk</q:source></plus:DataMining>",
    "described": "<plus:DataMining><rdf:Description><rdf:value>{uri}</rdf:value>"
    "<q:source>licence desk</q:source></rdf:Description></plus:DataMining>",
    "value-attribute": '<plus:DataMining rdf:value="{uri}" q:source="licence desk"/>',
    "li-resource": '<plus:DataMining><rdf:Bag><rdf:li rdf:resource="{uri}"/></rdf:Bag>'
    "</plus:DataMining>",
    "li-qualified": '<plus:DataMining><rdf:Seq><rdf:li rdf:parseType="Resource">'
    "<rdf:value>{uri}</rdf:value><q:source>licence desk</q:source></rdf:li></rdf:Seq>"
    "</plus:DataMining>",
    "alt": '<plus:DataMining><rdf:Alt><rdf:li xml:lang="x-default">{uri}</rdf:li></rdf:Alt>'
    "</plus:DataMining>",
}


def xmp_packet(
    value: str | None = None, *, form: str = "element", extra: str = "", begin: str = "\ufeff"
) -> bytes:
    """An XMP packet as ExifTool writes it, with ``plus:DataMining`` = ``value`` as an
    attribute of the description (``form="attribute"``) or in one of :data:`RDF_FORMS`
    (``begin=""``: an ASCII-only packet, which ExifTool writes to a PNG ``tEXt``)."""
    uri = PLUS_VOCAB + value if value else ""
    attribute = f' plus:DataMining="{uri}"' if value and form == "attribute" else ""
    element = RDF_FORMS[form].format(uri=uri) if value and form != "attribute" else ""
    return (
        f'<?xpacket begin="{begin}" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/">'
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:plus="http://ns.useplus.org/ldf/xmp/1.0/"'
        ' xmlns:q="http://example.com/ns/qualifiers/"'
        f' xmlns:dc="http://purl.org/dc/elements/1.1/"{attribute}>'
        f"{element}{extra}</rdf:Description></rdf:RDF></x:xmpmeta>\n"
        '<?xpacket end="w"?>'
    ).encode()


def late_no_packet(value: str) -> bytes:
    """A packet whose ``plus:DataMining`` = ``value`` comes after 1.2 MB of other text
    (past the 1 MiB packet limit): compressed, a few kilobytes."""
    return xmp_packet(
        extra="<dc:x>" + "z" * 1_200_000 + f"</dc:x><plus:DataMining>{PLUS_VOCAB}{value}"
        "</plus:DataMining>"
    )


def encoded(packet: bytes, codec: str) -> bytes:
    """``packet`` in another encoding (``utf-16-be``, ``utf-32-le``…; ``utf-16`` and
    ``utf-32`` put a byte-order mark first); its ``begin`` U+FEFF is in that encoding."""
    return packet.decode("utf-8").encode(codec)


def _image(fmt: str, colour: tuple[int, int, int] = (200, 30, 30), **kw: Any) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buffer, fmt, **kw)
    return buffer.getvalue()


def jpeg(
    packets: list[bytes] | bytes | None = None, colour: tuple[int, int, int] = (1, 2, 3)
) -> bytes:
    """A real JPEG with each packet in an APP1 segment after SOI."""
    body = _image("JPEG", colour)
    if packets is None:
        return body
    segments = b""
    for packet in [packets] if isinstance(packets, bytes) else packets:
        payload = b"http://ns.adobe.com/xap/1.0/\x00" + packet
        segments += b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return body[:2] + segments + body[2:]


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(
    packet: bytes | None = None,
    *,
    compressed: bool = False,
    colour: tuple[int, int, int] = (1, 2, 3),
    chunk: str = "iTXt",
    keyword: bytes = b"XML:com.adobe.xmp",
) -> bytes:
    """A real PNG with the packet in a text chunk after IHDR: ``iTXt`` (``compressed``
    or not), ``tEXt`` or ``zTXt``."""
    body = _image("PNG", colour)
    if packet is None:
        return body
    return png_with(body, text_chunk(packet, chunk=chunk, compressed=compressed, keyword=keyword))


def text_chunk(
    text: bytes, *, chunk: str = "iTXt", compressed: bool = False, keyword: bytes
) -> bytes:
    """A PNG text chunk (PNG §11.3.4) holding ``text`` under ``keyword``."""
    if chunk == "tEXt":
        return png_chunk(b"tEXt", keyword + b"\x00" + text)
    if chunk == "zTXt":
        return png_chunk(b"zTXt", keyword + b"\x00\x00" + zlib.compress(text))
    body = zlib.compress(text) if compressed else text
    flags = bytes([int(compressed), 0])
    return png_chunk(b"iTXt", keyword + b"\x00" + flags + b"\x00\x00" + body)


def png_with(body: bytes, *chunks: bytes) -> bytes:
    """A PNG with ``chunks`` put after its IHDR."""
    ihdr_end = 8 + 8 + 13 + 4
    return body[:ihdr_end] + b"".join(chunks) + body[ihdr_end:]


def raw_profile(data: bytes, name: str = "xmp") -> bytes:
    """ImageMagick's raw profile text (png.c ``Magick_png_write_raw_profile``): a
    newline, the profile's name, a newline, its length in 8 columns, a newline, then
    its bytes in hexadecimal, 72 digits a line."""
    digits = data.hex()
    lines = "\n".join(digits[n : n + 72] for n in range(0, len(digits), 72))
    return f"\n{name}\n{len(data):8d}\n{lines}\n".encode()


def png_raw_profile(
    packet: bytes, *, chunk: str = "zTXt", colour: tuple[int, int, int] = (1, 2, 3)
) -> bytes:
    """A real PNG whose XMP is ImageMagick's ``Raw profile type xmp`` (a ``zTXt`` as
    ImageMagick writes it, or ``tEXt`` / ``iTXt``)."""
    text = raw_profile(packet)
    return png_with(
        _image("PNG", colour), text_chunk(text, chunk=chunk, keyword=b"Raw profile type xmp")
    )


def png_exif(packet: bytes) -> bytes:
    """A real PNG with an ``eXIf`` chunk whose IFD0 holds tag 700."""
    return png_with(_image("PNG"), png_chunk(b"eXIf", tiff_block({0: {700: packet}})))


def webp(packet: bytes) -> bytes:
    body = _image("WEBP")
    chunk = (
        b"XMP " + struct.pack("<I", len(packet)) + packet + (b"\x00" if len(packet) & 1 else b"")
    )
    riff = body[12:] + chunk
    return b"RIFF" + struct.pack("<I", len(riff) + 4) + b"WEBP" + riff


def tiff_block(
    ifds: dict[int, dict[int, bytes]],
    *,
    exif: dict[int, bytes] | None = None,
    sub: dict[int, bytes] | None = None,
    pages: int = 0,
) -> bytes:
    """A little-endian TIFF structure (TIFF 6.0 §2): ``pages`` IFDs in a chain (at least
    one more than the highest key of ``ifds``), each an 8x8 RGB image when ``pages``,
    else tags only; ``ifds[n]`` adds tags (BYTE values) to IFD ``n``; ``exif`` / ``sub``:
    an Exif IFD / a SubIFD (a reduced 8x8 image) named by IFD0, with those tags."""
    out = bytearray(b"II*\x00\x00\x00\x00\x00")

    def put(data: bytes) -> int:
        at = len(out)
        out.extend(data + b"\x00" * (len(data) & 1))
        return at

    def ifd(tags: dict[int, tuple[int, int, bytes]]) -> int:
        entries = []
        for tag in sorted(tags):
            kind, count, value = tags[tag]
            field = value if len(value) <= 4 else struct.pack("<I", put(value))
            entries.append(struct.pack("<HHI", tag, kind, count) + field.ljust(4, b"\x00"))
        return put(struct.pack("<H", len(entries)) + b"".join(entries) + b"\x00" * 4)

    def image(extra: dict[int, bytes], reduced: bool = False) -> dict[int, tuple[int, int, bytes]]:
        tags: dict[int, tuple[int, int, bytes]] = {}
        if pages or reduced:
            pixels = put(bytes([200, 30, 30]) * 64)
            short = lambda n: (3, 1, struct.pack("<H", n))  # noqa: E731
            tags = {256: short(8), 257: short(8), 258: (3, 3, struct.pack("<3H", 8, 8, 8)),
                    259: short(1), 262: short(2), 273: (4, 1, struct.pack("<I", pixels)),
                    277: short(3), 278: short(8), 279: (4, 1, struct.pack("<I", 192))}  # fmt: skip
            if reduced:
                tags[254] = (4, 1, struct.pack("<I", 1))
        for tag, value in extra.items():
            tags[tag] = (1, len(value), value)
        return tags

    count = max(pages, max(ifds, default=0) + 1)
    offsets = []
    for number in range(count):
        tags = image(ifds.get(number, {}))
        if number == 0 and exif is not None:
            fields = {tag: (1, len(value), value) for tag, value in exif.items()}
            tags[34665] = (4, 1, struct.pack("<I", ifd(fields)))
        if number == 0 and sub is not None:
            tags[330] = (4, 1, struct.pack("<I", ifd(image(sub, reduced=True))))
        offsets.append(ifd(tags))
    out[4:8] = struct.pack("<I", offsets[0])
    for before, after in itertools.pairwise(offsets):
        count_of = struct.unpack_from("<H", out, before)[0]
        out[before + 2 + 12 * count_of : before + 6 + 12 * count_of] = struct.pack("<I", after)
    return bytes(out)


def tiff_in(packet: bytes, where: str) -> bytes:
    """A real TIFF (three 8x8 pages) whose XMP is only in ``where``: ``ifd0``, ``ifd1``,
    ``ifd2``, ``exif`` (the Exif IFD) or ``subifd``."""
    xmp = {700: packet}
    if where.startswith("ifd"):
        return tiff_block({int(where[3:]): xmp}, pages=3)
    return tiff_block({}, pages=3, **{where.replace("subifd", "sub"): xmp})


def tiff_ifd_last(packet: bytes, order: str = "<", pixels: int = 5000) -> bytes:
    """A TIFF as libtiff writes it: the image data first, then the XMP (tag 700), then
    IFD0, named by the header's offset (TIFF 6.0 §2), in either byte order."""
    head = (b"II*\x00" if order == "<" else b"MM\x00*") + b"\x00" * 4
    body = head + b"\x80" * pixels
    xmp_at = len(body)
    body += packet + b"\x00" * (len(packet) & 1)
    ifd_at = len(body)
    entries = [
        struct.pack(order + "HHI", 256, 3, 1) + struct.pack(order + "H", 8) + b"\x00\x00",
        struct.pack(order + "HHII", 273, 4, 1, len(head)),
        struct.pack(order + "HHII", 700, 1, len(packet), xmp_at),
    ]
    body += struct.pack(order + "H", len(entries)) + b"".join(entries) + b"\x00" * 4
    return body[:4] + struct.pack(order + "I", ifd_at) + body[8:]


def tiff_fan_out(entries: int, order: str = "<") -> bytes:
    """A hostile TIFF: IFD0 has ``entries`` SubIFD entries (tag 330), each naming the
    same 32 (empty) IFDs: the offsets of one IFD named over and over."""
    count = 32
    ifd_size = 2 + 12 * entries + 4
    offsets_at = 8 + ifd_size
    empty_at = offsets_at + 4 * count
    out = bytearray((b"II*\x00" if order == "<" else b"MM\x00*") + struct.pack(order + "I", 8))
    out += struct.pack(order + "H", entries)
    out += struct.pack(order + "HHII", 330, 4, count, offsets_at) * entries + b"\x00" * 4
    out += b"".join(struct.pack(order + "I", empty_at + 6 * n) for n in range(count))
    return bytes(out + b"\x00" * 6 * count)


def libtiff_tiff(packet: bytes) -> bytes:
    """A real 32x32 RGB TIFF written by libtiff (Pillow's deflate writer), as libtiff
    writes one: the (incompressible) image data first, then IFD0 with tag 700."""
    import random

    from PIL import TiffImagePlugin

    ifd = TiffImagePlugin.ImageFileDirectory_v2()
    ifd[700] = packet
    ifd.tagtype[700] = 1
    pixels = random.Random(7).randbytes(32 * 32 * 3)
    buffer = io.BytesIO()
    image = Image.frombytes("RGB", (32, 32), pixels)
    image.save(buffer, "TIFF", tiffinfo=ifd, compression="tiff_adobe_deflate")
    return buffer.getvalue()


def jpeg_exif(packet: bytes, where: str = "ifd0") -> bytes:
    """A real JPEG whose XMP is only tag 700 of its Exif block (``ifd0`` or ``exif``)."""
    xmp = {700: packet}
    block = tiff_block({0: xmp}) if where == "ifd0" else tiff_block({}, exif=xmp)
    payload = b"Exif\x00\x00" + block
    body = jpeg()
    return body[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + body[2:]


def jpeg_photoshop(packet: bytes) -> bytes:
    """A real JPEG whose XMP is only Photoshop image resource 0x0424 (APP13)."""
    resource = b"8BIM" + struct.pack(">H", 0x0424) + b"\x00\x00" + struct.pack(">I", len(packet))
    resource += packet + b"\x00" * (len(packet) & 1)
    payload = b"Photoshop 3.0\x00" + resource
    body = jpeg()
    return body[:2] + b"\xff\xed" + struct.pack(">H", len(payload) + 2) + payload + body[2:]


def tiff(packet: bytes) -> bytes:
    """A TIFF whose IFD0 carries tag 700 (type BYTE)."""
    from PIL import TiffImagePlugin

    ifd = TiffImagePlugin.ImageFileDirectory_v2()
    ifd[700] = packet
    ifd.tagtype[700] = 1
    return _image("TIFF", tiffinfo=ifd)


def gif(packet: bytes) -> bytes:
    """A GIF89a with the XMP application extension (raw packet + magic trailer) before
    the trailer byte."""
    body = _image("GIF")
    trailer = bytes([1, *range(255, -1, -1), 0])
    extension = b"\x21\xff\x0b" + b"XMP DataXMP" + packet + trailer
    return body[:-1] + extension + b"\x3b"


def box(kind: bytes, data: bytes) -> bytes:
    """An ISO BMFF box (MP4, AVIF, HEIF) of ``kind`` around ``data``."""
    return struct.pack(">I", len(data) + 8) + kind + data


def mp4(packet: bytes, *, where: str = "uuid", mdat_bytes: int = 64) -> bytes:
    """A minimal ISO BMFF file: ftyp, then the packet in a top-level ``uuid`` box or in
    ``moov/udta/XMP_``, then an mdat."""
    ftyp = box(b"ftyp", b"isom\x00\x00\x02\x00isomiso2mp41")
    if where == "uuid":
        xmp = box(b"uuid", bytes.fromhex("BE7ACFCB97A942E89C71999491E3AFAC") + packet)
    else:
        xmp = box(b"moov", box(b"udta", box(b"XMP_", packet)))
    if mdat_bytes > 64:  # a large file: the media data first, the XMP after it
        return ftyp + box(b"mdat", b"\x00" * mdat_bytes) + xmp
    return ftyp + xmp + box(b"mdat", b"\x00" * mdat_bytes)


#: Where a file keeps the XMP past its first 16 packets, out of sight of a plain byte
#: search (compressed, hexadecimal, cut in two): built by :func:`past_the_count`.
PAST_THE_COUNT = ("png-zTXt", "png-iTXt-compressed", "png-raw-profile-zTXt",
                  "png-raw-profile-tEXt", "jpeg-extended-split")  # fmt: skip


def past_the_count(packet: bytes, where: str) -> bytes:
    """A file with 16 packets that say nothing, then ``packet`` in ``where`` (one of
    :data:`PAST_THE_COUNT`): a PNG's 17th text chunk, or a JPEG's extended XMP (after
    15 packets and the standard one) cut in its first ``DMI-PROHIBITED`` between two
    segments."""
    if where == "jpeg-extended-split":
        return jpeg_extended(packet, piece=packet.find(b"DMI-PROHIBITED") + 7, others=15)
    keyword, text = b"XML:com.adobe.xmp", packet
    if "raw-profile" in where:
        keyword, text = b"Raw profile type xmp", raw_profile(packet)
    chunk = next(kind for kind in ("tEXt", "zTXt", "iTXt") if kind in where)
    last = text_chunk(text, chunk=chunk, compressed="compressed" in where, keyword=keyword)
    harmless = text_chunk(xmp_packet(), keyword=b"XML:com.adobe.xmp")
    return png_with(png(), *[harmless] * 16, last)


def full_box(kind: bytes, version: int, data: bytes) -> bytes:
    """An ISO BMFF full box (version, then flags 0)."""
    return box(kind, bytes([version, 0, 0, 0]) + data)


def heif(
    packet: bytes,
    brand: bytes = b"heic",
    *,
    method: int = 0,
    before: bytes = b"",
    encoding: bytes = b"",
) -> bytes:
    """A HEIF file (ISO/IEC 23008-12) of major brand ``brand``: an image item and the
    XMP item (``infe`` version 2, type ``mime``, content type ``application/rdf+xml``,
    then ``encoding``) located by ``iloc`` (version 1) in the ``mdat`` (construction
    ``method`` 0), or in ``idat`` (1); ``before``: boxes between ``ftyp`` and ``meta``."""
    hdlr = full_box(b"hdlr", 0, b"\x00" * 4 + b"pict" + b"\x00" * 13)
    pitm = full_box(b"pitm", 0, struct.pack(">H", 1))
    image_entry = full_box(b"infe", 2, struct.pack(">HH", 1, 0) + b"hvc1\x00")
    strings = b"XMP\x00application/rdf+xml\x00" + (encoding + b"\x00" if encoding else b"")
    xmp_entry = full_box(b"infe", 2, struct.pack(">HH", 2, 0) + b"mime" + strings)
    iinf = full_box(b"iinf", 0, struct.pack(">H", 2) + image_entry + xmp_entry)
    image = b"\x00" * 32

    def meta(image_at: int) -> bytes:
        xmp_at = 0 if method == 1 else image_at + len(image)
        items = struct.pack(">HHHHII", 1, 0, 0, 1, image_at, len(image))
        items += struct.pack(">HHHHII", 2, method, 0, 1, xmp_at, len(packet))
        iloc = full_box(b"iloc", 1, b"\x44\x00" + struct.pack(">H", 2) + items)
        extra = box(b"idat", packet) if method == 1 else b""
        return full_box(b"meta", 0, hdlr + pitm + iloc + iinf + extra)

    head = box(b"ftyp", brand + b"\x00\x00\x00\x00mif1" + brand) + before
    image_at = len(head) + len(meta(0)) + 8
    return head + meta(image_at) + box(b"mdat", image + (b"" if method == 1 else packet))


def tiff_sub_ifds(packet: bytes, count: int) -> bytes:
    """A TIFF whose IFD0 names ``count`` SubIFDs (tag 330), the last of them holding the
    XMP (tag 700), the others empty."""
    offsets_at = 8 + 2 + 12 + 4
    first = offsets_at + 4 * count
    last = first + 6 * (count - 1)
    out = b"II*\x00" + struct.pack("<IH", 8, 1) + struct.pack("<HHII", 330, 4, count, offsets_at)
    out += b"\x00" * 4 + b"".join(struct.pack("<I", first + 6 * n) for n in range(count))
    out += b"\x00" * 6 * (count - 1)
    xmp = struct.pack("<HHII", 700, 1, len(packet), last + 18)
    return out + struct.pack("<H", 1) + xmp + b"\x00" * 4 + packet


def blank_node_bag(values: list[str]) -> bytes:
    """A packet whose ``plus:DataMining`` is a bag of blank nodes (``rdf:li
    rdf:nodeID``), each described after it with one of ``values`` as its ``rdf:value``."""
    items = "".join(f'<rdf:li rdf:nodeID="n{n}"/>' for n in range(len(values)))
    nodes = "".join(
        f'<rdf:Description rdf:nodeID="n{n}"><rdf:value>{PLUS_VOCAB}{value}</rdf:value>'
        "</rdf:Description>"
        for n, value in enumerate(values)
    )
    bag = f"<plus:DataMining><rdf:Bag>{items}</rdf:Bag></plus:DataMining></rdf:Description>"
    return xmp_packet(extra="#").replace(b"#</rdf:Description>", (bag + nodes).encode())


def pdf(packet: bytes) -> bytes:
    """A small PDF whose catalog's /Metadata stream holds the packet, uncompressed."""
    return (
        b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Metadata 2 0 R >>\nendobj\n"
        b"2 0 obj\n<< /Type /Metadata /Subtype /XML /Length "
        + str(len(packet)).encode()
        + b" >>\nstream\n"
        + packet
        + b"\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"
    )


# --------------------------------------------------------------------------- C2PA


@lru_cache(maxsize=1)
def _signer_pem() -> tuple[bytes, bytes]:
    """A throwaway CA and an ES256 signing certificate (chain PEM, key PEM)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    def name(common: str) -> x509.Name:
        return x509.Name(
            [
                x509.NameAttribute(NameOID.COMMON_NAME, common),
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "scrapy_rep tests"),
            ]
        )

    def usage(*, sign: bool) -> x509.KeyUsage:
        return x509.KeyUsage(True, False, False, False, False, sign, sign, False, False)

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    key = ec.generate_private_key(ec.SECP256R1())

    def cert(subject: str, public: Any, ca: bool) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(name(subject))
            .issuer_name(name("scrapy_rep test CA"))
            .public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            .add_extension(usage(sign=ca), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        )
        if not ca:
            builder = builder.add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.EMAIL_PROTECTION]), critical=False
            ).add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                critical=False,
            )
        return builder.sign(ca_key, hashes.SHA256())

    ca_cert = cert("scrapy_rep test CA", ca_key.public_key(), True)
    signer = cert("scrapy_rep test signer", key.public_key(), False)
    chain = signer.public_bytes(serialization.Encoding.PEM) + ca_cert.public_bytes(
        serialization.Encoding.PEM
    )
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return chain, private


def c2pa_jpeg(
    entries: dict[str, str],
    label: str = "cawg.training-mining",
    base: bytes | None = None,
    remote_url: str | None = None,
) -> bytes:
    """A JPEG signed with a C2PA manifest holding one training-and-mining assertion
    (``entries``: entry name -> use)."""
    import c2pa

    chain, private = _signer_pem()
    manifest = {
        "claim_generator_info": [{"name": "scrapy_rep tests", "version": "1"}],
        "title": "sample.jpg",
        "assertions": [
            {
                "label": "c2pa.actions",
                "data": {
                    "actions": [
                        {
                            "action": "c2pa.created",
                            "digitalSourceType": "http://cv.iptc.org/newscodes/"
                            "digitalsourcetype/digitalCapture",
                        }
                    ]
                },
            },
            {
                "label": label,
                "data": {"entries": {name: {"use": use} for name, use in entries.items()}},
            },
        ],
    }
    info = c2pa.C2paSignerInfo(c2pa.C2paSigningAlg.ES256, chain, private, None)
    signer = c2pa.Signer.from_info(info)
    builder = c2pa.Builder(json.dumps(manifest))
    if remote_url is not None:  # the file only links to its manifest
        builder.set_no_embed()
        builder.set_remote_url(remote_url)
    out = io.BytesIO()
    builder.sign(signer, "image/jpeg", io.BytesIO(base or jpeg()), out)
    return out.getvalue()


def jpeg_extended(extended: bytes, piece: int = 500, others: int = 0) -> bytes:
    """A JPEG whose standard XMP points to an extended packet (``xmpNote:HasExtendedXMP``)
    carried in APP1 extension segments of ``piece`` bytes, written last piece first
    (``others``: that many packets without a statement before the standard one)."""
    import hashlib

    guid = hashlib.md5(extended).hexdigest().upper().encode()
    standard = xmp_packet().replace(
        b"</rdf:Description>",
        b"<xmpNote:HasExtendedXMP>" + guid + b"</xmpNote:HasExtendedXMP></rdf:Description>",
    )
    body = jpeg([xmp_packet()] * others + [standard])
    segments = b""
    offsets = list(range(0, len(extended), piece))
    for offset in reversed(offsets):
        payload = (
            b"http://ns.adobe.com/xmp/extension/\x00"
            + guid
            + struct.pack(">II", len(extended), offset)
            + extended[offset : offset + piece]
        )
        segments += b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return body[:2] + segments + body[2:]
