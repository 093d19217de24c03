"""The end-of-crawl report (``REP_REPORT = True``): what the REP did, readable at a glance.

Per origin: what its robots.txt downloads came to (status, redirects, size, cut at 500 KiB,
unreachable and retried; the same outcome in a row said once, with its count), its
crawl-delay, sitemaps and Content-Signal ``use=`` level (docs/purpose-notes.md §2), and how
many requests it held (and how many times, when some were held more than once). Per URL, in
two lists: **URLs requested**, the requests the crawl sent or refused, the very ones the
audit trail has a ``url`` record for (downloaded, with its items kept and dropped and why;
let through by an override of ``REP_OVERRIDES``; a file an item pipeline downloaded,
decided as any request; redirected; forbidden by robots.txt, with the deciding line;
refused for the crawl's purpose; held while robots.txt was unreachable, then released or
dropped; left without a response, dropped at its send too), and **links not followed** (a
page's nofollow or ``rel="nofollow"``: no record of their own). The closing line counts
requests as the trail does (a URL sent twice is two; those an override let through among
them), items, and links.

Built from the URL ledger's settled entries (a page's items and links with its entry),
kept as they are and said at the end in the words :func:`rep_engine.records.describe`
gives every witness of a fate (the trail, ``audit show``, ``list``, ``summary``, the HTML
report, the tools), and the documents' outcomes. Its text is laid out here: each URL's
lines (:func:`url_lines`: what happened to it, in the order that matters to a reader, in
the list it belongs in: requested, a link not followed, another download), each
origin's (:func:`origin_lines`: what its documents' downloads came to, how many requests
waited for them, what the crawl did with its Crawl-delay, its content use and sitemaps),
and the closing line (:func:`summary_of`). Printed to standard error when the engine
stops, after Scrapy's stats and its "Spider closed" line (never standard output, where a
feed such as ``-o -:jsonl`` may go), or written to ``REP_REPORT_FILE``.

The INFO lines every crawl with the add-on logs when the spider closes, report or not
(:func:`closing_lines`, from its stats): what a pause left for the resume, the items
dropped and the links not followed, by reason, and the setting that keeps them; the
requests not sent, by reason (docs/switching.md).
"""

from __future__ import annotations

import logging
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from scrapy import signals
from scrapy.exceptions import NotConfigured

from rep_engine.records import (
    NOT_KEPT,
    OVERRIDDEN_BY,
    REASONS,
    REPORT_FATES,
    RESPONSE_FATES,
    Action,
    EndReason,
    Fate,
    Reason,
    UrlEntry,
    describe,
    dropped_stat,
    phrase_of,
)
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import robots_agent
from rep_engine.settings.rules import crawl_delay_obeyed
from rep_engine.urls.origins import origin_of
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.auditing import Settled, ledger_of, read_urls
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.payment import STAT as PAYMENT_STAT
from scrapy_rep.crawl.refusals import FILE_URLS_REFUSED

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from rep_engine.records import FileOutcome
    from rep_engine.robotstxt import RobotsTxt
    from scrapy_rep.crawl.auditing import Waits

logger = logging.getLogger(__name__)


_MAX_OUTCOMES: Final = 5


class RepReport:
    """Collects what happened and prints the report when the spider closes."""

    def __init__(self, crawler: Crawler) -> None:
        config = config_of(crawler)
        if not (config.report or config.report_file):
            raise NotConfigured  # no message: Scrapy would log it as a WARNING
        self.crawler = crawler
        self.max_urls = config.report_max_urls
        #: Whether the crawl writes an audit trail (the headings name it only then).
        self.audited = bool(config.audit_file)
        self.path = config.report_file
        self.agent = robots_agent(crawler.settings)
        #: Why a Crawl-delay read is not applied (``""``: it is), and its cap.
        self.delay_not_obeyed = delay_not_obeyed(config, crawler.settings)
        self.delay_max = config.crawl_delay_max
        self.origins: dict[str, OriginReport] = {}
        #: What it lists of each URL (at most REP_REPORT_MAX_URLS): its requests' entries
        #: as the URL ledger settled them, its downloads no entry follows, it as a link.
        self.urls: dict[str, UrlReport] = {}
        self.untracked = 0
        #: The crawl's purposes, by which each request's deciding signal is said.
        self.purposes = config.purpose
        #: The report as last printed (for tests and for programs embedding a crawl).
        self.text = ""
        self.stats, self.job_dir = crawler.stats, crawler.settings.get("JOBDIR")
        #: What a pause left for the resume, said first in the closing line (``""``: none).
        self.paused, self.reason = "", EndReason.FINISHED.value
        connect = crawler.signals.connect
        connect(self._fetched, signal=rep_signals.robotstxt_fetched)
        connect(self._document, signal=rep_signals.document_fetched)
        read_urls(crawler, self)  # every request's fate: the URL ledger's settled entries
        connect(self._spider_opened, signal=signals.spider_opened)
        connect(self._spider_closed, signal=signals.spider_closed)
        # after Scrapy's closing lines (the last thing a person sees) and the close's drops
        connect(self._closed, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _origin(self, name: str) -> OriginReport:
        return self.origins.setdefault(name, OriginReport())

    def _record(self, url: str) -> UrlReport | None:
        """``url``'s record, new if there is room (``REP_REPORT_MAX_URLS``; past it, counted)."""
        record = self.urls.get(url)
        if record is None:
            if len(self.urls) >= self.max_urls:
                self.untracked += 1
                return None
            record = self.urls[url] = UrlReport()
        return record

    def _fetched(
        self, origin: str, rules: RobotsTxt, outcome: str, sitemaps: tuple[str, ...], **_: Any
    ) -> None:
        report = self._origin(origin)
        if add_outcome(report.outcomes, outcome) and len(report.outcomes) > _MAX_OUTCOMES:
            del report.outcomes[2]  # keep the first two and the latest
            report.outcomes_left_out += 1
        report.sitemaps = sitemaps or report.sitemaps
        delay = rules.crawl_delay(self.agent) if self.agent else None
        report.crawl_delay = delay if delay is not None else report.crawl_delay
        if self.agent:
            report.use = rules.content_signals(self.agent).use

    def _document(self, origin: str, document: str, outcome: str, **_: Any) -> None:
        outcomes = self._origin(origin).documents.setdefault(document, [])
        if add_outcome(outcomes, outcome) and len(outcomes) > _MAX_OUTCOMES:
            del outcomes[2]

    def read_waits(self, waits: Waits) -> None:
        """The requests' waits for each origin's documents, as the URL ledger kept them: its
        origin's lines, and a URL held while its robots.txt was unreachable."""
        for origin, kept in waits.origins.items():
            report = self._origin(origin)
            report.waited, report.waits = kept.waited, kept.waits
            report.held_unreachable = kept.held_unreachable
        for url, failures in waits.failures.items():
            record = self._record(url)
            if record is not None:
                record.held_failures = failures

    def settled(self, entry: UrlEntry) -> None:
        """A request's fate, as the URL ledger settled it: listed on its URL's line (its
        page's links not followed, each on its own line too; the closing line's counts are
        the ledger's)."""
        url = entry.url
        record = self.urls.get(url)  # _record inline (the hot path: once a request)
        if record is None and len(self.urls) < self.max_urls:
            record = self.urls[url] = UrlReport()
        if record is not None:
            record.entries.append(entry)
        else:
            self.untracked += 1
        output = entry.output
        if output is not None and output.links:  # never requested: listed apart, counted
            for link in output.links:
                listed = self._record(link.url)
                if listed is not None:
                    listed.links[link.why] += 1

    def downloaded_apart(self, url: str, status: int) -> None:
        """A download no ledger entry follows (a file an item pipeline fetched), listed apart."""
        record = self._record(url)
        if record is not None:
            record.apart.append(UrlEntry(url, status=status, fetched=True))

    def file_settled(self, url: str, outcome: FileOutcome) -> None:
        """What the media gate made of a file an item pipeline downloaded (its ``file`` record),
        said with its download."""
        record = self._record(url)
        if record is not None and not record.file_settled(outcome):
            record.apart.append(UrlEntry(url, file=outcome))

    def render(self) -> str:
        said = partial(delay_said, not_obeyed=self.delay_not_obeyed, delay_max=self.delay_max)
        lines = ["scrapy_rep report", "", *origin_lines(self.origins, said)]
        lines += url_lines(self.urls, self.audited, self.purposes)
        if self.untracked:
            lines.append(f"  … and {self.untracked} more event(s) of other URLs "
                         "(REP_REPORT_MAX_URLS)")  # fmt: skip
        short = f"{self.paused}; {self.summary()}" if self.paused else self.summary()
        lines += ["", f"In short: {short}"]
        return "\n".join(lines) + "\n"

    def summary(self) -> str:
        """The closing line, of every URL (those past REP_REPORT_MAX_URLS too), as the URL
        ledger counted what it settled (as the trail counts its records)."""
        ledger = ledger_of(self.crawler)
        if ledger is None:
            return summary_of(Settled(), Counter())
        return summary_of(ledger.settled, ledger.counts)

    def _spider_opened(self, **_: Any) -> None:
        if ledger_of(self.crawler) is None:  # listed by hand without the ledger
            logger.warning(
                "scrapy_rep: REP_REPORT cannot say what became of each request: the ledger "
                "of their fates, the extension scrapy_rep.AuditTrail (which the add-on "
                "enables), is not in EXTENSIONS"
            )

    def _spider_closed(self, reason: str, **_: Any) -> None:
        self.reason = reason

    def _closed(self, **_: Any) -> None:
        ledger = ledger_of(self.crawler)
        if ledger is not None:
            self.read_waits(ledger.waits)
        stats = self.stats.get_stats() if self.stats is not None else {}
        self.paused = paused(stats, self.reason, self.job_dir)  # its stats set since
        self.text = self.render()
        if self.path and written(self.path, self.text):
            return
        # Never stdout: a feed may be written there (``-o -:jsonl``).
        sys.stderr.write("\n" + self.text)
        sys.stderr.flush()


#: Why an item was dropped (``item_refused``'s reason) in the closing lines (those denied
#: for a purpose are counted by purpose).
_ITEM_REASONS: Final[dict[str, str]] = {
    word: row.closing for word, row in REASONS.items() if row.refuses == {Action.KEEP}
}
#: The requests not sent because a site's documents said no, by the refusal's reason
#: (``rep/requests/dropped/…``; those denied for a purpose are counted by purpose).
_REQUEST_REASONS: Final[dict[str, str]] = {
    word: row.closing
    for word, row in REASONS.items()
    if row.refuses == {Action.FETCH} and row.closing
}
#: How the closing lines say the requests and items denied for a purpose.
_DENIED_FOR: Final = REASONS[Reason.PURPOSE].closing
#: The stats of the items denied for a purpose (``…/<purpose>``).
_DENIED_ITEMS: Final = REASONS[Reason.PURPOSE].counts[Action.KEEP][0].split("{")[0]
#: The stats of the requests denied for a purpose (``…/<purpose>``): refused before their
#: fetch, an image of a ``noimageai`` page, an image URL an item of one carried (each a
#: request of the audit trail and the report).
_DENIED_REQUESTS: Final = tuple(
    name.split("{")[0]
    for name in (
        *REASONS[Reason.PURPOSE].counts[Action.FETCH],
        *REASONS[Reason.PURPOSE].counts[Action.FOLLOW],
        FILE_URLS_REFUSED,
    )
)


def plural(count: int, word: str) -> str:
    """``count`` ``word``'s, with thousands separators: ``1 item``, ``1,200 items``."""
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def paused(stats: Mapping[str, Any], reason: str, job_dir: str | None) -> str:
    """What a crawl closed before it finished with ``JOBDIR`` (paused: ``shutdown``; or
    ended early, ``closespider_pagecount``...) left for its resume, as Scrapy's queue,
    scrapy_rep's held requests and the URL ledger's open entries are kept then: the
    requests Scrapy's scheduler keeps and those scrapy_rep held; ``""`` for a finished
    crawl, or one without ``JOBDIR``."""
    if reason in (EndReason.FINISHED, "") or not job_dir:
        return ""
    how = "paused (JOBDIR)" if reason == EndReason.SHUTDOWN else f"ended ({reason}) with JOBDIR"
    held = int(stats.get("rep/requests/kept_for_resume", 0) or 0)
    scheduled = stats.get("rep/requests/scheduled_at_pause")
    if scheduled is None:  # another scheduler than Scrapy's: its count is not known
        return f"{how}: {plural(held, 'held request')} left, and the scheduler's"
    left = plural(held + int(scheduled), "request")
    return f"{how}: {left} left ({scheduled:,} scheduled, {held:,} held)"


def closing_lines(
    stats: Mapping[str, Any], config: RepConfig, reason: str = EndReason.FINISHED, job_dir: str = ""
) -> list[str]:
    """The INFO lines of a crawl's end (from its stats): what a pause left, the items
    dropped and the links not followed, by reason, each with the setting that keeps them
    (docs/switching.md), the requests not sent, the answers that asked a price (402). The
    biggest differences from Scrapy's ``ROBOTSTXT_OBEY``, said where users read."""
    pause = paused(stats, reason, job_dir)
    lines = [f"scrapy_rep: {pause}; the same command resumes the crawl"] if pause else []
    lines += _items_dropped(stats)
    kept = sum(int(stats.get(REASONS[r].kept, 0) or 0) for r in _ITEM_REASONS)
    if kept:
        lines.append(
            f"scrapy_rep: {plural(kept, 'item')} of noindex pages kept "
            f"(REP_NOINDEX_ACTION = {config.noindex_action!r})"
        )
    nofollow, rel = (
        int(stats.get(REASONS[reason].counts[Action.FOLLOW][0], 0) or 0)
        for reason in (Reason.NOFOLLOW, Reason.REL_NOFOLLOW)
    )
    if nofollow or rel:
        parts = [f"{nofollow:,} {REASONS[Reason.NOFOLLOW].closing}"] if nofollow else []
        parts += [f"{rel:,} {REASONS[Reason.REL_NOFOLLOW].closing}"] if rel else []
        keep = ["REP_NOFOLLOW_ACTION = 'keep'"] if nofollow else []
        keep += ["REP_REL_NOFOLLOW = False"] if rel else []
        lines.append(
            f"scrapy_rep: {plural(nofollow + rel, 'link')} not followed ({', '.join(parts)}); "
            f"{' and '.join(keep)} {'follows' if len(keep) == 1 else 'follow'} them"
        )
    return lines + _not_sent(stats, config) + _payment_required(stats)


def _payment_required(stats: Mapping[str, Any]) -> list[str]:
    """The responses answered 402 Payment Required: a price the site asks for the crawl,
    never paid (docs/behaviour.md)."""
    asked = int(stats.get(PAYMENT_STAT, 0) or 0)
    if not asked:
        return []
    return [f"scrapy_rep: {plural(asked, 'response')} answered 402 Payment Required (a price "
            "asked for the crawl): never paid, never retried"]  # fmt: skip


def _items_dropped(stats: Mapping[str, Any]) -> list[str]:
    """The line of the items dropped, by reason (those denied for a purpose by purpose),
    and the settings that keep them; none when none was."""
    dropped = {
        reason: int(stats.get(REASONS[reason].counts[Action.KEEP][0], 0) or 0)
        for reason in _ITEM_REASONS
    }
    purposes = {
        key.rsplit("/", 1)[1]: int(value or 0)
        for key, value in stats.items()
        if key.startswith(_DENIED_ITEMS)
    }
    total = sum(dropped.values()) + sum(purposes.values())
    if total:
        parts = [f"{n:,} {_ITEM_REASONS[reason]}" for reason, n in dropped.items() if n]
        parts += [
            f"{n:,} {_DENIED_FOR.format(purpose=purpose)}"
            for purpose, n in sorted(purposes.items())
            if n
        ]
        keep = []
        if any(dropped.values()):
            keep.append("REP_NOINDEX_ACTION = 'keep' keeps those of noindex pages")
        if any(purposes.values()):
            keep.append("REP_PURPOSE_ACTION = 'mark' keeps those denied for a purpose, marked")
        return [
            f"scrapy_rep: {plural(total, 'item')} dropped ({', '.join(parts)}); {'; '.join(keep)}"
        ]
    return []


def _not_sent(stats: Mapping[str, Any], config: RepConfig) -> list[str]:
    """The requests robots.txt, an unreachable document or a purpose kept from being
    sent, by reason (as the report counts them: every request a purpose denied, the
    images of a ``noimageai`` page too): at INFO, so a crawl without the report says that
    a page was never fetched, and where to see which."""
    refused = {
        words: int(stats.get(dropped_stat(Action.FETCH)[0].format(reason=reason), 0) or 0)
        for reason, words in _REQUEST_REASONS.items()
    }
    denied: Counter[str] = Counter()
    for key, value in stats.items():
        if key.startswith(_DENIED_REQUESTS):
            denied[key.rsplit("/", 1)[1]] += int(value or 0)
    refused |= {_DENIED_FOR.format(purpose=p): n for p, n in sorted(denied.items())}
    total = sum(refused.values())
    if not total:
        return []
    parts = ", ".join(f"{n:,} {words}" for words, n in refused.items() if n)
    them = "them" if total > 1 else "it"
    where = "the report" if config.report or config.report_file else "REP_REPORT = True"
    return [f"scrapy_rep: {plural(total, 'request')} not sent ({parts}); {where} names {them}"]


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
        or fate in RESPONSE_FATES
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
    for said_by, times in settled.requests.items():
        fates[phrase_of(*said_by)] += times  # its words: describe()'s phrase of one like it
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


logger = logging.getLogger("scrapy_rep.crawl.report")


@dataclass
class Outcome:
    """One robots.txt (or other document) outcome of an origin, and how many times in a
    row it came (a host refusing connections says the same at every try)."""

    text: str
    times: int = 1

    def __str__(self) -> str:
        return self.text if self.times == 1 else f"{self.text} (x{self.times})"


@dataclass
class OriginReport:
    outcomes: list[Outcome] = field(default_factory=list)
    crawl_delay: float | None = None
    sitemaps: tuple[str, ...] = ()
    #: The requests that waited for its documents, and their waits (a request may wait
    #: more than once: for robots.txt, then for its refresh as it is sent).
    waited: int = 0
    waits: int = 0
    held_unreachable: int = 0
    #: Outcomes left out between the first and the last few (an origin down all crawl).
    outcomes_left_out: int = 0
    #: What the other documents' downloads came to (tdmrep.json), by document.
    documents: dict[str, list[Outcome]] = field(default_factory=dict)
    #: robots.txt's Content-Signal ``use=`` level for the crawler: a condition on use.
    use: str | None = None


def add_outcome(outcomes: list[Outcome], text: str) -> bool:
    """Append ``text``, or count it again when it repeats the last one; whether it was
    appended. A give-up that quotes the failure before it does not quote it again."""
    if outcomes:
        last = outcomes[-1]
        if last.text == text:
            last.times += 1
            return False
        text = text.replace(f" ({last.text})", "")
    outcomes.append(Outcome(text))
    return True


def origin_lines(origins: dict[str, OriginReport], delay_text: Callable[[float], str]) -> list[str]:
    """The lines of each origin: its documents' outcomes, its waits, its crawl-delay (as
    ``delay_text`` says what the crawl did with it), content use and sitemaps."""
    documents = sorted({d for report in origins.values() for d in report.documents})
    heading = " and ".join(["robots.txt", *documents])
    lines = [f"{heading} per origin:"]
    for name in sorted(origins):
        report = origins[name]
        lines.append(f"  {name}")
        outcomes = list(map(str, report.outcomes))
        if report.outcomes_left_out:
            outcomes.insert(2, f"({report.outcomes_left_out} more)")
        if outcomes or not report.documents:  # not for a document keyed by its URL (RSL)
            lines.append(f"    robots.txt: {' -> '.join(outcomes) or 'not downloaded'}")
        for document, fetched in report.documents.items():
            lines.append(f"    {document}: {' -> '.join(map(str, fetched))}")
        extras = []
        if report.waited:
            waits = f" ({report.waits} waits in all)" if report.waits > report.waited else ""
            extras.append(f"{report.waited} request(s) waited for it{waits}")
        if report.held_unreachable:
            extras.append(f"{report.held_unreachable} held while unreachable")
        if report.crawl_delay is not None:
            extras.append(delay_text(report.crawl_delay))
        if extras:
            lines.append(f"    {', '.join(extras)}")
        if report.use is not None:
            lines.append(
                f"    content use: at most {report.use} (Content-Signal use={report.use}: "
                "a condition on how its content may be used, which refuses no purpose)"
            )
        for sitemap in report.sitemaps:
            lines.append(f"    sitemap: {sitemap}")
    return lines


def delay_said(delay: float, not_obeyed: str, delay_max: float) -> str:
    """What the crawl did with a Crawl-delay it read (the slots' floor, capped at
    ``delay_max``; ``not_obeyed``: why it sets no delay, ``""``: it does)."""
    if not_obeyed:
        return f"crawl-delay {delay:g} s read, not obeyed ({not_obeyed})"
    if delay > delay_max:
        cap = f"{delay_max:g} s (REP_CRAWL_DELAY_MAX)"
        return f"crawl-delay {delay:g} s read, applied as {cap}"
    return f"crawl-delay {delay:g} s"


def delay_not_obeyed(config: RepConfig, settings: Any) -> str:
    """Why Crawl-delay sets no download delay in this crawl, as the crawl decides it
    (:func:`crawl_delay_obeyed`, ``ROBOTSTXT_OBEY``); ``""`` when it does."""
    if not settings.getbool("ROBOTSTXT_OBEY"):
        return "ROBOTSTXT_OBEY is False"
    return "" if crawl_delay_obeyed(config) else "REP_OBEY_CRAWL_DELAY is False"


def written(path: str, text: str) -> bool:
    """Whether the report ``text`` could be written to ``path`` (``REP_REPORT_FILE``; its
    missing folders made, as the audit trail's are); if not (checked at start, a full
    disk now), it is logged, and the report follows on standard error."""
    try:
        file = Path(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        return True
    except OSError as error:
        logger.error(
            "scrapy_rep: REP_REPORT_FILE %s cannot be written (%s); the report "
            "follows on standard error",
            path,
            error.strerror or error,
        )
        return False
