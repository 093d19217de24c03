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
