"""A captured HTTP payload as the crawl would have had its body (pure): de-chunked, and
decoded from its ``Content-Encoding`` as Scrapy's ``HttpCompressionMiddleware`` decodes
a crawl's answers (gzip, deflate, br, zstd, with the libraries Scrapy itself uses:
``brotli`` or ``brotlicffi``, and ``compression.zstd`` or ``backports.zstd``).

Never a whole document from a part of one (docs/recheck.md, "Captures read as the crawl
reads them"):

- a payload the capture says was cut (``WARC-Truncated``), a chunked body that ends
  inside a chunk, or a compressed stream without its end (a cut gzip member) is a *cut*
  body: what was decoded before the cut is kept, as the crawl keeps the lines of a
  robots.txt whose download was stopped (``truncated``: :class:`~rep_engine.fetch.
  procedure.FetchProcedure` says "cut short");
- a coding that cannot be decoded (unknown, its library missing, or a stream corrupt
  anywhere before the 500 KiB read: from its first byte, in its middle, a wrong
  checksum, or a stream without its end in a payload as long as its ``Content-Length``
  says, which nothing cut) is :class:`Undecodable`: the document was not had (its items
  unknown), never its compressed bytes read as text, nor what came before the
  corruption read as a cut document (corrupt data says nothing of where the document
  ends).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES

#: Compressed bytes fed to a decoder at a time: a stream that breaks part-way keeps what
#: came before the break.
FEED: Final = 1024
#: The most bytes a body is decoded to: one past what a crawler reads (the fetch
#: procedure cuts it there and says so).
MOST: Final = MAX_BODY_BYTES + 1


class Undecodable(Exception):
    """A payload that cannot be decoded at all: one line saying why."""


@dataclass(frozen=True, slots=True)
class Body:
    """A payload decoded: the body, and whether it is cut (a part of the document)."""

    data: bytes
    cut: bool = False


class _Decoder:
    """An incremental decoder: ``feed`` bytes, ``ended`` once the stream's end is read."""

    def feed(self, data: bytes) -> bytes:
        raise NotImplementedError

    @property
    def ended(self) -> bool:
        raise NotImplementedError

    @property
    def rest(self) -> bytes:
        """The bytes after the stream's end (another gzip member)."""
        return b""


class _Zlib(_Decoder):
    def __init__(self, wbits: int) -> None:
        self._d = zlib.decompressobj(wbits)

    def feed(self, data: bytes) -> bytes:
        return self._d.decompress(data)

    @property
    def ended(self) -> bool:
        return self._d.eof

    @property
    def rest(self) -> bytes:
        return self._d.unused_data


class _Brotli(_Decoder):
    def __init__(self, module: Any) -> None:
        self._d = module.Decompressor()

    def feed(self, data: bytes) -> bytes:
        return bytes(self._d.process(data))

    @property
    def ended(self) -> bool:
        return bool(self._d.is_finished())


class _Zstd(_Decoder):
    def __init__(self, module: Any) -> None:
        self._d = module.ZstdDecompressor()

    def feed(self, data: bytes) -> bytes:
        return bytes(self._d.decompress(data))

    @property
    def ended(self) -> bool:
        return bool(self._d.eof)

    @property
    def rest(self) -> bytes:
        return bytes(self._d.unused_data)


def _brotli() -> Any:
    """Scrapy's brotli module (``brotli``, else ``brotlicffi``), or ``None``."""
    for name in ("brotli", "brotlicffi"):
        try:
            return __import__(name)
        except ImportError:
            continue
    return None


def _zstd() -> Any:
    """Scrapy's zstd module (``compression.zstd`` on Python 3.14, else
    ``backports.zstd``), or ``None``."""
    for name in ("compression.zstd", "backports.zstd"):
        try:
            return __import__(name, fromlist=["ZstdDecompressor"])
        except ImportError:
            continue
    return None


def _decoders() -> dict[str, Callable[[], _Decoder] | str]:
    """Each content coding's decoder, or why it cannot be decoded here."""
    brotli, zstd = _brotli(), _zstd()
    return {
        "gzip": lambda: _Zlib(16 + zlib.MAX_WBITS),
        "x-gzip": lambda: _Zlib(16 + zlib.MAX_WBITS),
        "deflate": lambda: _Zlib(zlib.MAX_WBITS),
        "br": (lambda: _Brotli(brotli)) if brotli else "br needs brotli, not installed",
        "zstd": (lambda: _Zstd(zstd)) if zstd else "zstd needs backports.zstd, not installed",
    }


#: The content codings known (``None``: read when first needed).
DECODERS: dict[str, Callable[[], _Decoder] | str] | None = None


def _decoder(coding: str) -> _Decoder:
    global DECODERS  # the optional libraries looked up once
    if DECODERS is None:
        DECODERS = _decoders()
    made = DECODERS.get(coding)
    if made is None:
        raise Undecodable(f"content coding {coding!r} is not one a crawl decodes")
    if isinstance(made, str):
        raise Undecodable(made)
    return made()


def _decode_one(data: bytes, coding: str, whole: bool) -> Body:
    """``data`` decoded from one ``coding`` (gzip members one after another, as Scrapy
    reads them; ``whole``: :func:`decode`'s)."""
    if coding == "deflate":
        try:
            return _stream(data, _decoder(coding), coding, whole)
        except Undecodable:  # raw deflate, as some servers send it (Scrapy reads it too)
            return _stream(data, _Zlib(-zlib.MAX_WBITS), coding, whole)
    return _stream(data, _decoder(coding), coding, whole)


def _stream(data: bytes, decoder: _Decoder, coding: str, whole: bool) -> Body:
    out = bytearray()
    fed = 0
    while True:
        while fed < len(data) and not decoder.ended and len(out) < MOST:
            piece = data[fed : fed + FEED]
            fed += len(piece)
            try:
                out += decoder.feed(piece)
            except Exception as error:  # zlib.error, brotli.error, ZstdError: corrupt
                said = f"{coding}: corrupt after {len(out):,} bytes decoded ({error})"
                raise Undecodable(said) from None
        if len(out) >= MOST:
            return Body(bytes(out[:MOST]))  # past what a crawler reads: the fetch cuts it
        if not decoder.ended:
            if not out and not data:
                return Body(b"")
            if not out:
                raise Undecodable(f"{coding}: cut before any byte could be decoded")
            if whole:  # nothing cut the payload: the stream is broken
                raise Undecodable(f"{coding}: corrupt, the stream has no end in a payload "
                                  "as long as its Content-Length says")  # fmt: skip
            return Body(bytes(out), cut=True)  # the stream has no end: cut
        rest = decoder.rest + data[fed:]
        if _another(coding, rest):
            data, fed, decoder = rest, 0, _decoder(coding)  # the next member or frame
            continue
        return Body(bytes(out))


def _another(coding: str, rest: bytes) -> bool:
    """Whether ``rest``, after the end of a stream, starts another gzip member or zstd
    frame (read on, as Scrapy reads them; other bytes after the end are not the body)."""
    if coding in ("gzip", "x-gzip"):
        return rest[:2] == b"\x1f\x8b"
    if coding == "zstd":
        skippable = len(rest) >= 4 and rest[1:4] == b"\x2a\x4d\x18" and rest[0] >> 4 == 5
        return rest[:4] == b"\x28\xb5\x2f\xfd" or skippable
    return False


def dechunk(data: bytes) -> Body:
    """A ``Transfer-Encoding: chunked`` payload without its chunking. A payload that does
    not start as chunks is taken as stored de-chunked (warcio does the same); one that
    ends inside a chunk, or without its last chunk, is cut."""
    out = bytearray()
    at = 0
    first = True
    while True:
        end = data.find(b"\r\n", at)
        size_text = data[at:end].split(b";")[0].strip() if end >= 0 else b""
        try:
            size = int(size_text, 16) if size_text else -1
        except ValueError:
            size = -1
        if size < 0:
            if first:
                return Body(data)
            return Body(bytes(out), cut=True)
        first = False
        if size == 0:
            return Body(bytes(out))
        start = end + 2
        chunk = data[start : start + size]
        out += chunk
        if len(chunk) < size:
            return Body(bytes(out), cut=True)
        at = start + size + 2


def decode(
    data: bytes, content_encoding: str | None, chunked: bool, cut: bool, whole: bool = False
) -> Body:
    """A captured payload as the crawl's body (``cut``: the capture says it was cut;
    ``whole``: its length says it was not, so a compressed stream without its end is
    corrupt). Raises :class:`Undecodable`."""
    body = dechunk(data) if chunked else Body(data)
    cut = cut or body.cut
    data = body.data
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    for coding in reversed(codings):  # the last applied is the first undone
        if coding == "identity":
            continue
        decoded = _decode_one(data, coding, whole)
        data, cut = decoded.data, cut or decoded.cut
    return Body(data, cut)
