"""A page's robots meta tags are read as a browser decodes the page (WHATWG HTML
§13.2.3.2: a UTF-16 label read as Python reads it lost a noindex): a crawl drops the items of every
page of tests/support/charsetpages.py, and headless Chromium (Debian's ``chromium``;
without it the test skips, saying so, unless ``REP_REQUIRE_CHROMIUM=1``) decodes each
page with the codec we say, and sees no robots tag we miss."""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

import pytest_twisted
from scrapy.http import HtmlResponse

from rep_engine.directives._metascan import byte_transparent
from rep_engine.directives._sniffing import html_codec
from scrapy_rep.crawl.page.pagereader import meta_tags
from tests.support.browser import browse, chromium
from tests.support.charsetpages import CHARSET_PAGES
from tests.support.localhttp import QuietHandler, serving
from tests.support.robotsite import ItemSpider, Reply, Sites, collecting_items, crawl, robots, stat

PATHS = {name: f"/{number}" for number, name in enumerate(CHARSET_PAGES)}


@pytest_twisted.ensureDeferred
async def test_the_crawl_drops_the_items_of_every_noindex_page_in_any_declared_encoding() -> None:
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    for name, path in PATHS.items():
        page = CHARSET_PAGES[name]
        site.script(path, Reply(200, page.body, {"Content-Type": page.content_type}))
    items: list[dict[str, str]] = []
    try:
        crawler, spider = await crawl(
            [sites.url("a", path) for path in PATHS.values()],
            spider=ItemSpider,
            on_crawler=collecting_items(items),
        )
    finally:
        await sites.close()
    assert len(spider.downloaded) == len(PATHS)
    assert items == []
    assert stat(crawler, "rep/items/dropped/noindex") == len(PATHS)


#: Loads every page in a frame and writes, per frame, the encoding Chromium decoded it
#: with and whether it holds the robots noindex tag.
_FRAMES_SCRIPT = """<script>window.onload = function () {
  const seen = {};
  for (const frame of document.querySelectorAll("iframe")) {
    const page = frame.contentDocument;
    seen[frame.id] = [page.characterSet,
                      !!page.querySelector('meta[name="robots"][content="noindex"]')];
  }
  document.getElementById("seen").textContent = JSON.stringify(seen);
};</script>"""


class _Pages(QuietHandler):
    def do_GET(self) -> None:
        if self.path == "/":
            frames = "".join(f'<iframe id="f{p[1:]}" src="{p}"></iframe>' for p in PATHS.values())
            body = (
                f'<html><head><meta charset="utf-8">{_FRAMES_SCRIPT}</head>'
                f'<body><pre id="seen"></pre>{frames}</body></html>'
            )
            self.send(200, body.encode(), {"Content-Type": "text/html; charset=utf-8"})
            return
        for name, path in PATHS.items():
            if self.path == path:
                page = CHARSET_PAGES[name]
                self.send(200, page.body, {"Content-Type": page.content_type})
                return
        self.send(404, b"")


def test_chromium_decodes_each_page_as_we_say_and_sees_no_tag_we_miss(tmp_path: Path) -> None:
    chromium()  # skips, saying why, where it is not installed
    with serving(_Pages) as port:
        dom = browse(
            tmp_path, f"http://127.0.0.1:{port}/", "--dump-dom", "--virtual-time-budget=10000"
        )
    found = re.search(r'<pre id="seen">(.*?)</pre>', dom, re.S)
    assert found is not None and found.group(1), dom[-2000:]
    seen = json.loads(found.group(1).replace("&quot;", '"'))
    for name, path in PATHS.items():
        page = CHARSET_PAGES[name]
        charset, noindex = seen[f"f{path[1:]}"]
        ours = html_codec(page.content_type, page.body)
        if charset == "replacement":
            assert ours is None, name
        elif page.undeclared:
            # The browser's default or its guess: an ASCII-compatible one, as ours is.
            assert ours is not None and byte_transparent(ours), name
            assert byte_transparent(charset), (name, charset)
        else:
            assert ours is not None, name
            assert codecs.lookup(ours).name == codecs.lookup(charset).name, (name, charset)
        response = HtmlResponse(
            "http://127.0.0.1/", body=page.body, headers={"Content-Type": page.content_type}
        )
        if noindex:
            assert ("robots", "noindex") in meta_tags(response, {"robots"}), name
