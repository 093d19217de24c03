"""What one process saved, another reads the same (SPEC §4 shared cache;
docs/decisions.md, 'Stored records round-trip or are refused').

Each document kind (robots.txt, tdmrep.json) × each download outcome (parsed, absent
4xx, unreachable, given up, cut at 500 KiB) × each store (the JOBDIR file, Redis): a
lifecycle downloads and shares its record, the record goes through the real store (the
JOBDIR file is closed and read again by a new store, Redis is read by a second client),
and a second lifecycle adopts it. The second one must decide every probe URL exactly as
the first one did (a tdmrep.json "no file" was read back as "everything reserved").
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy.utils.defer import deferred_from_coro

from rep_engine.fetch.cache import CacheEntry, DocumentCache
from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP
from rep_engine.fetch.kinds import DocumentKind as Document
from rep_engine.fetch.lifecycle.events import (
    AcquireLease,
    Action,
    Downloaded,
    LeaseAnswered,
    LoadRecord,
    RecordLoaded,
    Release,
    RequestSeen,
    SaveRecord,
    StartDownload,
    WakeAt,
)
from rep_engine.fetch.lifecycle.machine import Lifecycle
from rep_engine.fetch.lifecycle.state import Phase
from rep_engine.fetch.procedure import Fetched, FetchProcedure
from rep_engine.fetch.records import SharedRecord, StoreCorrupt
from rep_engine.fetch.rules import Policy
from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, parse_robotstxt
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.usage.tdmrep import NO_FILE, RESERVED_ALL, parse_tdmrep
from scrapy_rep.crawl.documents.stores import JobdirStore, RedisStore, RobotsStore
from tests.support.lifecycles import Announcing, actions_of
from tests.support.redisserver import RedisServer
from tests.support.robotsite import Reply, Sites, crawl, robots

A = "http://a.example"
T0 = 1_000_000.0
PROBES = ("/", "/private", "/private/x", "/public", "/late")


@dataclass(frozen=True)
class Kind:
    document: Document
    parse: Callable[[bytes], Any]
    stand_in: Callable[[bool], Any]
    body: bytes
    #: A body over 500 KiB whose first rule reserves/disallows /private.
    huge: bytes

    def decide(self, rules: Any) -> list[Any]:
        """What the rules say about every probe."""
        if self.document is ROBOTS_TXT:
            return [rules.allowed(A + path, "TestBot") for path in PROBES]
        return [rules.values(A + path) for path in PROBES]


def _huge_tdm() -> bytes:
    entries = [{"location": "/private", "tdm-reservation": 1}]
    entries += [{"location": f"/filler/{i:06d}", "tdm-reservation": 0} for i in range(20_000)]
    entries += [{"location": "/late", "tdm-reservation": 1}]
    return json.dumps(entries).encode()


KINDS = {
    "robots.txt": Kind(
        ROBOTS_TXT,
        parse_robotstxt,
        lambda allow: ALLOW_ALL if allow else DISALLOW_ALL,
        b"User-agent: *\nDisallow: /private\n",
        b"User-agent: *\nDisallow: /private\n"
        + b"# filler\n" * (MAX_BODY_BYTES // 9 + 10)
        + b"Disallow: /late\n",
    ),
    "tdmrep.json": Kind(
        TDMREP,
        parse_tdmrep,
        lambda allow: NO_FILE if allow else RESERVED_ALL,
        b'[{"location": "/private", "tdm-reservation": 1}, {"location": "/", "tdm-policy":'
        b' "https://a.example/policy.json", "tdm-reservation": 0}]',
        _huge_tdm(),
    ),
}


def fetched_as(kind: Kind, outcome: str) -> Fetched:
    procedure = FetchProcedure(kind.document, A + kind.document.path)
    answer = {
        "parsed": lambda: procedure.on_response(200, kind.body),
        "absent": lambda: procedure.on_response(404),
        "cut": lambda: procedure.on_response(200, kind.huge),
        "unreachable": lambda: procedure.on_response(503),
        "gave_up_drop": lambda: procedure.on_network_error("ConnectionRefusedError"),
        "gave_up_allow": lambda: procedure.on_network_error("ConnectionRefusedError"),
    }[outcome]()
    assert isinstance(answer, Fetched)
    return answer


OUTCOMES = ["parsed", "absent", "unreachable", "gave_up_drop", "gave_up_allow", "cut"]


def lifecycle(kind: Kind, outcome: str, store: str) -> Lifecycle[Any]:
    policy = Policy(
        retry_delay=10.0,
        max_wait=0.0 if outcome.startswith("gave_up") else 100.0,
        unreachable_action="allow" if outcome == "gave_up_allow" else "drop",
        store=store,
    )
    cache: DocumentCache[Any] = DocumentCache(100, reparse=kind.parse)
    return Announcing(policy, kind.document.parsed_with(kind.parse), cache)


def first_process(kind: Kind, outcome: str, store: str) -> tuple[list[Action], SharedRecord]:
    """Downloads under the lease; what it did and the record it shared."""
    life = lifecycle(kind, outcome, store)
    [load] = life.handle(RequestSeen(A), T0)
    assert isinstance(load, LoadRecord)
    assert actions_of(AcquireLease, life.handle(RecordLoaded(A, None), T0))
    assert actions_of(LoadRecord, life.handle(LeaseAnswered(A, True), T0))  # looks once more
    assert life.handle(RecordLoaded(A, None), T0) == [StartDownload(A)]
    actions = life.handle(Downloaded(A, fetched_as(kind, outcome), held=1), T0 + 1)
    [save] = actions_of(SaveRecord, actions)
    return actions, save.record


def second_process(
    kind: Kind, outcome: str, store: str, record: SharedRecord | None
) -> tuple[Lifecycle[Any], list[Action]]:
    life = lifecycle(kind, outcome, store)
    [load] = life.handle(RequestSeen(A), T0 + 2)
    assert isinstance(load, LoadRecord)
    return life, life.handle(RecordLoaded(A, record), T0 + 2)


async def through_store(
    store_name: str, record: SharedRecord, tmp_path: Path, redis: RedisServer | None
) -> SharedRecord | None:
    """The record as another process reads it from the real store."""
    name = record.origin
    writer: RobotsStore
    reader: RobotsStore
    if store_name == "jobdir":
        path = tmp_path / "scrapy_rep.robots"
        writer = JobdirStore(path, 100)
        await writer.save(record, record.keep_until - T0)
        await writer.close()  # the paused run
        reader = JobdirStore(path, 100)  # the resumed run
        assert reader.load_error == ""
        return await reader.load(name)
    assert redis is not None
    writer, reader = RedisStore(redis.url, tmp_path.name), RedisStore(redis.url, tmp_path.name)
    try:
        await writer.save(record, 3600.0)
        return await reader.load(name)
    finally:
        await writer.close()
        await reader.close()


def released(actions: list[Action]) -> CacheEntry[Any] | None:
    releases = actions_of(Release, actions)
    return releases[0].entry if releases else None


@pytest.mark.parametrize("store", ["jobdir", "redis"])
@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("kind_name", list(KINDS))
@pytest_twisted.ensureDeferred
async def test_every_kind_and_outcome_round_trips_through_every_store(
    kind_name: str, outcome: str, store: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    kind = KINDS[kind_name]
    redis = request.getfixturevalue("module_redis_server") if store == "redis" else None
    actions, record = first_process(kind, outcome, store)
    loaded = await deferred_from_coro(through_store(store, record, tmp_path, redis))
    assert loaded == record  # byte for byte, field for field
    life, adopted = second_process(kind, outcome, store, loaded)
    mine, theirs = released(actions), released(adopted)
    if outcome == "unreachable":  # nothing usable: both keep to one retry schedule
        assert mine is None and theirs is None
        assert (
            actions_of(WakeAt, adopted)
            == [WakeAt(A, record.retry_at)]
            == actions_of(WakeAt, actions)
        )
        assert life.phase(A, T0 + 2) is Phase.FAILING
        return
    assert mine is not None and theirs is not None, adopted
    assert kind.decide(theirs.rules) == kind.decide(mine.rules)
    assert (theirs.outcome, theirs.status, theirs.unreachable) == (
        mine.outcome,
        mine.status,
        mine.unreachable,
    )
    assert (theirs.fresh_until, theirs.stale_until) == (mine.fresh_until, mine.stale_until)
    if outcome in ("absent", "gave_up_allow"):
        assert theirs.rules is kind.stand_in(True)
    elif outcome == "gave_up_drop":
        assert theirs.rules is kind.stand_in(False)
    else:
        assert zlib.decompress(theirs.body_zlib) == zlib.decompress(mine.body_zlib)


def test_the_matrix_probes_tell_the_outcomes_apart() -> None:
    """The probes are not blind: within each kind, the verdicts of "absent", "given up
    (drop)" and "parsed" differ, and the parsed file reserves/disallows /private."""
    for kind in KINDS.values():
        verdicts = {}
        for outcome in ("parsed", "absent", "gave_up_drop"):
            actions, _ = first_process(kind, outcome, "jobdir")
            entry = released(actions)
            assert entry is not None
            verdicts[outcome] = repr(kind.decide(entry.rules))
        assert len(set(verdicts.values())) == 3, verdicts


def test_a_bodyless_record_without_a_verdict_is_refused_not_guessed() -> None:
    """``verdict: null`` without a body (what the old code wrote for "no tdmrep.json")
    says nothing: it is ignored (and the document downloaded again), never read as
    ``bool(None)``, "everything reserved"."""
    ambiguous = SharedRecord(A + TDMREP.path, b"", None, 404, "404", T0, T0 + 9, T0 + 9)
    with pytest.raises(StoreCorrupt, match="no allow/disallow verdict"):
        SharedRecord.decode(ambiguous.encode(), ambiguous.origin)


@pytest_twisted.ensureDeferred
async def test_two_jobdir_ai_train_runs_against_a_404_tdmrep_json_keep_the_page(
    tmp_path: Path,
) -> None:
    """The crawl that showed it: the first run kept the page, the second (reading
    tdmrep.json's 404 from the JOBDIR cache) refused it as "reserved by tdmrep.json entry
    0"."""
    sites = Sites()
    origin = sites.add("a")
    origin.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    origin.script(TDMREP.path, Reply(404))
    settings = {"JOBDIR": str(tmp_path / "job"), "REP_PURPOSE": "ai-train"}
    try:
        _, one = await crawl([sites.url("a", "/one")], settings)
        second, two = await crawl([sites.url("a", "/two")], settings)
    finally:
        await sites.close()
    assert one.downloaded == [sites.url("a", "/one")] and one.dropped == {}
    assert two.downloaded == [sites.url("a", "/two")] and two.dropped == {}
    assert second.stats is not None
    assert second.stats.get_value("rep/tdmrep/store_hits") == 1  # read back, not fetched
    assert sites.requested("a").count(TDMREP.path) == 1
