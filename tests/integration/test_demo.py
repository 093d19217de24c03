"""The example project's demo crawl, in-process on 127.0.0.1, asserted URL by URL.

It runs the project's own settings and spider against the embedded demo site, then
checks what happened to every URL, what reached the servers, and that the report in the
documentation (docs/demo.md) is the report the crawl prints.
"""

from __future__ import annotations

import copy
import re
import sys
from typing import Any

import pytest
import pytest_twisted
from scrapy import signals
from scrapy.utils.test import get_crawler

from scrapy_rep.crawl.report import RepReport
from scrapy_rep.crawl.report import said_of as _said
from tests.support.demoreport import PORTS, documented_report
from tests.support.paths import EXAMPLE_PROJECT

PROJECT = EXAMPLE_PROJECT

KEPT = "downloaded (200); 1 item kept"
#: Every URL the demo meets, by origin name and path, and what must happen to it.
EXPECTED: dict[tuple[str, str], str] = {
    ("shop", "/"): KEPT + '; 1 link not followed (rel="nofollow")',
    ("shop", "/ads/landing"): 'Not followed: {shop}/ links to it only with rel="nofollow"',
    ("shop", "/api/items.json"): "Forbidden by {shop}/robots.txt (line 9: Disallow: /*.json$)",
    ("shop", "/api/items.json?v=2"): KEPT,
    ("shop", "/community/post"): KEPT,
    ("shop", "/expired"): "downloaded (200); 1 item dropped (unavailable_after by "
    '<meta name="robots" content="unavailable_after: 2020-01-01">)',
    ("shop", "/files/catalogue.pdf"): "downloaded (200); 1 item dropped (noindex by header "
    "X-Robots-Tag: none)",
    ("shop", "/fresh"): KEPT,
    ("shop", "/nofollow"): KEPT + "; 1 link not followed (the page says nofollow)",
    ("shop", "/noindex"): "downloaded (200); 1 item dropped (noindex by "
    '<meta name="robots" content="noindex">)',
    ("shop", "/private/accounts"): "Forbidden by {shop}/robots.txt (line 6: Disallow: /private/)",
    ("shop", "/private/press/"): KEPT,
    ("shop", "/products/1"): KEPT,
    ("shop", "/products/2"): KEPT,
    ("shop", "/products/3"): KEPT,  # linked from the noindex page: followed
    ("shop", "/products/4"): "Not followed: {shop}/nofollow says nofollow",
    ("shop", "/products/5"): "Not followed: {shop}/scoped says nofollow",
    ("shop", "/products?sort=price"): "Forbidden by {shop}/robots.txt (line 8: Disallow: /*?sort=)",
    ("shop", "/scoped"): KEPT + "; 1 link not followed (the page says nofollow)",
    ("open", "/"): KEPT,
    ("open", "/anything/goes"): KEPT,
    ("flaky", "/"): "held while robots.txt was unreachable (1 failed download), then released; "
    + KEPT,
    ("flaky", "/drafts/1"): "Forbidden by {flaky}/robots.txt (line 2: Disallow: /drafts/)",
    ("flaky", "/page"): KEPT,
    ("moved", "/"): KEPT,
    ("moved", "/public"): KEPT,
    ("moved", "/secret/plan"): "Forbidden by {moved}/robots.txt (line 2: Disallow: /secret/)",
    ("ai", "/"): KEPT,
    ("ai", "/articles/1"): KEPT,
    ("ai", "/open-data/set"): KEPT,
    ("ai", "/books/1"): KEPT,
    ("ai", "/header"): KEPT,
    ("ai", "/tdm-meta"): KEPT,
    ("ai", "/noai"): KEPT,
}
_CU = "robots.txt line {line}: Content-Usage: {value}"
#: The same crawl for ``REP_PURPOSE = "ai-train"``: what differs from the search crawl.
EXPECTED_AI_TRAIN: dict[tuple[str, str], str] = {
    **EXPECTED,
    ("moved", "/"): "Not fetched: ai-train denied by robots.txt line 3: Content-Signal: "
    "search=yes, ai-train=no",
    ("moved", "/public"): None,  # type: ignore[dict-item]  # never linked: / not fetched
    ("moved", "/secret/plan"): None,  # type: ignore[dict-item]
    ("ai", "/articles/1"): "Not fetched: ai-train denied by "
    + _CU.format(line=4, value="/articles/ train-ai=n"),
    ("ai", "/books/1"): 'Not fetched: ai-train denied by tdmrep.json entry 1 (location "/books/*")',
    ("ai", "/header"): "downloaded (200); 1 item dropped (ai-train denied by header "
    "Content-Usage: train-ai=n)",
    ("ai", "/tdm-meta"): "downloaded (200); 1 item dropped (ai-train denied by "
    '<meta name="tdm-reservation" content="1">)',
    ("ai", "/noai"): "downloaded (200); 1 item dropped (ai-train denied by "
    '<meta name="robots" content="noai">)',
}
EXPECTED_AI_TRAIN = {key: fate for key, fate in EXPECTED_AI_TRAIN.items() if fate is not None}


@pytest.fixture
def demo_project(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(PROJECT))
    for name in [m for m in sys.modules if m == "demo" or m.startswith("demo.")]:
        monkeypatch.delitem(sys.modules, name)
    import demo.settings
    from demo.spiders.demo import DemoSpider

    settings = {name: getattr(demo.settings, name) for name in dir(demo.settings) if name.isupper()}
    return DemoSpider, settings


@pytest.mark.parametrize("purpose", ["search", "ai-train"])
@pytest_twisted.ensureDeferred
async def test_demo_crawl_does_what_the_docs_say_url_by_url(
    demo_project: Any, purpose: str
) -> None:
    spider_class, settings = demo_project
    crawler = get_crawler(spider_class, {**settings, "LOG_LEVEL": "INFO", "REP_PURPOSE": purpose})
    items: list[dict[str, Any]] = []

    def collect(item: dict[str, Any], **_: Any) -> None:
        items.append(item)

    crawler.signals.connect(collect, signal=signals.item_scraped)
    await crawler.crawl()
    spider = crawler.spider
    site = spider.site  # type: ignore[union-attr]
    bases = site.bases
    report = next(e for e in crawler.extensions.middlewares if isinstance(e, RepReport))

    table = EXPECTED if purpose == "search" else EXPECTED_AI_TRAIN
    expected = {bases[name] + path: fate.format(**bases) for (name, path), fate in table.items()}
    actual = {url: "; ".join(_said(record)) for url, record in report.urls.items()}
    assert actual == expected

    # Forbidden and not-followed URLs never reached a server; the rest did, once each.
    for (name, path), fate in table.items():
        hits = site.origins[name].hits.count(path)
        assert hits == (1 if fate.startswith(("downloaded", "held")) else 0), (name, path)
    # One robots.txt per origin; the flaky one twice (503, then 200).
    assert [site.origins[n].hits.count("/robots.txt") for n in bases] == [1, 1, 2, 1, 1]
    # tdmrep.json: once per origin for AI training, never for search.
    tdm = [site.origins[n].hits.count("/.well-known/tdmrep.json") for n in bases]
    assert tdm == ([0] * 5 if purpose == "search" else [1, 1, 1, 1, 1])
    assert {item["url"] for item in items} == {
        url for url, fate in expected.items() if "item kept" in fate
    }
    assert report.origins[bases["shop"]].crawl_delay == 0.2
    assert report.origins[bases["shop"]].sitemaps == (bases["shop"] + "/sitemap.xml",)

    # docs/demo.md shows this very report (its ports are the preferred 8301-8305).
    printed = as_on_preferred_ports(report, dict(zip(bases.values(), PORTS, strict=True)))
    documented = documented_report("" if purpose == "search" else " ai-train")
    if [int(base.rsplit(":", 1)[1]) for base in bases.values()] != list(PORTS):
        # A busy preferred port: the robots.txt bodies name other ports, so their sizes
        # may differ by a few bytes from the documented run's.
        printed, documented = (re.sub(r"\(\d+ bytes", "(N bytes", t) for t in (printed, documented))
    assert printed == documented


def as_on_preferred_ports(report: RepReport, ports: dict[str, int]) -> str:
    """The report as it reads when each origin (``base -> preferred port``) has its
    preferred port: the bases replaced in one pass, and the origins and URLs sorted again
    (when a preferred port was busy, the actual ports sort in another order)."""
    preferred = {base: f"http://127.0.0.1:{port}" for base, port in ports.items()}
    pattern = re.compile("|".join(map(re.escape, sorted(preferred, key=len, reverse=True))))

    def moved(text: str) -> str:
        return pattern.sub(lambda match: preferred[match.group(0)], text)

    shown = copy.copy(report)
    shown.origins = {moved(url): record for url, record in report.origins.items()}
    shown.urls = {moved(url): record for url, record in report.urls.items()}
    return moved(shown.render())
