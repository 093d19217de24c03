"""Refusing a request before it is scheduled, when its origin's documents are cached
(docs/decisions.md, 'Early refusal before the scheduler'; docs/behaviour.md, 'Refused before
the scheduler').

A request the spider yields (from a callback or from ``start()``) for a URL that its
origin's cached robots.txt (and, for AI purposes, tdmrep.json) already refuses need not
take the path through the scheduler, the downloader's middleware chain, ``IgnoreRequest``
and the errback. :class:`EarlyRefusal` (used by the spider middleware's output pass)
refuses it there, with the same outcome as the downloader middleware's: the same stats,
log line, ``request_refused`` signal and audit record, because the refusal itself is the
downloader middleware's, run with the entries found here
(:meth:`scrapy_rep.RobotsTxtMiddleware.refusal_if_known`).

What the engine does to a request before the scheduler's queue is done here too, in its
order, so that nothing else changes: ``request_scheduled`` is sent (a handler that raises
``IgnoreRequest``, e.g. Scrapy's offsite filter, drops it, as in the engine), then
Scrapy's scheduler's dupefilter sees it (a duplicate is logged, ``request_dropped`` is
sent, and it is not refused a second time; a new one has its fingerprint remembered).

Everything else goes on as before, unchanged:

- a request whose origin's documents are not cached, or only stale (a refresh may be
  due), or whose robots.txt handlers still run;
- a request with an errback (it is owed the ``IgnoreRequest`` failure);
- a request for ``/robots.txt`` itself, and one with ``dont_obey_robotstxt`` under
  Scrapy's meaning;
- every request, when a spider middleware other than Scrapy's ``StartSpiderMiddleware``
  (whose mark on start requests is set here too) and ``HttpErrorMiddleware`` sees the
  output after ours, or a downloader middleware other than Scrapy's offsite filter has
  a ``process_request`` before ours: they might change or drop the request;
- requests without ``dont_filter``, when the scheduler is not Scrapy's own (its
  dupefilter is not known).

Skipped for an early refusal, by design: Scrapy's ``scheduler/enqueued…``,
``scheduler/dequeued…`` and ``downloader/exception_…`` stats of the request.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.core.scheduler import Scheduler
from scrapy.exceptions import IgnoreRequest
from twisted.python.failure import Failure

from scrapy_rep.crawl.internals import (
    downloader_methods,
    engine_scheduler,
    running_engine,
    spider_middlewares,
)
from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler


logger = logging.getLogger(__name__)

#: Stats key: requests refused before they were scheduled (also counted where the late
#: path counts them: ``robotstxt/forbidden``, ``rep/requests/dropped/…``).
REFUSED_EARLY = "rep/requests/refused_before_scheduling"
#: Downloader middlewares that may run before ours without changing what it would see:
#: Scrapy's offsite filter (it drops at ``request_scheduled``, which is sent here too)
#: and the audit trail's (no ``process_request``).
_BEFORE_OURS_OK = frozenset({"scrapy.downloadermiddlewares.offsite.OffsiteMiddleware"})
#: Spider middlewares that may see the spider's output after ours: Scrapy's
#: ``HttpErrorMiddleware`` (it reads responses only) and ``StartSpiderMiddleware`` (it
#: marks start requests: done here too).
_START = "scrapy.spidermiddlewares.start.StartSpiderMiddleware"
_AFTER_OURS_OK = frozenset({_START, "scrapy.spidermiddlewares.httperror.HttpErrorMiddleware"})


def _name(component: object) -> str:
    return f"{type(component).__module__}.{type(component).__qualname__}"


class EarlyRefusal:
    """The spider middleware's early refusal of the requests the cache already refuses."""

    def __init__(self, crawler: Crawler, page_middleware: object = None) -> None:
        self.crawler = crawler
        #: The spider middleware this works for (its place in the chain matters).
        self._page_middleware = page_middleware
        #: ``RobotsTxtMiddleware.refusal_if_known`` of the crawl, found at spider_opened.
        self._refusal: Callable[[Request], Callable[[], bool] | None] | None = None
        self._dupefilter: Any = None
        #: Scrapy's StartSpiderMiddleware would mark start requests after us.
        self._mark_start = False
        self._stats = crawler.stats
        crawler.signals.connect(self._opened, signal=signals.spider_opened)

    def _opened(self) -> None:
        owner = OWNERS.get(self.crawler)
        engine = running_engine(self.crawler)
        after_ours = []
        for component in spider_middlewares(engine) or ():  # from the engine side
            if component is self._page_middleware:
                break
            after_ours.append(_name(component))
        else:
            return  # not in the crawl's spider middlewares
        if not set(after_ours) <= _AFTER_OURS_OK:
            return  # another middleware sees the requests after ours: they may change
        self._mark_start = _START in after_ours
        for method in downloader_methods(engine, "process_request"):
            component = getattr(method, "__self__", None)
            if component is owner and owner is not None:
                self._refusal = owner.refusal_if_known
                break
            if _name(component) not in _BEFORE_OURS_OK:
                return  # it might change or drop the request: the late path decides
        scheduler = engine_scheduler(engine)
        if getattr(type(scheduler), "enqueue_request", None) is Scheduler.enqueue_request:
            self._dupefilter = getattr(scheduler, "df", None)

    def request(self, request: Request, start: bool = False) -> Request | None:
        """``request`` to pass on, or ``None`` when it was refused (or dropped as the
        engine would have) here; ``start``: it comes from ``start()``. Never raises: a
        bug of ours passes the request on."""
        refusal = self._refusal
        if refusal is None or request.errback is not None:
            return request
        if not request.dont_filter and self._dupefilter is None:
            return request
        try:
            refuse = refusal(request)
        except Exception:  # the late path decides it, and reports its own errors
            logger.debug("scrapy_rep: no early refusal of %s", request, exc_info=True)
            return request
        if refuse is None:
            return request
        if start and self._mark_start:
            request.meta.setdefault("is_start_request", True)
        try:
            if not self._schedule(request):
                return None
            refused = refuse()
        except Exception:  # never lose the request: the late path decides it
            logger.exception("scrapy_rep internal error refusing %s early", request)
            return request.replace(dont_filter=True)  # it may be in the dupefilter now
        if refused:
            if self._stats is not None:
                self._stats.inc_value(REFUSED_EARLY)
            return None
        # Never expected (the same entries decided): it is scheduled already, so the
        # dupefilter must not see it again.
        return request.replace(dont_filter=True)

    def announce(self, request: Request) -> bool:
        """For a request the page pass refuses itself (an image of a ``noimageai`` page):
        what the engine does before the scheduler's queue, so that it is recorded and
        counted like every other request (the audit trail opens its record at
        ``request_scheduled``); whether it got through (else it was dropped as the
        engine would have: a duplicate, an offsite request). Never raises."""
        try:
            return self._schedule(request)
        except Exception:  # the refusal still happens; only its record may be missing
            logger.exception("scrapy_rep internal error announcing %s", request)
            return True

    def _schedule(self, request: Request) -> bool:
        """What the engine does before the scheduler's queue (``_schedule_request``, the
        dupefilter of Scrapy's ``Scheduler.enqueue_request`` when it is the crawl's);
        whether it got through."""
        crawler = self.crawler
        results = crawler.signals.send_catch_log(
            signals.request_scheduled,
            request=request,
            spider=crawler.spider,
            dont_log=IgnoreRequest,
        )
        for _, result in results:
            if isinstance(result, Failure) and isinstance(result.value, IgnoreRequest):
                return False
        dupefilter = self._dupefilter
        if dupefilter is None:  # another scheduler: its own checks are not ours to run
            return True
        if not request.dont_filter and dupefilter.request_seen(request):
            dupefilter.log(request, crawler.spider)
            crawler.signals.send_catch_log(
                signals.request_dropped, request=request, spider=crawler.spider
            )
            return False
        return True
