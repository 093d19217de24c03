"""The tools and the crawl agree URL by URL on one crawl that combines an override, a
request sent as another crawler, an RSL license, an image, and pages that only Scrapy's
download stack reads as the crawl does (docs/decisions.md, 'The tools are a crawl',
'Every name a request can be held to'): a redirect to a URL robots.txt disallows and one
to a noindex page, a meta refresh to a noindex page, a page gzipped unasked, a gzip bomb
(``DOWNLOAD_MAXSIZE``), a folded ``Robots-Tag`` line and a UTF-16 page.

One local server answers for two origins, ``http://127.0.0.1:PORT`` (whose host
``REP_OVERRIDES`` covers) and ``http://localhost:PORT`` (not covered). Its robots.txt
disallows ``/private`` for every crawler, ``/nogoogle`` for Googlebot's group only, and
names (in the ``*`` group) an RSL license that prohibits ai-train for ``/licensed/``. The
crawl (``REP_PURPOSE = "ai-train"``, ``REP_AUDIT_FILE``, ImagesPipeline) sends some pages
as its declared name and some with ``User-Agent: Googlebot/2.1 …`` (the same URL, as
both, where the answers differ); a page's item names four images for ImagesPipeline: one
whose XMP says ``DMI-PROHIBITED-AIMLTRAINING``, a plain one, and one under ``/private`` on
each host.

For each URL and each User-Agent it is sent with, the crawl's fate (a page's from its
audit trail record, an image's from the item, its ``url`` and its ``file`` record, each
checked with the server's log) is what ``scrapy rep-robots -s SETTING=… --purpose ai-train`` says
(its allowed / DISALLOWED line, and what its page line and last line say the crawl does
with the page or file: ``=> not for this crawl``), what ``python -m scrapy_rep check
--overrides … --purpose … --user-agent … -s … --page`` says for every name the request is
held to (the crawl allows only if every name allows; a page or file is denied if it is
for any one), and ``python -m scrapy_rep audit verify`` finds nothing in the crawl's
trail; both tools name the override, and the robots.txt line, the trail records; and
each tool's crawl asks the server for each document and each page once. The tools and
``audit verify`` run in this process (:mod:`tests.support.tools`: their crawls under the
test's reactor).

And the two tools agree with each other, line for line (docs/cli.md): for the same
robots.txt, options and URLs, fetched or a local file, with and without ``--page`` and
``--purpose``, and for the inputs at their edges, they print the same lines and exit
alike (the one test that says so: :func:`test_both_tools_print_the_same_lines`).
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

import pytest
import pytest_twisted
from scrapy import Request

from tests.support.audittrail import lines, url_records
from tests.support.documents import rsl_license
from tests.support.localhttp import QuietHandler, serving
from tests.support.mediafiles import jpeg, xmp_packet
from tests.support.robotsite import BASE_SETTINGS, ListSpider, collecting_items, crawl, stat
from tests.support.tools import audit_streams, check_async, robots_async

if TYPE_CHECKING:
    from collections.abc import Iterator

#: One crawl for the module's tests: on one worker.
pytestmark = pytest.mark.xdist_group("tools_agree")

#: The host REP_OVERRIDES covers, and the one it does not (the same server and port).
OVERRIDDEN, OTHER = "127.0.0.1", "localhost"
#: The crawler's declared User-Agent (its name: testbot), and the one some requests carry.
DECLARED = str(BASE_SETTINGS["USER_AGENT"])
GOOGLEBOT = "Googlebot/2.1 (+http://www.google.com/bot.html)"
PERMISSION = "written permission of the site owner, 2026-11-01"
#: The most a download may inflate to (the bomb inflates to 32 MiB).
MAX_SIZE = 8 * 1024 * 1024
#: The settings the crawl and ``scrapy rep-robots -s`` share.
AGREE_SETTINGS: dict[str, Any] = {
    "REP_PURPOSE": "ai-train",
    "REP_OVERRIDES": [{"host": OVERRIDDEN, "reason": PERMISSION, "expires": "2099-01-01"}],
    "DOWNLOAD_MAXSIZE": MAX_SIZE,
}
#: The same, as ``python -m scrapy_rep check`` options.
AGREE_CHECK_OPTIONS = (
    "--purpose",
    AGREE_SETTINGS["REP_PURPOSE"],
    "--overrides",
    json.dumps(AGREE_SETTINGS["REP_OVERRIDES"]),
    "-s",
    f"DOWNLOAD_MAXSIZE={MAX_SIZE}",
)
#: ``{license}``: the license of the origin asked (in the ``*`` group, before its last rule:
#: TestBot's, not Googlebot's).
AGREE_ROBOTS = (
    "User-agent: googlebot\nDisallow: /nogoogle\n\n"
    "User-agent: *\nLicense: {license}\nDisallow: /private\n"
)
NO_TRAIN_HERE = rsl_license(
    '<prohibits type="usage">ai-train</prohibits>', '<content url="/licensed/">'
)
NOINDEX = b'<html><head><meta name="robots" content="noindex"></head><body>p</body></html>'
PAGES = {
    "/noai": b'<html><head><meta name="robots" content="noai"></head><body>p</body></html>',
    "/googlebot-noai": (
        b'<html><head><meta name="googlebot" content="noai"></head><body>p</body></html>'
    ),
    "/moved-here": NOINDEX,
    "/refreshed": NOINDEX,
    "/refresh": b'<html><head><meta http-equiv="refresh" content="0;url=/refreshed"></head></html>',
    "/utf16": b"\xff\xfe" + NOINDEX.decode().encode("utf-16-le"),
}
#: The URLs the crawl reaches by a redirect (or a meta refresh) only.
REDIRECTED = ("/private/redirected", "/moved-here", "/refreshed")
#: (status, headers, body) of the pages only Scrapy's download stack reads as the crawl.
RAW_PAGES: dict[str, tuple[int, dict[str, str], bytes]] = {
    "/redirect-private": (302, {"Location": "/private/redirected"}, b""),
    "/moved": (301, {"Location": "/moved-here"}, b""),
    "/gzipped": (200, {"Content-Encoding": "gzip"}, gzip.compress(NOINDEX)),
    "/bomb": (200, {"Content-Encoding": "gzip"}, gzip.compress(bytes(4 * MAX_SIZE))),
    # obs-fold (RFC 9112 §5.2): the field's value goes on after a line break and a space
    "/folded": (200, {"Robots-Tag": "testbot;\r\n noindex"}, b"<html><body>p</body></html>"),
}
IMAGES = {
    "/img/no-train.jpg": jpeg(xmp_packet("DMI-PROHIBITED-AIMLTRAINING"), colour=(1, 2, 3)),
    "/img/plain.jpg": jpeg(colour=(4, 5, 6)),
    "/private/hidden.jpg": jpeg(colour=(7, 8, 9)),
    "/private/shown.jpg": jpeg(colour=(10, 11, 12)),
}


@dataclass(frozen=True)
class Sent:
    """A URL of the crawl as it is sent, and what the crawl does with it."""

    host: str
    path: str
    #: "declared" (the crawl's own User-Agent) or "googlebot" (``User-Agent: GOOGLEBOT``).
    sent_as: str
    #: Pages: refused (before the fetch, or its redirect), kept or dropped (fetched, its
    #: item kept or dropped), failed (no page); images: refused, stored or not stored
    #: (fetched, refused for ai-train).
    fate: str
    #: robots.txt disallows it and the override lets it past.
    overridden: bool = False

    @property
    def is_image(self) -> bool:
        return self.path.endswith(".jpg")

    @property
    def user_agent(self) -> str:
        """The User-Agent its request is sent with."""
        return GOOGLEBOT if self.sent_as == "googlebot" else DECLARED

    @property
    def held_to(self) -> tuple[str, ...]:
        """The User-Agents whose names its request is held to: the declared one, then the
        one it is sent with when that is another."""
        return tuple(dict.fromkeys((DECLARED, self.user_agent)))


AGREE_CASES = {
    "other host, Disallow: /private": Sent(OTHER, "/private/page", "declared", "refused"),
    "overridden host, Disallow: /private overridden": Sent(
        OVERRIDDEN, "/private/page", "declared", "kept", overridden=True
    ),
    "sent as Googlebot, Googlebot's Disallow": Sent(OTHER, "/nogoogle", "googlebot", "refused"),
    "sent as declared, Googlebot's Disallow": Sent(OTHER, "/nogoogle", "declared", "kept"),
    "sent as Googlebot, overridden host, Googlebot's Disallow": Sent(
        OVERRIDDEN, "/nogoogle", "googlebot", "kept", overridden=True
    ),
    "sent as Googlebot, the declared name's Disallow": Sent(
        OTHER, "/private/page", "googlebot", "refused"
    ),
    "RSL prohibits ai-train": Sent(OTHER, "/licensed/page", "declared", "refused"),
    "RSL prohibits ai-train, sent as Googlebot": Sent(
        OTHER, "/licensed/page", "googlebot", "refused"
    ),
    "RSL prohibits ai-train, overridden host": Sent(
        OVERRIDDEN, "/licensed/page", "declared", "refused"
    ),
    "meta robots noai": Sent(OTHER, "/noai", "declared", "dropped"),
    "meta googlebot noai, sent as Googlebot": Sent(
        OTHER, "/googlebot-noai", "googlebot", "dropped"
    ),
    "meta googlebot noai, sent as declared": Sent(OTHER, "/googlebot-noai", "declared", "kept"),
    "plain page": Sent(OTHER, "/plain", "declared", "kept"),
    "plain page, sent as Googlebot": Sent(OTHER, "/plain", "googlebot", "kept"),
    "image DMI-PROHIBITED-AIMLTRAINING": Sent(OTHER, "/img/no-train.jpg", "declared", "not stored"),
    "plain image": Sent(OTHER, "/img/plain.jpg", "declared", "stored"),
    "image robots.txt disallows": Sent(OTHER, "/private/hidden.jpg", "declared", "refused"),
    "image, overridden host": Sent(
        OVERRIDDEN, "/private/shown.jpg", "declared", "stored", overridden=True
    ),
    "302 to a URL robots.txt disallows": Sent(OTHER, "/redirect-private", "declared", "refused"),
    "301 to a noindex page": Sent(OTHER, "/moved", "declared", "dropped"),
    "meta refresh to a noindex page": Sent(OTHER, "/refresh", "declared", "dropped"),
    "gzipped unasked, noindex": Sent(OTHER, "/gzipped", "declared", "dropped"),
    "gzip bomb over DOWNLOAD_MAXSIZE": Sent(OTHER, "/bomb", "declared", "failed"),
    "folded Robots-Tag noindex": Sent(OTHER, "/folded", "declared", "dropped"),
    "UTF-16 page, noindex": Sent(OTHER, "/utf16", "declared", "dropped"),
}
#: The page whose item names the images.
GALLERY = Sent(OTHER, "/plain", "declared", "kept")


class AgreeSite(QuietHandler):
    """robots.txt, the license, the pages and the images, for either host; every request
    logged as (host, path, User-Agent)."""

    log: ClassVar[list[tuple[str, str, str]]] = []

    def do_GET(self) -> None:
        host = self.headers["Host"]
        self.log.append((host.split(":")[0], self.path, self.headers.get("User-Agent", "")))
        if self.path == "/robots.txt":
            body = AGREE_ROBOTS.format(license=f"http://{host}/license.xml")
            self.send(200, body.encode(), {"Content-Type": "text/plain"})
        elif self.path == "/license.xml":
            self.send(200, NO_TRAIN_HERE, {"Content-Type": "application/rsl+xml"})
        elif self.path in IMAGES:
            self.send(200, IMAGES[self.path], {"Content-Type": "image/jpeg"})
        elif self.path.startswith("/.well-known/"):
            self.send(404, b"", {"Content-Type": "text/plain"})
        elif self.path in RAW_PAGES:
            status, headers, body = RAW_PAGES[self.path]
            self.send(status, body, {"Content-Type": "text/html", **headers})
        else:
            page = PAGES.get(self.path, b"<html><body>page</body></html>")
            self.send(200, page, {"Content-Type": "text/html"})


class HeldNamesSpider(ListSpider):
    """Sends each of :attr:`sent` as it says (``dont_filter``: one URL may be sent as both);
    the gallery page's item names the images."""

    sent: ClassVar[list[tuple[str, str]]] = []  # (URL, sent_as)
    images: ClassVar[list[str]] = []
    gallery: ClassVar[str] = ""

    async def start(self) -> Any:
        for url, sent_as in self.sent:
            # The crawl's own USER_AGENT unless the request carries another.
            headers = {"User-Agent": GOOGLEBOT} if sent_as == "googlebot" else {}
            yield Request(
                url,
                headers=headers,
                dont_filter=True,
                meta={"sent_as": sent_as},
                callback=self.parse,
                errback=self.failed,
            )

    def parse(self, response: Any) -> Any:
        sent_as = response.meta["sent_as"]
        gallery = response.url == self.gallery and sent_as == "declared"
        yield {
            "url": response.url,
            "sent_as": sent_as,
            "image_urls": list(self.images) if gallery else [],
        }


@dataclass
class AgreeRun:
    """What the crawl and each tool said."""

    bases: dict[str, str]
    trail: Path
    #: (URL, sent_as) -> the crawl's ``url`` record.
    records: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    #: Image URL -> the crawl's ``file`` record.
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    #: (host, path, User-Agent) of every request the server got.
    served: list[tuple[str, str, str]] = field(default_factory=list)
    #: Each tool run's requests to the server: (host, path) -> how many.
    tool_served: dict[str, Counter[tuple[str, str]]] = field(default_factory=dict)
    #: sent_as -> (exit status, output) of ``scrapy rep-robots``.
    rep_robots: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: User-Agent -> (exit status, output) of ``python -m scrapy_rep check``.
    check: dict[str, tuple[int, str]] = field(default_factory=dict)
    verify: tuple[int, str, str] = (0, "", "")
    #: The crawl's count of requests the override let through.
    overridden: int = 0

    def url(self, sent: Sent) -> str:
        return self.bases[sent.host] + sent.path


def held_as(record: dict[str, Any]) -> str:
    """How the request of a ``url`` record was sent, from the names it was held to."""
    agents = record["robots"].get("agents") or ["testbot"]
    assert agents in (["testbot"], ["testbot", "googlebot"]), record
    return "googlebot" if "googlebot" in agents else "declared"


def url_block(output: str, url: str) -> list[str]:
    """The lines a tool printed about ``url``: its verdict line (``allowed`` or
    ``DISALLOWED``, the URL, why), then the indented lines under it; exactly one."""
    rows = output.splitlines()
    found = []
    for number, row in enumerate(rows):
        words = row.split()
        if len(words) >= 2 and words[0] in ("allowed", "DISALLOWED") and words[1] == url:
            depth = len(row) - len(row.lstrip())
            block = [row.strip()]
            for below in rows[number + 1 :]:
                if not below.strip() or len(below) - len(below.lstrip()) <= depth:
                    break
                block.append(below.strip())
            found.append(block)
    assert len(found) == 1, f"{url} has {len(found)} verdict lines in:\n{output}"
    return found[0]


@pytest_twisted.async_fixture(scope="module")
async def agree_run(tmp_path_factory: pytest.TempPathFactory) -> AgreeRun:
    folder = tmp_path_factory.mktemp("agree")
    trail = folder / "trail.jsonl"
    AgreeSite.log = []
    with serving(AgreeSite) as port:
        bases = {host: f"http://{host}:{port}" for host in (OVERRIDDEN, OTHER)}
        run = AgreeRun(bases, trail)
        pages = [sent for sent in AGREE_CASES.values() if not sent.is_image]
        HeldNamesSpider.sent = [(run.url(sent), sent.sent_as) for sent in pages]
        HeldNamesSpider.images = [run.url(s) for s in AGREE_CASES.values() if s.is_image]
        HeldNamesSpider.gallery = run.url(GALLERY)
        settings = {
            **AGREE_SETTINGS,
            "REP_AUDIT_FILE": str(trail),
            "ITEM_PIPELINES": {"scrapy.pipelines.images.ImagesPipeline": 1},
            "IMAGES_STORE": str(folder / "images"),
        }
        # (The spider sends HeldNamesSpider.sent, not the list crawl() passes it.)
        crawler, _ = await crawl([], settings, HeldNamesSpider, collecting_items(run.items))
        run.overridden = stat(crawler, "rep/requests/overridden")
        run.served = list(AgreeSite.log)
        # The tools, with the crawl's settings, on every URL as it was sent.
        robots_settings = [
            arg
            for name, value in AGREE_SETTINGS.items()
            for arg in ("-s", f"{name}={value if isinstance(value, str) else json.dumps(value)}")
        ]
        robots_settings += ["--purpose", AGREE_SETTINGS["REP_PURPOSE"], "--timeout", "5"]
        urls = {
            sent_as: [run.url(s) for s in AGREE_CASES.values() if s.sent_as == sent_as]
            for sent_as in ("declared", "googlebot")
        }
        with counting(run, "rep-robots declared"):
            run.rep_robots["declared"] = await robots_async(
                *robots_settings, *urls["declared"], user_agent=DECLARED
            )
        # Sent as Googlebot: the declared name is ROBOTSTXT_USER_AGENT, the User-Agent
        # Googlebot's, as the crawl's request is held to both.
        with counting(run, "rep-robots googlebot"):
            run.rep_robots["googlebot"] = await robots_async(
                *robots_settings,
                "-s",
                "ROBOTSTXT_USER_AGENT=TestBot",
                *urls["googlebot"],
                user_agent=GOOGLEBOT,
            )
        every = list(dict.fromkeys(urls["declared"] + urls["googlebot"]))  # each URL once
        for agent in (DECLARED, GOOGLEBOT):
            with counting(run, f"check {agent}"):
                run.check[agent] = await check_async(
                    *every, "--timeout", "5", *AGREE_CHECK_OPTIONS, "--user-agent", agent,
                    "--page",
                )  # fmt: skip
    run.verify = audit_streams("verify", str(trail))
    for record in url_records(trail):
        key = (record["url"], held_as(record))
        assert key not in run.records, f"two records of {key}"
        run.records[key] = record
    for line in lines(trail):
        if line["type"] == "file":
            assert line["url"] not in run.files, f"two file records of {line['url']}"
            run.files[line["url"]] = line
    return run


@contextmanager
def counting(run: AgreeRun, name: str) -> Iterator[None]:
    """Count the requests the server gets while a tool runs, by host and path."""
    before = len(AgreeSite.log)
    yield
    run.tool_served[name] = Counter((host, path) for host, path, _ in AgreeSite.log[before:])


def crawl_fate(run: AgreeRun, sent: Sent) -> str:
    """What the crawl did with ``sent``, checked against what the server got: a page's
    from its trail record and the spider's items; an image's from the item (its
    ``images`` and ``rep_refused_files``), its trail ``url`` record (requested by
    ImagesPipeline, not scheduled: recorded when it is decided) and its ``file``
    record."""
    url = run.url(sent)
    reached = (sent.host, sent.path, sent.user_agent) in run.served
    if sent.is_image:
        (gallery,) = [item for item in run.items if item["image_urls"]]
        stored = {image["url"] for image in gallery["images"]}
        refused = {entry["url"]: entry for entry in gallery.get("rep_refused_files", [])}
        record = run.files.get(url)
        request = run.records[url, sent.sent_as]
        if not reached:
            assert url in refused and record is None, (gallery, record)
            assert (request["fate"], request["refused_by"]) == ("refused", "robots.txt")
            return "refused"
        assert request["fate"] == "fetched", request
        assert record is not None and record["fate"] in ("stored", "refused"), record
        assert (record["fate"] == "stored") is (url in stored) is (url not in refused), gallery
        return "stored" if record["fate"] == "stored" else "not stored"
    record = run.records[url, sent.sent_as]
    while record["fate"] == "redirected":  # a redirect's record ends where the next begins
        assert reached, record
        record = run.records[record["to"], sent.sent_as]
        url = record["url"]
        reached = (sent.host, urlsplit(url).path, sent.user_agent) in run.served
    if record["fate"] == "refused":
        assert not reached, f"{url} refused, yet the server got it"
        return "refused"
    # The bomb's request: refused by Scrapy's decompression in process_response, which the
    # trail's middleware does not see: it stays "unfinished" (the trail's, not the tools')
    if record["fate"] in ("failed", "unfinished"):
        assert reached and not [item for item in run.items if item["url"] == url], record
        return "failed"
    assert record["fate"] == "fetched" and reached, record
    kept = [item for item in run.items if (item["url"], item["sent_as"]) == (url, sent.sent_as)]
    assert (record["items_kept"], record["items_dropped"]) in ((1, 0), (0, 1)), record
    assert len(kept) == record["items_kept"], (record, kept)
    return "kept" if record["items_kept"] else "dropped"


def crawl_overridden(run: AgreeRun, sent: Sent) -> bool:
    """Whether the crawl recorded ``sent`` as let past robots.txt by the override."""
    return "overridden" in run.records[run.url(sent), sent.sent_as]["robots"]


def crawl_line(run: AgreeRun, sent: Sent) -> str | None:
    """The robots.txt line the crawl recorded as deciding ``sent`` (``line N: RULE``), or
    ``None`` when none did."""
    robots = run.records[run.url(sent), sent.sent_as]["robots"]
    return f"line {robots['line']}: {robots['rule']}" if "line" in robots else None


def tool_fate(block: list[str], sent: Sent) -> str:
    """What a tool's block says the crawl does with ``sent``: refused (its line, or its
    redirect's), failed (its page could not be had), or what becomes of its page or
    file (the block's last line)."""
    if block[0].startswith("DISALLOWED"):
        return "refused"
    page = next(line for line in block[1:] if line.startswith("page: "))
    if page.startswith("page: redirected to") and "which is not fetched" in page:
        return "refused"
    if page.startswith("page: not fetched"):
        return "failed"
    denied = block[-1].startswith("=> not for this crawl")
    assert denied or block[-1] == "=> kept", block
    if sent.is_image:
        return "not stored" if denied else "stored"
    return "dropped" if denied else "kept"


def rep_robots_fate(run: AgreeRun, sent: Sent) -> tuple[str, bool]:
    """What ``scrapy rep-robots`` says of ``sent``: its fate, and whether the line names
    the override."""
    block = url_block(run.rep_robots[sent.sent_as][1], run.url(sent))
    return tool_fate(block, sent), "overridden by REP_OVERRIDES" in block[0]


def check_verdicts(run: AgreeRun, sent: Sent) -> list[str]:
    """The verdict line ``python -m scrapy_rep check`` printed about ``sent`` for each name
    its request is held to."""
    return [url_block(run.check[agent][1], run.url(sent))[0] for agent in sent.held_to]


@pytest.mark.parametrize("name", list(AGREE_CASES))
def test_the_crawl_does_what_the_case_says(agree_run: AgreeRun, name: str) -> None:
    sent = AGREE_CASES[name]
    assert crawl_fate(agree_run, sent) == sent.fate
    assert crawl_overridden(agree_run, sent) is sent.overridden
    if sent.overridden:
        robots = agree_run.records[agree_run.url(sent), sent.sent_as]["robots"]
        assert robots["overridden"] == f"{PERMISSION}, through 2099-01-01, UTC"


def test_the_crawl_counts_every_request_the_override_let_through(agree_run: AgreeRun) -> None:
    assert agree_run.overridden == sum(sent.overridden for sent in AGREE_CASES.values())
    # images too: one record each; a redirect's next URL has its own
    assert len(agree_run.records) == len(AGREE_CASES) + len(REDIRECTED)


@pytest.mark.parametrize("name", list(AGREE_CASES))
def test_rep_robots_says_what_the_crawl_did(agree_run: AgreeRun, name: str) -> None:
    sent = AGREE_CASES[name]
    output = agree_run.rep_robots[sent.sent_as][1]
    crawled = (crawl_fate(agree_run, sent), crawl_overridden(agree_run, sent))
    assert rep_robots_fate(agree_run, sent) == crawled, output
    line = crawl_line(agree_run, sent)
    assert line is None or line in url_block(output, agree_run.url(sent))[0], output


@pytest.mark.parametrize("name", list(AGREE_CASES))
def test_check_says_what_the_crawl_did_for_every_name(agree_run: AgreeRun, name: str) -> None:
    """The crawl allows a request only if every name it is held to is allowed."""
    sent = AGREE_CASES[name]
    said = check_verdicts(agree_run, sent)
    refused = any(verdict.startswith("DISALLOWED") for verdict in said)
    record = agree_run.records[agree_run.url(sent), sent.sent_as]
    assert refused is (record["fate"] == "refused"), said  # the URL itself, not a redirect
    overridden = any("overridden by REP_OVERRIDES" in verdict for verdict in said)
    assert overridden is crawl_overridden(agree_run, sent), said
    line = crawl_line(agree_run, sent)
    assert line is None or any(line in verdict for verdict in said), said


@pytest.mark.parametrize(
    "name", [name for name, sent in AGREE_CASES.items() if sent.fate != "refused"]
)
def test_check_page_decides_each_page_and_file_as_the_crawl_did(
    agree_run: AgreeRun, name: str
) -> None:
    """``check --page`` decides each page and file fetched as the crawl decides it after
    the fetch, for every name the request is held to: a "no" for any one is the crawl's
    item dropped, its file not stored."""
    sent = AGREE_CASES[name]
    url = agree_run.url(sent)
    blocks = [url_block(agree_run.check[agent][1], url) for agent in sent.held_to]
    fates = {tool_fate(block, sent) for block in blocks}
    crawled = crawl_fate(agree_run, sent)
    if crawled in ("dropped", "not stored") and len(fates) > 1:  # any one name's "no"
        fates -= {"kept", "stored"}
    assert fates == {crawled}, blocks
    if crawled not in ("refused", "failed"):
        assert all(any(line.startswith("ai-train: ") for line in b) for b in blocks), blocks


def test_both_tools_exit_3_as_a_page_cannot_be_had(agree_run: AgreeRun) -> None:
    """The bomb's page is over ``DOWNLOAD_MAXSIZE``; the rest refused or denied: exit 1."""
    assert agree_run.rep_robots["declared"][0] == 3
    assert agree_run.rep_robots["googlebot"][0] == 1
    assert {code for code, _ in agree_run.check.values()} == {3}


def test_each_tool_asks_for_each_document_and_page_once(agree_run: AgreeRun) -> None:
    """One crawl per tool run, one request per URL: a page is never fetched twice (with
    ``--purpose`` it was, once for its directives and once for its usage signals), and a
    URL the crawl refuses is never fetched."""
    for name, served in agree_run.tool_served.items():
        assert served, name
        twice = {key: count for key, count in served.items() if count > 1}
        assert twice == {}, (name, twice)
        if "Googlebot" not in name:  # Googlebot's own group does not disallow /private
            assert not any(host == OTHER and path.startswith("/private/") for host, path in served)
    for name in ("check " + DECLARED, "rep-robots declared"):
        served = agree_run.tool_served[name]
        assert (OTHER, "/redirect-private") in served and (OTHER, "/refreshed") in served


def test_audit_verify_finds_nothing_in_the_crawls_trail(agree_run: AgreeRun) -> None:
    code, out, err = agree_run.verify
    assert (code, err) == (0, ""), out + err
    (tree, said) = out.splitlines()  # its tree head, its verdict: no finding, no event
    assert tree.startswith("tree head at line ")
    records = f" {len(AGREE_CASES) + len(REDIRECTED)} record(s)"
    assert said.startswith(f"{agree_run.trail}: clean: ") and records in said


# ------------------------------------------------------- both tools print the same lines

#: The bundled example robots.txt (docs/cli.md quotes the tools on it).
EXAMPLE = (Path(__file__).parents[2] / "scrapy_rep" / "examples" / "robots.txt").read_bytes()
#: Pages under the example's rules (``/private/`` disallowed), each saying something.
ALIKE_PAGES: dict[str, tuple[bytes, dict[str, str]]] = {
    "/noindex": (b"<html></html>", {"X-Robots-Tag": "noindex"}),
    "/meta": (
        b'<html><head><meta name="robots" content="nofollow"></head><body>x</body></html>',
        {},
    ),
    "/notrain": (b"<html></html>", {"Content-Usage": "train-ai=n"}),
}


#: The robots.txt of ``localhost``, the pages' host: the example's ``/private/``
#: disallowed, without its ``Crawl-delay: 2`` (each tool fetches each page).
PAGES_ROBOTS = b"User-agent: *\nDisallow: /private/\n"


class AlikeSite(QuietHandler):
    """The example robots.txt at 127.0.0.1, :data:`PAGES_ROBOTS` at localhost, and
    :data:`ALIKE_PAGES` (any other path: a plain page)."""

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            pages_host = self.headers.get("Host", "").startswith("localhost")
            self.send(200, PAGES_ROBOTS if pages_host else EXAMPLE, {"Content-Type": "text/plain"})
            return
        body, headers = ALIKE_PAGES.get(self.path, (b"<html></html>", {}))
        self.send(200, body, {"Content-Type": "text/html", **headers})


@dataclass(frozen=True)
class Alike:
    """One command line of ``check`` (``{base}``: the site's, ``{pages}``: the same
    server as ``localhost``, ``{file}``: the example as a local file, which
    ``rep-robots`` is given as ``--robots-file``; without ``-A``, ``rep-robots`` is given
    ``-A Scrapy``, the name ``check`` goes by): the tools' exit status, lines their
    (same) output has, and how its last line starts."""

    args: tuple[str, ...]
    status: int
    has: tuple[str, ...] = ()
    last: str = ""


#: (URLs of the docs' examples.)
DOCS_URLS = ("/shop/cart", "/private/press/launch", "/private/accounts", "/search?q=x")
ALIKE: dict[str, Alike] = {
    "a fetched robots.txt": Alike(
        tuple(f"{{base}}{path}" for path in DOCS_URLS),
        1,
        ("\nrobots.txt {base}/robots.txt: 200 (",),
    ),
    "a local file": Alike(
        ("{file}", *(f"https://example.com{path}" for path in DOCS_URLS)),
        1,
        ("\nrobots.txt {file} (local file)\n  crawl-delay: 2 s\n",),
    ),
    "--page": Alike(
        (
            "--page",
            "-A",
            "TestBot",
            "{pages}/noindex",
            "{pages}/meta",
            "{pages}/plain",
            "{pages}/private/x",
        ),
        1,  # /private/x is disallowed
        (
            # the page's directives, and what the crawl does with the page: its items dropped
            "      page: 200, directives: noindex (X-Robots-Tag: noindex)\n"
            "      => not for this crawl: noindex by header X-Robots-Tag: noindex\n"
            "  allowed     {pages}/meta",
            '      page: 200, directives: nofollow (<meta name="robots" content="nofollow">)\n'
            "      => kept\n  allowed     {pages}/plain",
        ),
        "  DISALLOWED",  # a URL robots.txt disallows is not fetched
    ),
    "--page with a purpose": Alike(
        ("--page", "--purpose", "ai-train", "-A", "TestBot", "{pages}/notrain", "{pages}/plain"),
        1,
        (
            "        header Content-Usage: train-ai=n  (ai-train no",
            "      => not for this crawl: ai-train denied by header Content-Usage",
        ),
    ),
    # the inputs at their edges, against a local file
    "a path against a local file": Alike(
        ("{file}", "/private/a"), 1, ("DISALLOWED  /private/a  line 8: Disallow: /private/",)
    ),
    "a URL without a path": Alike(
        ("{file}", "https://e.com"), 0, ("allowed     https://e.com  no rule matches",)
    ),
    "an IPv6 host": Alike(
        ("{file}", "http://[::1]:8080/private/"),
        1,
        ("DISALLOWED  http://[::1]:8080/private/  line 8: Disallow: /private/",),
    ),
    "a timeout of a day": Alike(
        ("{file}", "/a", "--timeout", "86400"), 0, ("allowed     /a  no rule matches",)
    ),
    "a timeout under a second": Alike(
        ("{file}", "/a", "--timeout", "0.5"), 0, ("allowed     /a  no rule matches",)
    ),
}


@pytest.fixture(scope="module")
def alike_base() -> Iterator[str]:
    with serving(AlikeSite) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("name", list(ALIKE))
@pytest_twisted.ensureDeferred
async def test_both_tools_print_the_same_lines(
    alike_base: str, tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m scrapy_rep check`` and ``scrapy rep-robots`` lay out the same facts
    alike (docs/cli.md): for the same robots.txt, options and URLs they print the same
    lines, with and without ``--page`` and ``--purpose``, and exit alike."""
    case = ALIKE[name]
    local = tmp_path / "robots.txt"
    local.write_bytes(EXAMPLE)
    pages = alike_base.replace("127.0.0.1", "localhost")
    args = [arg.format(base=alike_base, pages=pages, file=local) for arg in case.args]
    robots_args = ["--robots-file", *args] if case.args[0] == "{file}" else list(args)
    if "-A" not in args:
        robots_args = ["-A", "Scrapy", *robots_args]
    check_status, checked = await check_async(*args)
    assert capsys.readouterr().err == ""  # check's standard error
    robots_status, printed = await robots_async(*robots_args, user_agent=None)
    assert checked == printed  # rep-robots' standard output, then its standard error
    assert check_status == robots_status == case.status, checked
    for line in case.has:
        assert line.format(base=alike_base, pages=pages, file=local) in checked, checked
    assert checked.rstrip().splitlines()[-1].startswith(case.last), checked
