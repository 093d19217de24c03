"""``FilesPipeline`` / ``ImagesPipeline`` that honour the statements inside the files
they download (docs/media.md).

For crawls whose purposes (``REP_PURPOSE``) include ``ai-train`` or ``ai-input``, each
downloaded file is read before it is stored, by the media gate (:class:`MediaGate`, the
Scrapy side of :mod:`rep_engine.usage.media.reading`). Every signal about the file makes
one decision (its :class:`FileVerdict`): what the origin said before the fetch, the
response's own headers (as a page's: ``Content-Usage``, ``Content-Signal``,
``tdm-reservation``, ``X-Robots-Tag: noai`` / ``noimageai`` / ``noml``, ``noarchive`` /
``nocache`` / ``nosnippet`` read as AI opt-outs, ``noindex`` / ``noimageindex`` under
``REP_MEDIA_NOINDEX_MEANS_NO_AI``), the ``noimageai`` (or ``noimageindex``) of the page
that showed the image (``rep_image_usage``), and the statements inside the file (IPTC Data
Mining, C2PA/CAWG). Any "no" wins. A file denied for a purpose of the crawl is not stored
(``REP_PURPOSE_ACTION = "drop"``: listed in ``item["rep_refused_files"]``, never in
``item["files"]`` / ``item["images"]``) or is stored and marked (``"mark"``: its result
says why under ``"rep_refused"``).

The add-on puts :class:`MediaUsageMixin` in front of every ``FilesPipeline`` subclass in
``ITEM_PIPELINES``; without it, list :class:`RepFilesPipeline` / :class:`RepImagesPipeline`,
or mix :class:`MediaUsageMixin` into your own subclass.

A file request that scrapy_rep refused before it was sent is a media pipeline's failure
(:class:`RefusedBeforeFetch`, :class:`FilteredRefusalMixin`). Scrapy 2.18 leaves a media
request a downloader middleware ignored (``IgnoreRequest``, which a refusal of ours is) out
of the item with one DEBUG line, ``File (filtered): Not downloading …``; Scrapy 2.13 to
2.17 log an ERROR with a bare ``FileException`` traceback instead, for a crawl whose files
are not checked (a search-only crawl) too, though the refusal has said itself already (its
DEBUG line and stats). The add-on puts the mixin in front of every ``FilesPipeline``
subclass there (:func:`with_filtered_refusals`), so a refusal of ours gets the line 2.18
gives it on every release, and no ERROR. (:class:`RefusedBeforeFetch` is Scrapy's private
``_MediaRequestFiltered`` on 2.18+, neither logged as an error nor put in the item by the
media pipeline; ``item_completed`` makes ours a result.)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NoReturn, cast

from itemadapter import ItemAdapter
from scrapy.pipelines.files import FilesPipeline
from scrapy.pipelines.images import ImagesPipeline
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from scrapy.utils.request import referer_str
from twisted.internet.defer import DeferredSemaphore

from rep_engine.records import FileFate, Reason
from rep_engine.settings.readers import robots_agent
from rep_engine.settings.rules import page_rules
from rep_engine.usage.media._xmp_scan import Limits
from rep_engine.usage.media.c2pa import available
from rep_engine.usage.media.reading import MediaReading, read_media
from rep_engine.usage.media.xmp import sniff
from rep_engine.usage.purpose import (
    MAPPING,
    PURPOSE_INDEX,
    UsageDecision,
    UsageSignal,
    usage_decision,
)
from rep_engine.verdict.decide import Refused
from rep_engine.verdict.page import PAGE, PageFacts, decide_page
from rep_engine.verdict.policy import NOTHING_BEFORE, TDM_PURPOSES
from scrapy_rep import signals
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.auditing import Refusal
from scrapy_rep.crawl.config import PerCrawler, config_of
from scrapy_rep.crawl.internals import (
    MEDIA_REQUEST_FILTERED,
    MediaRequestFiltered,
    awaited,
    error_line,
    in_thread,
    quiet_media_failures,
)
from scrapy_rep.crawl.meta import REFUSED_FILES
from scrapy_rep.crawl.page.pagereader import crawler_tokens, is_image, read_statements
from scrapy_rep.crawl.refusals import refuse_file
from scrapy_rep.crawl.requests.downloadermiddlewares import answered_before
from scrapy_rep.crawl.requeststate import before_of, sent_state, state_of
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.pipelines.media import FileInfo, FileInfoOrError, MediaPipeline
    from twisted.python.failure import Failure

logger = logging.getLogger(__name__)


_NOIMAGEAI: Final = MAPPING[("robots-meta", "noimageai (image response)")].answers


@dataclass(frozen=True, slots=True)
class FileVerdict:
    """What the gate found about one file."""

    decision: UsageDecision
    reading: MediaReading
    #: Why it must not be stored for a purpose of the crawl (its decision's ``purpose``).
    refusal: Refused | None

    @property
    def reasons(self) -> list[str]:
        """Every statement that denies the refused purpose (several sources can say no)."""
        if self.refusal is None:
            return []
        purpose = self.refusal.purpose
        if self.refusal.signal is None or purpose is None:
            return [self.refusal.message]
        index = PURPOSE_INDEX[purpose]
        denying = [s.source for s in self.decision.signals if s.answers[index] is False]
        return [f"{purpose} denied by {source}" for source in denying]


def refused_file(
    url: str, purpose: str | None, reason: str, statement: str | None, reasons: list[str]
) -> dict[str, Any]:
    """One entry of an item's ``rep_refused_files`` (docs/media.md); ``statement``: the
    deciding one (``None``: nothing said, e.g. ``REP_PURPOSE_UNKNOWN = "deny"``, or an
    unreachable document); ``reasons``: every statement that denies it."""
    return {
        "url": url,
        "purpose": purpose,
        "reason": reason,
        "signal": statement,
        meta.REFUSED: reasons,
    }


def verdict_refused_file(verdict: FileVerdict, url: str) -> dict[str, Any]:
    """The ``rep_refused_files`` entry of a downloaded file refused by ``verdict``."""
    refusal = verdict.refusal
    assert refusal is not None
    statement = None if refusal.signal is None else refusal.signal.source
    entry = refused_file(url, refusal.purpose, refusal.message, statement, verdict.reasons)
    if verdict.reading.unreadable:
        entry[meta.UNREADABLE] = list(verdict.reading.problems)
    return entry


def page_noimageai(request: Request, item: Any) -> list[UsageSignal]:
    """The ``noimageai`` of the page that showed this image, as the page-directives
    middleware recorded it (on the request, or on the item for its image URLs)."""
    found = []
    record = request.meta.get(meta.IMAGE_USAGE)
    if isinstance(record, dict) and record.get("url") == request.url:
        found.append(record)
    try:
        on_item = ItemAdapter(item).get(meta.IMAGE_USAGE) if item is not None else None
    except TypeError:
        on_item = None
    if isinstance(on_item, dict) and request.url in (on_item.get("urls") or ()):
        found.append(on_item)
    return [_record_signal(record) for record in found[:1]]


def _record_signal(record: dict[str, Any]) -> UsageSignal:
    purposes = record.get("purposes") or ("ai-train", "ai-input")
    answers = tuple(
        False if purpose in purposes and answer is False else None
        for purpose, answer in zip(PURPOSE_INDEX, _NOIMAGEAI, strict=True)
    )
    source = str(record.get("source") or "noimageai on the page")[:200]
    return UsageSignal("robots-meta", (answers[0], answers[1], answers[2]), source)


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
        self, verdict: FileVerdict, request: Request, item: Any, fate: FileFate, error: str = ""
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


if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.pipelines.files import FilesPipeline
    from scrapy.pipelines.media import MediaPipeline
    from twisted.python.failure import Failure

    _Base = FilesPipeline
else:
    _Base = object


class RefusedBeforeFetch(MediaRequestFiltered):
    """A file request that scrapy_rep refused before it was sent; ``entry`` is its
    ``rep_refused_files`` entry (:meth:`MediaGate.refused_before`)."""

    def __init__(self, entry: dict[str, Any]) -> None:
        super().__init__(str(entry["reason"]))
        self.entry = entry


class FilteredRefusalMixin(_Base):
    """Put before a ``FilesPipeline`` subclass: a file request that scrapy_rep refused
    before it was sent fails with :class:`RefusedBeforeFetch`, not logged as an error
    (:func:`~scrapy_rep.crawl.internals.quiet_media_failures`), after Scrapy 2.18's DEBUG
    line. From Scrapy 2.18 on, Scrapy's own ``media_failed`` does it."""

    def media_failed(
        self, failure: Failure, request: Request, info: MediaPipeline.SpiderInfo
    ) -> NoReturn:
        """Scrapy's ``media_failed``, but for a refusal of scrapy_rep before Scrapy 2.18."""
        refusal = failure.value
        if MEDIA_REQUEST_FILTERED or not isinstance(refusal, Refusal):
            super().media_failed(failure, request, info)
            raise AssertionError("media_failed returned")  # pragma: no cover
        logger.debug(
            "File (filtered): Not downloading %s from %s referred in <%s>: %s",
            self.MEDIA_NAME,
            request,
            referer_str(request),
            refusal,
            extra={"spider": info.spider},
        )
        # Here, not in an ``__init__`` of ours: Scrapy 2.13 builds the pipeline with the
        # arguments its class's ``__init__`` names, a user's that takes no crawler too.
        quiet_media_failures(RefusedBeforeFetch)
        raise RefusedBeforeFetch(MediaGate.refused_before(request.url, refusal))


def with_filtered_refusals(pipeline: type[FilesPipeline]) -> type[FilesPipeline]:
    """``pipeline`` with :class:`FilteredRefusalMixin` in front (the add-on's, before
    Scrapy 2.18, for each ``FilesPipeline`` subclass whose files are not checked)."""
    return mixed_in(FilteredRefusalMixin, pipeline)


def mixed_in(mixin: type[Any], pipeline: type[FilesPipeline]) -> type[FilesPipeline]:
    """``pipeline`` with ``mixin`` in front, under the same name, qualified name and docstring
    (``<NAME>_FILES_STORE`` settings still apply); ``pipeline`` itself if it has the mixin."""
    if issubclass(pipeline, mixin):
        return pipeline
    wrapped = type(pipeline.__name__, (mixin, pipeline), {"__module__": mixin.__module__})
    wrapped.__qualname__ = pipeline.__qualname__
    wrapped.__doc__ = pipeline.__doc__
    return wrapped


class MediaUsageMixin(FilteredRefusalMixin):
    """Put before a ``FilesPipeline`` subclass: ``class P(MediaUsageMixin, FilesPipeline)``."""

    rep_media: MediaGate

    def __init__(self, *args: Any, crawler: Crawler, **kwargs: Any) -> None:
        # ``crawler`` by name: Scrapy 2.13 passes it only to an ``__init__`` that names it.
        super().__init__(*args, crawler=crawler, **kwargs)
        self.rep_media = MediaGate(self.crawler)

    def media_to_download(
        self, request: Request, info: MediaPipeline.SpiderInfo, *, item: Any = None
    ) -> Any:
        """A stored copy cannot show what the file says now (``ImagesPipeline`` stores a re-encoded
        image without its metadata): when files are checked, each is downloaded and read again."""
        if self.rep_media.enabled:
            return None
        return super().media_to_download(request, info, item=item)

    def media_downloaded(
        self,
        response: Response,
        request: Request,
        info: MediaPipeline.SpiderInfo,
        *,
        item: Any = None,
    ) -> Any:
        """The file read (:meth:`MediaGate.check_in_a_thread`), then stored (or not); a
        Deferred, which Scrapy 2.15+ awaits and 2.13 and 2.14 chain."""
        gate = self.rep_media
        store = super().media_downloaded
        if not gate.enabled or response.status != 200 or not response.body:
            return store(response, request, info, item=item)
        return deferred_from_coro(self._rep_read_then_store(response, request, info, item))

    async def _rep_read_then_store(
        self, response: Response, request: Request, info: MediaPipeline.SpiderInfo, item: Any
    ) -> FileInfo:
        gate = self.rep_media
        verdict = await gate.check_in_a_thread(response, request, item)
        extra: dict[str, Any] = {}
        if verdict.reading.unreadable:
            extra[meta.UNREADABLE] = list(verdict.reading.problems)
        if verdict.refusal is not None:
            extra[meta.REFUSED] = verdict.reasons
            if not gate.mark:
                refuse_file(gate.crawler, request, item, verdict.refusal, verdict.reasons, False)
                gate.settled(verdict, request, item, FileFate.REFUSED)
                entry = verdict_refused_file(verdict, request.url)
                return cast("FileInfo", {"url": request.url, "path": None, _ENTRY: entry})
        try:
            # Scrapy's own: a coroutine since Scrapy 2.15, a plain method before.
            result: FileInfo = await awaited(
                super().media_downloaded(response, request, info, item=item)
            )
        except BaseException as error:  # the pipeline's own failure: recorded, then raised
            gate.settled(verdict, request, item, FileFate.FAILED, error_line(error))
            raise
        if verdict.refusal is not None:
            refuse_file(gate.crawler, request, item, verdict.refusal, verdict.reasons, True)
        gate.settled(
            verdict, request, item, FileFate.STORED if verdict.refusal is None else FileFate.MARKED
        )
        return cast("FileInfo", {**result, **extra}) if extra else result

    def media_failed(
        self, failure: Failure, request: Request, info: MediaPipeline.SpiderInfo
    ) -> NoReturn:
        """A file that scrapy_rep refused before it was sent is listed as refused too (see
        :meth:`item_completed`); when files are not checked, left out
        (:class:`FilteredRefusalMixin`)."""
        refusal = failure.value
        if self.rep_media.enabled and isinstance(refusal, Refusal):
            quiet_media_failures(RefusedBeforeFetch)  # as the refusal is filtered: no ERROR
            raise RefusedBeforeFetch(self.rep_media.refused_before(request.url, refusal))
        super().media_failed(failure, request, info)

    def item_completed(
        self, results: list[FileInfoOrError], item: Any, info: MediaPipeline.SpiderInfo
    ) -> Any:
        """The item's ``files`` / ``images`` get only the stored files, as Scrapy's do; the refused
        ones (after or before download, and the URLs its page's ``noimageai`` took out) go to
        ``rep_refused_files``, each with why."""
        refused: list[dict[str, Any]] = []
        if self.rep_media.enabled:
            kept: list[FileInfoOrError] = []
            for result in results:
                entry = _refused_entry(*result)
                if entry is None:
                    kept.append(result)
                else:
                    refused.append(entry)
            results = kept
        item = super().item_completed(results, item, info)
        if self.rep_media.enabled:
            field = self._rep_result_field()
            refused += _page_refusals(item, field, refused, self.rep_media.policy.purposes)
            _add_refused(item, refused)
        return item

    def _rep_result_field(self) -> str:
        if isinstance(self, ImagesPipeline):
            return self.images_result_field
        return self.files_result_field


#: A refused file's result's key for its ``rep_refused_files`` entry, from
#: ``media_downloaded`` to ``item_completed`` (never in an item).
_ENTRY = "_rep_refused_file"


def _refused_entry(ok: bool, value: Any) -> dict[str, Any] | None:
    """The ``rep_refused_files`` entry a result carries, if the file was refused."""
    if ok:
        entry = value.get(_ENTRY) if isinstance(value, dict) else None
        return entry if isinstance(entry, dict) else None
    error = getattr(value, "value", None)
    return error.entry if isinstance(error, RefusedBeforeFetch) else None


def _page_refusals(
    item: Any, field: str, refused: list[dict[str, Any]], crawl_purposes: tuple[str, ...]
) -> list[dict[str, Any]]:
    """An entry for each URL the page's ``noimageai`` took out of the item before
    download (``rep_image_usage``), unless the pipeline handled it."""
    try:
        adapter = ItemAdapter(item)
        record = adapter.get(meta.IMAGE_USAGE)
        results = list(adapter.get(field) or [])
    except (TypeError, KeyError):
        return []
    if not isinstance(record, dict):
        return []
    present = {result.get("url") for result in results if isinstance(result, dict)}
    present |= {entry.get("url") for entry in refused}
    said = record.get("purposes") or ["ai-train", "ai-input"]
    purposes = [purpose for purpose in crawl_purposes if purpose in said]
    source = str(record.get("source") or "noimageai on the page")
    entries = []
    for url in record.get("urls") or ():
        if url not in present and purposes:
            reasons = [f"{purpose} denied by {source}" for purpose in purposes]
            entries.append(refused_file(url, purposes[0], reasons[0], source, reasons))
            present.add(url)
    return entries


def _add_refused(item: Any, refused: list[dict[str, Any]]) -> None:
    """Add ``refused`` to the item's ``rep_refused_files`` (another media pipeline's
    kept), once per URL; an item without such a field is left as it is."""
    if not refused:
        return
    try:
        adapter = ItemAdapter(item)
        known = list(adapter.get(REFUSED_FILES) or [])
        urls = {entry.get("url") for entry in known if isinstance(entry, dict)}
        known += [entry for entry in refused if entry["url"] not in urls]
        adapter[REFUSED_FILES] = known
    except (TypeError, KeyError):
        return


class RepFilesPipeline(MediaUsageMixin, FilesPipeline):
    """``FilesPipeline`` that honours the statements inside the files (docs/media.md)."""


class RepImagesPipeline(MediaUsageMixin, ImagesPipeline):
    """``ImagesPipeline`` that honours the statements inside the images (docs/media.md)."""


def with_media_usage(pipeline: type[FilesPipeline]) -> type[FilesPipeline]:
    """``pipeline`` with :class:`MediaUsageMixin` in front, under the same name (the
    add-on's replacement for each ``FilesPipeline`` subclass in ``ITEM_PIPELINES``)."""
    return mixed_in(MediaUsageMixin, pipeline)
