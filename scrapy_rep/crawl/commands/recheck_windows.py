"""Coroutines of a recheck's crawl run together: a sliding window of workers over the
origins (:func:`in_window`), and their results awaited on any reactor (:func:`together`)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Coroutine
from typing import Any

from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred, DeferredList

logger = logging.getLogger("scrapy_rep.crawl.commands.recheck_crawl")


def in_window(
    names: Collection[str], at_once: int, one: Callable[[str], Awaitable[None]]
) -> list[Coroutine[Any, Any, None]]:
    """``at_once`` workers that run ``one`` on each of ``names`` in turn, a sliding
    window: each takes the next name as soon as its last is done (an error is logged and
    the worker goes on)."""
    queue = iter(names)

    async def worker() -> None:
        for name in queue:  # shared: the next name not yet taken
            try:
                await one(name)
            except Exception:
                logger.exception("scrapy_rep: a recheck's documents of %s could not be had",
                                 name)  # fmt: skip

    return [worker() for _ in range(min(at_once, len(names)))]


async def together(coroutines: list[Coroutine[Any, Any, Any]]) -> list[Any]:
    """The results of ``coroutines`` run together (on any reactor)."""
    deferreds: list[Deferred[Any]] = [deferred_from_coro(coroutine) for coroutine in coroutines]
    results = await maybe_deferred_to_future(DeferredList(deferreds, consumeErrors=True))
    for ok, value in results:
        if not ok:
            logger.error(
                "scrapy_rep: a recheck's documents could not be had: %s",
                value,
                exc_info=(value.type, value.value, value.getTracebackObject()),
            )
    return [value if ok else None for ok, value in results]
