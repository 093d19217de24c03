"""``scrapy_rep.crawl.internals``: each difference between the supported Scrapy releases,
checked against the installed Scrapy (``.ci/run`` runs the suite with the lowest, 2.13,
and the newest). The crawls of the rest of the suite check that they are used (one closes
its spider as it opens: tests/integration/test_scrapy_internals.py)."""

from __future__ import annotations

import inspect
import logging
from typing import Any

import pytest
import scrapy
from scrapy import Request, Spider
from scrapy.dupefilters import RFPDupeFilter
from scrapy.settings import Settings
from scrapy.utils.request import RequestFingerprinter
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure

from scrapy_rep.crawl import internals
from scrapy_rep.crawl.auditing import AuditMiddleware
from scrapy_rep.crawl.documents.engine_fetch import RobotsTxtResponseGuard
from scrapy_rep.crawl.media.pipelines import RefusedBeforeFetch
from scrapy_rep.crawl.page.downloadermiddlewares import PageVerdictMiddleware
from scrapy_rep.crawl.page.spidermiddlewares import PageDirectivesMiddleware
from scrapy_rep.crawl.requests.downloadermiddlewares import RobotsTxtMiddleware
from scrapy_rep.crawl.requests.sentcheck import SentRequestCheck
from tests.support.paths import project
from tests.support.scrapyversions import enabled_components

#: Every method Scrapy calls on our components, with the ``spider`` Scrapy 2.13 passes.
COMPONENT_METHODS = [
    (RobotsTxtMiddleware, "process_request"),
    (SentRequestCheck, "process_request"),
    (SentRequestCheck, "check_last"),  # put last in the downloader's chain by hand
    (RobotsTxtResponseGuard, "process_response"),
    (AuditMiddleware, "process_exception"),
    (AuditMiddleware, "process_response"),
    (PageVerdictMiddleware, "process_response"),
    (PageDirectivesMiddleware, "process_spider_input"),
    (PageDirectivesMiddleware, "process_spider_output"),
    (PageDirectivesMiddleware, "process_spider_output_async"),
]


@pytest.mark.parametrize(
    ("component", "name"),
    COMPONENT_METHODS,
    ids=[f"{c.__name__}.{n}" for c, n in COMPONENT_METHODS],
)
def test_component_methods_take_an_optional_spider(component: type, name: str) -> None:
    """Scrapy 2.13 passes ``spider=`` to every component method; 2.14 and newer warn about
    a method that requires it. Ours take it, and do not require it."""
    parameter = inspect.signature(getattr(component, name)).parameters.get("spider")
    assert parameter is not None, f"{component.__name__}.{name} takes no spider argument"
    assert parameter.default is None


@pytest.mark.parametrize(
    ("version", "release"),
    [("2.13.0", (2, 13)), ("2.19.0", (2, 19)), ("2.20.0.dev0", (2, 20)), ("3.0.0rc1", (3, 0))],
)
def test_release_of(version: str, release: tuple[int, int]) -> None:
    assert internals.release_of(version) == release


def test_the_installed_scrapy_is_supported_and_the_lowest_is_the_declared_one() -> None:
    assert internals.SCRAPY == internals.release_of(scrapy.__version__) >= internals.LOWEST
    [declared] = [
        requirement.removeprefix("scrapy>=")
        for requirement in project()["dependencies"]
        if requirement.startswith("scrapy>=")
    ]
    assert tuple(int(part) for part in declared.split(".")[:2]) == internals.LOWEST


def test_seen_fingerprints_reads_the_dupefilter_of_this_scrapy() -> None:
    crawler = get_crawler(Spider)
    dupefilter = RFPDupeFilter.from_crawler(crawler)
    scheduler = type("Scheduler", (), {"df": dupefilter})()
    seen = internals.seen_fingerprints(scheduler, crawler.request_fingerprinter)
    assert seen is not None
    request = Request("http://example.com/a")
    fingerprint = crawler.request_fingerprinter.fingerprint(request)  # type: ignore[union-attr]
    assert not seen(fingerprint)
    assert dupefilter.request_seen(request) is False
    assert seen(fingerprint)  # the live set, not a copy
    assert not seen(crawler.request_fingerprinter.fingerprint(Request("http://example.com/b")))  # type: ignore[union-attr]
    other = type("Scheduler", (), {"df": object()})()
    assert internals.seen_fingerprints(other, crawler.request_fingerprinter) is None
    # a subclass answers otherwise (its request_seen), and so may another fingerprinter
    subclass = type("Subclass", (RFPDupeFilter,), {}).from_crawler(crawler)
    mine = type("Scheduler", (), {"df": subclass})()
    assert internals.seen_fingerprints(mine, crawler.request_fingerprinter) is None
    assert internals.seen_fingerprints(scheduler, RequestFingerprinter()) is None


def test_switch_off_base_component_leaves_scrapys_robots_middleware_out() -> None:
    settings = Settings({"DOWNLOADER_MIDDLEWARES": {"scrapy_rep.RobotsTxtMiddleware": 100}})
    path = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
    internals.switch_off_base_component(settings, "DOWNLOADER_MIDDLEWARES", path)
    enabled = enabled_components(settings, "DOWNLOADER_MIDDLEWARES")
    assert [c.__name__ for c in enabled].count("RobotsTxtMiddleware") == 1
    assert RobotsTxtMiddleware in enabled


def test_running_engine_is_none_before_the_crawl() -> None:
    assert internals.running_engine(get_crawler(Spider)) is None


def test_media_failure_filter_drops_only_our_refusals() -> None:
    """Before Scrapy 2.18 the media pipeline logs every failed file with its traceback;
    scrapy_rep's refusals are dropped from that log, from an errback (the Failure as the
    message) or an except block (exc_info)."""
    drop = internals._DropFiltered(RefusedBeforeFetch)
    refused = RefusedBeforeFetch({"reason": "Forbidden by robots.txt"})

    def record(msg: object, exc_info: Any = None) -> logging.LogRecord:
        return logging.LogRecord("scrapy.pipelines.media", logging.ERROR, "", 0, msg, (), exc_info)

    assert not drop.filter(record(Failure(refused), (StopIteration, StopIteration(), None)))
    assert not drop.filter(record("x", (RefusedBeforeFetch, refused, None)))
    assert drop.filter(record(Failure(ValueError("a real failure"))))
    assert drop.filter(record("x", (ValueError, ValueError(), None)))
