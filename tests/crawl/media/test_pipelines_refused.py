"""FilteredRefusalMixin: a file request scrapy_rep refused, as the media pipeline's
failure, on every Scrapy release (the crawls: tests/integration/test_media.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest
from scrapy.pipelines.files import FilesPipeline
from scrapy.pipelines.images import ImagesPipeline
from scrapy.pipelines.media import MediaPipeline
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure

from scrapy_rep.crawl.auditing import Refusal
from scrapy_rep.crawl.internals import MEDIA_REQUEST_FILTERED, MediaRequestFiltered
from scrapy_rep.crawl.media.pipelines import (
    FilteredRefusalMixin,
    RefusedBeforeFetch,
    mixed_in,
    with_filtered_refusals,
)

URL = "http://127.0.0.1:1/private/a.jpg"
#: Scrapy's ``FileException`` (in ``scrapy.pipelines.media`` from 2.18, ``files`` before).
FileException = next(c for c in MediaRequestFiltered.__mro__ if c.__name__ == "FileException")
FORBIDDEN = "Forbidden by http://127.0.0.1:1/robots.txt (line 2: Disallow: /private/)"


def pipeline(tmp_path: Path) -> tuple[FilteredRefusalMixin, MediaPipeline.SpiderInfo]:
    crawler = get_crawler(Spider, {"IMAGES_STORE": str(tmp_path)})
    wrapped = with_filtered_refusals(ImagesPipeline)
    built = wrapped.from_crawler(crawler)
    assert isinstance(built, FilteredRefusalMixin)
    return built, MediaPipeline.SpiderInfo(Spider("s"))


def test_a_refusal_of_ours_is_filtered_with_scrapy_2_18s_debug_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    built, info = pipeline(tmp_path)
    with pytest.raises(FileException) as raised:
        built.media_failed(Failure(Refusal(FORBIDDEN)), Request(URL), info)
    lines = [r for r in caplog.records if r.getMessage().startswith("File (filtered)")]
    assert [r.levelno for r in lines] == [logging.DEBUG]
    assert lines[0].getMessage() == (
        f"File (filtered): Not downloading image from <GET {URL}> referred in <None>: {FORBIDDEN}"
    )
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    if not MEDIA_REQUEST_FILTERED:  # ours: its entry, quiet (internals.quiet_media_failures)
        assert isinstance(raised.value, RefusedBeforeFetch)
        assert raised.value.entry["url"] == URL and raised.value.entry["reason"] == FORBIDDEN
        assert any(
            f.filter(logging.makeLogRecord({"msg": Failure(raised.value)})) is False
            for f in logging.getLogger("scrapy.pipelines.media").filters
        )


def test_any_other_failure_is_left_to_scrapy(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    built, info = pipeline(tmp_path)
    for error in (IgnoreRequest("offsite"), ConnectionError("refused")):
        with pytest.raises(FileException) as raised:
            built.media_failed(Failure(error), Request(URL), info)
        assert not isinstance(raised.value, RefusedBeforeFetch)
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and "File (unknown-error)" in warned[0], warned


def test_the_mixin_is_put_in_front_once_keeping_the_name() -> None:
    wrapped = with_filtered_refusals(FilesPipeline)
    assert wrapped.__name__ == wrapped.__qualname__ == "FilesPipeline"
    assert wrapped.__mro__[1:3] == (FilteredRefusalMixin, FilesPipeline)
    assert with_filtered_refusals(wrapped) is wrapped
    assert mixed_in(FilteredRefusalMixin, wrapped) is wrapped


class _LegacyInitPipeline(FilesPipeline):
    """A user's FilesPipeline whose ``__init__`` takes no crawler (Scrapy 2.13 builds it
    with ``settings`` and a deprecation warning)."""

    def __init__(self, store_uri: str, download_func: object = None, settings: object = None):
        super().__init__(store_uri, download_func=download_func, settings=settings)  # type: ignore[arg-type]


@pytest.mark.skipif(MEDIA_REQUEST_FILTERED, reason="Scrapy 2.18+: no mixin put in front")
@pytest.mark.filterwarnings("ignore::scrapy.exceptions.ScrapyDeprecationWarning")
def test_a_pipeline_whose_init_takes_no_crawler_is_built_with_the_mixin(tmp_path: Path) -> None:
    """Scrapy asks the class's ``__init__`` whether it takes ``crawler``: the mixin's
    must not say it does for a pipeline whose own does not (it was built with a
    ``TypeError``, the crawl stopped at its start)."""
    crawler = get_crawler(Spider, {"FILES_STORE": str(tmp_path)})
    built = with_filtered_refusals(_LegacyInitPipeline).from_crawler(crawler)
    assert isinstance(built, FilteredRefusalMixin)
