"""The page fetch of a recheck's crawl (``--pages``): the pages not done yet by origin,
its progress line every :data:`~rep_recheck.fetching.PROGRESS_EVERY` seconds, and
the line the first Ctrl-C says at once (docs/recheck.md). The pacing itself is
:mod:`rep_recheck.pacing`'s."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TextIO

from scrapy.exceptions import IgnoreRequest

from rep_recheck.fetching import PROGRESS_EVERY
from rep_recheck.pacing import origin_key, pages_progress
from scrapy_rep.crawl.internals import Timer, call_later, running_engine


class PagesLeft:
    """The pages of a crawl not done yet, by origin; a progress line on ``progress``
    (``None``: none) every :data:`PROGRESS_EVERY` seconds once :meth:`start` is called,
    until every page is done or :meth:`stop`."""

    def __init__(self, pages: list[str], progress: TextIO | None) -> None:
        self.total = len(pages)
        self.progress = progress
        #: Origin -> its pages not done yet.
        self.left: dict[str, int] = {}
        for url in pages:
            key = origin_key(url)
            self.left[key] = self.left.get(key, 0) + 1
        self.timer: Timer | None = None

    def count(self) -> int:
        """The pages not done yet."""
        return sum(self.left.values())

    def done(self, url: str) -> None:
        """``url``'s page is done (read, or given up on)."""
        key = origin_key(url)
        if self.left.get(key, 0) > 0:
            self.left[key] -= 1

    def start(self) -> None:
        """The progress lines start (the pages are asked for now)."""
        if self.progress is not None and self.total:
            self.timer = call_later(PROGRESS_EVERY, self._tick)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()

    def _tick(self) -> None:
        left = self.count()
        if not left:
            return
        print(pages_progress(self.total - left, self.total, self.left), file=self.progress,
              flush=True)  # fmt: skip
        self.timer = call_later(PROGRESS_EVERY, self._tick)


#: Why a page held in its slot was dropped by the first Ctrl-C: it was never fetched.
STOPPED: Final = "stopped (Ctrl-C) before it was fetched"


def drop_queued(crawler: Any, mine: Callable[[Any], bool]) -> int:
    """The requests of ``crawler`` that ``mine`` names and that wait in their download
    slot (behind a ``Crawl-delay``, not started) dropped, each failed with
    ``IgnoreRequest(STOPPED)``: a graceful stop downloads them all first (a minute for 30
    pages of a ``Crawl-delay: 2`` origin). How many were dropped."""
    engine = running_engine(crawler)
    downloader = getattr(engine, "downloader", None)
    dropped = 0
    for slot in list(getattr(downloader, "slots", {}).values()):
        kept = []
        while slot.queue:
            request, deferred = slot.queue.popleft()
            if mine(request):
                deferred.errback(IgnoreRequest(STOPPED))
                dropped += 1
            else:
                kept.append((request, deferred))
        slot.queue.extend(kept)
    return dropped


def say_stopping(process: Any, err: TextIO) -> None:
    """The first Ctrl-C says at once, on ``err``, what it stops (Scrapy logs its own
    line at INFO only, below a recheck's ``LOG_LEVEL``, and the stop then waits for the
    requests under way): before ``process``'s shutdown line (called in its reactor or
    loop, never in the signal handler), the line of each of its spiders that has one
    (``stopping()``: :func:`~rep_recheck.pacing.stopping_line`); then the pages
    that wait in their slots (``is_page``) are dropped, never fetched (:func:`drop_queued`)."""
    # Scrapy 2.14 and later log the shutdown from the reactor or loop (_log_shutdown);
    # before, the signal handler logs and the reactor then runs _graceful_stop_reactor
    name = next(
        (name for name in ("_log_shutdown", "_graceful_stop_reactor") if hasattr(process, name)),
        None,
    )
    if name is None:  # a Scrapy that stops otherwise: its own line only
        return
    logged = getattr(process, name)

    def said(*args: Any) -> Any:
        for crawler in list(getattr(process, "crawlers", ())):
            stopping = getattr(getattr(crawler, "spider", None), "stopping", None)
            if callable(stopping):
                print(stopping(), file=err, flush=True)
            is_page = getattr(getattr(crawler, "spider", None), "is_page", None)
            if callable(is_page):
                drop_queued(crawler, is_page)
        return logged(*args)

    setattr(process, name, said)
