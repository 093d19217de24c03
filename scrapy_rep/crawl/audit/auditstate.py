"""The audit trail's open records and how one becomes final (docs/audit-trail.md, "url
records"): the state :class:`scrapy_rep.crawl.audit.audit.AuditTrail` keeps per requested URL
(a list indexed by :mod:`scrapy_rep.crawl.audit.auditfile`'s ``URL``…), found from the id in
the request's state, and the ``url`` line written when its fate is final."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from scrapy_rep.audit import lines
from scrapy_rep.crawl.audit.auditfile import (
    ATTEMPTS,
    EARLIER,
    EXPIRES,
    HELD,
    LICENSES,
    ROBOTS,
    SENT,
    SENT_AT,
    STATUS,
    TDM,
    URL,
    AuditWriter,
)
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from collections import Counter

    from scrapy.statscollectors import StatsCollector

    from scrapy_rep.settings import RepConfig

logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., None])

#: At most this many links not followed are named in a page's record (``not_followed``;
#: ``links_not_followed`` counts them all), so that ``audit show`` finds the page of one.
NOT_FOLLOWED_KEPT: Final = 20


def guarded(method: F) -> F:
    """A bug of ours while keeping the trail never reaches Scrapy (it would cost a page)."""

    @functools.wraps(method)
    def guarded(self: AuditState, *args: Any, **kwargs: Any) -> None:
        try:
            method(self, *args, **kwargs)
        except Exception:
            self.internal_error(method.__name__)

    return cast("F", guarded)


class AuditState:
    """The open records of one run, and the writing of a final one."""

    config: RepConfig
    stats: StatsCollector | None
    run: str
    writer: AuditWriter
    _emit: Callable[[dict[str, Any]], None]
    #: Open records: id -> state (see ``URL``… in :mod:`scrapy_rep.crawl.audit.auditfile`).
    open: dict[str, list[Any]]
    #: URL key (request fingerprint) -> the id of the latest record of a ``dont_filter``
    #: request (the only ones the dupefilter does not remember), so that the next
    #: request of that URL names it (``again``).
    _unfiltered: dict[str, str]
    counts: Counter[str]
    _errors_logged: bool
    #: The open records of requests decided without being scheduled (a media pipeline's):
    #: final when their response comes.
    _unscheduled_keys: set[str]

    def _final(self, key: str, state: list[Any], fate: str, **extra: Any) -> None:
        """Write the record of ``key`` with its final ``fate``; it is no longer open."""
        del self.open[key]
        self._unscheduled_keys.discard(key)
        record: dict[str, Any] = {
            "type": "url",
            "run": self.run,
            "time": lines.iso_time(),
            "id": key,
            "url": state[URL],
            "fate": fate,
            "attempts": state[ATTEMPTS],
            "status": state[STATUS],
        }
        record.update(extra)
        if state[EARLIER]:
            record["again"] = state[EARLIER]
        if state[HELD]:
            record["held"] = state[HELD]
        robots = state[ROBOTS]
        if robots is not None:
            record["robots"] = lines.robots_part(*robots)
        if state[TDM] is not None:
            record["tdmrep"] = state[TDM]
        licenses = state[LICENSES]
        if licenses:
            record["rsl"] = licenses
        if state[SENT]:
            record["sent"] = state[SENT]
        if state[SENT_AT] is not None:
            record["sent_at"] = lines.iso_time(state[SENT_AT])
            if state[EXPIRES] is not None:
                record["expires"] = lines.iso_time(state[EXPIRES])
        self.counts[fate] += 1
        self._emit(record)

    def internal_error(self, where: str) -> None:
        """Counted (``rep/audit/errors``); the first one logged with its traceback."""
        inc(self.stats, "rep/audit/errors")
        if not self._errors_logged:
            self._errors_logged = True
            logger.exception("scrapy_rep internal error in the audit trail (%s)", where)


def robots_sha(state: list[Any]) -> str:
    """The snapshot of the robots.txt that decided the record (``""``: none)."""
    robots = state[ROBOTS]
    return robots[0] if robots else ""
