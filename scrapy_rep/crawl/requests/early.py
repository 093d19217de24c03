"""Refusing a request before it is scheduled, when its origin's documents are cached
(docs/decisions.md, 'Early refusal before the scheduler'; docs/behaviour.md, 'Refused before
the scheduler').

A request the spider yields (from a callback or from ``start()``) for a URL that its
origin's cached robots.txt (and, for AI purposes, tdmrep.json) already refuses need not
take the path through the scheduler, the downloader's middleware chain, ``IgnoreRequest``
and the errback. :class:`EarlyRefusal` (used by the spider middleware's output pass)
refuses it there, with the same outcome as the downloader middleware's: the same stats,
log line, ``request_refused`` signal and audit record, because the refusal itself is the
downloader middleware's, decided with the entries found here
(:meth:`scrapy_rep.RobotsTxtMiddleware.refusal_if_known`) and performed by its performer.

Scrapy's two filters before the scheduler's queue are asked first, in the engine's order,
and nothing is sent on Scrapy's behalf: a request Scrapy's offsite filter would drop (its
``should_follow``, ``dont_filter`` and ``allow_offsite``, the checks its own
``process_request`` makes), or one the scheduler's dupefilter has seen, is passed on as it
is, for the engine to drop as it drops any (its log line, its stats, ``request_dropped``);
a new one has its fingerprint remembered by the dupefilter, and is refused. A project's
``request_scheduled`` handler does not see a request refused here, as it sees none a
spider middleware drops.

Everything else goes on as before, unchanged:

- a request whose origin's documents are not cached, or only stale (a refresh may be
  due), or whose robots.txt handlers still run;
- a request with an errback (it is owed the ``IgnoreRequest`` failure);
- a request for ``/robots.txt`` itself, and one with ``dont_obey_robotstxt`` under
  Scrapy's meaning;
- every request, when a spider middleware other than Scrapy's ``StartSpiderMiddleware``
  (whose mark on start requests is set here too) and ``HttpErrorMiddleware`` sees the
  output after ours, or a downloader middleware other than Scrapy's offsite filter has
  a ``process_request`` before ours (they might change or drop the request), or the
  offsite filter is a subclass of Scrapy's (it may filter otherwise);
- requests without ``dont_filter``, when the scheduler is not Scrapy's own (its
  dupefilter is not known).

Skipped for an early refusal, by design: Scrapy's ``scheduler/enqueued…``,
``scheduler/dequeued…`` and ``downloader/exception_…`` stats of the request.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.core.scheduler import Scheduler
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware

from scrapy_rep.crawl.internals import (
    downloader_methods,
    engine_scheduler,
    offsite_middleware,
    running_engine,
    spider_middlewares,
)
from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

    from scrapy_rep.crawl.requests.downloadermiddlewares import RobotsTxtMiddleware


logger = logging.getLogger(__name__)

#: Stats key: requests refused before they were scheduled (also counted where the late
#: path counts them: ``robotstxt/forbidden``, ``rep/requests/dropped/…``).
REFUSED_EARLY = "rep/requests/refused_before_scheduling"
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
        #: The crawl's robots.txt middleware, when requests may be refused here (found at
        #: spider_opened); Scrapy's offsite filter and the scheduler's dupefilter, if known.
        self._owner: RobotsTxtMiddleware | None = None
        self._offsite: OffsiteMiddleware | None = None
        self._dupefilter: Any = None
        #: Scrapy's StartSpiderMiddleware would mark start requests after us.
        self._mark_start = False
        self._stats = crawler.stats
        crawler.signals.connect(self._opened, signal=signals.spider_opened)

    def _opened(self, spider: Spider) -> None:
        self._spider = spider
        owner = OWNERS.get(self.crawler)
        engine = running_engine(self.crawler)
        self._offsite = offsite = offsite_middleware(engine)
        scheduler = engine_scheduler(engine)
        if getattr(type(scheduler), "enqueue_request", None) is Scheduler.enqueue_request:
            self._dupefilter = getattr(scheduler, "df", None)
        after_ours = []
        for component in spider_middlewares(engine) or ():  # from the engine side
            if component is self._page_middleware:
                break
            after_ours.append(_name(component))
        else:
            return  # not in the crawl's spider middlewares
        if not set(after_ours) <= _AFTER_OURS_OK:
            return  # another middleware sees the requests after ours: they may change
        if offsite is not None and type(offsite) is not OffsiteMiddleware:
            return  # its should_follow may not be its whole answer
        self._mark_start = _START in after_ours
        for method in downloader_methods(engine, "process_request"):
            component = getattr(method, "__self__", None)
            if component is owner and owner is not None:
                self._owner = owner
                break
            if component is not offsite:
                return  # it might change or drop the request: the late path decides

    def request(self, request: Request, start: bool = False) -> Request | None:
        """``request`` to pass on, or ``None`` when it was refused here; ``start``: it comes
        from ``start()``. Never raises: a bug of ours passes the request on."""
        owner = self._owner
        if owner is None or request.errback is not None:
            return request
        if not request.dont_filter and self._dupefilter is None:
            return request
        try:
            refusal = owner.refusal_if_known(request)
        except Exception:  # the late path decides it, and reports its own errors
            logger.debug("scrapy_rep: no early refusal of %s", request, exc_info=True)
            return request
        if refusal is None or not self.admitted(request):
            return request  # the engine drops one Scrapy's filters drop, as it drops any
        if start and self._mark_start:
            request.meta.setdefault("is_start_request", True)
        try:
            owner.perform.refused(request, *refusal, admitted=True)
        except Exception:  # never lose the request: the late path decides it
            logger.exception("scrapy_rep internal error refusing %s early", request)
            return request.replace(dont_filter=True)  # in the dupefilter now
        if self._stats is not None:  # inline: no call more per refusal
            self._stats.inc_value(REFUSED_EARLY)
        return None

    def admitted(self, request: Request) -> bool:
        """Whether Scrapy's filters before the scheduler's queue let ``request`` through:
        its offsite filter, then the scheduler's dupefilter (which remembers a new one), for
        a request refused before the scheduler (here, or an image of a ``noimageai`` page:
        the page pass's). ``False``: passed on, the engine drops it as it drops any. Never
        raises: a filter's error admits it (it is refused, recorded)."""
        try:
            offsite = self._offsite
            if not (
                offsite is None
                or request.dont_filter
                or request.meta.get("allow_offsite")
                or offsite.should_follow(request, self._spider)
            ):
                return False
            dupefilter = self._dupefilter
            return dupefilter is None or request.dont_filter or not dupefilter.request_seen(request)
        except Exception:
            logger.exception("scrapy_rep internal error filtering %s", request)
            return True
