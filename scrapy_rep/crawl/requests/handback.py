"""Requests handed back to the engine to be held (SPEC §4), as the robots.txt middleware
does it (docs/decisions.md, 'A held request is decided once, when its robots.txt is known').

A request whose document is not known yet is marked by that document
(:meth:`~scrapy_rep.crawl.documents.documents.OriginDocument.hold_or_wait`) and returned
from ``process_request`` (or raised back at its send): Scrapy schedules it again, and
:class:`HandingBack` catches it in ``request_scheduled`` (dropped there, not queued) and
gives it to its document to hold. It listens to that signal only while some are on their
way. One that comes straight back (``engine.download_async``, which no scheduler holds)
waits in place instead. While requests are held the spider stays open.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest

from rep_engine.fetch.kinds import HoldKey
from rep_engine.verdict import Wait
from scrapy_rep.crawl.documents.documents import HOLD
from scrapy_rep.crawl.internals import call_later
from scrapy_rep.crawl.requeststate import take_hold

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.verdict import Allowed, Known, Refused, RequestFacts, Verdict
    from scrapy_rep.crawl.documents.documents import OriginDocument
    from scrapy_rep.crawl.documents.holding import HeldRequests
    from scrapy_rep.crawl.requests.facts import FactsReader
    from scrapy_rep.crawl.requeststate import RequestState


class HandingBack:
    """The hand-back of requests to be held: a base of
    :class:`~scrapy_rep.crawl.requests.downloadermiddlewares.RobotsTxtMiddleware`, which
    sets what is declared here."""

    crawler: Crawler
    #: Every document the crawl's purposes need, by name.
    documents: dict[str, OriginDocument[Any]]
    held: HeldRequests
    facts: FactsReader
    #: The time now (POSIX seconds): the clock the verdicts' freshness is read on.
    _clock: Callable[[], float]
    #: The requests handed back to be held that ``_request_scheduled`` has not caught
    #: yet, by ``id`` (the engine schedules the very object returned): it listens only
    #: while there are some (a receiver costs every dispatch), and reads the state of
    #: those only (not of every request scheduled meanwhile).
    _marked: set[int]
    _listening: bool

    if TYPE_CHECKING:

        def _decide(self, request: Request, facts: RequestFacts, known: Known) -> Verdict: ...

        def _known(self, request: Request) -> Known: ...

    async def _waited(
        self, request: Request, facts: RequestFacts, known: Known, verdict: Verdict
    ) -> Allowed | Refused | Request:
        """``request`` waits for the document ``verdict`` names, carrying the versions it
        was decided with so far: handed back to be held (the request returned: caught by
        ``_request_scheduled``), or (it came straight back, its mark taken off) it waits
        here, then is decided again by what it carries and the version it was woken with
        (it carries that too: :meth:`OriginDocument.wait`), until it is decided."""
        while isinstance(verdict, Wait):
            document = self.documents[verdict.document]
            self._carry_used(request, verdict)
            if document.hold_or_wait(verdict.key, request, verdict.also) is HOLD:
                return self._hand_back(request)
            self._unmarked(request)
            await document.wait(verdict.key, request, verdict.also)
            known = self._known(request)
            verdict = self._decide(request, facts, known)
        return verdict

    async def _came_straight_back(self, request: Request) -> None:
        """``request`` was handed back to be held and is here again without a scheduler
        having held it (``engine.download_async`` sends what it is handed back at once):
        it waits in place for the document it was handed back for, as the scheduler's
        request is held for it (SPEC §4). Handed back at its send for a refresh
        (:meth:`decide_at_send`), it waits for the refresh, not for the stale copy still
        in use meanwhile)."""
        self._unmarked(request)
        hold = take_hold(request)
        if hold is not None:
            name, key, also = hold
            await self.documents[name].wait_released(key, request, also)

    def hold_at_send(self, request: Request, verdict: Wait) -> None:
        """``request``, reached at its send, waits for ``verdict``'s document: marked to be
        held, carrying the versions decided already, handed back to the engine (the
        exception its send raises is turned back into it: :meth:`process_exception`)."""
        self.documents[verdict.document].hold_or_wait(verdict.key, request, verdict.also)
        self._carry_used(request, verdict)
        self._hand_back(request)

    def _carry_used(self, request: Request, verdict: Wait) -> None:
        """``request`` carries the document versions ``verdict`` was decided with so far:
        it is decided by them when it comes back, whatever the cache holds by then."""
        for kind, key, entry in verdict.used:
            self.documents[kind].carry(request, entry, key)

    def decide_at_send(
        self, request: Request, state: RequestState
    ) -> tuple[RequestFacts, Verdict] | None:
        """The verdict on ``request`` as it leaves its download slot for the network, past
        the instant its verdict held until (:attr:`RequestState.until`: a document version
        it was decided with went stale, or its override expired, while it waited in the
        slot; :class:`~scrapy_rep.crawl.requests.sentcheck.SendCheck`): decided again for
        what it is sent as, with each document's fresh version; for one gone stale it
        waits for the refresh (:meth:`OriginDocument.afresh`: the shared store asked
        first), once: decided afresh already, or with no refresh to wait for (they fail),
        the stale copy decides. An override is held against the time it is sent.
        ``None``: nothing is decided for it (no origin)."""
        facts = self.facts.of(request, sent=True)
        if facts.origin is None:
            return None
        documents = self.documents
        now = self._clock()
        afresh = state.afresh

        def known(kind: str, key: Hashable) -> CacheEntry[Any] | None:
            document = documents[kind]
            entry = document.lifecycle.fresh_entry(key, now)
            if entry is not None:
                return entry
            return document.entry(key, request) if afresh else document.afresh(key, request)

        return facts, self._decide(request, facts, known)

    def _hand_back(self, request: Request) -> Request:
        """Return ``request`` (marked by its document's ``hold_or_wait``) to the engine, and
        listen to ``request_scheduled`` until it comes through."""
        self._marked.add(id(request))
        if not self._listening:
            self._listening = True
            self.crawler.signals.connect(self._request_scheduled, signal=signals.request_scheduled)
        return request

    def _unmarked(self, request: Request) -> None:
        """A marked request came through (or straight back). When none is left, stop
        listening to ``request_scheduled``, which comes for every request scheduled;
        on the next turn of the reactor (or loop): disconnecting while the signal is being sent
        would make pydispatch skip the receiver after ours."""
        marked = self._marked
        marked.discard(id(request))
        if not marked and self._listening:
            call_later(0, self._stop_listening)

    def _stop_listening(self) -> None:
        if not self._marked and self._listening:
            self._listening = False
            self.crawler.signals.disconnect(
                self._request_scheduled, signal=signals.request_scheduled
            )

    def _request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        if id(request) not in self._marked:
            return  # not handed back to be held: its state is not read (no call)
        hold = take_hold(request)
        self._unmarked(request)
        if hold is None:
            return
        name, key, also = hold
        self.documents[name].hold(key, request, also)
        raise IgnoreRequest(f"held until its {name} is known")  # not enqueued, not logged

    def _spider_idle(self) -> None:
        """Keep the spider open while requests are held (SPEC §4), and make sure every
        key holding requests has its document, a download or a retry under way."""
        for hold in self.held.origins():
            assert isinstance(hold, HoldKey)
            self.documents[hold.kind].idle(hold.key)
        if len(self.held) or any(d.lifecycle.downloading for d in self.documents.values()):
            raise DontCloseSpider
