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
    ledger.attempted(request)  # (FETCHED, ATTEMPT): a copied meta's
    ledger.sent_at("k-1", 1.0, 2.0)  # (FETCHED, SENT): its time, no attempt
    ledger.failed(request, IgnoreRequest("dropped"))  # (FETCHED, FAILED)
    assert ledger.open["k-1"] is fetched
    assert (fetched.attempts, fetched.status) == (1, 200)
    del ledger.open["k-1"]
    ledger.attempted(request)  # (NONE, ATTEMPT)
    ledger.sent_at("k-1", 1.0, 2.0)  # (NONE, SENT)
    assert ledger.open == {} and ledger.counts == {}


def test_an_attempt_is_told_as_the_request_leaves_its_slot() -> None:
    """Where the downloader's send is reached, a request decided here is tried as it
    leaves its slot (its send time and attempt told at once), no longer as it reaches the
    downloader: one held, refused or moved at its send tried nothing, and nothing is taken
    back."""
    from pydispatch import dispatcher
    from scrapy import signals

    ledger = _ledger()
    request = Request("http://a.test/x")
    recorded(request, "k-1")
    entry = ledger.open["k-1"] = UrlEntry(request.url, status=503)
    sender = ledger.crawler.signals.sender

    def listening() -> bool:
        found = dispatcher.liveReceivers(
            dispatcher.getAllReceivers(sender, signals.request_reached_downloader)
        )
        return any(getattr(receiver, "__self__", None) is ledger for receiver in found)

    assert listening()
    ledger.attempts_at_send()
    assert not listening()
    ledger.sent_at("k-1", 1.0, 2.0)
    assert (entry.attempts, entry.status, entry.sent_at, entry.expires) == (1, None, 1.0, 2.0)


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
