"""The end-of-crawl report (``REP_REPORT = True``): what the REP did, readable at a glance.

Per origin: what its robots.txt downloads came to (status, redirects, size, cut at
500 KiB, unreachable and retried; the same outcome in a row said once, with its count),
its crawl-delay, sitemaps and Content-Signal ``use=`` level (a condition on use,
docs/purpose-notes.md §2), and how many requests it held (and how many times, when
some were held more than once).

Per URL, in two lists. **URLs requested** are the requests the crawl sent or refused,
the very ones the audit trail (``REP_AUDIT_FILE``) has a ``url`` record for: downloaded
(with its items kept and dropped, and why: ``noindex by header X-Robots-Tag: none``;
let through by an override of ``REP_OVERRIDES``; a file an item pipeline downloaded,
decided as any request, and what the media gate made of it), redirected, forbidden by
robots.txt (the deciding line), refused for the crawl's purpose, held while robots.txt
was unreachable then released or dropped, or left without a response (dropped at its
send too: the failure the trail records, told by the same middleware). **Links not
followed** are the links a page's nofollow or ``rel="nofollow"`` kept from being
requested: no request, so no record of their own (the trail counts them on the page that
held them). The closing line counts requests as the trail does (a URL sent twice is
two; those an override let through among them), items, and the links not followed.

Built from scrapy_rep's signals and Scrapy's (``request_scheduled`` for redirects,
``request_left_downloader`` for downloads that got no response, ``response_received``),
and from each page's ledger (:mod:`scrapy_rep.crawl.ledger`: its items kept and dropped,
its links not followed), the one the audit trail's record of the page is written from;
printed to standard error when the engine stops, after Scrapy's stats and its "Spider
closed" line (never standard output, where a feed such as ``-o -:jsonl`` may go), or
written to ``REP_REPORT_FILE`` (which turns the report on by itself). Built then, it also
counts the requests dropped while the spider closed.

:func:`closing_lines` are the INFO lines every crawl with the add-on logs when the spider
closes (items dropped, links not followed, by reason, and the setting that keeps them;
requests not sent, by reason), report or not.
"""

from __future__ import annotations

import logging
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured

from scrapy_rep import signals as rep_signals
from scrapy_rep.audit.summary import OVERRIDDEN_BY
from scrapy_rep.crawl.auditing import ledger_of, read_urls
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.ledger import read_by
from scrapy_rep.settings import RepConfig, crawl_delay_obeyed, robots_agent
from scrapy_rep.urls.origins import origin_of
from scrapy_rep.verdict.fates import FATE_PHRASES, REASONS, REPORT_FATES, Fate, reason_row
from scrapy_rep.verdict.reasons import LINK_REASONS, Reason
from scrapy_rep.verdict.signals import Action

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from scrapy_rep.audit.urlentry import UrlEntry
    from scrapy_rep.audit.waits import Waits
    from scrapy_rep.crawl.ledger import PageLedger, PageRead
    from scrapy_rep.robotstxt import RobotsTxt
    from scrapy_rep.verdict import Refused

logger = logging.getLogger(__name__)
_MAX_OUTCOMES: Final = 5
#: A page's links not followed, by the refusal's reason: what the page's line says.
_NOT_FOLLOWED: Final[dict[str, str]] = {reason: REASONS[reason].report for reason in LINK_REASONS}
#: The closing line's words for the requests of a fate no reason names.
_DOWNLOADED, _REDIRECTED = (FATE_PHRASES[fate] for fate in (Fate.FETCHED, Fate.REDIRECTED))
#: What ``audit show`` says of a failed record, and the report of a URL that got none.
NO_RESPONSE: Final = "no response after every attempt"
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


def _fate_of(reason: str) -> str:
    """A refused request's fate in the closing line, by its refusal's reason (the
    signal's: another add-on's word is "dropped")."""
    row = reason_row(reason)
    return row.report if row is not None and row.fate is Fate.REFUSED else "dropped"


@dataclass
class _Outcome:
    """One robots.txt (or other document) outcome of an origin, and how many times in a
    row it came (a host refusing connections says the same at every try)."""

    text: str
    times: int = 1

    def __str__(self) -> str:
        return self.text if self.times == 1 else f"{self.text} (x{self.times})"


@dataclass
class _OriginReport:
    outcomes: list[_Outcome] = field(default_factory=list)
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
    documents: dict[str, list[_Outcome]] = field(default_factory=dict)
    #: robots.txt's Content-Signal ``use=`` level for the crawler: a condition on use.
    use: str | None = None


def _add_outcome(outcomes: list[_Outcome], text: str) -> bool:
    """Append ``text``, or count it again when it repeats the last one; whether it was
    appended. A give-up that quotes the failure before it does not quote it again."""
    if outcomes:
        last = outcomes[-1]
        if last.text == text:
            last.times += 1
            return False
        text = text.replace(f" ({last.text})", "")
    outcomes.append(_Outcome(text))
    return True


def _delay_not_obeyed(config: RepConfig, settings: Any) -> str:
    """Why Crawl-delay sets no download delay in this crawl, as the crawl decides it
    (:func:`crawl_delay_obeyed`, ``ROBOTSTXT_OBEY``); ``""`` when it does."""
    if not settings.getbool("ROBOTSTXT_OBEY"):
        return "ROBOTSTXT_OBEY is False"
    return "" if crawl_delay_obeyed(config) else "REP_OBEY_CRAWL_DELAY is False"


@dataclass
class _UrlReport:
    #: What happened, each said once (in the order of :func:`_event_order` when shown).
    events: list[str] = field(default_factory=list)
    #: How many times each counted event happened (downloads, items, links, refusals).
    times: Counter[str] = field(default_factory=Counter)
    #: The reason of the latest refusal of a request of this URL, if any.
    refused: str = ""
    #: Requests of this URL by fate (the closing line's words), as the trail counts them.
    fates: Counter[str] = field(default_factory=Counter)
    #: Failed robots.txt downloads its request was held through (``request_released``).
    held_failures: int = 0
    #: Items of this page kept and dropped (by reason), for the closing line.
    items_kept: int = 0
    items_dropped: Counter[str] = field(default_factory=Counter)

    @property
    def requested(self) -> bool:
        """Whether a request was sent or refused for it: a ``url`` record of the trail
        (a link not followed is not one)."""
        return bool(self.fates)


class RepReport:
    """Collects what happened and prints the report when the spider closes."""

    def __init__(self, crawler: Crawler) -> None:
        config = config_of(crawler)
        if not (config.report or config.report_file):
            raise NotConfigured  # no message: Scrapy would log it as a WARNING
        self.crawler = crawler
        self.max_urls = config.report_max_urls
        #: Whether the crawl writes an audit trail (``REP_AUDIT_FILE``): the headings name
        #: it only then.
        self.audited = bool(config.audit_file)
        self.path = config.report_file
        self.agent = robots_agent(crawler.settings)
        #: Why a Crawl-delay read is not applied (``""``: it is), and its cap.
        self.delay_not_obeyed = _delay_not_obeyed(config, crawler.settings)
        self.delay_max = config.crawl_delay_max
        self.origins: dict[str, _OriginReport] = {}
        self.urls: dict[str, _UrlReport] = {}
        self.untracked = 0
        #: The closing line's counts, of every URL (listed or past REP_REPORT_MAX_URLS):
        #: requests by fate, items kept and dropped (its ``fates``, ``items_kept``,
        #: ``items_dropped``), links not followed and requests overridden.
        self.totals = _UrlReport()
        self.links = self.overridden = 0
        #: The report as last printed (for tests and for programs embedding a crawl).
        self.text = ""
        self.stats, self.job_dir = crawler.stats, crawler.settings.get("JOBDIR")
        #: What a pause left for the resume, said first in the closing line (``""``: none).
        self.paused, self.reason = "", "finished"
        connect = crawler.signals.connect
        connect(self._fetched, signal=rep_signals.robotstxt_fetched)
        connect(self._document, signal=rep_signals.document_fetched)
        # every request's fate: the URL ledger's settled entries, the trail's records
        # (and its downloads apart; its origins' waits are read at the end)
        read_urls(crawler, self)
        connect(self._spider_opened, signal=signals.spider_opened)
        connect(self._spider_closed, signal=signals.spider_closed)
        read_by(crawler, self)  # each page's items and links: its ledger, as the trail's
        # After Scrapy's own closing lines (stats, "Spider closed"), so the report is the
        # last thing a person sees, and after the held requests dropped at close.
        connect(self._closed, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _delay_text(self, delay: float) -> str:
        """What the crawl did with a Crawl-delay it read (the slots' floor, capped)."""
        if self.delay_not_obeyed:
            return f"crawl-delay {delay:g} s read, not obeyed ({self.delay_not_obeyed})"
        if delay > self.delay_max:
            cap = f"{self.delay_max:g} s (REP_CRAWL_DELAY_MAX)"
            return f"crawl-delay {delay:g} s read, applied as {cap}"
        return f"crawl-delay {delay:g} s"

    # ------------------------------------------------------------------ collecting

    def _origin(self, name: str) -> _OriginReport:
        return self.origins.setdefault(name, _OriginReport())

    def _record(self, url: str) -> _UrlReport | None:
        """``url``'s record, new if there is room (``REP_REPORT_MAX_URLS``); past it, the
        event is counted among those of URLs left out."""
        record = self.urls.get(url)
        if record is None:
            if len(self.urls) >= self.max_urls:
                self.untracked += 1
                return None
            record = self.urls[url] = _UrlReport()
        return record

    def _url(self, url: str, event: str, times: int = 1) -> _UrlReport | None:
        """``url``'s record with ``event`` said (once) and counted (``times``)."""
        record = self._record(url)
        if record is None:
            return None
        record.times[event] += times
        if event not in record.events:
            record.events.append(event)
        return record

    def _fetched(
        self, origin: str, rules: RobotsTxt, outcome: str, sitemaps: tuple[str, ...], **_: Any
    ) -> None:
        report = self._origin(origin)
        if _add_outcome(report.outcomes, outcome) and len(report.outcomes) > _MAX_OUTCOMES:
            del report.outcomes[2]  # keep the first two and the latest
            report.outcomes_left_out += 1
        report.sitemaps = sitemaps or report.sitemaps
        delay = rules.crawl_delay(self.agent) if self.agent else None
        report.crawl_delay = delay if delay is not None else report.crawl_delay
        if self.agent:
            report.use = rules.content_signals(self.agent).use

    def _document(self, origin: str, document: str, outcome: str, **_: Any) -> None:
        outcomes = self._origin(origin).documents.setdefault(document, [])
        if _add_outcome(outcomes, outcome) and len(outcomes) > _MAX_OUTCOMES:
            del outcomes[2]

    def read_waits(self, waits: Waits) -> None:
        """The requests' waits for each origin's documents, as the URL ledger kept them:
        its origin's lines, and a URL held while its robots.txt was unreachable."""
        for origin, kept in waits.origins.items():
            report = self._origin(origin)
            report.waited, report.waits = kept.waited, kept.waits
            report.held_unreachable = kept.held_unreachable
        for url, failures in waits.failures.items():
            record = self._record(url)
            if record is not None:
                record.held_failures = failures

    def settled(self, entry: UrlEntry, fate: Fate, added: Mapping[str, Any], cause: object) -> None:
        """A request's fate, as the URL ledger settled it (the trail's record of it is
        the same entry): said on its URL's line and counted by fate."""
        url = entry.url
        if fate is Fate.REFUSED:
            reason = str(cause or "")
            if reason == Reason.ROBOTSTXT_UNREACHABLE:  # said with the hold: one phrase
                record = self._record(url)
            else:
                record = self._url(url, str(added.get("why", "")))
            if record is not None:
                record.refused = reason
            self._count(record, _fate_of(reason))
        elif fate is Fate.FETCHED:
            by = " by an item pipeline" if entry.unscheduled else ""
            record = self._url(url, f"downloaded{by} ({entry.status})")
            self._count(record, _DOWNLOADED)
        elif fate is Fate.REDIRECTED:
            status = f" ({entry.status})" if entry.status is not None else ""
            record = self._url(url, f"redirected{status} to {added.get('to', '')}")
            self._count(record, _REDIRECTED)
        else:  # failed after every attempt, dropped at its send, or the crawl ended first
            # an IgnoreRequest says what ignored it; a bare one, the trail's why (its name)
            said = (
                (str(cause) or str(added.get("why", "")))
                if isinstance(cause, IgnoreRequest)
                else ""
            )
            phrase = NO_RESPONSE if fate is Fate.FAILED else str(added.get("why", ""))
            record = self._url(url, f"not downloaded: {said or phrase}")
            self._count(record, FATE_PHRASES[fate])
        overridden = entry.robots.overridden if entry.robots is not None else ""
        if overridden and fate is not Fate.REFUSED:
            self._url(url, f"{OVERRIDDEN_BY}{overridden}")
            self.overridden += 1

    def _count(self, record: _UrlReport | None, fate: str) -> None:
        """A request of ``fate`` (the closing line's words): on its URL's line, if listed,
        and in the closing line's counts, listed or not (they count as the trail does)."""
        if record is not None:
            record.fates[fate] += 1
        self.totals.fates[fate] += 1

    def downloaded_apart(self, url: str, status: int) -> None:
        """A download no ledger entry follows (a file an item pipeline fetched without a
        verdict: no request of the crawl), listed apart."""
        self._url(url, f"downloaded by an item pipeline ({status})")

    def file_settled(self, url: str, fate: str, refusal: Refused | None, error: str) -> None:
        """What the media gate made of a file an item pipeline downloaded: not stored
        (refused for a purpose, or the pipeline failed) or stored and marked, as the
        trail's ``file`` record says it."""
        if fate == "failed":
            self._url(url, f"not stored: the pipeline failed ({error})")
        elif refusal is not None:
            stored = "stored, marked" if fate == "marked" else "not stored"
            self._url(url, f"{stored}: {refusal.message}")

    def page_done(
        self, response: Response, ledger: PageLedger, page: PageRead | None = None
    ) -> None:
        """A page's output is through: its items kept and dropped (and why), and the
        links it kept from being requested, from its ledger (the audit trail's record of
        the page reads the same one)."""
        url = response.url
        if ledger.kept:
            record = self._url(url, "item kept", ledger.kept)
            if record is not None:
                record.items_kept += ledger.kept
            self.totals.items_kept += ledger.kept
        for (reason, message), times in ledger.dropped.items():
            record = self._url(url, f"item dropped ({message or reason})", times)
            if record is not None:
                record.items_dropped[reason] += times
            self.totals.items_dropped[reason] += times
        for link, reason, message in ledger.links:
            self._url(link, message)
            self._url(url, _NOT_FOLLOWED[reason])
            self.links += _is_link(message)

    # ------------------------------------------------------------------ printing

    def _origin_lines(self) -> list[str]:
        documents = sorted({d for report in self.origins.values() for d in report.documents})
        heading = " and ".join(["robots.txt", *documents])
        lines = [f"{heading} per origin:"]
        for name in sorted(self.origins):
            report = self.origins[name]
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
                extras.append(self._delay_text(report.crawl_delay))
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

    def render(self) -> str:
        lines = ["scrapy_rep report", "", *self._origin_lines()]
        sections: dict[str, list[str]] = {heading: [] for heading in _SECTIONS}
        for url in sorted(self.urls, key=_url_order):
            record = self.urls[url]
            if record.events or record.requested:
                section = sections[_section(record)]
                section += [f"  {url}", f"    {'; '.join(_said(record))}"]
        for heading, section in sections.items():
            if section or heading == _REQUESTED:
                shown = heading if self.audited else _UNAUDITED.get(heading, heading)
                lines += ["", shown, *section]
        if self.untracked:
            lines.append(f"  … and {self.untracked} more event(s) of other URLs "
                         "(REP_REPORT_MAX_URLS)")  # fmt: skip
        short = f"{self.paused}; {self.summary()}" if self.paused else self.summary()
        lines += ["", f"In short: {short}"]
        return "\n".join(lines) + "\n"

    def summary(self) -> str:
        """The closing line: requests by fate (as the trail counts its records), items
        kept and dropped (by reason), links not followed: of every URL, those past
        REP_REPORT_MAX_URLS too."""
        totals = self.totals
        fates, kept, dropped = totals.fates, totals.items_kept, totals.items_dropped
        links, overridden = self.links, self.overridden
        order = [*REPORT_FATES, *sorted(set(fates) - set(REPORT_FATES))]
        parts = [f"{fates[fate]} {fate}" for fate in order if fates[fate]]
        requests = sum(fates.values())
        said = [f"{_plural(requests, 'request')}" + (f" ({', '.join(parts)})" if parts else "")]
        if overridden:
            said[0] += f", {overridden:,} of them overridden by REP_OVERRIDES"
        if kept or dropped:
            items = f"{_plural(kept, 'item')} kept"
            if dropped:
                reasons = ", ".join(f"{n} {r}" for r, n in sorted(dropped.items()))
                reasons = reasons if len(dropped) > 1 else next(iter(dropped))
                items += f", {sum(dropped.values())} dropped ({reasons})"
            said.append(items)
        if links:
            said.append(f"{_plural(links, 'link')} not followed (never requested)")
        return "; ".join(said) if requests or links else "nothing happened"

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
        if self.path:
            try:
                path = Path(self.path)
                path.parent.mkdir(parents=True, exist_ok=True)  # as the audit trail does
                path.write_text(self.text, encoding="utf-8")
                return
            except OSError as error:  # checked at start; a full disk now: print it instead
                logger.error(
                    "scrapy_rep: REP_REPORT_FILE %s cannot be written (%s); the report "
                    "follows on standard error",
                    self.path,
                    error.strerror or error,
                )
        # Never stdout: a feed may be written there (``-o -:jsonl``).
        sys.stderr.write("\n" + self.text)
        sys.stderr.flush()


#: The report's lists of URLs, by what they are (:func:`_section`).
_REQUESTED: Final = "URLs requested (the audit trail has a record of each request):"
_LINKS: Final = (
    "Links not followed (never requested, so no record of their own: the audit trail "
    "counts them on the page that held them):"
)
_OTHER: Final = "Other downloads (files an item pipeline fetched: no request of the crawl):"
#: The headings of a crawl without an audit trail: the same lists, no trail to name.
_UNAUDITED: Final = {
    _REQUESTED: "URLs requested:",
    _LINKS: "Links not followed (never requested):",
}
_SECTIONS: Final = (_REQUESTED, _LINKS, _OTHER)


def _section(record: _UrlReport) -> str:
    """The list a URL belongs in: a request sent or refused, a link only ever not
    followed, or a file only an item pipeline downloaded."""
    if record.requested:
        return _REQUESTED
    if all(map(_is_link, record.events)):
        return _LINKS
    return _OTHER


def _is_link(event: str) -> bool:
    """A link's event: not followed because of a page's nofollow or rel="nofollow"."""
    return event.startswith("Not followed")


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _url_order(url: str) -> tuple[str, str]:
    origin = origin_of(url)
    return (str(origin) if origin is not None else "", url)


#: The events in the order they matter to a reader, by how they begin.
_ORDER: Final = ("held", "downloaded", "redirected", "item", "not followed (", "Not followed")


def _event_order(event: str) -> int:
    """Events in the order they matter to a reader, whatever order the crawl sent them."""
    for rank, prefix in enumerate(_ORDER):
        if event.startswith(prefix):
            return rank
    return len(_ORDER)


def _said(record: _UrlReport) -> list[str]:
    """The events of one URL, in order, each with its count; a hold and what came of it
    in one phrase; a download that got no response at the end."""
    said = [_times(event, record.times[event]) for event in sorted(record.events, key=_event_order)]
    if record.held_failures:
        tries = _plural(record.held_failures, "failed download")
        if record.refused == Reason.ROBOTSTXT_UNREACHABLE:
            then = "then dropped when robots.txt was given up on (see its origin above)"
        else:
            then = "then released"
        said.insert(0, f"held while robots.txt was unreachable ({tries}), {then}")
    elif record.refused == Reason.ROBOTSTXT_UNREACHABLE:
        said.insert(0, "dropped: robots.txt was given up on as unreachable (see its origin above)")
    return said


def _times(event: str, times: int) -> str:
    """An event with its count: ``downloaded twice (200)``, ``3 items kept``, ``2 items
    dropped (noindex …)``, ``2 links not followed (…)`` (a URL sent again, as a start URL
    that pages link back to; a page with many items or links)."""
    if event.startswith("item "):
        return f"{_plural(times, 'item')} {event.removeprefix('item ')}"
    if event.startswith("not followed ("):
        return f"{_plural(times, 'link')} {event}"
    if times < 2:
        return event
    head, _, tail = event.partition(" (")
    count = "twice" if times == 2 else f"{times} times"
    return f"{head} {count} ({tail}" if tail else f"{event} ({count})"


# ---------------------------------------------------------------------- closing lines


def paused(stats: Mapping[str, Any], reason: str, job_dir: str | None) -> str:
    """What a crawl closed before it finished with ``JOBDIR`` (paused: ``shutdown``; or
    ended early, ``closespider_pagecount``...) left for its resume, as Scrapy's queue,
    scrapy_rep's held requests and the URL ledger's open entries are kept then: the
    requests Scrapy's scheduler keeps and those scrapy_rep held; ``""`` for a finished
    crawl, or one without ``JOBDIR``."""
    if reason in ("finished", "") or not job_dir:
        return ""
    how = "paused (JOBDIR)" if reason == "shutdown" else f"ended ({reason}) with JOBDIR"
    held = int(stats.get("rep/requests/kept_for_resume", 0) or 0)
    scheduled = stats.get("rep/requests/scheduled_at_pause")
    if scheduled is None:  # another scheduler than Scrapy's: its count is not known
        return f"{how}: {_plural(held, 'held request')} left, and the scheduler's"
    left = _plural(held + int(scheduled), "request")
    return f"{how}: {left} left ({scheduled:,} scheduled, {held:,} held)"


def closing_lines(
    stats: Mapping[str, Any], config: RepConfig, reason: str = "finished", job_dir: str = ""
) -> list[str]:
    """The INFO lines of a crawl's end (from its stats): what a pause left, the items
    dropped and the links not followed, by reason, each with the setting that keeps them
    (docs/switching.md). The biggest differences from Scrapy's ``ROBOTSTXT_OBEY``, said
    where users read."""
    pause = paused(stats, reason, job_dir)
    lines = [f"scrapy_rep: {pause}; the same command resumes the crawl"] if pause else []
    dropped = {
        reason: int(stats.get(f"rep/directives/items_dropped/{reason}", 0) or 0)
        for reason in _ITEM_REASONS
    }
    purposes = {
        key.rsplit("/", 1)[1]: int(value or 0)
        for key, value in stats.items()
        if key.startswith("rep/purpose/items_dropped/")
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
        lines.append(
            f"scrapy_rep: {_plural(total, 'item')} dropped ({', '.join(parts)}); {'; '.join(keep)}"
        )
    kept = sum(int(stats.get(f"rep/directives/items_kept/{r}", 0) or 0) for r in _ITEM_REASONS)
    if kept:
        lines.append(
            f"scrapy_rep: {_plural(kept, 'item')} of noindex pages kept "
            f"(REP_NOINDEX_ACTION = {config.noindex_action!r})"
        )
    nofollow = int(stats.get("rep/directives/requests_dropped/nofollow", 0) or 0)
    rel = int(stats.get("rep/directives/requests_dropped/rel_nofollow", 0) or 0)
    if nofollow or rel:
        parts = [f"{nofollow:,} {REASONS[Reason.NOFOLLOW].closing}"] if nofollow else []
        parts += [f"{rel:,} {REASONS[Reason.REL_NOFOLLOW].closing}"] if rel else []
        keep = ["REP_NOFOLLOW_ACTION = 'keep'"] if nofollow else []
        keep += ["REP_REL_NOFOLLOW = False"] if rel else []
        lines.append(
            f"scrapy_rep: {_plural(nofollow + rel, 'link')} not followed ({', '.join(parts)}); "
            f"{' and '.join(keep)} {'follows' if len(keep) == 1 else 'follow'} them"
        )
    return lines + _not_sent(stats, config)


def _not_sent(stats: Mapping[str, Any], config: RepConfig) -> list[str]:
    """The requests robots.txt, an unreachable document or a purpose kept from being
    sent, by reason: at INFO, so a crawl without the report says that a page was never
    fetched, and where to see which."""
    refused = {
        words: int(stats.get(f"rep/requests/dropped/{reason}", 0) or 0)
        for reason, words in _REQUEST_REASONS.items()
    }
    refused |= {
        _DENIED_FOR.format(purpose=key.rsplit("/", 1)[1]): int(value or 0)
        for key, value in sorted(stats.items())
        if key.startswith("rep/purpose/requests_dropped/")
    }
    total = sum(refused.values())
    if not total:
        return []
    parts = ", ".join(f"{n:,} {words}" for words, n in refused.items() if n)
    them = "them" if total > 1 else "it"
    where = "the report" if config.report or config.report_file else "REP_REPORT = True"
    return [f"scrapy_rep: {_plural(total, 'request')} not sent ({parts}); {where} names {them}"]
