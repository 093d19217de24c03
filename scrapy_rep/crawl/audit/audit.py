"""The audit trail (``REP_AUDIT_FILE``): one ``url`` record per requested URL, with its
final fate and what decided it, written as the crawl goes (schema: docs/audit-trail.md;
lines: :mod:`rep_engine.trail.lines`; file, chain and snapshots:
:mod:`rep_engine.trail.file`).

A URL is *requested* when the spider (or a start request) asked for it and the
dupefilter let it through; a dropped duplicate is counted, never recorded. Its record's
``id`` is the request fingerprint (the URL key) and the request's number in the crawl:
one record per request sent, which survives retries, holding, redirects and ``JOBDIR``
pause/resume. A request carries only ``(id, url)`` in its meta; the record waits in
:attr:`UrlLedger.open` until its fate is final: refused, fetched, redirected, failed
(:mod:`scrapy_rep.crawl.audit.auditstate`, :mod:`~scrapy_rep.crawl.audit.auditrequests`,
:mod:`~scrapy_rep.crawl.audit.auditfates`), or unfinished when the spider closes first
(a paused crawl keeps its open records in ``JOBDIR``) or the process exits without
closing it (:func:`_at_exit`).
"""

from __future__ import annotations

import atexit
import logging
import math
from typing import TYPE_CHECKING, Any, Final

from scrapy import signals
from scrapy.exceptions import NotConfigured

from rep_engine.records import STATE_VERSION, Fate, RobotsPart, UrlEntry
from rep_engine.robotstxt.useragent import product_token
from rep_engine.trail import lines
from rep_engine.trail.read import tail_of
from rep_engine.verdict import LICENSE as LICENSE_KIND
from rep_engine.verdict import ROBOTS as ROBOTS_KIND
from rep_engine.verdict import TDM as TDM_KIND
from rep_engine.verdict import Allowed, Obey, Refused
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.audit.auditfates import FateEvents
from scrapy_rep.crawl.audit.auditfile import AuditWriter, save_state
from scrapy_rep.crawl.audit.auditstate import guarded
from scrapy_rep.crawl.auditing import LEDGERS, AuditMiddleware
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.internals import (
    downloader_methods,
    engine_scheduler,
    offsite_filter,
    running_engine,
    seen_fingerprints,
)
from scrapy_rep.crawl.ledger import read_by
from scrapy_rep.crawl.requeststate import open_record
from scrapy_rep.crawl.webbotauth import signed_by

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.verdict import RequestFacts
    from rep_engine.verdict.values import Used

__all__ = ["AuditTrail", "UrlLedger", "url_ledger"]

logger = logging.getLogger(__name__)

#: The end line's reason of a run whose process exited without closing its spider: a
#: second Ctrl-C (Scrapy's unclean shutdown), or the reactor stopped otherwise.
FORCED: Final = "shutdown_forced"
#: The trails opened and not yet closed, ended by :func:`_at_exit` if the process exits.
_UNCLOSED: set[UrlLedger] = set()


@atexit.register
def _at_exit() -> None:
    """End every run the process leaves without closing its spider: its open records
    written ``unfinished`` (or ``fetched``), its end line with the reason :data:`FORCED` (not
    kept for a resume: Scrapy's own ``JOBDIR`` state is not saved by it either), so that the
    trail stays whole and the next crawl chains onto an ended run."""
    for trail in list(_UNCLOSED):
        logger.warning(
            "scrapy_rep: the crawl stopped without closing its spider (a second Ctrl-C?); "
            "its %d open record(s) are written unfinished and its run ended (%s) in %s",
            len(trail.open), FORCED, trail.path,
        )  # fmt: skip
        trail._closed(reason=FORCED)


class UrlLedger(FateEvents):
    """The crawl's one ledger of each requested URL's fate, settled once per request: the
    trail's ``url`` lines, read by every :class:`~scrapy_rep.crawl.auditing.UrlReader`."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        #: The product token of each agent name recorded.
        self._tokens: dict[str, str] = {}
        self.writer = self._writer(crawler)
        self._emit = self.writer.emit
        connect = crawler.signals.connect
        connect(self._opened, signal=signals.spider_opened)
        connect(self._scheduled, signal=signals.request_scheduled)
        connect(self._attempt, signal=signals.request_reached_downloader)
        connect(self._held, signal=rep_signals.request_held)
        connect(self.waits.released, signal=rep_signals.request_released)
        connect(self._refused, signal=rep_signals.request_refused)
        connect(self._file_checked, signal=rep_signals.file_checked)
        connect(self._item_scraped, signal=signals.item_scraped)  # a page's item kept
        LEDGERS[crawler] = self
        read_by(crawler, self)  # each page's ledger, when its output is through

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

    def decided(self, request: Request, facts: RequestFacts, verdict: Allowed | Refused) -> None:
        """The verdict on ``request``, on its entry (:attr:`UrlEntry.decision`); the record names
        the robots.txt version and line that decided it (or why none did), every name it was held
        to (``agents``), the tdmrep.json and RSL versions (:meth:`_documents_decided`)."""
        try:
            state = self._outgoing(request)
            if state is None:
                return
            state.decision = (verdict, facts)
            used = verdict.used
            if not used:
                return
            origin = str(used[0][1])
            robots = used[0][2]
            sha = self.writer.snapshot("robots.txt", f"{origin}/robots.txt", robots)
            # the line an override went past, of the name it is sent as, names that name
            agent = verdict.robots_agent or (
                verdict.agent if isinstance(verdict, Refused) else facts.agent
            )
            token = self._tokens.get(agent)
            if token is None:  # a REP_PURPOSE_AGENTS token as written: its product token
                token = self._tokens[agent] = product_token(agent) or agent
            decision = verdict.robots
            names = facts.names if len(facts.names) > 1 else ()  # every name held to
            if facts.obey is not Obey.ALL:  # only its AI-usage opt-outs were obeyed
                self._opt_outs_only(state, sha, names)
            elif decision is not None:
                why = f"robots.txt {robots.outcome}" if robots.unreachable else decision.reason
                overridden = expired = ""
                ends = None
                if verdict.overridden is not None:  # refused later, or allowed
                    overridden = verdict.overridden.described
                    ends = verdict.overridden.ends  # a value for verify, beside the words
                elif isinstance(verdict, Refused) and verdict.expired is not None:
                    expired = verdict.expired.described
                # sent with a Host header addressing another site: that site, and the
                # URL's own origin's robots.txt when it decided too (allowed by both)
                addressed = str(facts.origin) if facts.served_by is not None else ""
                also = self._also(origin, used) if addressed else None
                state.robots = RobotsPart(
                    sha, token, decision.line, decision.line_text, why, True,
                    overridden, expired, names, ends, addressed, also,
                )  # fmt: skip
            if len(used) > 1:
                self._documents_decided(state, request, used)
        except Exception:
            self.internal_error("decided")

    @staticmethod
    def _opt_outs_only(state: UrlEntry, sha: str, names: tuple[str, ...]) -> None:
        """A request whose robots.txt AI-usage opt-outs alone are obeyed: its robots part
        names the snapshot they were read in (and every name it was held to)."""
        previous = state.robots
        if previous is not None and not previous.obeyed:
            state.robots = (
                RobotsPart(sha, *previous[1:6], agents=names)
                if names
                else RobotsPart(sha, *previous[1:])
            )

    def _also(self, origin: str, used: Used) -> str | None:
        """The snapshot of the URL's own origin's robots.txt, when a request sent to
        another site (its Host header) was decided by both (``None``: not)."""
        also = None
        for kind, key, entry in used[1:]:
            if kind == ROBOTS_KIND and str(key) != origin:
                also = self.writer.snapshot("robots.txt", f"{key}/robots.txt", entry)
        return also

    def _documents_decided(self, state: UrlEntry, request: Request, used: Used) -> None:
        """The tdmrep.json and RSL license versions ``request`` was decided with."""
        for kind, key, entry in used[1:]:
            if kind == TDM_KIND:
                url = f"{key}/.well-known/tdmrep.json"
                state.tdm = self.writer.snapshot("tdmrep.json", url, entry)
            elif kind == LICENSE_KIND:
                self.license_used(str(key), entry, request)

    def sent_at(self, record: str, now: float, expires: float) -> None:
        """The request of the open record ``record`` leaves at ``now``, under a verdict that
        holds until ``expires`` (docs/audit-trail.md, ``sent_at``, ``expires``; the last
        attempt's)."""
        state = self.open.get(record)
        if state is not None:
            state.sent_at = now
            state.expires = expires if expires < math.inf else None

    def not_sent(self, record: str) -> None:
        """The request of open record ``record`` reached the downloader but did not leave (held
        or refused at its send, or handed to another slot): that attempt is taken back
        (``attempts`` counts downloads tried, docs/audit-trail.md)."""
        state = self.open.get(record)
        if state is not None and state.attempts > 0:
            state.attempts -= 1

    def sent_changed(self, request: Request, record: str, sent: str, moved: bool) -> None:
        """``request`` (open record ``record``) was changed after it was decided
        (docs/audit-trail.md, ``sent``). ``moved``: its URL changed, the record is now its."""
        try:
            state = self.open.get(record)
            if state is None:
                return
            state.sent = sent
            if moved:
                state.url = request.url
        except Exception:
            self.internal_error("sent_changed")

    def license_used(
        self, license_url: str, entry: CacheEntry[Any], request: Request | None = None
    ) -> None:
        """An RSL license was checked for ``request``: its body is kept, the record names
        the version it was decided with (``rsl``, and ``usage.signals[].snapshot``)."""
        try:
            sha = self.writer.snapshot("rsl", license_url, entry)
            state = open_record(request, self.open)
            if state is not None:
                if state.licenses is None:
                    state.licenses = {}
                state.licenses[license_url] = sha
        except Exception:
            self.internal_error("license_used")

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
        spider_name = getattr(spider, "name", "") or ""
        settings = self.crawler.settings
        paused = self.resumes
        if not self.trail:
            return
        _UNCLOSED.add(self)
        self._emit(
            lines.run_line(
                self.run, self.config, settings, spider_name,
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
        paused = bool(self.jobdir) and reason not in ("finished", FORCED)
        why = f"the crawl ended ({reason}) before its fate was known"
        for key, state in list(self.open.items()):
            if self._shared and key not in self._taken and not state.unscheduled:
                if paused and key in self._holding:  # kept in JOBDIR: this worker resumes it
                    continue
                self.counts["left_in_queue"] += 1  # another worker takes it, and its record
                continue
            if state.fetched:
                self._final(key, state, Fate.FETCHED, {"why": "its page's output was not seen"})
            elif not paused:
                self._final(key, state, Fate.UNFINISHED, {"why": why})
        if self._seen is not None and self.stats is not None:  # RFPDupeFilter counted them
            dropped = int(self.stats.get_value("dupefilter/filtered", 0))
            self.counts["duplicates_dropped"] = dropped
            self.stats.set_value("rep/audit/duplicates_dropped", dropped)
        if paused:
            self.counts["open"] = len(self.open)
        self.counts["items_passed"] += 0  # said when 0 too: a run that counts them
        end = lines.end_line(self.run, reason, dict(self.counts), self.sequence)
        # kept before the end line is written (a crash between leaves a state to resume),
        # with what the resumed run's header names; without a trail too (its trail "")
        head = self.writer.next_hash(end)
        kept = {
            "run": self.run,
            "version": STATE_VERSION,
            "open": {key: entry.state() for key, entry in self.open.items()},
            "unfiltered": self._unfiltered,
            "sequence": self.sequence,
            "trail": str(self.path) if self.trail else "",
            "head": head,
        }
        save_state(self.jobdir, kept if paused else None)
        if not self.trail:
            return
        self._emit(end)
        head = self.writer.file.prev if self.writer.file is not None else head  # its tree head's
        written = self.writer.close()
        if written:  # the head: written down, it anchors the trail (audit verify --head)
            logger.info(
                "scrapy_rep: %d audit line(s) in %s; its head is %s: keep it, and `audit "
                "verify %s --head %s` tells whether any line up to it was changed since",
                written, self.path, head, self.path, head, extra={"spider": spider},
            )  # fmt: skip


class AuditTrail:
    """The extension of the crawl's :class:`UrlLedger` (``REP_AUDIT_FILE``, ``REP_REPORT``)."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> UrlLedger:
        if not config_of(crawler).ledger:
            raise NotConfigured  # no message: Scrapy would log it as a WARNING
        return url_ledger(crawler)


def url_ledger(crawler: Crawler) -> UrlLedger:
    """The crawl's ledger of each requested URL's fate, made by its first reader."""
    ledger = LEDGERS.get(crawler)
    if not isinstance(ledger, UrlLedger):
        ledger = UrlLedger(crawler)
    return ledger


def _audit_middleware_last(engine: Any) -> bool:
    """Whether :class:`AuditMiddleware`'s ``process_response`` is the downloader's last:
    the response it sees is then the one ``response_received`` would tell."""
    chain = downloader_methods(engine, "process_response")
    return bool(chain) and isinstance(getattr(chain[-1], "__self__", None), AuditMiddleware)
