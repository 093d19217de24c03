"""page_directives() per response, against a plain parsel/lxml parse of the same page.

Real-looking pages of 10 KB, 100 KB and 1 MB (nested divs, paragraphs, links, scripts),
with and without a robots meta tag. Every timing builds a fresh HtmlResponse, so the
cached selector of one run never helps the next. Targets (docs/decisions.md, 'Cost targets:
no dearer than Scrapy's own handling'): on pages without a robots meta tag at least 20×
cheaper than a parse; with one, no more than one parse (ratio ≈ 1: the parse is the
response's own selector, which the spider then reuses).

Usage: ``python benchmarks/directives.py``
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from parsel import Selector
from scrapy.http import HtmlResponse

from scrapy_rep import page_directives

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


def main() -> None:
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


if __name__ == "__main__":
    main()
