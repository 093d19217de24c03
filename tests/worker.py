"""One crawler process for the multi-process tests: ``python worker.py CONFIG_JSON``.

CONFIG_JSON holds ``urls`` and ``settings``; the result is printed as one JSON line:
the URLs downloaded, the URLs dropped with their reasons, and the ``rep/`` and
``robotstxt/`` stats.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from scrapy.utils.reactor import install_reactor

install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")

from robotsite import BASE_SETTINGS, ListSpider  # noqa: E402
from scrapy.crawler import CrawlerRunner  # noqa: E402
from scrapyversions import stop as stop_crawl  # noqa: E402
from twisted.internet import defer, reactor, task  # noqa: E402


def main() -> None:
    config = json.loads(sys.argv[1])
    result: dict[str, Any] = {}

    async def go(_reactor: object) -> None:
        runner = CrawlerRunner({**BASE_SETTINGS, "LOG_LEVEL": "INFO", **config["settings"]})
        crawler = runner.create_crawler(ListSpider)

        collected: defer.Deferred[None] = defer.Deferred()

        def stop() -> defer.Deferred[None]:  # SIGTERM: stop the crawl gracefully first
            if crawler.crawling:
                stop_crawl(crawler)
            return collected  # and let the results be collected before the reactor stops

        reactor.addSystemEventTrigger("before", "shutdown", stop)  # type: ignore[attr-defined]
        try:
            await runner.crawl(crawler, urls=config["urls"])
            collect(crawler)
        finally:
            collected.callback(None)

    def collect(crawler: Any) -> None:
        spider = crawler.spider
        assert isinstance(spider, ListSpider)
        stats = crawler.stats.get_stats() if crawler.stats else {}
        result["downloaded"] = sorted(spider.downloaded)
        result["dropped"] = spider.dropped
        result["stats"] = {
            key: value
            for key, value in stats.items()
            if key.startswith(("rep/", "robotstxt/")) and isinstance(value, int)
        }

    try:
        task.react(lambda reactor: defer.Deferred.fromCoroutine(go(reactor)))
    except SystemExit as exit_:
        if exit_.code:
            raise
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
