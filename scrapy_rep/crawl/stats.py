"""Counting a crawl stat, for every component (Scrapy's stats collector may be absent)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy.statscollectors import StatsCollector


def inc(stats: StatsCollector | None, key: str, count: int = 1) -> None:
    """Add ``count`` to the stat ``key``; nothing without a stats collector."""
    if stats is not None:
        stats.inc_value(key, count)


def inc_each(stats: StatsCollector | None, keys: Iterable[str]) -> None:
    """Add 1 to each stat of ``keys`` (one call for a refusal's several stats)."""
    if stats is not None:
        for key in keys:
            stats.inc_value(key, 1)
