"""The RSL document kind through the crawl's JOBDIR store
(scrapy_rep/crawl/documents/stores.py; the kind itself and its shared record:
tests/usage/rsl/test_discovery.py): a license saved is read back as it was, and never
takes the name of another kind's record."""

from __future__ import annotations

import zlib
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import TDMREP
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.usage.rsl.document import ABSENT
from rep_engine.usage.rsl.terms import purpose_answers
from scrapy_rep.crawl.documents.stores import JobdirStore

T = TypeVar("T")
L = "https://a.example/license.xml"
BODY = (
    b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/books/*"><license>'
    b'<prohibits type="usage">ai-train</prohibits></license></content></rsl>'
)
PROBES = ("http://a.example/", "http://a.example/books/1")


def _complete(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that awaits nothing (the JOBDIR store works in memory and on
    disk synchronously) to its end, without an event loop (the test reactor has one)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise AssertionError("the store awaited something")


def test_the_rsl_kind_round_trips_through_the_jobdir_store(tmp_path: Path) -> None:
    document = RSL.parse(BODY)
    entry = CacheEntry(document, "200", 1.0, 2.0, 3.0, 200, zlib.compress(BODY))
    absent = CacheEntry(ABSENT, "404", 1.0, 2.0, 3.0, 404)
    tdm_url = "https://a.example/.well-known/tdmrep.json"

    async def write() -> None:
        store = JobdirStore(tmp_path / "robots", 100)
        await store.save(RSL.record_of(L, entry, 0, None, 0.0, "200", 1.0), 10.0)
        await store.save(RSL.record_of(tdm_url, absent, 0, None, 0.0, "404", 1.0), 10.0)
        await store.close()

    async def read() -> tuple[object, object, object]:
        store = JobdirStore(tmp_path / "robots", 100)
        return (
            await store.load(RSL.store_name(L)),
            await store.load(RSL.store_name(tdm_url)),
            await store.load(TDMREP.store_name("https://a.example")),
        )

    _complete(write())
    saved, saved_absent, tdm = _complete(read())
    assert tdm is None  # the license at tdmrep.json's URL took no tdmrep.json record
    back = RSL.entry_of(saved).rules  # type: ignore[arg-type]
    for url in PROBES:
        assert purpose_answers(back, url, frozenset(), L) == purpose_answers(
            document, url, frozenset(), L
        )
    assert RSL.entry_of(saved_absent).rules is ABSENT  # type: ignore[arg-type]
