"""MediaGate (scrapy_rep.crawl.media.pipelines) on fake Scrapy responses: every signal about a
downloaded file makes one decision; the check never raises; its settings."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from scrapy import Request, Spider
from scrapy.http import Response
from scrapy.pipelines.files import FilesPipeline
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from rep_engine.settings.readers import RepSettingError
from scrapy_rep.crawl.addon import Addon
from scrapy_rep.crawl.internals import MEDIA_REQUEST_FILTERED
from scrapy_rep.crawl.media import pipelines
from scrapy_rep.crawl.media.pipelines import (
    FilteredRefusalMixin,
    MediaGate,
    MediaUsageMixin,
    page_noimageai,
)
from tests.support.mediafiles import jpeg, xmp_packet

URL = "https://example.com/a.jpg"


def media_gate(**settings: Any) -> MediaGate:
    return MediaGate(get_crawler(Spider, {"REP_PURPOSE": "ai-train", **settings}))


def response(body: bytes, **headers: str) -> tuple[Response, Request]:
    request = Request(URL)
    return Response(
        URL, body=body, headers={"Content-Type": "image/jpeg", **headers}, request=request
    ), request


def test_a_file_nothing_speaks_about_is_refused_when_unknown_denies() -> None:
    checker = media_gate(REP_PURPOSE_UNKNOWN="deny")
    verdict = checker.check(*response(jpeg()), {})
    assert verdict is not None and verdict.refusal is not None
    assert verdict.reasons == ["no signal allows ai-train (REP_PURPOSE_UNKNOWN = 'deny')"]
    allowed = checker.check(*response(jpeg(xmp_packet("DMI-ALLOWED"))), {})
    assert allowed is not None and allowed.refusal is None


@pytest.mark.parametrize(
    ("headers", "source"),
    [
        ({"tdm-reservation": "1"}, "header tdm-reservation: 1"),
        ({"Content-Usage": "train-ai=n"}, "header Content-Usage: train-ai=n"),
        ({"X-Robots-Tag": "noimageai"}, "X-Robots-Tag: noimageai"),
    ],
)
def test_the_file_responses_own_headers_count(headers: dict[str, str], source: str) -> None:
    verdict = media_gate().check(*response(jpeg(), **headers), {})
    assert verdict is not None and verdict.refusal is not None
    assert verdict.refusal.signal is not None and verdict.refusal.signal.source == source


def test_the_header_and_the_file_are_both_reasons() -> None:
    data = jpeg(xmp_packet("DMI-PROHIBITED"))
    verdict = media_gate().check(*response(data, **{"X-Robots-Tag": "noai"}), {})
    assert verdict is not None
    assert verdict.reasons == [
        "ai-train denied by X-Robots-Tag: noai",
        "ai-train denied by XMP plus:DataMining DMI-PROHIBITED",
    ]


@pytest.mark.parametrize("purpose", ["ai-train", "ai-input", "search, ai-input"])
def test_the_check_never_raises_and_fails_closed(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, purpose: str
) -> None:
    """A failure of the check refuses the file for the crawl's AI purpose (docs/media.md,
    "What happens to a file"), with a WARNING and a stat, no ERROR."""

    def broken(*_: Any, **__: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(pipelines, "read_media", broken)
    checker = media_gate(REP_PURPOSE=purpose)
    verdict = checker.check(*response(jpeg()), {})
    assert verdict.refusal is not None and verdict.refusal.purpose == purpose.split(", ")[-1]
    assert verdict.reading.problems == (
        "the check failed: RecursionError: maximum recursion depth exceeded",
    )
    assert verdict.reading.format == "jpeg" and verdict.reading.unreadable
    assert checker.crawler.stats is not None
    assert checker.crawler.stats.get_value("rep/media/errors") == 1
    # Ours alone (Scrapy 2.13 logs its components as the crawler is made): one WARNING,
    # and no ERROR from anyone.
    assert [r.levelname for r in caplog.records if r.name.startswith("scrapy_rep")] == ["WARNING"]
    assert [r.levelname for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_a_record_copied_with_another_requests_meta_is_not_read() -> None:
    record = {"purposes": ["ai-train"], "source": "noimageai on p", "url": "https://other/x.jpg"}
    request = Request(URL, meta={"rep_image_usage": record})
    assert page_noimageai(request, None) == []
    request = Request(URL, meta={"rep_image_usage": {**record, "url": URL}})
    (signal,) = page_noimageai(request, None)
    assert signal.answers == (None, False, None) and signal.source == "noimageai on p"


@pytest.mark.parametrize(
    ("name", "value", "accepted"),
    [
        ("REP_MEDIA_USAGE", "maybe", "a boolean"),
        ("REP_MEDIA_CONSTRAINTS_MET", 2, "a boolean"),
        ("REP_MEDIA_C2PA", "sometimes", "a boolean"),
        ("REP_MEDIA_MAX_SCAN_BYTES", 10, "at least 1024"),
        ("REP_MEDIA_MAX_PACKET_BYTES", "big", "a number"),
        ("REP_MEDIA_MAX_PACKETS", 0, "at least 1"),
    ],
)
def test_wrong_media_settings_stop_the_crawl_naming_the_setting(
    name: str, value: Any, accepted: str
) -> None:
    with pytest.raises(RepSettingError, match=name) as raised:
        Addon().update_settings(Settings({name: value}))
    assert accepted in str(raised.value)


def test_media_usage_off_reads_nothing_and_wraps_nothing() -> None:
    assert not media_gate(REP_MEDIA_USAGE=False).enabled
    settings = Settings(
        {
            "REP_PURPOSE": "ai-train",
            "REP_MEDIA_USAGE": False,
            "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 1},
        }
    )
    Addon().update_settings(settings)
    if MEDIA_REQUEST_FILTERED:
        assert list(settings.getdict("ITEM_PIPELINES")) == ["scrapy.pipelines.files.FilesPipeline"]
    else:  # before Scrapy 2.18: only what keeps a refusal of ours from an ERROR line
        ((listed, priority),) = settings.getdict("ITEM_PIPELINES").items()
        assert priority == 1 and listed.__name__ == "FilesPipeline"
        assert listed.__mro__[1:3] == (FilteredRefusalMixin, FilesPipeline)
        assert not issubclass(listed, MediaUsageMixin)


def test_a_file_sent_as_another_crawler_obeys_the_header_scoped_to_that_name() -> None:
    """The file's request was decided for scrapy and googlebot (its state's names): the
    header's ``googlebot: noai`` is a no (docs/decisions.md, 'Every name a request can be
    held to'); for scrapy alone it says nothing."""
    from scrapy_rep.crawl.requeststate import KEY, RequestState

    checker = media_gate()
    plain = checker.check(*response(jpeg(), **{"X-Robots-Tag": "googlebot: noai"}), {})
    assert plain is not None and plain.refusal is None
    file, request = response(jpeg(), **{"X-Robots-Tag": "googlebot: noai"})
    request.meta[KEY] = RequestState(URL, names=("scrapy", "googlebot"))
    verdict = checker.check(file, request, {})
    assert verdict is not None and verdict.refusal is not None
    assert verdict.reasons == ["ai-train denied by X-Robots-Tag: googlebot: noai"]
