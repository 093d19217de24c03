"""Shared cache records: what one process tells the others about an origin (SPEC §4).

Pure: the encoding and decoding of :class:`SharedRecord`, and the conversions between a
record and a cache entry. The stores (:mod:`scrapy_rep.crawl.documents.stores`: the JOBDIR file,
Redis) only keep the encoded bytes.

A record is ``magic \\n JSON header \\n zlib body``; the header holds the format version
and a CRC-32 of the body. A record that does not decode, has another format version,
names another origin, has times that are not numbers or has neither a body nor a
``true``/``false`` verdict raises :class:`StoreCorrupt` and
is ignored by the caller. A body is inflated to at most 500 KiB whatever the record says.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.robotstxt import MAX_BODY_BYTES

#: Bumped when the record layout changes; records of another version are ignored.
FORMAT_VERSION: Final = 1
_MAGIC: Final = b"scrapy_rep/robots"

D = TypeVar("D")


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
        """Check and decode a record of ``origin``; raise :class:`StoreCorrupt` if wrong."""
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


def record_of(
    origin: str,
    entry: CacheEntry[Any] | None,
    verdict: bool | None,
    failures: int,
    failing_since: float | None,
    retry_at: float,
    last_outcome: str,
    now: float,
) -> SharedRecord:
    """The record of an origin: its usable entry with the failure schedule, or (while it
    is failing with nothing usable) the schedule alone."""
    if entry is None:
        return SharedRecord(
            origin, b"", False, None, last_outcome, now, 0.0, 0.0, False,
            failures, failing_since, retry_at,
        )  # fmt: skip
    return SharedRecord(
        origin,
        entry.body_zlib,
        verdict if not entry.body_zlib else None,
        entry.status,
        entry.outcome,
        entry.fetched_at,
        entry.fresh_until,
        entry.stale_until,
        entry.unreachable,
        failures,
        failing_since,
        retry_at if failures else 0.0,
        entry.truncated,
    )


def entry_of(
    record: SharedRecord,
    read: Callable[[bytes, bool], D],
    stand_in: Callable[[bool], D],
    size_of: Callable[[D, bytes], int],
) -> CacheEntry[D]:
    """A local cache entry from a record: its body inflated to 500 KiB at most whatever the
    record says and read (as cut if the download cut it), or the allow/disallow-all
    stand-in."""
    body = b""
    if record.body_zlib:
        try:
            body = zlib.decompressobj().decompress(record.body_zlib, MAX_BODY_BYTES)
        except zlib.error as error:
            raise StoreCorrupt(f"body does not inflate: {error}") from None
        rules = read(body, record.truncated is True)
    else:
        rules = stand_in(record.verdict is True)
    return CacheEntry(
        rules,
        record.outcome,
        record.fetched_at,
        record.fresh_until,
        record.stale_until,
        record.status,
        record.body_zlib,
        record.unreachable,
        size_of(rules, body) + len(record.body_zlib),
        hashlib.sha256(body).hexdigest() if record.body_zlib else "",
        truncated=record.truncated is True and bool(record.body_zlib),
    )
