"""The purpose check's early return (docs/decisions.md, 'The purpose check returns early
when there is nothing to read'): with nothing to read (no extra agents, no tdmrep.json or
license among the documents, no usage line in robots.txt) it answers without the full
decision, in the late check and in the early pass, which passes robots.txt's own entry
among the documents."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl.requests.usagegate import UsageGate
from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.fetch.kinds import TDMREP
from scrapy_rep.fetch.origins import origin_of
from scrapy_rep.robotstxt import parse_robotstxt
from scrapy_rep.settings import RepConfig
from scrapy_rep.usage.tdmrep import parse_tdmrep
from scrapy_rep.usage.verdicts import RequestRules

URL = "https://site.example/page"
ORIGIN = origin_of(URL)
ROBOTS = CacheEntry(parse_robotstxt(b"User-agent: *\nDisallow: /private/\n"), "200", 0, 1e9, 1e9)


def _never(*_: Any) -> NoReturn:
    raise AssertionError("nothing is refused here")


def _gate(settings: dict[str, Any]) -> UsageGate:
    crawler = get_crawler(Spider, settings)
    return UsageGate(crawler, RepConfig.from_settings(crawler.settings), _never, True)


def _full_decision_called(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    called: list[str] = []
    full = RequestRules.refusal

    def refusal(self: RequestRules, *args: Any, **kwargs: Any) -> Any:
        called.append("refusal")
        return full(self, *args, **kwargs)

    monkeypatch.setattr(RequestRules, "refusal", refusal)
    return called


def test_nothing_to_read_answers_at_once_in_both_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = _gate({"REP_PURPOSE": "ai-train"})
    called = _full_decision_called(monkeypatch)
    early = {("robots.txt", ORIGIN): ROBOTS}  # what the early pass passes
    assert gate.refuses(URL, ORIGIN, ROBOTS, early, "bot") is False
    gate.check(Request(URL), ORIGIN, ROBOTS, {}, "bot")
    assert called == []


@pytest.mark.parametrize("case", ["tdmrep.json decided", "REP_PURPOSE_AGENTS", "usage line"])
def test_with_something_to_read_the_full_decision_runs(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings: dict[str, Any] = {"REP_PURPOSE": "ai-train"}
    robots = ROBOTS
    documents: dict[tuple[str, Any], CacheEntry[Any]] = {("robots.txt", ORIGIN): ROBOTS}
    if case == "tdmrep.json decided":
        tdm = parse_tdmrep(b'[{"location": "/private/*", "tdm-reservation": 1}]')
        documents[TDMREP.name, ORIGIN] = CacheEntry(tdm, "200", 0, 1e9, 1e9)
    elif case == "REP_PURPOSE_AGENTS":
        settings["REP_PURPOSE_AGENTS"] = ["GPTBot"]
    else:
        body = b"User-agent: *\nDisallow: /private/\nContent-Usage: train-ai=n\n"
        robots = CacheEntry(parse_robotstxt(body), "200", 0, 1e9, 1e9)
    gate = _gate(settings)
    called = _full_decision_called(monkeypatch)
    gate.refuses(URL, ORIGIN, robots, documents, "bot")
    assert called == ["refusal"]
