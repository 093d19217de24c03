"""``FilesPipeline`` / ``ImagesPipeline`` that honour the statements inside the files
they download (docs/media.md).

For crawls whose purposes (``REP_PURPOSE``) include ``ai-train`` or ``ai-input``, each
downloaded file is read before it is stored (:class:`scrapy_rep.crawl.mediagate.
MediaGate`). A file denied for a purpose of the crawl is not stored
(``REP_PURPOSE_ACTION = "drop"``: its result has ``"status": "refused"`` and no path) or
is stored and marked (``"mark"``); either way its result in ``item["files"]`` /
``item["images"]`` says why under ``"rep_refused"``.

The add-on puts :class:`MediaUsageMixin` in front of every ``FilesPipeline`` subclass
listed in ``ITEM_PIPELINES``, keeping the class name (so ``<NAME>_FILES_STORE``-style
settings still apply). Without the add-on, list :class:`RepFilesPipeline` /
:class:`RepImagesPipeline`, or mix :class:`MediaUsageMixin` into your own subclass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn, cast

from itemadapter import ItemAdapter
from scrapy.exceptions import IgnoreRequest
from scrapy.pipelines.files import FilesPipeline
from scrapy.pipelines.images import ImagesPipeline

# Private in Scrapy (2.19, our lowest): the one failure the media pipeline neither logs
# as an error nor puts in the item; item_completed below turns ours into a result.
from scrapy.pipelines.media import _MediaRequestFiltered
from scrapy.utils.defer import ensure_awaitable

from scrapy_rep.crawl.mediagate import IMAGE_USAGE_KEY, REFUSED_KEY, UNREADABLE_KEY, MediaGate

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Response
    from scrapy.pipelines.media import FileInfo, FileInfoOrError, MediaPipeline
    from twisted.python.failure import Failure

    _Base = FilesPipeline
else:
    _Base = object


class MediaUsageMixin(_Base):
    """Put before a ``FilesPipeline`` subclass: ``class P(MediaUsageMixin, FilesPipeline)``."""

    rep_media: MediaGate

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rep_media = MediaGate(self.crawler)

    def media_to_download(
        self, request: Request, info: MediaPipeline.SpiderInfo, *, item: Any = None
    ) -> Any:
        """A stored copy is not taken as up to date when files are checked: it cannot
        show what the file says now (``ImagesPipeline`` stores a re-encoded image without
        its metadata), so the file is downloaded and read again."""
        if self.rep_media.enabled:
            return None
        return super().media_to_download(request, info, item=item)

    async def media_downloaded(
        self,
        response: Response,
        request: Request,
        info: MediaPipeline.SpiderInfo,
        *,
        item: Any = None,
    ) -> FileInfo:
        gate = self.rep_media
        store = super().media_downloaded
        if not gate.enabled or response.status != 200 or not response.body:
            return await ensure_awaitable(store(response, request, info, item=item))
        verdict = gate.check(response, request, item)
        if verdict is None:
            return await ensure_awaitable(store(response, request, info, item=item))
        extra: dict[str, Any] = {}
        if verdict.reading.unreadable:
            extra[UNREADABLE_KEY] = list(verdict.reading.problems)
        if verdict.refusal is not None:
            gate.refused(verdict, request, item)
            extra[REFUSED_KEY] = verdict.reasons
            if not gate.mark:
                refused = {"url": request.url, "path": None, "checksum": None}
                return cast("FileInfo", {**refused, "status": "refused", **extra})
        result = await ensure_awaitable(store(response, request, info, item=item))
        return cast("FileInfo", {**result, **extra}) if extra else result

    def media_failed(
        self, failure: Failure, request: Request, info: MediaPipeline.SpiderInfo
    ) -> NoReturn:
        """A file that scrapy_rep refused before it was sent (robots.txt, the origin's
        usage signals) gets a refused result that says why (see :meth:`item_completed`)."""
        if self.rep_media.enabled and isinstance(failure.value, IgnoreRequest):
            why = self.rep_media.refused_before(request)
            if why is not None:
                raise RefusedBeforeFetch(request.url, why)
        super().media_failed(failure, request, info)
        raise AssertionError("media_failed returned")  # pragma: no cover

    def item_completed(
        self, results: list[FileInfoOrError], item: Any, info: MediaPipeline.SpiderInfo
    ) -> Any:
        """Files refused before download get a refused result too, as do the URLs the
        page's ``noimageai`` took out of the item, so the item says why each is missing."""
        if self.rep_media.enabled:
            results = [_refused_result(ok, value) for ok, value in results]
        item = super().item_completed(results, item, info)
        if self.rep_media.enabled:
            _add_page_refusals(item, self._rep_result_field(), self.rep_media.policy.purposes)
        return item

    def _rep_result_field(self) -> str:
        if isinstance(self, ImagesPipeline):
            return self.images_result_field
        return self.files_result_field


class RefusedBeforeFetch(_MediaRequestFiltered):
    """A file request that scrapy_rep refused before it was sent."""

    def __init__(self, url: str, why: str) -> None:
        super().__init__(why)
        self.url = url
        self.why = why


def _refused_result(ok: bool, value: Any) -> Any:
    if ok or not isinstance(getattr(value, "value", None), RefusedBeforeFetch):
        return (ok, value)
    error = value.value
    entry = {"url": error.url, "path": None, "checksum": None, "status": "refused"}
    return (True, {**entry, REFUSED_KEY: [error.why]})


def _add_page_refusals(item: Any, field: str, crawl_purposes: tuple[str, ...]) -> None:
    try:
        adapter = ItemAdapter(item)
        record = adapter.get(IMAGE_USAGE_KEY)
        if not isinstance(record, dict) or field not in adapter:
            return
        results = list(adapter[field] or [])
    except (TypeError, KeyError):
        return
    present = {result.get("url") for result in results if isinstance(result, dict)}
    said = record.get("purposes") or ["ai-train", "ai-input"]
    purposes = [purpose for purpose in crawl_purposes if purpose in said]
    source = str(record.get("source") or "noimageai on the page")
    for url in record.get("urls") or ():
        if url not in present and purposes:
            reasons = [f"{purpose} denied by {source}" for purpose in purposes]
            results.append(
                {
                    "url": url,
                    "path": None,
                    "checksum": None,
                    "status": "refused",
                    REFUSED_KEY: reasons,
                }
            )
    adapter[field] = results


class RepFilesPipeline(MediaUsageMixin, FilesPipeline):
    """``FilesPipeline`` that honours the statements inside the files (docs/media.md)."""


class RepImagesPipeline(MediaUsageMixin, ImagesPipeline):
    """``ImagesPipeline`` that honours the statements inside the images (docs/media.md)."""


def with_media_usage(pipeline: type[FilesPipeline]) -> type[FilesPipeline]:
    """``pipeline`` with :class:`MediaUsageMixin` in front, under the same name (the
    add-on's replacement for each ``FilesPipeline`` subclass in ``ITEM_PIPELINES``)."""
    if issubclass(pipeline, MediaUsageMixin):
        return pipeline
    wrapped = type(pipeline.__name__, (MediaUsageMixin, pipeline), {"__module__": __name__})
    wrapped.__qualname__ = pipeline.__qualname__
    wrapped.__doc__ = pipeline.__doc__
    return wrapped
