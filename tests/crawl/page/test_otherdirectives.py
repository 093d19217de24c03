"""What a page holds for other crawlers, described (scrapy_rep/crawl/page/otherdirectives.py;
``scrapy rep-robots --page`` itself: tests/integration/test_commands_page_scoped.py)."""

from __future__ import annotations

from scrapy_rep.crawl.page.otherdirectives import describe_sources


def test_sources_that_apply_are_listed_as_before() -> None:
    assert describe_sources(("X-Robots-Tag: noindex",), object()) == "X-Robots-Tag: noindex"
