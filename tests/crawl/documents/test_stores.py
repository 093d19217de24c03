"""The JOBDIR store (docs/deployment.md, 'Pause and resume with `JOBDIR`'): it keeps records
across runs within its bound, refuses a broken file, and leases to its one process (the
Redis store: tests/integration/test_shared_cache.py)."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from tests.support.lifecycles import shared_record


@pytest_twisted.ensureDeferred
async def test_jobdir_store_keeps_records_across_runs_within_its_bound(
    tmp_path: Path,
) -> None:
    from scrapy_rep.crawl.documents.stores import JobdirStore

    path = tmp_path / "scrapy_rep.robots"
    store = JobdirStore(path, max_origins=2)
    for name in ("a", "b", "c"):
        await store.save(shared_record(f"http://{name}.example"), 60)
    assert len(store) == 2  # "a" was the least recently used
    await store.close()
    again = JobdirStore(path, max_origins=2)
    assert again.load_error == ""
    assert await again.load("http://a.example") is None
    assert await again.load("http://c.example") == shared_record("http://c.example")
    assert await again.acquire("http://c.example", 1)  # one process per JOBDIR
    path.write_bytes(b"not a pickle")
    broken = JobdirStore(path, max_origins=2)
    assert broken.load_error and len(broken) == 0


def test_only_the_jobdir_store_is_the_process_alone_so_only_it_downloads_without_a_lease(
    tmp_path: Path,
) -> None:
    """JOBDIR's store belongs to one process (Scrapy's rule): its lifecycle asks for no
    lease. A Redis store is shared by several, and a store that shares nothing is never
    asked: both keep the lease."""
    from scrapy.settings import Settings

    from rep_engine.settings import RepConfig
    from scrapy_rep.crawl.documents.stores import (
        JobdirStore,
        LocalStore,
        RedisStore,
        document_policy,
    )

    config = RepConfig.from_settings(Settings())
    jobdir, _ = document_policy(config, Settings(), JobdirStore(tmp_path / "scrapy_rep.robots"))
    assert (jobdir.store, jobdir.store_exclusive) == ("jobdir", True)
    redis, _ = document_policy(config, Settings(), RedisStore("redis://127.0.0.1:1"))
    assert (redis.store, redis.store_exclusive) == ("redis", False)
    local, _ = document_policy(config, Settings(), LocalStore())
    assert (local.store, local.store_exclusive) == (None, False)


@pytest_twisted.ensureDeferred
async def test_jobdir_store_never_follows_a_symlink_planted_at_its_temporary_name(
    tmp_path: Path,
) -> None:
    """The store was written to ``scrapy_rep.tmp`` beside it, opened as any file is: a
    symlink already there had the records written into its target, outside JOBDIR."""
    from scrapy_rep.crawl.documents.stores import JobdirStore

    path = tmp_path / "scrapy_rep.robots"
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.write_bytes(b"not the crawl's\n")
    planted = path.with_suffix(".tmp")
    planted.symlink_to(outside)
    store = JobdirStore(path, max_origins=2)
    await store.save(shared_record("http://a.example"), 60)
    await store.close()
    assert outside.read_bytes() == b"not the crawl's\n"
    assert planted.is_symlink()
    again = JobdirStore(path, max_origins=2)
    assert await again.load("http://a.example") == shared_record("http://a.example")
