"""The verdict held at the moment a request leaves its download slot for the network
(docs/decisions.md, 'The verdict holds when the request leaves').

:class:`SendCheck` sits where Scrapy's downloader sends each request (put there at the
spider's start by :mod:`scrapy_rep.crawl.internals`); a request whose verdict no longer
holds is decided again there, and, when it is not to go now, raises :class:`HeldAtSend`
(held for a refresh) or :class:`MovedAtSend` (to go through another download slot).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest

from rep_engine.verdict import Refused, Wait
from scrapy_rep.crawl.auditing import ledger_of
from scrapy_rep.crawl.internals import send_through
from scrapy_rep.crawl.meta import DOWNLOAD_SLOT
from scrapy_rep.crawl.requeststate import RequestState, sent_state, state_of
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request

    from scrapy_rep.crawl.requests.handback import HandingBack
    from scrapy_rep.crawl.requests.perform import Performer

logger = logging.getLogger(__name__)


class HeldAtSend(IgnoreRequest):
    """A request handed back at its send to be held for a document (:class:`SendCheck`):
    scrapy_rep's ``process_exception`` returns it, so the engine schedules it again and it
    is held; should nothing return it, it is an ``IgnoreRequest``, dropped quietly."""


def returned_if_held(
    component: Any, request: Request, exception: Exception, spider: Any = None
) -> Request | None:
    """A downloader middleware's ``process_exception``: ``request``, handed back at its
    send (:class:`HeldAtSend`), returned to the engine to be held; else ``None``."""
    return request if isinstance(exception, HeldAtSend) else None


class MovedAtSend(HeldAtSend):
    """A request handed back at its send, decided to go through another download slot
    than the one it leaves (its origin's, with a ``Crawl-delay`` that became known while
    it waited): returned as :class:`HeldAtSend` is, it is scheduled again, not held, and
    enters the downloader in that slot."""


class SendCheck:
    """The verdict held at the moment a request leaves its download slot for the network
    (docs/decisions.md, 'The verdict holds when the request leaves').

    A request waits in its download slot after every downloader middleware (the slot's
    delay, ``Crawl-delay``, AutoThrottle, a long queue): its verdict rests on document
    versions that may go stale and an override that may expire meanwhile. Its state says
    until when the verdict holds (:attr:`~scrapy_rep.crawl.requeststate.RequestState
    .until`); a request sent later is decided again first, for what it is sent as
    (:meth:`~scrapy_rep.crawl.requests.handback.HandingBack.decide_at_send`): refused as
    any other (stats, log, signal, audit trail), held for a refresh (handed back:
    :class:`HeldAtSend`), handed back to go through its origin's download slot when a
    ``Crawl-delay`` became known meanwhile (:class:`MovedAtSend`), or sent under the new
    verdict. The usual request costs one call and a comparison. The audit trail's record
    takes the send time and until when its verdict held (``sent_at``, ``expires``)."""

    def __init__(self, owner: HandingBack, perform: Performer, keeps_ledger: bool) -> None:
        #: The robots.txt middleware, which decides again and hands back (its clock read
        #: at each send: a test may set another).
        self.owner = owner
        self.perform = perform
        self.stats = owner.crawler.stats
        self._keeps_ledger = keeps_ledger
        self._send: Any = None
        self._sent_at: Callable[[str, float, float], None] | None = None
        self._not_sent: Callable[[str], None] | None = None

    def install(self, engine: Any) -> bool:
        """Put :meth:`sending` where the downloader sends each request (and the audit
        trail's ledger, built by now, is told of each send); whether it could."""
        ledger = ledger_of(self.owner.crawler) if self._keeps_ledger else None
        if ledger is not None:
            self._sent_at, self._not_sent = ledger.sent_at, ledger.not_sent
        self._send = send_through(engine, self.sending)
        return self._send is not None

    def sending(self, request: Request, *rest: Any) -> Any:
        """``request`` leaves its slot now: decided again if its verdict no longer holds,
        then handed to Scrapy's download handler (``rest``: its other arguments)."""
        state = sent_state(request)
        if state is not None and state.names:
            sent = time.time()  # the wall clock, read before the verdict's: never after it
            now = self.owner._clock()
            expires = state.until
            if now >= expires:
                expires = self._check(request, state, now)
            if self._sent_at is not None and state.audit:  # when, by the wall clock
                # (the one the record's ``time`` is written by; the verdict's clock may be
                # another one's, a test's or a program's: ``now`` decides, not records)
                self._sent_at(state.audit, sent, expires)
        return self._send(request, *rest)

    def _check(self, request: Request, state: RequestState, now: float) -> float:
        """Decide ``request`` again as it is sent (raises when it is not to go); until when
        the verdict it goes under holds."""
        owner = self.owner
        try:
            decided = owner.decide_at_send(request, state)
        except Exception as error:  # a bug of ours: refused, never sent unchecked
            logger.exception("scrapy_rep internal error checking %s as it is sent", request)
            what = f"{type(error).__name__}: {error}"[:200]
            message = (
                f"Dropped: scrapy_rep could not decide it at its send (internal error: {what})"
            )
            self._unsent(state)
            self.perform.internal_error(request, message, error)
        if decided is None:
            return math.inf
        facts, verdict = decided
        inc(self.stats, "rep/requests/decided_at_send")
        if isinstance(verdict, Refused):
            self._unsent(state)
            self.perform.refused(request, facts, verdict)
        if isinstance(verdict, Wait):
            if state.afresh:  # held for a refresh once already: its verdict stands
                inc(self.stats, "rep/requests/sent_decided_afresh")
                return now  # it held until it was sent (docs/audit-trail.md, ``expires``)
            self._unsent(state)
            owner.hold_at_send(request, verdict)
            inc(self.stats, "rep/requests/held_at_send")
            raise HeldAtSend(f"held at its send until its {verdict.document} is known")
        leaving = request.meta.get(DOWNLOAD_SLOT)
        self.perform.allowed(request, facts, verdict)
        if request.meta.get(DOWNLOAD_SLOT) != leaving:
            # a Crawl-delay known since it entered the downloader: its origin's slot, not
            # the one it leaves (two slots would halve the delay; crawl/documents/slots.py)
            self._unsent(state)
            inc(self.stats, "rep/requests/moved_at_send")
            request.dont_filter = True  # the dupefilter saw it already
            raise MovedAtSend(
                f"handed back to go through download slot {request.meta[DOWNLOAD_SLOT]}"
            )
        until = state_of(request).until  # type: ignore[union-attr]  # allowed: decided
        if now < until:
            return until
        # sent under a version gone stale, as only a request decided afresh once already,
        # or one whose refresh cannot run, is: its verdict holds while that copy is usable
        expires = min((entry.stale_until for _, _, entry in verdict.used), default=math.inf)
        override = verdict.overridden
        return min(expires, override.ends) if override is not None else expires

    def _unsent(self, state: RequestState) -> None:
        """The request reached the downloader but does not leave for the network: its
        audit record's attempt is taken back (``attempts`` counts downloads tried)."""
        if self._not_sent is not None and state.audit:
            self._not_sent(state.audit)
