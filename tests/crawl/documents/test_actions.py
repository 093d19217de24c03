"""The runner of the lifecycle's actions (scrapy_rep/crawl/documents/actions.py) performs the
store calls in the order the lifecycle gives them."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest_twisted
from twisted.internet import reactor
from twisted.internet.task import deferLater

from scrapy_rep.crawl.documents.stores import SharedRecord


@pytest_twisted.ensureDeferred
async def test_a_lease_is_released_only_after_the_record_it_guards_is_saved() -> None:
    """The lifecycle says "save the record, then release the lease"; the store calls run in
    that order even when saving is the slower call (concurrent calls let a lease go
    before its record was saved: another worker then saw neither and downloaded again)."""
    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    from scrapy_rep.crawl.documents.actions import ActionRunner
    from scrapy_rep.fetch.lifecycle import events as do

    done: list[str] = []

    class SlowSavingStore:
        async def save(self, record: Any, keep_for: float) -> None:
            await asyncio.sleep(0.2)  # Redis is slower to save than to delete a key
            done.append("save")

        async def release(self, name: str) -> None:
            done.append("release")

    record = SharedRecord("http://a", b"", True, 404, "404", 0.0, 1e18, 1e18)
    runner = ActionRunner(
        get_crawler(Spider),
        None,
        None,
        SlowSavingStore(),
        None,
        time.time,
        len,  # type: ignore[arg-type]
    )
    runner.perform([do.SaveRecord("http://a", record, 60.0), do.ReleaseLease("http://a", "a")])
    for _ in range(40):
        await deferLater(reactor, 0.05)
        if len(done) == 2:
            break
    assert done == ["save", "release"]
