"""The end-of-crawl report's lines of each URL (:mod:`scrapy_rep.crawl.report` collects
them): what happened to it, in the order that matters to a reader, in the list it
belongs in (requested, a link not followed, another download), and the closing line;
its origins' lines: :mod:`scrapy_rep.crawl.reportorigins`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from scrapy.exceptions import IgnoreRequest

from rep_engine.records import FATE_PHRASES, REASONS, REPORT_FATES, Fate, Reason
from rep_engine.urls.origins import origin_of
from scrapy_rep.crawl.closing import plural

if TYPE_CHECKING:
    from rep_engine.records import UrlEntry

#: The closing line's words for the requests of a fate no reason names.
_DOWNLOADED: Final = FATE_PHRASES[Fate.FETCHED]
_REDIRECTED: Final = FATE_PHRASES[Fate.REDIRECTED]
#: What ``audit show`` says of a failed record, and the report of a URL that got none.
NO_RESPONSE: Final = "no response after every attempt"
#: The closing line's words for a request whose response came and a downloader
#: middleware dropped (raising in its ``process_response``): ``failed`` in the trail too,
#: with the response's status.
RESPONSE_DROPPED: Final = "response dropped"
#: A page's items the page pass passed on that never reached the end of the crawl (a
#: project's spider middleware after it, or an item pipeline, dropped them): its event,
#: and the closing line's words for them.
NOT_KEPT: Final = "item not kept by a component of the crawl"


@dataclass
class UrlReport:
    #: What happened, each said once (in the order of :func:`event_order` when shown).
    events: list[str] = field(default_factory=list)
    #: How many times each counted event happened (downloads, items, links, refusals).
    times: Counter[str] = field(default_factory=Counter)
    #: The latest refusal of a request of this URL, in the closing line's words, if any.
    refused: str = ""
    #: Requests of this URL by fate (the closing line's words), as the trail counts them.
    fates: Counter[str] = field(default_factory=Counter)
    #: Failed robots.txt downloads its request was held through (``request_released``).
    held_failures: int = 0
    #: Items of this page kept (they reached the end of the crawl) and dropped by the
    #: page pass (by reason), for the closing line; of every page (the totals), those a
    #: later component did not keep.
    items_kept: int = 0
    items_dropped: Counter[str] = field(default_factory=Counter)
    items_not_kept: int = 0

    @property
    def requested(self) -> bool:
        """Whether a request was sent or refused for it: a ``url`` record of the trail
        (a link not followed is not one)."""
        return bool(self.fates)


#: The report's lists of URLs, by what they are (:func:`section_of`).
REQUESTED: Final = "URLs requested (the audit trail has a record of each request):"
LINKS: Final = (
    "Links not followed (never requested, so no record of their own: the audit trail "
    "counts them on the page that held them):"
)
OTHER: Final = "Other downloads (files an item pipeline fetched: no request of the crawl):"
#: The headings of a crawl without an audit trail: the same lists, no trail to name.
UNAUDITED: Final = {
    REQUESTED: "URLs requested:",
    LINKS: "Links not followed (never requested):",
}
SECTIONS: Final = (REQUESTED, LINKS, OTHER)


def section_of(record: UrlReport) -> str:
    """The list a URL belongs in: a request sent or refused, a link only ever not
    followed, or a file only an item pipeline downloaded."""
    if record.requested:
        return REQUESTED
    if all(map(is_link, record.events)):
        return LINKS
    return OTHER


def is_link(event: str) -> bool:
    """A link's event: not followed because of a page's nofollow or rel="nofollow"."""
    return event.startswith("Not followed")


def url_order(url: str) -> tuple[str, str]:
    origin = origin_of(url)
    return (str(origin) if origin is not None else "", url)


#: The events in the order they matter to a reader, by how they begin.
ORDER: Final = ("held", "downloaded", "redirected", "item", "not followed (", "Not followed")


def event_order(event: str) -> int:
    """Events in the order they matter to a reader, whatever order the crawl sent them."""
    for rank, prefix in enumerate(ORDER):
        if event.startswith(prefix):
            return rank
    return len(ORDER)


def said_of(record: UrlReport) -> list[str]:
    """The events of one URL, in order, each with its count; a hold and what came of it
    in one phrase; a download that got no response at the end."""
    said = [
        times_said(event, record.times[event]) for event in sorted(record.events, key=event_order)
    ]
    unreachable = record.refused == REASONS[Reason.ROBOTSTXT_UNREACHABLE].report
    if record.held_failures:
        tries = plural(record.held_failures, "failed download")
        if unreachable:
            then = "then dropped when robots.txt was given up on (see its origin above)"
        else:
            then = "then released"
        said.insert(0, f"held while robots.txt was unreachable ({tries}), {then}")
    elif unreachable:
        said.insert(0, "dropped: robots.txt was given up on as unreachable (see its origin above)")
    return said


def times_said(event: str, times: int) -> str:
    """An event with its count: ``downloaded twice (200)``, ``3 items kept``, ``2 items
    dropped (noindex …)``, ``2 links not followed (…)`` (a URL sent again, as a start URL
    that pages link back to; a page with many items or links)."""
    if event.startswith("item "):
        return f"{plural(times, 'item')} {event.removeprefix('item ')}"
    if event.startswith("not followed ("):
        return f"{plural(times, 'link')} {event}"
    if times < 2:
        return event
    head, _, tail = event.partition(" (")
    count = "twice" if times == 2 else f"{times} times"
    return f"{head} {count} ({tail}" if tail else f"{event} ({count})"


def url_lines(urls: dict[str, UrlReport], audited: bool) -> list[str]:
    """The lists of URLs (:data:`SECTIONS`), each URL with what happened to it; the
    headings name the audit trail when the crawl writes one (``audited``)."""
    sections: dict[str, list[str]] = {heading: [] for heading in SECTIONS}
    for url in sorted(urls, key=url_order):
        record = urls[url]
        if record.events or record.requested:
            section = sections[section_of(record)]
            section += [f"  {url}", f"    {'; '.join(said_of(record))}"]
    lines: list[str] = []
    for heading, section in sections.items():
        if section or heading == REQUESTED:
            shown = heading if audited else UNAUDITED.get(heading, heading)
            lines += ["", shown, *section]
    return lines


def summary_of(totals: UrlReport, links: int, overridden: int) -> str:
    """The closing line: requests by fate (as the trail counts its records), items
    kept, dropped (by reason) and not kept by a later component, links not followed: of
    every URL, those past REP_REPORT_MAX_URLS too."""
    fates, kept, dropped = totals.fates, totals.items_kept, totals.items_dropped
    not_kept = totals.items_not_kept
    order = [*REPORT_FATES, *sorted(set(fates) - set(REPORT_FATES))]
    parts = [f"{fates[fate]} {fate}" for fate in order if fates[fate]]
    requests = sum(fates.values())
    said = [f"{plural(requests, 'request')}" + (f" ({', '.join(parts)})" if parts else "")]
    if overridden:
        said[0] += f", {overridden:,} of them overridden by REP_OVERRIDES"
    if kept or dropped or not_kept:
        items = f"{plural(kept, 'item')} kept"
        if dropped:
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(dropped.items()))
            reasons = reasons if len(dropped) > 1 else next(iter(dropped))
            items += f", {sum(dropped.values())} dropped ({reasons})"
        if not_kept:
            items += f", {not_kept} {NOT_KEPT.removeprefix('item ')}"
        said.append(items)
    if links:
        said.append(f"{plural(links, 'link')} not followed (never requested)")
    return "; ".join(said) if requests or links else "nothing happened"


def fate_said(entry: UrlEntry) -> tuple[str | None, str]:
    """What a settled request adds to its URL's line (``None``: nothing, a refusal said
    with its hold), and its fate in the closing line's words."""
    fate, why = entry.fate, entry.why
    if fate is Fate.REFUSED:
        reason = entry.reason
        if reason == Reason.ROBOTSTXT_UNREACHABLE:  # said with the hold: one phrase
            return None, _fate_of(reason)
        return why, _fate_of(reason)
    if fate is Fate.FETCHED:
        by = " without the scheduler" if entry.unscheduled else ""  # a pipeline's or a callback's
        return f"downloaded{by} ({entry.status})", _DOWNLOADED
    if fate is Fate.REDIRECTED:
        status = f" ({entry.status})" if entry.status is not None else ""
        return f"redirected{status} to {entry.to}", _REDIRECTED
    # failed after every attempt, dropped at its send, or the crawl ended first: an
    # IgnoreRequest says what ignored it; a bare one, the trail's why (its name)
    ignored = why.startswith(_IGNORED)
    said = (why.removeprefix(_IGNORED).removeprefix(": ") or why) if ignored else ""
    if fate is Fate.FAILED and entry.status is not None:  # its response came, then dropped
        event = f"downloaded ({entry.status}), then dropped by a downloader middleware"
        return f"{event}: {said or why}", RESPONSE_DROPPED
    phrase = NO_RESPONSE if fate is Fate.FAILED else why
    return f"not downloaded: {said or phrase}", FATE_PHRASES[fate]  # type: ignore[index]


#: A failed record's ``why`` when a component ignored its request (``IgnoreRequest``).
_IGNORED: Final = IgnoreRequest.__name__


def _fate_of(reason: str) -> str:
    """A refused request's fate in the closing line, by its refusal's reason (the
    signal's: another add-on's word, with no row, is "dropped")."""
    row = REASONS.get(reason)
    return row.report if row is not None and row.fate is Fate.REFUSED else "dropped"
