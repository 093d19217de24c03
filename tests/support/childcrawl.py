"""A crawl of :mod:`tests.support.robotsite` run in a process of its own, for the crawls
without a Twisted reactor (``TWISTED_REACTOR_ENABLED = False``, Scrapy 2.15): the test
process runs a reactor (pytest-twisted), which such a crawl refuses to share.

``python -m tests.support.childcrawl CONFIG_JSON``: CONFIG_JSON holds ``urls``,
``settings`` (over robotsite's ``BASE_SETTINGS``), ``spider`` (the import path of a
robotsite spider) and ``spider_attrs`` (its class attributes, such as ``BothSpider``'s
``file_urls``). The crawl runs in Scrapy's ``AsyncCrawlerProcess``, as ``scrapy crawl``
runs it; the last line of standard output is one JSON object: the URLs downloaded, those
dropped with their reasons, the items, every stat, the log lines at WARNING and above, the
findings of ``audit verify`` on every trail the crawl closed, and the send times of
:class:`~tests.support.robotsite.TimedHandler` (:data:`~tests.support.robotsite.TIMED`).

The test side is :func:`crawl_in_child` (:func:`tests.support.robotsite.crawl` calls it
when the test runs in the mode without a reactor: the ``both_modes`` fixture of
tests/integration/conftest.py).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The root of the checkout: the child imports ``tests`` and ``scrapy_rep`` from it.
ROOT = Path(__file__).resolve().parents[2]
#: A child crawl that takes longer than this is a failure (a hang, an error flood).
CHILD_TIMEOUT = 120
#: What the robotsite settings name the timed handler by.
TIMED_PATH = "tests.support.robotsite.TimedHandler"


@dataclass
class ChildStats:
    """The stats of a child's crawl, read as a ``StatsCollector`` is."""

    values: dict[str, Any]

    def get_value(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def get_stats(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass
class ChildCrawler:
    """What a test reads of a crawler, from a child's crawl."""

    stats: ChildStats
    #: The log lines at WARNING and above, ``LEVEL logger: message``.
    log: list[str]
    #: The keyword arguments of each sending of the recorded signals, by import path.
    signals: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: The crawl's engine is in the child: a test reads it only when it is there.
    engine: None = None


@dataclass
class ChildSpider:
    """What a test reads of a robotsite spider, from a child's crawl."""

    downloaded: list[str]
    dropped: dict[str, str]
    items: list[Any] = field(default_factory=list)


def child_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` as the child crawls with them: without a reactor, downloading with
    the handler Scrapy uses then (aiohttp's from 2.19, httpx's from 2.15 to 2.18; the
    tests that crawl so are skipped where it cannot download:
    :func:`tests.support.scrapyversions.needs_no_reactor`)."""
    return {**settings, "TWISTED_REACTOR_ENABLED": False}


async def crawl_in_child(
    urls: list[str],
    settings: dict[str, Any],
    spider: type[Any],
    spider_attrs: dict[str, Any],
    stop_when_held: tuple[str, int] | None = None,
    record: list[str] | None = None,
) -> tuple[ChildCrawler, ChildSpider]:
    """``spider`` over ``urls`` in a child process without a reactor; the test's reactor
    goes on serving the sites meanwhile (the child is waited for in a thread).
    ``stop_when_held``: ``(origin, count)``, the crawl is stopped as Ctrl-C stops it once
    that many requests are held for that origin (a ``JOBDIR`` pause). ``record``: the
    signals (by import path) whose keyword arguments are recorded
    (:attr:`ChildCrawler.signals`)."""
    from twisted.internet.threads import deferToThread

    config = {
        "urls": urls,
        "settings": child_settings(settings),
        "spider": f"{spider.__module__}.{spider.__qualname__}",
        "spider_attrs": spider_attrs,
        "stop_when_held": stop_when_held,
        "record": record or [],
    }
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done: subprocess.CompletedProcess[str] = await deferToThread(
        subprocess.run,
        [sys.executable, "-m", "tests.support.childcrawl", json.dumps(config)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines, (
        f"the child crawl failed (exit {done.returncode}):\n{done.stderr[-4000:]}"
    )
    result = json.loads(lines[-1])
    from tests.support.robotsite import CrawlMode, TimedHandler

    assert not CrawlMode.trails_verified or not result["trail_findings"], (
        "audit trail not clean:\n" + "\n".join(result["trail_findings"][:20])
    )

    if result["sent"]:
        TimedHandler.sent.clear()
        TimedHandler.sent.update(result["sent"])
    crawler = ChildCrawler(ChildStats(result["stats"]), result["log"], result["signals"])
    child = ChildSpider(result["downloaded"], result["dropped"], result["items"])
    return crawler, child


# --------------------------------------------------------------------------- the child


class _Lines(logging.Handler):
    """Keeps the log lines at WARNING and above."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}"[:2000])


def _timed_reactorless() -> type[Any]:
    """The handler Scrapy downloads with without a reactor (aiohttp's, or httpx's before
    2.19), noting when the download slot released each request in
    :attr:`TimedHandler.sent`, as ``TimedHandler`` does."""
    from scrapy.utils.misc import load_object

    from scrapy_rep.crawl.internals import REACTORLESS_HANDLER
    from tests.support.robotsite import TimedHandler

    handler: Any = load_object(REACTORLESS_HANDLER)

    class TimedReactorless(handler):  # type: ignore[misc,valid-type]
        sent = TimedHandler.sent
        _note = TimedHandler._note

        def __init__(self, crawler: Any) -> None:
            super().__init__(crawler)
            self._timed_crawler = crawler
            self.sent.clear()

        async def download_request(self, request: Any) -> Any:
            self._note(request)
            return await super().download_request(request)

    return TimedReactorless


def _trail_findings() -> list[str]:
    """Every trail the crawl closes is verified, as the tests' conftest does in-process."""
    from rep_audit.verify import verify
    from rep_engine.trail.file import TrailFile
    from rep_engine.trail.read import TrailError

    findings: list[str] = []
    close = TrailFile.close

    def close_and_verify(self: TrailFile) -> None:
        close(self)
        if not self.path.is_file():
            return
        try:
            result = verify(self.path)
        except TrailError as error:
            findings.append(f"{self.path}: {error}")
            return
        findings.extend(f"{self.path}: {finding}" for finding in result.findings)

    TrailFile.close = close_and_verify  # type: ignore[method-assign]
    return findings


def _stop_when_held(process: Any, crawler: Any, origin: str, count: int) -> None:
    """Stop the crawl (as a first Ctrl-C does) once ``count`` requests are held for
    ``origin``."""
    import asyncio

    from scrapy_rep.signals import request_held

    held: list[Any] = []
    stop_origin = origin

    def on_held(origin: str, **_: Any) -> None:
        if origin != stop_origin:
            return
        held.append(1)
        if len(held) == count:
            asyncio.get_running_loop().create_task(process.stop())

    crawler.signals.connect(on_held, signal=request_held, weak=False)


def _plain(value: Any) -> Any:
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)


def run_child() -> None:
    from itemadapter import ItemAdapter
    from scrapy import signals
    from scrapy.crawler import AsyncCrawlerProcess
    from scrapy.utils.misc import load_object

    from tests.support.robotsite import BASE_SETTINGS, TimedHandler

    config = json.loads(sys.argv[1])
    settings = {**BASE_SETTINGS, **config["settings"]}
    handlers = dict(settings.get("DOWNLOAD_HANDLERS") or {})
    if handlers.get("http") == TIMED_PATH:
        settings["DOWNLOAD_HANDLERS"] = {**handlers, "http": _timed_reactorless()}
    findings = _trail_findings()
    spidercls = load_object(config["spider"])
    for name, value in config.get("spider_attrs", {}).items():
        setattr(spidercls, name, value)
    process = AsyncCrawlerProcess(settings)
    lines = _Lines()
    logging.getLogger().addHandler(lines)
    items: list[Any] = []
    crawler = process.create_crawler(spidercls)
    crawler.signals.connect(
        lambda item, **_: items.append(ItemAdapter(item).asdict()),
        signal=signals.item_scraped,
        weak=False,
    )
    recorded: dict[str, list[dict[str, Any]]] = {}
    for path in config.get("record", []):
        events = recorded[path] = []
        crawler.signals.connect(
            lambda events=events, **kw: events.append(
                {k: v for k, v in kw.items() if k not in ("signal", "sender", "spider")}
            ),
            signal=load_object(path),
            weak=False,
        )
    stop_when_held = config.get("stop_when_held")
    if stop_when_held:
        _stop_when_held(process, crawler, *stop_when_held)
    process.crawl(crawler, urls=config["urls"])
    started = time.monotonic()
    process.start()
    spider = crawler.spider
    stats = crawler.stats.get_stats() if crawler.stats else {}
    result = {
        "downloaded": sorted(getattr(spider, "downloaded", [])),
        "dropped": getattr(spider, "dropped", {}),
        "items": items,
        "signals": recorded,
        "stats": {key: _plain(value) for key, value in stats.items()},
        "log": lines.lines,
        "trail_findings": findings,
        "sent": TimedHandler.sent,
        "seconds": time.monotonic() - started,
    }
    print(json.dumps(result, default=str), flush=True)


if __name__ == "__main__":
    run_child()
