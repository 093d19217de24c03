"""The crawl's URL ledger and its audit trail (``REP_AUDIT_FILE``): one ``url`` record per
requested URL, with its final fate and what decided it, written as the crawl goes (schema:
docs/audit-trail.md; lines: :mod:`rep_engine.trail.lines`; file, chain and snapshots:
:mod:`rep_engine.trail.file`; the parts of a record: :mod:`~scrapy_rep.crawl.audit.recordparts`).

A URL is *requested* when the spider (or a start request) asked for it and the
dupefilter let it through; a dropped duplicate is counted, never recorded, and so is a
request Scrapy's offsite filter drops. Its record's ``id`` is the request fingerprint (the
URL key) and the request's number in the crawl: one record per request sent, which
survives retries, holding, redirects and ``JOBDIR`` pause/resume. A request carries only
``(id, url)`` in its meta; its entry waits in :attr:`AuditTrail.open` until its fate is
final: refused, fetched, redirected, failed, or unfinished when the spider closes first (a
paused crawl keeps its open entries in ``JOBDIR``) or the process exits without closing it
(:func:`_at_exit`).

One class, :class:`AuditTrail`, keeps it: every event that changes an entry is one method
(a signal's receiver, or a call from the part that decides:
:class:`~scrapy_rep.crawl.auditing.LedgerCalls`), and what each event does in each phase of
an entry is one row of :data:`~scrapy_rep.crawl.auditing.TRANSITIONS` (h11's ``_state.py``):
an event an entry's phase ignores is a row that says so. With scrapy-redis's shared queue,
a request's record is kept by the worker that takes it, under the id it was queued with or,
when that id may be one this worker gave another request of the URL, under a number of its
own (docs/audit-trail.md, "Several workers").
"""

from __future__ import annotations

import atexit
import functools
import logging
import math
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.job import job_dir

from rep_engine.directives import product_token
from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.records import (
    NOT_OBEYED,
    PAYMENT_REQUIRED_STATUS,
    REFUSED_BY,
    RESPONSE_FATES,
    STATE_VERSION,
    EndReason,
    Fate,
    FileFate,
    FileOutcome,
    PageOutput,
    Reason,
    RobotsPart,
    UrlEntry,
    response_fate,
)
from rep_engine.robotstxt.useragent import crawler_name
from rep_engine.settings.readers import robots_agent
from rep_engine.trail import lines
from rep_engine.trail.read import tail_of
from rep_engine.urls.origins import origin_of
from rep_engine.verdict.decide import Allowed, Obey, Refused
from rep_engine.verdict.policy import NOTHING_BEFORE
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.audit.auditfile import AuditWriter, Paused, resume, save_state
from scrapy_rep.crawl.audit.recordparts import documents_named, not_obeyed, page_said, robots_sha
from scrapy_rep.crawl.auditing import (
    GOES_ON,
    IGNORE,
    LEDGERS,
    TRANSITIONS,
    URL_READERS,
    AuditMiddleware,
    Event,
    Phase,
    Refusal,
    Settled,
    Waits,
)
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.internals import (
    downloader_methods,
    dropped_response,
    engine_scheduler,
    error_line,
    in_downloader,
    offsite_filter,
    running_engine,
    seen_fingerprints,
)
from scrapy_rep.crawl.pages import PAGES
from scrapy_rep.crawl.payment import payment_of
from scrapy_rep.crawl.requests.downloadermiddlewares import NOT_HAD, OWNERS
from scrapy_rep.crawl.requeststate import (
    any_state,
    before_of,
    decided_for_another,
    moved,
    open_record,
    record_id,
    recorded,
    sent_state,
)
from scrapy_rep.crawl.stats import inc
from scrapy_rep.crawl.webbotauth import signed_by

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.usage.purpose import UsageDecision
    from rep_engine.verdict.decide import RequestFacts
    from scrapy_rep.crawl.auditing import UrlReader
    from scrapy_rep.crawl.pages import Page

__all__ = ["AuditTrail", "url_ledger"]

logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., None])

#: The trails opened and not yet closed, ended by :func:`_at_exit` if the process exits.
_UNCLOSED: set[AuditTrail] = set()


@atexit.register
def _at_exit() -> None:
    """End every run the process leaves without closing its spider: its open records
    written ``unfinished`` (or ``fetched``), its end line with the reason
    :attr:`~rep_engine.records.EndReason.SHUTDOWN_FORCED` (a second Ctrl-C, or the reactor
    stopped otherwise; not
    kept for a resume: Scrapy's own ``JOBDIR`` state is not saved by it either), so that the
    trail stays whole and the next crawl chains onto an ended run."""
    for trail in list(_UNCLOSED):
        logger.warning(
            "scrapy_rep: the crawl stopped without closing its spider (a second Ctrl-C?); "
            "its %d open record(s) are written unfinished and its run ended (%s) in %s",
            len(trail.open), EndReason.SHUTDOWN_FORCED, trail.path,
        )  # fmt: skip
        trail._closed(reason=EndReason.SHUTDOWN_FORCED)


def guarded(method: F) -> F:
    """A bug of ours while keeping the trail never reaches Scrapy (it would cost a page)."""

    @functools.wraps(method)
    def guarded(self: AuditTrail, *args: Any, **kwargs: Any) -> None:
        try:
            method(self, *args, **kwargs)
        except Exception:
            self.internal_error(method.__name__)

    return cast("F", guarded)


_NONE, _OPEN, _FETCHED = Phase.NONE, Phase.OPEN, Phase.FETCHED


def _phase(entry: UrlEntry | None) -> Phase:
    """The phase of a request's entry (``None``: no open entry); written inline on the
    hot path (a call each would cost)."""
    return _NONE if entry is None else _FETCHED if entry.fetched else _OPEN


class AuditTrail:
    """The crawl's one ledger of each requested URL's fate (the extension
    ``scrapy_rep.AuditTrail``, on when the audit trail or the report reads it), settled once
    per request: the trail's ``url`` lines, read by every
    :class:`~scrapy_rep.crawl.auditing.UrlReader`."""

    #: The request :meth:`_scheduled` opened a record for last (a dupefilter's drop undoes
    #: it); known when the spider opens: whether Scrapy's RFPDupeFilter has seen a
    #: fingerprint, Scrapy's offsite filter's ``request_scheduled`` handler, and whether
    #: responses come from AuditMiddleware, not from ``response_received``.
    _new: Request | None = None
    _seen: Callable[[bytes], bool] | None = None
    _offsite: Callable[..., None] | None = None
    _direct = False

    def __init__(self, crawler: Crawler) -> None:
        config = config_of(crawler)
        self.crawler = crawler
        self.config = config
        #: Whether it writes the audit trail (``REP_AUDIT_FILE``); without it, its entries
        #: name the document versions they were decided with, and no file is written.
        self.trail = bool(config.audit_file)
        self.path = Path(config.audit_file)
        self.stats: StatsCollector | None = crawler.stats
        self.run = uuid.uuid4().hex
        self.jobdir = job_dir(crawler.settings)
        #: Open records: id -> entry.
        self.open: dict[str, UrlEntry] = {}
        #: URL key -> the id of the latest record of a ``dont_filter`` request (the only
        #: ones the dupefilter does not remember), for the next one's ``again``.
        self._unfiltered: dict[str, str] = {}
        #: Its end line's counts (requests dropped or renumbered, items passed on, links not
        #: followed...), and what it settled (the fates, the items kept and dropped).
        self.counts: Counter[str] = Counter()
        self.settled = Settled()
        #: Open record id -> its page's items that reached the end of the crawl so far
        #: (``item_scraped``), until its page's output is through (or its errback's, for a
        #: failed download: those of :attr:`failing`).
        self.scraped: dict[str, int] = {}
        #: The open records of requests failed or refused in the downloader whose errback
        #: runs, their fate known: final once the scraper is through with the failure
        #: (:meth:`failure_scraped`), with the items the errback yielded, when the page pass
        #: tells it (:attr:`failures_told`).
        self.failing: set[str] = set()
        self.failures_told = False
        #: Who reads each settled entry besides the trail (the report, the tools).
        self.readers: list[UrlReader] = URL_READERS.setdefault(crawler, [])
        #: The crawler's declared User-Agent (``ROBOTSTXT_USER_AGENT``, else ``USER_AGENT``),
        #: ``ROBOTSTXT_OBEY``, the product token robots.txt groups are matched by, and that
        #: of each agent name recorded.
        self._declared = robots_agent(crawler.settings)
        self._obey_robots = crawler.settings.getbool("ROBOTSTXT_OBEY")
        self._robots_token = crawler_name(self._declared)
        self._tokens: dict[str, str] = {}
        self._errors_logged = False
        #: Whether workers share the scheduler's queue (:meth:`_share_records`); the ids of
        #: the open records this worker took from it, and holds (a pause with JOBDIR keeps
        #: those for its resume); and of those counted ``left_in_queue`` by this crawl (a
        #: paused run's, which its resumed run carries on: counted once); and those opened
        #: for a request another worker queued (its queuer counts it left, or takes it back:
        #: never this worker, whatever it puts back in the queue).
        self._shared = False
        self._taken: set[str] = set()
        self._holding: set[str] = set()
        self._left: set[str] = set()
        self._others: set[str] = set()
        self._fingerprint = crawler.request_fingerprinter.fingerprint
        #: The requests' waits for their origins' documents (the report's origin lines).
        self.waits = Waits()
        #: The paused run this one resumes, and the latest request number (resumes go on).
        self.resumes: Paused | None
        self.resumes, self.sequence = resume(
            self.jobdir, self.open, self._unfiltered, self._left, self._others
        )
        self._connect(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not config_of(crawler).ledger:
            raise NotConfigured  # no message: Scrapy would log it as a WARNING
        return cast("Self", url_ledger(crawler))

    def _connect(self, crawler: Crawler) -> None:
        """The trail's writer, and the ledger told of every event of the crawl."""
        self.writer = self._writer(crawler)
        self._emit = self.writer.emit
        LEDGERS[crawler] = self
        connect = crawler.signals.connect
        connect(self._opened, signal=signals.spider_opened)
        connect(self._scheduled, signal=signals.request_scheduled)
        connect(self.attempted, signal=signals.request_reached_downloader)
        connect(self._held, signal=rep_signals.request_held)
        connect(self.waits.released, signal=rep_signals.request_released)
        connect(self._file_checked, signal=rep_signals.file_checked)
        connect(self._item_scraped, signal=signals.item_scraped)  # a page's item kept

    def _writer(self, crawler: Crawler) -> AuditWriter:
        """The writer of the trail's lines (none is written without ``REP_AUDIT_FILE``);
        with a trail, its ids go on from its last request."""
        writer = AuditWriter(crawler, self.config, self.run, written=self.trail)
        if writer.file is not None:  # read under its lock: ids are the trail's alone
            tail = tail_of(self.path)
            self.sequence = max(self.sequence, tail.last_request)
            if tail.open_run:
                logger.warning(
                    "scrapy_rep: the audit trail %s ends in run %s, which has no end line "
                    "(its crawl was killed): `audit verify` reports it, and this crawl's run "
                    "follows it; give REP_AUDIT_FILE a new file for a trail that verifies "
                    "clean, and keep this one as it is",
                    self.path, tail.open_run[:8],
                )  # fmt: skip
        return writer

    # ------------------------------------------------------------------ opening a record

    def _open(
        self, key: str, request: Request, earlier: str = "", unscheduled: bool = False
    ) -> UrlEntry:
        """A new open record of ``request`` under ``key`` (``earlier``: the one ``again`` names)."""
        robots = None
        if not self._obey_robots or request.meta.get(meta.DONT_OBEY_ROBOTSTXT):  # no call else
            why = NOT_OBEYED[not_obeyed(request, self._obey_robots)]
            robots = RobotsPart("", self._robots_token, None, None, why, obeyed=False)
        entry = UrlEntry(request.url, robots=robots, earlier=earlier, unscheduled=unscheduled)
        self.open[key] = entry
        return entry

    def _scheduled(
        self, request: Request, spider: Any = None, early: bool = False, **_: Any
    ) -> str:
        """Event ``SCHEDULED`` (``request_scheduled``): a record opened, unless the request's own
        goes on or a filter drops it (Scrapy's offsite filter's answer first); its id (``""``:
        none). ``early``: refused before the scheduler (:meth:`refused`), past both filters
        already, and going nowhere after (its state is not told the record)."""
        offsite = None if early else self._offsite
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
                entry = self.open.get(ref.audit)
                phase = _NONE if entry is None else _FETCHED if entry.fetched else _OPEN
                if TRANSITIONS[phase, Event.SCHEDULED] is GOES_ON and not moved(ref, request):
                    self._taken.discard(ref.audit)  # back in a shared queue: for any worker
                    self._holding.discard(ref.audit)
                    return ref.audit  # its record goes on: held, released, retried, resumed
                # the meta of a request whose response came, copied on a new request
                if ref.url in request.meta.get("redirect_urls", ()):
                    self._redirected(ref.audit, request)
            fingerprint = self._fingerprint(request)
            # early: the early pass's dupefilter has just remembered it, unless dont_filter
            known = self._seen if request.dont_filter or not early else None
            seen = known is not None and known(fingerprint)
            if seen and not request.dont_filter:
                return ""  # the dupefilter drops it: counted by the dupefilter (the usual case)
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
            if self._obey_robots and not request.meta.get(meta.DONT_OBEY_ROBOTSTXT):
                self.open[key] = UrlEntry(request.url, earlier=earlier)  # _open's usual case
            else:
                self._open(key, request, earlier)
            if not early:
                recorded(request, key)
                self._new = request
            return key
        except Exception:
            self.internal_error("_scheduled")
            return ""

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

    @guarded
    def _dropped(self, request: Request, **_: Any) -> None:
        """Event ``DROPPED`` (``request_dropped``): a dupefilter other than Scrapy's own
        ``RFPDupeFilter`` (another class, or a subclass whose ``request_seen`` may answer
        otherwise) dropped ``request``: counted, not recorded; its own answer decides (with
        Scrapy's, :meth:`_scheduled` knows a duplicate before it is dropped: one signal less
        per duplicate link). The record just opened for it is undone."""
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

    def _unscheduled(self, request: Request) -> tuple[str, UrlEntry]:
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
        entry = self._open(key, request, earlier, unscheduled=True)
        recorded(request, key)
        return key, entry

    # ------------------------------------------------------- a shared queue (scrapy-redis)

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
        """Event ``TAKEN``: this worker took ``request`` from the shared queue: its record is
        this worker's now. An open record of its id that waits in the queue goes on (a request
        this worker queued, released or kept in ``JOBDIR``); else it is opened under that id
        when new to this worker's trail, or, when another request holds it or this worker's
        numbers reached it (a ``dont_filter`` start request, a callback's own fetch), under its
        next number (docs/audit-trail.md, "Several workers"), never two final records of one id
        nor one record for two downloads."""
        key = record_id(request)
        if not key:
            return
        entry = self.open.get(key)
        if entry is None:
            number = key.rpartition("-")[2]
            if not number.isdigit() or int(number) <= self.sequence:
                key = self._renumbered(key, request)
            else:  # past every number of the trail: its later numbers go past it
                self.sequence = int(number)
                self._open_taken(key, request)
        elif key in self._taken or key in self._holding or entry.fetched or entry.unscheduled:
            key = self._renumbered(key, request)
        elif key in self._left:  # its paused run counted it left_in_queue: taken back after all
            self._left.discard(key)
            self.counts["taken_back"] += 1
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
        self._others.add(key)

    # --------------------------------------------------------------- the verdict on it

    def decided(
        self,
        request: Request,
        facts: RequestFacts,
        verdict: Allowed | Refused,
        entry: UrlEntry | None = None,
    ) -> None:
        """Event ``DECIDED``: the verdict on ``request``, on its entry (:attr:`UrlEntry.decision`:
        ``entry``, when the caller has it; else the request's own open record until its
        response comes, a retry's copy sharing it, or a new one: :meth:`_unscheduled`); the
        record names the robots.txt version and line that decided it (or why none did),
        every name it was held to (``agents``), the tdmrep.json and RSL versions (the
        engine's builders: :func:`~rep_engine.trail.lines.documents_of`,
        :func:`~rep_engine.trail.lines.robots_part_of`)."""
        try:
            if entry is None:
                entry = open_record(request, self.open)
                if entry is None or entry.fetched:
                    entry = self._unscheduled(request)[1]
            entry.decision = (verdict, facts)
            used = verdict.used
            if not used:
                return
            named = lines.documents_of(used, self.writer.snapshot)
            # the line an override went past, of the name it is sent as, names that name
            agent = verdict.robots_agent or (
                verdict.agent if isinstance(verdict, Refused) else facts.agent
            )
            token = self._tokens.get(agent)
            if token is None:  # a REP_PURPOSE_AGENTS token as written: its product token
                token = self._tokens[agent] = product_token(agent) or agent
            names = facts.names if len(facts.names) > 1 else ()  # every name held to
            # sent with a Host header addressing another site: that site (and the URL's own
            # origin's robots.txt in also, when it decided too: allowed by both)
            addressed = str(facts.origin) if facts.served_by is not None else ""
            decision, cause = verdict.robots, ""
            if facts.obey is not Obey.ALL:  # only its AI-usage opt-outs were obeyed: its
                previous, decision = entry.robots, None  # part (if any) names their snapshot
                if previous is not None and not previous.obeyed:
                    cause = not_obeyed(request, self._obey_robots)
                    token, names = previous.agent, names or previous.agents
            part = lines.robots_part_of(
                verdict, decision, used[0][2], named.robots, token, names, cause, addressed,
                named.also,
            )  # fmt: skip
            if part is not None:
                entry.robots = part
            if named.fields:
                documents_named(entry, named.fields)
        except Exception:
            self.internal_error("decided")

    def license_used(
        self, license_url: str, document: CacheEntry[Any], request: Request | None = None
    ) -> None:
        """Event ``LICENSE``: an RSL license was checked for ``request``: its body is kept, the
        record names the version it was decided with (``rsl``, and
        ``usage.signals[].snapshot``)."""
        try:
            sha = self.writer.snapshot(RSL, license_url, document)
            entry = open_record(request, self.open)
            if TRANSITIONS[_phase(entry), Event.LICENSE] is not IGNORE:
                assert entry is not None
                entry.licenses = {**(entry.licenses or {}), license_url: sha}
        except Exception:
            self.internal_error("license_used")

    # ---------------------------------------------------------------- as it is sent

    def attempted(self, request: Request, **_: Any) -> None:
        """Event ``ATTEMPT``: a download tried (``request_reached_downloader``; or, where the
        downloader's send is reached, as it leaves its slot: a request decided there is told
        :meth:`sent_at` instead, one held, refused or moved at its send is no attempt)."""
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            entry = open_record(request, self.open)
            # a record whose response came is not this request's (a copied meta: a
            # callback's own fetch of its page)
            phase = _NONE if entry is None else _FETCHED if entry.fetched else _OPEN
            if TRANSITIONS[phase, Event.ATTEMPT] is not IGNORE:
                assert entry is not None
                entry.attempts += 1
                entry.status = None
        except Exception:
            self.internal_error("attempted")

    def attempts_at_send(self) -> None:
        """The downloader's send is reached (:class:`~scrapy_rep.crawl.requests
        .downloadermiddlewares.SendCheck`): each request's attempt is told as it leaves its
        slot, no longer as it reaches the downloader."""
        self.crawler.signals.disconnect(self.attempted, signal=signals.request_reached_downloader)

    def _held(self, request: Request, origin: str = "", **_: Any) -> None:
        """Event ``HELD`` (``request_held``): it waits for its origin's documents."""
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            self.waits.held(request, origin)
            entry = open_record(request, self.open)
            if TRANSITIONS[_phase(entry), Event.HELD] is not IGNORE:
                assert entry is not None
                entry.held += 1
                if self._shared:  # released or at the close, back to the shared queue (or
                    # kept in JOBDIR for this worker's resume): no longer this worker's take
                    self._taken.discard(record_id(request))
                    self._holding.add(record_id(request))
        except Exception:
            self.internal_error("_held")

    def sent_at(self, record: str, now: float, expires: float) -> None:
        """Events ``ATTEMPT`` and ``SENT``: the request of the open record ``record``, decided
        here, leaves at ``now``, under a verdict that holds until ``expires``
        (docs/audit-trail.md, ``attempts``, ``sent_at``, ``expires``; the last attempt's)."""
        entry = self.open.get(record)
        phase = _NONE if entry is None else _FETCHED if entry.fetched else _OPEN
        if TRANSITIONS[phase, Event.SENT] is not IGNORE:
            assert entry is not None
            if TRANSITIONS[phase, Event.ATTEMPT] is not IGNORE:
                entry.attempts += 1
                entry.status = None
            entry.sent_at = now
            entry.expires = expires if expires < math.inf else None

    def sent_changed(self, request: Request, record: str, sent: str, moved: bool) -> None:
        """Event ``SENT``: ``request`` (open record ``record``) was changed after it was
        decided (docs/audit-trail.md, ``sent``). ``moved``: its URL changed, the record is
        now its."""
        try:
            entry = self.open.get(record)
            if TRANSITIONS[_phase(entry), Event.SENT] is IGNORE:
                return
            assert entry is not None
            entry.sent = sent
            if moved:
                entry.url = request.url
        except Exception:
            self.internal_error("sent_changed")

    # ------------------------------------------------------------------ its final fate

    def _final(self, key: str, entry: UrlEntry) -> None:
        """The entry of ``key``, its fate final (:attr:`UrlEntry.fate`, the one writer of a
        ``url`` record's fate): no longer open, written to the trail and read by every
        reader."""
        del self.open[key]
        if self._shared:  # kept only while the record is open (memory)
            self._taken.discard(key)
            self._holding.discard(key)
            self._left.discard(key)
            self._others.discard(key)
        settled, fate = self.settled, entry.fate  # counted once (Settled.add, inline)
        responded = entry.status is not None
        page = entry.page  # UrlEntry.replayed, inline: said of a fetched one only
        replayed = (
            fate is Fate.FETCHED and page is not None and page.get("cached", False) is not False
        )
        settled.requests[fate, entry.reason, responded, entry.answered, replayed] += 1
        robots, output = entry.robots, entry.output
        if robots is not None and robots.overridden and fate is not Fate.REFUSED:
            settled.overridden += 1
        if output is not None:
            settled.items_kept += output.kept
            if fate not in RESPONSE_FATES:  # its errback's items (verify holds them to it)
                self.counts["errback_items"] += output.kept
            for (reason, _), times in output.dropped.items():
                settled.items_dropped[reason] += times
        self._emit(entry.line(self.run, key))
        for reader in self.readers:
            reader.settled(entry)

    def _settle(self, key: str, entry: UrlEntry, fate: Fate, why: str = "") -> None:
        """The entry of ``key`` settled with the final ``fate`` (``why``: its sentence)."""
        entry.fate = fate
        entry.why = why
        self._final(key, entry)

    def refused(
        self,
        request: Request,
        reason: Reason | str,
        message: str,
        verdict: Refused | None = None,
        facts: RequestFacts | None = None,
        admitted: bool = False,
    ) -> None:
        """Event ``REFUSED``, as the one performer of refusals tells it
        (:mod:`scrapy_rep.crawl.refusals`), the one event of a refusal: final, ``refused``.
        Refused before the scheduler (``admitted``: past Scrapy's offsite filter and
        dupefilter), its record opens as the scheduler's would, and is final at once (it has
        no errback: the early pass refuses none that has). Decided by the performer of
        verdicts (``facts``), it names the versions it was decided with (:meth:`decided`).
        Else its own record; or (never scheduled: sent with ``engine.download_async``, it
        waited in place for a document the spider closed before; a media pipeline's file; or
        a copied meta) one opens here, unless it had one of its own. Refused in the
        downloader, its errback gets the refusal: settled once the errback is through, with
        the items it yielded (:meth:`failure_scraped`)."""
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            if admitted:
                key = self._scheduled(request, early=True)
                entry = self.open.get(key) if key else None
            else:
                key = record_id(request)  # open_record's lookup, its id kept for the end
                entry = self.open.get(key) if key else None
            if entry is None or entry.fetched:  # never scheduled, or a copied meta
                key, entry = self._unscheduled(request)
            if facts is not None and verdict is not None:
                self.decided(request, facts, verdict, entry)
            before = verdict.before if verdict is not None else before_of(request)
            entry.fate, entry.reason, entry.why = Fate.REFUSED, reason, message
            entry.refused_by = REFUSED_BY.get(reason, reason)
            if before is not NOTHING_BEFORE:
                entry.usage = lines.usage_part(
                    before.decision(), robots_sha(entry), entry.tdm or "", entry.licenses or {}
                )
            if admitted:
                self._final(key, entry)
            else:
                self._final_after_errback(key, entry, request)
        except Exception:
            self.internal_error("refused")

    def _final_after_errback(self, key: str, entry: UrlEntry, request: Request) -> None:
        """``entry``'s fate is final (failed, refused in the downloader): written now, or, for
        a request whose errback gets it (scheduled, as the scraper tells the ledger when it
        is through with the failure: :attr:`failures_told`), once the errback is through,
        with the items it yielded (:meth:`failure_scraped`)."""
        if (
            request.errback is not None
            and self.failures_told
            and not entry.unscheduled
            and (entry.fate is not Fate.REFUSED or in_downloader(self.crawler, request))
        ):
            self.failing.add(key)
            return
        self._final(key, entry)

    def _redirected(self, key: str, request: Request) -> None:
        """Scrapy scheduled the next URL of a redirect: the record of ``key`` is final. A
        redirect no download and no verdict of ours reached (a downloader middleware
        before ours answered it: a mirror's 301) is ``answered`` (:meth:`_answered`): no
        response reached the engine to say so."""
        entry = self.open.get(key)
        if entry is not None:
            ref = any_state(request)  # its meta's state: the redirected request's own
            if not entry.fetched and entry.attempts == 0 and ref is not None and not ref.owner:
                self._answered(entry.url, entry, request)
            reasons = request.meta.get("redirect_reasons") or [None]
            entry.status = reasons[-1] if isinstance(reasons[-1], int) else None
            entry.to = request.url
            self._settle(key, entry, Fate.REDIRECTED)

    def _received(self, response: Response, request: Request, **_: Any) -> None:
        """``response_received``, when :class:`~scrapy_rep.crawl.auditing.AuditMiddleware`'s
        ``process_response`` is not the last one (:meth:`downloaded` then)."""
        self.downloaded(request, response, told=True)

    def downloaded(self, request: Request, response: Response, told: bool = False) -> None:
        """Event ``RECEIVED``: its response came, as the engine gets it: from
        :class:`~scrapy_rep.crawl.auditing.AuditMiddleware` when its ``process_response`` is the
        last one (nothing can change the response after it; the trail then has no
        ``response_received`` receiver: ``_opened``), else ``response_received`` (``told``). A
        request downloaded without the scheduler has no page pass to wait for, and a download
        no entry follows is told to the readers apart."""
        if not (told or self._direct):
            return
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            entry = open_record(request, self.open)
            if entry is None and sent_state(request) is None and self._answered_page(request):
                entry = self._unscheduled(request)[1]  # no verdict opened its record
            if entry is None:  # (NONE, RECEIVED): told apart
                self._apart(request, response)
            elif not entry.fetched:  # (FETCHED, RECEIVED): ignored, a copied meta's (_attempt)
                entry.fetched = True
                status = entry.status = response.status
                if status == PAYMENT_REQUIRED_STATUS:  # what it said of its price
                    entry.payment = payment_of(response)
                if entry.attempts == 0 and sent_state(request) is None:
                    self._answered(request.url, entry, request)
                    page = self._page(response)
                    entry.held += page is not None and page.held  # till its documents came
                if entry.unscheduled:  # no page pass to wait for: a page read as it arrived
                    page = self._page(response)
                    self._answered_documents(entry, page)
                    page_said(entry, request, page, self._declared, self._snapshot_body)
                    entry.fate = response_fate(status)
                    self._final(record_id(request), entry)
        except Exception:
            self.internal_error("_received")

    def _page(self, response: Response) -> Page | None:
        """What the page pass read of ``response`` (``None``: nothing)."""
        pages = PAGES.get(self.crawler)
        return None if pages is None else pages.get(response)

    def _answered_page(self, request: Request) -> bool:
        """``request``, with no record, is a page a callback had the engine download itself
        (``engine.download_async``) that a downloader middleware before scrapy_rep's
        answered: no verdict opened its record (:meth:`decided`), which opens as it comes
        (its callback's items are gated by it: its record says what it said). A file of a
        media pipeline, our own documents, and a request nothing of robots.txt or usage
        decides (no origin, ``dont_obey_robotstxt`` with no purpose) are none."""
        if request.callback is NO_CALLBACK and not request.meta.get(meta.FETCHED_PAGE):
            return False
        owner = OWNERS.get(self.crawler)
        if owner is None or meta.ROBOTS_REQUEST in request.meta:
            return False
        return owner.facts.of(request).origin is not None

    def _answered(self, url: str, entry: UrlEntry, request: Request) -> None:
        """Its response came with no download tried and no verdict of ours on it: a
        downloader middleware placed before scrapy_rep's robots.txt one answered it itself (a
        mock, a local mirror). Its record says so (``answered``), and what the crawl's
        robots.txt of its origin said of it then, when it had one (the response waited for
        its origin's documents, ``held``: :mod:`scrapy_rep.crawl.page.downloadermiddlewares`): a
        "no" stays in the record (``audit verify`` holds the line to its snapshot, and a
        record that names none where its crawl had one fails). Sent with a ``Host`` header
        naming another site (``request``'s: a redirect's next request carries it), its part
        says that site (``addressed``) and names the robots.txt of each site the crawl had,
        as a verdict's record names both: the addressed site's (its ``line``), then its URL's
        own origin's in ``also``; the one had alone otherwise (its page was decided by the
        documents had: :meth:`~scrapy_rep.crawl.requests.downloadermiddlewares
        .RobotsTxtMiddleware.verdict_had`). When it was decided (``answered_at``): a
        robots.txt the crawl announced after that was not had for it, though its record
        comes later."""
        entry.answered = True
        entry.answered_at = time.time()
        origin = origin_of(url)
        owner = OWNERS.get(self.crawler)
        if owner is None or origin is None:
            return
        robots, site, also = owner.robots_had(origin), origin, None
        addressed = owner.facts.other_site(request, origin)
        if addressed is not None and (theirs := owner.robots_had(addressed)) is not None:
            # the addressed site's robots.txt first, its URL's own origin's in also
            if robots is not None:
                also = self.writer.snapshot(ROBOTS_TXT, origin, robots)
            robots, site = theirs, addressed
        if robots is None:
            return  # not known when it was answered
        # robots.txt not obeyed for it: its part says so, and names the copy all the same
        obeyed = entry.robots is None or entry.robots.obeyed
        not_obeyed = "" if entry.robots is None else entry.robots.why
        sha = self.writer.snapshot(ROBOTS_TXT, site, robots)
        token = self._robots_token
        named = str(addressed or "")
        if robots.unreachable:
            why = not_obeyed or f"robots.txt {robots.outcome}"
            entry.robots = RobotsPart(
                sha, token, None, None, why, obeyed, addressed=named, also=also
            )
            return
        said = robots.rules.decide(url, token)
        why = not_obeyed or said.reason
        entry.robots = RobotsPart(
            sha, token, said.line, said.line_text, why, obeyed, addressed=named, also=also
        )

    def _answered_documents(self, entry: UrlEntry, page: Page | None) -> None:
        """The tdmrep.json and RSL license versions the page of a response answered without
        our verdict was decided with (the crawl's, had when it was read:
        :meth:`~scrapy_rep.crawl.page.pagestate.PageState._answered`), named by its record
        as a verdict's are (its ``robots`` part: :meth:`_answered`); one not had names
        none (``audit verify`` reads it as none, as the page was decided)."""
        verdict = None if page is None or not entry.answered else page.answered
        if verdict is not None:
            used = tuple(one for one in verdict.used if one[2] is not NOT_HAD.get(one[0]))
            snapshot = self.writer.snapshot  # its robots.txt named already (_answered)
            named = lines.documents_of(
                used, lambda kind, key, got: snapshot(kind, key, got) if kind.record else ""
            )
            documents_named(entry, named.fields)

    def _snapshot_body(self, kind: str, url: str, body: bytes) -> str:
        return self.writer.snapshot_body(kind, url, body, None)

    def _apart(self, request: Request, response: Response) -> None:
        """A download no entry follows (a file an item pipeline fetched without a verdict):
        told to the readers, never written (the trail's ``file`` records say what became of it)."""
        if meta.ROBOTS_REQUEST in request.meta or record_id(request):
            return
        for reader in self.readers:
            reader.downloaded_apart(request.url, response.status)

    def _item_scraped(self, response: object = None, **_: Any) -> None:
        """Event ``ITEM_SCRAPED``: an item of ``response``'s page (or of the errback of a failed
        download: ``response`` its Failure) went through the item pipelines (``item_scraped``,
        sent before the scraper says the page's whole output is through), counted on the open
        entry until :meth:`page_done` (:meth:`failure_scraped`) settles it. An item
        a later component drops is not counted: a project's spider middleware after the page
        pass drops it without a signal, an item pipeline with ``item_dropped`` or
        ``item_error``."""
        try:  # guarded inline (the hot path: a call per item)
            # a page's item, or an errback's of a failed download (its Failure names the
            # request: Scrapy's scraper sets it); None: start()'s, of no request
            key = record_id(getattr(response, "request", None))
            if key and key in self.open:
                scraped = self.scraped
                scraped[key] = scraped.get(key, 0) + 1
        except Exception:
            self.internal_error("_item_scraped")

    def page_done(self, response: Response, output: PageOutput, page: Page | None = None) -> None:
        """Event ``PAGE_DONE``: scrapy_rep's spider middleware passed on the spider's whole
        output for a page: ``output``, on which the items kept are settled (those that reached
        the end of the crawl, the others ``items_not_kept``), the entry's with what the
        ``page`` said. Called directly (cheaper than a signal)."""
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            links = output.links
            if links:  # never requested: no records, counted at the end
                self.counts["not_followed"] += len(links)
            request = response.request
            key = record_id(request)  # open_record's lookup, its id kept for _final
            scraped = self.scraped.pop(key, 0)
            entry = self.open.get(key) if key else None
            if entry is None or request is None:  # (NONE, PAGE_DONE): ignored
                return
            # kept: the items passed on that reached the end of the crawl (none beyond
            # those passed on: a later component that adds items adds none of the page's)
            passed = output.passed
            output.kept = min(passed, scraped) if output.through else passed
            entry.output = output
            if entry.answered:
                self._answered_documents(entry, page)
            page_said(entry, request, page, self._declared, self._snapshot_body)
            entry.status = response.status
            entry.fate = response_fate(response.status)
            self.counts["items_passed"] += passed  # the end line's: verify bounds each record
            self._final(key, entry)
        except Exception:
            self.internal_error("page_done")

    @guarded  # called from AuditMiddleware.process_exception: a bug of ours must not
    # replace the request's own exception
    def failed(self, request: Request, exception: BaseException) -> None:
        """Event ``FAILED``: no response after every retry
        (:class:`scrapy_rep.crawl.auditing.AuditMiddleware`). A redirect's request the engine
        downloads for a component (never scheduled) that failed before it was decided (a
        downloader middleware before the robots.txt one dropped it) has its record opened now,
        the one before it ``redirected``, as at its decision. A refusal's exception is none
        (its refusal settled the record: :class:`~scrapy_rep.crawl.auditing.Refusal`)."""
        entry = open_record(request, self.open)
        phase = _phase(entry)
        if phase is Phase.NONE:
            ref = any_state(request)
            if (
                ref is not None
                and ref.audit in self.open
                and moved(ref, request)
                and ref.url in request.meta.get("redirect_urls", ())
            ):
                entry = self._unscheduled(request)[1]
                phase = _phase(entry)
        if TRANSITIONS[phase, Event.FAILED] is IGNORE:
            return
        assert entry is not None
        entry.fate, entry.why = Fate.FAILED, error_line(exception)
        self._final_after_errback(record_id(request), entry, request)

    @guarded
    def failure_scraped(self, request: Request, failure: Any) -> None:
        """Event ``FAILED`` as the scraper tells it: the scraper (or the engine, for a
        component's own download) is through with a download's ``failure`` (its errback ran,
        or Scrapy logged it): a record still open failed where no component of ours is told (a
        downloader middleware raised in its ``process_response``: ``IgnoreRequest`` to drop the
        response, Scrapy calls no ``process_exception`` and sends no signal of it; or in its
        ``process_exception`` before AuditMiddleware's), with the status of the response
        dropped (:func:`~scrapy_rep.crawl.internals.dropped_response`), ``why`` naming the
        exception as for one that reaches that middleware. Its callers skip a refusal's
        (:class:`~scrapy_rep.crawl.auditing.Refusal`). One left open for its errback
        (:meth:`_final_after_errback`: failed, or refused in the downloader) is final now,
        with the items the errback yielded (``items_kept``)."""
        entry = open_record(request, self.open)
        phase = _phase(entry)
        if phase is Phase.NONE or TRANSITIONS[phase, Event.FAILED] is IGNORE:
            return
        assert entry is not None
        key = record_id(request)
        kept = self.scraped.pop(key, 0)
        if kept:  # none passed through the page pass: each one reached the end
            entry.output = PageOutput(kept, kept, through=True)
        if key in self.failing:
            self.failing.discard(key)
            self._final(key, entry)
            return
        if isinstance(failure.value, Refusal):  # its record is final (or left for its errback)
            return
        response = dropped_response(failure, request)
        if response is not None:
            entry.status = response.status
        self._settle(key, entry, Fate.FAILED, error_line(failure.value))

    @guarded
    def _file_checked(
        self,
        url: str,
        decision: UsageDecision,
        reading: Any,
        refusal: Refused | None,
        fate: FileFate | None = None,
        error: str = "",
        **_: Any,
    ) -> None:
        """A file the media pipelines downloaded, held against the crawl's purposes, once
        the pipeline knows its fate (``failed``: ``error`` says why): its ``file`` record."""
        if not fate:  # not said: what the refusal and REP_PURPOSE_ACTION make it
            marked = self.config.purpose_action == "mark"
            fate = (
                FileFate.STORED
                if refusal is None
                else FileFate.MARKED
                if marked
                else FileFate.REFUSED
            )
        record = lines.file_line(self.run, url, fate, decision, reading.to_dict())
        if refusal is not None:
            record["refused_for"] = refusal.purpose
            record["why"] = refusal.message
        if error:
            record["error"] = error[:300]
        self.counts["files"] += 1
        self._emit(record)
        outcome = FileOutcome(fate, refusal.message if refusal is not None else "", error)
        for reader in self.readers:
            reader.file_settled(url, outcome)

    def internal_error(self, where: str) -> None:
        """Counted (``rep/audit/errors``); the first one logged with its traceback."""
        inc(self.stats, "rep/audit/errors")
        if not self._errors_logged:
            self._errors_logged = True
            logger.exception("scrapy_rep internal error in the audit trail (%s)", where)

    # ------------------------------------------------------------ the run's open and end

    @guarded
    def _opened(self, spider: Any = None, **_: Any) -> None:
        # Connected now, after every component: the robots.txt middleware refuses the
        # requests it still holds in its own spider_closed handler, before ours runs.
        self.crawler.signals.connect(self._closed, signal=signals.spider_closed)
        engine = running_engine(self.crawler)
        scheduler = engine_scheduler(engine)
        # Scrapy's RFPDupeFilter's own set, read where it is; another dupefilter (a
        # subclass too) answers otherwise: its drops undo the records opened
        self._seen = seen_fingerprints(scheduler, self.crawler.request_fingerprinter)
        if self._seen is None:
            self.crawler.signals.connect(self._dropped, signal=signals.request_dropped)
        self._offsite = offsite_filter(self.crawler, engine)
        self._share_records(scheduler)
        self._direct = _audit_middleware_last(engine)
        if not self._direct:
            self.crawler.signals.connect(self._received, signal=signals.response_received)
        if not self.trail:
            return
        _UNCLOSED.add(self)
        paused = self.resumes
        self._emit(
            lines.run_line(
                self.run, self.config, self.crawler.settings, getattr(spider, "name", "") or "",
                paused.run if paused else None, self.jobdir,
                paused.trail if paused else None, paused.head if paused else None,
                signed_by(self.crawler),
            )
        )  # fmt: skip
        for line in lines.setting_lines(self.run, self.config):
            self._emit(line)

    @guarded
    def _closed(self, spider: Any = None, reason: str = "", **_: Any) -> None:
        _UNCLOSED.discard(self)
        paused = bool(self.jobdir) and reason not in (EndReason.FINISHED, EndReason.SHUTDOWN_FORCED)
        self._settle_open(paused, f"the crawl ended ({reason}) before its fate was known")
        if self._seen is not None and self.stats is not None:  # RFPDupeFilter counted them
            dropped = int(self.stats.get_value("dupefilter/filtered", 0))
            self.counts["duplicates_dropped"] = dropped
            self.stats.set_value("rep/audit/duplicates_dropped", dropped)
        if paused:
            self.counts["open"] = len(self.open)
        self.counts["items_passed"] += 0  # said when 0 too: a run that counts them
        end = lines.end_line(
            self.run, reason, {**self.settled.fates(), **self.counts}, self.sequence
        )
        # kept before the end line is written (a crash between leaves a state to resume),
        # with what the resumed run's header names; without a trail too (its trail "")
        head = self.writer.next_hash(end)
        kept = {
            "run": self.run,
            "version": STATE_VERSION,
            "open": {key: entry.line(self.run, key) for key, entry in self.open.items()},
            "unfiltered": self._unfiltered,
            "left_in_queue": sorted(self._left),
            "taken_from_others": sorted(self._others & self.open.keys()),
            "sequence": self.sequence,
            "trail": str(self.path) if self.trail else "",
            "head": head,
        }
        save_state(self.jobdir, kept if paused else None)
        if not self.trail:
            return
        self._emit(end)
        file = self.writer.file  # its tree head's root: the head file's and a bundle's
        root = file.last_head["root"] if file is not None and file.last_head else ""
        written, total = self.writer.close()
        if written:  # the root: written down, it anchors the trail (audit verify --head)
            # a file appended to holds its earlier runs' lines too: both are counted
            where = (f"appended by this run to {self.path}, which holds {total} with its "
                     "earlier runs'" if total > written else f"in {self.path}")  # fmt: skip
            logger.info(
                "scrapy_rep: %d audit line(s) %s; its tree head's root is %s (the head file's "
                "and a site's bundle's): keep it, and `audit verify %s --head %s` tells "
                "whether any line up to it was changed since",
                written, where, root, self.path, root, extra={"spider": spider},
            )  # fmt: skip

    def _settle_open(self, paused: bool, why: str) -> None:
        """Event ``CLOSED``: the entries still open as the spider closes: a response that came
        is ``fetched`` (its page's output was not seen), the others ``unfinished`` (kept in
        ``JOBDIR`` when paused); with a shared queue, a record another worker takes is left,
        counted ``left_in_queue`` once in the crawl: a paused run keeps it in ``JOBDIR`` (this
        worker may take it back after its resume, and keep its record), and the run that
        resumes it does not count it again."""
        left = self._left
        for key, entry in list(self.open.items()):
            if self._shared and key not in self._taken and not entry.unscheduled:
                if paused and key in self._holding:  # kept in JOBDIR: this worker resumes it
                    continue
                if key not in left and key not in self._others:  # another takes it, and
                    # its record; one another worker queued is that worker's to count
                    left.add(key)
                    self.counts["left_in_queue"] += 1
                continue
            if entry.fetched:
                fate = response_fate(entry.status)
                self._settle(key, entry, fate, "its page's output was not seen")
            elif key in self.failing:  # failed or refused: its errback's output was not seen
                self._final(key, entry)
            elif not paused:
                self._settle(key, entry, Fate.UNFINISHED, why)


def url_ledger(crawler: Crawler) -> AuditTrail:
    """The crawl's ledger of each requested URL's fate, made by its first reader."""
    ledger = LEDGERS.get(crawler)
    if not isinstance(ledger, AuditTrail):
        ledger = AuditTrail(crawler)
    return ledger


def _audit_middleware_last(engine: Any) -> bool:
    """Whether :class:`AuditMiddleware`'s ``process_response`` is the downloader's last:
    the response it sees is then the one ``response_received`` would tell."""
    chain = downloader_methods(engine, "process_response")
    return bool(chain) and isinstance(getattr(chain[-1], "__self__", None), AuditMiddleware)
