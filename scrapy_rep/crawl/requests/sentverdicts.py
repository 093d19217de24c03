"""The verdict on a request again as it is sent (one decision: docs/decisions.md, 'One
request, one verdict'), which the robots.txt middleware gives the later checks:

- the check of a request as it is sent (:mod:`scrapy_rep.crawl.requests.sentcheck`):
  :meth:`SentVerdicts.decide_sent`, when a later middleware changed its ``User-Agent``,
  URL or ``Host`` (:meth:`SentVerdicts.same_site`);
- the check as it leaves its download slot (:mod:`scrapy_rep.crawl.requests.sendtime`):
  :meth:`SentVerdicts.decide_at_send`, past the instant its verdict held until.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from scrapy_rep.crawl.auditing import ledger_of
from scrapy_rep.crawl.requeststate import RequestState, follow_url, moved, sent_state
from scrapy_rep.verdict import (
    Known,
    RequestFacts,
    Verdict,
)

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_rep.crawl.documents.documents import OriginDocument
    from scrapy_rep.crawl.requests.decidedearly import EarlyDecisions
    from scrapy_rep.crawl.requests.facts import FactsReader
    from scrapy_rep.crawl.requests.perform import Performer
    from scrapy_rep.fetch.cache import CacheEntry
    from scrapy_rep.fetch.lifecycle import Lifecycle
    from scrapy_rep.robotstxt import RobotsTxt
    from scrapy_rep.settings import RepConfig
    from scrapy_rep.verdict import RequestRules


class SentVerdicts:
    """The verdict again on a request as it is sent: a base of
    :class:`~scrapy_rep.crawl.requests.downloadermiddlewares.RobotsTxtMiddleware`, which
    sets what is declared here."""

    crawler: Crawler
    config: RepConfig
    facts: FactsReader
    rules: RequestRules
    documents: dict[str, OriginDocument[Any]]
    lifecycle: Lifecycle[RobotsTxt]
    perform: Performer
    _clock: Callable[[], float]
    _decided_early: EarlyDecisions

    if TYPE_CHECKING:

        def _decide(self, request: Request, facts: RequestFacts, known: Known) -> Verdict: ...

        def _known(self, request: Request) -> Known: ...

    def decide_sent(self, request: Request) -> Verdict | None:
        """The verdict on ``request`` as it is about to be sent, when it was reached for
        other crawler names or another URL (a later middleware changed its User-Agent, or
        its URL in place; the check of :mod:`scrapy_rep.crawl.requests.sentcheck`):
        ``None`` when nothing changed. A URL changed in place takes the request's state
        and audit record with it: the record is the URL sent's, and says it changed."""
        state = sent_state(request)
        if state is None or not state.names:
            return None  # not decided here (not obeyed, no origin), or another's state
        if not moved(state, request):
            if self.facts.held_to(request, sent=True) == state.names and self.same_site(
                request, state
            ):
                return None
        else:
            follow_url(request)
            ledger = ledger_of(self.crawler) if self.config.ledger and state.audit else None
            if ledger is not None:
                sent = (f"URL changed from {state.url} by a downloader middleware after "
                        "scrapy_rep's; decided again for the URL sent")  # fmt: skip
                ledger.sent_changed(request, state.audit, sent, moved=True)
        facts = self.facts.of(request, sent=True)
        if facts.origin is None:
            return None
        return self._decide(request, facts, self._known(request))

    def same_site(self, request: Request, state: RequestState) -> bool:
        """Whether ``request``, not moved, is sent to the site it was decided for: its
        ``Host`` header is the one it was decided with, or names the same site (a ``Host``
        set after scrapy_rep's middleware, by a later one or by
        ``DEFAULT_REQUEST_HEADERS``, may address another: SPEC §3)."""
        headers = request.headers
        hosts = headers.getlist(b"Host") if headers else None
        host = hosts[-1] if hosts else b""
        if host == state.host:
            return True
        origin = self.facts.origins.get(request.url)
        if origin is None:
            return True
        now = self.facts.addressed(request, origin, host) if host else origin
        before = self.facts.addressed(request, origin, state.host) if state.host else origin
        return now == before

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
