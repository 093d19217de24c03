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
gives every witness of a fate, and the documents' outcomes; its text:
:mod:`scrapy_rep.crawl.reportlines`. Printed to standard error when the engine stops, after
Scrapy's stats and its "Spider closed" line (never standard output, where a feed such as
``-o -:jsonl`` may go), or written to ``REP_REPORT_FILE``. The INFO lines every crawl logs
at its close: :mod:`scrapy_rep.crawl.closing`.
"""

from __future__ import annotations

import logging
import sys
from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Any, Final

from scrapy import signals
from scrapy.exceptions import NotConfigured

from rep_engine.records import UrlEntry
from rep_engine.settings.readers import robots_agent
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.auditing import Settled, ledger_of, read_urls
from scrapy_rep.crawl.closing import closing_lines, paused
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.reportlines import UrlReport, summary_of, url_lines
from scrapy_rep.crawl.reportorigins import (
    OriginReport,
    add_outcome,
    delay_not_obeyed,
    delay_said,
    origin_lines,
    written,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from rep_engine.records import FileOutcome
    from rep_engine.robotstxt import RobotsTxt
    from scrapy_rep.crawl.auditing import Waits

__all__ = ["RepReport", "closing_lines", "paused"]

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
        self.paused, self.reason = "", "finished"
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
