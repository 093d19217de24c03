"""The purpose check returns early when there is nothing to read (docs/decisions.md, 'The
purpose check returns early when there is nothing to read'): with no tdmrep.json or license
among the documents and no usage line in robots.txt, the decision never reads the purposes'
signals; with any of them, it does."""

from __future__ import annotations

from typing import Any

import pytest

from rep_engine.fetch.cache import CacheEntry
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.urls.origins import origin_of
from rep_engine.usage.tdmrep import parse_tdmrep
from rep_engine.verdict.decide import ROBOTS, TDM, Allowed, RequestFacts, RequestRules, decide
from rep_engine.verdict.policy import UsagePolicy

URL = "https://site.example/page"
FACTS = RequestFacts(URL, origin_of(URL), "bot")


def fresh_entry(rules: Any) -> CacheEntry[Any]:
    return CacheEntry(rules, "200", 0, 1e9, 1e9)


PLAIN = fresh_entry(parse_robotstxt(b"User-agent: *\nDisallow: /private/\n"))


def _signals_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    called: list[str] = []
    full = UsagePolicy.before_fetch

    def before_fetch(self: UsagePolicy, *args: Any, **kwargs: Any) -> Any:
        called.append("before_fetch")
        return full(self, *args, **kwargs)

    monkeypatch.setattr(UsagePolicy, "before_fetch", before_fetch)
    return called


def test_nothing_to_read_answers_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    called = _signals_read(monkeypatch)
    verdict = decide(FACTS, RequestRules.of(("search",)), lambda kind, key: PLAIN)
    assert isinstance(verdict, Allowed) and called == []


@pytest.mark.parametrize("case", ["tdmrep.json", "REP_PURPOSE_AGENTS", "usage line"])
def test_with_something_to_read_the_signals_are_read(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = RequestRules.of(("search",))
    documents = {ROBOTS: PLAIN}
    if case == "tdmrep.json":
        rules = RequestRules.of(("ai-train",))
        tdm = parse_tdmrep(b'[{"location": "/private/*", "tdm-reservation": 1}]')
        documents[TDM] = fresh_entry(tdm)
    elif case == "REP_PURPOSE_AGENTS":
        body = b"User-agent: *\nAllow: /\n\nUser-agent: gptbot\nContent-Usage: train-ai=n\n"
        documents[ROBOTS] = fresh_entry(parse_robotstxt(body))
        rules = RequestRules.of(("ai-train",), agents=("GPTBot",))
        documents[TDM] = fresh_entry(parse_tdmrep(b"[]"))
    else:
        body = b"User-agent: *\nDisallow: /private/\nContent-Usage: train-ai=n\n"
        documents[ROBOTS] = fresh_entry(parse_robotstxt(body))
    called = _signals_read(monkeypatch)
    decide(FACTS, rules, lambda kind, key: documents[kind])
    assert called == ["before_fetch"]
