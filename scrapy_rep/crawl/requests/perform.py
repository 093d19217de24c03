"""Performing a verdict (:mod:`rep_engine.verdict`) on a Scrapy request: the one place that
does what a verdict means for the crawl, whichever pass reached it (the downloader
middleware, its early pass before the scheduler, the check of the request as sent).

- **Allowed**: the origin's crawl-delay on its download slot (SPEC §5,
  :mod:`scrapy_rep.crawl.documents.slots`), the stats, what the purposes' signals said
  kept in the request's state for the check of its page after the fetch, and the audit
  trail's record of the versions and the line that decided it.
- **Refused**: what every refusal does, before or after the fetch
  (:func:`scrapy_rep.crawl.refusals.refuse_request`: the stats, Scrapy's
  ``robotstxt/forbidden`` among them, the audit trail's record with the versions it was
  decided with, one DEBUG log line and the ``request_refused`` signal with the verdict
  itself); the ``IgnoreRequest`` for Scrapy (a :class:`~scrapy_rep.crawl.auditing.Refusal`)
  is returned, for the downloader's passes to raise (the early pass raises none). A
  request that could not be decided again as it is sent, by a bug of ours, is refused so
  too (:meth:`Performer.internal_error`).
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Final

from rep_engine.records import Action, Reason
from rep_engine.settings.rules import crawl_delay_obeyed
from rep_engine.verdict.decide import ROBOTS, Refused
from rep_engine.verdict.policy import NOTHING_BEFORE
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.auditing import LedgerCalls, Refusal, ledger_of
from scrapy_rep.crawl.refusals import refuse_request
from scrapy_rep.crawl.requeststate import decided
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from rep_engine.robotstxt import RobotsTxt
    from rep_engine.settings import RepConfig
    from rep_engine.verdict.decide import Allowed, Override, RequestFacts
    from scrapy_rep.crawl.documents.slots import CrawlDelaySlots

logger = logging.getLogger(__name__)
#: The verdict of a request decided with no document holds whenever it is sent.
_FOREVER: Final = math.inf


class Performer:
    """Does what each verdict of one crawl means."""

    def __init__(self, crawler: Crawler, config: RepConfig, slots: CrawlDelaySlots) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.slots = slots
        #: ``REP_OBEY_CRAWL_DELAY`` (yes in every profile unless set to False).
        self.obey_crawl_delay = crawl_delay_obeyed(config)
        self._audit = config.ledger
        #: The crawl's URL ledger once found (it is made after this; looked up until then).
        self._ledger: LedgerCalls | None = None
        #: The hosts whose override was said to apply, and to have expired (once each).
        self._overridden: set[str] = set()
        self._expired: set[str] = set()

    def allowed(self, request: Request, facts: RequestFacts, verdict: Allowed) -> None:
        """``request`` goes on. Its state says for which name it was decided (the check of
        the request as sent compares it), what the origin's documents said, and until when
        the verdict holds as it is sent (the freshness of each document version it was
        decided with, the override's expiry: the check as it leaves for the network,
        :mod:`scrapy_rep.crawl.requests.sentcheck`); its early token is spent."""
        before = None if verdict.before is NOTHING_BEFORE else verdict.before
        until = _FOREVER
        for _, _, entry in verdict.used:  # inline: the hot path
            if entry.fresh_until < until:
                until = entry.fresh_until
        overridden = verdict.overridden
        if overridden is not None and overridden.ends < until:
            until = overridden.ends
        # the trail first, while the state is still that of the request object it was
        # last decided on: a state a copied meta brought is told by it (another object)
        if self._audit and verdict.used:
            ledger = self._ledger
            if ledger is None:  # one lookup per crawl, not per request (the hot path)
                ledger = self._ledger = ledger_of(self.crawler)
            if ledger is not None:
                ledger.decided(request, facts, verdict)
        # the first time an override lets it through (decided again after a hold, at its
        # send, or retried, it is the same request): counted then only
        first = decided(
            request, before, facts.names or (facts.agent,), until, overridden is not None
        )
        if not verdict.used:
            return
        robots = verdict.used[0][2]
        if verdict.obeyed:
            if robots.unreachable:
                inc(self.stats, "rep/requests/allowed_unreachable")
            rules = robots.rules
            if self.obey_crawl_delay and facts.origin is not None and rules.any_crawl_delay:
                others = facts.names[1:]  # held to more than one name: the longest delay
                delay = _longest_delay(rules, facts) if others else rules.crawl_delay(facts.agent)
                if delay is not None and delay > 0:  # no call on the hot path without one
                    self.slots.apply(request, facts.origin, delay)
        if first:
            self._note_override(request, verdict)

    def refused(
        self, request: Request, facts: RequestFacts, verdict: Refused, admitted: bool = False
    ) -> Refusal:
        """``request`` is refused: counted, recorded (``admitted``: before the scheduler,
        which takes nothing more of it), logged, signalled; the ``IgnoreRequest`` that
        says so to Scrapy, for the downloader's passes to raise."""
        if verdict.expired is not None:
            self._note_expired(request, verdict)
        ledger = self._ledger
        if ledger is None and self._audit:  # one lookup per crawl, not per request
            ledger = self._ledger = ledger_of(self.crawler)
        refuse_request(
            self.crawler, Action.FETCH, request, verdict, facts=facts, admitted=admitted,
            ledger=ledger,
        )  # fmt: skip
        refusal = Refusal(verdict.message)
        refusal.verdict = verdict
        return refusal

    def internal_error(self, request: Request, message: str) -> Refusal:
        """``request`` could not be decided, by a bug of ours, where nothing of it is known
        to decide with (its check as it is sent): refused as ``internal_error``, never sent
        unchecked, as every refusal is (counted in ``rep/requests/internal_errors`` too);
        the ``IgnoreRequest`` to raise from the error. Whoever met the error logs it."""
        verdict = Refused(Reason.INTERNAL_ERROR, message, ROBOTS, "")
        refuse_request(self.crawler, Action.FETCH, request, verdict)
        refusal = Refusal(message)
        refusal.verdict = verdict
        return refusal

    def _note_override(self, request: Request, verdict: Allowed) -> None:
        """A request robots.txt disallows, let through by an authorized override: counted
        once (the first decision an override let it through:
        :attr:`~scrapy_rep.crawl.requeststate.RequestState.overridden`), said once per
        host at INFO (every one is in the audit trail) and signalled once
        (``request_overridden``: the report names each one)."""
        override = verdict.overridden
        assert override is not None
        self._note_once(
            self._overridden, "rep/requests/overridden", request, override,
            "scrapy_rep: robots.txt of %(host)s disallows %(url)s; crawled under the "
            "override in REP_OVERRIDES (%(override)s)",
        )  # fmt: skip
        self.crawler.signals.send_catch_log(
            rep_signals.request_overridden, request=request, verdict=verdict
        )

    def _note_expired(self, request: Request, verdict: Refused) -> None:
        """A request the override of its host no longer covers (it expired during the
        crawl): counted, and said once per host at INFO (each one's record names it)."""
        override = verdict.expired
        assert override is not None
        self._note_once(
            self._expired, "rep/requests/override_expired", request, override,
            "scrapy_rep: the override in REP_OVERRIDES of %(host)s has expired "
            "(%(override)s); its robots.txt is obeyed again from %(url)s on",
        )  # fmt: skip

    def _note_once(
        self, hosts: set[str], stat: str, request: Request, override: Override, message: str
    ) -> None:
        """Count ``stat``; say ``message`` at INFO the first time for the override's host."""
        inc(self.stats, stat)
        if override.host not in hosts:
            hosts.add(override.host)
            logger.info(
                message,
                {"host": override.host, "url": request.url, "override": override.described},
                extra={"spider": self.crawler.spider},
            )


def _longest_delay(rules: RobotsTxt, facts: RequestFacts) -> float | None:
    """The longest ``Crawl-delay`` of the groups of the names a request is held to (the
    stricter answer wins)."""
    delays = [d for d in map(rules.crawl_delay, facts.names) if d is not None]
    return max(delays) if delays else None
