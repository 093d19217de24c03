"""Reading an audit trail in tests: its lines, its ``url`` records, its chain."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.trailfactory import encode


def raw_lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    return data.splitlines(keepends=True)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw_lines(path)]


def written_lines(path: Path) -> list[dict[str, Any]]:
    """The lines the crawl wrote: every line but the ``site`` lines and tree heads the
    trail's file writes after each run's end line."""
    return [line for line in lines(path) if line["type"] not in ("site", "head")]


def url_records(path: Path) -> list[dict[str, Any]]:
    return [line for line in lines(path) if line["type"] == "url"]


def by_url(path: Path) -> dict[str, dict[str, Any]]:
    records = url_records(path)
    found = {record["url"]: record for record in records}
    assert len(found) == len(records), "more than one record for a URL"
    return found


def edited_copy(trail: Path, to: Path, url: str, edit: Callable[[dict[str, Any]], None]) -> Path:
    """``trail`` with ``edit`` applied to the final record of ``url`` and the hash chain
    recomputed (only ``verify --head`` would see the edit by the chain), at ``to``, its
    snapshots copied."""
    records = [json.loads(line) for line in trail.read_bytes().splitlines()]
    for record in records:
        record.pop("prev", None)
        if record.get("type") == "url" and record.get("url") == url:
            edit(record)
    to.write_bytes(b"".join(encode(records)))
    shutil.copytree(trail.with_name(trail.name + ".d"), to.with_name(to.name + ".d"))
    return to


def kept_anyway(record: dict[str, Any]) -> None:
    """A page's ``url`` record edited to keep the item its page's verdict refused (the
    record a crawl that lost the page's "no" writes): one item kept, no reason to drop."""
    record.update(items_kept=1, items_dropped=0)
    record.pop("item_reason", None)
    record.pop("item_why", None)


def chain_breaks(path: Path) -> list[int]:
    """Line numbers (0-based) whose ``prev`` is not the hash of the line before."""
    prev = ""
    broken = []
    for number, line in enumerate(raw_lines(path)):
        if json.loads(line)["prev"] != prev:
            broken.append(number)
        prev = hashlib.sha256(line).hexdigest()
    return broken


async def paused_and_resumed(
    spidercls: Any,
    settings: dict[str, Any],
    urls: list[str],
    pause_after: int,
    wait: float,
    resumed: dict[str, Any] | None = None,
) -> None:
    """Crawl ``urls`` with ``settings`` (a JOBDIR), stop the crawl once its spider has
    downloaded ``pause_after`` pages (or after ``wait`` seconds), then resume it in a
    second crawler: a JOBDIR pause and resume as a user does it. ``resumed``: settings
    the second crawl changes (another ``REP_AUDIT_FILE``)."""
    from scrapy.utils.test import get_crawler
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    from tests.support.scrapyversions import stop

    first = get_crawler(spidercls, settings)
    running = first.crawl(urls=urls)
    for _ in range(int(wait / 0.05)):
        await deferLater(reactor, 0.05)
        spider = getattr(first, "spider", None)
        if spider is not None and len(spider.downloaded) >= pause_after:
            break
    await stop(first)
    await running
    await get_crawler(spidercls, {**settings, **(resumed or {})}).crawl(urls=urls)
