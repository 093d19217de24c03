"""What goes in and out of :mod:`rep_engine.fetch.lifecycle`: frozen events and actions.

Events are what happened (a request needs an origin's document, the store answered, a
download ended, a timer fired); actions are what the adapter must do (look up the store,
download, wake up later, release the held requests, count, log). Pure: plain data.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.procedure import Fetched
from rep_engine.fetch.records import SharedRecord

#: What names one copy of the document: an ``Origin`` for robots.txt and tdmrep.json, a
#: URL for a document found by its URL (an RSL license). Any hashable value does.
Key = Hashable


@dataclass(frozen=True)
class _Keyed:
    """An event or an action about one key (its first field)."""

    key: Key


@dataclass(frozen=True)
class RequestSeen(_Keyed):
    """A request for the origin needs its document (fresh, or a refresh starts)."""


@dataclass(frozen=True)
class RecordLoaded(_Keyed):
    """The shared store's record of the origin (``None``: none, corrupt, or store down)."""

    record: SharedRecord | None


@dataclass(frozen=True)
class LeaseAnswered(_Keyed):
    """``True``: this process downloads; ``False``: another one does; ``None``: the store
    is down, download without it."""

    granted: bool | None


@dataclass(frozen=True)
class Downloaded(_Keyed):
    """A download (with its redirects) came to ``fetched``; ``held`` requests wait for it."""

    fetched: Fetched
    held: int = 0


@dataclass(frozen=True)
class DownloadStopped(_Keyed):
    """A download ended as the crawl stopped, with no answer of the site's to act on
    (mostly the stop's own cut): its slot is free, nothing is learned of the key."""


@dataclass(frozen=True)
class TimerFired(_Keyed):
    """The time asked for by :class:`WakeAt` has come."""


@dataclass(frozen=True)
class SlotFreed(_Keyed):
    """A download slot is free for ``key``, which waits in the queue for one. Sent by the
    lifecycle itself when a download ends, never by the adapter."""


@dataclass(frozen=True)
class Announced(_Keyed):
    """Every handler of the signals sent for a newly known document has finished (Scrapy's
    ``robots_parsed`` handlers may be async: the requests wait for them, as in Scrapy)."""


#: What the adapter sends to :meth:`~rep_engine.fetch.lifecycle.machine.Lifecycle.handle`.
Event = (
    RequestSeen | RecordLoaded | LeaseAnswered | Downloaded | DownloadStopped | TimerFired
    | Announced
)  # fmt: skip


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class LoadRecord(_Keyed):
    name: str


@dataclass(frozen=True)
class AcquireLease(_Keyed):
    name: str
    seconds: float


@dataclass(frozen=True)
class ReleaseLease(_Keyed):
    name: str


@dataclass(frozen=True)
class SaveRecord(_Keyed):
    record: SharedRecord
    keep_for: float


@dataclass(frozen=True)
class StartDownload(_Keyed):
    """Download the document (a download slot is taken: answer with :class:`Downloaded`)."""


@dataclass(frozen=True)
class WakeAt(_Keyed):
    """Send :class:`TimerFired` at ``when`` (replacing any earlier wake-up of ``key``)."""

    when: float


@dataclass(frozen=True)
class Release(_Keyed):
    """The held requests of ``key`` go on, decided by ``entry``."""

    entry: CacheEntry[Any]
    failures: int


@dataclass(frozen=True)
class Announce(_Keyed):
    """A download or a shared record came to ``outcome`` (signals, report)."""

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
