"""Requests held until their origin's robots.txt is known (SPEC §4).

Held requests are out of Scrapy's downloader and scheduler, so they take none of the
crawl's concurrency. They are kept per origin in arrival order:

- in memory up to ``REP_MAX_HELD_REQUESTS`` in all; beyond that an origin's further
  requests are spilled to disk, in Scrapy's own FIFO disk queues
  (``scrapy.squeues.PickleFifoDiskQueue``, one per origin, under ``JOBDIR`` or a temporary
  folder), and taken back in order when the origin is released. A request that cannot
  be serialised (a callback that is not a spider method) stays in memory: a request is
  never dropped because memory is bounded;
- when the spider closes: with ``JOBDIR`` they are saved for the next run; with
  scrapy-redis and ``SCHEDULER_PERSIST`` they go back to the shared queue; otherwise
  they are dropped with a WARNING, a stat and a ``request_refused`` signal.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import shutil
import tempfile
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from scrapy.squeues import PickleFifoDiskQueue
from scrapy.utils.job import job_dir
from scrapy.utils.request import request_from_dict

from scrapy_rep import signals as rep_signals

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: File in ``JOBDIR`` holding the held requests across pause/resume.
STATE_FILE: Final = "scrapy_rep.state"
#: Folder in ``JOBDIR`` for requests spilled to disk.
SPILL_DIR: Final = "scrapy_rep.spill"
_STATE_VERSION: Final = 2


class HeldRequests:
    """The held requests of every origin, bounded in memory, spilled to disk beyond."""

    def __init__(self, crawler: Crawler, limit: int) -> None:
        self.crawler = crawler
        self.limit = limit
        self._memory: dict[Hashable, list[Request]] = {}
        self._disk: dict[Hashable, Any] = {}
        self._on_disk: dict[Hashable, int] = {}
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
        """Hold ``request``; ``True`` when it went to disk."""
        spill = self.in_memory >= self.limit or key in self._disk
        if spill and self._spill(key, request):
            return True
        self._memory.setdefault(key, []).append(request)
        self.in_memory += 1
        return False

    def pop(self, key: Hashable) -> Iterator[Request]:
        """The held requests of ``key``, oldest first (memory, then disk), removed."""
        requests = self._memory.pop(key, [])
        self.in_memory -= len(requests)
        yield from requests
        queue = self._disk.pop(key, None)
        if queue is None:
            return
        self._on_disk.pop(key, None)
        try:
            while (request := queue.pop()) is not None:
                yield request
        finally:
            queue.close()

    def _spill(self, key: Hashable, request: Request) -> bool:
        queue = self._disk.get(key)
        try:
            if queue is None:
                queue = cast(Any, PickleFifoDiskQueue).from_crawler(
                    self.crawler, str(self._path(key))
                )
                self._disk[key] = queue
            queue.push(request)
        except ValueError as error:  # not serialisable: it stays in memory
            logger.debug("scrapy_rep: %s cannot be spilled to disk (%s)", request, error)
            return False
        self._on_disk[key] = self._on_disk.get(key, 0) + 1
        return True

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
        """Schedule again the requests a paused crawl kept in ``JOBDIR``; how many."""
        held = load_held(self.crawler, spider)
        for request in held:
            engine.crawl(request.replace(dont_filter=True))
        if held:
            logger.info("scrapy_rep: resumed %d held request(s) from JOBDIR", len(held))
        return len(held)

    def close(self, spider: Spider, reason: str, scheduler: Any) -> None:
        """Keep the held requests (JOBDIR, scrapy-redis) or drop them, saying so."""
        held = {key: list(self.pop(key)) for key in self.origins()}
        everything = [request for requests in held.values() for request in requests]
        if self._spill_root is not None:
            shutil.rmtree(self._spill_root, ignore_errors=True)
        path = state_path(self.crawler)
        if path is not None:
            self._save(path, everything, spider)
        elif everything and not self._return_to_shared_queue(everything, reason, scheduler):
            self._drop(held, reason)

    def _drop(self, held: dict[Hashable, list[Request]], reason: str) -> None:
        count = sum(map(len, held.values()))
        for requests in held.values():
            for request in requests:
                self.crawler.signals.send_catch_log(
                    rep_signals.request_refused,
                    request=request,
                    reason="spider_closed",
                    message=f"Not downloaded: the spider closed ({reason}) while it was held",
                    response=None,
                )
        self._inc("rep/requests/dropped/spider_closed", count)
        logger.warning(
            "scrapy_rep: the spider closed (%s) with %d request(s) held for unreachable "
            "robots.txt (%s); they were not downloaded. Set JOBDIR to keep them.",
            reason,
            count,
            ", ".join(f"{key}: {len(requests)}" for key, requests in held.items()),
        )

    def _return_to_shared_queue(self, held: list[Request], reason: str, scheduler: Any) -> bool:
        """With scrapy-redis's scheduler and ``SCHEDULER_PERSIST``, a worker that stops
        puts its held requests back into the shared queue, for the other workers."""
        queue = getattr(scheduler, "queue", None)
        if (
            scheduler is None
            or type(scheduler).__module__.split(".")[0] != "scrapy_redis"
            or not getattr(scheduler, "persist", False)
            or not hasattr(queue, "push")
        ):
            return False
        returned = 0
        for request in held:
            try:
                queue.push(request.replace(dont_filter=True))  # type: ignore[union-attr]
                returned += 1
            except Exception as error:  # the request is lost: say so
                self._inc("rep/requests/dropped/spider_closed")
                logger.warning("scrapy_rep: cannot return %s to the queue: %s", request, error)
        self._inc("rep/requests/returned_to_queue", returned)
        logger.info(
            "scrapy_rep: the spider closed (%s); %d held request(s) went back to the "
            "shared scrapy-redis queue",
            reason,
            returned,
        )
        return True

    def _save(self, path: Path, held: list[Request], spider: Spider) -> None:
        saved = []
        for request in held:
            try:
                saved.append(request.to_dict(spider=spider))
            except ValueError as error:  # a callback that is not a spider method
                self._inc("rep/requests/dropped/not_serializable")
                logger.warning("scrapy_rep: cannot keep held %s in JOBDIR: %s", request, error)
        temporary = path.with_suffix(".tmp")
        with temporary.open("wb") as file:
            pickle.dump({"version": _STATE_VERSION, "held": saved}, file, pickle.HIGHEST_PROTOCOL)
        temporary.replace(path)
        logger.info("scrapy_rep: kept %d held request(s) in %s", len(saved), path)

    def _inc(self, key: str, count: int = 1) -> None:
        if self.crawler.stats is not None and count:
            self.crawler.stats.inc_value(key, count)


def state_path(crawler: Crawler) -> Path | None:
    directory = job_dir(crawler.settings)
    return Path(directory) / STATE_FILE if directory else None


def load_held(crawler: Crawler, spider: Spider) -> list[Request]:
    """The requests a paused crawl kept in ``JOBDIR`` (none if unreadable, with a warning)."""
    path = state_path(crawler)
    if path is None or not path.exists():
        return []
    try:
        with path.open("rb") as file:
            saved = pickle.load(file)  # our own file in JOBDIR
        if saved.get("version") != _STATE_VERSION:
            raise ValueError(f"unknown version {saved.get('version')!r}")
        return [request_from_dict(data, spider=spider) for data in saved["held"]]
    except Exception as error:  # a damaged file must not stop the crawl
        logger.warning("scrapy_rep: cannot read %s (%s); starting afresh", path, error)
        return []
