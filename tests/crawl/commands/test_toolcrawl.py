"""The tools' crawl (scrapy_rep/crawl/commands/toolcrawl.py) without a crawl: the waits it
gives an unreachable document (the crawl with the same files: tests/integration/)."""

from __future__ import annotations

import pytest

from rep_engine.fetch.rules import FailureClass, Policy
from rep_engine.settings import RepConfig
from scrapy_rep.crawl.commands.toolcrawl import unreachable_waits
from tests.support.lifecycles import POLICIES, given_up


@pytest.mark.parametrize("numbers", POLICIES, ids=lambda n: "-".join(map(str, n)))
@pytest.mark.parametrize("failure", list(FailureClass), ids=lambda f: f.value)
def test_the_tools_crawl_gives_up_at_once_with_the_crawls_verdict(
    numbers: tuple[float, float, str], failure: FailureClass
) -> None:
    """For every failure and every setting of the waits and the action, the tools' crawl
    (its waits run at once) gives up with the verdict the crawl gives after its own."""
    max_wait, connect_max_wait, action = numbers
    crawl = Policy(
        retry_delay=10.0, max_wait=max_wait, connect_max_wait=connect_max_wait,
        unreachable_action=action,
    )  # fmt: skip
    config = RepConfig.from_settings(
        {
            "REP_UNREACHABLE_MAX_WAIT": max_wait,
            "REP_UNREACHABLE_CONNECT_MAX_WAIT": connect_max_wait,
            "REP_UNREACHABLE_ACTION": action,
        }
    )
    waits = unreachable_waits(config)
    tools = Policy(
        retry_delay=waits.get("REP_UNREACHABLE_RETRY_DELAY", 10.0),
        max_wait=waits["REP_UNREACHABLE_MAX_WAIT"],
        connect_max_wait=waits["REP_UNREACHABLE_CONNECT_MAX_WAIT"],
        unreachable_action=action,
    )
    crawl_allows = given_up(crawl, failure).entry.rules.verdict is True
    assert (given_up(tools, failure).entry.rules.verdict is True) is crawl_allows
    # one download when nothing tells the failures apart, two at most
    assert tools.wait_limit(failure) <= 0.001


def test_the_tools_crawl_keeps_the_ledger_and_writes_nothing() -> None:
    """What a tool prints is read from the crawl's URL ledger (REP_LEDGER), which keeps no
    trail and no report even when the project sets them."""
    from scrapy.settings import Settings

    from scrapy_rep.checker import ToolRequest
    from scrapy_rep.crawl.commands.toolcrawl import tools_settings

    project = Settings({"REP_AUDIT_FILE": "trail.jsonl", "REP_REPORT": True})
    asked = ToolRequest(("http://a.test/",), {}, pages=False, timeout=5.0)
    config = RepConfig.from_settings(tools_settings(asked, project))
    assert config.ledger
    assert (config.audit_file, config.report, config.report_file) == ("", False, "")


def test_the_tools_crawl_exports_no_item_to_a_feed_of_the_project() -> None:
    """A project's deprecated ``FEED_URI`` (Scrapy 2.19 still exports to it) would get the
    tools' items (one per page fetched) over the project's own file: it is off in the
    tools' crawl, as ``FEEDS`` is, and as in a recheck's."""
    from scrapy.settings import Settings

    from scrapy_rep.checker import ToolRequest
    from scrapy_rep.crawl.commands.recheck_crawl import crawl_settings
    from scrapy_rep.crawl.commands.toolcrawl import tools_settings

    project = {"FEED_URI": "items.jsonl", "FEEDS": {"items.jsonl": {"format": "jsonlines"}}}
    asked = ToolRequest(("http://a.test/",), {}, pages=True, timeout=5.0)
    for settings in (tools_settings(asked, Settings(project)), Settings(crawl_settings(project))):
        assert settings["FEED_URI"] is None and not settings.getdict("FEEDS")
