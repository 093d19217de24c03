"""When a fetched page was decided, and when a replayed page's copy was fetched, held
against what bounds them: its run's start, its request's send, its record's time (pure),
for :mod:`rep_audit.pages` (docs/decisions.md, 'A replayed page is decided when it
is replayed')."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rep_audit.runcontext import PageRun
from rep_engine.records import text


def time_of(value: Any) -> datetime | None:
    """A record's ISO time (``None``: none, or unreadable: then the current time)."""
    try:
        return datetime.fromisoformat(text(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def instant(value: Any) -> float | None:
    """A record's ISO time with its zone as POSIX seconds (``None``: none, unreadable, or
    without its zone)."""
    moment = time_of(value)
    return moment.timestamp() if moment is not None and moment.tzinfo is not None else None


def when_decided(record: dict[str, Any], part: dict[str, Any], run: PageRun) -> list[str]:
    """A page's ``decided`` time held between what bounds it: not before its run started
    nor before its request was sent (``sent_at``), not after its record was written."""
    written = text(part.get("decided"))
    if not written:
        return []
    decided = time_of(written)
    if decided is None or decided.tzinfo is None:
        return [f"its page part's decided time {written!r} is no time"]
    bounds = (("its run started", run.start, False), ("its request was sent",
              text(record.get("sent_at")), False), ("its record was written",
              text(record.get("time")), True))  # fmt: skip
    for what, bound, after in bounds:
        moment = time_of(bound) if bound else None
        if moment is None or moment.tzinfo is None:
            continue
        if (decided > moment) if after else (decided < moment):
            return [f"its page part says it was decided at {written}, "
                    f"{'after' if after else 'before'} {what} ({bound})"]  # fmt: skip
    return []


def when_cached(record: dict[str, Any], part: dict[str, Any]) -> list[str]:
    """A replayed page's ``cached`` time (when its copy was really fetched): ``true``
    (the cache did not say), or a time not after its request was sent, it was decided,
    nor its record was written."""
    written = part.get("cached")
    if written is None or written is True:
        return []
    cached = time_of(written) if isinstance(written, str) else None
    if cached is None or cached.tzinfo is None:
        return [f"its page part's cached time {written!r} is no time"]
    bounds = (("its request was sent", text(record.get("sent_at"))),
              ("it was decided", text(part.get("decided"))),
              ("its record was written", text(record.get("time"))))  # fmt: skip
    for what, bound in bounds:
        moment = time_of(bound) if bound else None
        if moment is not None and moment.tzinfo is not None and cached > moment:
            return [f"its page part says it was replayed from a copy fetched at {written}, "
                    f"after {what} ({bound})"]  # fmt: skip
    return []
