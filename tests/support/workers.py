"""The workers of the tests of several crawlers sharing a store, a queue or a trail: each
a crawl of its own, run to its end with its result, in this process on the test's
reactor (:func:`run_config`), as another process of the cluster would run it; and the
command that starts one in a process of its own (tests/support/worker.py), for what only
a process shows: a worker stopped by a signal (SIGTERM's graceful stop, SIGKILL's none),
workers that take requests from one queue at once (each on its own reactor, which the
crawlers of one process share) and the memory a crawl leaves alive (``kept_over``)."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any, ClassVar

from scrapy import Request, signals
from twisted.internet.utils import getProcessOutputAndValue

from tests.support.paths import ROOT, SUPPORT, checkout_environment
from tests.support.robotsite import BASE_SETTINGS, ListSpider

#: How a worker's log lines are written (``log``), as Scrapy writes them.
LOG_FORMAT = "%(asctime)s [%(name)s] %(levelname)s: %(message)s"


class ScriptedFollowSpider(ListSpider):
    """ListSpider whose pages yield the URLs ``follow`` names for them, ahead of the start
    URLs still waiting (priority 1: Scrapy 2.13's scheduler takes the start requests first
    among requests of one priority, 2.14 and newer the others). ``follow``: a spider
    argument, or the class's."""

    follow: ClassVar[dict[str, list[str]]] = {}

    def parse(self, response: Any) -> Any:
        super().parse(response)
        for url in self.follow.get(response.url, ()):
            yield Request(url, callback=self.parse, errback=self.failed, priority=1)


def worker_command(config: dict[str, Any]) -> list[str]:
    """The arguments that start a worker in a process of its own on ``config`` (``urls``,
    ``settings``, and optionally ``follow``, ``watch``, ``log`` and ``kept_over``: see
    tests/support/worker.py)."""
    return [str(SUPPORT / "worker.py"), json.dumps(config)]


def result_of(crawler: Any) -> dict[str, Any]:
    """What a worker says of its crawl: the URLs downloaded, those dropped with their
    reasons, and its ``rep/`` and ``robotstxt/`` counts."""
    spider = crawler.spider
    assert isinstance(spider, ListSpider)
    stats = crawler.stats.get_stats() if crawler.stats else {}
    return {
        "downloaded": sorted(spider.downloaded),
        "dropped": spider.dropped,
        "stats": {
            key: value
            for key, value in stats.items()
            if key.startswith(("rep/", "robotstxt/")) and isinstance(value, int)
        },
    }


def watching(crawler: Any, watch: str, sent: list[str]) -> None:
    """``sent``: the requests under the URL prefix ``watch`` that reach the downloader of
    ``crawler`` after it read a robots.txt that disallows the prefix."""
    from scrapy_rep.signals import robotstxt_fetched

    disallowed: list[bool] = []

    def fetched(rules: Any, **_: Any) -> None:
        if not rules.allowed(watch + "probe", "testbot"):
            disallowed.append(True)

    def reached(request: Any, **_: Any) -> None:
        if disallowed and request.url.startswith(watch):
            sent.append(request.url)

    crawler.signals.connect(fetched, signal=robotstxt_fetched, weak=False)
    crawler.signals.connect(reached, signal=signals.request_reached_downloader, weak=False)


class _LogText(logging.Handler):
    """A crawl's log lines from a level on, formatted as Scrapy formats them."""

    def __init__(self, level: str) -> None:
        super().__init__(level)
        self.setFormatter(logging.Formatter(LOG_FORMAT))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


async def run_config(config: dict[str, Any], with_log: bool = False) -> dict[str, Any]:
    """One worker on ``config``, run to its end in this process, on the test's reactor:
    its result (:func:`result_of`; ``sent_after_disallow`` when ``config`` has a
    ``watch``); ``with_log``: with its log from INFO on as ``log`` (the process's, while
    it runs). A ``config`` with ``kept_over`` runs in a process of its own, whose memory
    is the crawl's alone (:func:`run_process`)."""
    if config.get("kept_over") is not None:
        return await run_process(config, with_log)
    from scrapy.crawler import CrawlerRunner

    runner = CrawlerRunner({**BASE_SETTINGS, "LOG_LEVEL": "INFO", **config["settings"]})
    crawler = runner.create_crawler(ScriptedFollowSpider)
    sent: list[str] = []
    if config.get("watch"):
        watching(crawler, config["watch"], sent)
    root = logging.getLogger()
    log, level = _LogText("INFO"), root.level
    if with_log:
        root.addHandler(log)
        if root.getEffectiveLevel() > logging.INFO:
            root.setLevel(logging.INFO)
    try:
        await runner.crawl(crawler, urls=config["urls"], follow=config.get("follow", {}))
    finally:
        if with_log:
            root.removeHandler(log)
            root.setLevel(level)
    result = {**result_of(crawler), "sent_after_disallow": sent}
    if with_log:
        result["log"] = "\n".join(log.lines)
    return result


async def run_process(config: dict[str, Any], with_log: bool = False) -> dict[str, Any]:
    """One worker on ``config`` in a process of its own (tests/support/worker.py), run to
    its end: its result line; ``with_log``: with its log from INFO on (stderr) as
    ``log``."""
    if with_log:
        config = {"log": "INFO", **config}
    out, err, code = await getProcessOutputAndValue(
        sys.executable, worker_command(config), env=checkout_environment(), path=str(ROOT)
    )
    assert code == 0, err.decode()[-3000:]
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    if with_log:
        result["log"] = err.decode()
    return result


async def run_worker(urls: list[str], settings: dict[str, Any]) -> dict[str, Any]:
    """One worker crawling ``urls`` with ``settings``, run to its end in this process: its
    result."""
    return await run_config({"urls": urls, "settings": settings})
