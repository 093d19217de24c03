"""The records shared between processes (SPEC §4 shared cache;
rep-engine/rep_engine/fetch/records.py): a record round-trips, and one of another origin,
format or version, or broken, is refused (through a real redis-server and worker
processes: tests/integration/test_shared_cache.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rep_engine.fetch.records import SharedRecord, StoreCorrupt
from tests.support.lifecycles import shared_record


def test_shared_records_round_trip_and_foreign_or_broken_ones_are_refused() -> None:
    original = shared_record(failures=2, failing_since=5.0, retry_at=9.5)
    assert SharedRecord.decode(original.encode(), original.origin) == original
    data = original.encode()
    broken = {
        "another origin": (data, "http://b.example", "stored under"),
        "garbage": (b"\x00\xff" * 20, original.origin, "undecodable"),
        "truncated body": (data[:-3], original.origin, "checksum"),
        "other magic": (b"other" + data[len(b"scrapy_rep/robots") :], original.origin, "not a"),
        "other version": (data.replace(b'"version": 1', b'"version": 99'), original.origin,
                          "another format version"),
        "bad json": (data.replace(b'"status": 200', b'"status": 200,,'), original.origin,
                     "undecodable"),
        "unknown field": (data.replace(b'"status"', b'"statuz"'), original.origin, "undecodable"),
        "times not numbers": (replace(original, fetched_at="x").encode(), original.origin,
                              "times are not numbers"),
    }  # fmt: skip
    for name, (payload, origin, why) in broken.items():
        with pytest.raises(StoreCorrupt, match=why):
            SharedRecord.decode(payload, origin)
        assert SharedRecord.decode(data, original.origin) == original, name
