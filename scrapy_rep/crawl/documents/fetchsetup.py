"""What every document kind of a crawl shares: its store and its fetch policy (SPEC §4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.utils.job import job_dir

from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.settings.rules import lifecycle_policy
from scrapy_rep.crawl.documents.stores import RobotsStore, store_for
from scrapy_rep.crawl.internals import asyncio_usable
from scrapy_rep.crawl.startup import stop_at_start

if TYPE_CHECKING:
    from rep_engine.fetch.rules import Policy


def document_policy(config: RepConfig, settings: Any, store: RobotsStore) -> tuple[Policy, float]:
    """The fetch policy of every kind and the timeout of one download."""
    timeout = min(config.robotstxt_timeout, settings.getfloat("DOWNLOAD_TIMEOUT") or float("inf"))
    name = store.name if store.consulted else None
    return lifecycle_policy(config, settings, timeout, name, store.exclusive), timeout


def open_store(config: RepConfig, settings: Any, kinds: int = 1) -> RobotsStore:
    """The crawl's shared store (``REP_ROBOTSTXT_CACHE``, ``JOBDIR``). The JOBDIR file
    keeps what the ``kinds`` caches keep: ``REP_CACHE_MAX_BYTES`` of records each."""
    max_bytes = config.cache_max_bytes * kinds
    store = store_for(config.robotstxt_cache, job_dir(settings), max_bytes)
    if store.name == "redis" and not asyncio_usable():
        stop_at_start(  # one line and exit 2 under the scrapy command, not a traceback
            RepSettingError(
                "REP_ROBOTSTXT_CACHE: a Redis store needs Scrapy's asyncio reactor "
                "(TWISTED_REACTOR = 'twisted.internet.asyncioreactor.AsyncioSelectorReactor') "
                "or no reactor (TWISTED_REACTOR_ENABLED = False)"
            )
        )
    return store
