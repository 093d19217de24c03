"""The first few lines of each per-origin INFO message, the rest at DEBUG, and their
count at the end of the crawl (docs/behaviour.md, "What the log says").

A broad crawl meets thousands of origins: one INFO line each (a crawl-delay applied, a
robots.txt unreachable for a while, then back) would bury the rest of the log. Of each
kind of line the first :data:`FIRST_AT_INFO` of a crawl are logged at INFO, the last of
them saying that the others go to DEBUG; every one is counted, and when some went to
DEBUG one INFO line at the end says how many there were.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Final

#: How many lines of each kind a crawl logs at INFO: enough to see what happens on the
#: first origins, few enough that 10,000 origins add 5 lines, not 10,000.
FIRST_AT_INFO: Final = 5


class FirstFew:
    """Counts the lines of each kind (any hashable name) and says at which level each
    goes."""

    def __init__(self, limit: int = FIRST_AT_INFO) -> None:
        self.limit = limit
        self.counts: Counter[str] = Counter()

    def level(self, kind: str) -> int:
        """The level of the next line of ``kind``: INFO for the first few, then DEBUG."""
        self.counts[kind] += 1
        return logging.INFO if self.counts[kind] <= self.limit else logging.DEBUG

    def note(self, kind: str) -> str:
        """What the last INFO line of ``kind`` adds: that the next go to DEBUG."""
        if self.counts[kind] != self.limit:
            return ""
        return f" (the first {self.limit} such lines are at INFO, the rest at DEBUG)"

    def beyond(self, kind: str) -> int:
        """How many lines of ``kind`` there were, when some went to DEBUG; else 0."""
        count = self.counts[kind]
        return count if count > self.limit else 0
