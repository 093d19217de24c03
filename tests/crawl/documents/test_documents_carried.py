"""The entries released requests carry (``CarriedEntries`` of
``scrapy_rep.crawl.documents.documents``; docs/decisions.md, 'Released requests carry their
entry, not its parsed rules'): a request that waits in the scheduler's queue keeps a token,
and its entry is kept without parsed rules, given back the same when the request comes
back."""

from __future__ import annotations

import zlib
from dataclasses import replace

from scrapy import Request

from rep_engine.fetch.cache import CacheEntry, DocumentCache
from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from scrapy_rep.crawl.documents.documents import CarriedEntries

BODY = b"User-agent: *\nDisallow: /private/\n"


def carried_entry(body: bytes = BODY) -> CacheEntry[RobotsTxt]:
    return CacheEntry(parse_robotstxt(body), "200", 0, 100, 1000, 200, zlib.compress(body))


def test_released_requests_do_not_keep_the_parsed_rules() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(1, reparse=parse_robotstxt)
    carried: CarriedEntries[RobotsTxt] = CarriedEntries("robots.txt", cache)
    entry = carried_entry()
    cache.put("o", entry)
    requests = [Request(f"https://o/private/{n}") for n in range(3)]
    carried.carry(requests, entry, "o", compact=True)
    back = carried.take(requests[0], "o")
    assert back is entry  # still cached: the cache's own, nothing parsed again
    cache.discard("o")  # evicted while the other two wait in the queue
    again = carried.take(requests[1], "o")
    assert again is not None and again.rules is not entry.rules  # not kept: parsed again
    assert not again.rules.allowed("https://o/private/1", "bot")
    assert again.rules.allowed("https://o/public", "bot")
    assert len(carried) == 1 and cache.reparsed == 1


def test_a_request_carried_for_its_next_document_keeps_the_entry_whole() -> None:
    cache: DocumentCache[RobotsTxt] = DocumentCache(1, reparse=parse_robotstxt)
    carried: CarriedEntries[RobotsTxt] = CarriedEntries("robots.txt", cache)
    entry = carried_entry()
    request = Request("https://o/private/1")
    carried.carry([request], entry, "o")  # not compact: it comes back at once
    assert carried.take(request, "o") is entry and cache.reparsed == 0


def test_a_newer_version_in_the_cache_decides_instead_of_the_carried_one() -> None:
    """docs/decisions.md, 'One request, one verdict': never released against an older
    robots.txt than the process knows."""
    cache: DocumentCache[RobotsTxt] = DocumentCache(10, reparse=parse_robotstxt)
    carried: CarriedEntries[RobotsTxt] = CarriedEntries("robots.txt", cache)
    old = carried_entry(b"User-agent: *\nAllow: /\n")
    request = Request("https://o/private/1")
    carried.carry([request], old, "o", compact=True)
    newer = replace(carried_entry(), fetched_at=old.fetched_at + 1)
    cache.put("o", newer)
    assert carried.take(request, "o") is newer


def test_a_carried_version_older_than_one_used_is_let_go() -> None:
    """Once a request of this process was decided with a newer version (since evicted from
    a small cache), an older carried one decides nothing: the request is decided afresh."""
    cache: DocumentCache[RobotsTxt] = DocumentCache(10, reparse=parse_robotstxt)
    carried: CarriedEntries[RobotsTxt] = CarriedEntries("robots.txt", cache)
    old = carried_entry(b"User-agent: *\nAllow: /\n")
    request = Request("https://o/private/1")
    carried.carry([request], old, "o", compact=True)
    carried.used("o", replace(carried_entry(), fetched_at=old.fetched_at + 1))
    assert cache.peek("o") is None  # the newer one is not in the cache any more
    assert carried.take(request, "o") is None
    assert len(carried) == 0


def test_carrying_a_newer_version_lets_no_carried_one_go() -> None:
    """Two requests of one origin released with successive versions, the newer evicted
    from a small cache before either comes back: each is decided with the version it
    carries. (Were carrying a version as good as deciding with it, the first would be let
    go and fetch again, its newer version would let the second go, and so on for ever.)"""
    cache: DocumentCache[RobotsTxt] = DocumentCache(10, reparse=parse_robotstxt)
    carried: CarriedEntries[RobotsTxt] = CarriedEntries("robots.txt", cache)
    first = carried_entry(b"User-agent: *\nAllow: /\n")
    second = replace(carried_entry(), fetched_at=first.fetched_at + 1)
    a, b = Request("https://o/private/1"), Request("https://o/private/2")
    carried.carry([a], first, "o", compact=True)
    carried.carry([b], second, "o", compact=True)
    assert cache.peek("o") is None  # neither is in the cache any more
    back_a = carried.take(a, "o")
    assert back_a is not None and back_a.rules.allowed("https://o/private/1", "bot")
    carried.used("o", back_a)  # a is decided with the version it carries
    back_b = carried.take(b, "o")
    assert back_b is not None and not back_b.rules.allowed("https://o/private/2", "bot")
    assert len(carried) == 0


def test_carried_entries_add_no_tracked_object() -> None:
    """Released requests of 1,000 origins waiting in the scheduler, each origin's entry
    carried compact under its ``Origin``, cost the collector what 10 origins' do: each is
    kept as plain tuples (docs/decisions.md, 'Long-lived state out of the collector's
    sight'), and still decides its request, parsed again from its body."""
    from rep_engine.urls.origins import Origin
    from tests.support.counting import tracked_under

    def carrying(origins: int) -> tuple[CarriedEntries[RobotsTxt], list[Request]]:
        cache: DocumentCache[RobotsTxt] = DocumentCache(1, reparse=parse_robotstxt)
        carried: CarriedEntries[RobotsTxt] = CarriedEntries("robots.txt", cache)
        requests = []
        for number in range(origins):
            request = Request(f"https://h{number}.example/private/x")
            origin = Origin("https", f"h{number}.example", None)
            carried.carry([request], carried_entry(), origin, compact=True)
            carried.used(origin, carried_entry())  # a request of it decided meanwhile
            requests.append(request)
        return carried, requests

    (small, _), (large, requests) = carrying(10), carrying(1000)
    assert len(large) == 1000
    assert tracked_under(large) - tracked_under(small) == 0
    back = large.take(requests[500], Origin("https", "h500.example", None))
    assert back is not None and not back.rules.allowed("https://h500.example/private/x", "b")
    assert len(large) == 999
