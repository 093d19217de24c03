"""The robots.txt middleware's settings under the ``scrapy`` command, a wrong one in the
spider's ``custom_settings`` or given with ``-s``: one line, the crawl stopped at its
start, in this process (:func:`~tests.support.robotsite.refused_at_start`; the line alone
on standard error and exit status 2 of ``scrapy crawl``: the process of
tests/integration/test_setting_names.py; SPEC §5; unit tests:
tests/crawl/requests/test_downloadermiddlewares.py); and two crawls at once in one process,
each obeying its own middleware."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
import pytest_twisted
from twisted.internet.defer import Deferred, DeferredList

from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS
from tests.support.audittrail import by_url
from tests.support.robotsite import (
    CrawlMode,
    ListSpider,
    Sites,
    crawl,
    refused_at_start,
    robots,
    robots_middleware,
)


class CustomSettings(ListSpider):
    """A spider whose ``custom_settings`` has a wrong setting."""

    custom_settings: ClassVar[dict[str, Any]] = {"REP_CACHE_TTL": "a day"}


@pytest.mark.parametrize(
    ("where", "line"),
    [
        ("custom", "scrapy_rep: error: REP_CACHE_TTL: expected a number, got 'a day'"),
        ("command", "scrapy_rep: error: REP_PROFILE: expected one of 'google', 'rfc9309', "
         "'legacy', got 'gogle'"),
    ],
)  # fmt: skip
@pytest_twisted.ensureDeferred
async def test_spec5_a_wrong_setting_under_the_scrapy_command_is_one_line(
    where: str, line: str
) -> None:
    given = {"REP_PROFILE": "gogle"} if where == "command" else {}  # -s REP_PROFILE=gogle
    spider = CustomSettings if where == "custom" else ListSpider
    addon = {"ADDONS": {"scrapy_rep.Addon": 0}}
    assert await refused_at_start(given, addon, spider=spider) == line


@pytest_twisted.ensureDeferred
async def test_two_crawls_at_once_in_one_process_each_obey_their_own_middleware(
    tmp_path: Path,
) -> None:
    """Two crawlers of one process at once, two agents one robots.txt treats apart, each
    with its own trail: each crawl's requests are held, released and decided by its own
    middleware (the registry of middlewares is per crawler: the early refusal, the check
    at the send and the tools find theirs), its trail records its own sends and verifies
    clean (every trail written in the tests is verified as it closes)."""
    sites = Sites()
    body = "User-agent: onebot\nDisallow: /x\n\nUser-agent: twobot\nDisallow: /y\n"
    sites.add("a").script("/robots.txt", replace(robots(body), delay=0.3))
    urls = [sites.url("a", path) for path in ("/", "/x", "/y")]
    runs = [
        crawl(urls, {"ROBOTSTXT_USER_AGENT": agent, "REP_AUDIT_FILE": str(tmp_path / agent)})
        for agent in ("onebot", "twobot")
    ]
    try:
        done = await DeferredList(
            [Deferred.fromCoroutine(run) for run in runs], fireOnOneErrback=True
        )
    finally:
        await sites.close()
    (_, (one, first)), (_, (two, second)) = done
    assert sorted(first.downloaded) == [sites.url("a", "/"), sites.url("a", "/y")]
    assert sorted(second.downloaded) == [sites.url("a", "/"), sites.url("a", "/x")]
    assert list(first.dropped) == [sites.url("a", "/x")]
    assert list(second.dropped) == [sites.url("a", "/y")]
    for crawler, agent, refused in ((one, "onebot", "/x"), (two, "twobot", "/y")):
        records = by_url(tmp_path / agent)
        assert records[sites.url("a", refused)]["fate"] == "refused"
        assert {r["fate"] for u, r in records.items() if not u.endswith(refused)} == {"fetched"}
        assert all(r["robots"]["agent"] == agent for r in records.values()), records
        assert all("sent_at" in r for r in records.values() if r["fate"] == "fetched")
        if not CrawlMode.reactorless:
            assert crawler.stats.get_value("rep/requests/held") == 3
            assert OWNERS.get(crawler) is robots_middleware(crawler)
