"""The end-of-crawl report (``REP_REPORT = True``): what the REP did, readable at a glance.

Per origin: what its robots.txt downloads came to (status, redirects, size, cut at
500 KiB, unreachable and retried), its crawl-delay, sitemaps and Content-Signal ``use=``
level (a condition on use, docs/purpose-notes.md §2), and how many requests it held.
Per URL: downloaded (and whether its item was kept), forbidden by robots.txt (the
deciding line), held then released, not followed because of nofollow. Built from
scrapy_rep's signals and Scrapy's ``response_received`` / ``item_scraped``; printed to
standard error when the engine stops, after Scrapy's stats and its "Spider closed" line
(never standard output, where a feed such as ``-o -:jsonl`` may go), or written to
``REP_REPORT_FILE`` (which turns the report on by itself). Built then, it also counts the
requests dropped while the spider closed.
"""

from __future__ import annotations

import logging
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from scrapy import signals
from scrapy.exceptions import NotConfigured

from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.meta import ROBOTS_REQUEST
from scrapy_rep.fetch.origins import origin_of
from scrapy_rep.settings import RepConfig, crawl_delay_obeyed, robots_agent

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from scrapy_rep.robotstxt import RobotsTxt

logger = logging.getLogger(__name__)
_MAX_OUTCOMES: Final = 5
_NOT_FOLLOWED: Final = {
    "nofollow": "its links not followed (nofollow)",
    "rel_nofollow": 'a rel="nofollow" link not followed',
}
_FATES: Final = (
    "downloaded",
    "downloaded but item dropped",
    "forbidden by robots.txt",
    "not fetched for the crawl's purpose",
    "dropped",
    "not followed",
)


@dataclass
class _OriginReport:
    outcomes: list[str] = field(default_factory=list)
    crawl_delay: float | None = None
    sitemaps: tuple[str, ...] = ()
    waited: int = 0
    held_unreachable: int = 0
    #: Outcomes left out between the first and the last few (an origin down all crawl).
    outcomes_left_out: int = 0
    #: What the other documents' downloads came to (tdmrep.json), by document.
    documents: dict[str, list[str]] = field(default_factory=dict)
    #: robots.txt's Content-Signal ``use=`` level for the crawler: a condition on use.
    use: str | None = None


#: A refused request's ``reason`` (the signal's) -> its fate in the closing line.
_FATE_OF_REASON: Final = {
    "forbidden": "forbidden by robots.txt",
    "purpose": "not fetched for the crawl's purpose",
    "nofollow": "not followed",
    "rel_nofollow": "not followed",
}


def _delay_not_obeyed(config: RepConfig, settings: Any) -> str:
    """Why Crawl-delay sets no download delay in this crawl, as the crawl decides it
    (:func:`crawl_delay_obeyed`, ``ROBOTSTXT_OBEY``); ``""`` when it does."""
    if not settings.getbool("ROBOTSTXT_OBEY"):
        return "ROBOTSTXT_OBEY is False"
    return "" if crawl_delay_obeyed(config) else "REP_OBEY_CRAWL_DELAY is False"


#: Events that a URL can have more than once, each counted (a URL downloaded again).
_COUNTED: Final = ("downloaded (", "item kept")


@dataclass
class _UrlReport:
    events: list[str] = field(default_factory=list)
    #: The reason of the last ``request_refused`` signal for this URL, if any.
    refused: str = ""
    downloaded: bool = False
    item_dropped: bool = False
    #: How many times each counted event happened (a URL downloaded again).
    times: Counter[str] = field(default_factory=Counter)


class RepReport:
    """Collects what happened and prints the report when the spider closes."""

    def __init__(self, crawler: Crawler) -> None:
        config = config_of(crawler)
        if not (config.report or config.report_file):
            raise NotConfigured  # no message: Scrapy would log it as a WARNING
        self.max_urls = config.report_max_urls
        self.path = config.report_file
        self.agent = robots_agent(crawler.settings)
        #: Why a Crawl-delay read is not applied (``""``: it is), and its cap.
        self.delay_not_obeyed = _delay_not_obeyed(config, crawler.settings)
        self.delay_max = config.crawl_delay_max
        self.origins: dict[str, _OriginReport] = {}
        self.urls: dict[str, _UrlReport] = {}
        self.untracked = 0
        #: The report as last printed (for tests and for programs embedding a crawl).
        self.text = ""
        connect = crawler.signals.connect
        connect(self._fetched, signal=rep_signals.robotstxt_fetched)
        connect(self._document, signal=rep_signals.document_fetched)
        connect(self._held, signal=rep_signals.request_held)
        connect(self._released, signal=rep_signals.request_released)
        connect(self._refused, signal=rep_signals.request_refused)
        connect(self._item_refused, signal=rep_signals.item_refused)
        connect(self._response, signal=signals.response_received)
        connect(self._item, signal=signals.item_scraped)
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

    def _url(self, url: str, event: str) -> _UrlReport | None:
        record = self.urls.get(url)
        if record is None:
            if len(self.urls) >= self.max_urls:
                self.untracked += 1
                return None
            record = self.urls[url] = _UrlReport()
        if event.startswith(_COUNTED):
            record.times[event] += 1
            if record.times[event] > 1:  # said once, with its count (:func:`_times`)
                return record
        if not record.events or record.events[-1] != event:
            record.events.append(event)
        return record

    def _fetched(
        self, origin: str, rules: RobotsTxt, outcome: str, sitemaps: tuple[str, ...], **_: Any
    ) -> None:
        report = self._origin(origin)
        if len(report.outcomes) >= _MAX_OUTCOMES:  # keep the first two and the latest
            del report.outcomes[2]
            report.outcomes_left_out += 1
        report.outcomes.append(outcome)
        report.sitemaps = sitemaps or report.sitemaps
        delay = rules.crawl_delay(self.agent) if self.agent else None
        report.crawl_delay = delay if delay is not None else report.crawl_delay
        if self.agent:
            report.use = rules.content_signals(self.agent).use

    def _document(self, origin: str, document: str, outcome: str, **_: Any) -> None:
        outcomes = self._origin(origin).documents.setdefault(document, [])
        if len(outcomes) >= _MAX_OUTCOMES:
            del outcomes[2]
        outcomes.append(outcome)

    def _held(self, request: Request, origin: str, **_: Any) -> None:
        self._origin(origin).waited += 1

    def _released(self, request: Request, origin: str, failures: int, **_: Any) -> None:
        if failures:
            self._origin(origin).held_unreachable += 1
            self._url(request.url, f"held while robots.txt was unreachable ({failures}x), released")

    def _refused(
        self, request: Request, reason: str, message: str, response: Response | None, **_: Any
    ) -> None:
        record = self._url(request.url, message)
        if record is not None:
            record.refused = reason
        if response is not None and reason in _NOT_FOLLOWED:
            self._url(response.url, _NOT_FOLLOWED[reason])

    def _item_refused(
        self, response: Response | None, reason: str, message: str = "", **_: Any
    ) -> None:
        if response is None:  # an item from start(): it belongs to no URL
            return
        record = self._url(response.url, f"item dropped ({message or reason})")
        if record is not None:
            record.item_dropped = True

    def _response(self, response: Response, request: Request, **_: Any) -> None:
        if ROBOTS_REQUEST in request.meta:
            return
        record = self._url(request.url, f"downloaded ({response.status})")
        if record is not None:
            record.downloaded = True

    def _item(self, response: Response | None, **_: Any) -> None:
        if response is None:  # an item from start(): it belongs to no URL
            return
        self._url(response.url, "item kept")

    # ------------------------------------------------------------------ printing

    def render(self) -> str:
        documents = sorted({d for report in self.origins.values() for d in report.documents})
        heading = " and ".join(["robots.txt", *documents])
        lines = ["scrapy_rep report", "", f"{heading} per origin:"]
        for name in sorted(self.origins):
            report = self.origins[name]
            lines.append(f"  {name}")
            outcomes = list(report.outcomes)
            if report.outcomes_left_out:
                outcomes.insert(2, f"({report.outcomes_left_out} more)")
            if outcomes or not report.documents:  # not for a document keyed by its URL (RSL)
                lines.append(f"    robots.txt: {' -> '.join(outcomes) or 'not downloaded'}")
            for document, fetched in report.documents.items():
                lines.append(f"    {document}: {' -> '.join(fetched)}")
            extras = []
            if report.waited:
                extras.append(f"{report.waited} request(s) waited for it")
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
        lines += ["", "URLs:"]
        counts: Counter[str] = Counter()
        for url in sorted(self.urls, key=_url_order):
            record = self.urls[url]
            events = [_times(e, record.times[e]) for e in sorted(record.events, key=_event_order)]
            lines.append(f"  {url}")
            lines.append(f"    {'; '.join(events)}")
            counts[_fate(record)] += 1
        if self.untracked:
            lines.append(f"  … and {self.untracked} more (REP_REPORT_MAX_URLS)")
        summary = ", ".join(f"{counts[what]} {what}" for what in _FATES if counts[what])
        lines += ["", f"In short: {summary or 'nothing happened'}"]
        return "\n".join(lines) + "\n"

    def _closed(self, **_: Any) -> None:
        self.text = self.render()
        if self.path:
            try:
                Path(self.path).write_text(self.text, encoding="utf-8")
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


def _url_order(url: str) -> tuple[str, str]:
    origin = origin_of(url)
    return (str(origin) if origin is not None else "", url)


def _event_order(event: str) -> int:
    """Events in the order they matter to a reader, whatever order the crawl sent them."""
    for rank, prefix in enumerate(("held", "downloaded", "item", "its links", "a rel")):
        if event.startswith(prefix):
            return rank
    return len(_FATES)


def _times(event: str, times: int) -> str:
    """``downloaded (200)`` twice: ``downloaded twice (200)``; ``item kept`` 3 times:
    ``3 items kept`` (a URL sent again, as a start URL that pages link back to)."""
    if times < 2:
        return event
    if event == "item kept":
        return f"{times} items kept"
    head, _, tail = event.partition(" (")
    count = "twice" if times == 2 else f"{times} times"
    return f"{head} {count} ({tail}" if tail else f"{head} {count}"


def _fate(record: _UrlReport) -> str:
    """The one-word fate of a URL, for the closing line (from what happened, not from
    the wording of the log lines)."""
    if record.downloaded:
        return "downloaded but item dropped" if record.item_dropped else "downloaded"
    return _FATE_OF_REASON.get(record.refused, "dropped")
