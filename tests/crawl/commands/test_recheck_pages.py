"""The page fetch's tally and the first Ctrl-C's line (:mod:`scrapy_rep.crawl.commands.
recheck_pages`), without a crawl."""

from __future__ import annotations

import io
from types import SimpleNamespace

from scrapy_rep.crawl.commands.recheck_pages import PagesLeft, say_stopping


def test_the_pages_left_are_counted_by_origin_and_each_done_once() -> None:
    pages = ["https://a.example/1", "https://a.example/2", "https://b.example/1"]
    left = PagesLeft(pages, None)
    assert (left.total, left.count(), left.left) == (3, 3, {"https://a.example": 2,
                                                           "https://b.example": 1})  # fmt: skip
    left.done("https://a.example/1")
    left.done("https://b.example/1")
    left.done("https://b.example/1")  # an errback after a callback: not counted twice
    assert (left.count(), left.left["https://b.example"]) == (1, 0)
    left.start()  # no progress stream: no timer
    assert left.timer is None


def test_the_first_ctrl_c_prints_each_spiders_stopping_line_before_scrapys_own() -> None:
    said: list[str] = []
    err = io.StringIO()
    spider = SimpleNamespace(stopping=lambda: "recheck: stopping: 2 page(s) not fetched")
    process = SimpleNamespace(
        crawlers=[SimpleNamespace(spider=spider), SimpleNamespace(spider=None)],
        _log_shutdown=lambda signum: said.append(f"{signum}: {err.getvalue()}"),
    )
    say_stopping(process, err)
    process._log_shutdown(2)
    assert said == ["2: recheck: stopping: 2 page(s) not fetched\n"]


def test_the_pages_waiting_in_their_slots_are_dropped_the_rest_left() -> None:
    from collections import deque

    from scrapy.exceptions import IgnoreRequest
    from twisted.internet.defer import Deferred

    from scrapy_rep.crawl.commands.recheck_pages import STOPPED, drop_queued

    failed: list[str] = []
    queue: deque[tuple[str, Deferred[object]]] = deque()
    for name in ("page1", "robots", "page2"):
        deferred: Deferred[object] = Deferred()
        deferred.addErrback(lambda f, n=name: failed.append(f"{n}: {f.value}"))
        queue.append((name, deferred))
    slot = SimpleNamespace(queue=queue)
    engine = SimpleNamespace(downloader=SimpleNamespace(slots={"a": slot}))
    crawler = SimpleNamespace(_engine=engine, engine=engine)
    assert drop_queued(crawler, lambda request: request.startswith("page")) == 2
    assert failed == [f"page1: {STOPPED}", f"page2: {STOPPED}"]
    assert [name for name, _ in slot.queue] == ["robots"]
    assert isinstance(IgnoreRequest(STOPPED), Exception)
