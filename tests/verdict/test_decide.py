"""The one decision on a request (scrapy_rep/verdict/decide.py), step by step, on entries
built by hand (docs/decisions.md, 'One request, one verdict')."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest

from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.robotstxt import DISALLOW_ALL, parse_robotstxt
from scrapy_rep.urls.origins import origin_of
from scrapy_rep.usage.policy import RESERVED_ALL
from scrapy_rep.usage.rsl.document import parse_rsl
from scrapy_rep.usage.tdmrep import parse_tdmrep
from scrapy_rep.verdict import (
    LICENSE,
    ROBOTS,
    TDM,
    UNCHECKED,
    Allowed,
    Obey,
    Override,
    Refused,
    RequestFacts,
    RequestRules,
    Wait,
    decide,
    obey_of,
)

URL = "https://e.com/private/a"
ORIGIN = origin_of(URL)
LICENSE_URL = "https://e.com/license.xml"


def known_entry(rules: Any, unreachable: bool = False, sha: str = "") -> CacheEntry[Any]:
    return CacheEntry(rules, "200 (10 bytes)" if not unreachable else "unreachable (503)",
                      0.0, 1e18, 1e18, unreachable=unreachable, sha256=sha)  # fmt: skip


def known(**documents: CacheEntry[Any]) -> Any:
    table = {ROBOTS: documents.get("robots"), TDM: documents.get("tdm")}

    def look(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        if kind == LICENSE:
            return documents.get("license") if key == LICENSE_URL else None
        return table[kind]

    return look


def robots_entry(text: str, sha: str = "abc") -> CacheEntry[Any]:
    return known_entry(parse_robotstxt(text.encode()), sha=sha)


def facts(url: str = URL, agent: str = "mybot", obey: Obey = Obey.ALL) -> RequestFacts:
    return RequestFacts(url, origin_of(url), agent, obey)


def test_a_url_without_origin_or_nothing_obeyed_is_not_checked() -> None:
    assert decide(facts("data:,x"), RequestRules(), known()) is UNCHECKED
    assert decide(facts(obey=Obey.NOTHING), RequestRules(), known()) is UNCHECKED


def test_robots_txt_not_known_yet_means_wait_for_it() -> None:
    assert decide(facts(), RequestRules(), known()) == Wait(ROBOTS, ORIGIN)


def test_robots_txt_disallow_refuses_with_its_document_version_and_line() -> None:
    found = robots_entry("User-agent: mybot\nDisallow: /private\n", sha="f00d")
    verdict = decide(facts(), RequestRules(), known(robots=found))
    assert isinstance(verdict, Refused)
    assert (verdict.reason, verdict.document, verdict.agent) == ("forbidden", ROBOTS, "mybot")
    assert verdict.message == "Forbidden by https://e.com/robots.txt (line 2: Disallow: /private)"
    assert (verdict.version, verdict.line) == ("f00d", 2)
    assert verdict.statement == "https://e.com/robots.txt line 2: Disallow: /private"
    assert verdict.used == ((ROBOTS, ORIGIN, found),)


def test_allowed_keeps_the_deciding_line_only_when_asked_to_explain() -> None:
    found = robots_entry("User-agent: *\nAllow: /private\n")
    plain = decide(facts(), RequestRules(), known(robots=found))
    explained = decide(facts(), RequestRules(explain=True), known(robots=found))
    assert isinstance(plain, Allowed) and plain.robots is None and plain.obeyed
    assert isinstance(explained, Allowed) and explained.robots is not None
    assert explained.robots.line == 2


def test_a_robots_txt_given_up_on_drops_even_when_allow_disallow_is_not_obeyed() -> None:
    given_up = known_entry(DISALLOW_ALL, unreachable=True)
    for obey in (Obey.ALL, Obey.USAGE):
        verdict = decide(facts(obey=obey), RequestRules(), known(robots=given_up))
        assert isinstance(verdict, Refused) and verdict.reason == "robotstxt_unreachable"
        assert verdict.message == "Dropped: robots.txt of https://e.com unreachable (503)"


def test_not_obeyed_allow_disallow_lets_a_disallowed_url_through() -> None:
    found = robots_entry("User-agent: *\nDisallow: /\n")
    verdict = decide(facts(obey=Obey.USAGE), RequestRules(), known(robots=found))
    assert isinstance(verdict, Allowed) and not verdict.obeyed


def test_a_purpose_agents_group_refuses_naming_its_token() -> None:
    found = robots_entry("User-agent: gptbot\nDisallow: /private\n\nUser-agent: *\nAllow: /\n")
    rules = RequestRules.of(("ai-train",), agents=("gptbot",))
    verdict = decide(facts(), rules, known(robots=found, tdm=known_entry(parse_tdmrep(b"[]"))))
    assert isinstance(verdict, Refused) and verdict.agent == "gptbot"
    assert verdict.message == (
        "Forbidden by https://e.com/robots.txt for gptbot (line 2: Disallow: /private)"
    )


def test_ai_purposes_wait_for_tdmrep_json_carrying_what_was_used() -> None:
    found = robots_entry("User-agent: *\nAllow: /\n")
    verdict = decide(facts(), RequestRules.of(("ai-train",)), known(robots=found))
    assert verdict == Wait(TDM, ORIGIN, ((ROBOTS, ORIGIN, found),))


def test_a_tdmrep_json_given_up_on_drops() -> None:
    found = robots_entry("User-agent: *\nAllow: /\n")
    tdm = known_entry(RESERVED_ALL, unreachable=True)
    verdict = decide(facts(), RequestRules.of(("ai-train",)), known(robots=found, tdm=tdm))
    assert isinstance(verdict, Refused) and verdict.reason == "tdmrep_unreachable"
    assert verdict.document == TDM


@pytest.mark.parametrize(
    ("line", "document"),
    [("Content-Signal: ai-train=no", ROBOTS), ("Content-Usage: train-ai=n", ROBOTS)],
)
def test_a_robots_txt_usage_no_refuses_for_the_purpose(line: str, document: str) -> None:
    found = robots_entry(f"User-agent: mybot\n{line}\n\nUser-agent: *\nAllow: /\n")
    tdm = known_entry(parse_tdmrep(b"[]"))
    verdict = decide(facts(), RequestRules.of(("ai-train",)), known(robots=found, tdm=tdm))
    assert isinstance(verdict, Refused)
    assert (verdict.reason, verdict.purpose, verdict.document) == ("purpose", "ai-train", document)
    assert verdict.signal is not None and verdict.statement == verdict.signal.source
    assert verdict.message.startswith("Not fetched: ai-train denied by robots.txt")


def test_a_tdmrep_reservation_refuses_naming_tdmrep_json() -> None:
    found = robots_entry("User-agent: *\nAllow: /\n")
    tdm = known_entry(parse_tdmrep(b'[{"location": "/private/*", "tdm-reservation": 1}]'))
    verdict = decide(facts(), RequestRules.of(("ai-train",)), known(robots=found, tdm=tdm))
    assert isinstance(verdict, Refused) and verdict.document == TDM


def test_a_license_line_is_waited_for_then_its_prohibits_refuse() -> None:
    found = robots_entry(f"License: {LICENSE_URL}\nUser-agent: *\nAllow: /\n")
    rules = RequestRules.of(("search",), purpose_set=True)
    assert decide(facts(), rules, known(robots=found)) == Wait(
        LICENSE, LICENSE_URL, ((ROBOTS, ORIGIN, found),)
    )
    body = (
        b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
        b'<prohibits type="usage">search</prohibits></license></content></rsl>'
    )
    verdict = decide(facts(), rules, known(robots=found, license=known_entry(parse_rsl(body))))
    assert isinstance(verdict, Refused) and verdict.document == LICENSE
    assert verdict.purpose == "search"


def test_an_override_lets_a_disallowed_url_through_recorded_as_overridden() -> None:
    found = robots_entry("User-agent: *\nDisallow: /private\n")
    override = Override("e.com", "written permission of 2026-11-01", "2027-01-01")
    verdict = decide(facts(), RequestRules.of(overrides=[override]), known(robots=found))
    assert isinstance(verdict, Allowed) and verdict.overridden == override
    assert verdict.robots is not None and not verdict.robots.allowed  # the line it overrode


def test_an_override_never_lets_an_unreachable_robots_txt_or_an_ai_group_through() -> None:
    override = Override("e.com", "permission", "2027-01-01")
    given_up = known_entry(DISALLOW_ALL, unreachable=True)
    verdict = decide(facts(), RequestRules.of(overrides=[override]), known(robots=given_up))
    assert isinstance(verdict, Refused)
    found = robots_entry("User-agent: gptbot\nDisallow: /\n\nUser-agent: *\nAllow: /\n")
    rules = RequestRules.of(("search",), agents=("gptbot",), overrides=[override])
    assert isinstance(decide(facts(), rules, known(robots=found)), Refused)


def test_obey_of_reads_the_switches_as_the_crawl_does() -> None:
    assert obey_of(True, False) is Obey.ALL
    assert obey_of(True, True, dont_obey=True) is Obey.USAGE
    assert obey_of(False, True) is Obey.USAGE
    assert obey_of(False, False) is Obey.NOTHING


# ---------------------------------------------------------------- every name held to

TWO_NAMES = ("mybot", "googlebot")
NO_TDM = known_entry(parse_tdmrep(b"[]"))


def named(*names: str) -> RequestFacts:
    return RequestFacts(URL, ORIGIN, names[0], Obey.ALL, names)


@pytest.mark.parametrize(
    "text",
    [
        "User-agent: googlebot\nDisallow: /private\n\nUser-agent: *\nAllow: /\n",
        "User-agent: mybot\nDisallow: /private\n\nUser-agent: googlebot\nAllow: /\n",
    ],
    ids=["the-name-sent-as-refuses", "the-declared-name-refuses"],
)
def test_a_request_is_allowed_only_if_every_name_it_is_held_to_allows_it(text: str) -> None:
    """docs/decisions.md, 'Every name a request can be held to': the stricter answer wins,
    and the refusal names the name whose group refused it."""
    found = robots_entry(text)
    for rules in (RequestRules(), RequestRules(explain=True)):
        verdict = decide(named(*TWO_NAMES), rules, known(robots=found))
        assert isinstance(verdict, Refused) and verdict.reason == "forbidden"
        refusing = "googlebot" if text.startswith("User-agent: googlebot") else "mybot"
        assert verdict.agent == refusing
        assert verdict.line == 2
        assert (f" for {refusing} " in verdict.message) is (refusing == "googlebot")


def test_a_browser_name_sent_as_gives_the_global_group_and_keeps_the_declared_ones() -> None:
    found = robots_entry("User-agent: mybot\nAllow: /\n\nUser-agent: *\nDisallow: /private\n")
    assert isinstance(decide(named("mybot"), RequestRules(), known(robots=found)), Allowed)
    verdict = decide(named("mybot", "mozilla"), RequestRules(), known(robots=found))
    assert isinstance(verdict, Refused) and verdict.agent == "mozilla"


def test_the_name_sent_as_keeps_its_groups_ai_opt_out() -> None:
    found = robots_entry(
        "User-agent: googlebot\nContent-Usage: train-ai=n\nAllow: /\n\nUser-agent: *\nAllow: /\n"
    )
    rules = RequestRules.of(("ai-train",), purpose_set=True)
    assert isinstance(decide(named("mybot"), rules, known(robots=found, tdm=NO_TDM)), Allowed)
    verdict = decide(named(*TWO_NAMES), rules, known(robots=found, tdm=NO_TDM))
    assert isinstance(verdict, Refused) and verdict.reason == "purpose"
