"""A downloaded file held against the crawl's AI purposes (the Scrapy side of
:mod:`rep_engine.usage.media.reading`; used by :mod:`scrapy_rep.crawl.media.pipelines`).

Every signal about the file makes one decision: what the origin said before the fetch,
the response's own headers (as a page's: ``Content-Usage``, ``Content-Signal``,
``tdm-reservation``, ``X-Robots-Tag: noai`` / ``noimageai`` / ``noml``, ``noarchive`` /
``nocache`` / ``nosnippet`` read as AI opt-outs, ``noindex`` / ``noimageindex`` under
``REP_MEDIA_NOINDEX_MEANS_NO_AI``), the ``noimageai`` (or ``noimageindex``) of the
page that showed the image (``rep_image_usage``), and the statements inside the file
(IPTC Data Mining, C2PA/CAWG). Any "no" wins.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import DeferredSemaphore

from rep_engine.records import Reason
from rep_engine.settings.readers import robots_agent
from rep_engine.settings.rules import page_rules
from rep_engine.usage.media._xmp_scan import Limits
from rep_engine.usage.media.c2pa import available
from rep_engine.usage.media.reading import MediaReading, read_media
from rep_engine.usage.media.xmp import sniff
from rep_engine.usage.purpose import UsageSignal, usage_decision
from rep_engine.verdict.decide import Refused
from rep_engine.verdict.page import PAGE, PageFacts, decide_page
from rep_engine.verdict.policy import NOTHING_BEFORE, TDM_PURPOSES
from scrapy_rep import signals
from scrapy_rep.crawl.auditing import Refusal
from scrapy_rep.crawl.config import PerCrawler, config_of
from scrapy_rep.crawl.internals import error_line, in_thread
from scrapy_rep.crawl.media.filerecords import FileVerdict, page_noimageai, refused_file
from scrapy_rep.crawl.page.pagereader import crawler_tokens, is_image, read_statements
from scrapy_rep.crawl.requests.downloadermiddlewares import answered_before
from scrapy_rep.crawl.requeststate import before_of, sent_state, state_of
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

_told_c2pa = False
#: Files read at once per crawl (its media pipelines together), each in a thread of the
#: pool Scrapy's name lookups share (without a reactor, of the asyncio loop's default
#: executor): the others wait their turn (docs/media.md, "Cost per file").
READS_AT_ONCE: Final = 2
_READS: PerCrawler[DeferredSemaphore] = PerCrawler("media_reads")


class MediaGate:
    """Reads each downloaded file for the crawl's AI purposes (``REP_MEDIA_*``)."""

    def __init__(self, crawler: Crawler) -> None:
        config = config_of(crawler)
        self.crawler = crawler
        #: The settings a file's decision takes, and the crawl's purposes among them.
        self.rules = page_rules(config)
        self.policy = self.rules.policy
        self.enabled = config.media_usage and not TDM_PURPOSES.isdisjoint(config.purpose)
        self.mark = config.purpose_action == "mark"
        self.constraints_met = config.media_constraints_met
        self.c2pa = config.media_c2pa
        self.limits = Limits(
            max_scan=config.media_max_scan_bytes,
            max_packet=config.media_max_packet_bytes,
            max_packets=config.media_max_packets,
        )
        self.agent = robots_agent(crawler.settings)
        self.tokens = config.directive_tokens
        if self.enabled and self.c2pa:
            _say_c2pa_once()

    @staticmethod
    def refused_before(url: str, refusal: Refusal) -> dict[str, Any]:
        """The :func:`refused_file` entry of a file's request that scrapy_rep refused
        before it was sent (robots.txt, the origin's usage signals, the spider closing while it
        waited): what its ``refusal`` (which its download raised) said."""
        verdict, message = refusal.verdict, str(refusal)
        purpose = verdict.purpose if verdict is not None else None
        statement = verdict.statement if verdict is not None else None
        return refused_file(url, purpose, message, statement, [message])

    def check(
        self, response: Response, request: Request, item: Any, reading: MediaReading | None = None
    ) -> FileVerdict:
        """The verdict on one downloaded file (``reading``: by :meth:`read`, if done). A
        failure of the check itself fails closed (docs/media.md, "What happens to a file"):
        refused for the crawl's AI purposes, logged (WARNING) and counted (``rep/media/errors``)."""
        try:
            verdict = self._check(response, request, item, reading)
        except Exception as error:  # never lose an item over a file's statements
            verdict = self._failed(response, request, error)
        self._count(verdict)
        return verdict

    async def check_in_a_thread(
        self, response: Response, request: Request, item: Any
    ) -> FileVerdict:
        """:meth:`check`, the file read in a thread (:func:`in_thread`), at most
        :data:`READS_AT_ONCE` files of the crawl at a time: the reader is linear in the file's
        size and bounded, but a large hostile file may take a tenth
        of a second, which must not stop the crawl (its other downloads, its close timeout) nor
        take the threads of Scrapy's DNS resolver (50 such files at once held the other hosts
        for 134 s). Fails closed as :meth:`check`."""
        try:
            reads = _READS.setdefault(self.crawler, DeferredSemaphore(READS_AT_ONCE))
            await maybe_deferred_to_future(reads.acquire())
            try:
                reading = await in_thread(self.read, response.body)
            finally:
                reads.release()
        except Exception as error:
            verdict = self._failed(response, request, error)
            self._count(verdict)
            return verdict
        return self.check(response, request, item, reading)

    def read(self, body: bytes) -> MediaReading:
        """What the file says about its use (pure: safe to run in any thread)."""
        return read_media(
            body, limits=self.limits, constraints_met=self.constraints_met, c2pa=self.c2pa
        )

    def _failed(self, response: Response, request: Request, error: Exception) -> FileVerdict:
        verdict = self._unchecked(response.body, error)
        logger.warning(
            "scrapy_rep: could not read the usage statements of %(request)s (%(error)s): "
            "handled as a refusal for the crawl's AI purposes",
            {"request": request, "error": verdict.reading.problems[0]},
            extra={"spider": self.crawler.spider},
        )
        inc(self.crawler.stats, "rep/media/errors")
        return verdict

    def _unchecked(self, body: bytes, error: Exception) -> FileVerdict:
        """The verdict on a file whose check failed: a "no" for ai-train and ai-input, the
        reading that never loses a site owner's "no"."""
        what = f"the check failed: {error_line(error)}"
        signal = UsageSignal("iptc", (None, False, False), f"an unreadable file ({what})")
        reading = MediaReading(sniff(body), (), (what,), "not read: the check failed")
        decision = usage_decision((signal,))
        refusal = self.policy.refusal(decision)  # a "no" for every AI purpose, which it has
        assert refusal is not None  # (the gate is on only for a crawl with one: enabled)
        message, purpose = refusal.message, refusal.purpose
        refused = Refused(Reason.PURPOSE, message, PAGE, self.agent, purpose=purpose, signal=signal)
        return FileVerdict(decision, reading, refused)

    def settled(
        self, verdict: FileVerdict, request: Request, item: Any, fate: str, error: str = ""
    ) -> None:
        """Send :data:`scrapy_rep.signals.file_checked` once the pipeline knows what became
        of the file (``fate``; ``failed`` with the pipeline's ``error``)."""
        self.crawler.signals.send_catch_log(
            signals.file_checked,
            url=request.url,
            request=request,
            item=item,
            decision=verdict.decision,
            reading=verdict.reading,
            refusal=verdict.refusal,
            fate=fate,
            error=error,
        )

    def _check(
        self, response: Response, request: Request, item: Any, reading: MediaReading | None
    ) -> FileVerdict:
        state = state_of(request)  # every name it was decided for: any one's "no" applies
        sent_as = state.names[1:] if state is not None else ()
        tokens = crawler_tokens(self.agent, (*sent_as, *self.tokens) if sent_as else self.tokens)
        statements = read_statements(response, tokens, ai=self.policy.needs_tdmrep)
        if reading is None:
            reading = self.read(response.body)
        inside = (*page_noimageai(request, item), *reading.signals)
        image = is_image(response)
        before = before_of(request)
        if before is NOTHING_BEFORE and sent_state(request) is None:  # answered: no verdict
            before = answered_before(self.crawler, request)[1]  # held to the origin's as a page
        facts = PageFacts(response.url, tokens, before, image, file=True)
        verdict = decide_page(facts, statements.also(inside=inside), self.rules)
        return FileVerdict(verdict.usage, reading, verdict.purpose)

    def _count(self, verdict: FileVerdict) -> None:
        inc(self.crawler.stats, "rep/media/checked")
        reading = verdict.reading
        if reading.signals:
            inc(self.crawler.stats, "rep/media/with_statements")
        if reading.unreadable:
            inc(self.crawler.stats, "rep/media/unreadable")
        if reading.c2pa == "read":
            inc(self.crawler.stats, "rep/media/c2pa_read")


def _say_c2pa_once() -> None:
    global _told_c2pa
    if not _told_c2pa and not available():
        _told_c2pa = True
        logger.warning(
            "scrapy_rep: c2pa-python is not installed: C2PA statements in downloaded "
            "files are not read (pip install 'c2pa-python>=0.38': scrapy_rep's media "
            "extra); IPTC Data Mining is read all the same"
        )
