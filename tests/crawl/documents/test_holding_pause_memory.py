"""A pause with many held requests stays within bounded memory (SPEC §4, §7;
docs/decisions.md, 'A pause leaves spilled requests on disk'), and keeps every one it can.

Held requests beyond ``REP_MAX_HELD_REQUESTS`` wait in disk queues. Pausing used to read
every one of them back into memory to write one state pickle (84 MB for 9,800 requests);
now they stay in their disk queues in ``JOBDIR`` and the state file names them. Memory is
measured with tracemalloc (bytes, not time); ``benchmarks/pause_memory.py`` measures a
million.
"""

from __future__ import annotations

import logging
import pickle
import threading
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.documents.holding import SPILL_DIR, STATE_FILE, HeldRequests

SPILLED = 20_000
LIMIT = 10
#: Each request carries this much (a realistic request with headers and meta).
PAYLOAD = "x" * 1_000


class Counting:
    """An engine that schedules nothing and keeps only the count and order of URLs."""

    def __init__(self) -> None:
        self.count = 0
        self.in_order = True

    def crawl(self, request: Request) -> None:
        if request.url != f"http://a.example/{self.count}":
            self.in_order = False
        self.count += 1


def peak_bytes(action: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        action()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def held_crawler(jobdir: Path) -> tuple[Any, Spider]:
    crawler = get_crawler(Spider, {"JOBDIR": str(jobdir)})
    spider = Spider("held")
    crawler.spider = spider
    return crawler, spider


def test_a_pause_reads_no_spilled_request_back_into_memory(tmp_path: Path) -> None:
    crawler, spider = held_crawler(tmp_path)
    held = HeldRequests(crawler, LIMIT)
    for n in range(LIMIT + SPILLED):
        held.add("http://a.example", Request(f"http://a.example/{n}", meta={"p": PAYLOAD}))
    assert held.in_memory == LIMIT and len(held) == LIMIT + SPILLED
    spilled_bytes = SPILLED * len(PAYLOAD)  # 20 MB would come back into memory

    peak = peak_bytes(lambda: held.close(spider, "shutdown", None))
    assert peak < spilled_bytes / 20, peak  # a few hundred KB, not 20+ MB
    state = pickle.loads((tmp_path / STATE_FILE).read_bytes())
    assert len(state["held"]) == LIMIT and len(state["spilled"]) == 1
    assert (tmp_path / STATE_FILE).stat().st_size < 100 * LIMIT * len(PAYLOAD) / 10

    # The next run schedules every one of them again, in order, one at a time.
    crawler, spider = held_crawler(tmp_path)
    engine = Counting()
    again = HeldRequests(crawler, LIMIT)
    peak = peak_bytes(lambda: again.resume(spider, engine))
    assert engine.count == LIMIT + SPILLED and engine.in_order
    assert peak < spilled_bytes / 20, peak
    assert not (tmp_path / SPILL_DIR).exists()  # read, then removed


@pytest.mark.parametrize("version", [2, 3])
def test_a_state_file_of_a_previous_version_still_resumes(tmp_path: Path, version: int) -> None:
    crawler, spider = held_crawler(tmp_path)
    saved = [Request(f"http://a.example/{n}").to_dict(spider=spider) for n in range(3)]
    state = {"version": version, "held": saved, "spilled": []}
    (tmp_path / STATE_FILE).write_bytes(pickle.dumps(state))
    engine = Counting()
    assert HeldRequests(crawler, LIMIT).resume(spider, engine) == 3
    assert engine.count == 3 and engine.in_order


@pytest.mark.parametrize("name", ["../elsewhere", "/etc", ".."])
def test_a_state_file_naming_a_queue_outside_jobdir_is_refused(
    tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    crawler, spider = held_crawler(tmp_path)
    state = {"version": 3, "held": [], "spilled": [name]}
    (tmp_path / STATE_FILE).write_bytes(pickle.dumps(state))
    assert HeldRequests(crawler, LIMIT).resume(spider, Counting()) == 0
    assert "a spilled queue outside JOBDIR" in caplog.text


def test_spilled_origins_keep_few_files_open_and_every_request_in_order(
    tmp_path: Path,
) -> None:
    """A broad crawl spills for tens of thousands of origins: at most MAX_OPEN_QUEUES
    disk queues are open at a time (at 100,000 origins the crawl ran out of file
    handles); the others are closed and reopened where they were left."""
    import os

    from scrapy_rep.crawl.documents.holding import MAX_OPEN_QUEUES

    crawler, spider = held_crawler(tmp_path)
    held = HeldRequests(crawler, 0)  # everything spills
    origins = [f"http://o{n}.example" for n in range(MAX_OPEN_QUEUES * 4)]
    fds_before = len(os.listdir("/proc/self/fd"))
    for round_ in range(3):  # every origin comes back after all the others
        for origin in origins:
            held.add(origin, Request(f"{origin}/{round_}"))
    assert len(held._open) <= MAX_OPEN_QUEUES
    assert len(os.listdir("/proc/self/fd")) - fds_before <= 2 * MAX_OPEN_QUEUES + 4
    assert len(held) == 3 * len(origins) and held.in_memory == 0
    for origin in origins[::2]:  # released in any order, each one's requests in order
        assert [r.url for r in held.pop(origin)] == [f"{origin}/{n}" for n in range(3)]
    held.close(spider, "shutdown", None)  # a pause: every queue named, open or not
    state = pickle.loads((tmp_path / STATE_FILE).read_bytes())
    assert len(state["spilled"]) == len(origins[1::2])
    crawler, spider = held_crawler(tmp_path)
    engine = Counting()
    assert HeldRequests(crawler, 0).resume(spider, engine) == 3 * len(origins[1::2])


def test_a_request_that_cannot_be_spilled_stays_held_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No file handle left (or a full disk): the request is held in memory, beyond the
    limit, counted and said once; it is never lost and no exception escapes."""
    from scrapy.squeues import PickleFifoDiskQueue

    def no_handles(*_: Any, **__: Any) -> Any:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(PickleFifoDiskQueue, "from_crawler", no_handles)
    crawler, _ = held_crawler(tmp_path)
    held = HeldRequests(crawler, 1)
    for n in range(5):
        held.add("http://a.example", Request(f"http://a.example/{n}"))
    assert held.in_memory == 5 and len(held) == 5
    assert crawler.stats.get_value("rep/requests/spill_errors") == 4
    assert caplog.text.count("cannot spill held requests to disk") == 1
    assert [r.url for r in held.pop("http://a.example")] == [
        f"http://a.example/{n}" for n in range(5)
    ]


@pytest.mark.parametrize("limit", [100, 5], ids=["in-memory", "spilled"])
def test_one_unpicklable_held_request_is_the_one_dropped_at_a_pause(
    tmp_path: Path, limit: int, caplog: pytest.LogCaptureFixture
) -> None:
    """One held request cannot be pickled (a lock in its meta): it alone is dropped, with
    a WARNING, a stat and ``request_refused``, as Scrapy's own ``JOBDIR`` queue cannot
    keep it either; every other held request, in memory or spilled, resumes (the state
    file used to be one pickle: its TypeError wrote none, and every one was lost)."""
    crawler, spider = held_crawler(tmp_path)
    refused: list[tuple[str, str]] = []
    crawler.signals.connect(
        lambda request, message, **_: refused.append((request.url, message)),
        signal=rep_signals.request_refused,
        weak=False,
    )
    held = HeldRequests(crawler, limit)
    urls = [f"http://a.example/{n}" for n in range(20)]
    for n, url in enumerate(urls):  # the odd one last: spilled first, it stays in memory
        meta = {"lock": threading.Lock()} if n == 19 else {"n": n}
        held.add("http://a.example", Request(url, meta=meta))
    with caplog.at_level(logging.WARNING):
        held.close(spider, "shutdown", None)

    assert pickle.loads((tmp_path / STATE_FILE).read_bytes())["version"] == 4
    assert crawler.stats.get_value("rep/requests/dropped/not_serializable") == 1
    assert f"cannot keep held <GET {urls[19]}> in JOBDIR (TypeError" in caplog.text
    assert [url for url, _ in refused] == [urls[19]]
    assert "cannot be kept in JOBDIR" in refused[0][1]
    crawler, spider = held_crawler(tmp_path)  # the next run
    engine = Counting()
    assert HeldRequests(crawler, limit).resume(spider, engine) == 19
    assert engine.count == 19 and engine.in_order


def test_a_held_request_the_shared_queue_refuses_is_refused_not_left_in_it() -> None:
    """A held request that cannot be put back into scrapy-redis's
    shared queue at the close is lost: it is refused (``request_refused``, with its
    reason and the error), counted as dropped, never counted as returned."""
    from scrapy_rep.crawl.documents import holding

    class Queue:
        def __init__(self) -> None:
            self.pushed: list[str] = []

        def push(self, request: Request) -> None:
            if request.url.endswith("/lost"):
                raise ConnectionError("Redis is gone")
            self.pushed.append(request.url)

    crawler = get_crawler(Spider)
    refused: list[tuple[str, Any, str]] = []
    crawler.signals.connect(
        lambda request, reason, message, **_: refused.append((request.url, reason, message)),
        signal=rep_signals.request_refused,
        weak=False,
    )
    held = HeldRequests(crawler, LIMIT)
    for path in ("/kept", "/lost"):
        held.add("http://a.example", Request(f"http://a.example{path}"))
    queue = Queue()
    held._return_to_shared_queue(queue, "shutdown")
    assert queue.pushed == ["http://a.example/kept"]
    ((url, reason, message),) = refused
    assert url == "http://a.example/lost"
    assert reason == holding.Reason.SPIDER_CLOSED
    assert "could not be returned to the shared queue" in message and "Redis is gone" in message
    stats = crawler.stats.get_stats()
    assert stats["rep/requests/returned_to_queue"] == 1
    assert stats["rep/requests/dropped/spider_closed"] == 1


def test_without_jobdir_every_held_request_is_dropped_and_counted_even_one_not_read_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Without ``JOBDIR`` the held requests are dropped at the close, each by the performer
    of refusals (``request_refused``, ``spider_closed``); those of a disk queue that cannot
    be read back now are counted with them (the WARNING says them), never signalled: there
    is no request to name."""
    crawler = get_crawler(Spider)
    spider = crawler.spider = Spider("held")
    refused: list[str] = []
    crawler.signals.connect(
        lambda request, reason, **_: refused.append(f"{reason} {request.url}"),
        signal=rep_signals.request_refused,
        weak=False,
    )
    held = HeldRequests(crawler, 2)
    for n in range(5):  # two in memory, three spilled
        held.add("http://a.example", Request(f"http://a.example/{n}"))
    held.add("http://b.example", Request("http://b.example/0"))  # spilled too

    def unreadable(key: Any) -> Any:
        raise OSError("no file handle left")

    for queue in held._open.values():  # closed, their requests on disk
        queue.close()
    held._open.clear()
    held._queue = unreadable  # type: ignore[method-assign]
    with caplog.at_level(logging.WARNING):
        held.close(spider, "finished", None)
    assert refused == ["spider_closed http://a.example/0", "spider_closed http://a.example/1"]
    assert crawler.stats.get_value("rep/requests/dropped/spider_closed") == 6
    assert "with 6 request(s) still held" in caplog.text
