"""The state of one origin in :mod:`scrapy_rep.lifecycle`: its named phase and what is
under way for it. Pure."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Phase(enum.Enum):
    UNKNOWN = "unknown"
    FETCHING = "fetching"
    FRESH = "fresh"
    STALE = "stale"
    STALE_REFRESHING = "stale-refreshing"
    FAILING = "failing"
    GAVE_UP = "gave-up"


class Step(enum.Enum):
    """What is under way for an origin."""

    LOOKUP = "lookup"
    LEASE = "lease"
    LEASE_WAIT = "lease-wait"
    #: The lease is ours: one more look at the store, for a record another process saved
    #: between our first look and our lease.
    RECHECK = "recheck"
    QUEUED = "queued"
    DOWNLOAD = "download"
    RETRY_WAIT = "retry-wait"


# --------------------------------------------------------------------------- the machine


@dataclass
class OriginState:
    """What is under way for one origin, and its failures since the last success."""

    step: Step | None = None
    failures: int = 0
    failing_since: float | None = None
    #: Seconds the crawler, not the site, made the retries wait since failing began: in
    #: the queue for a download slot, and retry timers that fired late (a busy process).
    queued: float = 0.0
    queued_at: float | None = None
    #: No refresh of a stale copy, and no retry, before this time.
    retry_at: float = 0.0
    last_outcome: str = ""
    leased: bool = False
