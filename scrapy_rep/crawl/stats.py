"""Counting a crawl stat, for every component (Scrapy's stats collector may be absent)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector


def inc(stats: StatsCollector | None, key: str, count: int = 1) -> None:
    """Add ``count`` to the stat ``key``; nothing without a stats collector."""
    if stats is not None:
        stats.inc_value(key, count)
