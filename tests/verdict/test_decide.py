"""The one decision on a request (rep-engine/rep_engine/verdict/decide.py), step by step, on entries
built by hand (docs/decisions.md, 'One request, one verdict')."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest

from rep_engine.fetch.cache import CacheEntry
from rep_engine.robotstxt import DISALLOW_ALL, parse_robotstxt
from rep_engine.urls.origins import origin_of
from rep_engine.usage.rsl.document import parse_rsl
from rep_engine.usage.tdmrep import RESERVED_ALL, parse_tdmrep
from rep_engine.verdict.decide import (
    KINDS,
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
    documents_needed,
    obey_of,
)
from tests.support.documents import rsl_license

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


def terms_entry(usage: str) -> CacheEntry[Any]:
    """An RSL license whose one ``<license>`` holds ``usage`` (a permits or prohibits)."""
    return known_entry(parse_rsl(rsl_license(usage)))


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


@pytest.mark.parametrize(
    ("robots", "names", "agents", "refusing"),
    [
        ("User-agent: mybot\nDisallow: /private\n", ("mybot",), (), "mybot"),
        ("User-agent: otherbot\nDisallow: /private\n", ("mybot", "otherbot"), (), "otherbot"),
        ("User-agent: gptbot\nDisallow: /private\n", ("mybot",), ("gptbot",), "gptbot"),
    ],
    ids=["declared", "sent-as", "purpose-agent"],
)
def test_a_refused_request_is_matched_once_per_name_its_line_named(
    monkeypatch: pytest.MonkeyPatch,
    robots: str,
    names: tuple[str, ...],
    agents: tuple[str, ...],
    refusing: str,
) -> None:
    """Without explanations (no audit trail), a refusal names its line from the one match
    that refused (``RobotsTxt.explain``), never matching the URL again (``decide``)."""
    from rep_engine.robotstxt import RobotsTxt

    found = robots_entry(robots)
    matched: list[str] = []
    code = RobotsTxt.code

    def counted(self: RobotsTxt, url: str, user_agent: str) -> int:
        matched.append(user_agent)
        return code(self, url, user_agent)

    def again(*_: Any) -> Any:
        raise AssertionError("matched again to explain the refusal")

    monkeypatch.setattr(RobotsTxt, "code", counted)
    monkeypatch.setattr(RobotsTxt, "decide", again)
    request = RequestFacts(URL, ORIGIN, names[0], Obey.ALL, names)
    verdict = decide(request, RequestRules.of(agents=agents), known(robots=found))
    assert isinstance(verdict, Refused)
    assert verdict.agent == refusing
    assert verdict.line == 2
    assert verdict.message.endswith("(line 2: Disallow: /private)")
    assert sorted(matched) == sorted({*names, *agents})
    assert len(matched) == len(set(matched))  # each name matched once


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


def test_a_license_line_in_another_crawler_s_group_is_waited_for() -> None:
    """The guide "Adding RSL to robots.txt": the License directive "is global (not tied
    to any specific user agent)" (docs/decisions.md, "A group's License lines add to
    the file-wide ones")."""
    found = robots_entry(
        f"User-agent: gptbot\nLicense: {LICENSE_URL}\nDisallow:\n\nUser-agent: *\nAllow: /\n"
    )
    rules = RequestRules.of(("ai-train",), purpose_set=True)
    tdm = known_entry(parse_tdmrep(b"[]"))
    verdict = decide(facts(), rules, known(robots=found, tdm=tdm))
    assert isinstance(verdict, Wait) and (verdict.document, verdict.key) == (LICENSE, LICENSE_URL)


def test_a_groups_license_that_permits_never_hides_a_file_wide_one_that_prohibits() -> None:
    """Every License line is every crawler's: one that permits never hides one that
    prohibits."""
    group_url = "https://e.com/mybot-license.xml"
    found = robots_entry(
        f"License: {LICENSE_URL}\nUser-agent: mybot\nLicense: {group_url}\nAllow: /\n"
    )
    licenses = {
        LICENSE_URL: terms_entry('<prohibits type="usage">ai-train</prohibits>'),
        group_url: terms_entry('<permits type="usage">ai-train</permits>'),
    }

    table = {ROBOTS: found, TDM: known_entry(parse_tdmrep(b"[]"))}

    def look(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        return licenses.get(str(key)) if kind == LICENSE else table[kind]

    verdict = decide(facts(), RequestRules.of(("ai-train",), purpose_set=True), look)
    assert isinstance(verdict, Refused) and verdict.document == LICENSE
    assert verdict.purpose == "ai-train"
    assert (LICENSE, LICENSE_URL, licenses[LICENSE_URL]) in verdict.used


#: An override of e.com that stops applying at 2027-01-01T00:00:00Z (POSIX 1798761600).
OVERRIDE = Override("e.com", "written permission of 2026-11-01", "2027-01-01T00:00:00+00:00",
                    1798761600.0)  # fmt: skip


def test_an_override_lets_a_disallowed_url_through_recorded_as_overridden() -> None:
    found = robots_entry("User-agent: *\nDisallow: /private\n")
    rules = RequestRules.of(overrides=[OVERRIDE])
    verdict = decide(facts(), rules, known(robots=found), OVERRIDE.ends - 1)
    assert isinstance(verdict, Allowed) and verdict.overridden == OVERRIDE
    assert verdict.robots is not None and not verdict.robots.allowed  # the line it overrode


def test_an_override_stops_applying_when_it_expires_checked_per_request() -> None:
    """The expiry is held against the time each request is sent (a number passed in),
    not once at start; a caller that knows no time never goes past robots.txt."""
    found = robots_entry("User-agent: *\nDisallow: /private\n")
    rules = RequestRules.of(overrides=[OVERRIDE])
    for now in (OVERRIDE.ends, OVERRIDE.ends + 86400):
        verdict = decide(facts(), rules, known(robots=found), now)
        assert isinstance(verdict, Refused) and verdict.reason == "forbidden"
        assert verdict.expired == OVERRIDE
        assert verdict.message.endswith(
            "; its override in REP_OVERRIDES has expired "
            "(authorized until 2027-01-01T00:00:00+00:00)"
        )
    unknown_time = decide(facts(), rules, known(robots=found))
    assert isinstance(unknown_time, Refused) and unknown_time.expired is None
    allowed = decide(facts("https://e.com/public"), rules, known(robots=found), OVERRIDE.ends)
    assert isinstance(allowed, Allowed) and allowed.overridden is None


def test_an_override_that_lets_a_url_past_robots_txt_is_named_when_a_purpose_refuses_it() -> None:
    """The override applied to robots.txt's Allow/Disallow even when an opt-out refuses
    the request after it: the refusal names it, so the record does."""
    found = robots_entry("User-agent: *\nDisallow: /private\nContent-Usage: train-ai=n\n")
    rules = RequestRules.of(("ai-train",), overrides=[OVERRIDE])
    tdm = known_entry(parse_tdmrep(b"[]"))
    verdict = decide(facts(), rules, known(robots=found, tdm=tdm), OVERRIDE.ends - 1)
    assert isinstance(verdict, Refused) and verdict.reason == "purpose"
    assert verdict.overridden == OVERRIDE and verdict.expired is None


def test_an_override_of_a_unicode_host_covers_its_idna_2008_form_only() -> None:
    """``faß.test`` as REP_OVERRIDES reads it (tests/settings/test_readers_overrides.py)
    covers the URLs of ``xn--fa-hia.test``, never those of ``fass.test``."""
    from rep_engine.settings.readers import read_overrides
    from rep_engine.settings.rules import overrides_of

    entry = {"host": "faß.test", "reason": "permission", "expires": "2099-01-01"}
    read = read_overrides({"REP_OVERRIDES": [entry]}, "REP_OVERRIDES", ())
    rules = RequestRules.of(overrides=overrides_of(read))
    found = robots_entry("User-agent: *\nDisallow: /\n")
    now = OVERRIDE.ends
    covered = decide(facts("http://xn--fa-hia.test/a"), rules, known(robots=found), now)
    assert isinstance(covered, Allowed) and covered.overridden is not None
    other = decide(facts("http://fass.test/a"), rules, known(robots=found), now)
    assert isinstance(other, Refused) and other.reason == "forbidden"


def test_an_override_never_lets_an_unreachable_robots_txt_or_an_ai_group_through() -> None:
    now = OVERRIDE.ends - 1
    given_up = known_entry(DISALLOW_ALL, unreachable=True)
    rules = RequestRules.of(overrides=[OVERRIDE])
    verdict = decide(facts(), rules, known(robots=given_up), now)
    assert isinstance(verdict, Refused)
    found = robots_entry("User-agent: gptbot\nDisallow: /\n\nUser-agent: *\nAllow: /\n")
    rules = RequestRules.of(("search",), agents=("gptbot",), overrides=[OVERRIDE])
    assert isinstance(decide(facts(), rules, known(robots=found), now), Refused)


def test_obey_of_reads_the_switches_as_the_crawl_does() -> None:
    assert obey_of(True, False) is Obey.ALL
    assert obey_of(True, True, dont_obey=True) is Obey.USAGE
    assert obey_of(False, True) is Obey.USAGE
    assert obey_of(False, False) is Obey.NOTHING


def robots_naming_licenses(count: int) -> CacheEntry[Any]:
    lines = "".join(f"License: https://lic.example/{n}.xml\n" for n in range(count))
    return robots_entry(f"User-agent: *\nAllow: /\n{lines}")


def test_more_licenses_than_the_bound_are_none_read_and_refuse_every_purpose() -> None:
    """docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read per robots.txt':
    none is asked for (no fetch starts), and the stand-in refuses search too."""
    found = robots_naming_licenses(10)
    asked: list[Hashable] = []
    table = {ROBOTS: found, TDM: known_entry(parse_tdmrep(b"[]"))}

    def look(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        if kind == LICENSE:
            asked.append(key)
            return None
        return table[kind]

    for purpose in ("search", "ai-input"):
        rules = RequestRules.of((purpose,), purpose_set=True, max_licenses=8)
        verdict = decide(facts(), rules, look)
        assert isinstance(verdict, Refused) and verdict.document == LICENSE
        assert verdict.reason == "purpose" and verdict.purpose == purpose
        assert verdict.signal is not None
        assert verdict.signal.source == (
            "RSL https://lic.example/8.xml: licenses not read: robots.txt names 10 for this "
            "crawler, more than REP_RSL_MAX_LICENSES (8)"
        )
    assert asked == []
    # Up to the bound they are read as before.
    rules = RequestRules.of(("search",), purpose_set=True, max_licenses=10)
    assert isinstance(decide(facts(), rules, look), Wait)


def test_every_license_is_asked_for_at_once_and_the_first_no_decides() -> None:
    """Each license is asked for in the one decision (each one's fetch starts then), and a
    known one that refuses decides without waiting for the others still unknown."""
    found = robots_naming_licenses(6)
    keys = [f"https://lic.example/{n}.xml" for n in range(6)]
    licenses: dict[str, CacheEntry[Any]] = {}
    asked: list[Hashable] = []

    def look(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        if kind == LICENSE:
            asked.append(key)
            return licenses.get(str(key))
        return found

    rules = RequestRules.of(("search",), purpose_set=True, max_licenses=8)
    assert decide(facts(), rules, look) == Wait(
        LICENSE, keys[0], ((ROBOTS, ORIGIN, found),), tuple(keys[1:])
    )
    assert asked == keys
    licenses[keys[2]] = terms_entry('<permits type="usage">all</permits>')
    waiting = decide(facts(), rules, look)
    assert isinstance(waiting, Wait) and waiting.key == keys[0]
    assert waiting.also == (keys[1], *keys[3:])
    licenses[keys[5]] = terms_entry('<prohibits type="usage">search</prohibits>')
    verdict = decide(facts(), rules, look)
    assert isinstance(verdict, Refused) and verdict.purpose == "search"
    assert verdict.signal is not None and keys[5] in verdict.signal.source
    assert [key for _, key, _ in verdict.used[1:]] == [keys[2], keys[5]]


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


# ------------------------------------------------ an override and every name held to


def test_an_override_lets_through_a_url_only_the_name_sent_as_refuses() -> None:
    """An override lifts robots.txt's Disallow lines for every name a request is held to;
    the decision kept is the line it goes past, of the name whose group has it (the name
    it is sent as), and ``robots_agent`` names that name: the trail records the line with
    its agent and ``audit verify`` re-derives the same (docs/cli.md: an overridden URL is
    shown "with the line it goes past"). Where the declared name's own group refuses, its
    line is kept, as before."""
    found = robots_entry("User-agent: googlebot\nDisallow: /private\n\nUser-agent: *\nAllow: /\n")
    rules = RequestRules.of(overrides=[OVERRIDE], explain=True)
    verdict = decide(named(*TWO_NAMES), rules, known(robots=found), OVERRIDE.ends - 1)
    assert isinstance(verdict, Allowed) and verdict.overridden == OVERRIDE
    assert verdict.robots is not None and verdict.robots_agent == "googlebot"
    assert verdict.robots == found.rules.decide(URL, "googlebot")
    assert verdict.robots.line == 2
    # A later step refuses it: the refusal keeps the line the override went past too.
    later = robots_entry(
        "User-agent: googlebot\nDisallow: /private\n\nUser-agent: *\nAllow: /\n"
        "Content-Usage: train-ai=n\n"
    )
    purpose = RequestRules.of(("ai-train",), purpose_set=True, overrides=[OVERRIDE], explain=True)
    refused = decide(named(*TWO_NAMES), purpose, known(robots=later, tdm=NO_TDM), OVERRIDE.ends - 1)
    assert isinstance(refused, Refused) and refused.reason == "purpose"
    assert refused.overridden == OVERRIDE and refused.robots_agent == "googlebot"
    assert refused.robots is not None and refused.robots.line == 2
    both = robots_entry("User-agent: *\nDisallow: /private\n")
    verdict = decide(named(*TWO_NAMES), rules, known(robots=both), OVERRIDE.ends - 1)
    assert isinstance(verdict, Allowed) and verdict.robots_agent is None
    assert verdict.robots == both.rules.decide(URL, "mybot")


def test_an_expired_override_leaves_the_refusal_to_the_name_that_refused() -> None:
    found = robots_entry("User-agent: googlebot\nDisallow: /private\n\nUser-agent: *\nAllow: /\n")
    rules = RequestRules.of(overrides=[OVERRIDE], explain=True)
    verdict = decide(named(*TWO_NAMES), rules, known(robots=found), OVERRIDE.ends)
    assert isinstance(verdict, Refused) and verdict.reason == "forbidden"
    assert verdict.agent == "googlebot" and verdict.line == 2
    assert verdict.expired == OVERRIDE
    assert " for googlebot " in verdict.message
    assert verdict.message.endswith("expired (authorized until 2027-01-01T00:00:00+00:00)")


# ------------------------------------------------------- a Host naming another site

SERVER = origin_of("https://a.test/")  # the URL's origin: its server answers the request
SITE = origin_of("https://b.test/")  # the site its Host header addresses


def by_origin(**robots: CacheEntry[Any]) -> Any:
    """The robots.txt of each origin (``a``: a.test, ``b``: b.test); none: not known."""
    table = {SERVER: robots.get("a"), SITE: robots.get("b")}

    def look(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        return table.get(key) if kind == ROBOTS else None

    return look


def sent_to_b(path: str) -> RequestFacts:
    """``https://a.test{path}`` sent with ``Host: b.test``."""
    return RequestFacts(f"https://a.test{path}", SITE, "mybot", Obey.ALL, ("mybot",), SERVER)


@pytest.mark.parametrize(
    ("refusing", "origin"), [("a", SERVER), ("b", SITE)], ids=["the-server", "the-site"]
)
def test_a_request_sent_with_another_host_is_refused_by_either_sites_no(
    refusing: str, origin: Any
) -> None:
    """docs/decisions.md, 'A request sent with another Host is decided by both sites':
    either origin's ``Disallow`` refuses it, naming that origin's robots.txt and version."""
    no = robots_entry("User-agent: *\nDisallow: /private\n", sha="no")
    yes = robots_entry("User-agent: *\nAllow: /\n", sha="yes")
    documents = {"a": no, "b": yes} if refusing == "a" else {"a": yes, "b": no}
    verdict = decide(sent_to_b("/private/1"), RequestRules(), by_origin(**documents))
    assert isinstance(verdict, Refused)
    assert verdict.message == f"Forbidden by {origin.robots_url} (line 2: Disallow: /private)"
    assert (verdict.version, verdict.used[0][1]) == ("no", origin)


def test_a_request_sent_with_another_host_waits_for_both_and_goes_under_both() -> None:
    site = robots_entry("User-agent: *\nAllow: /\nCrawl-delay: 3\n", sha="b")
    server = robots_entry("User-agent: *\nAllow: /\n", sha="a")
    waiting = decide(sent_to_b("/x"), RequestRules(), by_origin(b=site))
    assert waiting == Wait(ROBOTS, SERVER, ((ROBOTS, SITE, site),))
    assert decide(sent_to_b("/x"), RequestRules(), by_origin(a=server)) == Wait(ROBOTS, SITE)
    allowed = decide(sent_to_b("/x"), RequestRules(), by_origin(a=server, b=site))
    assert isinstance(allowed, Allowed) and allowed.obeyed
    assert allowed.used == ((ROBOTS, SITE, site), (ROBOTS, SERVER, server))
    assert allowed.robots_entry is site  # the site addressed's: its Crawl-delay spaces it


OTHER_LICENSE = "https://e.com/other.xml"
NO_TDM_FILE = parse_tdmrep(b"[]")


@pytest.mark.parametrize(
    ("purposes", "purpose_set", "licenses", "bound", "needed"),
    [
        (("search",), False, 2, None, []),  # robots.txt alone
        (("ai-train",), False, 2, None, [(TDM, ORIGIN)]),  # licenses only for a purpose set
        (("search",), True, 2, None, [(LICENSE, LICENSE_URL), (LICENSE, OTHER_LICENSE)]),
        (("ai-train",), True, 1, None, [(TDM, ORIGIN), (LICENSE, LICENSE_URL)]),
        (("ai-train",), True, 2, 1, [(TDM, ORIGIN)]),  # more than the bound: none fetched
        (("ai-train",), True, 0, 1, [(TDM, ORIGIN)]),
    ],
)
def test_the_documents_a_request_needs_after_its_robots_txt_are_those_decide_reads(
    purposes: tuple[str, ...],
    purpose_set: bool,
    licenses: int,
    bound: int | None,
    needed: list[tuple[str, Hashable]],
) -> None:
    """What a re-check fetches (or finds in a WARC) for an origin's items is what the
    decision reads, in its order: the tdmrep.json for a TDM purpose, the licenses
    robots.txt names for a purpose set, none past REP_RSL_MAX_LICENSES."""
    lines = "".join(f"License: {url}\n" for url in (LICENSE_URL, OTHER_LICENSE)[:licenses])
    txt = parse_robotstxt(f"User-agent: *\nAllow: /\n{lines}".encode())
    rules = RequestRules.of(purposes, purpose_set=purpose_set, max_licenses=bound)
    assert documents_needed(ORIGIN, txt, rules) == needed
    waits = []  # what decide() waits for, document by document, each known once asked
    table: dict[tuple[str, Hashable], CacheEntry[Any]] = {}

    def look(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        if kind == ROBOTS:
            return known_entry(txt)
        if (kind, key) not in table:
            waits.append((kind, key))
            table[kind, key] = known_entry(
                parse_rsl(rsl_license("")) if kind == LICENSE else NO_TDM_FILE
            )
        return table[kind, key]

    while isinstance(decide(facts(), rules, look), Wait):
        pass
    assert waits == needed


def test_each_kind_names_the_field_of_a_record_that_names_its_snapshot() -> None:
    """What a verdict's ``used`` names, by kind: the field a ``url`` record writes its
    snapshot in (robots.txt's in its ``robots`` part)."""
    from rep_engine.records import Fate, UrlEntry

    assert {name: kind.record for name, kind in KINDS.items()} == {
        ROBOTS: "", TDM: "tdmrep", LICENSE: "rsl",
    }  # fmt: skip
    entry = UrlEntry(URL, tdm="t" * 64, licenses={LICENSE_URL: "l" * 64}, fate=Fate.FETCHED)
    written = entry.line("r", "k")
    assert written[KINDS[TDM].record] == "t" * 64
    assert written[KINDS[LICENSE].record] == {LICENSE_URL: "l" * 64}
