"""The lines of a trail as the crawl writes them (rep-engine/rep_engine/trail/lines.py):
the run header names the crawl's scheduler, however the setting names it; a record's
``robots`` part and the documents it names, built once for the crawl and the re-check."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import DocumentKind
from rep_engine.records import NOT_OBEYED
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.trail.lines import (
    PAYMENT_VALUE_KEPT,
    Named,
    class_path,
    documents_of,
    is_payment_part,
    payment_part,
    robots_part_of,
    run_line,
)
from rep_engine.urls.origins import origin_of
from rep_engine.verdict.decide import (
    LICENSE,
    ROBOTS,
    TDM,
    Override,
    Refused,
    RequestFacts,
    RequestRules,
    Verdict,
    decide,
)


class Scheduler:
    """A scheduler class given as a class (its module: this test's)."""


def test_the_run_header_names_the_scheduler_as_its_import_path() -> None:
    assert class_path(Scheduler) == f"{__name__}.Scheduler"
    assert class_path("scrapy_redis.scheduler.Scheduler") == "scrapy_redis.scheduler.Scheduler"
    assert class_path(None) is None
    settings = {"SCHEDULER": Scheduler}
    header = run_line("0" * 32, RepConfig(), settings, "spider", None, None)
    assert header["scheduler"] == f"{__name__}.Scheduler"
    assert run_line("0" * 32, RepConfig(), {}, "spider", None, None)["scheduler"] is None


# The robots part and the documents of a record, built once for the crawl and the re-check.

SHA = "a" * 64
DISALLOW = "User-agent: *\nDisallow: /private\n"
#: An override of a.test that stops applying at 2027-01-01T00:00:00Z (POSIX 1798761600).
OVERRIDE = Override("a.test", "written permission", "2027-01-01T00:00:00+00:00", 1798761600.0)


def _decided(
    robots: str, rules: RequestRules, now: float | None = None, unreachable: bool = False
) -> tuple[Verdict, CacheEntry[Any]]:
    entry = CacheEntry(parse_robotstxt(robots.encode()), "unreachable (503)" if unreachable
                       else "200", 0.0, 1e18, 1e18, unreachable=unreachable)  # fmt: skip
    facts = RequestFacts("https://a.test/private/x", origin_of("https://a.test/"), "mybot")
    return decide(facts, rules, lambda kind, key: entry, now), entry


def test_the_robots_part_names_the_line_that_decided_for_the_agent() -> None:
    verdict, entry = _decided(DISALLOW, RequestRules(explain=True))
    assert isinstance(verdict, Refused)
    part = robots_part_of(verdict, verdict.robots, entry, SHA, "mybot")
    assert part is not None
    assert part.part() == {
        "snapshot": SHA,
        "agent": "mybot",
        "line": 2,
        "rule": "Disallow: /private",
    }
    allowed, entry = _decided("User-agent: *\nAllow: /\n", RequestRules(explain=True))
    part = robots_part_of(allowed, allowed.robots, entry, SHA, "mybot", ("mybot", "Bot/2"))
    assert part is not None and part.part() == {
        "snapshot": SHA, "agent": "mybot", "agents": ["mybot", "Bot/2"], "line": 2,
        "rule": "Allow: /",
    }  # fmt: skip


def test_the_robots_part_says_an_override_that_held_or_expired_and_a_robots_txt_given_up() -> None:
    rules = RequestRules.of(overrides=[OVERRIDE], explain=True)
    held, entry = _decided(DISALLOW, rules, OVERRIDE.ends - 1)
    part = robots_part_of(held, held.robots, entry, SHA, "mybot", addressed="http://b.test")
    assert part is not None and part.overridden == OVERRIDE.described
    assert part.override_ends == OVERRIDE.ends and part.addressed == "http://b.test"
    expired, entry = _decided(DISALLOW, rules, OVERRIDE.ends)
    part = robots_part_of(expired, expired.robots, entry, SHA, "mybot")
    assert part is not None and part.override_expired == OVERRIDE.described
    assert not part.overridden
    given_up, entry = _decided(DISALLOW, RequestRules(explain=True), unreachable=True)
    decision = entry.rules.decide("https://a.test/private/x", "mybot")
    part = robots_part_of(given_up, decision, entry, "", "mybot")
    assert part is not None and part.why == "robots.txt unreachable (503)"


def test_the_robots_part_of_allow_and_disallow_not_obeyed_says_why() -> None:
    verdict, entry = _decided(DISALLOW, RequestRules())
    part = robots_part_of(verdict, None, entry, SHA, "mybot", not_obeyed="ROBOTSTXT_OBEY")
    assert part is not None and part.part() == {
        "snapshot": SHA, "agent": "mybot", "obeyed": False, "why": NOT_OBEYED["ROBOTSTXT_OBEY"],
    }  # fmt: skip
    assert robots_part_of(verdict, None, entry, SHA, "mybot") is None  # nothing decided it


def test_the_documents_of_a_verdict_are_named_in_the_order_the_crawl_writes_them() -> None:
    """robots.txt, the URL's own origin's robots.txt (a request sent with another Host),
    then tdmrep.json and each license by its URL; a kind skipped is not named."""
    a, b = origin_of("https://a.test/"), origin_of("https://b.test/")
    entry = CacheEntry(None, "200", 0.0, 1e18, 1e18)
    used = ((ROBOTS, a, entry), (TDM, a, entry), (LICENSE, "https://l.test/x.xml", entry),
            (ROBOTS, b, entry))  # fmt: skip
    stored: list[str] = []

    def snapshot(kind: DocumentKind[Any], key: Hashable, _: CacheEntry[Any]) -> str:
        stored.append(kind.url(key))
        return f"sha of {kind.url(key)}"

    named = documents_of(used, snapshot)
    assert stored == [
        "https://a.test/robots.txt", "https://b.test/robots.txt",
        "https://a.test/.well-known/tdmrep.json", "https://l.test/x.xml",
    ]  # fmt: skip
    assert named == Named(
        "sha of https://a.test/robots.txt", "sha of https://b.test/robots.txt",
        {"tdmrep": "sha of https://a.test/.well-known/tdmrep.json",
         "rsl": {"https://l.test/x.xml": "sha of https://l.test/x.xml"}},
    )  # fmt: skip
    assert documents_of(used[:3], snapshot, skipped=(TDM,)).fields == {
        "rsl": {"https://l.test/x.xml": "sha of https://l.test/x.xml"}
    }


#: A 402's fields as Scrapy's headers give them (each a list of its lines, bytes).
PAYMENT_CASES: list[tuple[dict[str, list[bytes]], dict[str, str]]] = [
    ({"crawler-price": [b"USD 0.01"]}, {"crawler-price": "USD 0.01"}),
    ({"crawler-error": [b" invalid-price "]}, {"crawler-error": "invalid-price"}),
    (
        {"crawler-price": [b"USD 1"], "crawler-error": [b"e"]},
        {"crawler-price": "USD 1", "crawler-error": "e"},
    ),
    ({"crawler-price": [b"USD 1", b"EUR 2"]}, {"crawler-price": "USD 1, EUR 2"}),  # RFC 9110 §5.3
    ({"crawler-price": [b"\xff\xfe 1"]}, {"crawler-price": "\ufffd\ufffd 1"}),
    ({"crawler-price": []}, {}),
    ({"crawler-exact-price": [b"USD 1"]}, {}),  # a request's field, never a response's said
    ({}, {}),
]


@pytest.mark.parametrize(("fields", "part"), PAYMENT_CASES, ids=repr)
def test_a_402s_price_is_kept_as_it_said_it(
    fields: dict[str, list[bytes]], part: dict[str, str]
) -> None:
    assert payment_part(fields) == part
    assert is_payment_part(part) is bool(part)


def test_a_hostile_price_is_cut_and_only_what_is_kept_is_read() -> None:
    """1 MB in one line, or 100,000 lines: the record keeps PAYMENT_VALUE_KEPT characters
    and says it cut them; no more than a few KB of the field is ever joined."""
    huge = payment_part({"crawler-price": [b"9" * 1_000_000]})["crawler-price"]
    assert huge == "9" * PAYMENT_VALUE_KEPT + "…" and is_payment_part({"crawler-price": huge})
    many = payment_part({"crawler-error": [b"e"] * 100_000})["crawler-error"]
    assert len(many) == PAYMENT_VALUE_KEPT + 1 and many.startswith("e, e, ")
    wide = payment_part({"crawler-price": ["€".encode() * 2_000]})["crawler-price"]
    assert wide == "€" * PAYMENT_VALUE_KEPT + "…"  # characters counted, not bytes
    assert not is_payment_part({"crawler-price": "9" * (PAYMENT_VALUE_KEPT + 2)})
