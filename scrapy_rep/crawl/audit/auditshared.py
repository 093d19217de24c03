"""The opening of a request's record in the audit trail (docs/audit-trail.md, "url
records"), and the records of the requests a worker takes from a queue several workers
share (scrapy-redis; docs/audit-trail.md, "Several workers"): a request's record is
kept by the worker that takes it, under the id it was queued with or, when that id may
be one this worker gave another request of the URL, under a number of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rep_engine.records import RobotsPart, UrlEntry
from rep_engine.robotstxt.useragent import crawler_name
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.audit.auditstate import AuditState, guarded
from scrapy_rep.crawl.requeststate import record_id, recorded

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler


class SharedQueue(AuditState):
    """A record opened for a request, and those of the requests a shared queue hands over."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        #: ``ROBOTSTXT_OBEY``, and the product token robots.txt groups are matched by.
        self._obey_robots = crawler.settings.getbool("ROBOTSTXT_OBEY")
        self._robots_token = crawler_name(self._declared)

    def _share_records(self, scheduler: Any) -> None:
        """With scrapy-redis's scheduler, workers share one queue: a request's record is
        kept by the worker that takes it from the queue, not by the one that put it there
        (its record would stay open there, and end ``unfinished``)."""
        if type(scheduler).__module__.split(".")[0] != "scrapy_redis":
            return
        take = getattr(scheduler, "next_request", None)
        if take is None:
            return
        self._shared = True

        def next_request() -> Request | None:
            request = take()
            if request is not None:
                self._took(request)
            return request  # type: ignore[no-any-return]

        scheduler.next_request = next_request

    @guarded
    def _took(self, request: Request) -> None:
        """This worker took ``request`` from the shared queue: its record is this worker's now. An
        open record of its id that waits in the queue goes on (a request this worker queued,
        released or kept in ``JOBDIR``); else it is opened under that id
        when new to this worker's trail, or, when another request holds it or this worker's
        numbers reached it (a ``dont_filter`` start request, a callback's own fetch), under its
        next number (docs/audit-trail.md, "Several workers"), never two final records of one id
        nor one record for two downloads."""
        key = record_id(request)
        if not key:
            return
        state = self.open.get(key)
        if state is None:
            number = key.rpartition("-")[2]
            if not number.isdigit() or int(number) <= self.sequence:
                key = self._renumbered(key, request)
            else:  # past every number of the trail: its later numbers go past it
                self.sequence = int(number)
                self._open_taken(key, request)
        elif key in self._taken or key in self._holding or state.fetched or state.unscheduled:
            key = self._renumbered(key, request)
        self._taken.add(key)
        self._holding.discard(key)
        # a retry another worker sent: its downloads tried are this record's attempts too
        retried = request.meta.get("retry_times", 0)
        entry = self.open[key]
        if type(retried) is int and retried > entry.attempts:
            entry.attempts = retried

    def _renumbered(self, key: str, request: Request) -> str:
        """``request``, taken from the shared queue under ``key``, which this worker may
        have given another request of its URL: opened under the next number of its own."""
        self.sequence += 1
        key = f"{key.partition('-')[0]}-{self.sequence}"
        self._open_taken(key, request)
        recorded(request, key)
        self.counts["renumbered"] += 1
        return key

    def _open_taken(self, key: str, request: Request) -> None:
        """A record opened under ``key`` for ``request``, taken from the shared queue: it names in
        ``again`` the latest record of its URL this worker sent with ``dont_filter``, unless that
        record waits in the queue (the request taken is that one, sent on by another worker). A
        request taken is not remembered for the next (it may be a retry's or a release's copy)."""
        earlier = self._unfiltered.get(key.partition("-")[0], "")
        waiting = self.open.get(earlier)
        here = earlier in self._taken or earlier in self._holding
        if waiting is not None and not waiting.fetched and not here:
            earlier = ""
        if earlier:
            self.counts["repeated"] += 1
        self._open(key, request, earlier)

    def _open(
        self, key: str, request: Request, earlier: str = "", unscheduled: bool = False
    ) -> UrlEntry:
        """A new open record of ``request`` under ``key`` (``earlier``: the one ``again`` names)."""
        obeyed = self._obey_robots and not request.meta.get(meta.DONT_OBEY_ROBOTSTXT)
        robots = None if obeyed else self._not_obeyed(request)  # no call for the usual one
        entry = UrlEntry(request.url, robots=robots, earlier=earlier, unscheduled=unscheduled)
        self.open[key] = entry
        return entry

    def _not_obeyed(self, request: Request) -> RobotsPart | None:
        """The robots part of a request whose robots.txt Allow/Disallow is not obeyed
        (``ROBOTSTXT_OBEY = False``, ``dont_obey_robotstxt``), else ``None`` (the robots.txt
        middleware then names the snapshot whose opt-outs it obeyed, if it read one)."""
        if request.meta.get(meta.DONT_OBEY_ROBOTSTXT):
            why = "dont_obey_robotstxt: robots.txt Allow/Disallow not obeyed"
        elif not self._obey_robots:
            why = "ROBOTSTXT_OBEY is False: robots.txt Allow/Disallow not obeyed"
        else:
            return None
        return RobotsPart("", self._robots_token, None, None, why, obeyed=False)
