"""A fetched page's record decided again from what the page said (pure).

The crawl writes, in a fetched page's ``url`` record, the statements the table of signals
read from it and the crawler names they were read for (its ``page`` part:
:func:`scrapy_rep.audit.lines.page_part`). ``audit verify`` decides the page again with the
crawl's own decision (:func:`scrapy_rep.verdict.page.decide_page`), under the run's
settings and at the time the crawl decided it (its part's ``decided``, written when the
verdict depends on the time; else the record's time), and holds the record against it:

- its directives: a page whose statements say ``noindex`` (or an ``unavailable_after``
  that had passed) under ``REP_NOINDEX_ACTION = "drop"`` kept no item; a record that
  says its items were dropped for ``noindex`` or ``unavailable_after`` has statements
  that say so;
- its own usage signals: every "no" its statements give for a purpose (a
  ``Content-Usage`` or ``Content-Signal`` header, TDMRep's header or meta, ``noai``,
  the search directives read as AI opt-outs) is in the record's usage decision.

A page whose statements were too long to keep (``omitted``), and the records of runs
that wrote no ``page`` part (their header has no ``page_parts``), are taken as recorded;
in a run that wrote them, a page's record without one has lost it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from scrapy_rep.audit.read import items, text
from scrapy_rep.settings import RepConfig, RepSettingError, page_rules
from scrapy_rep.verdict.page import (
    PageFacts,
    PageRules,
    PageStatements,
    PageVerdict,
    decide_page,
)
from scrapy_rep.verdict.reasons import Reason

#: The item reasons the page's directives give.
_INDEX_REASONS: Final = frozenset({Reason.NOINDEX, Reason.UNAVAILABLE_AFTER})
#: The run's settings a page's verdict depends on (``settings.page_rules``) and
#: ``REP_NOINDEX_ACTION``: only these are read from its header, so that a setting that
#: was valid then and is not now (an override's expiry, past today) costs no check.
PAGE_SETTINGS: Final = frozenset(
    {
        "REP_PURPOSE",
        "REP_PURPOSE_UNKNOWN",
        "REP_NOARCHIVE_MEANS_NO_AI_TRAIN",
        "REP_NOCACHE_MEANS_NO_AI_TRAIN",
        "REP_NOSNIPPET_MEANS_NO_AI_INPUT",
        "REP_MEDIA_NOINDEX_MEANS_NO_AI",
        "REP_NOINDEX_ACTION",
    }
)


def run_page_rules(settings: Any) -> tuple[PageRules | None, bool]:
    """The run's settings that decide a page (from its header's ``settings``), and whether
    ``REP_NOINDEX_ACTION`` dropped items; ``None`` when they cannot be read (a hand-edited
    header): its pages are then taken as recorded."""
    if not isinstance(settings, dict):
        return None, True
    try:
        read = {k: v for k, v in settings.items() if k in PAGE_SETTINGS and v is not None}
        config = RepConfig.from_settings(read)
    except (RepSettingError, TypeError, ValueError):
        return None, True
    return page_rules(config), config.noindex_action == "drop"


def page_differences(
    record: dict[str, Any], rules: PageRules | None, noindex_drops: bool, parts: bool = False
) -> list[str]:
    """Every way a fetched page's record differs from its page's verdict (sentences);
    ``parts``: the run wrote a ``page`` part in every page's record (its page pass's
    records are those with ``items_kept``)."""
    part = record.get("page")
    if part is None and parts and "items_kept" in record:
        return ["the record has lost what its page said (no page part)"]
    if rules is None or not isinstance(part, dict) or "omitted" in part:
        return []
    reason = Reason.of(record.get("item_reason"))
    fetched = [sub for sub in items(part.get("fetched")) if isinstance(sub, dict)]
    if any("omitted" in sub for sub in fetched):  # a page its callback fetched: as recorded
        return []
    # The pages its callback fetched itself that said no: their reasons drop its items too.
    also = {_decided(sub, sub.get("url"), rules, record).index for sub in fetched}
    said = {refused.reason for refused in also if refused is not None}
    unsaid = f"the record drops its items for {reason}, which its statements do not say"
    if "headers" not in part and "meta" not in part:  # the usual page: it said nothing
        return [unsaid] if reason in _INDEX_REASONS and reason not in said else []
    verdict = _decided(part, record.get("url"), rules, record)
    found: list[str] = []
    kept = record.get("items_kept")
    if verdict.index is not None and noindex_drops and isinstance(kept, int) and kept > 0:
        found.append(f"the page says {verdict.index.message}, but the record kept {kept} item(s)")
    if verdict.index is not None:
        said.add(verdict.index.reason)
    if reason in _INDEX_REASONS and reason not in said:
        found.append(unsaid)
    found.extend(_usage_differences(record.get("usage"), verdict.usage.signals))
    return found


def _decided(part: dict[str, Any], url: Any, rules: PageRules, record: Any) -> PageVerdict:
    """A page part decided again: for its ``names``, at the time the crawl decided it
    (the part's ``decided``, else the record's time)."""
    names = tuple(text(name) for name in items(part.get("names")))
    statements = PageStatements(_fields(part.get("headers")), _fields(part.get("meta")))
    when = _time(part.get("decided") or record.get("time"))
    return decide_page(PageFacts(text(url), names), statements, rules, when)


def _usage_differences(usage: Any, signals: Any) -> list[str]:
    """Every "no" of the page's own statements that the record's usage decision lacks."""
    recorded = usage.get("signals") if isinstance(usage, dict) else None
    sources = {text(s.get("source")) for s in items(recorded) if isinstance(s, dict)}
    return [
        f"the page says {signal.source}, which the record's usage decision does not list"
        for signal in signals
        if False in signal.answers and signal.source not in sources
    ]


def _fields(value: Any) -> tuple[tuple[str, str], ...]:
    """A part's ``[[name, value], ...]`` as fields; anything else is skipped."""
    found = []
    for pair in items(value):
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair):
            found.append((pair[0], pair[1]))
    return tuple(found)


def _time(value: Any) -> datetime | None:
    """A record's ISO time (``None``: none, or unreadable: then the current time)."""
    try:
        return datetime.fromisoformat(text(value).replace("Z", "+00:00"))
    except ValueError:
        return None
