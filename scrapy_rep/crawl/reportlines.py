"""The end-of-crawl report's lines of each URL (:mod:`scrapy_rep.crawl.report` collects
them): what happened to it, in the order that matters to a reader, in the list it
belongs in (requested, a link not followed, another download), and the closing line;
its origins' lines: :mod:`scrapy_rep.crawl.reportorigins`. Each request is said in the
words :func:`rep_engine.records.describe` gives its entry, as every witness of a fate
says it (the trail, ``audit show``, ``list``, ``summary``, the HTML report, the tools);
these functions lay them out and count them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from rep_engine.records import (
    NOT_KEPT,
    OVERRIDDEN_BY,
    REASONS,
    REPORT_FATES,
    Fate,
    Reason,
    UrlEntry,
    describe,
)
from rep_engine.urls.origins import origin_of
from scrapy_rep.crawl.closing import plural

if TYPE_CHECKING:
    from rep_engine.records import FileOutcome
    from scrapy_rep.crawl.auditing import Settled


@dataclass
class UrlReport:
    """What the report lists of one URL: its requests, as the URL ledger settled them; its
    downloads no entry follows (an item pipeline's file without a verdict: entries without a
    fate); it as a link not followed, by the refusal's sentence, with how many times; and
    the most failed robots.txt downloads a request of it was held through."""

    entries: list[UrlEntry] = field(default_factory=list)
    apart: list[UrlEntry] = field(default_factory=list)
    links: Counter[str] = field(default_factory=Counter)
    held_failures: int = 0

    @property
    def requested(self) -> bool:
        """Whether a request was sent or refused for it: a ``url`` record of the trail
        (a link not followed is not one)."""
        return bool(self.entries)

    @property
    def items_kept(self) -> int:
        """Its pages' items kept (they reached the end of the crawl)."""
        return sum(entry.output.kept for entry in self.entries if entry.output is not None)

    @property
    def items_dropped(self) -> Counter[str]:
        """Its pages' items the page pass dropped, by reason."""
        dropped: Counter[str] = Counter()
        for entry in self.entries:
            if entry.output is not None:
                for (reason, _), times in entry.output.dropped.items():
                    dropped[reason] += times
        return dropped

    def file_settled(self, outcome: FileOutcome) -> bool:
        """What became of the file its latest download without a file's fate got for an item
        pipeline (``False``: none waits for one)."""
        for entry in reversed([*self.entries, *self.apart]):
            if entry.file is None and entry.fetched:
                entry.file = outcome
                return True
        return False


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
    return OTHER if record.apart else LINKS


def url_order(url: str) -> tuple[str, str]:
    origin = origin_of(url)
    return (str(origin) if origin is not None else "", url)


def said_of(record: UrlReport, purposes: tuple[str, ...] = ()) -> list[str]:
    """What happened to one URL, in the order it matters to a reader: its holds and what
    came of them, its downloads, its redirects, its pages' items, the links its pages did
    not follow, it as a link not followed, then its refusals, failures and overrides; each
    said once, with its count."""
    first: Counter[str] = Counter()  # its downloads and redirects, in order
    last: Counter[str] = Counter()  # its refusals, failures and overrides, in order
    heads: dict[str, str] = {}
    links: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    held, kept, not_kept = "", 0, 0
    entries = record.entries + record.apart
    if len(entries) > 1:
        entries.sort(key=_order)
    for entry in entries:
        said = describe(entry, purposes)
        if record.held_failures and entry.reason == Reason.ROBOTSTXT_UNREACHABLE:
            held = said.said  # said with its hold: one phrase
        else:
            (first if _first(entry) else last)[said.said] += 1
            heads[said.said] = said.head
        robots = entry.robots
        if robots is not None and robots.overridden and entry.fate is not Fate.REFUSED:
            last[f"{OVERRIDDEN_BY}{robots.overridden}"] += 1
        output = entry.output
        if output is not None:
            kept, not_kept = kept + output.kept, not_kept + output.passed - output.kept
            for (reason, why), times in output.dropped.items():
                dropped[why or reason] += times
            for link in output.links:
                links[REASONS[link.reason].report if link.reason in REASONS else link.why] += 1
    lines = _held(record, held) if record.held_failures or held else []
    for phrase, times in first.items():
        lines.append(times_said(phrase, times, heads[phrase]))
    if kept:
        lines.append(f"{plural(kept, 'item')} kept")
    if not_kept:
        lines.append(f"{plural(not_kept, 'item')} {NOT_KEPT}")
    lines += [f"{plural(times, 'item')} dropped ({why})" for why, times in dropped.items()]
    lines += [f"{plural(times, 'link')} {phrase}" for phrase, times in links.items()]
    lines += [times_said(why, times) for why, times in record.links.items()]
    for phrase, times in last.items():
        lines.append(times_said(phrase, times, heads.get(phrase, phrase)))
    return lines


def _order(entry: UrlEntry) -> int:
    """Its downloads first, then its redirects, then the rest (as settled)."""
    return 0 if entry.fetched or entry.fate is None else 1 if entry.fate is Fate.REDIRECTED else 2


def _first(entry: UrlEntry) -> bool:
    """A download or a redirect: said before its pages' items (a response dropped by a
    downloader middleware after its download is one too, and a download failed or refused
    before the items its errback yielded)."""
    fate = entry.fate
    return (
        fate is None
        or fate is Fate.FETCHED
        or fate is Fate.REDIRECTED
        or entry.output is not None
        or (fate is Fate.FAILED and entry.status is not None)
    )


def _held(record: UrlReport, dropped: str) -> list[str]:
    """A URL held while its robots.txt was unreachable, and what came of it: released, or
    ``dropped`` (its refusal's words) when robots.txt was given up on."""
    if not record.held_failures:
        return [dropped] if dropped else []
    tries = plural(record.held_failures, "failed download")
    return [f"held while robots.txt was unreachable ({tries}), then {dropped or 'released'}"]


def times_said(said: str, times: int, head: str = "") -> str:
    """What happened with its count: ``downloaded twice (200)`` (the count after its
    ``head``), ``… (3 times)`` (a URL sent again, as a start URL that pages link back to; a
    link on several pages)."""
    if times < 2:
        return said
    count = "twice" if times == 2 else f"{times} times"
    if head and head != said:
        return f"{head} {count}{said[len(head) :]}"
    return f"{said} ({count})"


def url_lines(urls: dict[str, UrlReport], audited: bool, purposes: tuple[str, ...]) -> list[str]:
    """The lists of URLs (:data:`SECTIONS`), each URL with what happened to it; the
    headings name the audit trail when the crawl writes one (``audited``)."""
    sections: dict[str, list[str]] = {heading: [] for heading in SECTIONS}
    for url in sorted(urls, key=url_order):
        record = urls[url]
        said = said_of(record, purposes)
        if said:
            sections[section_of(record)] += [f"  {url}", f"    {'; '.join(said)}"]
    lines: list[str] = []
    for heading, section in sections.items():
        if section or heading == REQUESTED:
            shown = heading if audited else UNAUDITED.get(heading, heading)
            lines += ["", shown, *section]
    return lines


def summary_of(settled: Settled, counts: Counter[str]) -> str:
    """The closing line, of what the URL ledger ``settled`` and counted (its end line's
    ``counts``): requests by fate (as the trail counts its records), those an override let
    through, items kept, dropped (by reason) and not kept by a later component, links not
    followed: of every URL, those past REP_REPORT_MAX_URLS too."""
    fates: Counter[str] = Counter()
    for (fate, reason, responded, answered, replayed), times in settled.requests.items():
        status = 0 if responded else None
        page = {"cached": True} if replayed else None
        entry = UrlEntry("", status=status, fate=fate, reason=reason, answered=answered, page=page)
        fates[describe(entry).phrase] += times  # its words: the phrase of one like it
    kept, dropped = settled.items_kept, settled.items_dropped
    # the items the page pass let through that a later component did not keep (an
    # errback's items of a download failed or refused passed no page pass)
    not_kept = counts["items_passed"] - (kept - counts["errback_items"])
    links = counts["not_followed"]
    order = [*REPORT_FATES, *sorted(set(fates) - set(REPORT_FATES))]
    parts = [f"{fates[fate]} {fate}" for fate in order if fates[fate]]
    requests = sum(fates.values())
    said = [f"{plural(requests, 'request')}" + (f" ({', '.join(parts)})" if parts else "")]
    if settled.overridden:
        said[0] += f", {settled.overridden:,} of them overridden by REP_OVERRIDES"
    if kept or dropped or not_kept:
        items = f"{plural(kept, 'item')} kept"
        if dropped:
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(dropped.items()))
            reasons = reasons if len(dropped) > 1 else next(iter(dropped))
            items += f", {sum(dropped.values())} dropped ({reasons})"
        if not_kept:
            items += f", {not_kept} {NOT_KEPT}"
        said.append(items)
    if links:
        said.append(f"{plural(links, 'link')} not followed (never requested)")
    return "; ".join(said) if requests or links else "nothing happened"
