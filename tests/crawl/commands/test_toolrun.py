"""What the tools' crawl told of each URL asked about, read from the URL ledger's settled
entries (the tools' output of real crawls: tests/integration/test_tools_crawl.py)."""

from __future__ import annotations


def test_the_tools_read_each_verdict_and_a_redirects_hop_from_the_settled_entries() -> None:
    from rep_engine.records import Fate, Reason, UrlEntry
    from rep_engine.verdict.decide import UNCHECKED, Refused
    from scrapy_rep.crawl.commands.toolrun import Asked, ToolRun
    from scrapy_rep.crawl.ledger import PageLedger

    run = ToolRun([Asked("http://a.test/old"), Asked("http://a.test/page")])
    run.expect("http://a.test/old", 0)
    run.expect("http://a.test/page", 1)
    refused = Refused(Reason.FORBIDDEN, "Forbidden by line 2", "robots.txt", "bot")
    old = UrlEntry("http://a.test/old", decision=(UNCHECKED, None))  # type: ignore[arg-type]
    run.settled(old, Fate.REDIRECTED, {"to": "http://a.test/new"}, None)
    new = UrlEntry("http://a.test/new", decision=(refused, None))  # type: ignore[arg-type]
    run.settled(new, Fate.REFUSED, {}, Reason.FORBIDDEN)
    page = PageLedger()
    page.item_refused(Refused(Reason.NOINDEX, "noindex by header", "page", "bot"))
    run.settled(UrlEntry("http://a.test/page"), Fate.FETCHED, {}, page)
    run.settled(UrlEntry("http://a.test/other"), Fate.FETCHED, {}, PageLedger())  # not asked
    assert (run.asked[0].verdict, run.asked[0].hop) == (UNCHECKED, ("http://a.test/new", refused))
    assert (run.asked[1].verdict, run.asked[1].dropped, run.asked[1].kept) == (
        None, "noindex by header", False,
    )  # fmt: skip


def test_a_page_is_kept_only_when_its_item_reached_the_crawls_end() -> None:
    """The page pass passing the item on is not "kept": a later component may drop it;
    the page's ledger as the URL ledger settled it says how many reached the end."""
    from rep_engine.records import Fate, UrlEntry
    from scrapy_rep.crawl.commands.toolrun import Asked, ToolRun
    from scrapy_rep.crawl.ledger import PageLedger

    run = ToolRun([Asked("http://a.test/lost"), Asked("http://a.test/kept")])
    run.expect("http://a.test/lost", 0)
    run.expect("http://a.test/kept", 1)
    lost, kept = PageLedger(), PageLedger()
    lost.passed = kept.passed = kept.kept = 1  # passed on; only the second reached the end
    run.settled(UrlEntry("http://a.test/lost"), Fate.FETCHED, {}, lost)
    run.settled(UrlEntry("http://a.test/kept"), Fate.FETCHED, {}, kept)
    assert (run.asked[0].kept, run.asked[0].dropped) == (False, "")
    assert run.asked[1].kept
