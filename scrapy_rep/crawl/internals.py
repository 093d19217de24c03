"""Every private attribute of Scrapy that scrapy_rep reads, in one place.

Scrapy gives no public way to ask these questions; each function says what it reads, and
answers ``None`` (or the safe default) when the attribute is not there, so a Scrapy that
moved it degrades to the late path instead of failing.
``tests/integration/test_scrapy_internals.py`` checks each one against a running crawl of
the installed Scrapy; it was checked against the Scrapy versions in :data:`CHECKED_WITH`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: The Scrapy releases these reads were checked against (``.ci/run`` tests the lowest the
#: package declares and the newest).
CHECKED_WITH: Final = ("2.19.0",)


def running_engine(crawler: Crawler) -> Any:
    """The crawl's engine, or ``None`` before the crawl starts and after it ends
    (``Crawler._engine``: the public ``Crawler.engine`` raises then, since Scrapy 2.19)."""
    return getattr(crawler, "_engine", None)


def engine_scheduler(engine: Any) -> Any:
    """The crawl's scheduler (``ExecutionEngine._slot.scheduler``), or ``None``."""
    return getattr(getattr(engine, "_slot", None), "scheduler", None)


def engine_closing(engine: Any) -> bool:
    """Whether the engine is closing the spider (``ExecutionEngine._slot.closing`` is set,
    or the slot is gone)."""
    slot = getattr(engine, "_slot", None)
    return slot is None or getattr(slot, "closing", None) is not None


def seen_fingerprints(scheduler: Any) -> set[bytes] | None:
    """The fingerprints Scrapy's ``RFPDupeFilter`` has seen (its ``_fingerprints`` set:
    the public ``fingerprints`` is a deprecated copy), or ``None`` with another
    dupefilter."""
    seen = getattr(getattr(scheduler, "df", None), "_fingerprints", None)
    return seen if isinstance(seen, set) else None


def downloader_middleware(engine: Any) -> Any:
    """The downloader's ``DownloaderMiddlewareManager`` (``engine.downloader.middleware``:
    its ``middlewares`` and ``methods``), or ``None``."""
    return getattr(getattr(engine, "downloader", None), "middleware", None)


def downloader_methods(engine: Any, name: str) -> list[Any]:
    """The bound methods the downloader calls for ``name`` (``process_request``…), in the
    order it calls them (``DownloaderMiddlewareManager.methods``)."""
    methods = getattr(downloader_middleware(engine), "methods", None)
    return list(methods.get(name) or ()) if isinstance(methods, dict) else []


def spider_middlewares(engine: Any) -> tuple[Any, ...] | None:
    """The spider middlewares, from the engine's side (``engine.scraper.spidermw
    .middlewares``), or ``None``."""
    manager = getattr(getattr(engine, "scraper", None), "spidermw", None)
    middlewares = getattr(manager, "middlewares", None)
    return tuple(middlewares) if middlewares is not None else None
