"""A worker in a process of its own (tests/support/workers.py: for a worker stopped by a
signal, and the memory a crawl leaves alive): ``python worker.py CONFIG_JSON``.

CONFIG_JSON holds ``urls`` and ``settings``; the result is printed as one JSON line:
the URLs downloaded, the URLs dropped with their reasons, and the ``rep/`` and
``robotstxt/`` stats. Optional: ``follow`` (page URL -> the URLs its callback yields);
``kept_over`` (bytes) with ``warm_up`` (``urls`` and ``settings`` of a crawl run first):
the blocks of that size the crawl left alive (``kept``); ``watch`` (a URL prefix): the
requests under it that reached the downloader after the worker read a robots.txt that
disallows the prefix (``sent_after_disallow``); and ``log``
(a level name): Scrapy's log lines from that level on, on stderr, formatted as Scrapy
formats them (without it, only what Python's last-resort handler prints).
"""

from __future__ import annotations

import gc
import json
import logging
import sys
import tracemalloc
from typing import Any

from scrapy.utils.reactor import install_reactor

install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")

from scrapy.crawler import CrawlerRunner  # noqa: E402
from twisted.internet import defer, reactor, task  # noqa: E402

from tests.support.robotsite import BASE_SETTINGS  # noqa: E402
from tests.support.scrapyversions import stop as stop_crawl  # noqa: E402
from tests.support.workers import (  # noqa: E402
    LOG_FORMAT,
    ScriptedFollowSpider,
    result_of,
    watching,
)


def main() -> None:
    config = json.loads(sys.argv[1])
    if config.get("log"):
        logging.basicConfig(level=config["log"], stream=sys.stderr, format=LOG_FORMAT)
    result: dict[str, Any] = {"sent_after_disallow": []}
    ScriptedFollowSpider.follow = config.get("follow", {})

    async def go(_reactor: object) -> None:
        runner = CrawlerRunner({**BASE_SETTINGS, "LOG_LEVEL": "INFO", **config["settings"]})
        crawler = runner.create_crawler(ScriptedFollowSpider)
        if config.get("watch"):
            watching(crawler, config["watch"], result["sent_after_disallow"])

        collected: defer.Deferred[None] = defer.Deferred()

        def stop() -> defer.Deferred[None]:  # SIGTERM: stop the crawl gracefully first
            if crawler.crawling:
                stop_crawl(crawler)
            return collected  # and let the results be collected before the reactor stops

        reactor.addSystemEventTrigger("before", "shutdown", stop)  # type: ignore[attr-defined]
        kept_over = config.get("kept_over")
        try:
            if kept_over is not None:
                warm_up = config["warm_up"]
                # First a crawl of other URLs, untraced, in which the modules the crawl
                # imports on first use are imported: the traced crawl then imports
                # nearly nothing, and 4 frames reach the importlib frames above what
                # little it does (_imported). Each frame more slows every allocation of
                # the traced crawl (16 made the trail's cache-bound crawl 10 s long, 64
                # twice that).
                warm = CrawlerRunner(
                    {**BASE_SETTINGS, "LOG_LEVEL": "INFO", **config["settings"]}
                    | warm_up["settings"]
                )
                await warm.crawl(ScriptedFollowSpider, urls=warm_up["urls"])
                tracemalloc.start(4)
            await runner.crawl(crawler, urls=config["urls"])
            result.update(result_of(crawler))
            if kept_over is not None:
                gc.collect()
                result["kept"] = kept_blocks(tracemalloc.take_snapshot(), kept_over)
        finally:
            tracemalloc.stop()
            collected.callback(None)

    try:
        task.react(lambda reactor: defer.Deferred.fromCoroutine(go(reactor)))
    except SystemExit as exit_:
        if exit_.code:
            raise
    print(json.dumps(result), flush=True)


def _imported(traceback: tracemalloc.Traceback) -> bool:
    return any(frame.filename.startswith("<frozen importlib") for frame in traceback)


def kept_blocks(snapshot: tracemalloc.Snapshot, size: int) -> dict[str, Any]:
    """The blocks of at least ``size`` bytes in ``snapshot`` not allocated by an import:
    their total, and the largest ten with the lines that allocated them (the innermost
    last)."""
    blocks = sorted(
        (t for t in snapshot.traces if t.size >= size and not _imported(t.traceback)),
        key=lambda t: -t.size,
    )
    return {
        "bytes": sum(t.size for t in blocks),
        "count": len(blocks),
        "largest": [
            [t.size, [f"{frame.filename}:{frame.lineno}" for frame in t.traceback][-8:]]
            for t in blocks[:10]
        ],
    }


if __name__ == "__main__":
    main()
