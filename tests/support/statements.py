"""What a page says, as the engine takes it (:class:`~rep_engine.verdict.page.PageStatements`:
its header fields and its meta tags), for the engine's tests of what a page's words mean.
The crawl's page reader reads the same from a Scrapy response
(scrapy_rep/crawl/page/pagereader.py; its tests, on fake responses: tests/crawl/page/)."""

from __future__ import annotations

from rep_engine.directives import PageDirectives
from rep_engine.robotstxt.useragent import crawler_name
from rep_engine.verdict.page import PageFacts, PageRules, PageStatements, decide_page

#: The URL of the article page.
ARTICLE = "https://example.com/art/1"


def page_says(*meta: tuple[str, str], headers: dict[str, str] | None = None) -> PageStatements:
    """What a page says in its meta tags (``(name, content)`` each) and its header fields,
    as the page reader hands them on: names lowercased, values as written."""
    fields = tuple((name.lower(), value) for name, value in (headers or {}).items())
    tags = tuple((name.strip().lower(), content) for name, content in meta)
    return PageStatements(fields, tags)


def page_directives_of(statements: PageStatements, user_agent: str = "mybot") -> PageDirectives:
    """The directives of a page that says ``statements`` that apply to ``user_agent`` (a
    product token or a full User-Agent), as the page reader's ``page_directives`` gives
    them: :func:`~rep_engine.verdict.page.decide_page` under no purpose."""
    facts = PageFacts(ARTICLE, (crawler_name(user_agent),))
    return decide_page(facts, statements, PageRules()).directives
