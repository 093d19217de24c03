"""Scrapy's private attributes that scrapy_rep reads (scrapy_rep/crawl/internals.py): the
releases they were checked against, and the safe default of each where it is missing.
Each is checked against a running crawl of the installed Scrapy in
tests/integration/test_scrapy_internals.py."""

from __future__ import annotations

import re

import scrapy

from scrapy_rep.crawl import internals
from tests.support.paths import ROOT


def test_the_versions_checked_include_the_installed_scrapy_or_say_so() -> None:
    """``CHECKED_WITH`` names the releases these reads were checked against; the installed
    one is among them (CI runs the lowest declared and the newest), and the lowest is the
    one ``.ci/lowest-constraints.txt`` pins."""
    assert scrapy.__version__ in internals.CHECKED_WITH, (
        f"Scrapy {scrapy.__version__} is installed: check scrapy_rep/crawl/internals.py "
        f"against it and add it to CHECKED_WITH {internals.CHECKED_WITH}"
    )
    pinned = (ROOT / ".ci" / "lowest-constraints.txt").read_text(encoding="utf-8")
    [lowest] = re.findall(r"^scrapy==([\d.]+)$", pinned, re.M)
    assert lowest in internals.CHECKED_WITH
    assert internals.release_of(lowest) == internals.LOWEST


def test_each_read_answers_none_where_the_attribute_is_missing() -> None:
    """A Scrapy that moved an attribute degrades to the late path, never an exception."""
    nothing = object()
    assert internals.engine_scheduler(nothing) is None
    assert internals.engine_closing(nothing) is True
    assert internals.seen_fingerprints(nothing, nothing) is None
    assert internals.offsite_filter(nothing, nothing) is None
    assert internals.downloader_methods(nothing, "process_request") == []
    assert internals.downloader_middleware(nothing) is None
    assert internals.spider_middlewares(nothing) is None
    assert internals.append_downloader_method(nothing, "process_request", print) is False


def test_an_exception_is_said_in_one_line_naming_what_failed() -> None:
    """Every log line, record and message of the add-on says an exception alike: the trail's
    ``why`` of a download Scrapy 2.15+ wraps said ``DownloadFailedError: [<twisted.python
    .failure.Failure twisted.internet.error.ConnectionLost: …>]``; Twisted's error is named,
    as Scrapy 2.13 and 2.14 raise it, and an exception of another package keeps its name."""
    from twisted.internet.error import ConnectionLost
    from twisted.python.failure import Failure
    from twisted.web.client import ResponseFailed

    lost = ResponseFailed([Failure(ConnectionLost("Connection to the other side was lost"))])
    if internals.LOST_ERRORS:  # Scrapy 2.15+: its wrapper
        wrapper = internals.LOST_ERRORS[0](str(lost))
        wrapper.__cause__ = lost
        lost = wrapper  # type: ignore[assignment]
    said = internals.error_line(lost)
    assert said.startswith("ConnectionLost: Connection to the other side was lost"), said

    class FileException(Exception):  # a media pipeline's, raised from the store's error
        pass

    try:
        raise FileException("Truncated File Read") from OSError("disk")
    except FileException as error:
        assert internals.error_line(error) == "FileException: Truncated File Read"
    assert internals.error_line(RuntimeError()) == "RuntimeError"
    long = internals.error_line(ValueError("x" * 500))
    assert len(long) == 200 and long.endswith("…") and long.startswith("ValueError: xxx")
