"""The audit trail (``REP_AUDIT_FILE``): one ``url`` record per requested URL, with its
final fate and what decided it, written as the crawl goes (schema: docs/audit-trail.md;
lines: :mod:`scrapy_rep.trail.records`; file, chain and snapshots:
:mod:`scrapy_rep.trail.file`).

A URL is *requested* when the spider (or a start request) asked for it and the
dupefilter let it through; a dropped duplicate is counted, never recorded. Its record is
keyed by the request fingerprint (``id``), which survives retries, holding, redirects'
bookkeeping and ``JOBDIR`` pause/resume. A request carries only ``(id, url)`` in its meta;
the record's state waits in :attr:`AuditTrail.open` until its fate is final:

- refused by scrapy_rep: when it is refused (``request_refused``);
- fetched: when the spider's output for its page has gone through scrapy_rep's spider
  middleware (:meth:`AuditTrail.page_done`);
- redirected by Scrapy: when the next URL is scheduled (``to``);
- failed: when the exception leaves the outermost downloader middleware
  (:class:`scrapy_rep.crawl.trails.AuditMiddleware`), after every retry;
- unfinished: when the spider closes first (with ``JOBDIR`` and a paused crawl, the open
  records are kept in ``JOBDIR`` for the resumed run instead).
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.job import job_dir

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.auditfile import (
    ATTEMPTS,
    DONT_FILTER,
    FETCHED,
    HELD,
    ITEM_REASON,
    NOFOLLOW,
    ROBOTS,
    STATUS,
    TDM,
    URL,
    AuditWriter,
    resume,
    save_state,
)
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.stats import inc
from scrapy_rep.crawl.trails import TRAILS
from scrapy_rep.crawl.usagegate import before_of
from scrapy_rep.robotstxt.useragent import product_token
from scrapy_rep.trail import records as lines
from scrapy_rep.usage.policy import NOTHING_BEFORE

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from scrapy_rep.fetch.cache import CacheEntry
    from scrapy_rep.robotstxt import Decision
    from scrapy_rep.usage.policy import Refusal
    from scrapy_rep.usage.purpose import UsageDecision

logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., None])

#: ``request.meta`` key: ``(id, url)`` of the request's record (:data:`meta.AUDIT_ID`).
ID_KEY: Final = meta.AUDIT_ID


def _guarded(method: F) -> F:
    """A bug of ours while keeping the trail never reaches Scrapy (it would cost a page)."""

    @functools.wraps(method)
    def guarded(self: AuditTrail, *args: Any, **kwargs: Any) -> None:
        try:
            method(self, *args, **kwargs)
        except Exception:
            self.internal_error(method.__name__)

    return cast("F", guarded)


class AuditTrail:
    """Writes ``REP_AUDIT_FILE`` from the crawl's signals."""

    def __init__(self, crawler: Crawler) -> None:
        config = config_of(crawler)
        if not config.audit_file:
            raise NotConfigured  # no message: Scrapy would log it as a WARNING
        self.crawler = crawler
        self.config = config
        self.path = Path(config.audit_file)
        self.stats = crawler.stats
        self.run = uuid.uuid4().hex
        self.jobdir = job_dir(crawler.settings)
        #: Open records: id -> state (see ``URL``… above).
        self.open: dict[str, list[Any]] = {}
        #: Ids of final records of ``dont_filter`` requests (the only ones the dupefilter
        #: does not remember), so that a repeat is not a second record.
        self._unfiltered: set[str] = set()
        self._new: Request | None = None
        #: The dupefilter's fingerprints (Scrapy's RFPDupeFilter), known at spider_opened.
        self._seen: set[bytes] | None = None
        self.counts: Counter[str] = Counter()
        self._tokens: dict[str, str] = {}
        #: RSL license URL -> the snapshot of its latest copy a request was decided with.
        self._licenses: dict[str, str] = {}
        self._errors_logged = False
        self.resumes = resume(self.jobdir, self.open, self._unfiltered)
        self.writer = AuditWriter(crawler, config, self.run)
        self._emit = self.writer.emit
        self._fingerprint = crawler.request_fingerprinter.fingerprint
        self._connect(crawler)
        TRAILS[crawler] = self

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _connect(self, crawler: Crawler) -> None:
        connect = crawler.signals.connect
        connect(self._opened, signal=signals.spider_opened)
        connect(self._scheduled, signal=signals.request_scheduled)
        connect(self._attempt, signal=signals.request_reached_downloader)
        connect(self._received, signal=signals.response_received)
        connect(self._held, signal=rep_signals.request_held)
        connect(self._refused, signal=rep_signals.request_refused)
        connect(self._item_refused, signal=rep_signals.item_refused)
        connect(self._file_checked, signal=rep_signals.file_checked)

    # ------------------------------------------------------------------ the requests

    def _state(self, request: Request | None) -> list[Any] | None:
        ref = request.meta.get(ID_KEY) if request is not None else None
        if ref is None or ref[1] != request.url:  # type: ignore[union-attr]
            return None
        return self.open.get(ref[0])

    @_guarded
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

    @_guarded
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

    @_guarded
    def _attempt(self, request: Request, **_: Any) -> None:
        state = self._state(request)
        if state is not None:
            state[ATTEMPTS] += 1
            state[STATUS] = None

    @_guarded
    def _received(self, response: Response, request: Request, **_: Any) -> None:
        state = self._state(request)
        if state is not None:
            state[FETCHED] = True
            state[STATUS] = response.status

    @_guarded
    def _held(self, request: Request, **_: Any) -> None:
        state = self._state(request)
        if state is not None:
            state[HELD] += 1

    @_guarded
    def _item_refused(self, response: Response | None, reason: str, **_: Any) -> None:
        state = self._state(getattr(response, "request", None))
        if state is not None:
            state[ITEM_REASON] = reason

    # ------------------------------------------------------------------ decisions

    def robots_decided(
        self, request: Request, origin: str, entry: CacheEntry[Any], agent: str, decision: Decision
    ) -> None:
        """robots.txt decided ``request`` for ``agent`` (from :mod:`scrapy_rep.crawl`)."""
        try:
            state = self._state(request)
            if state is None:
                return
            sha = self.writer.snapshot("robots.txt", f"{origin}/robots.txt", entry)
            token = self._tokens.get(agent)
            if token is None:  # the name robots.txt groups are matched by, not the whole UA
                token = self._tokens[agent] = product_token(agent) or agent
            why = f"robots.txt {entry.outcome}" if entry.unreachable else decision.reason
            state[ROBOTS] = (sha, token, decision.line, decision.line_text, why)
        except Exception:
            self.internal_error("robots_decided")

    def document_used(self, request: Request, origin: str, entry: CacheEntry[Any]) -> None:
        """The origin's tdmrep.json was checked for ``request``."""
        try:
            state = self._state(request)
            if state is not None:
                url = f"{origin}/.well-known/tdmrep.json"
                state[TDM] = self.writer.snapshot("tdmrep.json", url, entry)
        except Exception:
            self.internal_error("document_used")

    def license_used(self, license_url: str, entry: CacheEntry[Any]) -> None:
        """An RSL license (robots.txt ``License:``) was checked for a request: its body
        is kept, and the signals it gave name it (``usage.signals[].snapshot``)."""
        try:
            self._licenses[license_url] = self.writer.snapshot("rsl", license_url, entry)
        except Exception:
            self.internal_error("license_used")

    # ------------------------------------------------------------------ final fates

    def _redirected(self, key: str, request: Request) -> None:
        state = self.open.get(key)
        if state is not None:
            reasons = request.meta.get("redirect_reasons") or [None]
            state[STATUS] = reasons[-1] if isinstance(reasons[-1], int) else None
            self._final(key, state, "redirected", to=request.url)

    @_guarded
    def _refused(
        self,
        request: Request,
        reason: str,
        message: str,
        response: Response | None = None,
        **_: Any,
    ) -> None:
        if reason in ("nofollow", "rel_nofollow"):  # a link, never requested: counted
            self.counts["not_followed"] += 1
            page = self._state(getattr(response, "request", None))
            if page is not None:
                page[NOFOLLOW] += 1
            return
        ref = request.meta.get(ID_KEY)
        state = self._state(request)
        if state is None or ref is None:
            return
        before = before_of(request)
        extra: dict[str, Any] = {"refused_by": lines.REFUSED_BY.get(reason, reason), "why": message}
        if before is not NOTHING_BEFORE:
            extra["usage"] = lines.usage_part(
                before.decision(), _sha(state), state[TDM], self._licenses
            )
        self._final(ref[0], state, "refused", **extra)

    @_guarded
    def page_done(self, response: Response, kept: int, dropped: int) -> None:
        """scrapy_rep's spider middleware passed on the spider's whole output for a page:
        ``kept`` and ``dropped`` items. Called directly (a signal costs more per page)."""
        request = response.request
        state = self._state(request)
        if state is None or request is None:
            return
        extra: dict[str, Any] = {"items_kept": kept, "items_dropped": dropped}
        if state[ITEM_REASON]:
            extra["item_reason"] = state[ITEM_REASON]
        if state[NOFOLLOW]:
            extra["links_not_followed"] = state[NOFOLLOW]
        decision = response.meta.get(meta.USAGE)
        if decision is None:
            before = before_of(request)
            decision = before.decision() if before is not NOTHING_BEFORE else None
        if decision is not None and decision.signals:
            extra["usage"] = lines.usage_part(decision, _sha(state), state[TDM], self._licenses)
        state[STATUS] = response.status
        self._final(request.meta[ID_KEY][0], state, "fetched", **extra)

    @_guarded
    @_guarded
    def _file_checked(
        self, url: str, decision: UsageDecision, reading: Any, refusal: Refusal | None, **_: Any
    ) -> None:
        """A file the media pipelines downloaded, held against the crawl's purposes."""
        if refusal is None:
            fate = "stored"
        else:
            fate = "marked" if self.config.purpose_action == "mark" else "refused"
        record = lines.file_line(self.run, url, fate, decision, reading.to_dict())
        if refusal is not None:
            record["refused_for"] = refusal.purpose
            record["why"] = refusal.message
        self.counts["files"] += 1
        self._emit(record)

    def failed(self, request: Request, exception: BaseException) -> None:
        """No response after every retry (:class:`scrapy_rep.crawl.trails.AuditMiddleware`)."""
        state = self._state(request)
        if state is None or state[FETCHED]:
            return
        why = f"{type(exception).__name__}: {exception}".rstrip(": ")
        self._final(request.meta[ID_KEY][0], state, "failed", why=why)

    def _final(self, key: str, state: list[Any], fate: str, **extra: Any) -> None:
        """Write the record of ``key`` with its final ``fate``; it is no longer open."""
        del self.open[key]
        if state[DONT_FILTER]:
            self._unfiltered.add(key)
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
        if state[HELD]:
            record["held"] = state[HELD]
        robots = state[ROBOTS]
        if robots is not None:
            record["robots"] = lines.robots_part(*robots)
        self.counts[fate] += 1
        self._emit(record)

    # ------------------------------------------------------------------ open and close

    @_guarded
    def _opened(self, spider: Any = None, **_: Any) -> None:
        # Connected now, after every component: the robots.txt middleware refuses the
        # requests it still holds in its own spider_closed handler, before ours runs.
        self.crawler.signals.connect(self._closed, signal=signals.spider_closed)
        engine = getattr(self.crawler, "_engine", None)
        scheduler = getattr(getattr(engine, "_slot", None), "scheduler", None)
        # RFPDupeFilter's own set (its public ``fingerprints`` is deprecated: a copy).
        seen = getattr(getattr(scheduler, "df", None), "_fingerprints", None)
        self._seen = seen if isinstance(seen, set) else None
        if self._seen is None:  # another dupefilter: its drops undo the records opened
            self.crawler.signals.connect(self._dropped, signal=signals.request_dropped)
        spider_name = getattr(spider, "name", "") or ""
        settings = self.crawler.settings
        self._emit(
            lines.run_line(self.run, self.config, settings, spider_name, self.resumes, self.jobdir)
        )

    @_guarded
    def _closed(self, spider: Any = None, reason: str = "", **_: Any) -> None:
        paused = bool(self.jobdir) and reason != "finished"
        why = f"the crawl ended ({reason}) before its fate was known"
        for key, state in list(self.open.items()):
            if state[FETCHED]:
                self._final(key, state, "fetched", why="its page's output was not seen")
            elif not paused:
                self._final(key, state, "unfinished", why=why)
        if self._seen is not None and self.stats is not None:  # RFPDupeFilter counted them
            dropped = int(self.stats.get_value("dupefilter/filtered", 0))
            self.counts["duplicates_dropped"] = dropped
            self.stats.set_value("rep/audit/duplicates_dropped", dropped)
        kept = {"run": self.run, "open": self.open, "final_unfiltered": [*self._unfiltered]}
        save_state(self.jobdir, kept if paused else None)
        if paused:
            self.counts["open"] = len(self.open)
        self._emit(lines.end_line(self.run, reason, dict(self.counts)))
        written = self.writer.close()
        if written:
            logger.info(
                "scrapy_rep: %d audit line(s) in %s", written, self.path, extra={"spider": spider}
            )

    def internal_error(self, where: str) -> None:
        inc(self.stats, "rep/audit/errors")
        if not self._errors_logged:
            self._errors_logged = True
            logger.exception("scrapy_rep internal error in the audit trail (%s)", where)


def _sha(state: list[Any]) -> str:
    robots = state[ROBOTS]
    return robots[0] if robots else ""
