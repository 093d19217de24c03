"""What the tests themselves do differently on the Scrapy releases the package supports
(2.13 and newer; the package's own differences are in ``scrapy_rep.crawl.internals``).

Each helper names the release that changed what it covers; the tests call these and
never ask which Scrapy they run on.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
import scrapy
from scrapy.crawler import Crawler
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.defer import Deferred

from scrapy_rep.crawl.internals import ASYNC_ENGINE, COMPONENTS_BY_CLASS, DELAY_JITTER, SCRAPY


def stop(crawler: Crawler) -> Deferred[Any]:
    """Stop a running crawl as Scrapy's SIGINT handler does: ``Crawler.stop_async()``
    (Scrapy 2.14), ``Crawler.stop()`` before."""
    if ASYNC_ENGINE:
        return deferred_from_coro(crawler.stop_async())
    return crawler.stop()


def open_stats(crawler: Crawler) -> None:
    """Open the crawler's stats outside a crawl: ``StatsCollector.open_spider()`` needs its
    ``spider`` argument before Scrapy 2.14."""
    assert crawler.stats is not None
    if ASYNC_ENGINE:
        crawler.stats.open_spider()
    else:
        crawler.stats.open_spider(crawler.spider)  # type: ignore[arg-type]


def needs_scrapy(release: tuple[int, int], what: str) -> pytest.MarkDecorator:
    """Skip a test of something Scrapy ``release`` brought (the package's code for the
    older releases is tested by the tests that run on them), saying so."""
    return pytest.mark.skipif(
        release > SCRAPY,
        reason=f"{what} needs Scrapy {release[0]}.{release[1]} (installed: {scrapy.__version__})",
    )


def needs_no_reactor() -> pytest.MarkDecorator:
    """Skip a crawl without a reactor (``TWISTED_REACTOR_ENABLED = False``) where this
    Scrapy cannot run the tests' one: before 2.15 (no such mode), or where the handler it
    downloads with then cannot (2.15 to 2.18: httpx's, the httpx library not installed;
    aiohttp's from 2.19, a dependency of Scrapy)."""
    from scrapy_rep.crawl.internals import HTTPX_HANDLER, REACTORLESS_HANDLER, httpx_missing

    handler = SCRAPY >= (2, 15) and importlib.util.find_spec(REACTORLESS_HANDLER.rpartition(".")[0])
    library = not (REACTORLESS_HANDLER == HTTPX_HANDLER and httpx_missing())
    return pytest.mark.skipif(
        not (handler and library),
        reason=f"a crawl without a reactor needs Scrapy 2.15 and a download handler that "
        f"runs without one (aiohttp's; before 2.19 httpx's, with the httpx library) "
        f"(installed: Scrapy {scrapy.__version__})",
    )


def jitter(value: float) -> dict[str, Any]:
    """Settings for Scrapy's jitter of download delays: ``DOWNLOAD_DELAY_JITTER``
    (Scrapy 2.19; ``RANDOMIZE_DOWNLOAD_DELAY`` is deprecated there), else
    ``RANDOMIZE_DOWNLOAD_DELAY``, which has ±50 % or nothing."""
    if DELAY_JITTER:
        return {"DOWNLOAD_DELAY_JITTER": value}
    assert value in (0, 0.5), f"Scrapy {scrapy.__version__} has ±50 % jitter or none"
    return {"RANDOMIZE_DOWNLOAD_DELAY": bool(value)}


def slot_jitter(value: float) -> dict[str, Any]:
    """The same for one ``DOWNLOAD_SLOTS`` entry: its ``jitter`` (Scrapy 2.19), else its
    ``randomize_delay``."""
    if DELAY_JITTER:
        return {"jitter": value}
    assert value in (0, 0.5), f"Scrapy {scrapy.__version__} has ±50 % jitter or none"
    return {"randomize_delay": bool(value)}


def enabled_components(settings: Any, name: str) -> list[Any]:
    """The classes Scrapy builds from the component setting ``name`` and its ``_BASE``,
    in order: merged by class (Scrapy 2.15), by key as written before."""
    from scrapy.utils.conf import build_component_list
    from scrapy.utils.misc import load_object

    if COMPONENTS_BY_CLASS:
        components = settings.get_component_priority_dict_with_base(name)
    else:
        components = settings.getwithbase(name)
    return [load_object(c) if isinstance(c, str) else c for c in build_component_list(components)]
