"""The JOBDIR store keeps what the cache keeps (docs/deployment.md, 'Pause and resume
with `JOBDIR`'): bounded by ``REP_CACHE_MAX_BYTES``, not by ``REP_CACHE_MAX_ORIGINS`` (the
parsed tier of the cache only). A resumed crawl does not download again a robots.txt its
cache still had: tests/integration/test_jobdir_store_bound.py."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from rep_engine.fetch.records import SharedRecord
from scrapy_rep.crawl.documents.stores import STORED_OVERHEAD, JobdirStore


def record(origin: str, body: bytes = b"") -> SharedRecord:
    return SharedRecord(origin, body, True, 404, "404", 0.0, 1e18, 1e18)


@pytest_twisted.ensureDeferred
async def test_the_jobdir_store_drops_the_least_recently_used_beyond_its_bytes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "scrapy_rep.robots"
    size = len("http://a.example") + len(record("http://a.example").encode()) + STORED_OVERHEAD
    store = JobdirStore(path, max_bytes=2 * size)
    for name in ("a", "b", "c"):
        await store.save(record(f"http://{name}.example"), 60)
    assert len(store) == 2 and store.bytes == 2 * size  # "a" was the least recently used
    await store.close()
    again = JobdirStore(path, max_bytes=size)  # a smaller bound on resume: trimmed
    assert len(again) == 1
    assert await again.load("http://c.example") == record("http://c.example")
