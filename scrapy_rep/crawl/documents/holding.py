"""Requests held until their origin's robots.txt is known (SPEC §4).

Held requests are out of Scrapy's downloader and scheduler, so they take none of the
crawl's concurrency. They are kept per origin in arrival order:

- in memory up to ``REP_MAX_HELD_REQUESTS`` in all; beyond that an origin's further
  requests are spilled to disk, in Scrapy's own FIFO disk queues
  (``scrapy.squeues.PickleFifoDiskQueue``, one per origin, under ``JOBDIR`` or a temporary
  folder), and taken back in order when the origin is released. At most
  :data:`MAX_OPEN_QUEUES` of them are open at a time (each holds two files open; a
  broad crawl spills for tens of thousands of origins); the others are closed and
  reopened when used. A request that cannot be serialised (a callback that is not a
  spider method) or written (a full disk, no file handle left) stays in memory: a
  request is never dropped because memory is bounded;
- when the spider closes: with ``JOBDIR`` they are saved for the next run (those in
  memory in ``scrapy_rep.state``, the spilled ones left in their disk queues, which the
  state file names: a pause reads none of them back into memory); with
  scrapy-redis and ``SCHEDULER_PERSIST`` they go back to the shared queue; otherwise
  they are dropped with a WARNING, each by the performer of refusals
  (:func:`scrapy_rep.crawl.refusals.drop_request`: a stat, a DEBUG line and a
  ``request_refused`` signal).

The files a paused crawl keeps in ``JOBDIR`` for its held requests, and the queues around
them, are here too: the state file's name, version and reader (:func:`load_state`; its
writer is :meth:`HeldRequests.close`), the folder of the spilled requests, the requests
Scrapy's scheduler keeps on disk (:func:`on_disk`) and scrapy-redis's shared queue.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import shutil
import tempfile
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from scrapy.squeues import PickleFifoDiskQueue
from scrapy.utils.job import job_dir
from scrapy.utils.request import request_from_dict

from rep_engine.records import Dropped, Reason
from rep_engine.trail.file import replacing
from scrapy_rep.crawl.internals import error_line
from scrapy_rep.crawl.refusals import count_unread, drop_request, scheduled_again
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: File in ``JOBDIR`` holding the held requests across pause/resume.
STATE_FILE: Final = "scrapy_rep.state"
#: Folder in ``JOBDIR`` for requests spilled to disk.
SPILL_DIR: Final = "scrapy_rep.spill"
#: 4: each held request pickled on its own (one that cannot be pickled is the one left
#: out); 3: spilled requests stay in their disk queues, named in the state file (2: all
#: in it). The previous versions still resume.
STATE_VERSION: Final = 4
PROTOCOL: Final = pickle.HIGHEST_PROTOCOL
#: Disk queues kept open at a time (two file handles each), the least recently used
#: closed beyond (at 100,000 origins the process ran out of file handles: docs/decisions.md,
#: 'At most 64 spill queues are open at a time').
MAX_OPEN_QUEUES: Final = 64


class HeldRequests:
    """The held requests of every origin, bounded in memory, spilled to disk beyond."""

    def __init__(self, crawler: Crawler, limit: int) -> None:
        self.crawler = crawler
        self.limit = limit
        self._memory: dict[Hashable, list[Request]] = {}
        #: The open disk queues, least recently used first (at most MAX_OPEN_QUEUES).
        self._open: OrderedDict[Hashable, Any] = OrderedDict()
        #: How many requests each origin has on disk (its queue open or not).
        self._on_disk: dict[Hashable, int] = {}
        self._spill_failed = False
        self.in_memory = 0
        self._spill_root: Path | None = None

    def __len__(self) -> int:
        return self.in_memory + sum(self._on_disk.values())

    def __contains__(self, key: Hashable) -> bool:
        return key in self._memory or key in self._on_disk

    def origins(self) -> list[Hashable]:
        return list(dict.fromkeys([*self._memory, *self._on_disk]))

    def count(self, key: Hashable) -> int:
        return len(self._memory.get(key, ())) + self._on_disk.get(key, 0)

    def add(self, key: Hashable, request: Request) -> bool:
        """Hold ``request``; ``True`` when it went to disk. Never fails: a request that
        cannot go to disk is kept in memory."""
        spill = self.in_memory >= self.limit or key in self._on_disk
        if spill and self._spill(key, request):
            return True
        self._memory.setdefault(key, []).append(request)
        self.in_memory += 1
        return False

    def pop(self, key: Hashable) -> Iterator[Request]:
        """The held requests of ``key``, oldest first (memory, then disk), removed. If its
        disk queue cannot be opened now, those stay on disk (held, counted, and taken
        back at the next release, or kept by a pause)."""
        requests = self._memory.pop(key, [])
        self.in_memory -= len(requests)
        yield from requests
        if key not in self._on_disk:
            return
        try:
            queue = self._queue(key)
        except Exception as error:
            inc(self.crawler.stats, "rep/requests/spill_errors")
            logger.error("scrapy_rep: cannot read the held requests of %s now: %s", key, error)
            return
        del self._open[key]
        self._on_disk.pop(key, None)
        try:
            while (request := queue.pop()) is not None:
                yield request
        finally:
            queue.close()

    def _spill(self, key: Hashable, request: Request) -> bool:
        try:
            self._queue(key).push(request)
        except Exception as error:  # not serialisable, no file handle, disk full: memory
            if isinstance(error, ValueError):  # a callback that is not a spider method
                logger.debug("scrapy_rep: %s cannot be spilled to disk (%s)", request, error)
            else:
                inc(self.crawler.stats, "rep/requests/spill_errors")
                if not self._spill_failed:
                    self._spill_failed = True
                    logger.warning(
                        "scrapy_rep: cannot spill held requests to disk (%s); they are "
                        "kept in memory, beyond REP_MAX_HELD_REQUESTS",
                        error,
                    )
            return False
        self._on_disk[key] = self._on_disk.get(key, 0) + 1
        return True

    def _queue(self, key: Hashable) -> Any:
        """``key``'s disk queue, opened (or reopened where it was left) if it is closed;
        the least recently used one is closed beyond :data:`MAX_OPEN_QUEUES`."""
        queue = self._open.get(key)
        if queue is not None:
            self._open.move_to_end(key)
            return queue
        queue = cast(Any, PickleFifoDiskQueue).from_crawler(self.crawler, str(self._path(key)))
        self._open[key] = queue
        while len(self._open) > MAX_OPEN_QUEUES:
            _, oldest = self._open.popitem(last=False)
            oldest.close()  # its requests stay on disk, in order
        return queue

    def _path(self, key: Hashable) -> Path:
        if self._spill_root is None:
            directory = job_dir(self.crawler.settings)
            root = Path(directory) / SPILL_DIR if directory else None
            if root is None:
                root = Path(tempfile.mkdtemp(prefix="scrapy_rep-held-"))
            shutil.rmtree(root, ignore_errors=True)  # a previous run's leftovers
            root.mkdir(parents=True)
            self._spill_root = root
        return self._spill_root / hashlib.sha1(str(key).encode()).hexdigest()

    # ------------------------------------------------------------------ pause and resume

    def resume(self, spider: Spider, engine: Any) -> int:
        """Schedule again the requests a paused crawl kept in ``JOBDIR``; how many. The
        spilled ones are read one at a time from their disk queues, never all at once."""
        memory, spilled = load_state(self.crawler, spider)
        crawler = self.crawler
        count = sum(scheduled_again(crawler, engine, r.replace(dont_filter=True), "resumed")
                    for r in memory)  # fmt: skip
        root = spill_root(self.crawler)
        for name in spilled:
            if root is None or not (root / name).is_dir():
                continue
            queue = cast(Any, PickleFifoDiskQueue).from_crawler(self.crawler, str(root / name))
            try:
                while (request := queue.pop()) is not None:
                    again = request.replace(dont_filter=True)
                    count += scheduled_again(crawler, engine, again, "resumed")
            finally:
                queue.close()
        if root is not None and spilled:
            shutil.rmtree(root, ignore_errors=True)  # read: this run spills afresh
        if count:
            logger.info("scrapy_rep: resumed %d held request(s) from JOBDIR", count)
        return count

    def close(self, spider: Spider, reason: str, scheduler: Any) -> None:
        """Keep the held requests (JOBDIR, scrapy-redis) or drop them, saying so. None is
        read back into memory from disk to do it (a pause with a million held requests
        costs no more memory than the crawl did)."""
        path = state_path(self.crawler)
        if path is not None:
            self._save(path, spider)
            return
        counts = {key: self.count(key) for key in self.origins()}
        queue = shared_queue(scheduler)
        if queue is not None and counts:
            self._return_to_shared_queue(queue, reason)
        elif counts:
            self._drop(counts, reason)
        if self._spill_root is not None:
            shutil.rmtree(self._spill_root, ignore_errors=True)

    def _drop(self, counts: dict[Hashable, int], reason: str) -> None:
        """Every held request is dropped (by the performer of refusals), and one WARNING
        says how many of each origin; those a disk queue could not give back now (said
        with an ERROR by :meth:`pop`) are dropped with the rest, counted only."""
        message = f"Not downloaded: the spider closed ({reason}) while it was held"
        dropped = 0
        for key in list(counts):
            for request in self.pop(key):
                drop_request(self.crawler, request, Reason.SPIDER_CLOSED, message)
                dropped += 1
        count_unread(self.crawler, Reason.SPIDER_CLOSED, sum(counts.values()) - dropped)
        logger.warning(
            "scrapy_rep: the spider closed (%s) with %d request(s) still held, waiting for "
            "their origin's robots.txt, tdmrep.json or licenses or to be scheduled again "
            "(%s); they were not downloaded. Set JOBDIR to keep them.",
            reason,
            sum(counts.values()),
            ", ".join(f"{key}: {count}" for key, count in counts.items()),
        )

    def _return_to_shared_queue(self, queue: Any, reason: str) -> None:
        """With scrapy-redis's scheduler and ``SCHEDULER_PERSIST``, a worker that stops
        puts its held requests back into the shared queue, for the other workers."""
        returned = 0
        for key in self.origins():
            for request in self.pop(key):
                try:
                    queue.push(request.replace(dont_filter=True))
                    returned += 1
                except Exception as error:  # the request is lost: refused, saying so
                    logger.warning("scrapy_rep: cannot return %s to the queue: %s", request, error)
                    drop_request(
                        self.crawler, request, Reason.SPIDER_CLOSED,
                        f"Not downloaded: the spider closed ({reason}) while it was held, "
                        "and it could not be returned to the shared queue "
                        f"({error_line(error)})",
                    )  # fmt: skip
        if returned:
            inc(self.crawler.stats, "rep/requests/returned_to_queue", returned)
        logger.info(
            "scrapy_rep: the spider closed (%s); %d held request(s) went back to the "
            "shared scrapy-redis queue",
            reason,
            returned,
        )

    def _save(self, path: Path, spider: Spider) -> None:
        """The requests held in memory go into the state file, each pickled on its own; the
        spilled ones stay in their disk queues in ``JOBDIR``, which the state file names.
        A request that cannot be kept (a callback that is not a spider method, something
        in its meta that cannot be pickled: a lock, a socket) is the one dropped, with a
        WARNING, ``rep/requests/dropped/not_serializable`` and ``request_refused``, as
        Scrapy's own ``JOBDIR`` queue cannot keep it either; every other one is kept."""
        saved: list[bytes] = []
        for key in list(self._memory):
            for request in self._memory.pop(key):
                try:
                    saved.append(pickle.dumps(request.to_dict(spider=spider), PROTOCOL))
                except Exception as error:  # ValueError, TypeError, PicklingError…
                    self._not_kept(request, error)
        self.in_memory = 0
        spilled = [self._path(key).name for key in self._on_disk]
        on_disk = sum(self._on_disk.values())
        for queue in self._open.values():
            queue.close()  # its requests stay on disk for the next run
        self._open.clear()
        self._on_disk.clear()
        state = {"version": STATE_VERSION, "held": saved, "spilled": spilled}
        with replacing(path, ".tmp") as file:  # made new: no planted symlink followed
            pickle.dump(state, file, PROTOCOL)
        if saved or on_disk:
            inc(self.crawler.stats, "rep/requests/kept_for_resume", len(saved) + on_disk)
            logger.info(
                "scrapy_rep: %d held request(s) kept in %s for the resume (%d in it, %d in "
                "their disk queues)",
                len(saved) + on_disk, path, len(saved), on_disk,
            )  # fmt: skip

    def _not_kept(self, request: Request, error: Exception) -> None:
        logger.warning(
            "scrapy_rep: cannot keep held %s in JOBDIR (%s); it is dropped, the other "
            "held requests are kept",
            request, error_line(error),
        )  # fmt: skip
        drop_request(
            self.crawler, request, Dropped.NOT_SERIALIZABLE,
            "Not downloaded: the spider closed while it was held, and it cannot be kept in "
            f"JOBDIR ({error_line(error)})",
        )  # fmt: skip


def shared_queue(scheduler: Any) -> Any:
    """scrapy-redis's queue when its scheduler persists (``SCHEDULER_PERSIST``), else None."""
    queue = getattr(scheduler, "queue", None)
    if (
        scheduler is None
        or type(scheduler).__module__.split(".")[0] != "scrapy_redis"
        or not getattr(scheduler, "persist", False)
        or not hasattr(queue, "push")
    ):
        return None
    return queue


def on_disk(scheduler: Any) -> int | None:
    """The requests Scrapy's own scheduler has in its ``JOBDIR`` queue now; None for
    another scheduler, or without ``JOBDIR``. Read by the queue's presence, not by
    ``isinstance``: Scrapy's scheduler metaclass checks methods, not ancestry, so
    scrapy-redis's scheduler is an instance of Scrapy's and has no ``dqs``."""
    queue = getattr(scheduler, "dqs", None)
    try:
        return None if queue is None else len(queue)
    except TypeError:  # a scheduler's own ``dqs`` of another kind: not Scrapy's queue
        return None


def state_path(crawler: Crawler) -> Path | None:
    directory = job_dir(crawler.settings)
    return Path(directory) / STATE_FILE if directory else None


def spill_root(crawler: Crawler) -> Path | None:
    directory = job_dir(crawler.settings)
    return Path(directory) / SPILL_DIR if directory else None


def load_state(crawler: Crawler, spider: Spider) -> tuple[list[Request], list[str]]:
    """What a paused crawl kept in ``JOBDIR``: the requests held in memory, and the names
    of the disk queues (in ``SPILL_DIR``) holding the spilled ones. Nothing if the file is
    unreadable (with a warning); a request that cannot be read back (its callback gone
    from the spider) is the one left out, with a WARNING."""
    path = state_path(crawler)
    if path is None or not path.exists():
        return [], []
    try:
        with path.open("rb") as file:
            saved = pickle.load(file)  # our own file in JOBDIR
        version = saved.get("version")
        if version not in (2, 3, STATE_VERSION):
            raise ValueError(f"unknown version {version!r}")
        spilled = [str(name) for name in saved.get("spilled", ())]
        if any(Path(name).name != name or name in ("", ".", "..") for name in spilled):
            raise ValueError("a spilled queue outside JOBDIR")
        held = list(saved["held"])
    except Exception as error:  # a damaged file must not stop the crawl
        logger.warning("scrapy_rep: cannot read %s (%s); starting afresh", path, error)
        return [], []
    requests = []
    for data in held:
        try:
            requests.append(
                request_from_dict(pickle.loads(data) if version >= 4 else data, spider=spider)
            )
        except Exception as error:
            logger.warning("scrapy_rep: cannot resume a held request from %s: %s", path, error)
            count_unread(crawler, Dropped.NOT_SERIALIZABLE)
    return requests, spilled
