"""The URL ledger's one table of transitions (scrapy_rep/crawl/auditing.py): every event
has a row in every phase of an entry, an event a phase ignores is a row that says so, and
a refusal's exception is no failure: the request's refusal settled its entry, so the
ledger is not told of it again (a refused request entered the ledger five times, two of
them calls that happened to do nothing: tests/integration/test_audit.py)."""

from __future__ import annotations

from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.test import get_crawler

from rep_engine.records import UrlEntry
from scrapy_rep.crawl.audit.audit import AuditTrail, url_ledger
from scrapy_rep.crawl.auditing import (
    IGNORE,
    TRANSITIONS,
    AuditMiddleware,
    Event,
    Phase,
    Refusal,
)
from scrapy_rep.crawl.requeststate import recorded


def test_every_event_has_a_row_in_every_phase() -> None:
    assert set(TRANSITIONS) == {(phase, event) for phase in Phase for event in Event}


def test_an_entry_settled_or_never_opened_ignores_what_changes_an_open_one() -> None:
    """A settled entry is no longer open: what would change an open one is ignored."""
    for event in (Event.ATTEMPT, Event.HELD, Event.SENT, Event.LICENSE, Event.ITEM_SCRAPED):
        assert TRANSITIONS[Phase.NONE, event] is IGNORE, event
        assert TRANSITIONS[Phase.OPEN, event] is not IGNORE, event
    for event in (Event.PAGE_DONE, Event.FAILED, Event.CLOSED):
        assert TRANSITIONS[Phase.NONE, event] is IGNORE, event


def _ledger() -> AuditTrail:
    crawler = get_crawler(Spider, {"REP_LEDGER": True})
    return url_ledger(crawler)


def test_the_events_an_entry_ignores_change_nothing() -> None:
    """Driven with plain calls: each row that says ignore leaves the entry as it was."""
    ledger = _ledger()
    request = Request("http://a.test/x")
    recorded(request, "k-1")
    fetched = ledger.open["k-1"] = UrlEntry(request.url, attempts=1, status=200, fetched=True)
    ledger._attempt(request)  # (FETCHED, ATTEMPT): a copied meta's
    ledger.failed(request, IgnoreRequest("dropped"))  # (FETCHED, FAILED)
    assert ledger.open["k-1"] is fetched
    assert (fetched.attempts, fetched.status) == (1, 200)
    del ledger.open["k-1"]
    ledger._attempt(request)  # (NONE, ATTEMPT)
    ledger.sent_at("k-1", 1.0, 2.0)  # (NONE, SENT)
    ledger.not_sent("k-1")
    assert ledger.open == {} and ledger.counts == {}


def test_the_outermost_middleware_tells_no_refusal_as_a_failure() -> None:
    crawler = get_crawler(Spider, {"REP_LEDGER": True})
    ledger = url_ledger(crawler)
    told: list[BaseException] = []
    ledger.failed = lambda request, exception: told.append(exception)  # type: ignore[method-assign]
    middleware = AuditMiddleware(crawler)
    request = Request("http://a.test/x")
    middleware.process_exception(request, Refusal("Forbidden by robots.txt"))
    assert told == []
    error = IgnoreRequest("another component's")
    middleware.process_exception(request, error)
    assert told == [error]
