"""A tdmrep.json over 500 KiB in a real ai-train crawl (SPEC §4 cap; docs/purpose-notes.md
§7, choice 8).

The download stops after 500 KiB and parses what came (docs/purpose-notes.md, choice 8:
the entries before the cut are kept). A page reserved by entry 1 of a 2 MB file, or of a
file that never ends, is not fetched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import reactor
from twisted.web.server import NOT_DONE_YET, Site
from twisted.web.server import Request as WebRequest

from rep_engine.fetch.kinds import TDMREP
from tests.support.robotsite import Reply, ScriptedOrigin, Sites, crawl, robots

FIRST = b'[{"location": "/books/*", "tdm-reservation": 1}'
FILLER = b', {"location": "/filler/x", "tdm-reservation": 0}'
#: The endless file stops by itself after this much (the test must not run away).
SAFETY_CAP = 64 * 1024 * 1024


class EndlessOrigin(ScriptedOrigin):
    """Serves tdmrep.json as an array that never ends (until the client hangs up)."""

    def render_GET(self, request: WebRequest) -> bytes | int:
        if request.uri.decode() != TDMREP.path:
            return super().render_GET(request)
        self.log.append((self.name, TDMREP.path))
        request.setHeader("Content-Type", "application/json")
        request.write(FIRST)
        sent = [len(FIRST)]

        def more() -> None:
            if request.finished or request._disconnected:
                return
            if sent[0] > SAFETY_CAP:
                request.finish()
                return
            chunk = FILLER * 256
            request.write(chunk)
            sent[0] += len(chunk)
            reactor.callLater(0.001, more)  # type: ignore[attr-defined]

        more()
        return NOT_DONE_YET


def add_endless(sites: Sites, name: str) -> ScriptedOrigin:
    origin = EndlessOrigin(name, sites.log)
    port = reactor.listenTCP(0, Site(origin), interface="127.0.0.1")  # type: ignore[attr-defined]
    sites._ports.append(port)
    sites.origins[name] = origin
    sites.bases[name] = f"http://127.0.0.1:{port.getHost().port}"
    return origin


def huge_file() -> bytes:
    entries: list[dict[str, Any]] = [{"location": "/books/*", "tdm-reservation": 1}]
    entries += [{"location": f"/filler/{i}", "tdm-reservation": 0} for i in range(40_000)]
    body = json.dumps(entries).encode()
    assert len(body) > 4 * 512_000
    return body


@pytest.mark.parametrize("served", ["2 MB file", "endless file"])
@pytest_twisted.ensureDeferred
async def test_a_page_reserved_by_entry_1_of_a_huge_tdmrep_json_is_not_fetched(
    served: str, tmp_path: Path
) -> None:
    sites = Sites()
    if served == "endless file":
        origin = add_endless(sites, "a")
    else:
        origin = sites.add("a")
        origin.script(TDMREP.path, Reply(200, huge_file(), {"Content-Type": "application/json"}))
    origin.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    urls = [sites.url("a", "/books/1"), sites.url("a", "/free")]
    try:
        crawler, spider = await crawl(urls, {"REP_PURPOSE": "ai-train"})
    finally:
        await sites.close()
    assert spider.downloaded == [sites.url("a", "/free")]
    assert list(spider.dropped) == [sites.url("a", "/books/1")]
    assert "tdmrep.json entry 1" in spider.dropped[sites.url("a", "/books/1")]
    assert crawler.stats.get_value("rep/tdmrep/outcome/truncated") == 1
    assert [p for p in sites.requested("a") if p.startswith("/books")] == []
