"""Each document's 500 KiB is counted on its own while several download at once (SPEC §4,
RFC 9309 §2.5: 500 KiB is the least a crawler reads).

Two origins each serve a robots.txt of about 400 KB whose last line disallows
``/private``, a tdmrep.json of about 420 KB that reserves ``/first/`` in entry 1 and
``/last/`` near its end, and a 300 KB RSL license that permits everything. The servers
hold the second half of each large body until a request that can only come while
another kind's download is running (the other origin's next document), so robots.txt,
tdmrep.json and RSL downloads overlap in every run, whatever the machine's speed. Each
fetcher once counted every chunk of every document request: the overlapping halves
counted twice, robots.txt was cut before its last line and tdmrep.json before its end.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest_twisted
from scrapy import Request, signals
from scrapy.exceptions import StopDownload
from twisted.internet import reactor
from twisted.web.server import NOT_DONE_YET, Site
from twisted.web.server import Request as WebRequest

from rep_audit.verify import verify
from rep_engine.fetch.kinds import TDMREP
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from tests.support.audittrail import lines
from tests.support.robotsite import Reply, ScriptedOrigin, Sites, crawl, robots

LICENSE_PATH = "/license.xml"
PAGES = ("/private/p", "/first/p", "/last/p", "/free")
#: origin -> path -> (origin, path) whose request releases the second half of its body.
#: Each gate is a request that is only sent while this body's download is under way.
GATES: dict[str, dict[str, tuple[str, str]]] = {
    "a": {TDMREP.path: ("b", TDMREP.path), LICENSE_PATH: ("b", LICENSE_PATH)},
    "b": {"/robots.txt": ("a", TDMREP.path), TDMREP.path: ("a", LICENSE_PATH)},
}


def robots_body(license_url: str) -> bytes:
    """About 400 KB of robots.txt, its one rule on its last line."""
    head = f"User-agent: *\nLicense: {license_url}\n"
    padding = "# " + "x" * 97 + "\n"  # 100 bytes a line
    body = (head + padding * 4000 + "Disallow: /private\n").encode()
    assert 390_000 < len(body) < MAX_BODY_BYTES
    return body


def tdmrep_body() -> bytes:
    """About 420 KB of tdmrep.json: a reservation in entry 1 and one near the end."""
    entries: list[dict[str, Any]] = [{"location": "/first/*", "tdm-reservation": 1}]
    entries += [{"location": f"/filler/{n}", "tdm-reservation": 0} for n in range(9000)]
    entries.append({"location": "/last/*", "tdm-reservation": 1})
    entries += [{"location": f"/tail/{n}", "tdm-reservation": 0} for n in range(5)]
    body = json.dumps(entries).encode()
    assert 410_000 < len(body) < MAX_BODY_BYTES
    return body


def license_body() -> bytes:
    """About 300 KB of RSL license that permits every use of the whole site."""
    padding = "<!-- " + "x" * 300_000 + " -->"
    return (
        '<rsl xmlns="https://rslstandard.org/rsl">' + padding + '<content url="/"><license>'
        '<permits type="usage">all</permits></license></content></rsl>'
    ).encode()


class GatedOrigin(ScriptedOrigin):
    """Serves each gated body's first half at once and its second half when the gate's
    request has arrived; the other paths as scripted."""

    def __init__(self, name: str, sites: Sites, arrived: Callable[[str, str], None]) -> None:
        super().__init__(name, sites.log)
        self.bodies: dict[str, tuple[bytes, str]] = {}
        self._arrived = arrived
        #: Second halves waiting for their gate: gate -> writers.
        self.waiting: dict[tuple[str, str], list[Callable[[], None]]] = {}
        self.opened: set[tuple[str, str]] = set()

    def render_GET(self, request: WebRequest) -> bytes | int:
        path = request.uri.decode()
        self._arrived(self.name, path)
        if path not in self.bodies:
            return super().render_GET(request)
        self.log.append((self.name, path))
        body, content_type = self.bodies[path]
        request.setHeader("Content-Type", content_type)
        request.setHeader("Content-Length", str(len(body)))
        gate = GATES[self.name].get(path)
        if gate is None:
            return body
        half = len(body) // 2
        request.write(body[:half])

        def rest() -> None:
            if not request.finished and not request._disconnected:
                request.write(body[half:])
                request.finish()

        if gate in self.opened:
            reactor.callLater(0, rest)  # type: ignore[attr-defined]
        else:
            self.waiting.setdefault(gate, []).append(rest)
        return NOT_DONE_YET


def gated_sites() -> tuple[Sites, dict[str, GatedOrigin]]:
    sites = Sites()
    origins: dict[str, GatedOrigin] = {}

    def arrived(name: str, path: str) -> None:
        for origin in origins.values():
            origin.opened.add((name, path))
            for rest in origin.waiting.pop((name, path), []):
                reactor.callLater(0, rest)  # type: ignore[attr-defined]

    for name in GATES:
        origin = GatedOrigin(name, sites, arrived)
        port = reactor.listenTCP(0, Site(origin), interface="127.0.0.1")  # type: ignore[attr-defined]
        sites._ports.append(port)
        sites.origins[name] = origin
        sites.bases[name] = f"http://127.0.0.1:{port.getHost().port}"
        origins[name] = origin
    for name, origin in origins.items():
        origin.bodies = {
            "/robots.txt": (robots_body(sites.url(name, LICENSE_PATH)), "text/plain"),
            TDMREP.path: (tdmrep_body(), "application/json"),
            LICENSE_PATH: (license_body(), "application/rsl+xml"),
        }
    return sites, origins


@pytest_twisted.ensureDeferred
async def test_overlapping_downloads_each_count_their_own_500_kib() -> None:
    sites, origins = gated_sites()
    urls = [sites.url(name, path) for path in PAGES for name in origins]
    fetched: list[tuple[str, str]] = []

    def on_crawler(crawler: Any) -> None:
        from scrapy_rep import signals as rep_signals

        def seen(document: str, outcome: str, **_: Any) -> None:
            fetched.append((document, outcome))

        def robots_seen(outcome: str, **_: Any) -> None:
            fetched.append(("robots.txt", outcome))

        crawler.signals.connect(seen, signal=rep_signals.document_fetched, weak=False)
        crawler.signals.connect(robots_seen, signal=rep_signals.robotstxt_fetched, weak=False)

    try:
        crawler, spider = await crawl(urls, {"REP_PURPOSE": "ai-train"}, on_crawler=on_crawler)
    finally:
        await sites.close()
    # The downloads did overlap: every gate opened (a body whose gate never opened would
    # have timed out, and its document would be unreachable).
    assert all(not origin.waiting for origin in origins.values())
    # Every document whole: none cut, each read in full.
    robots_sizes = [len(robots_body(sites.url(name, LICENSE_PATH))) for name in origins]
    assert sorted(fetched) == sorted(
        [("robots.txt", f"200 ({size:,} bytes)") for size in robots_sizes]
        + [("tdmrep.json", f"200 ({len(tdmrep_body()):,} bytes)")] * 2
        + [("rsl", f"200 ({len(license_body()):,} bytes)")] * 2
    )
    stats = crawler.stats
    for kind in ("robotstxt", "tdmrep", "rsl"):
        assert stats.get_value(f"rep/{kind}/outcome/truncated") is None, kind
    # robots.txt's last line, and tdmrep.json's first and last reservations, hold.
    assert sorted(spider.downloaded) == sorted(sites.url(name, "/free") for name in origins)
    for name in origins:
        base = sites.bases[name]
        dropped = {
            url.removeprefix(base): why
            for url, why in spider.dropped.items()
            if url.startswith(base + "/")
        }
        assert dropped.keys() == {"/private/p", "/first/p", "/last/p"}
        assert "robots.txt (line 4003: Disallow: /private)" in dropped["/private/p"], dropped
        assert "tdmrep.json entry 1 " in dropped["/first/p"], dropped
        assert "tdmrep.json entry 9002 " in dropped["/last/p"], dropped
        assert [p for p in sites.requested(name) if p in PAGES] == ["/free"]


STOP_AFTER = 100_000


@pytest_twisted.ensureDeferred
async def test_a_tdmrep_json_another_component_cut_keeps_its_complete_entries(
    tmp_path: Path,
) -> None:
    """A project's own ``bytes_received`` handler stops the tdmrep.json download after
    100 KB: the fetch says the body was cut, so entry 1's reservation holds (read from
    its length alone, the prefix was a complete but invalid file, ignored whole); the
    audit trail's reader re-derives the same decisions from the snapshot."""
    sites = Sites()
    origin = sites.add("c")
    origin.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    origin.script(TDMREP.path, Reply(200, tdmrep_body(), {"Content-Type": "application/json"}))
    urls = [sites.url("c", "/first/p"), sites.url("c", "/free")]
    audit = tmp_path / "audit.jsonl"

    def on_crawler(crawler: Any) -> None:
        received: dict[int, int] = {}

        def stop_early(data: bytes, request: Request, **_: Any) -> None:
            if request.url.endswith(TDMREP.path):
                received[id(request)] = received.get(id(request), 0) + len(data)
                if received[id(request)] >= STOP_AFTER:
                    raise StopDownload(fail=False)

        crawler.signals.connect(stop_early, signal=signals.bytes_received, weak=False)

    settings = {"REP_PURPOSE": "ai-train", "REP_AUDIT_FILE": str(audit)}
    try:
        crawler, spider = await crawl(urls, settings, on_crawler=on_crawler)
    finally:
        await sites.close()
    assert crawler.stats.get_value("rep/tdmrep/outcome/truncated") == 1
    assert spider.downloaded == [sites.url("c", "/free")]
    assert "tdmrep.json entry 1 " in spider.dropped[sites.url("c", "/first/p")]
    assert "/first/p" not in sites.requested("c")
    # The snapshot says how it was cut (not "at 500 KiB"), and the trail's reader reads
    # it as cut, as the crawl did.
    (snapshot,) = [
        line
        for line in lines(audit)
        if line["type"] == "snapshot" and line["kind"] == "tdmrep.json"
    ]
    assert snapshot["detail"].endswith(" bytes, cut short: the download was stopped)")
    assert STOP_AFTER <= snapshot["bytes"] < len(tdmrep_body()) // 2
    assert [str(f) for f in verify(audit).findings] == []


@pytest_twisted.ensureDeferred
async def test_a_robots_txt_cut_inside_an_allow_line_allows_nothing_by_its_part(
    tmp_path: Path,
) -> None:
    """A robots.txt of 600 KB whose 500 KiB cut falls inside ``Allow: /public-stuff``: the
    download stops there, and ``Allow: /pu``, which the site never wrote, allows nothing
    (docs/decisions.md, 'A cut robots.txt reads no part of a line that could allow'):
    /purchase stays refused by ``Disallow: /p``, as in the whole file; the audit trail's
    reader reads the snapshot as cut, as the crawl did."""
    head = b"User-agent: *\nDisallow: /p\n"
    kept = b"Allow: /pu"
    pad = b"#" + b"x" * (MAX_BODY_BYTES - len(head) - len(kept) - 2) + b"\n"
    body = head + pad + b"Allow: /public-stuff\n" + (b"# " + b"x" * 97 + b"\n") * 1000
    assert body[:MAX_BODY_BYTES].endswith(kept) and len(body) > MAX_BODY_BYTES + 90_000
    sites = Sites()
    sites.add("a").script("/robots.txt", Reply(200, body, {"Content-Type": "text/plain"}))
    urls = [sites.url("a", path) for path in ("/purchase", "/free")]
    audit = tmp_path / "audit.jsonl"
    try:
        crawler, spider = await crawl(urls, {"REP_AUDIT_FILE": str(audit)})
    finally:
        await sites.close()
    assert spider.downloaded == [sites.url("a", "/free")]
    assert "robots.txt (line 2: Disallow: /p)" in spider.dropped[sites.url("a", "/purchase")]
    assert crawler.stats.get_value("rep/robotstxt/outcome/truncated") == 1
    assert [str(f) for f in verify(audit).findings] == []


@pytest_twisted.ensureDeferred
async def test_a_robots_txt_of_exactly_500_kib_is_read_whole(tmp_path: Path) -> None:
    """A robots.txt of exactly 512,000 bytes is not cut (SPEC §1: its first 500 KiB are
    the whole file): its unended last line ``Allow: /page`` allows /page, as every reader
    of the file (recheck, the parser) reads it; stopped at its last byte and read as
    cut, the crawl dropped that line and refused /page."""
    head = b"User-agent: *\nDisallow: /\n"
    last = b"Allow: /page"
    pad = b"#" + b"x" * (MAX_BODY_BYTES - len(head) - len(last) - 2) + b"\n"
    body = head + pad + last
    assert len(body) == MAX_BODY_BYTES
    sites = Sites()
    sites.add("a").script("/robots.txt", Reply(200, body, {"Content-Type": "text/plain"}))
    urls = [sites.url("a", path) for path in ("/page", "/other")]
    audit = tmp_path / "audit.jsonl"
    try:
        crawler, spider = await crawl(urls, {"REP_AUDIT_FILE": str(audit)})
    finally:
        await sites.close()
    assert spider.downloaded == [sites.url("a", "/page")]
    assert not crawler.stats.get_value("rep/robotstxt/outcome/truncated")
    assert [str(f) for f in verify(audit).findings] == []
