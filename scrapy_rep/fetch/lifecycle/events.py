"""What goes in and out of :mod:`scrapy_rep.fetch.lifecycle`: frozen events and actions.

Events are what happened (a request needs an origin's document, the store answered, a
download ended, a timer fired); actions are what the adapter must do (look up the store,
download, wake up later, release the held requests, count, log). Pure: plain data.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.fetch.procedure import Fetched
from scrapy_rep.fetch.records import SharedRecord

#: What names one copy of the document: an ``Origin`` for robots.txt and tdmrep.json, a
#: URL for a document found by its URL (an RSL license). Any hashable value does.
Key = Hashable


@dataclass(frozen=True)
class RequestSeen:
    """A request for the origin needs its document (fresh, or a refresh starts)."""

    key: Key


@dataclass(frozen=True)
class RecordLoaded:
    """The shared store's record of the origin (``None``: none, corrupt, or store down)."""

    key: Key
    record: SharedRecord | None


@dataclass(frozen=True)
class LeaseAnswered:
    """``True``: this process downloads; ``False``: another one does; ``None``: the store
    is down, download without it."""

    key: Key
    granted: bool | None


@dataclass(frozen=True)
class Downloaded:
    """A download (with its redirects) came to ``fetched``; ``held`` requests wait for it."""

    key: Key
    fetched: Fetched
    held: int = 0


@dataclass(frozen=True)
class DownloadStopped:
    """A download ended as the crawl stopped, with no answer of the site's to act on
    (mostly the stop's own cut): its slot is free, nothing is learned of the key."""

    key: Key


@dataclass(frozen=True)
class TimerFired:
    """The time asked for by :class:`WakeAt` has come."""

    key: Key


@dataclass(frozen=True)
class SlotFreed:
    """A download slot is free for ``key``, which waits in the queue for one. Sent by the
    lifecycle itself when a download ends, never by the adapter."""

    key: Key


#: What the adapter sends to :meth:`~scrapy_rep.fetch.lifecycle.Lifecycle.handle`.
@dataclass(frozen=True)
class Announced:
    """Every handler of the signals sent for a newly known document has finished (Scrapy's
    ``robots_parsed`` handlers may be async: the requests wait for them, as in Scrapy)."""

    key: Key


Event = (
    RequestSeen | RecordLoaded | LeaseAnswered | Downloaded | DownloadStopped | TimerFired
    | Announced
)  # fmt: skip


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class LoadRecord:
    key: Key
    name: str


@dataclass(frozen=True)
class AcquireLease:
    key: Key
    name: str
    seconds: float


@dataclass(frozen=True)
class ReleaseLease:
    key: Key
    name: str


@dataclass(frozen=True)
class SaveRecord:
    key: Key
    record: SharedRecord
    keep_for: float


@dataclass(frozen=True)
class StartDownload:
    """Download the document (a download slot is taken: answer with :class:`Downloaded`)."""

    key: Key


@dataclass(frozen=True)
class WakeAt:
    """Send :class:`TimerFired` at ``when`` (replacing any earlier wake-up of ``key``)."""

    key: Key
    when: float


@dataclass(frozen=True)
class Release:
    """The held requests of ``key`` go on, decided by ``entry``."""

    key: Key
    entry: CacheEntry[Any]
    failures: int


@dataclass(frozen=True)
class Announce:
    """A download or a shared record came to ``outcome`` (signals, report)."""

    key: Key
    rules: Any
    outcome: str
    status: int | None
    #: The document is known now (not a failure): Scrapy's ``robots_parsed`` too.
    known: bool


@dataclass(frozen=True)
class Stat:
    name: str
    count: int = 1


@dataclass(frozen=True)
class Log:
    level: int
    message: str
    args: tuple[Any, ...] = ()


Action = (
    LoadRecord | AcquireLease | ReleaseLease | SaveRecord | StartDownload | WakeAt | Release
    | Announce | Stat | Log
)  # fmt: skip
