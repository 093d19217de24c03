"""The audit trail's record of a request until its fate is final (docs/audit-trail.md):
opened when the request is scheduled (not for a dropped duplicate, nor for a
``dont_filter`` repeat), then its attempts, response status, holds and item refusal as
Scrapy's and scrapy_rep's signals tell them; a redirect is final when the next URL is
scheduled."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy_rep.crawl.auditfile import ATTEMPTS, FETCHED, HELD, ITEM_REASON, STATUS
from scrapy_rep.crawl.auditstate import ID_KEY, AuditState, guarded
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Response


class RequestEvents(AuditState):
    """The signal handlers that open a record and follow it until its fate is final."""

    _new: Request | None
    #: The dupefilter's fingerprints (Scrapy's RFPDupeFilter), known at spider_opened.
    _seen: set[bytes] | None
    _fingerprint: Callable[[Request], bytes]
    #: Responses come from AuditMiddleware, not from ``response_received``.
    _direct: bool

    @guarded
    def _scheduled(self, request: Request, **_: Any) -> None:
        self._new = None
        ref = request.meta.get(ID_KEY)
        if ref is not None:
            if ref[1] == request.url:
                return  # its record goes on: held, released, retried, resumed
            if ref[1] in request.meta.get("redirect_urls", ()):
                self._redirected(ref[0], request)
        fingerprint = self._fingerprint(request)
        if not request.dont_filter and self._seen is not None and fingerprint in self._seen:
            return  # the dupefilter drops it: counted in _dropped (the cheap, usual case)
        key = fingerprint.hex()
        if key in self.open and not request.dont_filter:
            return  # a duplicate of an open record (another dupefilter): dropped too
        if request.dont_filter and self._known(key, fingerprint):
            request.meta.pop(ID_KEY, None)
            self.counts["repeated"] += 1  # asked again with dont_filter: no second record
            return
        self.open[key] = [request.url, 0, None, 0, 0, "", None, "", False, request.dont_filter]
        request.meta[ID_KEY] = (key, request.url)
        self._new = request

    def _known(self, key: str, fingerprint: bytes) -> bool:
        """Whether ``key`` has a record already (open, final, or seen by the dupefilter)."""
        if key in self.open or key in self._unfiltered:
            return True
        return self._seen is not None and fingerprint in self._seen

    def _redirected(self, key: str, request: Request) -> None:
        """Scrapy scheduled the next URL of a redirect: the record of ``key`` is final."""
        state = self.open.get(key)
        if state is not None:
            reasons = request.meta.get("redirect_reasons") or [None]
            state[STATUS] = reasons[-1] if isinstance(reasons[-1], int) else None
            self._final(key, state, "redirected", to=request.url)

    @guarded
    def _dropped(self, request: Request, **_: Any) -> None:
        """Another dupefilter than Scrapy's dropped ``request``: counted, not recorded
        (with Scrapy's, ``_scheduled`` knows a duplicate before it is dropped, and the
        dupefilter counts them: one signal less per duplicate link)."""
        self.counts["duplicates_dropped"] += 1
        inc(self.stats, "rep/audit/duplicates_dropped")
        if request is self._new:
            ref = request.meta.pop(ID_KEY)
            self.open.pop(ref[0], None)
        self._new = None

    @guarded
    def _attempt(self, request: Request, **_: Any) -> None:
        state = self._state(request)
        if state is not None:
            state[ATTEMPTS] += 1
            state[STATUS] = None

    @guarded
    def _received(self, response: Response, request: Request, **_: Any) -> None:
        state = self._state(request)
        if state is not None:
            state[FETCHED] = True
            state[STATUS] = response.status

    def downloaded(self, request: Request, response: Response) -> None:
        """From :class:`scrapy_rep.crawl.trails.AuditMiddleware` when its
        ``process_response`` is the last one (nothing can change the response after it):
        then the trail has no ``response_received`` receiver (see ``_opened``)."""
        if self._direct:
            self._received(response, request)

    @guarded
    def _held(self, request: Request, **_: Any) -> None:
        state = self._state(request)
        if state is not None:
            state[HELD] += 1

    @guarded
    def _item_refused(self, response: Response | None, reason: str, **_: Any) -> None:
        state = self._state(getattr(response, "request", None))
        if state is not None:
            state[ITEM_REASON] = reason
