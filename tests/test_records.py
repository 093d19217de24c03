"""The trail's contract (rep-engine/rep_engine/records.py): every reason has its row,
every fate the trail writes is a :class:`Fate` with its row, and the performer of
refusals, the trail's writer, its readers and the end-of-crawl report say what the rows
say."""

from __future__ import annotations

import inspect
from dataclasses import fields

import pytest
from scrapy import Spider
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from rep_engine.records import (
    DROPPED_COLOUR,
    FATE_COLUMNS,
    FATE_PHRASES,
    FATE_ROWS,
    FATES,
    FILE_FATE_ROWS,
    ITEM_REASONS,
    ITEM_STATUSES,
    LINK_REASONS,
    NOT_HAD,
    NOT_OBEYED,
    REASONS,
    REFUSED_BY,
    REFUSED_BY_WORD,
    REPORT_FATES,
    RESPONSE_FATES,
    SENT_FATES,
    SIGNALLED_AS,
    Action,
    Dropped,
    EndReason,
    Fate,
    FileFate,
    ItemStatus,
    Reason,
    RefusedBy,
    UrlEntry,
    describe,
    phrase_of,
)
from rep_engine.settings import RepConfig
from rep_engine.trail import lines
from scrapy_rep.crawl.audit.audit import AuditTrail
from scrapy_rep.crawl.refusals import _stats_of
from scrapy_rep.crawl.report import RepReport, closing_lines
from tests.support.fakes import settled_by_the_ledger
from tests.support.paths import DOCS


def test_every_reason_and_every_drop_without_a_verdict_has_one_row() -> None:
    assert set(REASONS) == {*Reason, *Dropped}
    assert REASONS.get("another_add_ons_word") is None
    for word, row in REASONS.items():
        assert row.refuses, word
        assert (row.fate is None) == (row.refuses.isdisjoint({Action.FETCH})), word
        assert all(stat.startswith(("rep/", "robotstxt/")) for stat in row.stats), word


def test_every_fate_the_trail_writes_is_a_fate_member() -> None:
    """The trail's one writer of a record's fate writes an entry's, a Fate (mypy holds its
    callers to it); the end line counts and every reader checks the same words, in the same
    order."""
    assert FATES == tuple(Fate) == tuple(map(str, Fate))
    assert ITEM_STATUSES == tuple(ItemStatus) == ("kept", "refused", "unknown")
    assert list(inspect.signature(AuditTrail._final).parameters) == ["self", "key", "entry"]
    fate = inspect.signature(AuditTrail._settle).parameters["fate"]
    assert fate.annotation in (Fate, "Fate")
    assert {one.name: one.type for one in fields(UrlEntry)}["fate"] in (Fate | None, "Fate | None")
    end = lines.end_line("run", "finished", {Fate.FETCHED: 2, "failed": 1}, 3)
    assert [key for key in end["counts"] if key in set(Fate)] == list(Fate)
    assert (end["counts"]["url"], end["counts"]["fetched"]) == (3, 2)
    assert {row.fate for row in REASONS.values()} - {None} <= set(Fate)
    assert set(FATE_PHRASES) == set(Fate) - {Fate.REFUSED}


def test_the_trails_refused_by_words_are_the_rows() -> None:
    """As the trail has always written them (another add-on's reason: its own word)."""
    assert dict(REFUSED_BY) == {
        Reason.FORBIDDEN: "robots.txt",
        Reason.ROBOTSTXT_UNREACHABLE: "unreachable",
        Reason.TDMREP_UNREACHABLE: "unreachable",
        Reason.PURPOSE: "purpose",
        Reason.SPIDER_CLOSED: "closed",
        Dropped.NOT_SERIALIZABLE: "closed",  # signalled as spider_closed
    }
    assert REFUSED_BY_WORD[Reason.INTERNAL_ERROR] == "internal_error"  # its own word
    for word, row in REASONS.items():
        assert bool(row.refused_by) == (row.fate is Fate.REFUSED), word


def test_a_request_dropped_without_a_verdict_is_signalled_as_a_reason_it_agrees_with() -> None:
    """Its signal's reason is what the trail and the report read: the row of the word it
    is counted under says the same of it as the row of the reason it is signalled as."""
    assert set(SIGNALLED_AS) == set(Dropped)
    for word, reason in SIGNALLED_AS.items():
        row, signalled = REASONS[word], REASONS[reason]
        assert (row.refused_by, row.report, row.fate) == (
            signalled.refused_by,
            signalled.report,
            signalled.fate,
        ), word


@pytest.mark.parametrize("reason", [*Reason, *Dropped], ids=str)
def test_a_rows_stats_are_the_ones_a_refusal_counts(reason: Reason | Dropped) -> None:
    """What the performer of refusals counts (scrapy_rep/crawl/refusals.py) for the things
    the row refuses is what the row names, no more, no fewer (``internal_error``'s
    ``rep/requests/internal_errors`` too)."""
    row = REASONS[reason]
    named = {stat.format(reason=reason, purpose="ai-train") for stat in row.stats}
    counted = {stat for action in row.refuses for stat in _stats_of(action, reason, "ai-train")}
    assert counted == named


def test_the_report_says_each_rows_phrase() -> None:
    """The closing line's fates, in the order it has always said them, are the rows'."""
    assert REPORT_FATES == (
        "downloaded",
        "payment required",
        "redirected",
        "forbidden by robots.txt",
        "not fetched for the crawl's purpose",
        "dropped: robots.txt unreachable",
        "dropped: tdmrep.json unreachable",
        "dropped: the spider closed",
        "dropped",
        "dropped: sent unchecked, a document it needs not known",
        "no response",
    )
    report = RepReport(get_crawler(Spider, {"REP_REPORT": True, "USER_AGENT": "bot"}))
    refused = [word for word, row in REASONS.items() if row.fate is Fate.REFUSED]
    for number, word in enumerate(refused):  # as the URL ledger settles each
        by = REFUSED_BY_WORD[word]
        entry = UrlEntry(
            f"https://a.example/{number}", fate=Fate.REFUSED, reason=word, refused_by=by
        )
        settled_by_the_ledger(report, entry)
    other = UrlEntry("https://a.example/other", fate=Fate.REFUSED, reason="another")
    settled_by_the_ledger(report, other)
    said = report.summary()
    for word in refused:
        assert REASONS[word].report in said, word
    assert said.startswith(f"{len(refused) + 1} requests (")
    # not_serializable's, internal_error's and another word's; sent_unknown's
    assert "2 dropped: the spider closed, 2 dropped, 1 dropped: sent unchecked" in said
    assert all(REASONS[reason].report.startswith("not followed (") for reason in LINK_REASONS)


def test_the_closing_lines_say_each_rows_phrase() -> None:
    stats = {
        "rep/requests/dropped/forbidden": 2,
        "rep/requests/dropped/robotstxt_unreachable": 1,
        "rep/purpose/requests_dropped/ai-train": 1,
        "rep/directives/items_dropped/noindex": 3,
        "rep/directives/requests_dropped/rel_nofollow": 1,
    }
    said = "\n".join(closing_lines(stats, RepConfig.from_settings(Settings())))
    for reason in (Reason.FORBIDDEN, Reason.ROBOTSTXT_UNREACHABLE, Reason.NOINDEX):
        assert REASONS[reason].closing in said, reason
    assert REASONS[Reason.PURPOSE].closing.format(purpose="ai-train") in said
    assert f"1 {REASONS[Reason.REL_NOFOLLOW].closing}" in said


def test_every_fate_has_one_row_and_the_sets_of_words_are_the_rows() -> None:
    """A fate's row says how each reader words it; the sets the readers test a word
    against are read from the rows, never listed again (tests/project/test_reasons.py)."""
    assert list(FATE_ROWS) == list(Fate) and list(FILE_FATE_ROWS) == list(FileFate)
    assert {Fate.FETCHED, Fate.REDIRECTED, Fate.FAILED, Fate.PAYMENT_REQUIRED} == SENT_FATES
    assert {Fate.FETCHED, Fate.PAYMENT_REQUIRED} == RESPONSE_FATES  # a page pass read it
    assert {Reason.ROBOTSTXT_UNREACHABLE, Reason.TDMREP_UNREACHABLE} == NOT_HAD
    assert {r for r, row in REASONS.items() if row.refuses == {Action.KEEP}} == ITEM_REASONS
    assert {r for r, row in REASONS.items() if row.refuses == {Action.FOLLOW}} == LINK_REASONS
    stored = {fate for fate, row in FILE_FATE_ROWS.items() if row.stored}
    assert stored == {FileFate.STORED, FileFate.MARKED}
    decided = {fate: row.decided for fate, row in FILE_FATE_ROWS.items() if row.decided}
    assert decided == {FileFate.REFUSED: "file refused", FileFate.MARKED: "file marked"}
    colours = [status.colour for status in ItemStatus]
    assert colours == [FATE_ROWS[Fate.FETCHED].colour, FATE_ROWS[Fate.REFUSED].colour, "other"]


def test_the_words_an_item_record_says_are_one_vocabulary() -> None:
    """What refused an item (``page`` for its page's refusal) and the documents it names
    are :class:`RefusedBy` words, as a ``url`` record's ``refused_by``."""
    assert (RefusedBy.PAGE, RefusedBy.ROBOTS_TXT, RefusedBy.TDMREP_JSON) == (
        "page", "robots.txt", "tdmrep.json",
    )  # fmt: skip
    assert RefusedBy.PAGE not in REFUSED_BY.values()  # never a request's


@pytest.mark.parametrize(
    ("action", "reason", "stats"),
    [
        (Action.FETCH, Reason.FORBIDDEN, ("robotstxt/forbidden",)),
        (Action.FETCH, Reason.PURPOSE, ("rep/purpose/requests_dropped/ai-train",)),
        (Action.FETCH, Reason.INTERNAL_ERROR, ("rep/requests/internal_errors",)),
        (Action.FOLLOW, Reason.NOFOLLOW, ("rep/directives/requests_dropped/nofollow",)),
        (Action.FOLLOW, Reason.REL_NOFOLLOW, ("rep/directives/requests_dropped/rel_nofollow",)),
        (Action.FOLLOW, Reason.PURPOSE, ("rep/purpose/images_refused/ai-train",)),
        (Action.KEEP, Reason.NOINDEX, ("rep/directives/items_dropped/noindex",)),
        (
            Action.KEEP,
            Reason.UNAVAILABLE_AFTER,
            ("rep/directives/items_dropped/unavailable_after",),
        ),
        (Action.KEEP, Reason.PURPOSE, ("rep/purpose/items_dropped/ai-train",)),
        (Action.FETCH, Reason.SPIDER_CLOSED, ()),
        (Action.FETCH, Dropped.NOT_SERIALIZABLE, ()),
        (Action.FOLLOW, Reason.FORBIDDEN, ()),
    ],
)
def test_a_refusal_counts_the_stats_users_have_always_read(
    action: Action, reason: Reason | Dropped, stats: tuple[str, ...]
) -> None:
    """The stats of each refusal (docs/reference.md 'Stats'), read from its reason's row:
    the names before the rows held them by action, then its ``…/dropped/<reason>``."""
    whole = "rep/items/dropped" if action is Action.KEEP else "rep/requests/dropped"
    assert _stats_of(action, reason, "ai-train") == (*stats, f"{whole}/{reason}")


@pytest.mark.parametrize("fate", [*Fate, None], ids=str)
@pytest.mark.parametrize("reason", ["", *Reason, *Dropped, "another"], ids=str)
@pytest.mark.parametrize("flags", [(r, a, c) for r in (0, 1) for a in (0, 1) for c in (0, 1)])
def test_a_requests_phrase_is_that_of_an_entry_like_it(
    fate: Fate | None, reason: str, flags: tuple[int, int, int]
) -> None:
    """:func:`phrase_of` says what :func:`describe` says of an entry with the same fate,
    reason, response, answer and cached copy: what the URL ledger counts requests by
    (the end-of-crawl report reads the phrase from them, without an entry)."""
    responded, answered, replayed = map(bool, flags)
    entry = UrlEntry(
        "http://a.test/", status=0 if responded else None, fate=fate, reason=reason,
        answered=answered, page={"cached": True} if replayed else None,
    )  # fmt: skip
    phrase = phrase_of(fate, reason, responded, answered, replayed)
    assert phrase == describe(entry).phrase
    if fate is Fate.REFUSED:  # its reason's row's words, another add-on's "dropped"
        row = REASONS.get(reason)
        assert phrase == (row.report if row is not None and row.fate is fate else "dropped")


def test_the_columns_requests_are_counted_in_are_each_fates_colour() -> None:
    """Every fate is counted in its row's colour's column (a fetched page whose items were
    dropped in one of its own), each column labelled with the fates it counts, as the
    HTML report's legend has always said them."""
    assert dict(FATE_COLUMNS) == {
        "refused": "refused",
        "fetched": "fetched",
        "dropped": "fetched, item dropped",
        "other": "failed, redirected, unfinished, payment_required",
    }
    assert {row.colour for row in FATE_ROWS.values()} == set(FATE_COLUMNS) - {DROPPED_COLOUR}


def test_an_item_kept_against_a_reason_counts_its_rows_stat() -> None:
    """The items the page pass keeps though a directive refuses them
    (``REP_NOINDEX_ACTION = "keep"``) count the stat of their reason's row (docs/settings.md
    names both), and no other reason keeps what it refuses."""
    kept = {reason: row.kept for reason, row in REASONS.items() if row.kept}
    assert kept == {reason: f"rep/directives/items_kept/{reason}" for reason in ITEM_REASONS}
    settings_page = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert all(f"`{stat}`" in settings_page for stat in kept.values())


@pytest.mark.parametrize(
    ("meta", "obey", "cause"),
    [({"dont_obey_robotstxt": True}, True, "dont_obey_robotstxt"), ({}, False, "ROBOTSTXT_OBEY")],
)
def test_not_obeyed_is_said_as_the_crawl_writes_it(
    meta: dict[str, bool], obey: bool, cause: str
) -> None:
    """Each cause of robots.txt's Allow/Disallow not obeyed that the crawl finds is a row
    whose words its records write (the re-check and the checker say the same from it);
    an obeyed request has none."""
    from scrapy import Request

    from scrapy_rep.crawl.audit.recordparts import not_obeyed

    assert not_obeyed(Request("http://a.test/", meta=meta), obey) == cause
    assert cause in NOT_OBEYED
    assert not_obeyed(Request("http://a.test/"), True) == ""


def test_the_end_reasons_are_those_the_runs_write() -> None:
    """A run ends for one of :class:`EndReason`'s words (Scrapy's close reasons for a
    crawl, another add-on's read as none), as the crawl's forced shutdown and the
    re-check's end lines write them."""
    assert [str(reason) for reason in EndReason] == [
        "finished", "shutdown", "shutdown_forced", "failed", "interrupted",
    ]  # fmt: skip
    assert EndReason.of("closespider_timeout") is None


def test_a_page_answered_402_is_said_by_its_own_row_whatever_else_it_is() -> None:
    """Its fate's words, the price it asked, replayed or not; never ``fetched``'s."""
    price = {"crawler-price": "USD 0.01"}
    entry = UrlEntry("http://a.test/p", 1, 402, fate=Fate.PAYMENT_REQUIRED, payment=price)
    said = describe(entry)
    assert (said.word, said.state, said.colour, said.phrase) == (
        "payment_required", "payment_required", "other", "payment required",
    )  # fmt: skip
    assert said.said == "payment required (402; crawler-price: USD 0.01): not paid, not retried"
    assert said.story.startswith("was answered 402 Payment Required")
    entry.page, entry.payment = {"cached": True}, None
    replayed = describe(entry)
    assert replayed.phrase == "payment required" and replayed.row is FATE_ROWS[entry.fate]
    assert replayed.said == (
        "payment required (402 replayed from Scrapy's HTTP cache): not paid, not retried"
    )
