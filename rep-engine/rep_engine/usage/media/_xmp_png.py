"""The XMP of a PNG file (pure; see :mod:`rep_engine.usage.media.xmp`).

XMP Part 3 §1.1.4 puts the packet in an ``iTXt`` chunk with keyword
``XML:com.adobe.xmp``; ExifTool reads that keyword in ``tEXt`` and ``zTXt`` chunks as
well (PNG.pm, ``TextualData``), and three more places:

- ImageMagick's raw profiles: a text chunk (``zTXt`` as ImageMagick writes it, or
  ``tEXt`` / ``iTXt``) with keyword ``Raw profile type xmp`` whose text is a newline,
  the profile's name, a newline, its length in decimal, a newline, then the profile in
  hexadecimal (ExifTool's ``ProcessProfile``); ``Raw profile type APP1`` / ``exif``
  holding XMP (after the JPEG APP1 signature) or a TIFF structure, and ``Raw profile
  type 8bim`` / ``iptc`` holding Photoshop image resources;
- the ``eXIf`` chunk (PNG 1.2 extension, a TIFF structure).

Compressed text is inflated a piece at a time: a text within the packet limit is read
as a packet; a longer one is never held whole but searched as it inflates for a
prohibiting value (the hexadecimal of a raw profile decoded as it comes), up to the
file's budget of inflated bytes (``REP_MEDIA_MAX_SCAN_BYTES``), past which it is out of
reach and fails closed. A chunk that does not inflate, uses a compression method other
than 0 (deflate), or a raw profile that is not hexadecimal holds XMP whose text cannot
be seen: named in :attr:`XmpScan.unseen`, it fails closed. A chunk cut by the end of
the file gives what is there of its text to the byte search.
"""

from __future__ import annotations

import itertools
import re
import struct
import zlib
from collections.abc import Iterator
from typing import Final

from rep_engine.usage.media._xmp_scan import PIECE, Limits, Steps, XmpScan, truncated, walk
from rep_engine.usage.media._xmp_tiff import (
    EXIF_HEADER,
    TIFF_HEADERS,
    exif_structure,
    image_resources,
)

PNG_XMP: Final = b"XML:com.adobe.xmp"
JPEG_XMP: Final = b"http://ns.adobe.com/xap/1.0/\x00"
#: ImageMagick's raw profiles that may hold XMP, by keyword: what their bytes are.
RAW_PROFILES: Final = {
    b"Raw profile type xmp": "xmp",
    b"Raw profile type APP1": "app1",
    b"Raw profile type exif": "app1",
    b"Raw profile type 8bim": "irb",
    b"Raw profile type iptc": "irb",
}
_TEXT_CHUNKS: Final = (b"tEXt", b"zTXt", b"iTXt")
#: A raw profile's header: newline, name, newline, spaces, length, newline.
_PROFILE_HEADER: Final = re.compile(rb"\n([^\n]{0,80})\n {0,20}(\d{1,12})\n")
_NOT_HEX_SPACE: Final = re.compile(rb"[ \t\r\n]+")


@walk
def walk_png(data: bytes, scan: XmpScan, limits: Limits, steps: Steps) -> None:
    """PNG chunks up to IEND (PNG §5.3): the text chunks and ``eXIf`` above."""
    pos, end = 8, len(data)
    while pos + 8 <= end:
        steps.step()
        length, kind = struct.unpack_from(">I4s", data, pos)
        stop = pos + 8 + length
        cut = stop > end
        # Only these chunks are copied out (not the image data).
        text = data[pos + 8 : stop] if kind in _TEXT_CHUNKS else None
        if text is not None and not _text_chunk(kind, text, cut, scan, limits, steps):
            return
        if cut:
            return truncated(scan, "PNG chunk")
        if kind == b"IEND":
            return
        if kind == b"eXIf" and not exif_structure(
            data[pos + 8 : stop], scan, limits, steps, "PNG eXIf"
        ):
            return
        pos = stop + 4  # CRC


def _text_chunk(
    kind: bytes, body: bytes, cut: bool, scan: XmpScan, limits: Limits, steps: Steps
) -> bool:
    """One text chunk (PNG §11.3.4); ``False``: stop the walk (the packet count)."""
    keyword, _, rest = body.partition(b"\x00")
    profile = RAW_PROFILES.get(keyword)
    if keyword != PNG_XMP and profile is None:
        return True
    where = f"{kind.decode()} {keyword.decode()}"
    # A raw profile's hexadecimal is about twice its bytes, plus its header.
    limit = limits.max_packet if profile is None else 2 * limits.max_packet + 4096
    read = _chunk_text(kind, rest, limit, cut, scan, limits, where)
    if read is None:
        return True
    text, more = read
    if len(text) > limit and (more is not None or profile is not None):
        _search_as_inflated(text, more, profile, scan, limits, where)
        return True
    if cut:  # what is there of its text: for the byte search only
        scan.raw.append(text if profile is None else _hex_prefix(text))
        return True
    if profile is None:
        return scan.add(text, limits)
    profile_bytes = _raw_profile(text, scan, where)
    if profile_bytes is None:
        return True
    return _profile(profile, profile_bytes, scan, limits, steps, where)


def _search_as_inflated(
    head: bytes,
    more: Iterator[bytes] | None,
    profile: str | None,
    scan: XmpScan,
    limits: Limits,
    where: str,
) -> None:
    """Text over the limit (``head``, then ``more`` as it inflates): never held whole,
    searched piece by piece for a prohibiting value (:meth:`XmpScan.search`), up to the
    per-file budget of inflated bytes; a raw profile's hexadecimal decoded as it comes."""
    what = "XMP packet" if profile is None else "raw profile"
    scan.problems.append(
        f"{where}: {what} of more than {limits.max_packet} bytes (limit {limits.max_packet}):"
        " searched, not parsed"
    )
    if more is None:  # the text as it is in the file: searched in pieces all the same
        pieces: Iterator[bytes] = (head[at : at + PIECE] for at in range(0, len(head), PIECE))
    else:
        pieces = itertools.chain([head], more)
    if profile is not None:
        pieces = _hex_pieces(pieces, scan, where)
    scan.search(pieces, where, text=profile in (None, "xmp"))


def _chunk_text(
    kind: bytes, rest: bytes, limit: int, cut: bool, scan: XmpScan, limits: Limits, where: str
) -> tuple[bytes, Iterator[bytes] | None] | None:
    """The text of a chunk after its keyword: all of it, or when compressed its first
    ``limit`` + 1 bytes or more (a piece) inflated and the rest as it inflates
    (:func:`_inflate`); ``None`` when it cannot be read (named as unseen)."""
    method: int | None = None
    if kind == b"zTXt":
        method, text = (rest[0] if rest else 0), rest[1:]
    elif kind == b"iTXt":
        if len(rest) < 2:
            return _no_text(scan, cut, f"{where}: no text")
        flag, compression = rest[0], rest[1]
        language_end = rest.find(b"\x00", 2)
        translated_end = rest.find(b"\x00", language_end + 1) if language_end >= 0 else -1
        if translated_end < 0:
            return _no_text(scan, cut, f"{where}: no text")
        text = rest[translated_end + 1 :]
        method = compression if flag else None
    else:
        text = rest
    if method is None:
        return text, None
    if method != 0:
        return _no_text(scan, cut, f"{where}: compression method {method}")
    unseen = len(scan.unseen)
    pieces = _inflate(text, cut, scan, limits, where)
    head = bytearray()
    for piece in pieces:
        head += piece
        if len(head) > limit:
            break
    if len(scan.unseen) > unseen:  # (named by _inflate)
        return None
    return bytes(head), pieces


def _inflate(
    compressed: bytes, cut: bool, scan: XmpScan, limits: Limits, where: str
) -> Iterator[bytes]:
    """A chunk's deflate stream inflated a piece at a time (zlib's ``max_length``),
    within the file's budget of inflated bytes (:attr:`Limits.max_scan`, counted in
    :attr:`XmpScan.inflated`): a stream that does not inflate or ends early is unseen,
    one that goes on past the budget out of reach (both fail closed); in a chunk cut by
    the end of the file, what inflated is all there is."""
    inflater = zlib.decompressobj()
    pending = compressed
    while not inflater.eof:
        room = limits.max_scan - scan.inflated
        if room <= 0:
            scan.out_of_reach(f"{where}: inflates past {limits.max_scan} bytes in the file")
            return
        try:
            piece = inflater.decompress(pending, min(room, PIECE))
        except zlib.error as error:
            if not cut:
                scan.cannot_see(f"{where}: does not inflate ({error})")
            return
        pending = inflater.unconsumed_tail
        if not piece and not inflater.eof:
            if not cut:
                scan.cannot_see(f"{where}: its compressed text ends early")
            return
        scan.inflated += len(piece)
        yield piece


def _no_text(scan: XmpScan, cut: bool, what: str) -> tuple[bytes, None] | None:
    """A chunk without a text we read: empty when the file cut it, else unseen."""
    if cut:
        return b"", None
    scan.cannot_see(what)
    return None


def _raw_profile(text: bytes, scan: XmpScan, where: str) -> bytes | None:
    """The bytes of an ImageMagick raw profile (a hexadecimal text after its header);
    ``None`` when it is not one (named as unseen). A length other than the header's
    is named as a problem and what is there is read (as ExifTool does)."""
    header = _PROFILE_HEADER.match(text)
    if header is None:
        scan.cannot_see(f"{where}: no raw profile header")
        return None
    digits = _NOT_HEX_SPACE.sub(b"", text[header.end() :])
    try:
        profile = bytes.fromhex(digits.decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        scan.cannot_see(f"{where}: not hexadecimal")
        return None
    if len(profile) != int(header[2]):
        scan.problems.append(f"{where}: {len(profile)} bytes, its header says {int(header[2])}")
    return profile


def _hex_pieces(pieces: Iterator[bytes], scan: XmpScan, where: str) -> Iterator[bytes]:
    """The bytes of a raw profile too long to hold, from its text given piece by piece
    (its header in the first): hexadecimal decoded as it comes (a digit left over at the
    end of a piece begins the next one); what is not is named as unseen."""
    first = next(pieces, b"")
    header = _PROFILE_HEADER.match(first)
    if header is None:
        scan.cannot_see(f"{where}: no raw profile header")
        return
    left = b""
    for piece in itertools.chain([first[header.end() :]], pieces):
        digits = left + _NOT_HEX_SPACE.sub(b"", piece)
        even = len(digits) & ~1
        try:
            decoded = bytes.fromhex(digits[:even].decode("ascii"))
        except (ValueError, UnicodeDecodeError):
            scan.cannot_see(f"{where}: not hexadecimal")
            return
        left = digits[even:]
        yield decoded


def _hex_prefix(text: bytes) -> bytes:
    """What decodes of a cut raw profile (for the byte search)."""
    header = _PROFILE_HEADER.match(text)
    digits = _NOT_HEX_SPACE.sub(b"", text[header.end() :] if header else b"")
    usable = re.match(rb"[0-9A-Fa-f]*", digits)
    hex_digits = usable.group() if usable else b""
    return bytes.fromhex(hex_digits[: len(hex_digits) & ~1].decode("ascii"))


def _profile(
    profile: str, data: bytes, scan: XmpScan, limits: Limits, steps: Steps, where: str
) -> bool:
    """The XMP of a decoded raw profile, by what it holds."""
    if profile == "xmp":
        return scan.add(data, limits)
    if profile == "irb":
        return image_resources(data, scan, limits, steps, where)
    if data.startswith(JPEG_XMP):
        return scan.add(data[len(JPEG_XMP) :], limits)
    if data.removeprefix(EXIF_HEADER)[:4] in TIFF_HEADERS:
        return exif_structure(data, scan, limits, steps, where)
    return True
