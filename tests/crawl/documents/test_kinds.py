"""Every document kind through the generic machinery (docs/decisions.md, 'Per-origin
documents are kinds of one machinery').

Each kind of :data:`scrapy_rep.crawl.documents.kinds.CRAWL_KINDS` (a third kind added there is
tested here with no new line): its store names and hold keys, store troubles counted under
its own stats prefix, and its :class:`OriginDocument` holds the requests that wait for it
and releases them itself, each carrying the entry that decides it (a small token in
``request.meta``, never the entry). Through every store (a real redis-server among them)
and in real crawls: tests/integration/test_document_kinds.py.
"""

from __future__ import annotations

import pickle
import zlib
from dataclasses import replace
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.test import get_crawler

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP, DocumentKind, robots_size
from rep_engine.fetch.lifecycle.shared import downloaded_entry
from rep_engine.fetch.procedure import Fetched, FetchProcedure
from rep_engine.fetch.records import SharedRecord, StoreCorrupt
from rep_engine.fetch.rules import Policy
from rep_engine.robotstxt import RobotsTxt
from rep_engine.robotstxt.profiles import PROFILES
from rep_engine.settings import RepConfig
from scrapy_rep.crawl.documents.documents import HOLD
from scrapy_rep.crawl.documents.kinds import (
    CRAWL_KINDS,
    ROBOTS_CRAWL,
    RSL_CRAWL,
    TDMREP_CRAWL,
    CrawlKind,
)
from scrapy_rep.crawl.documents.stores import LocalStore, StoreClient
from scrapy_rep.crawl.requeststate import state_of, update
from tests.support.documents import KIND_BODIES
from tests.support.origindocuments import KEY, KIND_IDS, T0, entry_or_hold, origin_document
from tests.support.robotsite import until


def test_the_kinds_have_their_own_store_names_and_hold_keys() -> None:
    """robots.txt's records keep their names from before there were other kinds."""
    assert ROBOTS_TXT.store_name(KEY) == str(KEY)
    assert TDMREP.store_name(KEY) == f"{KEY}/.well-known/tdmrep.json"
    keys = {kind.kind.hold_key(KEY) for kind in CRAWL_KINDS}
    assert len(keys) == len(CRAWL_KINDS)
    assert str(ROBOTS_TXT.hold_key(KEY)) == str(KEY)  # held_requests() and spill names


class FailingStore(LocalStore):
    consulted = True
    name = "broken"

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def load(self, origin: str) -> SharedRecord | None:
        raise self.error


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_store_troubles_are_counted_under_the_kind_of_the_record(
    crawl_kind: CrawlKind[Any],
) -> None:
    counted: list[str] = []
    prefix = crawl_kind.kind.stat_prefix
    corrupt = StoreClient(FailingStore(StoreCorrupt("bad")), lambda: T0, counted.append)
    await deferred_from_coro(corrupt.for_kind(prefix).load("x"))
    broken = StoreClient(FailingStore(OSError("down")), lambda: T0, counted.append)
    await deferred_from_coro(broken.for_kind(prefix).load("x"))
    assert counted == [f"{prefix}/store_corrupt", f"{prefix}/store_errors"]


@pytest_twisted.ensureDeferred
async def test_a_store_outage_is_shared_by_the_kinds() -> None:
    """One outage, one count and one warning: the other kind does not ask a dead store."""
    counted: list[str] = []
    client = StoreClient(FailingStore(OSError("down")), lambda: T0, counted.append)
    await deferred_from_coro(client.for_kind("rep/robotstxt").load("x"))
    await deferred_from_coro(client.for_kind("rep/tdmrep").load("y"))
    assert counted == ["rep/robotstxt/store_errors"]


# ---------------------------------------------------------------------- OriginDocument


class SharedStore(LocalStore):
    """A store other processes write to (Redis, as the test says what it holds)."""

    consulted = True
    name = "shared"

    def __init__(self) -> None:
        self.records: dict[str, SharedRecord] = {}
        self.loads = 0

    async def load(self, origin: str) -> SharedRecord | None:
        self.loads += 1
        return self.records.get(origin)

    async def save(self, record: SharedRecord, keep_for: float) -> None:
        self.records[record.origin] = record


def hold_of(request: Request) -> Any:
    state = state_of(request)
    return None if state is None else state.hold


def carried_of(request: Request) -> Any:
    state = state_of(request)
    return () if state is None else state.carried


@pytest_twisted.ensureDeferred
async def test_a_request_held_for_one_license_is_woken_by_another_it_waits_for() -> None:
    """An origin's licenses are fetched together: a request held for the first is woken
    (to be decided again) as soon as another it waits for is known, even when that one
    was known before it was held; the first license is still being fetched."""
    clock = [T0]
    document, fetcher, crawler = origin_document(RSL_CRAWL, clock)
    kind = RSL_CRAWL.kind
    first, second = "https://l.example/1.xml", "https://l.example/2.xml"
    request = Request("https://a.example/page")
    assert document.entry_for(first, request) is None  # each fetch starts
    assert document.entry_for(second, request) is None
    assert document.hold_or_wait(first, request, (second,)) is HOLD
    assert hold_of(request) == (kind.name, first, (second,))
    update(request, hold=None)  # what request_scheduled does
    document.hold(first, request, (second,))
    await until(lambda: len(fetcher.asked) == 2)
    fetcher.answers[second] = FetchProcedure(kind, second).on_response(200, KIND_BODIES["rsl"])
    engine = crawler.engine
    await until(lambda: bool(engine.crawled))
    assert engine.crawled == [request] and document.usable_entry(first) is None
    later = Request("https://a.example/later")
    document.hold(first, later, (second,))  # the second known already: woken at once
    await until(lambda: len(engine.crawled) == 2)
    assert engine.crawled[1] is later and document.held_counts() == {}
    fetcher.answers[first] = FetchProcedure(kind, first).on_response(404, b"")
    await until(lambda: document.usable_entry(first) is not None)
    assert document._wakes == {}


@pytest_twisted.ensureDeferred
async def test_a_request_awaiting_licenses_in_place_goes_on_with_the_first_known() -> None:
    """A request that cannot be held (sent with ``engine.download_async``) awaits its
    licenses in place: the first of them known ends the wait."""
    document, fetcher, _ = origin_document(RSL_CRAWL, [T0])
    kind = RSL_CRAWL.kind
    first, second = "https://l.example/1.xml", "https://l.example/2.xml"
    request = Request("https://a.example/page")
    assert document.entry_for(second, request) is None
    waiting = deferred_from_coro(document.wait(first, request, (second,)))
    await until(lambda: len(fetcher.asked) == 2)
    fetcher.answers[second] = FetchProcedure(kind, second).on_response(200, KIND_BODIES["rsl"])
    entry = await waiting
    assert entry.status == 200 and document.usable_entry(first) is None
    fetcher.answers[first] = FetchProcedure(kind, first).on_response(404, b"")
    await until(lambda: document.usable_entry(first) is not None)


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_origin_document_holds_and_releases_its_own_requests(
    crawl_kind: CrawlKind[Any],
) -> None:
    clock = [T0]
    document, fetcher, crawler = origin_document(crawl_kind, clock)
    kind = crawl_kind.kind
    first, second = Request(f"{KEY}/a"), Request(f"{KEY}/b")
    for request in (first, second):
        assert entry_or_hold(document, KEY, request) is HOLD
        assert hold_of(request) == (kind.name, KEY, ())
        update(request, hold=None)  # what request_scheduled does
        document.hold(KEY, request)
    assert document.held_counts() == {str(KEY): 2}
    assert document.held_count(KEY) == 2
    await until(lambda: bool(fetcher.asked))
    assert fetcher.asked == [KEY]  # one download for both
    procedure = FetchProcedure(kind, kind.url(KEY))
    fetcher.answers[KEY] = procedure.on_response(200, KIND_BODIES[kind.name])
    engine = crawler.engine
    await until(lambda: len(engine.crawled) >= 2)
    assert document.held_counts() == {}
    assert [r.url for r in engine.crawled] == [first.url, second.url]
    released = engine.crawled[0]
    assert released.dont_filter
    token = carried_of(released)
    pickle.dumps(token)  # small and plain: a released request may go to JOBDIR
    # Whatever the cache holds when it comes back within the entry's lifetime, the
    # released entry decides it.
    clock[0] = T0 + 3_600
    entry = entry_or_hold(document, KEY, released)
    assert isinstance(entry, CacheEntry) and entry.status == 200
    assert carried_of(released) == ()  # taken: a redirect does not carry it on
    # The released requests keep no parsed rules while they wait (docs/decisions.md,
    # 'Released requests carry their entry, not its parsed rules'): once the cache has
    # lost the entry, the same version is parsed again from its body.
    document.cache.discard(KEY)
    again = entry_or_hold(document, KEY, engine.crawled[1])
    assert isinstance(again, CacheEntry) and again.rules is not entry.rules
    assert replace(again, rules=None) == replace(entry, rules=None)
    assert len(document._carried) == 0  # every released request came back: nothing kept


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_token_of_another_run_decides_nothing(crawl_kind: CrawlKind[Any]) -> None:
    """A released request read back from JOBDIR by the next run is decided afresh."""
    clock = [T0]
    document, fetcher, _ = origin_document(crawl_kind, clock)
    request = Request(f"{KEY}/a")
    update(request, carried=((crawl_kind.name, "0123abcd.0"),))
    assert entry_or_hold(document, KEY, request) is HOLD
    assert carried_of(request) == ()
    await until(lambda: bool(fetcher.asked))
    kind = crawl_kind.kind
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(404)
    await until(lambda: document.usable_entry(KEY) is not None)  # no download left running


def shared_version(kind: DocumentKind[Any], fetched_at: float, lifetime: float) -> SharedRecord:
    """A version of ``KEY``'s document as a worker stores it, ``lifetime`` seconds fresh;
    each version's body its own (the audit trail names a version by its body's hash)."""
    body = KIND_BODIES[kind.name] + b"\n" * int(fetched_at - T0 + 10)
    return SharedRecord(
        kind.store_name(KEY), zlib.compress(body), None, 200, f"200 ({len(body)} bytes)",
        fetched_at, fetched_at + lifetime, fetched_at + 1_000,
    )  # fmt: skip


async def released_with(document: Any, kind: DocumentKind[Any], engine: Any) -> list[Request]:
    """Two requests held for ``KEY``'s document, released once it is known."""
    requests = [Request(f"{KEY}/a"), Request(f"{KEY}/b")]
    for request in requests:
        assert entry_or_hold(document, KEY, request) is HOLD
        update(request, hold=None)
        document.hold(KEY, request)
    await until(lambda: len(engine.crawled) == len(requests))
    released = list(engine.crawled)
    engine.crawled.clear()
    return released


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_carried_version_past_its_lifetime_is_decided_afresh_with_the_stores(
    crawl_kind: CrawlKind[Any],
) -> None:
    """A worker's requests held for a document are released with version 1 (from the
    shared store, 2 s fresh); another worker stores version 2; the released requests come
    back 3 s later. None of them goes on under version 1 (a Redis cluster sent 12 pages
    up to 5.4 s after): the first starts the refresh, which asks the store, and waits for
    it with the other; both are decided with version 2, the version the audit trail then
    names, even when they come back after its lifetime too."""
    kind = crawl_kind.kind
    clock = [T0]
    shared = SharedStore()
    first = shared_version(kind, T0 - 1, lifetime=2)
    shared.records[kind.store_name(KEY)] = first
    document, fetcher, crawler = origin_document(crawl_kind, clock, shared)
    engine = crawler.engine
    released = await released_with(document, kind, engine)
    assert shared.loads == 1 and fetcher.asked == []  # version 1, from the store
    newer = shared_version(kind, T0 + 1.5, lifetime=100)  # another worker's download
    shared.records[kind.store_name(KEY)] = newer
    clock[0] = T0 + 3  # version 1 went stale a second ago
    assert entry_or_hold(document, KEY, released[0]) is HOLD  # never version 1
    assert entry_or_hold(document, KEY, released[1]) is HOLD  # nor while the store answers
    for request in released:
        update(request, hold=None)
        document.hold(KEY, request)
    await until(lambda: len(engine.crawled) == len(released))
    assert shared.loads == 2 and fetcher.asked == []  # the store asked once more, no download
    # Decided afresh once: back after version 2's lifetime too (a queue slower than it),
    # they go on with it instead of going round again.
    clock[0] = newer.fresh_until + 1
    for request in engine.crawled:
        entry = entry_or_hold(document, KEY, request)
        assert isinstance(entry, CacheEntry)
        assert (entry.fetched_at, entry.sha256) == (newer.fetched_at, kind.entry_of(newer).sha256)
    assert shared.loads == 2


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_stale_version_the_lifecycle_keeps_after_a_failed_refresh_decides(
    crawl_kind: CrawlKind[Any],
) -> None:
    """Decided afresh is not held for ever: when the refresh fails and the lifecycle
    keeps its stale copy in use (SPEC §4), a released request carrying it goes on with
    it instead of coming back again and again."""
    kind = crawl_kind.kind
    clock = [T0]
    document, fetcher, crawler = origin_document(crawl_kind, clock)
    engine = crawler.engine
    request = Request(f"{KEY}/a")
    assert entry_or_hold(document, KEY, request) is HOLD
    update(request, hold=None)
    document.hold(KEY, request)
    await until(lambda: bool(fetcher.asked))
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(
        200, KIND_BODIES[kind.name]
    )
    await until(lambda: len(engine.crawled) == 1)
    old = document.usable_entry(KEY)
    clock[0] = old.fresh_until + 1  # stale, not expired
    [released] = engine.crawled
    engine.crawled.clear()
    assert entry_or_hold(document, KEY, released) is HOLD  # the refresh starts
    update(released, hold=None)
    document.hold(KEY, released)
    await until(lambda: len(fetcher.asked) == 2)
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(503)
    await until(lambda: len(engine.crawled) == 1)  # released with the stale copy kept
    entry = entry_or_hold(document, KEY, engine.crawled[0])
    assert isinstance(entry, CacheEntry) and entry.fetched_at == old.fetched_at
    assert len(fetcher.asked) == 2  # no third try before the backoff


def test_no_code_outside_the_kinds_own_definition_asks_which_kind_it_has() -> None:
    """The generic machinery reads a kind's fields (docs/decisions.md, 'Per-origin
    documents are kinds of one machinery'); only fetch/kinds.py (the kinds' definitions)
    and crawl/documents/kinds.py (their Scrapy side, values not branches) name a kind."""
    import re

    from tests.support.paths import ENGINE, PACKAGES

    kind_test = re.compile(
        r"(is|is not|==|!=)\s+(ROBOTS_TXT|TDMREP)\b|(ROBOTS_TXT|TDMREP)\.name\s*(==|!=)"
        r"|\bTdmKey\b"
    )
    found = [
        f"{path.relative_to(package.parent)}:{number}: {line.strip()}"
        for package in PACKAGES
        for path in sorted(package.rglob("*.py"))
        if path != ENGINE / "fetch" / "kinds.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if kind_test.search(line)
    ]
    assert found == []


@pytest.mark.parametrize("crawl_kind", CRAWL_KINDS, ids=KIND_IDS)
@pytest_twisted.ensureDeferred
async def test_a_request_that_comes_straight_back_waits_in_place(
    crawl_kind: CrawlKind[Any],
) -> None:
    """engine.download_async does not schedule a request handed back: it comes straight
    back to process_request, which then waits for the document in place."""
    from scrapy_rep.crawl.documents.documents import WAIT

    clock = [T0]
    document, fetcher, _ = origin_document(crawl_kind, clock)
    kind = crawl_kind.kind
    request = Request(f"{KEY}/a")
    assert entry_or_hold(document, KEY, request) is HOLD
    assert entry_or_hold(document, KEY, request) is WAIT
    assert hold_of(request) is None
    waiting = deferred_from_coro(document.wait(KEY, request))
    await until(lambda: bool(fetcher.asked))
    fetcher.answers[KEY] = FetchProcedure(kind, kind.url(KEY)).on_response(
        200, KIND_BODIES[kind.name]
    )
    entry = await waiting
    assert isinstance(entry, CacheEntry) and entry.status == 200


# ------------------------------------------------------- parsed once per origin (the cache)


def test_default_settings_parse_each_robots_txt_once_over_3000_origins_path_major() -> None:
    """robots.txt is parsed once per origin with the default settings (docs/decisions.md,
    'Parsed once per origin'): the cache the crawl builds keeps every parsed file as a
    plain value. 3,000 origins, five asks each, path-major (every origin's first, then
    every origin's second…, as benchmarks/broad.py crawls): 3,000 parses in all, each
    ask answered by its origin's own rules."""
    document, _, _ = origin_document(ROBOTS_CRAWL, [0.0])
    cache = document.cache
    parse = document.document.parse
    parses = 0
    for number in range(3000):
        body = f"User-agent: *\nDisallow: /private/{number}\n".encode()
        rules = parse(body)
        parses += 1
        entry: CacheEntry[RobotsTxt] = CacheEntry(
            rules, "200", 0, 1e9, 2e9, 200, zlib.compress(body), size=robots_size(rules, body)
        )
        cache.put(("https", f"o{number}.test", None), entry)
    for _page in range(5):
        for number in range(3000):
            found = cache.get(("https", f"o{number}.test", None))
            assert found is not None
            assert not found.rules.allowed(f"https://o/private/{number}", "bot")
            assert found.rules.allowed(f"https://o/private/{number + 1}", "bot")
    parses += cache.reparsed
    assert parses / 3000 <= 1.05, f"{parses} parses for 3,000 origins"


def test_a_kind_without_a_plain_form_keeps_at_most_1000_parsed() -> None:
    """tdmrep.json has no plain form: its parsed entries are objects, bounded as they were
    before REP_CACHE_MAX_ORIGINS' default was raised."""
    document: Any = origin_document(TDMREP_CRAWL, [0.0])[0]
    assert document.cache.max_origins == 1000
    robots: Any = origin_document(ROBOTS_CRAWL, [0.0])[0]
    assert robots.cache.max_origins == 1_000_000


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
def test_the_crawls_robots_txt_reads_a_cut_body_as_cut_with_its_profile(profile: str) -> None:
    """A body the download cut (``Fetched.truncated``) is read with the crawl's profile
    and without its partial last line (docs/decisions.md, 'A cut robots.txt reads no
    part of a line that could allow'): ``Allow: /pu``, cut from ``Allow: /public-stuff``,
    lets nothing through, in the cache's compressed tier and the shared records too."""
    crawler = get_crawler(Spider, {"REP_PROFILE": profile})
    kind = ROBOTS_CRAWL.for_crawl(crawler, RepConfig.from_settings(crawler.settings))
    body = b"User-agent: *\nDisallow: /p\nAllow: /pu"
    url = "http://a.example/purchase"
    fetched = FetchProcedure(kind, KEY.robots_url).on_response(200, body, truncated=True)
    assert isinstance(fetched, Fetched)
    entry = downloaded_entry(kind, Policy(), fetched, T0)
    assert entry.truncated and entry.rules.options == PROFILES[profile]
    assert not entry.rules.allowed(url, "testbot")
    record = kind.record_of(KEY, entry, 0, None, 0.0, entry.outcome, T0)
    shared = kind.entry_of(SharedRecord.decode(record.encode(), kind.store_name(KEY)))
    assert not shared.rules.allowed(url, "testbot")
    assert kind.parse_cut is not None and not kind.parse_cut(body).allowed(url, "testbot")
    if profile != "legacy":  # legacy: the first matching line, Disallow: /p, decides
        assert kind.read(body, False).allowed(url, "testbot")  # a whole file: read whole
