"""What the tools' crawl told of each URL asked about, read from the URL ledger's settled
entries (the tools' output of real crawls: tests/integration/test_tools_crawl.py)."""

from __future__ import annotations


def test_the_tools_read_each_verdict_and_a_redirects_hop_from_the_settled_entries() -> None:
    from rep_engine.records import Fate, PageOutput, Reason, UrlEntry, describe
    from rep_engine.verdict.decide import UNCHECKED, Refused
    from scrapy_rep.crawl.commands.toolcrawl import Asked, ToolRun

    run = ToolRun([Asked("http://a.test/old"), Asked("http://a.test/page")])
    run.expect("http://a.test/old", 0)
    run.expect("http://a.test/page", 1)
    refused = Refused(Reason.FORBIDDEN, "Forbidden by line 2", "robots.txt", "bot")
    old = UrlEntry("http://a.test/old", fate=Fate.REDIRECTED, to="http://a.test/new")
    old.decision = (UNCHECKED, None)
    run.settled(old)
    new = UrlEntry("http://a.test/new", fate=Fate.REFUSED, reason=Reason.FORBIDDEN)
    new.decision = (refused, None)
    run.settled(new)
    page = PageOutput()
    page.item_refused(Reason.NOINDEX, "noindex by header")
    run.settled(UrlEntry("http://a.test/page", fate=Fate.FETCHED, output=page))
    other = UrlEntry("http://a.test/other", fate=Fate.FETCHED, output=PageOutput())
    run.settled(other)  # not asked
    assert (run.asked[0].entry, run.asked[0].hop) == (old, new)  # the entries, as settled
    assert run.asked[0].page is new and describe(new).refused
    page_entry = run.asked[1].entry
    assert page_entry is not None and page_entry.decision is None
    said = describe(page_entry)
    assert (said.dropped, said.why, said.kept) == (True, "noindex by header", 0)


def test_a_page_is_kept_only_when_its_item_reached_the_crawls_end() -> None:
    """The page pass passing the item on is not "kept": a later component may drop it;
    the page's output as the URL ledger settled it says how many reached the end."""
    from rep_engine.records import Fate, PageOutput, UrlEntry, describe
    from scrapy_rep.crawl.commands.toolcrawl import Asked, ToolRun

    run = ToolRun([Asked("http://a.test/lost"), Asked("http://a.test/kept")])
    run.expect("http://a.test/lost", 0)
    run.expect("http://a.test/kept", 1)
    lost, kept = PageOutput(), PageOutput()
    lost.passed = kept.passed = kept.kept = 1  # passed on; only the second reached the end
    run.settled(UrlEntry("http://a.test/lost", fate=Fate.FETCHED, output=lost))
    run.settled(UrlEntry("http://a.test/kept", fate=Fate.FETCHED, output=kept))
    lost_page, kept_page = run.asked[0].page, run.asked[1].page
    assert lost_page is not None and kept_page is not None
    assert (describe(lost_page).kept, describe(lost_page).dropped) == (0, False)
    assert describe(kept_page).kept == 1
