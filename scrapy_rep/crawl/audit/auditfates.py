"""The audit trail's final fates told by scrapy_rep itself (docs/audit-trail.md, "url
records"): a request refused (``request_refused``), a page whose output has gone through
the spider middleware (``page_done``), a download that failed after every retry
(``failed``), and the ``file`` records of the media pipelines (``file_checked``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy_rep.audit import lines
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.audit.auditfile import FETCHED, ITEM_REASON, LICENSES, NOFOLLOW, STATUS, TDM
from scrapy_rep.crawl.audit.auditstate import (
    NOT_FOLLOWED_KEPT,
    AuditState,
    guarded,
    robots_sha,
)
from scrapy_rep.crawl.requeststate import before_of, open_record, record_id
from scrapy_rep.usage.policy import NOTHING_BEFORE
from scrapy_rep.verdict.reasons import LINK_REASONS, Reason

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Response

    from scrapy_rep.usage.purpose import UsageDecision
    from scrapy_rep.verdict import Refused
    from scrapy_rep.verdict.page import PageFacts, PageStatements


class FateEvents(AuditState):
    """The final fates scrapy_rep's components tell the trail (signals and calls)."""

    @guarded
    def _refused(
        self,
        request: Request,
        reason: Reason | str,
        message: str,
        response: Response | None = None,
        verdict: Refused | None = None,
        **_: Any,
    ) -> None:
        if reason in LINK_REASONS:  # a link, never requested: counted
            self.counts["not_followed"] += 1
            linking = getattr(response, "request", None)
            page = open_record(linking, self.open)
            if page is not None and linking is not None:
                page[NOFOLLOW] += 1
                links = self.not_followed.setdefault(record_id(linking), [])
                if len(links) < NOT_FOLLOWED_KEPT:  # the count says how many in all
                    links.append(request.url)
            return
        key = record_id(request)
        state = self.open.get(key) if key else None
        if state is None:
            return
        before = verdict.before if verdict is not None else before_of(request)
        extra: dict[str, Any] = {"refused_by": lines.REFUSED_BY.get(reason, reason), "why": message}
        if before is not NOTHING_BEFORE:
            extra["usage"] = lines.usage_part(
                before.decision(), robots_sha(state), state[TDM] or "", state[LICENSES] or {}
            )
        self._final(key, state, "refused", **extra)

    @guarded
    def page_done(
        self,
        response: Response,
        kept: int,
        dropped: int,
        facts: PageFacts | None = None,
        statements: PageStatements | None = None,
    ) -> None:
        """scrapy_rep's spider middleware passed on the spider's whole output for a page:
        ``kept`` and ``dropped`` items; what the page said (``statements``, read for the
        names of ``facts``), kept in the record's ``page`` part. Called directly (a signal
        costs more per page)."""
        request = response.request
        state = open_record(request, self.open)
        if state is None or request is None:
            return
        key = record_id(request)
        item_why = self.item_why.pop(key, "")
        not_followed = self.not_followed.pop(key, [])
        extra: dict[str, Any] = {"items_kept": kept, "items_dropped": dropped}
        if state[ITEM_REASON]:
            extra["item_reason"] = state[ITEM_REASON]
            if item_why:
                extra["item_why"] = item_why
        if state[NOFOLLOW]:
            extra["links_not_followed"] = state[NOFOLLOW]
            if not_followed:
                extra["not_followed"] = not_followed
        decision = response.meta.get(meta.USAGE)
        if decision is None:
            before = before_of(request)
            decision = before.decision() if before is not NOTHING_BEFORE else None
        if decision is not None and decision.signals:
            sha = robots_sha(state)
            licenses = state[LICENSES] or {}
            extra["usage"] = lines.usage_part(decision, sha, state[TDM] or "", licenses)
        if facts is not None and statements is not None:
            extra["page"] = lines.page_part(facts.tokens, statements.headers, statements.meta)
        state[STATUS] = response.status
        self._final(record_id(request), state, "fetched", **extra)

    def failed(self, request: Request, exception: BaseException) -> None:
        """No response after every retry (:class:`scrapy_rep.crawl.auditing.AuditMiddleware`)."""
        state = open_record(request, self.open)
        if state is None or state[FETCHED]:
            return
        why = f"{type(exception).__name__}: {exception}".rstrip(": ")
        self._final(record_id(request), state, "failed", why=why)

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
        the pipeline knows its fate (``stored``, ``marked``, ``refused`` or ``failed``:
        the pipeline could not store it, ``error`` says why)."""
        if not fate:
            if refusal is None:
                fate = "stored"
            else:
                fate = "marked" if self.config.purpose_action == "mark" else "refused"
        record = lines.file_line(self.run, url, fate, decision, reading.to_dict())
        if refusal is not None:
            record["refused_for"] = refusal.purpose
            record["why"] = refusal.message
        if error:
            record["error"] = error[:300]
        self.counts["files"] += 1
        self._emit(record)
