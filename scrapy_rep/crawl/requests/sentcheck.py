"""The verdict checked against the request as it is sent (docs/decisions.md, 'One request,
one verdict').

:class:`SentRequestCheck` is a downloader middleware late in the chain (:data:`PRIORITY`:
after the ``User-Agent`` middleware and where user-agent rotators sit, before Scrapy's HTTP
cache, which may answer without sending): when a component after scrapy_rep's robots.txt
middleware changed the request's ``User-Agent`` so that it is held to other crawler names
(and those names are not all allowed), changed its URL in place, or set a ``Host`` header
that addresses another site (SPEC §3: robots.txt is the site's; a middleware at 500 or
950, or ``DEFAULT_REQUEST_HEADERS``), the request is decided again, with the same
function, for what it is sent as. Only the request object the verdict was reached on is
checked (:func:`~scrapy_rep.crawl.requeststate.sent_state`): a callback's request that
copied its page's meta carries the page's state, which is not its own. A refusal is
performed as any other (stats, log, signal, audit trail; a URL changed in place takes its
audit record with it, which says so in ``sent``). A document the request now needs that
is not known yet (an RSL license of another group, the robots.txt of the origin it was
moved to or of the site it now addresses) cannot be waited for here: the request is
dropped, with a stat and a log line saying why, never sent on the first verdict.

A project's downloader middleware after :data:`PRIORITY` (a rotator at 950) could change
the request again. At the spider's start the check then also puts itself last in the
downloader's chain (said once at INFO, naming those middlewares), so that what is sent is
what was decided. Where the chain cannot be reached, such a change cannot be decided
again: a WARNING at start names the middlewares, and each request sent changed is counted
(``rep/requests/sent_unchecked``), logged as an ERROR naming the priority range and
recorded in its audit record (``sent``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals

from rep_engine.records import Reason
from rep_engine.verdict.decide import Refused, Verdict, Wait
from scrapy_rep.crawl.auditing import ledger_of
from scrapy_rep.crawl.internals import (
    append_downloader_method,
    downloader_methods,
    running_engine,
)
from scrapy_rep.crawl.requests.downloadermiddlewares import (
    OWNERS,
    RobotsTxtMiddleware,
    returned_if_held,
)
from scrapy_rep.crawl.requests.facts import decoded
from scrapy_rep.crawl.requeststate import RequestState, follow_url, moved, sent_state, state_of
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self


logger = logging.getLogger(__name__)

#: After Scrapy's ``UserAgentMiddleware`` (500), rotators (400-550) and the proxy middleware
#: (750); before Scrapy's HTTP cache (900), which may answer without sending.
PRIORITY = 899


class SentRequestCheck:
    """Decides again a request sent for other names, to another URL or to another site
    (its ``Host`` header) than it was decided for."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._owner: RobotsTxtMiddleware | None = None
        #: The project's downloader middlewares that change requests after this check.
        self.later: list[str] = []
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request, spider: Any = None) -> Request | None:
        owner = self._owner
        if owner is None:
            owner = self._owner = OWNERS.get(self.crawler)
            if owner is None:
                return None
        state = state_of(request)  # the usual request: the names it was decided for
        if state is not None:
            headers = request.headers
            values = headers.getlist(b"User-Agent") if headers else None
            if values and len(values) == 1 and owner.facts.names.get(values[0]) == state.names:
                hosts = headers.getlist(b"Host")
                if (hosts[-1] if hosts else b"") == state.host:  # sent to the site decided
                    return None
        try:
            verdict = decide_sent(owner, request)
        except Exception:  # never lose a request over a bug of ours: the verdict stands
            inc(self.crawler.stats, "rep/requests/sent_check_errors")
            logger.exception("scrapy_rep internal error checking %s as sent", request)
            return None
        if verdict is None:
            return None
        inc(self.crawler.stats, "rep/requests/decided_again")
        facts = owner.facts.of(request, sent=True)
        if isinstance(verdict, Refused):
            raise owner.perform.refused(request, facts, verdict)
        if isinstance(verdict, Wait):  # it cannot wait here: refused, never sent unchecked
            message = (
                "Dropped: sent with another User-Agent, URL or Host than it was checked for; "
                f"the {verdict.document} of {verdict.key} it needs is not known"
            )
            logger.info("scrapy_rep: %s: %s", message, request)
            unknown = Refused(Reason.SENT_UNKNOWN, message, verdict.document, facts.agent)
            raise owner.perform.refused(request, facts, unknown)
        owner.perform.allowed(request, facts, verdict)
        return None

    #: A request handed back at its send goes back to the engine, to be held, before any
    #: other middleware takes it for a failure.
    process_exception = returned_if_held

    def check_last(self, request: Request, spider: Any = None) -> Request | None:
        """:meth:`process_request`, last in the downloader's chain: after the project's
        downloader middlewares placed after :data:`PRIORITY` (called with ``spider`` by
        the Scrapy releases that pass it to every method)."""
        return self.process_request(request)

    def _spider_opened(self, spider: Any = None) -> None:
        engine = running_engine(self.crawler)
        self.later = later = _changers_after(self, downloader_methods(engine, "process_request"))
        if not later:
            return  # the usual crawl: nothing after this check but Scrapy's own
        names = ", ".join(later)
        if append_downloader_method(engine, "process_request", self.check_last):
            logger.info(
                "scrapy_rep: downloader middlewares after priority %d may change a request's "
                "User-Agent, URL or Host (%s): each request is checked again last, just before it "
                "is sent",
                PRIORITY,
                names,
                extra={"spider": spider},
            )
            return
        logger.warning(
            "scrapy_rep: downloader middlewares after priority %d may change a request's "
            "User-Agent, URL or Host (%s), and the request cannot be checked again after them: "
            "such a request is sent unchecked (an ERROR each time). Give them a priority "
            "below %d",
            PRIORITY,
            names,
            PRIORITY,
            extra={"spider": spider},
        )
        self.crawler.signals.connect(self._reached, signal=signals.request_reached_downloader)

    def _reached(self, request: Request, spider: Any = None) -> None:
        """A request reached the downloader: sent changed after the last check (only when
        it could not be put last), it is counted, logged as an ERROR and recorded."""
        state = sent_state(request)
        owner = self._owner
        if state is None or not state.names or owner is None:
            return
        if moved(state, request):
            what = f"its URL changed to {request.url}"
        elif owner.facts.held_to(request, sent=True) != state.names:
            values = [decoded(value) for value in request.headers.getlist(b"User-Agent")]
            what = f"its User-Agent changed to {' + '.join(map(repr, values)) or 'none'}"
        elif not same_site(owner, request, state):
            hosts = request.headers.getlist(b"Host")
            what = f"its Host header changed to {decoded(hosts[-1]) if hosts else 'none'!r}"
        else:
            return
        inc(self.crawler.stats, "rep/requests/sent_unchecked")
        sent = f"sent unchecked: {what} by a downloader middleware after priority {PRIORITY}"
        logger.error(
            "scrapy_rep: %(request)s was %(sent)s (%(names)s), and could not be decided "
            "again: give that middleware a priority below %(priority)d",
            {"request": state.url, "sent": sent, "names": ", ".join(self.later),
             "priority": PRIORITY},
            extra={"spider": spider},
        )  # fmt: skip
        ledger = ledger_of(self.crawler) if state.audit else None
        if ledger is not None:
            ledger.sent_changed(request, state.audit, sent, moved=False)


def decide_sent(owner: RobotsTxtMiddleware, request: Request) -> Verdict | None:
    """The verdict on ``request`` as it is about to be sent, when it was reached for
    other crawler names or another URL (a later middleware changed its User-Agent, or
    its URL in place): ``None`` when nothing changed. A URL changed in place takes the
    request's state and audit record with it: the record is the URL sent's, and says it
    changed."""
    state = sent_state(request)
    if state is None or not state.names:
        return None  # not decided here (not obeyed, no origin), or another's state
    if not moved(state, request):
        if owner.facts.held_to(request, sent=True) == state.names and same_site(
            owner, request, state
        ):
            return None
    else:
        follow_url(request)
        ledger = ledger_of(owner.crawler) if owner.config.ledger and state.audit else None
        if ledger is not None:
            sent = (f"URL changed from {state.url} by a downloader middleware after "
                    "scrapy_rep's; decided again for the URL sent")  # fmt: skip
            ledger.sent_changed(request, state.audit, sent, moved=True)
    facts = owner.facts.of(request, sent=True)
    if facts.origin is None:
        return None
    return owner._decide(request, facts, owner._known(request))


def same_site(owner: RobotsTxtMiddleware, request: Request, state: RequestState) -> bool:
    """Whether ``request``, not moved, is sent to the site it was decided for: its
    ``Host`` header is the one it was decided with, or names the same site (a ``Host``
    set after scrapy_rep's middleware, by a later one or by
    ``DEFAULT_REQUEST_HEADERS``, may address another: SPEC §3)."""
    headers = request.headers
    hosts = headers.getlist(b"Host") if headers else None
    host = hosts[-1] if hosts else b""
    if host == state.host:
        return True
    origin = owner.facts.origins.get(request.url)
    if origin is None:
        return True
    now = owner.facts.addressed(request, origin, host) if host else origin
    before = owner.facts.addressed(request, origin, state.host) if state.host else origin
    return now == before


def _changers_after(check: SentRequestCheck, chain: list[Any]) -> list[str]:
    """The project's downloader middlewares whose ``process_request`` comes after
    ``check``'s in ``chain`` (Scrapy's own and scrapy_rep's change no User-Agent or URL)."""
    found: list[str] = []
    after = False
    for method in chain:
        component = getattr(method, "__self__", None)
        if component is check:
            after = True
            continue
        module = type(component).__module__
        if after and not module.startswith(("scrapy.", "scrapy_rep.")):
            found.append(f"{module}.{type(component).__qualname__}")
    return found
