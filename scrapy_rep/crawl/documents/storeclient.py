"""A store as the middleware uses it: :class:`StoreClient` never raises (SPEC §4).

On an outage the process carries on with its own cache (and says so once per outage,
for every kind); a corrupt record is counted under its kind's stats prefix and treated
as none. Once the crawl closes the store, a call is none (and one its close cut short
is no outage)."""

from __future__ import annotations

import copy
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final, TypeVar

from rep_engine.fetch.records import SharedRecord, StoreCorrupt

if TYPE_CHECKING:
    from scrapy_rep.crawl.documents.stores import RobotsStore

logger = logging.getLogger(__name__)
T = TypeVar("T")
#: After a store error, this process works alone for this long (seconds).
STORE_RETRY_AFTER: Final = 30.0


class _Health:
    """What the clients of one store share: whether it is down, which records are corrupt."""

    def __init__(self) -> None:
        self.down_until = 0.0
        #: Records found corrupt and not yet replaced: said once, not at every look.
        self.corrupt: set[str] = set()
        #: The crawl closed the store: a call after it (or cut short by it) is no outage.
        self.closed = False


class StoreClient:
    """A store as the middleware uses it: never raises. On an outage the process carries
    on with its own cache (and says so once per outage); a corrupt record is counted and
    treated as none, under the stats prefix of the kind whose record it is
    (``rep/robotstxt/store_corrupt``, ``rep/tdmrep/store_corrupt``)."""

    def __init__(
        self,
        store: RobotsStore,
        clock: Callable[[], float],
        count: Callable[[str], None],
        stat_prefix: str = "rep/robotstxt",
    ) -> None:
        self.store = store
        self.stat_prefix = stat_prefix
        self._clock = clock
        self._count = count
        self._health = _Health()

    def for_kind(self, stat_prefix: str) -> StoreClient:
        """The same store, its outages shared, counted under ``stat_prefix``."""
        client = copy.copy(self)
        client.stat_prefix = stat_prefix
        return client

    async def load(self, name: str) -> SharedRecord | None:
        return await self._run(lambda: self.store.load(name), None, name)

    async def acquire(self, name: str, seconds: float) -> bool | None:
        """``True``: leased; ``False``: another process has it; ``None``: store down."""
        return await self._run(lambda: self.store.acquire(name, seconds), None)

    async def release(self, name: str) -> None:
        await self._run(lambda: self.store.release(name), None)

    async def save(self, record: SharedRecord, keep_for: float) -> None:
        self._health.corrupt.discard(record.origin)
        await self._run(lambda: self.store.save(record, keep_for), None)

    async def close(self) -> None:
        self._health.closed = True
        try:
            await self.store.close()
        except Exception as error:  # closing must never fail the crawl's end
            logger.debug("scrapy_rep: closing the %s store: %s", self.store.name, error)

    async def _run(self, operation: Callable[[], Awaitable[T]], default: T, name: str = "") -> T:
        health = self._health
        if not self.store.consulted or health.closed or self._clock() < health.down_until:
            return default
        try:
            return await operation()
        except StoreCorrupt as error:
            if name in health.corrupt:
                return default
            if name:
                health.corrupt.add(name)
            self._count(f"{self.stat_prefix}/store_corrupt")
            logger.warning("scrapy_rep: ignoring a %s record: %s", self.store.name, error)
            return default
        except Exception as error:  # any client error: the store is unavailable
            if health.closed:  # cut short by the crawl's own close: no outage
                logger.debug("scrapy_rep: a %s call ended by the close: %s", self.store.name, error)
                return default
            self._count(f"{self.stat_prefix}/store_errors")
            health.down_until = self._clock() + STORE_RETRY_AFTER
            logger.warning(
                "scrapy_rep: the %s robots.txt cache is unavailable (%s: %s); this process "
                "carries on with its own cache and tries again in %.0f s",
                self.store.name,
                type(error).__name__,
                error,
                STORE_RETRY_AFTER,
            )
            return default
