"""Performing a refusal, before or after the fetch: the one place that counts it, logs it
and sends its signal, whichever pass refused or dropped it (docs/reference.md, 'Stats'
and 'Signals'); no other module sends ``request_refused``, ``item_refused`` or
``file_refused`` or counts a refusal's stats (``tests/project/test_architecture.py``).

A refusal is a :class:`rep_engine.verdict.decide.Refused` and what it refuses (its
:class:`rep_engine.records.Action`): **fetch**, a request before its download
(:mod:`scrapy_rep.crawl.requests.perform`, which also keeps the trail's record of the
versions it was decided with and raises ``IgnoreRequest``); **follow**, a request a page
yielded (nofollow, ``rel="nofollow"``, an image of a ``noimageai`` page:
:mod:`scrapy_rep.crawl.page.spidermiddlewares`, :mod:`scrapy_rep.crawl.page.images`); **keep**, an
item of a page (noindex, ``unavailable_after``, the crawl's purpose:
:mod:`scrapy_rep.crawl.page.spidermiddlewares`); **store**, a file a media pipeline downloaded that
the media gate refuses (:func:`refuse_file`, :mod:`scrapy_rep.crawl.media.pipelines`), or
one whose URL an item carried, taken out before its download by its page's ``noimageai``
(:func:`refuse_file_url`: the request the pipeline never sends, refused,
:mod:`scrapy_rep.crawl.page.images`). A request may also be dropped without a verdict
(:func:`drop_request`), or, one that cannot even be read back, only counted
(:func:`count_unread`); whoever dropped it says what failed (a WARNING). Each is counted in
``rep/requests/dropped/<reason>`` or ``rep/items/dropped/<reason>`` and the stats its
reason's row names (:data:`rep_engine.records.REASONS`), logged at DEBUG, then signalled
with the verdict (``None`` for a request dropped without one; the audit trail and the
report read the signal).
"""

from __future__ import annotations

import logging
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from scrapy import Request

from rep_engine.records import (
    LINK_REASONS,
    REASONS,
    SIGNALLED_AS,
    Action,
    Reason,
    dropped_stat,
)
from rep_engine.usage.rsl.terms import says_not_read
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.auditing import LEDGERS, LedgerCalls
from scrapy_rep.crawl.internals import error_line
from scrapy_rep.crawl.stats import inc, inc_each

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from rep_engine.records import Dropped, PageOutput
    from rep_engine.verdict.decide import Refused, RequestFacts

logger = logging.getLogger(__name__)


def refusal_stats(action: Action, verdict: Refused) -> tuple[str, ...]:
    """The stats one refusal counts (its reason's row's :attr:`~rep_engine.records.ReasonRow.counts`
    for ``action``, then its ``…/dropped/<reason>``)."""
    stats = _stats_of(action, verdict.reason, verdict.purpose)
    signal = verdict.signal
    if signal is not None and action is Action.FETCH and says_not_read(signal):
        stats = (*stats, "rep/rsl/requests_dropped/licenses_not_read")
    return stats


@cache  # one lookup per refusal
def _stats_of(action: Action, reason: Reason | Dropped, purpose: str | None) -> tuple[str, ...]:
    row = REASONS.get(reason)
    details = row.counts.get(action, ()) if row is not None else ()
    whole = tuple(name.format(reason=reason) for name in dropped_stat(action))
    return (*(name.format(purpose=purpose or "") for name in details), *whole)


def refuse_request(
    crawler: Crawler,
    action: Action,
    request: Request,
    verdict: Refused,
    response: Response | None = None,
    detail: str = "",
    output: PageOutput | None = None,
    facts: RequestFacts | None = None,
    admitted: bool = False,
    ledger: LedgerCalls | None = None,
) -> None:
    """``request`` is refused (``action``: fetch, or follow by the page ``response``): counted,
    in the page's ``output`` if kept, recorded by the crawl's URL ledger (``ledger``, when
    the caller has it; ``facts``: what the performer of verdicts decided it on;
    ``admitted``: refused before the scheduler, which takes nothing more of it; a link not
    followed is no request, so no record), logged at DEBUG (with ``detail``, what said it),
    then signalled."""
    reason, message = verdict.reason, verdict.message
    inc_each(crawler.stats, refusal_stats(action, verdict))
    if output is not None:
        output.link_refused(request.url, reason, message)
    if reason not in LINK_REASONS:
        if ledger is None:
            ledger = LEDGERS.get(crawler)
        if ledger is not None:
            ledger.refused(request, reason, message, verdict, facts, admitted)
    _signalled(crawler, request, reason, message, response, detail, verdict)


def drop_request(crawler: Crawler, request: Request, why: Reason | Dropped, message: str) -> None:
    """``request`` is dropped without a verdict, ``why`` (the spider closed while it was held
    or waited; it could not be kept in ``JOBDIR`` or put back into the shared queue): counted,
    logged at DEBUG with
    ``message``, recorded by the URL ledger, sent as ``request_refused``
    (:data:`~rep_engine.records.SIGNALLED_AS`)."""
    inc_each(crawler.stats, _stats_of(Action.FETCH, why, None))
    reason = why if isinstance(why, Reason) else SIGNALLED_AS[why]
    if (ledger := LEDGERS.get(crawler)) is not None:
        ledger.refused(request, reason, message)
    _signalled(crawler, request, reason, message)


def scheduled_again(crawler: Crawler, engine: Any, request: Request, when: str) -> bool:
    """``request``, held until now, goes back to the scheduler (``when``: ``"released"``, or
    ``"resumed"`` from ``JOBDIR``); whether it did. A scheduler that raises (a custom one's bug,
    a shared queue whose server went away) leaves it dropped, saying why (an ERROR, counted and
    signalled: its trail record is final), and the caller goes on with the others: none is lost
    unsaid."""
    try:
        engine.crawl(request)
    except Exception as error:
        what = error_line(error)
        logger.error(
            "scrapy_rep: the scheduler did not take back %s, %s from holding (%s); it is "
            "dropped",
            request, when, what,
        )  # fmt: skip
        said = f"Dropped: the scheduler did not take it back as it was {when} ({what})"
        drop_request(crawler, request, Reason.INTERNAL_ERROR, said)
        return False
    return True


def count_unread(crawler: Crawler, why: Reason | Dropped, count: int = 1) -> None:
    """``count`` requests dropped, ``why``, that cannot be read back to be named (from
    ``JOBDIR`` at a resume, from a disk queue at the close): counted under their word only; no
    request to log or signal (whoever lost them says so, with a WARNING or an ERROR)."""
    if count > 0:
        for name in _stats_of(Action.FETCH, why, None):
            inc(crawler.stats, name, count)


def refuse_item(
    crawler: Crawler,
    item: Any,
    response: Response,
    verdict: Refused,
    output: PageOutput | None = None,
    said_by: str = "",
) -> None:
    """An item of the page ``response`` is refused as :func:`refuse_request` says, sent as
    ``item_refused``; ``said_by``: the page whose "no" it is, when another (said in both)."""
    inc_each(crawler.stats, refusal_stats(Action.KEEP, verdict))
    if output is not None:
        output.item_refused(verdict.reason, verdict.message)
    page = said_by or response.url
    logger.debug(
        "Dropped an item of %(url)s%(after)s: %(message)s",
        {
            "url": response.url,
            "after": f" built after {page}, which its callback fetched" if said_by else "",
            "message": verdict.message,
        },
        extra={"spider": crawler.spider},
    )
    crawler.signals.send_catch_log(
        rep_signals.item_refused,
        item=item,
        response=response,
        reason=verdict.reason,
        message=verdict.message,
        verdict=verdict,
        said_by=page,
    )


#: The stats of what the media gate and a page's ``noimageai`` do to a file that no row of
#: :data:`~rep_engine.records.REASONS` names (docs/reference.md 'Stats'): a downloaded file
#: stored and marked (``REP_PURPOSE_ACTION = "mark"``), and a file URL an item carries for a
#: media pipeline, taken out before its download.
MARKED_FILES: Final = "rep/media/marked/{purpose}"
FILE_URLS_REFUSED: Final = "rep/purpose/image_urls_refused/{purpose}"


def refuse_file(
    crawler: Crawler,
    request: Request,
    item: Any,
    verdict: Refused,
    reasons: list[str],
    stored: bool,
) -> None:
    """A file a media pipeline downloaded is denied for a purpose of the crawl (``verdict``,
    the media gate's): not stored, or stored and marked (``stored``: ``REP_PURPOSE_ACTION =
    "mark"``). Counted (``rep/media/refused/<purpose>``, the ``store`` stats of its reason's
    row, or ``rep/media/marked/<purpose>``), logged at INFO with every statement that denies
    it (``reasons``), sent as ``file_refused``; its trail's ``file`` record is the media
    gate's ``file_checked``, once the pipeline knows what became of the file."""
    purpose = verdict.purpose
    if stored:
        inc(crawler.stats, MARKED_FILES.format(purpose=purpose or ""))
    else:
        inc_each(crawler.stats, _stats_of(Action.STORE, verdict.reason, purpose))
    logger.info(
        "scrapy_rep: %(action)s %(url)s: %(reasons)s",
        {"action": "marked" if stored else "not stored", "url": request.url,
         "reasons": "; ".join(reasons)},
        extra={"spider": crawler.spider},
    )  # fmt: skip
    crawler.signals.send_catch_log(
        rep_signals.file_refused,
        url=request.url,
        request=request,
        item=item,
        purpose=purpose,
        message=verdict.message,
        statement=None if verdict.signal is None else verdict.signal.source,
        stored=stored,
    )


def refuse_file_url(
    crawler: Crawler, url: str, verdict: Refused, response: Response, detail: str = ""
) -> None:
    """A file (an image) URL an item of the page ``response`` carries for a media pipeline,
    taken out of the item before its download (``verdict``: the page's ``noimageai`` refuses
    it for a purpose of the crawl): counted (``rep/purpose/image_urls_refused/<purpose>``),
    logged at DEBUG (with ``detail``, what said it), signalled as ``request_refused`` with the
    request the pipeline would have sent, never sent: the URL ledger records it refused, a
    request without the scheduler (a media pipeline's). A URL no request can be made of (no
    scheme) is counted and logged only: no pipeline could download it either."""
    inc(crawler.stats, FILE_URLS_REFUSED.format(purpose=verdict.purpose or ""))
    try:
        request = Request(url)
    except ValueError:
        logger.debug("%s (%s): %r", verdict.message, detail, url, extra={"spider": crawler.spider})
        return
    if (ledger := LEDGERS.get(crawler)) is not None:
        ledger.refused(request, verdict.reason, verdict.message, verdict)
    _signalled(crawler, request, verdict.reason, verdict.message, response, detail, verdict)


def _signalled(
    crawler: Crawler,
    request: Request,
    reason: Reason,
    message: str,
    response: Response | None = None,
    detail: str = "",
    verdict: Refused | None = None,
) -> None:
    """A refused request logged at DEBUG (with ``detail``, e.g. the directive's source) and
    sent as :data:`~scrapy_rep.signals.request_refused` (with ``verdict``, the refusal's
    value): the line and the signal of every request refused, which go with its stats."""
    logger.debug(
        "%(message)s%(detail)s: %(request)s",
        {"message": message, "detail": f" ({detail})" if detail else "", "request": request},
        extra={"spider": crawler.spider},
    )
    crawler.signals.send_catch_log(
        rep_signals.request_refused, request=request, reason=reason, message=message,
        response=response, verdict=verdict,
    )  # fmt: skip
