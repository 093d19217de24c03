"""The audit trail's record of a request until its fate is final (docs/audit-trail.md):
opened when the request is scheduled (not for a dropped duplicate; a request sent again
is a record of its own), then its attempts, response status and holds as Scrapy's and
scrapy_rep's signals tell them (its page's items and links: the page's ledger); a
redirect is final when the next URL is scheduled."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy_rep.audit.urlentry import RobotsPart, UrlEntry
from scrapy_rep.audit.waits import Waits
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.audit.auditstate import AuditState, guarded
from scrapy_rep.crawl.ledger import PAGES
from scrapy_rep.crawl.requeststate import (
    any_state,
    decided_for_another,
    moved,
    open_record,
    record_id,
    recorded,
)
from scrapy_rep.crawl.stats import inc
from scrapy_rep.robotstxt.useragent import crawler_name
from scrapy_rep.verdict.fates import Fate

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response


class RequestEvents(AuditState):
    """The signal handlers that open a record and follow it until its fate is final."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self._new: Request | None = None
        #: Whether Scrapy's RFPDupeFilter has seen a fingerprint, known at spider_opened.
        self._seen: Callable[[bytes], bool] | None = None
        #: Whether the scheduler is a queue shared by several workers (scrapy-redis), and
        #: the ids of the open records whose request this worker took from it.
        self._shared = False
        self._taken: set[str] = set()
        #: With a shared queue, the ids of the open records whose request this worker holds
        #: now (not released back to the queue): a pause with JOBDIR keeps them for its resume.
        self._holding: set[str] = set()
        #: Responses come from AuditMiddleware, not from ``response_received``.
        self._direct = False
        self._fingerprint = crawler.request_fingerprinter.fingerprint
        #: ``ROBOTSTXT_OBEY``, and the product token robots.txt groups are matched by.
        self._obey_robots = crawler.settings.getbool("ROBOTSTXT_OBEY")
        self._robots_token = crawler_name(self._declared)
        #: The requests' waits for their origins' documents (the report's origin lines).
        self.waits = Waits()

    def _outgoing(self, request: Request) -> UrlEntry | None:
        """The open record of ``request`` as it is decided or refused: its own, which it
        goes on with until its response comes (held, retried: a retry's copy shares its
        state); else, for a request decided without being scheduled, a new one
        (:meth:`_unscheduled`)."""
        state = open_record(request, self.open)
        if state is not None and not state.fetched:
            return state
        return self._unscheduled(request)

    def _unscheduled(self, request: Request) -> UrlEntry | None:
        """The record of a request decided without being scheduled: one the engine
        downloads for a component (a media pipeline's file, another add-on's download, a
        callback's own fetch), opened when it is decided, final when its response comes
        (``fetched``), when it fails, or at once when it is refused. A redirect's next URL
        ends the record of the one before (``redirected``); a request that had a record of
        its own keeps it. A state that came in a copied meta (a callback's
        ``Request(response.url, meta=response.meta)``) names the record of the request it
        was copied from, whose response came (open until its page's output is through, or
        final), never this one's: a new request, with a record of its own. So is this
        very request object sent again once its own record is final (a poll's
        ``download_async`` of one ``Request`` in a loop): each send is a record, the later
        one naming the earlier in ``again``."""
        ref = any_state(request)
        url_key = self._fingerprint(request).hex()
        earlier = ""
        if ref is not None and ref.audit:
            if not moved(ref, request):
                copied = ref.audit in self.open or decided_for_another(ref, request)
                if not copied and ref.audit.partition("-")[0] == url_key:
                    earlier = ref.audit  # its own record, final already: sent again
                    self.counts["repeated"] += 1
            elif ref.url in request.meta.get("redirect_urls", ()):
                self._redirected(ref.audit, request)
        self.sequence += 1
        key = f"{url_key}-{self.sequence}"
        state = self._open(key, request, earlier, unscheduled=True)
        recorded(request, key)
        return state

    def _scheduled(self, request: Request, **_: Any) -> None:
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            self._new = None
            ref = any_state(request)
            if ref is not None and ref.audit:
                state = self.open.get(ref.audit)
                if state is not None and not state.fetched and not moved(ref, request):
                    self._taken.discard(ref.audit)  # back in a shared queue: for any worker
                    self._holding.discard(ref.audit)
                    return  # its record goes on: held, released, retried, resumed
                # The meta of a request whose response came (its record final, or open until
                # its page's output is through) on a request sent again (a spider's
                # meta=response.meta): a new request, with a record of its own.
                if ref.url in request.meta.get("redirect_urls", ()):
                    self._redirected(ref.audit, request)
            fingerprint = self._fingerprint(request)
            seen = self._seen is not None and self._seen(fingerprint)
            if seen and not request.dont_filter:
                return  # the dupefilter drops it: counted by the dupefilter (the usual case)
            # Every request sent has a record of its own: its id is the URL key (the request
            # fingerprint) and the request's number in the crawl. A URL asked again (a start
            # request, dont_filter, that a page links back to) is a second record, with
            # ``again``: the id of the earlier one, when the trail knows it.
            url_key = fingerprint.hex()
            self.sequence += 1
            key = f"{url_key}-{self.sequence}"
            earlier = self._unfiltered.get(url_key, "")
            if earlier or seen:
                self.counts["repeated"] += 1
            if request.dont_filter:
                self._unfiltered[url_key] = key
            self._open(key, request, earlier)
            recorded(request, key)
            self._new = request
        except Exception:
            self.internal_error("_scheduled")

    def _share_records(self, scheduler: Any) -> None:
        """With scrapy-redis's scheduler, workers share one queue: a request's record is
        kept by the worker that takes the request from the queue, not by the one that
        put it there (its record would stay open there, and end ``unfinished``)."""
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
        """This worker took ``request`` from the shared queue: its record is this
        worker's now. An open record of its id that waits in the queue goes on (a request
        this worker queued, or released, or kept in ``JOBDIR``); else it is opened under
        the id it was queued with when that id is new to this worker's trail. Each worker
        numbers its requests on its own, so the id may be one this worker gave another
        request of the URL (a ``dont_filter`` start request, a callback's own fetch): one
        another request holds now, or whose number this worker has reached, is not taken
        (a second final record of that id, or one record for two downloads): the request
        is opened under the next number of this worker's own (docs/audit-trail.md,
        "Several workers"). Its ``attempts`` count those of a retry's copies that other
        workers sent (Scrapy's ``retry_times``)."""
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
        # A retry another worker sent: the downloads it tried are counted by Scrapy with
        # the request (``retry_times``), and are this record's attempts too.
        retried = request.meta.get("retry_times", 0)
        entry = self.open[key]
        if type(retried) is int and retried > entry.attempts:
            entry.attempts = retried

    def _final(
        self, key: str, entry: UrlEntry, fate: Fate, added: dict[str, Any], cause: object = None
    ) -> None:
        """As :meth:`AuditState._final`; with a shared queue, ``key`` is no longer this
        worker's take nor its hold (kept only while the record is open: memory)."""
        if self._shared:
            self._taken.discard(key)
            self._holding.discard(key)
        super()._final(key, entry, fate, added, cause)

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
        """A record opened under ``key`` for ``request``, taken from the shared queue: as
        for a request this worker schedules, it names in ``again`` the latest record of
        its URL that this worker sent with ``dont_filter`` (``repeated``). A request taken
        is not remembered for the next one: it may be a copy of one request sent on by
        another worker (a retry, a release, both with ``dont_filter``), which another
        copy would name as a URL sent again."""
        earlier = self._unfiltered.get(key.partition("-")[0], "")
        if earlier:
            self.counts["repeated"] += 1
        self._open(key, request, earlier)

    def _open(
        self, key: str, request: Request, earlier: str = "", unscheduled: bool = False
    ) -> UrlEntry:
        """A new open record of ``request`` under ``key`` (``earlier``: the id of the earlier
        record of the same URL, for ``again``; ``unscheduled``: decided without being
        scheduled)."""
        obeyed = self._obey_robots and not request.meta.get(meta.DONT_OBEY_ROBOTSTXT)
        robots = None if obeyed else self._not_obeyed(request)  # no call for the usual one
        entry = self.open[key] = UrlEntry(
            request.url, robots=robots, earlier=earlier, unscheduled=unscheduled
        )
        return entry

    def _not_obeyed(self, request: Request) -> RobotsPart | None:
        """The robots part of a request whose robots.txt Allow/Disallow is not obeyed
        (``ROBOTSTXT_OBEY = False``, ``dont_obey_robotstxt``), else ``None``: the robots.txt
        middleware then names the snapshot whose opt-outs it obeyed, if it read one."""
        if request.meta.get(meta.DONT_OBEY_ROBOTSTXT):
            why = "dont_obey_robotstxt: robots.txt Allow/Disallow not obeyed"
        elif not self._obey_robots:
            why = "ROBOTSTXT_OBEY is False: robots.txt Allow/Disallow not obeyed"
        else:
            return None
        return RobotsPart("", self._robots_token, None, None, why, obeyed=False)

    def _redirected(self, key: str, request: Request) -> None:
        """Scrapy scheduled the next URL of a redirect: the record of ``key`` is final."""
        state = self.open.get(key)
        if state is not None:
            reasons = request.meta.get("redirect_reasons") or [None]
            state.status = reasons[-1] if isinstance(reasons[-1], int) else None
            self._final(key, state, Fate.REDIRECTED, {"to": request.url})

    @guarded
    def _dropped(self, request: Request, **_: Any) -> None:
        """Another dupefilter than Scrapy's dropped ``request``: counted, not recorded
        (with Scrapy's, ``_scheduled`` knows a duplicate before it is dropped, and the
        dupefilter counts them: one signal less per duplicate link)."""
        self.counts["duplicates_dropped"] += 1
        inc(self.stats, "rep/audit/duplicates_dropped")
        if request is self._new:
            key = record_id(request)
            recorded(request, "")  # no record
            self.open.pop(key, None)
            url_key = key.partition("-")[0]
            if self._unfiltered.get(url_key) == key:
                del self._unfiltered[url_key]
        self._new = None

    def _attempt(self, request: Request, **_: Any) -> None:
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            state = open_record(request, self.open)
            # a record whose response came is not this request's: its state came in a copied
            # meta (a callback's own fetch of its page), and it was not decided (none of its
            # own: not obeyed)
            if state is not None and not state.fetched:
                state.attempts += 1
                state.status = None
        except Exception:
            self.internal_error("_attempt")

    def _received(self, response: Response, request: Request, **_: Any) -> None:
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            state = open_record(request, self.open)
            if state is None:
                self._apart(request, response)
            elif not state.fetched:  # not a copied meta's (_attempt)
                state.fetched = True
                state.status = response.status
                if state.unscheduled:  # no page pass to wait for: a page read as it arrived
                    pages = PAGES.get(self.crawler)
                    page = None if pages is None else pages.get(response)
                    key = record_id(request)
                    self._final(key, state, Fate.FETCHED, self.page_said(state, request, page))
        except Exception:
            self.internal_error("_received")

    def _apart(self, request: Request, response: Response) -> None:
        """A download no entry follows (neither a document's nor a request's: a file an
        item pipeline fetched without a verdict, no request of the crawl): told to the
        readers, never written (the trail's ``file`` records say what became of it)."""
        if meta.ROBOTS_REQUEST in request.meta or record_id(request):
            return
        for reader in self.readers:
            reader.downloaded_apart(request.url, response.status)

    def downloaded(self, request: Request, response: Response) -> None:
        """From :class:`scrapy_rep.crawl.auditing.AuditMiddleware` when its
        ``process_response`` is the last one (nothing can change the response after it):
        then the trail has no ``response_received`` receiver (see ``_opened``)."""
        if self._direct:
            self._received(response, request)

    def _held(self, request: Request, origin: str = "", **_: Any) -> None:
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            self.waits.held(request, origin)
            state = open_record(request, self.open)
            if state is not None:
                state.held += 1
                if self._shared:  # released, it goes back to the shared queue; still held
                    # when the spider closes, it is returned to it (or, with JOBDIR, kept for
                    # this worker's resume): either way, no longer this worker's take
                    self._taken.discard(record_id(request))
                    self._holding.add(record_id(request))
        except Exception:
            self.internal_error("_held")
