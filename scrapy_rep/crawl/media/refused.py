"""A file request that scrapy_rep refused before it was sent, as a media pipeline's
failure (:class:`RefusedBeforeFetch`, :class:`FilteredRefusalMixin`). Scrapy 2.18 leaves a
media request a downloader middleware ignored (``IgnoreRequest``, which a refusal of ours
is) out of the item with one DEBUG line, ``File (filtered): Not downloading …``; Scrapy
2.13 to 2.17 log an ERROR with a bare ``FileException`` traceback instead, for a crawl
whose files are not checked (a search-only crawl) too, though the refusal has said itself
already (its DEBUG line and stats). The add-on puts the mixin in front of every
``FilesPipeline`` subclass there (:func:`with_filtered_refusals`), so a refusal of ours
gets the line 2.18 gives it on every release, and no ERROR.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, NoReturn

from scrapy.utils.request import referer_str

from scrapy_rep.crawl.auditing import Refusal
from scrapy_rep.crawl.internals import (
    MEDIA_REQUEST_FILTERED,
    MediaRequestFiltered,
    quiet_media_failures,
)
from scrapy_rep.crawl.media.mediagate import MediaGate

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.pipelines.files import FilesPipeline
    from scrapy.pipelines.media import MediaPipeline
    from twisted.python.failure import Failure

    _Base = FilesPipeline
else:
    _Base = object

logger = logging.getLogger(__name__)


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
