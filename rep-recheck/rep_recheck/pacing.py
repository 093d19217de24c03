"""How a recheck's page fetch (``--pages``) is paced and what it says while it runs
(docs/recheck.md): the pages in an order fair to every origin, the crawl's concurrency
so that no origin waits behind another's ``Crawl-delay``, the pages' progress line, and
the line that says page-level signals were not read.
Pure: no Scrapy import (the crawl, :mod:`scrapy_rep.crawl.commands.recheck_crawl`, uses it).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any, Final

from rep_engine.urls.origins import origin_of

#: The most requests a recheck's crawl lets wait in the downloader at once: a place for
#: each origin (a page held by its origin's ``Crawl-delay`` takes one, never a fast
#: origin's) up to this bound.
MOST_AT_ONCE: Final = 1024
#: What a run without ``--pages`` says once, in its summary and on standard error.
PAGES_NOT_CHECKED: Final = (
    "Page-level signals (meta robots, X-Robots-Tag, TDMRep meta) were not checked: "
    "only the origins' documents decided; --pages fetches each item's page to read them."
)


def origin_key(url: str) -> str:
    """The origin a page belongs to (``""``: none read)."""
    origin = origin_of(url)
    return str(origin) if origin is not None else ""


def page_slot(url: str, host_slots: Collection[str]) -> str:
    """The download slot a page is fetched in: its origin's own, so that two ports of one
    host do not share one; ``""`` (Scrapy's, the host's) when the project's
    ``DOWNLOAD_SLOTS`` (``host_slots``) configures its host, whose delay and concurrency
    then hold for its pages as in a crawl (a ``Crawl-delay`` still moves it into its
    origin's slot, starting from that entry: :mod:`scrapy_rep.crawl.documents.slots`)."""
    origin = origin_of(url)
    if origin is None or origin.host in host_slots:
        return ""
    return str(origin)


def interleave(urls: Iterable[str]) -> list[str]:
    """``urls`` in turns, one per origin, each origin's in their order: the crawl asks
    for the first page of every origin before the second of any, so the pages of one
    origin (thousands, behind its ``Crawl-delay``) never come before every other's."""
    by_origin: dict[str, list[str]] = {}
    for url in urls:
        by_origin.setdefault(origin_key(url), []).append(url)
    queues = list(by_origin.values())
    order: list[str] = []
    turn = 0
    while queues:
        queues = [queue for queue in queues if len(queue) > turn]
        order += [queue[turn] for queue in queues]
        turn += 1
    return order


def page_settings(settings: Mapping[str, Any], origins: int) -> dict[str, Any]:
    """The concurrency of a crawl that fetches the pages of ``origins`` origins: Scrapy's
    ``CONCURRENT_REQUESTS`` counts a request held in its origin's slot by a delay, so 16
    pages of slow origins would hold every fast one; raised to one place per origin plus
    the given ones (never lowered; at most :data:`MOST_AT_ONCE`), each origin still
    bounded by its slot (``CONCURRENT_REQUESTS_PER_DOMAIN``, its ``Crawl-delay``); the
    scheduler per slot (Scrapy's ``DownloaderAwarePriorityQueue``: the next request is
    the least busy origin's)."""
    given = int(settings.get("CONCURRENT_REQUESTS") or 16)
    wanted = max(given, min(given + origins, MOST_AT_ONCE))
    return {
        "CONCURRENT_REQUESTS": wanted,
        "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.DownloaderAwarePriorityQueue",
    }


def pages_progress(done: int, total: int, left: Mapping[str, int]) -> str:
    """The page fetch's progress line: pages done of all, and the origins still waited
    on (``left``: origin -> its pages not done yet), the most behind first."""
    line = f"recheck: fetching pages: {done:,} of {total:,} done"
    behind = sorted(((n, o) for o, n in left.items() if n > 0), key=lambda p: (-p[0], p[1]))
    if not behind:
        return line
    shown = ", ".join(f"{origin} ({count:,})" for count, origin in behind[:3])
    more = f" and {len(behind) - 3:,} more" if len(behind) > 3 else ""
    return f"{line}; waiting on {len(behind):,} origin(s): {shown}{more}"
