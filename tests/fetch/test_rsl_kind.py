"""The RSL license document goes through the same fetch procedure and lifecycle as
robots.txt and tdmrep.json (docs/decisions.md, 'Per-origin documents are kinds of one
machinery'): one download per license URL, its outcomes' stand-ins, its stats and its
shared record, driven by plain calls."""

from __future__ import annotations

from typing import Any

from rep_engine.fetch.cache import DocumentCache
from rep_engine.fetch.lifecycle.events import (
    AcquireLease,
    Downloaded,
    LeaseAnswered,
    LoadRecord,
    RecordLoaded,
    Release,
    RequestSeen,
    SaveRecord,
    StartDownload,
    Stat,
)
from rep_engine.fetch.lifecycle.machine import Lifecycle
from rep_engine.fetch.lifecycle.state import Phase
from rep_engine.fetch.procedure import Fetched, FetchProcedure
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.fetch.rules import Policy
from rep_engine.usage.rsl.document import ABSENT, UNREACHABLE, RslDocument
from rep_engine.usage.rsl.terms import purpose_answers
from tests.support.lifecycles import Announcing, actions_of

L = "https://licenses.example/site-license.xml"
BODY = (
    b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/books/*"><license>'
    b'<prohibits type="usage">ai-train</prohibits></license></content></rsl>'
)
T0 = 1_000_000.0


def license_lifecycle(**policy: Any) -> Lifecycle[RslDocument]:
    settings = {"retry_delay": 10.0, "max_wait": 100.0, **policy}
    return Announcing(Policy(**settings), RSL, DocumentCache(100, reparse=RSL.parse))


def license_fetched(status: int, body: bytes = b"") -> Fetched:
    fetched = FetchProcedure(RSL, RSL.url(L)).on_response(status, body)
    assert isinstance(fetched, Fetched)
    return fetched


def test_one_download_per_license_url_and_the_document_decides() -> None:
    life = license_lifecycle()
    assert life.handle(RequestSeen(L), T0) == [StartDownload(L)]
    assert life.handle(RequestSeen(L), T0) == []  # a second waiter: the same download
    actions = life.handle(Downloaded(L, license_fetched(200, BODY), held=2), T0 + 1)
    [release] = actions_of(Release, actions)
    train = purpose_answers(release.entry.rules, "https://a.example/books/1", frozenset(), L)[1]
    assert train.allowed is False and L in train.source
    assert {s.name for s in actions_of(Stat, actions)} == {"rep/rsl/outcome/parsed"}
    assert life.phase(L, T0 + 1) is Phase.FRESH


def test_a_4xx_is_no_terms_and_an_unreachable_document_given_up_on_is_no_ai_use() -> None:
    life = license_lifecycle()
    life.handle(RequestSeen(L), T0)
    [release] = actions_of(Release, life.handle(Downloaded(L, license_fetched(404), held=1), T0))
    assert release.entry.rules is ABSENT
    gave_up = license_lifecycle(max_wait=0.0)
    gave_up.handle(RequestSeen(L), T0)
    [release] = actions_of(Release, gave_up.handle(Downloaded(L, license_fetched(503), held=1), T0))
    assert release.entry.rules is UNREACHABLE
    answers = purpose_answers(release.entry.rules, "https://a.example/", frozenset(), L)
    assert tuple(a.allowed for a in answers) == (None, False, False)


def test_its_shared_record_and_lease_are_named_apart_from_other_kinds() -> None:
    life = license_lifecycle(store="redis://localhost:6379/0")
    [load] = life.handle(RequestSeen(L), T0)
    assert isinstance(load, LoadRecord) and load.name == L + "#rsl"
    [lease] = actions_of(AcquireLease, life.handle(RecordLoaded(L, None), T0))
    assert lease.name.startswith(L + "#rsl")
    assert actions_of(LoadRecord, life.handle(LeaseAnswered(L, True), T0))  # looks once more
    assert life.handle(RecordLoaded(L, None), T0) == [StartDownload(L)]
    actions = life.handle(Downloaded(L, license_fetched(200, BODY), held=1), T0 + 1)
    [save] = actions_of(SaveRecord, actions)
    assert save.record.origin == L + "#rsl"
    # What another process reads back decides the same.
    back = RSL.entry_of(save.record).rules
    for url in ("https://a.example/", "https://a.example/books/1"):
        assert purpose_answers(back, url, frozenset(), L) == purpose_answers(
            RSL.parse(BODY), url, frozenset(), L
        )
