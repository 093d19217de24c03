"""Shared cache records: what one process tells the others about an origin (SPEC §4).

Pure: the encoding and decoding of :class:`SharedRecord`; its kind converts between a
record and a cache entry (:meth:`rep_engine.fetch.kinds.DocumentKind.record_of`). The
stores (:mod:`scrapy_rep.crawl.documents.stores`: the JOBDIR file, Redis) only keep the
encoded bytes.

A record is ``magic \\n JSON header \\n zlib body``; the header holds the format version
and a CRC-32 of the body. A record that cannot be trusted raises :class:`StoreCorrupt`
(:meth:`SharedRecord.decode` says when) and is ignored by the caller.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Final

#: Bumped when the record layout changes; records of another version are ignored.
FORMAT_VERSION: Final = 1
_MAGIC: Final = b"scrapy_rep/robots"


class StoreCorrupt(ValueError):
    """A shared record that cannot be trusted (undecodable, foreign, wrong version)."""


@dataclass(frozen=True)
class SharedRecord:
    """One origin's document as shared between processes (times are Unix seconds)."""

    origin: str
    #: The body as downloaded (first 500 KiB), zlib-compressed; ``b""`` when none.
    body_zlib: bytes
    #: ``True``/``False`` for "everything allowed/disallowed" without a body, else None.
    verdict: bool | None
    status: int | None
    outcome: str
    fetched_at: float
    fresh_until: float
    stale_until: float
    #: A give-up verdict after the document stayed unreachable (SPEC §4).
    unreachable: bool = False
    #: Consecutive failed downloads since the last success, shared by all processes.
    failures: int = 0
    failing_since: float | None = None
    #: No process tries again before this time (the shared retry schedule).
    retry_at: float = 0.0
    #: The download cut the body short: read as cut (``DocumentKind.read``). In the
    #: header only when true, so a record of a whole body reads as before.
    truncated: bool = False

    def encode(self) -> bytes:
        """``magic \\n json header \\n body``, with a CRC-32 of the body in the header."""
        # The fields are atoms: read as they are (``asdict`` copied each, recursively,
        # about 15 calls per field, once per origin downloaded).
        header = {k: v for k, v in vars(self).items() if k != "body_zlib"}
        if not self.truncated:
            del header["truncated"]
        header["version"] = FORMAT_VERSION
        header["crc32"] = zlib.crc32(self.body_zlib)
        return _MAGIC + b"\n" + json.dumps(header).encode() + b"\n" + self.body_zlib

    @classmethod
    def decode(cls, data: bytes, origin: str) -> SharedRecord:
        """Check and decode a record of ``origin``; raise :class:`StoreCorrupt` if wrong:
        not one, undecodable, another format version, a body checksum mismatch, another
        origin, times that are not numbers, or no body and no true/false verdict."""
        try:
            magic, header_bytes, body = data.split(b"\n", 2)
            if magic != _MAGIC:
                raise StoreCorrupt("not a scrapy_rep record")
            header = json.loads(header_bytes)
            if header.pop("version") != FORMAT_VERSION:
                raise StoreCorrupt("another format version")
            if header.pop("crc32") != zlib.crc32(body):
                raise StoreCorrupt("body checksum mismatch")
            record = cls(body_zlib=body, **header)
        except StoreCorrupt:
            raise
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise StoreCorrupt(f"undecodable record: {error}") from None
        if record.origin != origin:
            raise StoreCorrupt(f"record of {record.origin!r} stored under {origin!r}")
        if not all(
            isinstance(value, (int, float)) and not isinstance(value, bool)
            for value in (record.fetched_at, record.fresh_until, record.stale_until)
        ):
            raise StoreCorrupt("times are not numbers")
        if not isinstance(record.truncated, bool):
            raise StoreCorrupt("truncated is not true or false")
        if not record.body_zlib and not isinstance(record.verdict, bool):
            # Without a body only the verdict says what the document was: guessing it
            # (``bool(None)``) turned "no tdmrep.json" into "everything reserved".
            raise StoreCorrupt("a record without a body has no allow/disallow verdict")
        return record

    @property
    def keep_until(self) -> float:
        """The latest time anything in this record still matters."""
        return max(self.stale_until, self.retry_at, self.fresh_until)
