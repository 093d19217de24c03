"""The audit trail's record of a request until its fate is final (docs/audit-trail.md):
opened when the request is scheduled (not for a dropped duplicate), then its attempts,
response status and holds as Scrapy's and scrapy_rep's signals tell them; a redirect is
final when the next URL is scheduled."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest

from rep_engine.records import Fate, UrlEntry
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.audit.auditshared import SharedQueue
from scrapy_rep.crawl.audit.auditstate import guarded
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
from scrapy_rep.crawl.waits import Waits

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)


class RequestEvents(SharedQueue):
    """The signal handlers that open a record and follow it until its fate is final."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self._new: Request | None = None
        #: Whether Scrapy's RFPDupeFilter has seen a fingerprint, known at spider_opened.
        self._seen: Callable[[bytes], bool] | None = None
        #: Scrapy's offsite filter's ``request_scheduled`` handler, run by :meth:`_scheduled`
        #: (:func:`~scrapy_rep.crawl.internals.offsite_filter`), known at spider_opened.
        self._offsite: Callable[..., None] | None = None
        #: Responses come from AuditMiddleware, not from ``response_received``.
        self._direct = False
        self._fingerprint = crawler.request_fingerprinter.fingerprint
        #: The requests' waits for their origins' documents (the report's origin lines).
        self.waits = Waits()

    def _outgoing(self, request: Request) -> UrlEntry | None:
        """The open record of ``request`` as it is decided or refused: its own until its
        response comes (a retry's copy shares it); else a new one (:meth:`_unscheduled`)."""
        state = open_record(request, self.open)
        if state is not None and not state.fetched:
            return state
        return self._unscheduled(request)

    def _unscheduled(self, request: Request) -> UrlEntry | None:
        """The record of a request decided without being scheduled (a media pipeline's file,
        another add-on's download, a callback's own fetch): opened when it is decided, final
        when its response comes, when it fails, or when it is refused; a redirect's next URL
        ends the one before (a request that had a record of its own keeps it). A copied meta
        (``meta=response.meta``), or a request object sent again once its own record is final
        (a poll's ``download_async`` of one ``Request`` in a loop; naming it in ``again``),
        gets a new one."""
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

    def _scheduled(self, request: Request, spider: Any = None, **_: Any) -> None:
        offsite = self._offsite
        if offsite is not None:  # Scrapy's offsite filter first: its answer decides
            try:
                offsite(request, spider)
            except IgnoreRequest:
                self._offsite_dropped(request)
                raise  # dropped by the engine, as the filter's own handler had it
            except Exception:  # its bug: logged as Scrapy logs a handler's; the request goes on
                logger.exception("Error caught on signal handler: %s", offsite)
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            self._new = None
            ref = any_state(request)
            if ref is not None and ref.audit:
                state = self.open.get(ref.audit)
                if state is not None and not state.fetched and not moved(ref, request):
                    self._taken.discard(ref.audit)  # back in a shared queue: for any worker
                    self._holding.discard(ref.audit)
                    return  # its record goes on: held, released, retried, resumed
                # the meta of a request whose response came, copied on a new request
                if ref.url in request.meta.get("redirect_urls", ()):
                    self._redirected(ref.audit, request)
            fingerprint = self._fingerprint(request)
            seen = self._seen is not None and self._seen(fingerprint)
            if seen and not request.dont_filter:
                return  # the dupefilter drops it: counted by the dupefilter (the usual case)
            # a URL asked again (dont_filter): a second record, ``again`` naming the earlier
            # one when the trail knows it
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

    @guarded
    def _offsite_dropped(self, request: Request) -> None:
        """Scrapy's offsite filter dropped ``request`` (a link or a redirect to a host
        outside the spider's ``allowed_domains``) before it was queued: counted
        (``offsite_dropped``), never recorded nor held, as a dropped duplicate is
        (docs/audit-trail.md, "What a record is"); the URL that redirected to it is final."""
        self.counts["offsite_dropped"] += 1
        ref = any_state(request)
        if ref is not None and ref.audit and ref.url in request.meta.get("redirect_urls", ()):
            self._redirected(ref.audit, request)

    def _redirected(self, key: str, request: Request) -> None:
        """Scrapy scheduled the next URL of a redirect: the record of ``key`` is final."""
        state = self.open.get(key)
        if state is not None:
            reasons = request.meta.get("redirect_reasons") or [None]
            state.status = reasons[-1] if isinstance(reasons[-1], int) else None
            self._final(key, state, Fate.REDIRECTED, {"to": request.url})

    @guarded
    def _dropped(self, request: Request, **_: Any) -> None:
        """A dupefilter other than Scrapy's own ``RFPDupeFilter`` (another class, or a
        subclass whose ``request_seen`` may answer otherwise) dropped ``request``: counted,
        not recorded; its own answer decides (with Scrapy's, ``_scheduled`` knows a
        duplicate before it is dropped: one signal less per duplicate link)."""
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
            # a record whose response came is not this request's (a copied meta: a
            # callback's own fetch of its page)
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
        """A download no entry follows (a file an item pipeline fetched without a verdict):
        told to the readers, never written (the trail's ``file`` records say what became of it)."""
        if meta.ROBOTS_REQUEST in request.meta or record_id(request):
            return
        for reader in self.readers:
            reader.downloaded_apart(request.url, response.status)

    def downloaded(self, request: Request, response: Response) -> None:
        """From :class:`~scrapy_rep.crawl.auditing.AuditMiddleware` when its ``process_response``
        is the last one (nothing can change the response after it; the trail then has no
        ``response_received`` receiver: ``_opened``)."""
        if self._direct:
            self._received(response, request)

    def _held(self, request: Request, origin: str = "", **_: Any) -> None:
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            self.waits.held(request, origin)
            state = open_record(request, self.open)
            if state is not None:
                state.held += 1
                if self._shared:  # released or at the close, back to the shared queue (or
                    # kept in JOBDIR for this worker's resume): no longer this worker's take
                    self._taken.discard(record_id(request))
                    self._holding.add(record_id(request))
        except Exception:
            self.internal_error("_held")
