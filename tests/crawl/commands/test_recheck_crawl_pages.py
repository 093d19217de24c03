"""The page fetch's tally (``PagesLeft`` of :mod:`scrapy_rep.crawl.commands.recheck_crawl`),
without a crawl."""

from __future__ import annotations

from scrapy_rep.crawl.commands.recheck_crawl import PagesLeft


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
