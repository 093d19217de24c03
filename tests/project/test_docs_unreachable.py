"""docs/behaviour.md, "Unreachable robots.txt" and "Giving up": the log lines it quotes
are the ones the lifecycle writes, with the default waits (only the time of day is the
page's own)."""

from __future__ import annotations

import logging
import re

from rep_engine.fetch.cache import DocumentCache
from rep_engine.fetch.kinds import ROBOTS_TXT
from rep_engine.fetch.lifecycle.events import (
    Action,
    Downloaded,
    Log,
    Release,
    RequestSeen,
    TimerFired,
    WakeAt,
)
from rep_engine.fetch.lifecycle.machine import Lifecycle
from rep_engine.fetch.procedure import Fetched, FetchProcedure
from rep_engine.fetch.rules import FailureClass, Policy
from rep_engine.robotstxt import parse_robotstxt
from tests.support.lifecycles import T0, actions_of
from tests.support.paths import ROOT

TEXT = (ROOT / "docs" / "behaviour.md").read_text(encoding="utf-8")
CLOCK = re.compile(r"\d\d:\d\d:\d\d")


def quoted(start: str) -> list[str]:
    """The page's lines (in a text block or a paragraph) that start with ``start``."""
    return [line.strip() for line in TEXT.splitlines() if line.strip().startswith(start)]


def said(actions: list[Action], level: int) -> list[str]:
    return [log.message % log.args for log in actions_of(Log, actions) if log.level == level]


def waits(key: str, answer: Fetched, held: int) -> tuple[list[str], list[str]]:
    """The INFO lines when the wait begins and the WARNING lines when it ends, with the
    default policy, every try coming to ``answer``."""
    life = Lifecycle(Policy(), ROBOTS_TXT, DocumentCache(100, reparse=parse_robotstxt))
    life.handle(RequestSeen(key), T0)
    actions = life.handle(Downloaded(key, answer, held=held), T0)
    info = said(actions, logging.INFO)
    while not actions_of(Release, actions):
        [wake] = actions_of(WakeAt, actions)
        life.handle(TimerFired(key), wake.when)
        actions = life.handle(Downloaded(key, answer, held=held), wake.when)
    return info, said(actions, logging.WARNING)


def test_the_unreachable_and_give_up_lines_are_the_lifecycles() -> None:
    down = FetchProcedure(ROBOTS_TXT, "https://example.com/robots.txt").on_response(503)
    assert isinstance(down, Fetched)
    refused = FetchProcedure(ROBOTS_TXT, "http://127.0.0.1:9/robots.txt").on_network_error(
        "ConnectionRefusedError", FailureClass.REFUSED
    )
    info_503, warning_503 = waits("https://example.com", down, held=40)
    info_refused, _ = waits("http://127.0.0.1:9", refused, held=2)
    documented = quoted("robots.txt of http://127.0.0.1:9 is unreachable")
    documented += quoted("robots.txt of https://example.com is unreachable")
    assert [CLOCK.sub("T", line) for line in documented] == [
        CLOCK.sub("T", line) for line in info_refused + info_503
    ]
    assert quoted("robots.txt of https://example.com given up on") == warning_503
