"""A recheck's ``item`` record decided again from the documents it names (pure).

``python -m scrapy_rep recheck --trail`` writes one ``item`` line per stored item it
decided (docs/audit-trail.md, ``item``), with the parts of a crawl's ``url`` record its
decision depends on. ``audit verify`` holds each against the crawl's own decisions on its
snapshots, as it holds a crawl's records (:class:`~scrapy_rep.audit.rederive.Rederiver`):

- an item ``kept``, or refused after the fetch (``refused_by`` ``page``), must be allowed
  before the fetch, as a page the crawl sent for: robots.txt for every name, the line
  recorded, every usage signal drawn from a snapshot, no "no" for a purpose of the run;
- an item ``refused`` before the fetch must be refused by what its ``refused_by`` says
  (robots.txt's recorded line, a purpose's "no"); ``unknown`` names documents not had;
- with its ``page`` part (``--pages``), its ``names`` must be every name its request was
  held to (its ``robots`` part's ``agents``) and ``REP_DIRECTIVE_TOKENS``, no fewer: a
  cut name hides that name's ``noindex``; the page is then decided again with
  :func:`scrapy_rep.verdict.page.decide_page` under the run's settings at the record's
  time: a ``kept`` item's page refuses nothing (``noindex`` under
  ``REP_NOINDEX_ACTION = "drop"``, a purpose of the run), and a page refusal's
  ``item_reason`` is what the page says.
"""

from __future__ import annotations

from typing import Any, Final

from scrapy_rep.audit.pages import _fields, _time, names_differences, read_for
from scrapy_rep.audit.read import text
from scrapy_rep.audit.rederive import Rederiver, RunContext, held_to
from scrapy_rep.usage.policy import NOTHING_BEFORE, Before
from scrapy_rep.verdict.page import PageFacts, PageStatements, decide_page
from scrapy_rep.verdict.reasons import Reason

#: The statuses of an ``item`` line.
STATUSES: Final = ("kept", "refused", "unknown")
#: ``refused_by`` of an item refused after the fetch.
BY_PAGE: Final = "page"


def item_differences(record: dict[str, Any], run: RunContext, rederiver: Rederiver) -> list[str]:
    """Every way an ``item`` record differs from what its snapshots (and its page part)
    say today (sentences)."""
    status = text(record.get("status"))
    if status not in STATUSES:
        return [f"unknown status {record.get('status')!r}"]
    by = text(record.get("refused_by"))
    if status == "refused" and not by:
        return ["recorded refused, but not by what (no refused_by)"]
    after_fetch = status == "kept" or by == BY_PAGE
    # Before the fetch it was allowed (kept, or refused by its page): held as a page the
    # crawl sent for; else as a request refused by what its refused_by says.
    as_url = {**record, "fate": "fetched" if after_fetch else "refused"}
    found, before = rederiver._request_differences(as_url, run)
    if after_fetch:
        found += _page_differences(record, run, before, status, by)
    return [f"item {what}" if what.startswith("recorded") else what for what in found]


def _page_differences(
    record: dict[str, Any], run: RunContext, before: Before | None, status: str, by: str
) -> list[str]:
    """The record held against its page's verdict, when it keeps what the page said."""
    part = record.get("page")
    rules = run.page.rules
    if not isinstance(part, dict) or "omitted" in part or rules is None:
        if by == BY_PAGE:
            return ["recorded refused by its page, but the record keeps nothing the page said"]
        return []
    names = read_for(held_to(record, run), run.page)
    found = names_differences(part, names)  # decided for the names it was held to
    statements = PageStatements(_fields(part.get("headers")), _fields(part.get("meta")))
    facts = PageFacts(text(record.get("url")), names, before or NOTHING_BEFORE)
    verdict = decide_page(
        facts, statements, rules, _time(part.get("decided") or record.get("time"))
    )
    index = verdict.index if verdict.index is not None and run.page.noindex_drops else None
    refusal = index or verdict.purpose
    if status == "kept" and refusal is not None:
        return [*found, f"recorded kept, but its page says no: {refusal.message}"]
    if by == BY_PAGE:
        reason = Reason.of(record.get("item_reason"))
        if refusal is None:
            found.append("recorded refused by its page, but what the page said refuses nothing")
        elif reason is not refusal.reason:
            found.append(
                f"recorded refused by its page for {reason}, the page gives {refusal.reason}"
            )
    return found
