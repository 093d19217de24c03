"""The page fetch of a recheck's crawl (``--pages``): the pages not done yet by origin,
and its progress line every :data:`~rep_recheck.fetching.PROGRESS_EVERY` seconds
(docs/recheck.md). The pacing itself is :mod:`rep_recheck.pacing`'s."""

from __future__ import annotations

from typing import TextIO

from rep_recheck.fetching import PROGRESS_EVERY
from rep_recheck.pacing import origin_key, pages_progress
from scrapy_rep.crawl.internals import Timer, call_later


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
