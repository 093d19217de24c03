"""The audit trail's final fates told by scrapy_rep itself (docs/audit-trail.md, "url
records"): a request refused, a page whose output has gone through the spider middleware
(with the page's ledger: :mod:`scrapy_rep.crawl.ledger`), a download that failed after
every retry, and the ``file`` records of the media pipelines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.http import Response

from rep_engine.records import LINK_REASONS, REFUSED_BY, Fate, Reason
from rep_engine.trail import lines
from rep_engine.verdict.policy import NOTHING_BEFORE
from scrapy_rep.crawl.audit.auditrequests import RequestEvents
from scrapy_rep.crawl.audit.auditstate import NOT_FOLLOWED_KEPT, guarded, robots_sha
from scrapy_rep.crawl.internals import dropped_response
from scrapy_rep.crawl.requeststate import any_state, before_of, moved, open_record, record_id

if TYPE_CHECKING:
    from scrapy import Request

    from rep_engine.usage.purpose import UsageDecision
    from rep_engine.verdict.decide import Refused
    from scrapy_rep.crawl.ledger import Page, PageLedger


class FateEvents(RequestEvents):
    """The final fates scrapy_rep's components tell the trail (signals and calls)."""

    def _refused(
        self,
        request: Request,
        reason: Reason | str,
        message: str,
        response: Response | None = None,
        verdict: Refused | None = None,
        **_: Any,
    ) -> None:
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            if reason in LINK_REASONS:  # a link, never requested: in its page's ledger
                return
            # its own record; else (never scheduled: sent with ``engine.download_async``, it
            # waited in place for a document the spider closed before; or a copied meta) one
            # opens here, unless it had one of its own
            state = self._outgoing(request)
            if state is None:
                return
            key = record_id(request)
            before = verdict.before if verdict is not None else before_of(request)
            extra: dict[str, Any] = {
                "refused_by": REFUSED_BY.get(reason, reason),
                "why": message,
            }
            if before is not NOTHING_BEFORE:
                extra["usage"] = lines.usage_part(
                    before.decision(), robots_sha(state), state.tdm or "", state.licenses or {}
                )
            self._final(key, state, Fate.REFUSED, extra, reason)
        except Exception:
            self.internal_error("_refused")

    def page_done(self, response: Response, ledger: PageLedger, page: Page | None = None) -> None:
        """scrapy_rep's spider middleware passed on the spider's whole output for a page: its
        ``ledger``, on which the items kept are settled (those that reached the end of the
        crawl, the others ``items_not_kept``), with what the ``page`` said
        (:meth:`page_said`). Called directly (cheaper than a signal)."""
        try:  # guarded inline (the hot path: the decorator's wrapper is a call)
            links = ledger.links
            if links:  # never requested: no records, counted at the end
                self.counts["not_followed"] += len(links)
            request = response.request
            key = record_id(request)  # open_record's lookup, its id kept for _final
            scraped = self.scraped.pop(key, 0)
            state = self.open.get(key) if key else None
            if state is None or request is None:
                return
            # kept: the items passed on that reached the end of the crawl (none beyond
            # those passed on: a later component that adds items adds none of the page's)
            passed = ledger.passed
            kept = ledger.kept = min(passed, scraped) if ledger.through else passed
            dropped = sum(ledger.dropped.values())  # ledger.items_dropped, inline
            extra: dict[str, Any] = {"items_kept": kept, "items_dropped": dropped}
            if kept < passed:
                extra["items_not_kept"] = passed - kept
            if ledger.reason is not None:
                extra["item_reason"] = ledger.reason
                if ledger.why:
                    extra["item_why"] = ledger.why
            if links:
                extra["links_not_followed"] = len(links)
                extra["not_followed"] = [url for url, _, _ in links[:NOT_FOLLOWED_KEPT]]
            extra.update(self.page_said(state, request, page))
            state.status = response.status
            self.counts["items_passed"] += passed  # the end line's: verify bounds each record
            self._final(key, state, Fate.FETCHED, extra, ledger)
        except Exception:
            self.internal_error("page_done")

    def _item_scraped(self, response: object = None, **_: Any) -> None:
        """An item of ``response``'s page went through the item pipelines (``item_scraped``,
        sent before the scraper says the page's whole output is through), counted on the
        page's open entry until :meth:`page_done` settles it. An item a later component drops
        is not counted: a project's spider middleware after the page pass drops it without a
        signal, an item pipeline with ``item_dropped`` or ``item_error``."""
        if not isinstance(response, Response):  # an item of no page (start(), an errback's)
            return
        try:  # guarded inline (the hot path: a call per item)
            key = record_id(response.request)
            if key and key in self.open:
                scraped = self.scraped
                scraped[key] = scraped.get(key, 0) + 1
        except Exception:
            self.internal_error("_item_scraped")

    @guarded  # called from AuditMiddleware.process_exception: a bug of ours must not
    # replace the request's own exception
    def failed(self, request: Request, exception: BaseException) -> None:
        """No response after every retry (:class:`scrapy_rep.crawl.auditing.AuditMiddleware`).
        A redirect's request the engine downloads for a component (never scheduled) that
        failed before it was decided (a downloader middleware before the robots.txt one
        dropped it) has its record opened now, the one before it ``redirected``, as at its
        decision."""
        state = open_record(request, self.open)
        if state is None:
            ref = any_state(request)
            if (
                ref is not None
                and ref.audit in self.open
                and moved(ref, request)
                and ref.url in request.meta.get("redirect_urls", ())
            ):
                state = self._outgoing(request)
        if state is None or state.fetched:
            return
        self._final(record_id(request), state, Fate.FAILED, {"why": why_of(exception)}, exception)

    def failure_scraped(self, request: Request, failure: Any) -> None:
        """The scraper (or the engine, for a component's own download) is through with a
        download's ``failure`` (its errback ran, or Scrapy logged it): a record still open
        failed where no component of ours is
        told (a downloader middleware raised in its ``process_response``: ``IgnoreRequest``
        to drop the response, Scrapy calls no ``process_exception`` and sends no signal of
        it; or in its ``process_exception`` before AuditMiddleware's), with the status of the
        response dropped (:func:`~scrapy_rep.crawl.internals.dropped_response`), ``why``
        naming the exception as for one that reaches that middleware. Called
        directly for every failure scraped (a refused request's too, settled already: one
        lookup)."""
        try:  # guarded inline (a call per refused request)
            state = open_record(request, self.open)
            if state is None or state.fetched:
                return
            exception = failure.value
            response = dropped_response(failure, request)
            if response is not None:
                state.status = response.status
            key = record_id(request)
            self._final(key, state, Fate.FAILED, {"why": why_of(exception)}, exception)
        except Exception:
            self.internal_error("failure_scraped")

    @guarded
    def _file_checked(
        self,
        url: str,
        decision: UsageDecision,
        reading: Any,
        refusal: Refused | None,
        fate: str = "",
        error: str = "",
        **_: Any,
    ) -> None:
        """A file the media pipelines downloaded, held against the crawl's purposes, once
        the pipeline knows its fate (``failed``: ``error`` says why)."""
        if not fate:  # not said: what the refusal and REP_PURPOSE_ACTION make it
            marked = self.config.purpose_action == "mark"
            fate = "stored" if refusal is None else "marked" if marked else "refused"
        record = lines.file_line(self.run, url, fate, decision, reading.to_dict())
        if refusal is not None:
            record["refused_for"] = refusal.purpose
            record["why"] = refusal.message
        if error:
            record["error"] = error[:300]
        self.counts["files"] += 1
        self._emit(record)
        for reader in self.readers:
            reader.file_settled(url, fate, refusal, error)


def why_of(exception: BaseException) -> str:
    """A failed record's ``why``: the exception's name and message."""
    return f"{type(exception).__name__}: {exception}".rstrip(": ")
