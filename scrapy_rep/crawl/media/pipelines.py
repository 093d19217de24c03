"""``FilesPipeline`` / ``ImagesPipeline`` that honour the statements inside the files
they download (docs/media.md).

For crawls whose purposes (``REP_PURPOSE``) include ``ai-train`` or ``ai-input``, each
downloaded file is read before it is stored (:class:`scrapy_rep.crawl.media.mediagate.
MediaGate`). A file denied for a purpose of the crawl is not stored
(``REP_PURPOSE_ACTION = "drop"``: listed in ``item["rep_refused_files"]``, never in
``item["files"]`` / ``item["images"]``) or is stored and marked (``"mark"``: its result
says why under ``"rep_refused"``).

The add-on puts :class:`MediaUsageMixin` in front of every ``FilesPipeline`` subclass in
``ITEM_PIPELINES``; without it, list :class:`RepFilesPipeline` / :class:`RepImagesPipeline`,
or mix :class:`MediaUsageMixin` into your own subclass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn, cast

from itemadapter import ItemAdapter
from scrapy.pipelines.files import FilesPipeline
from scrapy.pipelines.images import ImagesPipeline
from scrapy.utils.defer import deferred_from_coro

from scrapy_rep.crawl import meta
from scrapy_rep.crawl.auditing import Refusal
from scrapy_rep.crawl.internals import awaited, error_line, quiet_media_failures
from scrapy_rep.crawl.media.filerecords import refused_file, verdict_refused_file
from scrapy_rep.crawl.media.mediagate import MediaGate

# RefusedBeforeFetch: Scrapy's private _MediaRequestFiltered (2.18+), neither logged as an
# error nor put in the item by the media pipeline; item_completed below makes ours a result.
from scrapy_rep.crawl.media.refused import FilteredRefusalMixin, RefusedBeforeFetch, mixed_in
from scrapy_rep.crawl.meta import REFUSED_FILES
from scrapy_rep.crawl.refusals import refuse_file

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.pipelines.media import FileInfo, FileInfoOrError, MediaPipeline
    from twisted.python.failure import Failure


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
                gate.settled(verdict, request, item, "refused")
                entry = verdict_refused_file(verdict, request.url)
                return cast("FileInfo", {"url": request.url, "path": None, _ENTRY: entry})
        try:
            # Scrapy's own: a coroutine since Scrapy 2.15, a plain method before.
            result: FileInfo = await awaited(
                super().media_downloaded(response, request, info, item=item)
            )
        except BaseException as error:  # the pipeline's own failure: recorded, then raised
            gate.settled(verdict, request, item, "failed", error_line(error))
            raise
        if verdict.refusal is not None:
            refuse_file(gate.crawler, request, item, verdict.refusal, verdict.reasons, True)
        gate.settled(verdict, request, item, "stored" if verdict.refusal is None else "marked")
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
