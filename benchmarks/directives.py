"""page_directives() per response, against a plain parsel/lxml parse of the same page.

Real-looking pages of 10 KB, 100 KB and 1 MB (nested divs, paragraphs, links, scripts),
with and without a robots meta tag. Every timing builds a fresh HtmlResponse, so the
cached selector of one run never helps the next. Targets (docs/decisions.md, 'Cost targets:
no dearer than Scrapy's own handling'): on pages without a robots meta tag at least 20×
cheaper than a parse; with one, no more than one parse (ratio ≈ 1: the parse is the
response's own selector, which the spider then reuses).

``--count``: no timing, counts (the machine's load cannot move them): Python function
calls per page (cProfile's call counts) of the page pass (the spider middleware's
``process_spider_input``, which reads the page's directives and usage) and of the page
reader alone (``read_statements``: before the table of signals, ``read_page``), and lxml
parses per 1,000 pages (of the whole page, and of one tag), over 1,000 pages shaped like
``benchmarks/crawl.py --real-pages`` (10 links, a ``<meta charset>``, a title): one in ten
with a robots meta tag, none with one, every one with one, one in ten with one whose name
is written with a character reference, pages with other meta names only (description,
viewport, Open Graph), and pages that say "robots" in their text only. Each scenario has
its own middleware, warmed on 20 other pages first, and fresh responses. ``--code DIR``
imports another checkout's scrapy_rep (before/after).

Usage: ``python benchmarks/directives.py [--count [--code DIR]]``
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

SIZES = {"10 KB": 10_000, "100 KB": 100_000, "1 MB": 1_000_000}


def make_page(size: int, with_meta: bool, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit"]
    head = '<meta charset="utf-8"><title>Page</title><link rel="stylesheet" href="/s.css">'
    if with_meta:
        head += '<meta name="robots" content="noindex, max-snippet:50">'
    head += "<script>var config = {a: 1, b: [1, 2, 3]};</script>"
    parts = [f"<!DOCTYPE html><html><head>{head}</head><body><div class='main'>"]
    length = sum(map(len, parts))
    while length < size:
        text = " ".join(rng.choice(words) for _ in range(30))
        block = (
            f"<div class='card'><h2>{text[:20]}</h2><p>{text}</p>"
            f"<a href='/item/{rng.randrange(10**6)}'>{text[:15]}</a></div>"
        )
        parts.append(block)
        length += len(block)
    parts.append("</div></body></html>")
    return "".join(parts).encode()


def median_time(function: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def timings() -> None:
    from parsel import Selector
    from scrapy.http import HtmlResponse

    from scrapy_rep import page_directives

    print(
        "| page | plain parse (parsel) | page_directives, no robots meta | ratio | "
        "page_directives, with robots meta | ratio |"
    )
    print("|---|---|---|---|---|---|")
    for label, size in SIZES.items():
        repeat = 50 if size <= 100_000 else 10
        plain, meta = make_page(size, False), make_page(size, True)
        parse = median_time(lambda body=plain: Selector(text=body.decode()).xpath("//meta"), repeat)
        without = median_time(
            lambda body=plain: page_directives(
                HtmlResponse("https://e.com/", body=body, encoding="utf-8"), "mybot"
            ),
            repeat,
        )
        with_meta = median_time(
            lambda body=meta: page_directives(
                HtmlResponse("https://e.com/", body=body, encoding="utf-8"), "mybot"
            ),
            repeat,
        )
        print(
            f"| {label} | {parse * 1000:.3f} ms | {without * 1000:.3f} ms | "
            f"{parse / without:.0f}× cheaper | {with_meta * 1000:.3f} ms | "
            f"{with_meta / parse:.2f}× a parse |"
        )


# --- --count -----------------------------------------------------------------------------

PAGES = 1000
ROBOTS_META = b'<meta name="robots" content="noarchive">'
OTHER_METAS = (
    b'<meta name="viewport" content="width=device-width, initial-scale=1">'
    b'<meta name="description" content="Some text about the item, enough to look real.">'
    b'<meta property="og:title" content="Page"><meta name="twitter:card" content="summary">'
)


def scenario_pages(scenario: str, count: int, first: int = 0) -> list[bytes]:
    """``count`` bodies of ``scenario``, shaped like ``crawl.py --real-pages``'s."""
    sys.path.insert(0, str(HERE))
    import crawl

    crawl.REAL_PAGES = True
    bodies = []
    for number in range(first, first + count):
        body = crawl.page_body(f"/p/{number}", PAGES).replace(ROBOTS_META, b"")
        if (scenario == "one in ten" and number % 10 == 0) or scenario == "every page":
            body = body.replace(b"</title>", b"</title>" + ROBOTS_META)
        elif scenario == "one in ten, r&#111;bots" and number % 10 == 0:
            body = body.replace(b"</title>", b"</title>" + ROBOTS_META.replace(b"o", b"&#111;", 1))
        elif scenario == "other names":
            body = body.replace(b"</title>", b"</title>" + OTHER_METAS)
        elif scenario == "robots in the text":
            body = body.replace(b"</ul>", b'</ul><p><a href="/robots.txt">robots.txt</a></p>')
        bodies.append(body)
    return bodies


SCENARIOS = (
    "one in ten",
    "none",
    "every page",
    "one in ten, r&#111;bots",
    "other names",
    "robots in the text",
)


def responses(bodies: list[bytes]) -> list[Any]:
    from scrapy import Request
    from scrapy.http import HtmlResponse

    made = []
    for number, body in enumerate(bodies):
        url = f"https://e.com/p/{number}"
        response = HtmlResponse(
            url, body=body, headers={"Content-Type": "text/html; charset=utf-8"}
        )
        response.request = Request(url)  # type: ignore[misc]
        made.append(response)
    return made


def calls(function: Callable[[Any], object], items: list[Any]) -> int:
    """cProfile's count of every function call (Python and built-in) over ``items``; the
    earlier pages' garbage (a parsed page's selector is a cycle) is collected first, so
    that its weak references' callbacks are not counted here."""
    gc.collect()
    profile = cProfile.Profile()
    profile.enable()
    for item in items:
        function(item)
    profile.disable()
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


def parses(function: Callable[[Any], object], items: list[Any]) -> tuple[int, int]:
    """How many times lxml parsed a whole page (parsel's root node) and in all."""
    import parsel.selector
    from lxml import etree

    counts = {"page": 0, "all": 0}
    page_parse, any_parse = parsel.selector.create_root_node, etree.fromstring

    def counting_page(*args: Any, **kwargs: Any) -> Any:
        counts["page"] += 1
        return page_parse(*args, **kwargs)

    def counting_any(*args: Any, **kwargs: Any) -> Any:
        counts["all"] += 1
        return any_parse(*args, **kwargs)

    parsel.selector.create_root_node = counting_page
    etree.fromstring = counting_any
    try:
        for item in items:
            function(item)
    finally:
        parsel.selector.create_root_node = page_parse
        etree.fromstring = any_parse
    return counts["page"], counts["all"]


def count() -> None:
    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    import scrapy_rep
    from scrapy_rep.crawl.page import pagereader
    from scrapy_rep.crawl.page.spidermiddlewares import PageDirectivesMiddleware

    # The reader: what the page says, as the table of signals reads it (read_statements);
    # a checkout from before the table (--code) has read_page, which also combined them.
    reader_of = getattr(pagereader, "read_statements", None) or pagereader.read_page

    print(f"scrapy_rep from {Path(scrapy_rep.__file__).parent}")
    print(
        "| pages (1,000) | calls per page, page pass | calls per page, reader | "
        "lxml parses of a page | of one tag |"
    )
    print("|---|---|---|---|---|")
    for scenario in SCENARIOS:
        crawler = get_crawler(Spider, {"USER_AGENT": "MyBot/1.0"})
        crawler.spider = Spider("count")
        middleware = PageDirectivesMiddleware.from_crawler(crawler)
        for response in responses(scenario_pages(scenario, 20, first=PAGES)):
            middleware.process_spider_input(response)  # warm: caches, first use
        bodies = scenario_pages(scenario, PAGES)
        page_pass = calls(middleware.process_spider_input, responses(bodies))
        reader = calls(partial(reader_of, tokens=middleware.tokens), responses(bodies))
        page, every = parses(middleware.process_spider_input, responses(bodies))
        print(
            f"| {scenario} | {page_pass / PAGES:.1f} | {reader / PAGES:.1f} | "
            f"{page} | {every - page} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", action="store_true", help="call and parse counts, no timing")
    parser.add_argument("--code", help="a checkout whose scrapy_rep to import (with --count)")
    args = parser.parse_args()
    if args.code:
        sys.path.insert(0, str(Path(args.code).resolve()))
    if args.count:
        count()
    else:
        timings()


if __name__ == "__main__":
    main()
