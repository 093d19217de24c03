"""What a page holds for other crawlers, described (scrapy_rep/crawl/commands/toolcrawl.py;
``scrapy rep-robots --page`` itself: tests/integration/test_commands_page_scoped.py)."""

from __future__ import annotations

from scrapy_rep.crawl.commands.toolcrawl import describe_sources
from tests.support.fakes import article_page


def test_sources_that_apply_are_listed_as_before() -> None:
    assert describe_sources(("X-Robots-Tag: noindex",), object()) == "X-Robots-Tag: noindex"


def test_scrapy_robots_page_names_another_crawlers_noml_meta_tag() -> None:
    """``scrapy rep-robots --page`` lists what a page says to other crawlers when nothing
    applied to ours: a meta tag is listed when it holds a robots directive."""
    response = article_page('<meta name="otherbot" content="noml">')
    assert describe_sources((), response) == (
        'none for this crawler; for other crawlers: <meta name="otherbot" content="noml">'
    )
