"""Crawler processes of their own (tests/support/worker.py), for the tests of several
processes sharing a store, a queue or a trail: the command that starts one, and one run
to its end with its result."""

from __future__ import annotations

import json
import sys
from typing import Any

from twisted.internet.utils import getProcessOutputAndValue

from tests.support.paths import ROOT, SUPPORT, checkout_environment


def worker_command(config: dict[str, Any]) -> list[str]:
    """The arguments that start a worker on ``config`` (``urls``, ``settings``, and
    optionally ``follow`` and ``watch``: see tests/support/worker.py)."""
    return [str(SUPPORT / "worker.py"), json.dumps(config)]


async def run_config(config: dict[str, Any], with_log: bool = False) -> dict[str, Any]:
    """One worker on ``config``, run to its end: its result line (what it downloaded,
    dropped and counted); ``with_log``: with its log from INFO on (stderr) as ``log``."""
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
    """One worker crawling ``urls`` with ``settings``, run to its end: its result."""
    return await run_config({"urls": urls, "settings": settings})
