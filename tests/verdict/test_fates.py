"""The one table of fates and reasons (rep-engine/rep_engine/verdict/fates.py): every reason has its
row, every fate the trail writes is a :class:`Fate`, and the performer of refusals, the
trail's writer, its readers and the end-of-crawl report say what the rows say."""

from __future__ import annotations

import inspect

import pytest
from scrapy import Spider
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from rep_engine.settings import RepConfig
from rep_engine.trail import lines, read
from rep_engine.trail.urlentry import UrlEntry
from rep_engine.verdict.fates import (
    FATE_PHRASES,
    REASONS,
    REFUSED_BY_WORD,
    REPORT_FATES,
    SIGNALLED_AS,
    Dropped,
    Fate,
)
from rep_engine.verdict.reasons import LINK_REASONS, Reason
from rep_engine.verdict.signals import Action
from scrapy_rep.crawl.audit.auditstate import AuditState
from scrapy_rep.crawl.refusals import _stats_of
from scrapy_rep.crawl.report import RepReport, closing_lines


def test_every_reason_and_every_drop_without_a_verdict_has_one_row() -> None:
    assert set(REASONS) == {*Reason, *Dropped}
    assert REASONS.get("another_add_ons_word") is None
    for word, row in REASONS.items():
        assert row.refuses, word
        assert (row.fate is None) == (row.refuses.isdisjoint({Action.FETCH})), word
        assert all(stat.startswith(("rep/", "robotstxt/")) for stat in row.stats), word


def test_every_fate_the_trail_writes_is_a_fate_member() -> None:
    """The trail's one writer of a record's fate takes a Fate (mypy holds its callers to
    it); the end line counts and every reader checks the same words, in the same order."""
    assert lines.FATES == read.FATES == tuple(Fate) == tuple(map(str, Fate))
    fate = inspect.signature(AuditState._final).parameters["fate"]
    assert fate.annotation in (Fate, "Fate")
    end = lines.end_line("run", "finished", {Fate.FETCHED: 2, "failed": 1}, 3)
    assert [key for key in end["counts"] if key in set(Fate)] == list(Fate)
    assert (end["counts"]["url"], end["counts"]["fetched"]) == (3, 2)
    assert {row.fate for row in REASONS.values()} - {None} <= set(Fate)
    assert set(FATE_PHRASES) == set(Fate) - {Fate.REFUSED}


def test_the_trails_refused_by_words_are_the_rows() -> None:
    """As the trail has always written them (another add-on's reason: its own word)."""
    assert dict(lines.REFUSED_BY) == {
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
        entry = UrlEntry(f"https://a.example/{number}")
        report.settled(entry, Fate.REFUSED, {"why": f"said {word}"}, word)
    report.settled(UrlEntry("https://a.example/other"), Fate.REFUSED, {"why": "said"}, "another")
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
