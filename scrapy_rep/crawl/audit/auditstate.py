"""The audit trail's open records and how one becomes final (docs/audit-trail.md, "url
records"): the state :class:`scrapy_rep.crawl.audit.audit.UrlLedger` keeps, set once by
:class:`AuditState`, which the ledger's parts extend in turn
(:mod:`~scrapy_rep.crawl.audit.auditshared`, :mod:`~scrapy_rep.crawl.audit.auditrequests`,
then :mod:`~scrapy_rep.crawl.audit.auditfates`), and the ``url`` line of a final fate."""

from __future__ import annotations

import functools
import logging
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from scrapy.utils.job import job_dir

from rep_engine.records import Fate, RobotsPart, UrlEntry
from rep_engine.robotstxt.useragent import held_names
from rep_engine.settings.readers import robots_agent
from rep_engine.trail import lines
from rep_engine.verdict.policy import NOTHING_BEFORE
from scrapy_rep.crawl.audit.auditfile import AuditWriter, Paused, resume
from scrapy_rep.crawl.auditing import URL_READERS
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.requeststate import before_of
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from scrapy_rep.crawl.auditing import UrlReader
    from scrapy_rep.crawl.ledger import Page

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

    #: The writer of the trail's lines, and its ``emit`` (set by the ledger: ``_writer``).
    writer: AuditWriter
    _emit: Callable[[dict[str, Any]], None]

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
        self.counts: Counter[str] = Counter()
        #: Open record id -> its page's items that reached the end of the crawl so far
        #: (``item_scraped``), until its page's output is through.
        self.scraped: dict[str, int] = {}
        #: Who reads each settled entry besides the trail (the report, the tools).
        self.readers: list[UrlReader] = URL_READERS.setdefault(crawler, [])
        #: The crawler's declared User-Agent (``ROBOTSTXT_USER_AGENT``, else ``USER_AGENT``).
        self._declared = robots_agent(crawler.settings)
        self._errors_logged = False
        #: Whether workers share the scheduler's queue
        #: (:mod:`~scrapy_rep.crawl.audit.auditshared`); the ids of the open records this
        #: worker took from it, and holds (a pause with JOBDIR keeps those for its resume).
        self._shared = False
        self._taken: set[str] = set()
        self._holding: set[str] = set()
        #: The paused run this one resumes, and the latest request number (resumes go on).
        self.resumes: Paused | None
        self.resumes, self.sequence = resume(self.jobdir, self.open, self._unfiltered)

    def _final(
        self, key: str, entry: UrlEntry, fate: Fate, added: dict[str, Any], cause: object = None
    ) -> None:
        """The entry of ``key`` settled with its final ``fate``: no longer open, written to the
        trail and read by every reader (``added``, ``cause``: as :class:`UrlReader` reads them)."""
        del self.open[key]
        if self._shared:  # kept only while the record is open (memory)
            self._taken.discard(key)
            self._holding.discard(key)
        self.counts[fate] += 1
        self._emit(entry.line(self.run, key, fate, added))
        for reader in self.readers:
            reader.settled(entry, fate, added, cause)

    def page_said(self, state: UrlEntry, request: Request, page: Page | None) -> dict[str, Any]:
        """A fetched page's ``usage`` (its own decision, never ``response.meta``'s; without one,
        what the origin's documents said before the fetch) and ``page`` parts (with the pages its
        callback fetched itself that said no, each with its ``url``)."""
        extra: dict[str, Any] = {}
        verdict = None if page is None else page.verdict
        decision = None if verdict is None else verdict.usage
        if decision is None:
            before = before_of(request)
            decision = before.decision() if before is not NOTHING_BEFORE else None
        if decision is not None and decision.signals:
            sha = robots_sha(state)
            licenses = state.licenses or {}
            extra["usage"] = lines.usage_part(decision, sha, state.tdm or "", licenses)
        if state.robots is not None and not state.robots.obeyed:  # no call for the usual one
            self._held_as_sent(state, request)
        if page is not None and page.facts is not None:
            part = self._part_of(request.url, page)
            if page.fetched:
                part["fetched"] = [
                    {"url": url, **self._part_of(url, one)} for url, one, _ in page.fetched
                ]
            extra["page"] = part
        return extra

    def _held_as_sent(self, state: UrlEntry, request: Request) -> None:
        """A request nothing decided (its robots part not obeyed, naming no other name) is held,
        after the fetch, to the names it was sent as (its ``User-Agent`` as sent): its robots
        part lists them (``agents``) for ``audit verify``."""
        robots = state.robots
        if robots is None or robots.obeyed or robots.agents:
            return
        header = request.headers.get(b"User-Agent") if request.headers else None
        names = held_names(self._declared, header.decode("latin-1") if header else "")
        if len(names) > 1:
            state.robots = RobotsPart(*robots[:6], agents=tuple(names))

    def _part_of(self, url: str, page: Page) -> dict[str, Any]:
        """What ``page`` (at ``url``) said, as a record's ``page`` part; statements too long
        for the line are a snapshot of their own (kind ``page``), which the part names."""
        said, facts = page.statements, page.facts
        part = lines.page_part(
            facts.tokens if facts is not None else (),
            said.headers,
            said.meta,
            image=facts is not None and facts.image,
            embedded_by=facts.embedded_by if facts is not None else "",
            decided=page.decided,
            cached=page.cached,
        )
        body = lines.page_snapshot(part)
        if body is None:
            return part
        return lines.snapshotted(part, self.writer.snapshot_body("page", url, body, None))

    def internal_error(self, where: str) -> None:
        """Counted (``rep/audit/errors``); the first one logged with its traceback."""
        inc(self.stats, "rep/audit/errors")
        if not self._errors_logged:
            self._errors_logged = True
            logger.exception("scrapy_rep internal error in the audit trail (%s)", where)


def robots_sha(state: UrlEntry) -> str:
    """The snapshot of the robots.txt that decided the record (``""``: none)."""
    robots = state.robots
    return robots.sha256 if robots else ""
