"""RSL licenses named by robots.txt ``License:`` lines, in real crawls
(docs/purpose-notes.md §9).

Local origins name license documents served by a separate origin: one that prohibits
``ai-train``, one that prohibits ``search``, one that permits everything, one behind a
license server (``server=``), one that stays unreachable, one that is a 404; two origins
share one license URL. The same crawl runs for ``search``, ``ai-train`` and
``ai-input`` and asserts exactly which URLs are fetched and how often each license is.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request
from twisted.internet.task import LoopingCall

from rep_audit.verify import verify
from scrapy_rep import signals as rep_signals
from scrapy_rep.crawl.requests.early import REFUSED_EARLY
from tests.support.audittrail import by_url
from tests.support.robotsite import (
    ItemSpider,
    ListSpider,
    Reply,
    Sites,
    collecting_items,
    crawl,
    html_page,
    redirect,
    robots,
    rsl_reply,
)

SERVER = "https://licenses.example/token"


LICENSES = {
    "/no-train.xml": [rsl_reply('<prohibits type="usage">ai-train</prohibits>')],
    "/no-search.xml": [rsl_reply('<prohibits type="usage">search</prohibits>')],
    "/permit.xml": [rsl_reply('<permits type="usage">all</permits>')],
    "/server.xml": [
        rsl_reply('<permits type="usage">all</permits>', f'<content url="/" server="{SERVER}">')
    ],
    "/down.xml": [Reply(503)],
    "/gone.xml": [Reply(404)],
}
#: origin -> the licenses its robots.txt names (space-separated, "" none).
ORIGINS = {
    "notrain": "/no-train.xml",
    "notrain2": "/no-train.xml",  # the same license URL as notrain: fetched once
    "nosearch": "/no-search.xml",
    "permit": "/permit.xml",
    "server": "/server.xml",
    "down": "/down.xml",
    "gone": "/gone.xml",
    "none": "",
    "two": "/permit.xml /no-train.xml",  # one request waits for both
}
#: purpose -> the origins whose /page is not fetched (REP_RSL_LICENSES unset).
REFUSED = {
    "search": {"nosearch", "server"},
    "ai-train": {"notrain", "notrain2", "server", "down", "two"},
    "ai-input": {"server", "down"},
}


def license_sites(slow: str = "") -> Sites:
    """The origins of :data:`ORIGINS` and the lic origin of :data:`LICENSES`; ``slow``: a
    license path answered only after a second (every request naming it is held for it)."""
    sites = Sites()
    lic = sites.add("lic")
    for path, replies in LICENSES.items():
        if path == slow:
            replies = [replace(reply, delay=1.0) for reply in replies]
        lic.script(path, *replies)
    for name, license_path in ORIGINS.items():
        line = "".join(f"License: {sites.url('lic', p)}\n" for p in license_path.split())
        sites.add(name).script("/robots.txt", robots(f"User-agent: *\nAllow: /\n{line}"))
    return sites


async def crawl_every_origin(
    settings: dict[str, Any], held: str = "", slow: str = ""
) -> tuple[Any, Any, Sites]:
    """A crawl of every origin's /page; ``held``: a license path of the lic origin (or
    a server URL) for ``REP_RSL_LICENSES``; ``slow``: as for :func:`license_sites`."""
    sites = license_sites(slow)
    if held:
        settings["REP_RSL_LICENSES"] = [held if "://" in held else sites.url("lic", held)]
    urls = [sites.url(name, "/page") for name in ORIGINS]
    try:
        crawler, spider = await crawl(urls, {"REP_UNREACHABLE_MAX_WAIT": 1.0, **settings})
    finally:
        await sites.close()
    return crawler, spider, sites


def pages_fetched(spider: Any, sites: Sites) -> set[str]:
    return {name for name in ORIGINS if sites.url(name, "/page") in spider.downloaded}


@pytest.mark.parametrize("purpose", ["search", "ai-train", "ai-input"])
@pytest_twisted.ensureDeferred
async def test_each_purpose_obeys_the_licenses_robots_txt_names(
    purpose: str, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    crawler, spider, sites = await crawl_every_origin(
        {"REP_PURPOSE": purpose, "REP_AUDIT_FILE": str(audit)}
    )
    assert pages_fetched(spider, sites) == set(ORIGINS) - REFUSED[purpose]
    for name in REFUSED[purpose]:
        assert sites.url(name, "/page") in spider.dropped  # refused, never lost silently
    requested = sites.requested("lic")
    for path in LICENSES:
        if path != "/down.xml":  # retried until given up on
            assert requested.count(path) == 1, path  # once per license URL, shared too
    stats = crawler.stats.get_stats()
    assert stats.get("rep/purpose/requests_dropped/" + purpose) == len(REFUSED[purpose])
    assert stats.get("rep/rsl/gave_up") == 1
    records = by_url(audit)
    if purpose == "ai-train":
        record = records[sites.url("notrain", "/page")]
        assert record["fate"] == "refused" and record["refused_by"] == "purpose"
        license_url = sites.url("lic", "/no-train.xml")
        assert f"RSL {license_url}" in record["why"]
        assert '<prohibits type="usage">ai-train</prohibits>' in record["why"]
    server = records[sites.url("server", "/page")]
    assert f'server="{SERVER}" (license not held)' in server["why"]
    usage = server["usage"]
    deciding = usage["signals"][usage["decided_by"][purpose]]
    assert deciding["vocabulary"] == "rsl" and deciding["snapshot"]  # the license kept
    snapshot = (tmp_path / "audit.jsonl.d" / deciding["snapshot"]).read_bytes()
    assert snapshot.startswith(b"<rsl") and SERVER.encode() in snapshot
    assert [str(f) for f in verify(audit).findings] == []  # re-derived from the snapshots


@pytest.mark.parametrize("held", [SERVER, "/server.xml"], ids=["server", "license URL"])
@pytest_twisted.ensureDeferred
async def test_a_held_license_lifts_the_server_requirement(held: str) -> None:
    crawler, spider, sites = await crawl_every_origin({"REP_PURPOSE": "ai-input"}, held)
    assert pages_fetched(spider, sites) == set(ORIGINS) - {"down"}
    assert crawler.stats.get_value("rep/purpose/requests_dropped/ai-input") == 1


@pytest_twisted.ensureDeferred
async def test_a_crawl_without_a_purpose_fetches_no_license() -> None:
    crawler, spider, sites = await crawl_every_origin({})
    assert pages_fetched(spider, sites) == set(ORIGINS)
    assert sites.requested("lic") == []
    assert crawler.stats.get_value("rep/rsl/request_count") is None


@pytest_twisted.ensureDeferred
async def test_the_report_shows_each_license_and_the_element_that_refused() -> None:
    from scrapy_rep.crawl.report import RepReport

    crawler, _, sites = await crawl_every_origin(
        {"REP_PURPOSE": "ai-train", "REP_REPORT": True}, slow="/no-train.xml"
    )
    report = next(e for e in crawler.extensions.middlewares if isinstance(e, RepReport))
    lines = report.text.splitlines()
    license_url = sites.url("lic", "/no-train.xml")
    at = lines.index(f"  {license_url}")
    assert lines[at + 1].startswith("    rsl: 200 (")  # no "robots.txt: not downloaded"
    # three origins name it (notrain, notrain2, two); answered after a second, so each
    # request was held for its one download (how many wait is timing, unless it is slow)
    assert lines[at + 2] == "    3 request(s) waited for it"
    refused = lines[lines.index(f"  {sites.url('notrain', '/page')}") + 1]
    assert refused == (
        f'    Not fetched: ai-train denied by RSL {license_url} <content url="/"> license 1: '
        '<prohibits type="usage">ai-train</prohibits>'
    )


@pytest.mark.parametrize("purpose", ["ai-train", "ai-input"])
@pytest_twisted.ensureDeferred
async def test_page_level_licenses_gate_the_pages_items(purpose: str, tmp_path: Path) -> None:
    """A Link header, an HTML <link> and an inline <script> license: the page's items are
    dropped when the license prohibits the purpose; a license not known yet is awaited
    (fetched once, whichever pages name it)."""
    sites = Sites()
    lic = sites.add("lic")
    lic.script("/no-train.xml", *LICENSES["/no-train.xml"])
    lic.script("/no-input.xml", rsl_reply('<prohibits type="usage">ai-input</prohibits>'))
    pages = sites.add("pages")
    train_url, input_url = sites.url("lic", "/no-train.xml"), sites.url("lic", "/no-input.xml")
    link = f'<{train_url}>; rel="license"; type="application/rsl+xml"'
    pages.script("/header", html_page(Link=link))
    pages.script("/header2", html_page(Link=link))
    pages.script(
        "/html", html_page(f'<link rel="license" type="application/rsl+xml" href="{input_url}">')
    )
    inline = '<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
    inline += '<prohibits type="usage">ai-train</prohibits></license></content></rsl>'
    pages.script("/inline", html_page(f'<script type="application/rsl+xml">{inline}</script>'))
    paths = ["/header", "/header2", "/html", "/inline", "/plain"]
    urls = [sites.url("pages", path) for path in paths]
    items: list[Any] = []
    audit = tmp_path / "audit.jsonl"
    settings = {"REP_PURPOSE": purpose, "REP_AUDIT_FILE": str(audit), "ITEM_PIPELINES": {}}
    try:
        crawler, spider = await crawl(urls, settings, ItemSpider, collecting_items(items))
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(urls)  # page licenses gate items, not fetches
    kept = {item["url"].rsplit("/", 1)[1] for item in items}
    dropped = {"ai-train": {"header", "header2", "inline"}, "ai-input": {"html"}}[purpose]
    assert kept == {path.strip("/") for path in paths} - dropped
    assert sites.requested("lic").count("/no-train.xml") == 1
    stats = crawler.stats.get_stats()
    assert stats.get(f"rep/purpose/items_dropped/{purpose}") == len(dropped)
    assert stats.get("rep/rsl/page_license_not_known") is None  # awaited, never guessed
    record = by_url(audit)[sites.url("pages", "/html")]
    signal = record["usage"]["signals"][0]
    assert signal["vocabulary"] == "rsl" and input_url in signal["source"]
    assert [str(f) for f in verify(audit).findings] == []


class LinkingSpider(ListSpider):
    """The home page links to two pages a cached license prohibits and one it allows."""

    def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        if response.url.endswith("/home"):
            for path in ("/books/1", "/books/2", "/free"):
                yield Request(response.urljoin(path), callback=self.parse)  # no errback


@pytest_twisted.ensureDeferred
async def test_a_cached_license_refuses_before_scheduling() -> None:
    """The early refusal (docs/decisions.md, 'Early refusal before the scheduler') sees the
    RSL licenses: once the license is cached, the requests it prohibits are refused before
    the scheduler, naming the license."""
    sites = Sites()
    sites.add("lic").script(
        "/books.xml",
        rsl_reply('<prohibits type="usage">ai-train</prohibits>', '<content url="/books/*">'),
    )
    license_url = sites.url("lic", "/books.xml")
    sites.add("a").script(
        "/robots.txt", robots(f"User-agent: *\nAllow: /\nLicense: {license_url}\n")
    )
    refused: list[tuple[str, str]] = []

    def connect(crawler: Any) -> None:
        crawler.signals.connect(
            lambda request, reason, message, **_: refused.append((request.url, message)),
            signal=rep_signals.request_refused,
            weak=False,
        )

    try:
        crawler, spider = await crawl(
            [sites.url("a", "/home")], {"REP_PURPOSE": "ai-train"}, LinkingSpider, connect
        )
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == [sites.url("a", "/free"), sites.url("a", "/home")]
    assert sorted(url for url, _ in refused) == [
        sites.url("a", p) for p in ("/books/1", "/books/2")
    ]
    assert all(f'RSL {license_url} <content url="/books/*">' in m for _, m in refused)
    assert crawler.stats.get_value(REFUSED_EARLY) == 2
    assert sites.requested("lic") == ["/books.xml"]


#: Redirects of a license that cannot be followed (the ``Location`` of the license).
UNFOLLOWABLE = {
    "loop": "/loop.xml",
    "file": "file:///etc/passwd",
    "ftp": "ftp://127.0.0.1/l.xml",
    "data": "data:,x",
    "broken": "http://[oops/l.xml",
}


@pytest_twisted.ensureDeferred
async def test_a_license_that_cannot_be_followed_is_read_as_no_ai_use(tmp_path: Path) -> None:
    """robots.txt's License: and a page's Link header name licenses that redirect in a
    loop, more than 5 times, to file:, ftp: or data:, or to a broken Location: each is
    unreadable (no AI use), never "no terms": the page is not fetched, the page's item
    is refused (purpose-notes §9)."""
    sites = Sites()
    lic = sites.add("lic")
    for name, location in UNFOLLOWABLE.items():
        lic.script(f"/{name}.xml", redirect(location))
    for hop in range(6):  # /hops.xml -> /h5 -> ... -> /h0 -> /permit.xml: 7 hops
        lic.script("/hops.xml" if hop == 5 else f"/h{hop + 1}", redirect(f"/h{hop}"))
    lic.script("/h0", redirect("/permit.xml"))
    lic.script("/permit.xml", *LICENSES["/permit.xml"])
    names = [*UNFOLLOWABLE, "hops"]
    for name in names:
        line = f"License: {sites.url('lic', f'/{name}.xml')}\n"
        sites.add(name).script("/robots.txt", robots(f"User-agent: *\nAllow: /\n{line}"))
    pages = sites.add("pages")
    for name in names:
        link = f'<{sites.url("lic", f"/{name}.xml")}>; rel="license"; type="application/rsl+xml"'
        pages.script(f"/{name}", html_page(Link=link))
    urls = [sites.url(name, "/page") for name in names]
    urls += [sites.url("pages", f"/{name}") for name in names]
    items: list[Any] = []
    audit = tmp_path / "audit.jsonl"
    settings = {"REP_PURPOSE": "ai-train", "ITEM_PIPELINES": {}, "REP_AUDIT_FILE": str(audit)}
    try:
        crawler, spider = await crawl(urls, settings, ItemSpider, collecting_items(items))
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(sites.url("pages", f"/{n}") for n in names)
    record = by_url(audit)[sites.url("loop", "/page")]
    assert record["fate"] == "refused" and "license document unreadable" in record["why"]
    assert [str(f) for f in verify(audit).findings] == []  # re-derived from the snapshots
    assert items == []  # every page's item refused
    stats = crawler.stats.get_stats()
    assert stats.get("rep/purpose/requests_dropped/ai-train") == len(names)
    assert stats.get("rep/purpose/items_dropped/ai-train") == len(names)
    assert "/permit.xml" not in sites.requested("lic")  # the sixth hop is never taken


@pytest.mark.parametrize(
    "settings",
    [{}, {"USER_AGENT": "OtherBot/2.0"}, {"REP_PURPOSE_AGENTS": ["OtherBot"]}],
    ids=["star group", "own group", "purpose agent's group"],
)
@pytest_twisted.ensureDeferred
async def test_every_license_line_is_every_crawler_s(
    settings: dict[str, Any], tmp_path: Path
) -> None:
    """RSL's guide "Adding RSL to robots.txt": the License directive "is global (not tied
    to any specific user agent)". Every crawler reads every License line of the file,
    wherever it stands (docs/decisions.md): all three are fetched, and one that permits
    ai-train never hides one that prohibits it."""
    sites = Sites()
    lic = sites.add("lic")
    for path in ("/no-train.xml", "/permit.xml", "/file-wide.xml"):
        lic.script(path, *(LICENSES.get(path) or LICENSES["/no-train.xml"]))
    sites.add("a").script(
        "/robots.txt",
        robots(
            f"License: {sites.url('lic', '/file-wide.xml')}\n"  # prohibits ai-train
            f"User-agent: OtherBot\nLicense: {sites.url('lic', '/no-train.xml')}\nAllow: /\n\n"
            f"User-agent: *\nLicense: {sites.url('lic', '/permit.xml')}\nAllow: /\n"
        ),
    )
    url = sites.url("a", "/page")
    audit = tmp_path / "audit.jsonl"
    settings = {"REP_PURPOSE": "ai-train", "REP_AUDIT_FILE": str(audit), **settings}
    try:
        _, spider = await crawl([url], settings)
    finally:
        await sites.close()
    assert [str(f) for f in verify(audit).findings] == []
    assert url not in spider.downloaded
    assert sorted(sites.requested("lic")) == ["/file-wide.xml", "/no-train.xml", "/permit.xml"]
    # Refused by a license that prohibits ai-train (the licenses are fetched together,
    # and whichever refusing one is known first decides).
    refusing = [sites.url("lic", path) for path in ("/file-wide.xml", "/no-train.xml")]
    assert any(license_url in spider.dropped[url] for license_url in refusing), spider.dropped


@pytest_twisted.ensureDeferred
async def test_a_license_line_in_another_crawler_s_group_is_ours_too() -> None:
    sites = Sites()
    sites.add("lic").script("/no-train.xml", *LICENSES["/no-train.xml"])
    sites.add("a").script(
        "/robots.txt",
        robots(
            f"User-agent: GPTBot\nLicense: {sites.url('lic', '/no-train.xml')}\nDisallow:\n\n"
            "User-agent: *\nAllow: /\n"
        ),
    )
    url = sites.url("a", "/page")
    try:
        _, spider = await crawl([url], {"REP_PURPOSE": "ai-train"})
    finally:
        await sites.close()
    assert sites.requested("lic") == ["/no-train.xml"]
    assert url not in spider.downloaded
    assert sites.url("lic", "/no-train.xml") in spider.dropped[url]


@pytest.mark.parametrize(
    ("named", "settings", "sent", "fetched"),
    [
        (200, {}, False, 0),  # more than the default 8: none read, the page refused
        (8, {"REP_RSL_MAX_LICENSES": 8}, True, 8),  # at the bound: each read once
    ],
    ids=["beyond the bound", "at the bound"],
)
@pytest_twisted.ensureDeferred
async def test_the_licenses_read_per_robots_txt_are_bounded(
    named: int, settings: dict[str, Any], sent: bool, fetched: int, tmp_path: Path
) -> None:
    """docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read per robots.txt':
    a robots.txt naming more licenses than the bound sends no license request, and its
    page is refused (search too), saying why in the trail; up to the bound each is read."""
    sites = Sites()
    lic = sites.add("lic")
    paths = [f"/{n}.xml" for n in range(named)]
    for path in paths:
        lic.script(path, *LICENSES["/permit.xml"])
    lines = "".join(f"License: {sites.url('lic', path)}\n" for path in paths)
    sites.add("a").script("/robots.txt", robots(f"User-agent: *\nAllow: /\n{lines}"))
    url = sites.url("a", "/page")
    audit = tmp_path / "audit.jsonl"
    try:
        crawler, spider = await crawl(
            [url], {"REP_PURPOSE": "search", "REP_AUDIT_FILE": str(audit), **settings}
        )
    finally:
        await sites.close()
    assert sorted(sites.requested("lic")) == sorted(paths[:fetched])
    assert (url in spider.downloaded) is sent
    record = by_url(audit)[url]
    assert [str(f) for f in verify(audit).findings] == []  # re-derived with the bound
    if sent:
        return
    why = (
        f"RSL {sites.url('lic', paths[8])}: licenses not read: robots.txt names {named} for "
        "this crawler, more than REP_RSL_MAX_LICENSES (8)"
    )
    assert record["fate"] == "refused" and why in record["why"]
    assert why in spider.dropped[url]
    assert crawler.stats.get_value("rep/rsl/requests_dropped/licenses_not_read") == 1


def answer_after(stall: Any, count: int, lic: Any, reply: Reply) -> LoopingCall:
    """Answer ``lic``'s hanging request with ``reply`` once ``count`` requests hang at
    ``stall`` (polled, so the order is the test's, never the machine's load)."""

    def check() -> None:
        if len(stall.hanging) >= count and lic.hanging:
            lic.answer_hanging(reply)
            loop.stop()

    loop = LoopingCall(check)
    loop.start(0.01)
    return loop


@pytest_twisted.ensureDeferred
async def test_a_license_that_refuses_decides_while_stalled_ones_are_still_pending() -> None:
    """The licenses of one robots.txt are fetched together, and a request held for the
    first is refused as soon as any one refuses its purpose: here the last, while the
    five before it (which never answer) are all still pending at the server."""
    sites = Sites()
    stall, lic = sites.add("stall"), sites.add("lic")
    stalled = [f"/stalled-{n}.xml" for n in range(5)]
    for path in stalled:
        stall.script(path, Reply(hang=True))
    lic.script("/no-search.xml", Reply(hang=True))  # answered once all five have arrived
    answering = answer_after(stall, len(stalled), lic, LICENSES["/no-search.xml"][0])
    names = [sites.url("stall", path) for path in stalled] + [sites.url("lic", "/no-search.xml")]
    lines = "".join(f"License: {name}\n" for name in names)
    sites.add("a").script("/robots.txt", robots(f"User-agent: *\nAllow: /\n{lines}"))
    url = sites.url("a", "/page")
    at_refusal: list[tuple[str, int, bool]] = []

    def pending() -> bool:
        return all(not r.finished and not r._disconnected for r in stall.hanging)

    def refused(request: Any, message: str, **_: Any) -> None:
        at_refusal.append((message, len(stall.hanging), pending()))
        stall.answer_hanging()  # seen: the crawl need not wait out their timeout

    def connect(crawler: Any) -> None:
        crawler.signals.connect(refused, signal=rep_signals.request_refused, weak=False)

    # A timeout far above the crawl's (a loaded machine's second is no bound): the stalled
    # licenses are answered once the refusal is seen.
    settings = {"REP_PURPOSE": "search", "REP_ROBOTSTXT_TIMEOUT": 60, "REP_UNREACHABLE_MAX_WAIT": 1}
    try:
        _, spider = await crawl([url], settings, on_crawler=connect)
    finally:
        if answering.running:
            answering.stop()
        await sites.close()
    assert url not in spider.downloaded
    [(message, requested, still_pending)] = at_refusal
    assert f"RSL {sites.url('lic', '/no-search.xml')}" in message
    assert requested == len(stalled) and still_pending  # none answered, none waited for
    assert sites.requested("lic") == ["/no-search.xml"]


def license_links(urls: list[str]) -> str:
    """HTML ``<link>`` elements naming each of ``urls`` as the page's RSL license."""
    return "".join(f'<link rel="license" type="application/rsl+xml" href="{u}">' for u in urls)


@pytest_twisted.ensureDeferred
async def test_the_licenses_read_per_page_are_bounded(tmp_path: Path) -> None:
    """docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read per robots.txt',
    for a page's own licenses: a page naming 200 (a Link header and <link> elements)
    has none fetched and its item refused (search too), saying why in the trail; a page
    naming 8 (the default bound) has each read once and its item kept."""
    sites = Sites()
    lic = sites.add("lic")
    many = [f"/many-{n}.xml" for n in range(200)]
    bounded = [f"/bounded-{n}.xml" for n in range(8)]
    for path in (*many, *bounded):
        lic.script(path, *LICENSES["/permit.xml"])
    many_urls = [sites.url("lic", path) for path in many]
    header = ", ".join(f'<{u}>; rel="license"; type="application/rsl+xml"' for u in many_urls[:50])
    pages = sites.add("pages")
    pages.script("/many", html_page(license_links(many_urls[50:]), Link=header))
    pages.script("/bounded", html_page(license_links([sites.url("lic", p) for p in bounded])))
    urls = [sites.url("pages", "/many"), sites.url("pages", "/bounded")]
    items: list[Any] = []
    audit = tmp_path / "audit.jsonl"
    settings = {"REP_PURPOSE": "search", "REP_AUDIT_FILE": str(audit), "ITEM_PIPELINES": {}}
    try:
        crawler, spider = await crawl(urls, settings, ItemSpider, collecting_items(items))
    finally:
        await sites.close()
    assert sorted(spider.downloaded) == sorted(urls)  # page licenses gate items, not fetches
    assert sorted(sites.requested("lic")) == sorted(bounded)  # none of the 200
    assert [item["url"] for item in items] == [sites.url("pages", "/bounded")]
    why = (
        f"RSL {many_urls[8]}: licenses not read: the page names 200, more than "
        "REP_RSL_MAX_LICENSES (8)"
    )
    usage = by_url(audit)[sites.url("pages", "/many")]["usage"]
    assert usage["signals"][usage["decided_by"]["search"]]["source"] == why
    assert [str(f) for f in verify(audit).findings] == []
    stats = crawler.stats.get_stats()
    assert stats.get("rep/purpose/items_dropped/search") == 1
    assert stats.get("rep/rsl/pages_denied/licenses_not_read") == 1


@pytest_twisted.ensureDeferred
async def test_a_page_license_that_refuses_decides_while_stalled_ones_are_still_pending() -> None:
    """A page's licenses are fetched together, and its items are refused as soon as one
    refuses the crawl's purpose: here the last it names, while the five before it (which
    never answer) are all still pending at the server."""
    sites = Sites()
    stall, lic = sites.add("stall"), sites.add("lic")
    stalled = [f"/stalled-{n}.xml" for n in range(5)]
    for path in stalled:
        stall.script(path, Reply(hang=True))
    lic.script("/no-search.xml", Reply(hang=True))  # answered once all five have arrived
    answering = answer_after(stall, len(stalled), lic, LICENSES["/no-search.xml"][0])
    names = [sites.url("stall", path) for path in stalled] + [sites.url("lic", "/no-search.xml")]
    sites.add("pages").script("/page", html_page(license_links(names)))
    url = sites.url("pages", "/page")
    at_refusal: list[tuple[str, int, bool]] = []

    def pending() -> bool:
        return all(not r.finished and not r._disconnected for r in stall.hanging)

    def refused(message: str, **_: Any) -> None:
        at_refusal.append((message, len(stall.hanging), pending()))
        stall.answer_hanging()  # seen: the crawl need not wait out their timeout

    def connect(crawler: Any) -> None:
        crawler.signals.connect(refused, signal=rep_signals.item_refused, weak=False)
        collecting_items(items)(crawler)

    items: list[Any] = []
    settings = {  # a timeout far above the crawl's: the stalled ones are answered once seen
        "REP_PURPOSE": "search",
        "REP_ROBOTSTXT_TIMEOUT": 60,
        "REP_UNREACHABLE_MAX_WAIT": 1,
        "ITEM_PIPELINES": {},
    }
    try:
        crawler, spider = await crawl([url], settings, ItemSpider, connect)
    finally:
        if answering.running:
            answering.stop()
        await sites.close()
    assert spider.downloaded == [url] and items == []
    [(message, requested, still_pending)] = at_refusal
    assert f"RSL {sites.url('lic', '/no-search.xml')}" in message
    assert requested == len(stalled) and still_pending  # none answered, none waited for
    assert crawler.stats.get_value("rep/purpose/items_dropped/search") == 1


@pytest_twisted.ensureDeferred
async def test_a_page_whose_inline_license_refuses_fetches_none_it_names() -> None:
    """A page that holds a license refusing the crawl's purpose inline is decided by it
    at once: the license it names as well (which would never answer) is not fetched."""
    sites = Sites()
    stall = sites.add("stall")
    stall.script("/stalled.xml", Reply(hang=True))
    inline = '<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
    inline += '<prohibits type="usage">search</prohibits></license></content></rsl>'
    head = license_links([sites.url("stall", "/stalled.xml")])
    head += f'<script type="application/rsl+xml">{inline}</script>'
    sites.add("pages").script("/page", html_page(head))
    url = sites.url("pages", "/page")
    items: list[Any] = []
    settings = {"REP_PURPOSE": "search", "REP_ROBOTSTXT_TIMEOUT": 1, "ITEM_PIPELINES": {}}
    try:
        crawler, spider = await crawl([url], settings, ItemSpider, collecting_items(items))
    finally:
        await sites.close()
    assert spider.downloaded == [url] and items == []
    assert sites.requested("stall") == []
    assert crawler.stats.get_value("rep/purpose/items_dropped/search") == 1
