"""Sample media files built by the tests: real images (Pillow) with an XMP packet put
where each format keeps it, and C2PA-signed files (``c2pa-python`` and a throwaway
certificate chain made with ``cryptography``)."""

from __future__ import annotations

import datetime
import io
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


def xmp_packet(value: str | None = None, *, form: str = "element", extra: str = "") -> bytes:
    """An XMP packet as ExifTool writes it, with ``plus:DataMining`` = ``value`` as an
    element (``form="element"``), an attribute or an ``rdf:resource``."""
    uri = PLUS_VOCAB + value if value else ""
    attribute = f' plus:DataMining="{uri}"' if value and form == "attribute" else ""
    element = ""
    if value and form == "element":
        element = f"<plus:DataMining>{uri}</plus:DataMining>"
    elif value and form == "resource":
        element = f'<plus:DataMining rdf:resource="{uri}"/>'
    return (
        '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/">'
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:plus="http://ns.useplus.org/ldf/xmp/1.0/"'
        f' xmlns:dc="http://purl.org/dc/elements/1.1/"{attribute}>'
        f"{element}{extra}</rdf:Description></rdf:RDF></x:xmpmeta>\n"
        '<?xpacket end="w"?>'
    ).encode()


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
) -> bytes:
    """A real PNG with the packet in an ``iTXt`` chunk after IHDR."""
    body = _image("PNG", colour)
    if packet is None:
        return body
    text = zlib.compress(packet) if compressed else packet
    chunk = png_chunk(
        b"iTXt", b"XML:com.adobe.xmp\x00" + bytes([int(compressed), 0]) + b"\x00\x00" + text
    )
    ihdr_end = 8 + 8 + 13 + 4
    return body[:ihdr_end] + chunk + body[ihdr_end:]


def webp(packet: bytes) -> bytes:
    body = _image("WEBP")
    chunk = (
        b"XMP " + struct.pack("<I", len(packet)) + packet + (b"\x00" if len(packet) & 1 else b"")
    )
    riff = body[12:] + chunk
    return b"RIFF" + struct.pack("<I", len(riff) + 4) + b"WEBP" + riff


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


def _box(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data) + 8) + kind + data


def mp4(packet: bytes, *, where: str = "uuid", mdat_bytes: int = 64) -> bytes:
    """A minimal ISO BMFF file: ftyp, then the packet in a top-level ``uuid`` box or in
    ``moov/udta/XMP_``, then an mdat."""
    ftyp = _box(b"ftyp", b"isom\x00\x00\x02\x00isomiso2mp41")
    if where == "uuid":
        xmp = _box(b"uuid", bytes.fromhex("BE7ACFCB97A942E89C71999491E3AFAC") + packet)
    else:
        xmp = _box(b"moov", _box(b"udta", _box(b"XMP_", packet)))
    if mdat_bytes > 64:  # a large file: the media data first, the XMP after it
        return ftyp + _box(b"mdat", b"\x00" * mdat_bytes) + xmp
    return ftyp + xmp + _box(b"mdat", b"\x00" * mdat_bytes)


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


def jpeg_extended(extended: bytes, piece: int = 500) -> bytes:
    """A JPEG whose standard XMP points to an extended packet (``xmpNote:HasExtendedXMP``)
    carried in APP1 extension segments of ``piece`` bytes, written last piece first."""
    import hashlib

    guid = hashlib.md5(extended).hexdigest().upper().encode()
    standard = xmp_packet().replace(
        b"</rdf:Description>",
        b"<xmpNote:HasExtendedXMP>" + guid + b"</xmpNote:HasExtendedXMP></rdf:Description>",
    )
    body = jpeg(standard)
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
