"""Where robots.txt outcomes are kept beyond one process: the store clients (SPEC §4).

Every crawler process keeps its own parsed rules in :class:`rep_engine.fetch.cache.DocumentCache`.
A *store* is the layer behind it, asked when that cache has no fresh copy and told every
download's outcome:

- :class:`LocalStore` (``REP_ROBOTSTXT_CACHE = "memory"``, the default, no ``JOBDIR``)
  keeps nothing beyond the process: each process downloads and decides alone.
- :class:`JobdirStore` (``REP_ROBOTSTXT_CACHE = "memory"`` and a ``JOBDIR``) keeps the
  records in a file of the crawl's ``JOBDIR``: the cache survives pause and resume.
- :class:`RedisStore` (``REP_ROBOTSTXT_CACHE = "redis://host:port/db"``) keeps one
  record per origin in Redis: the raw body (zlib, at most 500 KiB before compression),
  the fetch outcome, when it was fetched, until when it is fresh and usable when stale,
  and the "temporarily unreachable" schedule (failures, first failure, next try). A lease
  (``SET NX PX``) lets only one process download an origin's robots.txt at a time; a
  process that dies mid-download loses its lease when it times out.

Records are encoded and checked by :mod:`rep_engine.fetch.records`; a record that does not
decode, has another format version, or names another origin is ignored.
:class:`StoreClient` wraps a store for the middleware, and never raises (SPEC §4): a store
that fails is left alone for 30 s (the process carries on with its own cache, and says so
once per outage, for every kind); a corrupt record is counted under its kind's stats
prefix and treated as none. Once the crawl closes the store, a call is none (and one its
close cut short is no outage).

Every document kind of a crawl shares one store (:func:`open_store`: ``REP_ROBOTSTXT_CACHE``,
``JOBDIR``) and one fetch policy (:func:`document_policy`).
"""

from __future__ import annotations

import copy
import logging
import os
import pickle
import socket
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from scrapy.utils.job import job_dir

from rep_engine.fetch.records import FORMAT_VERSION, SharedRecord, StoreCorrupt
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.settings.rules import lifecycle_policy
from rep_engine.trail.file import replacing
from scrapy_rep.crawl.internals import asyncio_usable, error_line
from scrapy_rep.crawl.startup import stop_at_start

if TYPE_CHECKING:
    from rep_engine.fetch.rules import Policy

logger = logging.getLogger(__name__)


T = TypeVar("T")

#: The JOBDIR store's file.
JOBDIR_FILE: Final = "scrapy_rep.robots"


class RobotsStore(Protocol):
    """What the middleware needs from a shared store. Any method may raise
    ``StoreUnavailable``-like errors (``OSError``, the client's own); the middleware
    then carries on with its process-local cache."""

    #: For logs and stats: "memory", "jobdir", "redis".
    name: str
    #: Whether the store is asked at all (it keeps records beyond the process's cache).
    consulted: bool
    #: Whether this process is the store's only user (no lease is needed to download).
    exclusive: bool

    async def load(self, origin: str) -> SharedRecord | None: ...

    async def save(self, record: SharedRecord, keep_for: float) -> None: ...

    async def acquire(self, origin: str, seconds: float) -> bool: ...

    async def release(self, origin: str) -> None: ...

    async def close(self) -> None: ...


class LocalStore:
    """Shares nothing: every process decides alone (the default)."""

    name = "memory"
    consulted = False
    exclusive = False

    async def load(self, origin: str) -> SharedRecord | None:
        return None

    async def save(self, record: SharedRecord, keep_for: float) -> None:
        return None

    async def acquire(self, origin: str, seconds: float) -> bool:
        return True

    async def release(self, origin: str) -> None:
        return None

    async def close(self) -> None:
        return None


class JobdirStore:
    """Records in ``JOBDIR/scrapy_rep.robots`` (read at start, written at close), the
    least recently used dropped beyond ``max_bytes`` of records (and beyond
    ``max_origins`` of them, if given). One process per JOBDIR, as Scrapy requires, so a
    lease is always granted.

    The crawl bounds it by what its caches really keep (``REP_CACHE_MAX_BYTES`` per
    document kind): a record takes no more bytes here than its entry does in the cache
    (its compressed body and a header, against the body and :data:`~rep_engine.fetch.cache.
    COMPRESSED_OVERHEAD`, or a parsed entry's larger estimate), so nothing the cache
    keeps is forgotten at a pause (it was bounded by ``REP_CACHE_MAX_ORIGINS``, the
    parsed tier only: a resumed broad crawl downloaded again what its cache still had)."""

    name = "jobdir"
    consulted = True
    #: One process per JOBDIR (Scrapy's rule): the lease would always be granted.
    exclusive = True

    def __init__(
        self, path: Path, max_origins: int | None = None, max_bytes: int | None = None
    ) -> None:
        self.path = path
        self.max_origins = max_origins
        self.max_bytes = max_bytes
        self._records: OrderedDict[str, bytes] = OrderedDict()
        #: Bytes of the records kept (each counted with its name and STORED_OVERHEAD).
        self.bytes = 0
        #: Why the file could not be read (it is then ignored), for the middleware's log.
        self.load_error = ""
        if path.exists():
            try:
                with path.open("rb") as file:
                    saved = pickle.load(file)  # our own file in JOBDIR
                if saved.get("version") != FORMAT_VERSION:
                    raise ValueError(f"unknown version {saved.get('version')!r}")
                self._records.update(saved["records"])
            except Exception as error:
                self.load_error = error_line(error)
                self._records.clear()
        self.bytes = sum(_stored_size(name, data) for name, data in self._records.items())
        self._trim()

    def __len__(self) -> int:
        return len(self._records)

    async def load(self, origin: str) -> SharedRecord | None:
        data = self._records.get(origin)
        if data is None:
            return None
        self._records.move_to_end(origin)
        return SharedRecord.decode(data, origin)

    async def save(self, record: SharedRecord, keep_for: float) -> None:
        data = record.encode()
        old = self._records.pop(record.origin, None)
        if old is not None:
            self.bytes -= _stored_size(record.origin, old)
        self._records[record.origin] = data
        self.bytes += _stored_size(record.origin, data)
        self._trim()

    def _trim(self) -> None:
        """Drop the least recently used records beyond the bounds (never the last one)."""
        while len(self._records) > 1 and (
            (self.max_origins is not None and len(self._records) > self.max_origins)
            or (self.max_bytes is not None and self.bytes > self.max_bytes)
        ):
            name, data = self._records.popitem(last=False)
            self.bytes -= _stored_size(name, data)

    async def acquire(self, origin: str, seconds: float) -> bool:
        return True

    async def release(self, origin: str) -> None:
        return None

    async def close(self) -> None:
        with replacing(self.path, ".tmp") as file:  # made new: no planted symlink followed
            state = {"version": FORMAT_VERSION, "records": dict(self._records)}
            pickle.dump(state, file, protocol=pickle.HIGHEST_PROTOCOL)


#: Bytes a record kept in memory costs besides its name and data (the dict slot, the
#: two objects' headers).
STORED_OVERHEAD: Final = 200


def _stored_size(name: str, data: bytes) -> int:
    return len(name) + len(data) + STORED_OVERHEAD


#: Deletes the lease only if this process still holds it.
_RELEASE: Final = """
if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end
return 0
"""


class RedisStore:
    """Records and leases in Redis (the ``redis`` extra: ``pip install 'redis>=5'``)."""

    name = "redis"
    consulted = True
    exclusive = False

    def __init__(self, url: str, prefix: str = "scrapy_rep", timeout: float = 2.0) -> None:
        try:
            import redis.asyncio
        except ImportError:  # pragma: no cover - depends on the installation
            raise ImportError(
                "REP_ROBOTSTXT_CACHE names Redis, but the redis package is missing: "
                "pip install 'redis>=5' (scrapy_rep's redis extra)"
            ) from None
        self.url = url
        self.prefix = prefix
        self.client: Any = redis.asyncio.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        #: Identifies this process's leases.
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"

    def _key(self, kind: str, origin: str) -> str:
        return f"{self.prefix}:{kind}:{origin}"

    async def load(self, origin: str) -> SharedRecord | None:
        data = await self.client.get(self._key("robots", origin))
        return None if data is None else SharedRecord.decode(data, origin)

    async def save(self, record: SharedRecord, keep_for: float) -> None:
        milliseconds = max(1000, int(keep_for * 1000))
        await self.client.set(self._key("robots", record.origin), record.encode(), px=milliseconds)

    async def acquire(self, origin: str, seconds: float) -> bool:
        milliseconds = max(1, int(seconds * 1000))
        key = self._key("lease", origin)
        return bool(await self.client.set(key, self.owner, nx=True, px=milliseconds))

    async def release(self, origin: str) -> None:
        await self.client.eval(_RELEASE, 1, self._key("lease", origin), self.owner)

    async def close(self) -> None:
        await self.client.aclose()


def store_for(setting: str, jobdir: str | None = None, max_bytes: int | None = None) -> RobotsStore:
    """The store a ``REP_ROBOTSTXT_CACHE`` value (already validated) and ``JOBDIR`` name:
    Redis when a URL is given, else the JOBDIR file (at most ``max_bytes`` of records)
    when there is a JOBDIR, else none."""
    if setting != "memory":
        return RedisStore(setting)
    if jobdir:
        return JobdirStore(Path(jobdir) / JOBDIR_FILE, max_bytes=max_bytes)
    return LocalStore()


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
                "scrapy_rep: the %s robots.txt cache is unavailable (%s); this process "
                "carries on with its own cache and tries again in %.0f s",
                self.store.name,
                error_line(error),
                STORE_RETRY_AFTER,
            )
            return default


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
