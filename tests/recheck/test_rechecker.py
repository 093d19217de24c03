"""One item's status now, by the crawl's decisions: the fast path says what the full
decision says, a document not had makes an item unknown unless what was had refuses it,
and a page fetched again decides too."""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rep_engine.fetch.cache import CacheEntry
from rep_engine.records import ItemStatus
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.settings import RepConfig
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.tdmrep import NO_FILE, parse_tdmrep
from rep_engine.verdict.decide import ROBOTS, TDM, Allowed, Refused
from rep_engine.verdict.page import PageStatements
from rep_recheck.documents import OriginDocuments
from rep_recheck.rechecker import _START_PATH, Identity, Outcome, Rechecker

NEVER = float("inf")
ROBOTS_FILES = {
    "https://a.example": "User-agent: *\nDisallow: /private\nDisallow: /tmp\nAllow: /private/ok\n",
    "https://b.example": "User-agent: mybot\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
    "https://c.example": "User-agent: *\nDisallow: /x\nContent-Usage: /train train-ai=n\n",
    "https://d.example": "",
}
PATHS = ("/", "/private/1", "/private/ok/2", "/tmp/3", "/x/4", "/train/5", "/y")


def _entry(document: Any) -> CacheEntry[Any]:
    return CacheEntry(document, "200", time.time(), NEVER, NEVER)


def _documents(tdm: dict[str, Any] | None = None) -> dict[str, OriginDocuments]:
    found = {}
    for name, text in ROBOTS_FILES.items():
        origin = origin_of(name + "/")
        assert origin is not None
        documents = OriginDocuments(origin, now=time.time())
        documents.add(ROBOTS, origin, _entry(parse_robotstxt(text.encode())))
        if tdm is not None and name in tdm:
            documents.add(TDM, origin, _entry(tdm[name]))
        found[name] = documents
    return found


def _rechecker(
    purpose: str, explain: bool, tdm: dict[str, Any] | None = None, fast: bool = True
) -> Rechecker:
    """``fast=False``: every item decided in full (the reference the fast path is held
    to: its switch is private)."""
    documents = _documents(tdm)

    def known(origin: Origin) -> OriginDocuments | None:
        return documents.get(str(origin))

    config = RepConfig.from_settings({"REP_PURPOSE": purpose})
    rechecker = Rechecker(config, Identity("mybot/1.0"), known, explain)
    rechecker._fast = rechecker._fast and fast
    return rechecker


def _said(outcome: Outcome) -> tuple[Any, ...]:
    refusal = outcome.refusal
    line = refusal.line if isinstance(refusal, Refused) else None
    return outcome.status, line, refusal.message if refusal is not None else outcome.why


def _said_with_lines(outcome: Outcome) -> tuple[Any, ...]:
    """What :func:`_said` says, and robots.txt's decision the verdict names (an allowed
    item's line too, with ``explain``)."""
    return *_said(outcome), getattr(outcome.verdict, "robots", None)


@pytest.mark.parametrize("purpose", ["search", "ai-train"])
def test_the_fast_path_says_what_the_full_decision_says(purpose: str) -> None:
    tdm = {name: NO_FILE for name in ROBOTS_FILES}
    fast, full = _rechecker(purpose, False, tdm), _rechecker(purpose, True, tdm, fast=False)
    urls = [origin + path for path in PATHS for origin in ROBOTS_FILES] * 2
    assert [_said(fast.decide(u)) for u in urls] == [_said(full.decide(u)) for u in urls]
    statuses = {u: fast.decide(u).status for u in urls}
    assert statuses["https://a.example/private/1"] is ItemStatus.REFUSED
    assert statuses["https://a.example/private/ok/2"] is ItemStatus.KEPT
    assert statuses["https://b.example/y"] is ItemStatus.REFUSED
    expected = ItemStatus.REFUSED if purpose == "ai-train" else ItemStatus.KEPT
    assert statuses["https://c.example/train/5"] is expected
    # the allowed items of a plain origin share one outcome; one per refusing line
    assert fast.decide("https://a.example/") is fast.decide("https://a.example/y")
    assert fast.decide("https://a.example/tmp/1") is fast.decide("https://a.example/tmp/2")
    assert fast.decide("https://a.example/tmp/1") is not fast.decide("https://a.example/private")


@pytest.mark.parametrize("purpose", ["search", "ai-train"])
def test_the_fast_path_names_the_allowing_line_a_report_and_a_trail_write(purpose: str) -> None:
    """With ``explain`` (a report, a trail) the fast path stays on: an allowed item's
    verdict names robots.txt's line that allows it (or why none does: no rule, robots.txt
    itself) as the full decision's does, the items each line allows sharing one outcome.
    It used to turn the fast path off: every item decided in full."""
    tdm = {name: NO_FILE for name in ROBOTS_FILES}
    lined, full = _rechecker(purpose, True, tdm), _rechecker(purpose, True, tdm, fast=False)
    paths = (*PATHS, "/robots.txt", "/private/ok%2F3", "/private/ok/\u00e9", "/y\u00e9")
    urls = [origin + path for path in paths for origin in ROBOTS_FILES] * 2
    assert [_said_with_lines(lined.decide(u)) for u in urls] == [
        _said_with_lines(full.decide(u)) for u in urls
    ]
    assert lined.made > 0  # shared outcomes, not the full decision
    ok, other = lined.decide("https://a.example/private/ok/2"), lined.decide("https://a.example/")
    robots = ok.verdict.robots  # type: ignore[union-attr]
    assert robots is not None and robots.line == 4 and robots.line_text == "Allow: /private/ok"
    assert ok is lined.decide("https://a.example/private/ok/9")  # one outcome per line
    assert other is lined.decide("https://a.example/y") and other is not ok
    assert other.verdict.robots.line is None  # type: ignore[union-attr]
    escaped = lined.decide("https://a.example/private/ok%2F3")  # not matched inline
    assert escaped is lined.decide("https://a.example/private/ok%2F4")
    assert escaped.verdict.robots == robots  # type: ignore[union-attr]


#: The URL's start and its path, as the hot path found them by one match before it told
#: a path matched as it is apart in the same match.
START_AND_PATH = re.compile(r"(https?://[^/?;#]*)(/[^#]*)").match


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(["/", "a", "%", "#", "?", ";", ":", "\u00e9", "\U0001f600", "\n"])))
def test_the_path_matched_as_it_is_is_told_apart_by_the_match_that_finds_it(rest: str) -> None:
    """The same start and path; the path in group 2 exactly when it holds no ``%`` and
    only ASCII characters (matched_as_given's first two tests), else in group 3."""
    for url in ("https://a.example" + rest, "http://a.example:8080/" + rest):
        found, expected = _START_PATH(url), START_AND_PATH(url)
        assert (found is None) == (expected is None)
        if found is None or expected is None:
            continue
        path = expected[2]
        assert found[1] == expected[1]
        assert (found[2] if found[2] is not None else found[3]) == path
        assert (found[2] is not None) == ("%" not in path and path.isascii())


@pytest.mark.parametrize("purpose", ["search", "ai-train"])
def test_the_inline_match_says_what_the_full_decision_says(purpose: str) -> None:
    """An origin with one group set is matched inline for a path matched as it is, and
    by its robots.txt otherwise (escapes, non-ASCII, its own /robots.txt): the same."""
    tdm = {name: NO_FILE for name in ROBOTS_FILES}
    fast, full = _rechecker(purpose, False, tdm), _rechecker(purpose, True, tdm, fast=False)
    paths = ("/robots.txt", "/private%2F1", "/%70rivate/1", "/tmp/\u00e9", "/tmp*", "/x$", "/?q")
    urls = [origin + path for path in paths for origin in ROBOTS_FILES] * 2
    assert [_said(fast.decide(u)) for u in urls] == [_said(full.decide(u)) for u in urls]
    known = fast._by_origin[origin_of("https://a.example/")]
    assert known.one is not None  # matched inline
    assert fast.decide("https://a.example/y") is known.kept  # the allowed items' outcome


def test_the_fast_paths_outcomes_are_bounded_over_all_origins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At most REFUSALS_MEMO refusals are remembered over all the origins, then every
    origin's memo starts again (its allowed items' outcome kept): an outcome made again
    says the same."""
    monkeypatch.setattr("rep_recheck.rechecker.REFUSALS_MEMO", 2)
    tdm = {name: NO_FILE for name in ROBOTS_FILES}
    fast, full = _rechecker("search", False, tdm), _rechecker("search", True, tdm, fast=False)
    urls = [origin + path for path in PATHS for origin in ROBOTS_FILES] * 3
    assert [_said(fast.decide(u)) for u in urls] == [_said(full.decide(u)) for u in urls]
    held = [known.outcomes for known in fast._by_origin.values()]
    assert 0 < sum(1 for outcomes in held for code in outcomes if code) <= 2
    assert all(len([code for code in outcomes if not code]) <= 1 for outcomes in held)
    first, kept = fast.decide("https://a.example/tmp/1"), fast.decide("https://a.example/")
    for path in ("/private/1", "/x/1", "/tmp/2"):  # more refusals: every memo starts again
        for origin in ("https://a.example", "https://b.example", "https://c.example"):
            fast.decide(origin + path)
    again = fast.decide("https://a.example/tmp/1")
    assert again is not first and again == first
    assert fast.decide("https://a.example/") is kept  # the allowed items' outcome stays


def test_the_refusals_hold_their_verdicts_read_up_to_a_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A refusal's verdict read is held until VERDICTS_HELD more are, then let go (the
    outcome stays remembered, small): read again, it is decided again, the same."""
    monkeypatch.setattr("rep_recheck.rechecker.VERDICTS_HELD", 2)
    tdm = {name: NO_FILE for name in ROBOTS_FILES}
    fast, full = _rechecker("search", False, tdm), _rechecker("search", True, tdm, fast=False)
    urls = ["https://a.example/tmp/1", "https://a.example/private/1", "https://b.example/y"]
    outcomes = [fast.decide(url) for url in urls]
    first = outcomes[0].verdict
    assert outcomes[0].verdict is first  # held
    for outcome in outcomes[1:]:
        assert outcome.verdict is not None
    assert len(fast._verdicts_held) <= 2
    again = outcomes[0].verdict
    assert again is not first and again == first  # let go, decided again: the same
    assert [fast.decide(url) for url in urls] == outcomes  # the outcomes stay remembered
    assert all(fast.decide(url) is outcome for url, outcome in zip(urls, outcomes, strict=True))
    assert [_said(o) for o in outcomes] == [_said(full.decide(url)) for url in urls]
    kept = fast.decide("https://a.example/y")
    allowed = kept.verdict
    for outcome in outcomes:
        assert outcome.verdict is not None
    assert kept.verdict is allowed  # the allowed items' verdict is never let go
    fast.forget()
    assert fast._verdicts_held == []


def test_a_document_not_had_is_unknown_unless_what_was_had_refuses() -> None:
    rechecker = _rechecker("ai-train", True)  # no tdmrep.json had at all
    assert rechecker.decide("https://a.example/y").status is ItemStatus.UNKNOWN
    assert "tdmrep.json" in rechecker.decide("https://a.example/y").why
    assert rechecker.decide("https://a.example/private/1").status is ItemStatus.REFUSED
    assert rechecker.decide("https://c.example/train/5").status is ItemStatus.REFUSED
    assert rechecker.decide("https://e.example/").status is ItemStatus.UNKNOWN  # no robots.txt
    reserved = parse_tdmrep(b'[{"location": "/y", "tdm-reservation": 1}]')
    with_tdm = _rechecker("ai-train", True, {"https://a.example": reserved})
    refused = with_tdm.decide("https://a.example/y")
    assert refused.status is ItemStatus.REFUSED and refused.refusal is not None
    assert refused.refusal.document == TDM


def test_a_page_fetched_again_decides_too() -> None:
    rechecker = _rechecker("ai-train", True, {name: NO_FILE for name in ROBOTS_FILES})
    url = "https://a.example/y"
    before = rechecker.decide(url)
    assert before.status is ItemStatus.KEPT
    now = time.time()
    says = {
        "nothing": PageStatements(),
        "noindex": PageStatements((("x-robots-tag", "noindex"),)),
        "noai": PageStatements((("x-robots-tag", "noai"),)),
        "other bot": PageStatements((("x-robots-tag", "otherbot: noindex"),)),
        "own name": PageStatements((), (("mybot", "noai"),)),
    }
    found = {}
    for name, statements in says.items():
        after = rechecker.after_fetch(url, before, statements, now)
        refusal = after.page_refusal
        found[name] = (after.status, None if refusal is None else str(refusal.reason))
    assert found == {
        "nothing": (ItemStatus.KEPT, None),
        "noindex": (ItemStatus.REFUSED, "noindex"),
        "noai": (ItemStatus.REFUSED, "purpose"),
        "other bot": (ItemStatus.KEPT, None),
        "own name": (ItemStatus.REFUSED, "purpose"),
    }
    failed = rechecker.page_failed(before, "HttpError: 404")
    assert failed.status is ItemStatus.UNKNOWN and "404" in failed.why
    refused = rechecker.decide("https://a.example/private/1")
    assert rechecker.after_fetch(url, refused, says["nothing"], now) is refused


@pytest.mark.parametrize(
    ("setting", "status"), [(True, ItemStatus.REFUSED), (False, ItemStatus.KEPT)]
)
def test_a_page_fetched_again_reads_noarchive_for_ai_input_under_its_setting(
    setting: bool, status: ItemStatus
) -> None:
    """The recheck reads REP_NOARCHIVE_MEANS_NO_AI_INPUT as the crawl does: a page whose
    noarchive is a no for ai-input (Bing's 2026 guidelines) is refused, unless it is off."""
    tdm = {name: NO_FILE for name in ROBOTS_FILES}
    documents = _documents(tdm)
    config = RepConfig.from_settings(
        {"REP_PURPOSE": "ai-input", "REP_NOARCHIVE_MEANS_NO_AI_INPUT": setting}
    )
    rechecker = Rechecker(config, Identity("mybot/1.0"), lambda o: documents.get(str(o)), True)
    url = "https://a.example/y"
    before = rechecker.decide(url)
    assert before.status is ItemStatus.KEPT
    noarchive = PageStatements((("x-robots-tag", "noarchive"),))
    after = rechecker.after_fetch(url, before, noarchive, time.time())
    assert after.status is status
    if setting:
        assert after.page_refusal is not None
        assert "REP_NOARCHIVE_MEANS_NO_AI_INPUT" in after.page_refusal.message


#: One origin spelt the ways a collection spells it: userinfo, a query or
#: a fragment right after the host, case, the default port, a trailing dot.
SPELLINGS = (
    "https://a.example/private/1",
    "https://user@a.example/private/2",
    "https://user:pw@a.example/x",
    "https://a.example?q/private/3",
    "https://a.example?id=7",
    "https://a.example#top",
    "HTTPS://A.EXAMPLE:443/private/4",
    "https://a.example./y",
)


@pytest.mark.parametrize("explain", [False, True])
def test_an_origin_spelt_many_ways_has_its_documents_asked_for_once(explain: bool) -> None:
    """Each spelling asked for (and in a WARC, parsed) its origin's robots.txt again:
    4,000 items took 59 s and 281 MB. Now one origin is one ask, and the items of every
    spelling are decided on its one robots.txt."""
    documents = _documents({name: NO_FILE for name in ROBOTS_FILES})
    asked: Counter[str] = Counter()

    def known(origin: Origin) -> OriginDocuments | None:
        asked[str(origin)] += 1
        return documents.get(str(origin))

    config = RepConfig.from_settings({"REP_PURPOSE": "search"})
    rechecker = Rechecker(config, Identity("mybot/1.0"), known, explain)
    urls = [f"{spelling}{'&' if '?' in spelling else '?'}n={n}" for n in range(50)
            for spelling in SPELLINGS]  # fmt: skip
    statuses = Counter(rechecker.decide(url).status for url in urls)
    assert asked == {"https://a.example": 1}
    # the query spelling is the path "/": kept
    assert statuses == {ItemStatus.REFUSED: 3 * 50, ItemStatus.KEPT: 5 * 50}
    assert rechecker.decide("https://user@a.example/private/9").status is ItemStatus.REFUSED


@pytest.mark.parametrize("purpose", ["search", "ai-train"])
def test_the_fast_path_with_purpose_agents_says_what_the_full_decision_says(purpose: str) -> None:
    """Many names matched in one pass (one match per group set) refuse as the full
    decision does: the crawler's own group first, then each REP_PURPOSE_AGENTS token in
    order, the refusal naming the first that refuses; its verdict made when first read."""
    files = {
        **ROBOTS_FILES,
        "https://e.example": "User-agent: GPTBot\nDisallow: /g\n\nUser-agent: CCBot\n"
        "Disallow: /c\nDisallow: /g/deeper\n\nUser-agent: *\nDisallow: /private\n",
    }
    documents = {}
    for name, text in files.items():
        origin = origin_of(name + "/")
        assert origin is not None
        found = OriginDocuments(origin, now=time.time())
        found.add(ROBOTS, origin, _entry(parse_robotstxt(text.encode())))
        found.add(TDM, origin, _entry(NO_FILE))
        documents[name] = found
    settings = {"REP_PURPOSE": purpose, "REP_PURPOSE_AGENTS": ["CCBot", "GPTBot", "*"]}
    config = RepConfig.from_settings(settings)

    def rechecker(explain: bool) -> Rechecker:
        return Rechecker(config, Identity("mybot/1.0"), lambda o: documents.get(str(o)), explain)

    fast, full = rechecker(False), rechecker(True)
    paths = (*PATHS, "/g/1", "/g/deeper/2", "/c/3", "/robots.txt")
    urls = [origin + path for path in paths for origin in files] * 2
    assert [_said(fast.decide(u)) for u in urls] == [_said(full.decide(u)) for u in urls]
    refusal = fast.decide("https://e.example/g/deeper/2").refusal
    assert refusal is not None and refusal.agent == "CCBot" and refusal.line == 6
    refusal = fast.decide("https://e.example/g/1").refusal
    assert refusal is not None and refusal.agent == "GPTBot" and refusal.line == 2
    assert fast.decide("https://e.example/private/1").refusal.agent == "mybot"  # type: ignore[union-attr]
    assert fast.decide("https://e.example/robots.txt").status is ItemStatus.KEPT
    # the items of one refusing line share an outcome, equal to the full decision's
    first, second = fast.decide("https://e.example/c/3"), fast.decide("https://e.example/c/4")
    assert first is second and first == full.decide("https://e.example/c/3")
    assert repr(first) == repr(full.decide("https://e.example/c/3"))


def test_a_shared_outcome_of_the_fast_path_is_decided_again_after_the_fetch() -> None:
    """The fast path's shared outcomes (verdict made when first read) go through the page
    pass and a failed fetch as the full decision's do."""
    tdm = {name: NO_FILE for name in ROBOTS_FILES}
    fast, full = _rechecker("ai-train", False, tdm), _rechecker("ai-train", True, tdm, fast=False)
    url, now = "https://a.example/y", time.time()
    noai = PageStatements((("x-robots-tag", "noai"),))
    before = fast.decide(url)
    after = fast.after_fetch(url, before, noai, now)
    assert after.status is ItemStatus.REFUSED and after.page_refusal is not None
    assert after.verdict is before.verdict and isinstance(after.verdict, Allowed)
    assert after.page_refusal == full.after_fetch(url, full.decide(url), noai, now).page_refusal
    failed = fast.page_failed(before, "HttpError: 404")
    assert failed.status is ItemStatus.UNKNOWN and failed.verdict == before.verdict
    assert fast.decide(url) is before  # the shared outcome itself unchanged
    assert before.status is ItemStatus.KEPT and before.page is None
