"""The files a paused crawl keeps in ``JOBDIR`` for its held requests, and the queues
around them: the state file's name, version and reader (:func:`load_state`; its writer
is :meth:`scrapy_rep.crawl.documents.holding.HeldRequests.close`), the folder of the
spilled requests, the requests Scrapy's scheduler keeps on disk (:func:`on_disk`) and
scrapy-redis's shared queue. :mod:`scrapy_rep.crawl.documents.holding` re-exports these
names."""

from __future__ import annotations

import logging
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from scrapy.utils.job import job_dir
from scrapy.utils.request import request_from_dict

from rep_engine.records import Dropped
from scrapy_rep.crawl.refusals import count_unread

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

#: The holding's logger, as before the state file's reader was a module of its own.
logger = logging.getLogger("scrapy_rep.crawl.documents.holding")

#: File in ``JOBDIR`` holding the held requests across pause/resume.
STATE_FILE: Final = "scrapy_rep.state"
#: Folder in ``JOBDIR`` for requests spilled to disk.
SPILL_DIR: Final = "scrapy_rep.spill"
#: 4: each held request pickled on its own (one that cannot be pickled is the one left
#: out); 3: spilled requests stay in their disk queues, named in the state file (2: all
#: in it). The previous versions still resume.
STATE_VERSION: Final = 4
PROTOCOL: Final = pickle.HIGHEST_PROTOCOL


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
