"""Whole-crawl property tests: a seeded site generator, an oracle and the properties.

Every recent defect came from combining parts that were each tested alone, so this
builds the combination. For a seed, :func:`generate` makes a few origins served over
real HTTP on 127.0.0.1 (one port each, plus a license origin on a port of its own):

- robots.txt small or over 500 KiB (rules at the start, a rule and a ``License:`` line
  past the cap at the end), with ``Disallow``, ``Content-Usage`` and ``Content-Signal``
  lines in the group and before it, and ``License:`` lines (RSL on the same host, on
  another host, redirected, and unfollowable: a redirect loop, a redirect to ``ftp:``);
- tdmrep.json small or over 500 KiB, reservations early and late (the late ones past
  the cap);
- pages with robots meta tags, ``X-Robots-Tag`` (also scoped to another bot),
  ``Content-Usage`` headers, ``noai`` / ``noimageai`` and TDMRep headers and meta;
- media files (:mod:`mediafiles`) with IPTC Data Mining in several containers, intact
  or broken (cut), some with ``X-Robots-Tag: noai``; from generation 3 in every form
  ExifTool reads (the RDF forms of a value, UTF-16 / UTF-32 packets, PNG ``tEXt`` /
  ``zTXt`` and raw profiles, XMP in a TIFF's later IFDs, a JPEG's Exif and Photoshop
  blocks), XMP that cannot be read (fails closed), C2PA/CAWG manifests, and half of the
  images through ``ImagesPipeline`` (the rest, and every other file, through
  ``FilesPipeline``);

with ``user_agents``, some pages' requests carry their own User-Agent (another crawler's,
a Mozilla-style one, a browser's) and robots.txt has groups for those crawlers: every
name a request is held to must hold (docs/decisions.md, 'Every name a request can be held
to'); each document delivered whole, chunked, slowly, or cut (the connection closed before
the ``Content-Length`` promised). The crawl's settings come from the same seed:
``REP_PURPOSE``, Scrapy's HTTP cache, a ``JOBDIR`` pause and resume, the Redis store
(when ``redis-server`` is installed), small caches, ``CONCURRENT_REQUESTS`` from 1 to
64, retries, AutoThrottle, the audit trail, and ``REP_OVERRIDES`` (some origins then
served under the host name ``localhost``, which an override covers, and in some crawls
the override has expired by the robots.txt middleware's clock: :func:`_overrides`).

:func:`oracle` applies the pure functions (``parse_robotstxt``, ``parse_tdmrep``,
``parse_rsl``, ``rep_engine.verdict.decide.decide``, ``rep_engine.verdict.page.decide_page``,
the directives parsers, ``read_media``: the pure reader) to the documents as they were written (and
checks that the reader finds the statement the generator wrote in every intact file;
an image the pipeline's own conversion cannot open is a failed download), with the stand-ins of
docs/behaviour.md "Fetch outcomes" for what cannot be read whole (a cut robots.txt is
unreachable: its origin's requests are dropped once given up on; a cut tdmrep.json is
given up on: TDM rights reserved, AI requests dropped; a cut RSL license is unreachable:
no AI use; a cut page or file is a failed download). :func:`check` compares the crawl
with it: what the servers served, the items kept, the files stored, and the audit
trail's ``verify``.

Used by ``tests/integration/test_whole_crawl_properties.py`` (a fast slice of fixed seeds) and by
``benchmarks/whole_crawl_properties.py`` (thousands of seeds).
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from scrapy import Request, Spider, signals
from twisted.internet import reactor
from twisted.python.failure import Failure
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Site
from twisted.web.server import Request as WebRequest

from rep_engine.directives import combine, header_directives, meta_directives
from rep_engine.fetch.cache import CacheEntry
from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.robotstxt.useragent import held_names
from rep_engine.urls.origins import origin_of
from rep_engine.usage.imageusage import is_image_url
from rep_engine.usage.media.reading import dmi_signal, read_media
from rep_engine.usage.rsl.document import ABSENT, UNREACHABLE, RslDocument, parse_rsl
from rep_engine.usage.tdmrep import (
    NO_FILE,
    RESERVED_ALL,
    TdmRepFile,
    parse_tdmrep,
)
from rep_engine.verdict.decide import (
    LICENSE,
    ROBOTS,
    TDM,
    Allowed,
    Obey,
    Refused,
    RequestFacts,
    RequestRules,
)
from rep_engine.verdict.decide import decide as verdict_of
from rep_engine.verdict.page import PageFacts, PageRules, PageStatements, decide_page
from rep_engine.verdict.policy import TDM_PURPOSES, UsagePolicy
from tests.support.scrapyversions import stop

AGENT: Final = "TestBot/1.0 (+https://example.com/bot)"
TOKEN: Final = "TestBot"
#: What a request refused because the spider closed while it waited in place for a
#: document says (scrapy_rep/crawl/documents/documents.py).
CLOSED_WHILE_WAITING: Final = "the spider closed while it waited"
DELIVERIES: Final = ("whole", "chunked", "slow", "cut")
HTML: Final = {"Content-Type": "text/html; charset=utf-8"}
TEXT: Final = {"Content-Type": "text/plain"}
PLUS_VOCAB: Final = "http://ns.useplus.org/ldf/vocab/"


# --------------------------------------------------------------------------- serving


@dataclass
class Doc:
    """One resource as the generator wrote it, and how it is delivered."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    #: ``whole``, ``chunked`` (no Content-Length, several chunks), ``slow`` (pieces a
    #: few hundredths of a second apart), ``cut`` (closed after ``cut_at`` bytes of a
    #: promised ``Content-Length``).
    delivery: str = "whole"
    cut_at: int = 0
    #: ``slow``: in this many pieces, this many seconds apart
    pieces: int = 5
    pause: float = 0.03

    @property
    def is_cut(self) -> bool:
        """Cut before the client could have read what counts of it. A cut past the
        500 KiB a client reads of robots.txt, tdmrep.json or a license is not noticed
        (the download stops there); callers decide for other kinds."""
        return self.delivery == "cut"

    def describe(self) -> str:
        extra = f"@{self.cut_at}" if self.delivery == "cut" else ""
        return f"{self.status} {len(self.body)}B {self.delivery}{extra}"


def redirect_doc(location: str) -> Doc:
    return Doc(301, b"", {"Location": location})


class PropOrigin(Resource):
    isLeaf = True

    def __init__(self, name: str, log: list[tuple[str, str]]) -> None:
        super().__init__()
        self.name = name
        self.log = log
        self.routes: dict[str, Doc] = {}
        #: path -> what it serves once it has been served once (a document that changes)
        self.later: dict[str, Doc] = {}
        #: (``time.monotonic()``, path) of every request, in order
        self.times: list[tuple[float, str]] = []
        self.open: list[WebRequest] = []

    def render_GET(self, request: WebRequest) -> bytes | int:
        path = request.uri.decode()
        self.log.append((self.name, path))
        self.times.append((time.monotonic(), path))
        doc = self.routes.get(path)
        if path in self.later:
            self.routes[path] = self.later.pop(path)
        if doc is None:
            request.setResponseCode(404)
            request.setHeader("Content-Type", "text/plain")
            return b"not found"
        request.setResponseCode(doc.status)
        for name, value in doc.headers.items():
            request.setHeader(name, value)
        body = doc.body
        if doc.delivery == "whole" or not body:
            return body
        self.open.append(request)
        if doc.delivery == "chunked":
            _write_pieces(request, _pieces(body, 4), 0.0, close=False)
        elif doc.delivery == "slow":
            request.setHeader("Content-Length", str(len(body)))
            _write_pieces(request, _pieces(body, doc.pieces), doc.pause, close=False)
        else:  # cut
            request.setHeader("Content-Length", str(len(body)))
            _write_pieces(request, _pieces(body[: doc.cut_at], 2), 0.0, close=True)
        return NOT_DONE_YET


def _pieces(body: bytes, count: int) -> list[bytes]:
    size = max(1, -(-len(body) // count))
    return [body[n : n + size] for n in range(0, len(body), size)] or [b""]


def _write_pieces(request: WebRequest, pieces: list[bytes], delay: float, close: bool) -> None:
    if request.finished or request._disconnected:
        return
    if not pieces:
        if close:
            transport = request.channel.transport if request.channel else None
            if transport is not None:
                transport.loseConnection()  # flushes what was written, then closes
        else:
            request.finish()
        return
    request.write(pieces[0])
    reactor.callLater(delay, _write_pieces, request, pieces[1:], delay, close)  # type: ignore[attr-defined]


class PropSites:
    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []
        self.origins: dict[str, PropOrigin] = {}
        self.bases: dict[str, str] = {}
        self._ports: list[Any] = []

    def add(self, name: str) -> PropOrigin:
        origin = PropOrigin(name, self.log)
        port = reactor.listenTCP(0, Site(origin), interface="127.0.0.1")  # type: ignore[attr-defined]
        self._ports.append(port)
        self.origins[name] = origin
        self.bases[name] = f"http://127.0.0.1:{port.getHost().port}"
        return origin

    def served(self) -> set[str]:
        return {self.bases[name] + path for name, path in self.log}

    async def close(self) -> None:
        for origin in self.origins.values():
            for request in origin.open:
                if not request.finished and not request._disconnected:
                    request.finish()
        for port in self._ports:
            await port.stopListening()


# --------------------------------------------------------------------------- the plan


@dataclass
class FilePlan:
    url: str
    page: str
    container: str
    value: str | None
    broken: bool
    doc: Doc
    #: Where and how the statement is written (:data:`MEDIA_FORMS`; ``element``: a
    #: plain packet where the container keeps it), and the pipeline that downloads the
    #: file: ``files`` (``FilesPipeline``) or ``images`` (``ImagesPipeline``).
    form: str = "element"
    pipeline: str = "files"


@dataclass
class PagePlan:
    url: str
    doc: Doc
    files: list[str]
    meta: str
    header: str
    noimageai: bool


@dataclass
class Plan:
    seed: int
    sites: PropSites
    #: origin base -> robots.txt, tdmrep.json (None: absent) as written
    robots: dict[str, Doc]
    tdmrep: dict[str, Doc]
    #: every URL the generator serves something at (licenses, redirects too)
    docs: dict[str, Doc]
    pages: dict[str, PagePlan]
    files: dict[str, FilePlan]
    settings: dict[str, Any]
    phases: int
    notes: list[str]
    #: page URL -> the User-Agent its request is sent with (``user_agents=True``)
    user_agents: dict[str, str] = field(default_factory=dict)
    #: How far ahead of the real clock the robots.txt middleware's clock runs (seconds):
    #: past the expiry of the crawl's ``REP_OVERRIDES`` when it has expired.
    clock_ahead: float = 0.0
    #: The slot-delay dimension (``slots=True``): origin base -> the robots.txt served
    #: from its second download on (a document that changes during the crawl), and
    #: whether the override expires during the crawl (``expires_after`` seconds after
    #: the spider opens: the middleware's clock jumps past it then; ``expired_at``: when,
    #: ``time.monotonic()``, set by the crawl).
    robots_later: dict[str, Doc] = field(default_factory=dict)
    expires_after: float = 0.0
    expired_at: float = 0.0
    #: The scrapy-redis dimension (``workers=True``): how many workers share one
    #: scrapy-redis queue and dupefilter (each with a ``JOBDIR`` and a trail of its own).
    workers: int = 1
    #: The ``download_async`` dimension (``download_async=True``): page URL -> the page
    #: its callback fetches itself (``engine.download_async``) before it yields its item.
    fetches: dict[str, str] = field(default_factory=dict)

    def start_urls(self) -> list[str]:
        return list(self.pages)

    def worker_settings(self, worker: int) -> dict[str, Any]:
        """The settings of worker ``worker``: with several, each has its own ``JOBDIR``,
        trail and HTTP cache folder (a worker's own state), the rest shared."""
        if self.workers == 1:
            return self.settings
        settings = dict(self.settings)
        for key in ("JOBDIR", "REP_AUDIT_FILE", "HTTPCACHE_DIR"):
            if key in settings:
                path = Path(settings[key])
                settings[key] = str(path.with_name(f"w{worker}-{path.name}"))
        return settings

    def trails(self) -> list[str]:
        """The audit trails the crawl writes (one per worker), if it writes any."""
        return [
            self.worker_settings(worker)["REP_AUDIT_FILE"]
            for worker in range(self.workers)
            if "REP_AUDIT_FILE" in self.settings
        ]


PAGE_META: Final = (
    "",
    "",
    "",
    "",
    "",
    "noindex",
    "noai",
    "noimageai",
    "none",
    "nofollow",
    "noindex, noai",
)
PAGE_HEADER: Final = ("", "", "", "", "", "noindex", "noai", "otherbot: noindex", "TestBot: noai")
CONTENT_USAGE: Final = (
    "",
    "",
    "",
    "",
    "",
    "",
    "train-ai=n",
    "search=n",
    "train-ai=y",
    "ai-use=n",
    "Train-AI=n",
)
SIGNALS: Final = (
    "ai-train=no",
    "search=yes, ai-input=no",
    "ai-train=yes, ai-input=yes",
    "use=reference",
    "search=no",
)
CONTAINERS: Final = ("jpg", "png", "webp", "tif", "gif", "mp4", "pdf")
CONTENT_TYPES: Final = {
    "jpg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "tif": "image/tiff",
    "gif": "image/gif",
    "mp4": "video/mp4",
    "pdf": "application/pdf",
}
RSL_TERMS: Final = (
    '<prohibits type="usage">ai-train</prohibits>',
    '<prohibits type="usage">ai-input</prohibits>',
    '<prohibits type="usage">search</prohibits>',
    '<permits type="usage">all</permits>',
    '<permits type="usage">all</permits>',
    '<permits type="usage">ai-train</permits>',
)


@lru_cache(maxsize=256)
def media_body(container: str, value: str | None) -> bytes:
    from tests.support.mediafiles import gif, jpeg, mp4, pdf, png, tiff, webp, xmp_packet

    packet = xmp_packet(value)
    if container == "jpg":
        return jpeg(packet)
    if container == "png":
        return png(packet, compressed=value is not None and len(value) % 2 == 0)
    return {"webp": webp, "tif": tiff, "gif": gif, "mp4": mp4, "pdf": pdf}[container](packet)


#: Generation 3: the forms of a file's statement per container, besides the plain
#: packet: the RDF forms of a value, packets in UTF-16 / UTF-32, the places ExifTool
#: reads XMP besides the one of XMP Part 3, XMP that cannot be read (``unseen``: a
#: zTXt XMP chunk that does not inflate, a packet in EBCDIC), a C2PA/CAWG manifest.
RDF_VALUE_FORMS: Final = ("qualified", "described", "li-resource", "value-attribute")
MEDIA_FORMS: Final = {
    "jpg": ("element", *RDF_VALUE_FORMS, "utf-16-be", "utf-16-le", "utf-32-le", "exif-ifd0",
            "photoshop", "unseen-ebcdic", "c2pa"),
    "png": ("element", "qualified", "li-resource", "tEXt", "zTXt", "raw-zTXt", "raw-tEXt",
            "eXIf", "unseen-ztxt"),
    "tif": ("element", "qualified", "ifd1", "ifd2", "exif", "subifd"),
    "webp": ("element", *RDF_VALUE_FORMS),
    "gif": ("element", *RDF_VALUE_FORMS),
    "mp4": ("element", *RDF_VALUE_FORMS, "utf-16-le"),
    "pdf": ("element", *RDF_VALUE_FORMS, "utf-16-be", "utf-32-le"),
}  # fmt: skip
IMAGE_CONTAINERS: Final = ("jpg", "png", "webp", "tif", "gif")
#: The CAWG training-and-mining entries a ``c2pa`` file carries for each value.
C2PA_ENTRIES: Final = {
    None: {"cawg.ai_inference": "constrained"},
    "DMI-PROHIBITED": {"cawg.ai_training": "notAllowed", "cawg.ai_inference": "notAllowed"},
    "DMI-ALLOWED": {"cawg.ai_training": "allowed", "cawg.ai_inference": "allowed"},
    "DMI-PROHIBITED-AIMLTRAINING": {"cawg.ai_generative_training": "notAllowed"},
    "DMI-PROHIBITED-EXCEPTSEARCHENGINEINDEXING": {"cawg.data_mining": "constrained"},
}


@lru_cache(maxsize=512)
def form_body(container: str, value: str | None, form: str) -> bytes:
    """A file whose statement ``value`` is written in ``form`` (:data:`MEDIA_FORMS`)."""
    from tests.support.mediafiles import (
        c2pa_jpeg,
        encoded,
        gif,
        jpeg,
        jpeg_exif,
        jpeg_photoshop,
        mp4,
        pdf,
        png,
        png_chunk,
        png_exif,
        png_raw_profile,
        png_with,
        tiff_in,
        webp,
        xmp_packet,
    )  # fmt: skip

    if form == "element":
        return media_body(container, value)
    if form == "c2pa":
        return c2pa_jpeg(C2PA_ENTRIES[value])
    if form == "unseen-ztxt":
        return png_with(png(), png_chunk(b"zTXt", b"XML:com.adobe.xmp\x00\x00" + b"\x00" * 40))
    packet = xmp_packet(value, form=form if form in RDF_VALUE_FORMS else "element")
    if form == "unseen-ebcdic":
        return jpeg(xmp_packet(value, begin="").decode().encode("cp500"))
    if form.startswith("utf-"):
        packet = encoded(packet, form)
    elif form in ("tEXt", "zTXt"):
        return png(xmp_packet(value, begin=""), chunk=form)
    elif form.startswith("raw-"):
        return png_raw_profile(packet, chunk=form[4:])
    elif form in ("ifd1", "ifd2", "exif", "subifd"):
        return tiff_in(packet, form)
    builders = {"jpg": jpeg, "png": png, "webp": webp, "gif": gif, "mp4": mp4, "pdf": pdf,
                "tif": lambda p: tiff_in(p, "ifd0")}  # fmt: skip
    special = {"exif-ifd0": jpeg_exif, "photoshop": jpeg_photoshop, "eXIf": png_exif}
    return special.get(form, builders[container])(packet)


def written_statements(plan_file: FilePlan) -> list[str]:
    """The sources of the signals the reader must find in an intact file, from what the
    generator wrote in it."""
    if plan_file.form.startswith("unseen"):
        return ["unreadable XMP"]
    if plan_file.form == "c2pa":
        entries = C2PA_ENTRIES[plan_file.value]
        return [f"C2PA cawg.training-mining {name}: {use}" for name, use in entries.items()]
    return [] if plan_file.value is None else [f"XMP plus:DataMining {plan_file.value}"]


def _images_pipeline_converts(body: bytes) -> bool:
    """Whether ``ImagesPipeline`` (Scrapy 2.19 ``get_images`` / ``convert_image``) can
    open and convert ``body``: a cut image it cannot is a failed download."""
    import io

    from PIL import Image, ImageOps

    try:
        image = ImageOps.exif_transpose(Image.open(io.BytesIO(body)))
        if image.mode != "RGB":
            image = image.convert("RGBA").convert("RGB")
        image.save(io.BytesIO(), "JPEG")
    except Exception:  # what Pillow raises on a broken image varies: any is a failure
        return False
    return True


def _delivery(rng: random.Random, cut: float = 0.12) -> str:
    if rng.random() < cut:
        return "cut"
    return rng.choice(("whole", "whole", "chunked", "slow"))


def _deliver(rng: random.Random, doc: Doc, cut: float = 0.12) -> Doc:
    doc.delivery = _delivery(rng, cut) if doc.body else "whole"
    if doc.delivery == "cut":
        doc.cut_at = rng.randrange(0, len(doc.body))
    return doc


def _rsl(terms: str, url: str = "/") -> bytes:
    return (
        f'<rsl xmlns="https://rslstandard.org/rsl"><content url="{url}"><license>{terms}'
        "</license></content></rsl>"
    ).encode()


#: The User-Agents a page's request may carry (``generate(user_agents=True)``): another
#: crawler's, one in a Mozilla-style string, a browser's, the crawler's own.
SENT_AS: Final = (
    "otherbot/2.0 (+https://example.com/other)",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0",
    "TestBot/2.0",
)


def _other_groups(rng: random.Random, paths: list[str]) -> str:
    """robots.txt groups for the other crawlers a request may be sent as: their own
    Disallow lines, an Allow: / exemption, sometimes a Content-Usage "no"."""
    lines: list[str] = []
    for name in ("otherbot", "googlebot"):
        if rng.random() < 0.6:
            lines.append(f"User-agent: {name}")
            lines.extend(f"Disallow: {p}" for p in rng.sample(paths, rng.randint(0, 2)))
            lines.append("Allow: /")
            if rng.random() < 0.3:
                lines.append("Content-Usage: train-ai=n")
    return "\n".join(lines) + "\n" if lines else ""


#: The generator's revisions: a seed names the same sites and settings in one revision
#: for good (the long run's findings stay reproducible); a new kind of document comes
#: in a new revision, drawn from a random source of its own.
GENERATIONS: Final = (1, 2, 3)


def generate(
    seed: int,
    sites: PropSites,
    workdir: Path,
    redis_url: str | None,
    generation: int = 1,
    user_agents: bool = False,
    slots: bool = False,
    workers: bool = False,
    download_async: bool = False,
) -> Plan:
    """The sites of ``seed`` (scripted on ``sites``) and the crawl's settings.

    Generation 2 adds robots.txt files between 256 KiB and 500 KiB whose last lines are
    rules (``Disallow``, ``Content-Usage``), all of which count. Generation 3 writes the
    media files' statements in the forms of :data:`MEDIA_FORMS` and downloads half of
    the images with ``ImagesPipeline``. ``user_agents``: some pages' requests carry their
    own User-Agent (:data:`SENT_AS`) and robots.txt has groups for those crawlers, drawn
    from a random source of its own (the other draws stay the same). ``slots``: requests
    wait in their download slots (``DOWNLOAD_DELAY``, ``Crawl-delay`` lines, AutoThrottle)
    while documents change (a robots.txt fresh for a second, then another one: pages it
    changes for may go either way, but none under the first once the second is served)
    and an override expires during the crawl (:func:`_slot_dimension`), from a source of
    their own too. ``workers``: two workers share one scrapy-redis queue and dupefilter,
    are paused together mid-crawl and resumed (:func:`_workers_dimension`; each with a
    ``JOBDIR`` and a trail of its own when the seed draws them). ``download_async``:
    some pages' callbacks fetch another page of the crawl themselves before they yield
    their item (:func:`_fetches`). Both from sources of their own."""
    rng = random.Random(seed)
    slot = random.Random(f"{seed}/slots") if slots else None
    robots_later: dict[str, Doc] = {}
    sent_as = random.Random(f"{seed}/user-agents") if user_agents else None
    agents: dict[str, str] = {}
    more = random.Random(f"{seed}/generation-2")
    third = random.Random(f"{seed}/generation-3")
    over = random.Random(f"{seed}/overrides")  # its own draws: the others stay the seed's
    overridden = over.random() < 0.5
    notes: list[str] = []
    lic = sites.add("lic")
    lic_base = sites.bases["lic"]
    docs: dict[str, Doc] = {}
    robots_docs: dict[str, Doc] = {}
    tdm_docs: dict[str, Doc] = {}
    pages: dict[str, PagePlan] = {}
    files: dict[str, FilePlan] = {}

    def serve(origin: PropOrigin, base: str, path: str, doc: Doc) -> None:
        origin.routes[path] = doc
        docs[base + path] = doc

    for number in range(rng.randint(1, 3)):
        name = f"s{number}"
        origin = sites.add(name)
        if overridden and over.random() < 0.7:  # the host REP_OVERRIDES names
            sites.bases[name] = sites.bases[name].replace("127.0.0.1", OVERRIDDEN_HOST)
        base = sites.bases[name]
        npages = rng.randint(2, 6)
        paths = [f"/p/{n}" for n in range(npages)]
        # ---- licenses this origin's robots.txt names
        license_lines: list[str] = []
        for k in range(rng.choice((0, 0, 0, 1, 2))):
            where = rng.choice(("same", "other", "redirected", "loop", "ftp"))
            url_path = rng.choice(("/", "/p/*", "/m/*", "/p/1"))
            body = _rsl(rng.choice(RSL_TERMS), url_path)
            doc = _deliver(rng, Doc(200, body, {"Content-Type": "application/rsl+xml"}), 0.08)
            if where == "same":
                serve(origin, base, f"/license{k}.xml", doc)
                license_lines.append(f"{base}/license{k}.xml")
            elif where == "other":
                serve(lic, lic_base, f"/{name}-{k}.xml", doc)
                license_lines.append(f"{lic_base}/{name}-{k}.xml")
            elif where == "redirected":
                serve(lic, lic_base, f"/{name}-{k}.xml", doc)
                serve(origin, base, f"/lic{k}", redirect_doc(f"{lic_base}/{name}-{k}.xml"))
                license_lines.append(f"{base}/lic{k}")
            elif where == "loop":
                serve(origin, base, f"/loop{k}a", redirect_doc(f"{base}/loop{k}b"))
                serve(origin, base, f"/loop{k}b", redirect_doc(f"{base}/loop{k}a"))
                license_lines.append(f"{base}/loop{k}a")
            else:
                serve(origin, base, f"/ftp{k}", redirect_doc(f"ftp://127.0.0.1/{name}-{k}.xml"))
                license_lines.append(f"{base}/ftp{k}")
        # ---- files, each shown by one page
        file_paths: dict[str, list[str]] = {p: [] for p in paths}
        for n in range(rng.choice((0, 1, 2, 3, 4))):
            container = rng.choice(CONTAINERS)
            value = rng.choice((None, "DMI-PROHIBITED", "DMI-ALLOWED",
                                "DMI-PROHIBITED-AIMLTRAINING",
                                "DMI-PROHIBITED-EXCEPTSEARCHENGINEINDEXING"))  # fmt: skip
            body = media_body(container, value)
            broken = rng.random() < 0.2
            if broken:  # a file cut as written (it is delivered whole)
                body = body[: rng.randrange(len(body) // 3, len(body))]
            headers = {"Content-Type": CONTENT_TYPES[container]}
            if rng.random() < 0.15:
                headers["X-Robots-Tag"] = "noai"
            path = f"/m/{n}.{container}"
            doc = _deliver(rng, Doc(200, body, headers), 0.1)
            form, pipeline = "element", "files"
            if generation >= 3:  # from its own source: the draws above stay generation 1's
                form = third.choice(MEDIA_FORMS[container])
                if container in IMAGE_CONTAINERS and third.random() < 0.5:
                    pipeline = "images"
                if form != "element":
                    doc.body = form_body(container, value, form)
                    if broken:
                        doc.body = doc.body[: third.randrange(len(doc.body) // 3, len(doc.body))]
                    if doc.delivery == "cut":
                        doc.cut_at = third.randrange(0, len(doc.body))
            serve(origin, base, path, doc)
            page = rng.choice(paths)
            file_paths[page].append(path)
            files[base + path] = FilePlan(
                base + path, base + page, container, value, broken, doc, form, pipeline
            )
        # ---- robots.txt
        group = ["User-agent: *"]
        before = []
        for path in rng.sample(paths + [f"/m/{n}" for n in range(2)], rng.randint(0, 2)):
            group.append(f"Disallow: {path}")
        if rng.random() < 0.5:
            prefix = rng.choice(("", "/p/1 ", "/m/1 ", "/p/2 ", "/p/0 ", "/m/0 "))
            statement = rng.choice(("train-ai=n", "search=n", "train-ai=y", "ai-use=n"))
            line = f"Content-Usage: {prefix}{statement}"
            (group if rng.random() < 0.6 else before).append(line)
        if rng.random() < 0.15:
            line = f"Content-Signal: {rng.choice(SIGNALS)}"
            (group if rng.random() < 0.6 else before).append(line)
        if rng.random() < 0.15:
            group.append("DisallowAITraining: /p/0")
        if slot is not None and slot.random() < 0.5:
            group.append(f"Crawl-delay: {slot.choice((0.1, 0.2, 0.3))}")
        text = "\n".join(before + group + [f"License: {u}" for u in license_lines]) + "\n"
        others = _other_groups(sent_as, paths) if sent_as is not None else ""
        text += others
        kind = rng.choice(("small", "small", "small", "big", "absent"))
        if kind == "absent":
            robots = Doc(404, b"User-agent: *\nDisallow: /\n", dict(TEXT))
        else:
            body = text.encode()
            if kind == "big":
                padding = "# padding padding padding padding padding\n"
                count = (MAX_BODY_BYTES + rng.randint(-40, 60_000)) // len(padding) + 1
                tail = "Disallow: /p/1\nContent-Usage: train-ai=n\nContent-Signal: search=no\n"
                tail += f"License: {lic_base}/late.xml\n"
                body += (padding * count + tail).encode()
            elif generation >= 2 and more.random() < 0.35:
                padding = "# padding padding padding padding padding\n"
                count = more.randint(262_144, MAX_BODY_BYTES - 2_000) // len(padding)
                tail = more.choice(
                    ("Disallow: /p/0\n", "Disallow: /p/\n", "Content-Usage: /p/ train-ai=n\n")
                )
                body += (padding * count + tail).encode()
            robots = _deliver(rng, Doc(200, body, dict(TEXT)), 0.08)
        if robots.delivery == "cut" and len(robots.body) > MAX_BODY_BYTES and rng.random() < 0.5:
            robots.cut_at = rng.randrange(MAX_BODY_BYTES + 1, len(robots.body))  # past the cap
        serve(origin, base, "/robots.txt", robots)
        robots_docs[base] = robots
        changes = slot is not None and kind == "small" and robots.delivery != "cut"
        if slot is not None and changes and slot.random() < 0.6:
            robots.headers["Cache-Control"] = "max-age=1"  # fresh for a second, then another
            more_lines = [f"Disallow: {p}" for p in slot.sample(paths, min(2, len(paths)))]
            if slot.random() < 0.5:  # without its Disallow lines
                changed = [line for line in group if not line.startswith("Disallow: ")]
            else:  # with more
                changed = group + more_lines
            licensed = [f"License: {u}" for u in license_lines]
            later_text = "\n".join(before + changed + licensed) + "\n" + others
            later = Doc(200, later_text.encode(), dict(TEXT))
            origin.later["/robots.txt"] = later
            robots_later[base] = later
        # ---- tdmrep.json
        tkind = rng.choice(("absent", "small", "small", "big"))
        if tkind == "absent":
            tdm = Doc(404, b"", dict(TEXT))
        else:
            entries: list[dict[str, Any]] = []
            for _ in range(rng.randint(1, 3)):
                location = rng.choice(
                    ("/p/0", "/p/1*", "/m/1*", "/m/0", "/p/*", "/nothing", "/p/3")
                )
                entries.append({"location": location, "tdm-reservation": rng.choice((0, 1))})
            if tkind == "big":
                filler = [
                    {"location": f"/filler/{n:06d}", "tdm-reservation": 0} for n in range(13_000)
                ]
                entries += [*filler, {"location": "/*", "tdm-reservation": 1}]
                entries += filler[:100]
            tdm = _deliver(
                rng, Doc(200, json.dumps(entries).encode(), {"Content-Type": "application/json"})
            )
            if tdm.delivery == "cut" and len(tdm.body) > MAX_BODY_BYTES and rng.random() < 0.5:
                tdm.cut_at = rng.randrange(MAX_BODY_BYTES + 1, len(tdm.body))
        serve(origin, base, "/.well-known/tdmrep.json", tdm)
        tdm_docs[base] = tdm
        # ---- pages
        for path in paths:
            meta = rng.choice(PAGE_META)
            header = rng.choice(PAGE_HEADER)
            usage = rng.choice(CONTENT_USAGE)
            headers = dict(HTML)
            if header:
                headers["X-Robots-Tag"] = header
            if usage:
                headers["Content-Usage"] = usage
            head = f'<meta name="robots" content="{meta}">' if meta else ""
            if rng.random() < 0.15:
                head += '<meta name="tdm-reservation" content="1">'
            if rng.random() < 0.1:
                headers["tdm-reservation"] = rng.choice(("0", "1"))
            links = "".join(f'<a class="f" href="{p}">f</a>' for p in file_paths[path])
            body = f"<html><head>{head}</head><body>{path}{links}</body></html>".encode()
            doc = _deliver(rng, Doc(200, body, headers), 0.08)
            serve(origin, base, path, doc)
            pages[base + path] = PagePlan(
                base + path,
                doc,
                [base + p for p in file_paths[path]],
                meta,
                header,
                "noimageai" in meta,
            )
            if sent_as is not None and sent_as.random() < 0.4:
                agents[base + path] = sent_as.choice(SENT_AS)
    if rng.random() < 0.3:  # the late license named past robots.txt's cap: must not be read
        serve(lic, lic_base, "/late.xml", Doc(200, _rsl(RSL_TERMS[2]), {}))
    if generation >= 3 and third.random() < 0.7:
        _media_origin(third, sites, serve, robots_docs, tdm_docs, pages, files)
    settings, phases = crawl_settings(rng, workdir, redis_url, notes)
    clock_ahead = _drawn_overrides(over, settings) if overridden else 0.0
    expires_after = 0.0
    if slot is not None:
        # an override written as tomorrow's date outlasts the clock's two-hour jump
        dated = overridden and len(str(settings["REP_OVERRIDES"][0]["expires"])) == 10
        expires_after = _slot_dimension(
            slot, settings, overridden and not clock_ahead and not dated
        )
    if any(plan_file.pipeline == "images" for plan_file in files.values()):
        settings["ITEM_PIPELINES"] = {
            "scrapy.pipelines.files.FilesPipeline": 1,
            "scrapy.pipelines.images.ImagesPipeline": 2,
        }
        settings["IMAGES_STORE"] = str(workdir / "images")
    worker_count = 1
    if workers:
        worker_count, phases = _workers_dimension(
            random.Random(f"{seed}/workers"), settings, redis_url, notes, phases,
            bool(robots_later),
        )  # fmt: skip
    fetches = _fetches(random.Random(f"{seed}/download-async"), pages) if download_async else {}
    return Plan(seed, sites, robots_docs, tdm_docs, docs, pages, files, settings, phases, notes,
                agents, clock_ahead, robots_later, expires_after, 0.0, worker_count,
                fetches)  # fmt: skip


def _workers_dimension(
    rng: random.Random,
    settings: dict[str, Any],
    redis_url: str | None,
    notes: list[str],
    phases: int,
    changing: bool = False,
) -> tuple[int, int]:
    """The scrapy-redis dimension's settings: one shared queue and dupefilter that
    persist across the pause (``SCHEDULER_PERSIST``), sometimes the shared robots.txt
    store too (always when a robots.txt changes during the crawl, ``changing``: the site
    serves its new version from its second download on, which without a shared store is
    the second worker's first, while the first worker's copy is still fresh: each
    worker's cache is its own); two workers, paused together and resumed. Without
    ``redis-server``: one worker as before, with a note."""
    if redis_url is None:
        notes.append(
            "the scrapy-redis dimension (redis-server is not installed; Debian: apt-get "
            "install redis-server)"
        )
        return 1, phases
    settings.update(
        SCHEDULER="scrapy_redis.scheduler.Scheduler",
        DUPEFILTER_CLASS="scrapy_redis.dupefilter.RFPDupeFilter",
        SCHEDULER_PERSIST=True,
        REDIS_URL=redis_url,
    )
    if rng.random() < 0.5 or changing:
        settings["REP_ROBOTSTXT_CACHE"] = redis_url
    return 2, 2


def _fetches(rng: random.Random, pages: dict[str, PagePlan]) -> dict[str, str]:
    """The ``download_async`` dimension: about four pages in ten fetch another page of
    the crawl from their callback (never themselves)."""
    urls = list(pages)
    if len(urls) < 2:
        return {}
    return {
        url: rng.choice([other for other in urls if other != url])
        for url in urls
        if rng.random() < 0.4
    }


def _slot_dimension(rng: random.Random, settings: dict[str, Any], override: bool) -> float:
    """The slot-delay dimension's settings: a ``DOWNLOAD_DELAY``, sometimes AutoThrottle
    (its delays above it), a robots.txt lifetime that a second reaches; and, for a crawl
    whose override holds at the start, sometimes the second after the spider opens at
    which it expires (``0``: it does not)."""
    settings["DOWNLOAD_DELAY"] = rng.choice((0.05, 0.1, 0.2))
    settings["REP_CACHE_MIN_TTL"] = 0.5
    if rng.random() < 0.3:
        settings.update(
            AUTOTHROTTLE_ENABLED=True, AUTOTHROTTLE_START_DELAY=0.1, AUTOTHROTTLE_MAX_DELAY=0.3
        )
    return rng.uniform(0.3, 1.5) if override and rng.random() < 0.6 else 0.0


#: The host an override covers: origins served under it (:func:`generate`) are on
#: 127.0.0.1 too, but they are another host to robots.txt and to ``REP_OVERRIDES``.
OVERRIDDEN_HOST: Final = "localhost"


def _drawn_overrides(rng: random.Random, settings: dict[str, Any]) -> float:
    """``REP_OVERRIDES`` for :data:`OVERRIDDEN_HOST`, expiring in an hour (written in a
    zone of its own; or, in a crawl where it does not expire, as tomorrow's date); and
    how far ahead the robots.txt middleware's clock runs: two hours in some crawls (the
    override passed the start check, but has expired when each request is decided: it
    never applies), else not at all."""
    zone = timezone(timedelta(hours=rng.choice((-8, 0, 5, 14))))
    ends = datetime.fromtimestamp(int(time.time()) + 3600, zone)
    expired = rng.random() < 0.3
    expires = str(ends)
    if not expired and rng.random() < 0.3:
        expires = (ends + timedelta(days=1)).date().isoformat()
    reason = "written permission of the site owner"
    settings["REP_OVERRIDES"] = [{"host": OVERRIDDEN_HOST, "reason": reason, "expires": expires}]
    return 7200.0 if expired else 0.0


def _media_origin(
    rng: random.Random,
    sites: PropSites,
    serve: Any,
    robots_docs: dict[str, Doc],
    tdm_docs: dict[str, Doc],
    pages: dict[str, PagePlan],
    files: dict[str, FilePlan],
) -> None:
    """Generation 3: an origin that says nothing (no robots.txt, no tdmrep.json) whose
    pages show media files in the forms of :data:`MEDIA_FORMS`, so that each crawl for
    an AI purpose reads some: stored or refused by what they say, through both
    pipelines, intact, cut as written or cut in delivery."""
    origin = sites.add("media")
    base = sites.bases["media"]
    robots_docs[base] = Doc(404, b"", dict(TEXT))
    tdm_docs[base] = Doc(404, b"", dict(TEXT))
    serve(origin, base, "/robots.txt", robots_docs[base])
    serve(origin, base, "/.well-known/tdmrep.json", tdm_docs[base])
    values = (None, "DMI-PROHIBITED", "DMI-ALLOWED", "DMI-PROHIBITED-AIMLTRAINING",
              "DMI-PROHIBITED-EXCEPTSEARCHENGINEINDEXING")  # fmt: skip
    count = 0
    for number in range(rng.randint(1, 3)):
        path = f"/gallery/{number}"
        shown: list[str] = []
        for _ in range(rng.randint(1, 5)):
            container = rng.choice(CONTAINERS)
            value, form = rng.choice(values), rng.choice(MEDIA_FORMS[container])
            body = form_body(container, value, form)
            broken = rng.random() < 0.15
            if broken:
                body = body[: rng.randrange(len(body) // 3, len(body))]
            headers = {"Content-Type": CONTENT_TYPES[container]}
            if rng.random() < 0.1:
                headers["X-Robots-Tag"] = "noai"
            file_path = f"/media/{count}.{container}"
            count += 1
            pipeline = "images" if container in IMAGE_CONTAINERS and rng.random() < 0.5 else "files"
            doc = _deliver(rng, Doc(200, body, headers), 0.08)
            serve(origin, base, file_path, doc)
            shown.append(file_path)
            files[base + file_path] = FilePlan(
                base + file_path, base + path, container, value, broken, doc, form, pipeline
            )
        meta = "noimageai" if rng.random() < 0.1 else ""
        head = f'<meta name="robots" content="{meta}">' if meta else ""
        links = "".join(f'<a class="f" href="{p}">f</a>' for p in shown)
        body = f"<html><head>{head}</head><body>{path}{links}</body></html>".encode()
        doc = _deliver(rng, Doc(200, body, dict(HTML)), 0.05)
        serve(origin, base, path, doc)
        pages[base + path] = PagePlan(
            base + path, doc, [base + p for p in shown], meta, "", "noimageai" in meta
        )


def crawl_settings(
    rng: random.Random, workdir: Path, redis_url: str | None, notes: list[str]
) -> tuple[dict[str, Any], int]:
    purpose: Any = rng.choice(("search", "ai-train", "ai-input", ["search", "ai-train"]))
    settings: dict[str, Any] = {
        "ADDONS": {"scrapy_rep.Addon": 0},
        "USER_AGENT": AGENT,
        "REP_PURPOSE": purpose,
        "REP_UNREACHABLE_RETRY_DELAY": 0.2,
        "REP_UNREACHABLE_MAX_WAIT": 1.0,
        # Generous: a loaded machine (2 shared cores) once timed out slow deliveries at
        # 5 s (seeds 669, 972 of a long run; no timeout when run again). Nothing hangs.
        "DOWNLOAD_TIMEOUT": 15,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 1},
        "FILES_STORE": str(workdir / "files"),
        "CONCURRENT_REQUESTS": rng.choice((1, 2, 4, 8, 16, 64)),
        "RETRY_ENABLED": rng.random() < 0.4,
        "RETRY_TIMES": 1,
    }
    if rng.random() < 0.3:
        settings["HTTPCACHE_ENABLED"] = True
        settings["HTTPCACHE_DIR"] = str(workdir / "httpcache")
    if rng.random() < 0.3:
        settings.update(
            AUTOTHROTTLE_ENABLED=True, AUTOTHROTTLE_START_DELAY=0.01, AUTOTHROTTLE_MAX_DELAY=0.05
        )
    if rng.random() < 0.4:
        settings["REP_CACHE_MAX_ORIGINS"] = rng.choice((1, 2))
    if rng.random() < 0.3:
        settings["REP_CACHE_MAX_BYTES"] = rng.choice((2048, 65536))
    if rng.random() < 0.7:
        settings["REP_AUDIT_FILE"] = str(workdir / "trail.jsonl")
    if rng.random() < 0.25:
        if redis_url is None:
            notes.append(
                "the Redis store (redis-server is not installed; Debian: apt-get install "
                "redis-server)"
            )
        else:
            settings["REP_ROBOTSTXT_CACHE"] = redis_url
    phases = 1
    if rng.random() < 0.3:
        settings["JOBDIR"] = str(workdir / "job")
        phases = 2
    return settings, phases


def describe(plan: Plan) -> str:
    keys = ("REP_PURPOSE", "CONCURRENT_REQUESTS", "RETRY_ENABLED", "HTTPCACHE_ENABLED",
            "AUTOTHROTTLE_ENABLED", "REP_CACHE_MAX_ORIGINS", "REP_CACHE_MAX_BYTES",
            "REP_ROBOTSTXT_CACHE", "JOBDIR", "REP_AUDIT_FILE", "IMAGES_STORE",
            "REP_OVERRIDES")  # fmt: skip
    shown = {k: plan.settings[k] for k in keys if k in plan.settings}
    for key in ("JOBDIR", "REP_AUDIT_FILE", "REP_ROBOTSTXT_CACHE", "IMAGES_STORE"):
        if key in shown:
            shown[key] = "on"
    if plan.workers > 1:
        shown["workers"] = plan.workers
    if plan.fetches:
        shown["download_async"] = len(plan.fetches)
    return json.dumps(shown, default=str)


# --------------------------------------------------------------------------- the oracle


@dataclass
class Expect:
    """What the oracle says of each URL."""

    #: page or file URL -> "" (may be fetched) or why it must not be requested
    before: dict[str, str] = field(default_factory=dict)
    #: page URL -> True: its item is kept
    kept: dict[str, bool] = field(default_factory=dict)
    #: file URL -> "stored", "refused", "failed" (cut delivery), "unrequested"
    files: dict[str, str] = field(default_factory=dict)
    #: page URL -> its download fails (cut delivery)
    failed_pages: set[str] = field(default_factory=set)
    #: URLs whose expectation rests on a documented stand-in (why)
    stand_ins: dict[str, str] = field(default_factory=dict)
    #: file URL -> a statement the generator wrote in the intact file that the pure
    #: reader did not find (a property of the reader, checked before any crawl)
    unread: dict[str, str] = field(default_factory=dict)
    #: The slot-delay dimension: URLs whose expectation depends on when they are sent
    #: (their robots.txt changes, their override expires during the crawl): either way
    #: is right, checked against the time they reached the server (:func:`_in_force`).
    either: set[str] = field(default_factory=set)
    #: (robots.txt changed, override expired) -> the URLs refused then (pages)
    refused_in: dict[tuple[bool, bool], set[str]] = field(default_factory=dict)
    #: The ``download_async`` dimension: page URL -> the page its callback fetches whose
    #: "no" refuses its item (:func:`_fetched_pages_gate`), and file URL -> its fate had
    #: its page's item not been refused so (:func:`_after_the_pause`).
    gates: dict[str, str] = field(default_factory=dict)
    ungated: dict[str, str] = field(default_factory=dict)


def _purposes(settings: dict[str, Any]) -> tuple[str, ...]:
    purpose = settings["REP_PURPOSE"]
    return tuple(purpose) if isinstance(purpose, list) else (purpose,)


def _cut_noticed(doc: Doc) -> bool:
    """A cut robots.txt / tdmrep.json / license: noticed unless it falls past the
    500 KiB the download reads (at them, the download is not stopped yet: its data is
    lost)."""
    return doc.delivery == "cut" and doc.cut_at <= MAX_BODY_BYTES


def _follow(plan: Plan, url: str) -> tuple[Doc | None, str]:
    """The document at the end of ``url``'s redirects (as the fetch procedure follows
    them: 5 hops at most, http(s) only, no URL twice); ``None`` and why when none."""
    seen = {url}
    for _ in range(6):
        doc = plan.docs.get(url)
        if doc is None:
            return Doc(404), "404"
        if doc.status not in (301, 302, 303, 307, 308):
            return doc, ""
        url = doc.headers["Location"]
        if not url.startswith(("http://", "https://")):
            return None, "redirect to a non-http URL"
        if url in seen:
            return None, "redirect loop"
        seen.add(url)
    return None, "too many redirects"


def license_doc(plan: Plan, url: str) -> tuple[RslDocument, str]:
    doc, why = _follow(plan, url)
    if doc is None:
        # Unfollowable: its terms were never read. The reading that loses no "no"
        # (purpose notes §9: an unreadable license means no AI use).
        return parse_rsl(b""), f"license {why}"
    if _cut_noticed(doc):
        return UNREACHABLE, "license cut: unreachable"
    if 200 <= doc.status < 300:
        return parse_rsl(doc.body[:MAX_BODY_BYTES]), ""
    if 400 <= doc.status < 500 and doc.status != 429:
        return ABSENT, ""
    return UNREACHABLE, "license unreachable"


def _overridden(plan: Plan, base: str) -> bool:
    """Whether the crawl's ``REP_OVERRIDES`` lets requests to ``base`` past its robots.txt:
    the origin is served under :data:`OVERRIDDEN_HOST` and the override has not expired
    by the crawl's clock (:func:`_overrides`)."""
    host = base.split("://", 1)[1].rsplit(":", 1)[0]
    return "REP_OVERRIDES" in plan.settings and not plan.clock_ahead and host == OVERRIDDEN_HOST


def _without_disallow(body: bytes) -> bytes:
    """A robots.txt as an override reads it: its Allow/Disallow rules gone past, every
    opt-out kept, written apart from the crawl's own override code (the oracle must not
    share its bugs). A ``Disallow`` line becomes an empty ``Disallow:``, which disallows
    nothing but still ends its group's user-agent lines (dropped, it would merge the
    groups around it: ``User-agent: *`` / ``Disallow: /x`` / ``User-agent: otherbot``
    would give ``*`` otherbot's opt-outs); ``DisallowAITraining: P``, which the google
    profile reads as a ``Disallow`` too (Google's parser takes any key that starts with
    ``disallow``), stays as what it also is, the train-ai rule ``Content-Usage: P
    train-ai=n`` (docs/purpose-notes.md, 2b); every other line stays."""
    kept = []
    for line in body.split(b"\n"):
        key, _, value = line.partition(b":")
        if key.lower() == b"disallowaitraining":
            kept.append(b"Content-Usage: " + value.strip() + b" train-ai=n")
        elif key.lower().startswith(b"disallow"):
            kept.append(b"Disallow:")
        else:
            kept.append(line)
    return b"\n".join(kept)


def _decided_entry(document: Any, given_up: str = "") -> CacheEntry[Any]:
    """A document as the entry the crawl decides with (``given_up``: given up on)."""
    never = float("inf")
    return CacheEntry(document, given_up or "read", 0.0, never, never, unreachable=bool(given_up))


def oracle(plan: Plan) -> Expect:
    """What the crawl must do, from the documents as written. With the slot-delay
    dimension, each way the crawl may find them (its robots.txt before and after it
    changes, its override before and after it expires) is asked: a URL they agree on is
    expected as they say; one they differ on may go either way (:attr:`Expect.either`),
    and :func:`check` holds its arrival time to the way in force then."""
    if not plan.robots_later and not plan.expires_after:
        return _oracle(plan)
    ways: dict[tuple[bool, bool], Expect] = {}
    for changed in (False, True) if plan.robots_later else (False,):
        for expired in (False, True) if plan.expires_after else (bool(plan.clock_ahead),):
            robots = {**plan.robots, **plan.robots_later} if changed else plan.robots
            ahead = 7200.0 if expired else 0.0
            ways[changed, expired] = _oracle(replace(plan, robots=robots, clock_ahead=ahead))
    expect, *others = ways.values()
    for url, why in expect.before.items():
        if any(bool(other.before.get(url)) != bool(why) for other in others):
            expect.either.add(url)
    for url, kept in expect.kept.items():
        if any(other.kept.get(url) != kept for other in others):
            expect.either.add(url)
    for url, fate in expect.files.items():
        if any(other.files.get(url) != fate for other in others):
            expect.either.add(url)
    # A page whose callback fetches another page: the two are sent at different times, so
    # each may be sent under another way (the page under its override, the fetched page
    # after it expired, which then gates nothing): when either may go either way, so do
    # the page's item and its files.
    for url, fetched in plan.fetches.items():
        if url in expect.either or fetched in expect.either:
            expect.either.add(url)
            expect.either.update(plan.pages[url].files)
    for other in others:
        expect.stand_ins.update(other.stand_ins)
    expect.refused_in = {
        way: {url for url, why in found.before.items() if why and url in plan.pages}
        for way, found in ways.items()
    }
    return expect


def _oracle(plan: Plan) -> Expect:
    purposes = _purposes(plan.settings)
    ai = not TDM_PURPOSES.isdisjoint(purposes)
    rules = RequestRules.of(purposes, purpose_set=True)
    policy = UsagePolicy.of(purposes)
    page_rules = PageRules(policy)
    expect = Expect()
    per_origin: dict[str, Any] = {}
    for base, robots_doc in plan.robots.items():
        robots: RobotsTxt | None
        why = ""
        if _cut_noticed(robots_doc):
            robots, why = None, "robots.txt cut: unreachable, given up on"
        elif robots_doc.status == 404:
            robots = parse_robotstxt(b"")
        elif _overridden(plan, base):
            robots = parse_robotstxt(_without_disallow(robots_doc.body[:MAX_BODY_BYTES]))
        else:
            robots = parse_robotstxt(robots_doc.body[:MAX_BODY_BYTES])
        tdm: TdmRepFile | None = None
        given_up: str | None = None
        tdm_doc = plan.tdmrep[base]
        if ai and robots is not None:
            if _cut_noticed(tdm_doc):
                given_up = "cut: TDM rights taken as reserved"
            elif tdm_doc.status == 200:
                tdm = parse_tdmrep(tdm_doc.body[:MAX_BODY_BYTES])
        licenses: list[tuple[str, RslDocument]] = []
        license_notes: list[str] = []
        if robots is not None:
            for url in robots.licenses:
                doc, note = license_doc(plan, url)
                licenses.append((url, doc))
                if note:
                    license_notes.append(note)
        per_origin[base] = (robots, why, tdm, given_up, licenses, license_notes)

    def before(url: str) -> tuple[str, Any]:
        base = url[: url.index("/", len("http://"))]
        robots, why, tdm, given_up, licenses, notes = per_origin[base]
        if robots is None:
            expect.stand_ins[url] = why
            return why, None
        documents: dict[tuple[str, Any], CacheEntry[Any]] = {(ROBOTS, None): _decided_entry(robots)}
        if ai:
            documents[TDM, None] = (
                _decided_entry(RESERVED_ALL, given_up)
                if given_up
                else _decided_entry(tdm or NO_FILE)
            )
        for license_url, document in licenses:
            documents[LICENSE, license_url] = _decided_entry(document)

        def known(kind: str, key: Any) -> CacheEntry[Any] | None:
            return documents.get((kind, key if kind == LICENSE else None))

        names = held_names(AGENT, plan.user_agents.get(url, ""))  # every name held to
        facts = RequestFacts(url, origin_of(url), names[0], Obey.ALL, names)
        verdict = verdict_of(facts, rules, known)
        if isinstance(verdict, Refused) and verdict.reason == "forbidden" and verdict.robots:
            return f"robots.txt: {verdict.robots.explanation}", None
        if given_up:
            expect.stand_ins[url] = "tdmrep.json " + given_up
        if notes:
            expect.stand_ins[url] = "; ".join(notes)
        if isinstance(verdict, Refused):
            return verdict.message, None
        assert isinstance(verdict, Allowed), verdict
        return "", verdict.before

    for url, plan_file in plan.files.items():  # the reader, on every intact file
        if not plan_file.broken:
            found = [signal.source for signal in read_media(plan_file.doc.body).signals]
            for statement in written_statements(plan_file):
                if not any(source.startswith(statement) for source in found):
                    expect.unread[url] = f"{plan_file.form}: {statement} not read ({found})"
    for url, page in plan.pages.items():
        why, seen = before(url)
        expect.before[url] = why
        if why:
            expect.kept[url] = False
            for file_url in page.files:
                expect.files[file_url] = "unrequested"
                expect.before.setdefault(file_url, "its page was not fetched")
                if url in expect.stand_ins:
                    expect.stand_ins.setdefault(file_url, expect.stand_ins[url])
            continue
        if page.doc.is_cut:
            expect.failed_pages.add(url)
            expect.kept[url] = False
            for file_url in page.files:
                expect.files[file_url] = "unrequested"
                expect.before.setdefault(file_url, "its page failed")
            continue
        found = list(meta_directives(page.meta)) if page.meta else []
        tokens = tuple(held_names(AGENT, plan.user_agents.get(url, "")))
        found += header_directives(page.header, tokens) if page.header else []
        directives = combine(found)
        headers = page.doc.headers
        said: list[tuple[str, str]] = [("x-robots-tag", page.header)] if page.header else []
        meta = [("robots", page.meta)] if page.meta else []
        if ai:
            if "tdm-reservation" in headers:
                said.append(("tdm-reservation", headers["tdm-reservation"]))
            if b'name="tdm-reservation"' in page.doc.body:
                meta.append(("tdm-reservation", "1"))
        if "Content-Usage" in headers:
            said.append(("content-usage", headers["Content-Usage"]))
        statements = PageStatements(tuple(said), tuple(meta))
        refused = decide_page(PageFacts(url, tokens, seen), statements, page_rules).purpose
        kept = refused is None and not directives.blocks_indexing()
        expect.kept[url] = kept
        for file_url in page.files:
            expect.files[file_url] = _file_fate(
                plan, file_url, kept, page, directives, ai, before, policy, expect
            )
    _fetched_pages_gate(plan, expect)
    return expect


def _fetched_pages_gate(plan: Plan, expect: Expect) -> None:
    """The ``download_async`` dimension (docs/behaviour.md, 'A page a callback fetches
    itself'): a page that its callback's fetch brought back, and whose own verdict says
    no to keeping what is built from it, refuses the item the callback yields after it;
    a fetch refused before it is sent, or whose download fails, gates nothing. The
    gating page's own verdict counts, not its item's (which its own fetch may gate)."""
    own = dict(expect.kept)
    for url, fetched in plan.fetches.items():
        if not own.get(url) or expect.before.get(fetched) or fetched in expect.failed_pages:
            continue
        if own.get(fetched):
            continue
        expect.kept[url] = False
        expect.gates[url] = fetched
        for file_url in plan.pages[url].files:
            expect.ungated[file_url] = expect.files[file_url]
            expect.files[file_url] = "unrequested"


def _after_the_pause(plan: Plan, expect: Expect, outcome: Outcome) -> Expect:
    """``expect`` as the ``JOBDIR`` pause leaves it (``plan.phases == 2``): the pause
    closes the spider while a callback's own fetch may still wait in place for a document
    of its origin (robots.txt, tdmrep.json, an RSL license). That fetch is refused with a
    record of its own (``refused_by: closed``, docs/audit-trail.md, 'What a record is'),
    and the fetched page never comes back, so it gates nothing: only a page that came
    back and said no refuses the items yielded after it (docs/behaviour.md, 'A page a
    callback fetches itself'); the callback's item and files are then as its own page
    says. The oracle cannot tell which fetches the pause cuts; the crawl's spider says
    (:attr:`Outcome.cut_fetches`)."""
    if plan.phases != 2:
        return expect
    cut = {page for page, fetched in outcome.cut_fetches if expect.gates.get(page) == fetched}
    if not cut:
        return expect
    kept, files = dict(expect.kept), dict(expect.files)
    for page in cut:
        kept[page] = True  # gated only when its own page keeps it
        for file_url in plan.pages[page].files:
            files[file_url] = expect.ungated[file_url]
    return replace(expect, kept=kept, files=files)


def _file_fate(
    plan: Plan,
    url: str,
    kept: bool,
    page: PagePlan,
    directives: Any,
    ai: bool,
    before: Any,
    policy: UsagePolicy,
    expect: Expect,
) -> str:
    if not kept:
        return "unrequested"
    plan_file = plan.files[url]
    if page.noimageai and ai and (is_image_url(url) or plan_file.pipeline == "images"):
        return "refused-by-page"  # every URL of an item's images field is an image
    why, seen = before(url)
    if why:
        return "refused"
    if plan_file.doc.is_cut:
        return "failed"
    body = plan_file.doc.body
    converts = plan_file.pipeline == "files" or _images_pipeline_converts(body)
    if not ai:
        return "stored" if converts else "failed"
    headers = plan_file.doc.headers
    found = (
        header_directives(headers["X-Robots-Tag"], (TOKEN.lower(),))
        if "X-Robots-Tag" in headers
        else []
    )
    said = (("x-robots-tag", headers["X-Robots-Tag"]),) if found else ()
    reading = read_media(body)
    signals = reading.signals
    value = plan_file.value
    if plan_file.broken and value and (PLUS_VOCAB + value).encode() in body:
        # docs/media.md, "Hostile files": a broken packet that says prohibited keeps its
        # "no"; the file was cut after the whole value.
        stated = dmi_signal(value, f"XMP plus:DataMining {value} (cut packet)")
        if not any(signal.answers == stated.answers for signal in signals):
            if False in stated.answers:
                expect.stand_ins[url] = "cut XMP packet: the value is whole before the cut"
            signals = (*signals, stated)
    statements = PageStatements(said).also(inside=tuple(signals))
    facts = PageFacts(url, (TOKEN.lower(),), seen, image=True)
    if decide_page(facts, statements, PageRules(policy)).purpose is not None:
        return "refused"
    return "stored" if converts else "failed"


# --------------------------------------------------------------------------- the crawl


class WholeSpider(Spider):
    name = "wholecrawl"

    def __init__(
        self,
        urls: list[str],
        image_urls: frozenset[str] = frozenset(),
        user_agents: dict[str, str] | None = None,
        fetches: dict[str, str] | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.urls = urls
        #: page URL -> the page its callback fetches itself first (``download_async``)
        self.fetches = fetches or {}
        #: the pages fetched so, with what came back (a status, or the error)
        self.fetched: dict[str, list[str]] = {}
        #: (page URL, the page its callback fetched) for each fetch refused because the
        #: spider closed while it waited in place for a document (the pause)
        self.cut_fetches: list[tuple[str, str]] = []
        #: URL -> the User-Agent its request is sent with
        self.user_agents = user_agents or {}
        #: the file URLs that go to ImagesPipeline (``image_urls``), the others to
        #: FilesPipeline (``file_urls``)
        self.image_urls = image_urls
        self.downloaded: list[str] = []
        self.failed: dict[str, str] = {}

    async def start(self) -> Any:
        for url in self.urls:
            agent = self.user_agents.get(url)
            headers = {"User-Agent": agent} if agent else None
            yield Request(url, callback=self.parse, errback=self.errback, headers=headers)

    async def parse(self, response: Any) -> Any:
        self.downloaded.append(response.url)
        fetched = self.fetches.get(response.url)
        if fetched:
            from scrapy_rep.crawl.internals import download

            agent = self.user_agents.get(fetched)
            request = Request(
                fetched, headers={"User-Agent": agent} if agent else None, dont_filter=True
            )
            try:
                got = await download(self.crawler, request)
                outcome = str(got.status)
            except Exception as error:  # refused (IgnoreRequest), or a failed download
                outcome = f"{type(error).__name__}: {error}"
                if CLOSED_WHILE_WAITING in str(error):
                    self.cut_fetches.append((response.url, fetched))
            self.fetched.setdefault(fetched, []).append(outcome)
        links = [response.urljoin(u) for u in response.css("a.f::attr(href)").getall()]
        item: dict[str, Any] = {"url": response.url}
        item["file_urls"] = [u for u in links if u not in self.image_urls]
        if self.image_urls:
            item["image_urls"] = [u for u in links if u in self.image_urls]
        yield item

    def errback(self, failure: Failure) -> None:
        self.failed[failure.request.url] = str(failure.value)  # type: ignore[attr-defined]


@dataclass
class Outcome:
    downloaded: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    errors: int = 0
    #: the ERROR lines logged (their first 300 characters)
    error_lines: list[str] = field(default_factory=list)
    stats: list[dict[str, Any]] = field(default_factory=list)
    #: The ``download_async`` dimension: page URL -> what each callback's fetch of it got.
    fetched: dict[str, list[str]] = field(default_factory=dict)
    #: (page URL, the page its callback fetched) for each fetch the spider's close
    #: refused while it waited in place (:attr:`WholeSpider.cut_fetches`).
    cut_fetches: list[tuple[str, str]] = field(default_factory=list)


async def run_crawl(plan: Plan) -> Outcome:

    outcome = Outcome()
    urls = plan.start_urls()

    def collect(crawler: Any) -> None:
        crawler.signals.connect(
            lambda item, **_: outcome.items.append(dict(item)),
            signal=signals.item_scraped,
            weak=False,
        )
        if plan.clock_ahead:
            _clock_ahead(crawler, plan.clock_ahead)
        elif plan.expires_after:
            _expires_during(crawler, plan)

    import logging

    class Errors(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                text = record.getMessage()
                if record.exc_info and record.exc_info[1] is not None:
                    text += f" [{type(record.exc_info[1]).__name__}: {record.exc_info[1]}]"
                outcome.error_lines.append(" ".join(text.split())[:600])

    handler = Errors(logging.ERROR)
    logging.getLogger().addHandler(handler)
    try:
        await _phases(plan, outcome, urls, collect)
    finally:
        logging.getLogger().removeHandler(handler)
    return outcome


def _clock_ahead(crawler: Any, seconds: float) -> None:
    """The robots.txt middleware's clock ``seconds`` ahead from the spider's opening
    (before any request is decided): an override that passed the start check has
    expired when every request is decided."""
    from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS

    def opened(**_: Any) -> None:
        OWNERS[crawler]._clock = lambda: time.time() + seconds  # type: ignore[attr-defined]

    crawler.signals.connect(opened, signal=signals.spider_opened, weak=False)


def _expires_during(crawler: Any, plan: Plan) -> None:
    """The override expires ``plan.expires_after`` seconds after the (first) spider opens:
    the robots.txt middleware's clock jumps two hours ahead then, past the expiry."""
    from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS

    def opened(**_: Any) -> None:
        if not plan.expired_at:
            plan.expired_at = time.monotonic() + plan.expires_after
        at = plan.expired_at

        def clock() -> float:
            return time.time() + (7200.0 if time.monotonic() >= at else 0.0)

        OWNERS[crawler]._clock = clock  # type: ignore[attr-defined]

    crawler.signals.connect(opened, signal=signals.spider_opened, weak=False)


async def _phases(plan: Plan, outcome: Outcome, urls: list[str], collect: Any) -> None:
    from scrapy.utils.test import get_crawler
    from twisted.internet.task import deferLater

    images = frozenset(u for u, f in plan.files.items() if f.pipeline == "images")
    arguments = {
        "urls": urls, "image_urls": images, "user_agents": plan.user_agents,
        "fetches": plan.fetches,
    }  # fmt: skip
    for phase in range(plan.phases):
        # One crawler per worker (scrapy-redis: one shared queue), all run at once.
        crawlers = [
            get_crawler(WholeSpider, plan.worker_settings(worker)) for worker in range(plan.workers)
        ]
        for crawler in crawlers:
            collect(crawler)
        running = [crawler.crawl(**arguments) for crawler in crawlers]
        if phase == 0 and plan.phases == 2:
            pause_after = max(1, len(urls) // 3)
            for _ in range(200):
                await deferLater(reactor, 0.05)
                spiders = [getattr(crawler, "spider", None) for crawler in crawlers]
                downloaded = sum(len(s.downloaded) for s in spiders if s is not None)
                if downloaded >= pause_after or all(run.called for run in running):
                    break
            for crawler, run in zip(crawlers, running, strict=True):
                if not run.called:
                    await stop(crawler)
        for run in running:
            await run
        for crawler in crawlers:
            spider = crawler.spider
            outcome.downloaded.update(spider.downloaded)
            outcome.failed.update(spider.failed)
            for url, got in spider.fetched.items():
                outcome.fetched.setdefault(url, []).extend(got)
            outcome.cut_fetches.extend(spider.cut_fetches)
            stats = crawler.stats.get_stats()
            outcome.stats.append(stats)
            outcome.errors += stats.get("log_count/ERROR", 0)


# --------------------------------------------------------------------------- the properties


@dataclass
class Violation:
    prop: str
    url: str
    detail: str
    #: what the violation touches, for sorting a long run's findings (``rsl-unfollowable``:
    #: a license behind a redirect loop or to ftp:; ``tdmrep-over-cap``: a tdmrep.json
    #: over 500 KiB decided the URL; ``""``: anything else)
    tag: str = ""

    def __str__(self) -> str:
        tag = f"/{self.tag}" if self.tag else ""
        return f"[{self.prop}{tag}] {self.url}: {self.detail}"


def _tag(plan: Plan, violation: Violation) -> Violation:
    detail = violation.detail
    base = violation.url[: violation.url.find("/", len("http://"))] if violation.url else ""
    if "license redirect" in detail:
        violation.tag = "rsl-unfollowable"
    elif "tdmrep.json entry" in detail:
        doc = plan.tdmrep.get(base)
        if doc is not None and len(doc.body) > MAX_BODY_BYTES:
            violation.tag = "tdmrep-over-cap"
    elif (
        "robots.txt" in detail
        and 262_144 < len(plan.robots.get(base, Doc()).body) <= MAX_BODY_BYTES
    ):
        # A rule past 256 KiB of a robots.txt under 500 KiB lost: the 500 KiB stop
        # counted the bytes of concurrent document downloads together.
        violation.tag = "rule-lost-to-early-stop"
    elif "cut XMP packet" in detail:
        violation.tag = "cut-xmp-packet"
    elif any(cut in detail for cut in ("robots.txt cut", "tdmrep.json cut", "license cut")):
        # A cut robots.txt (tdmrep.json, license) read as a document cut at 500 KiB:
        # the 500 KiB stop counted the bytes of concurrent document downloads together
        # and stopped it before the connection was cut.
        violation.tag = "cut-read-as-capped"
    return violation


def _tag_files(plan: Plan, found: list[Violation]) -> list[Violation]:
    """A file's violation that follows from its page's (the page was wrongly fetched)
    takes the page's tag."""
    tags = {v.url: v.tag for v in found if v.tag and v.url in plan.pages}
    for violation in found:
        page = plan.files[violation.url].page if violation.url in plan.files else ""
        if not violation.tag and page in tags:
            violation.tag = tags[page]
    return found


def check(plan: Plan, expect: Expect, outcome: Outcome) -> list[Violation]:
    expect = _after_the_pause(plan, expect, outcome)
    found: list[Violation] = []
    served = plan.sites.served()

    def note(url: str) -> str:
        extra = expect.stand_ins.get(url)
        return f" (oracle: {extra})" if extra else ""

    either = expect.either  # checked by the time they reached the server (0.)
    # 0. The slot-delay dimension: what reached the server was allowed by the way the
    # documents and the override were in force when it was sent.
    found += _in_force(plan, expect)
    # 1. Nothing the oracle refuses is served: pages and files.
    for url, why in expect.before.items():
        if why and url in served and url not in either:
            found.append(Violation("served-refused", url, f"oracle: {why}{note(url)}"))
    reported = {v.url for v in found}
    for url, fate in expect.files.items():
        if url in either:
            continue
        if fate in ("unrequested", "refused-by-page") and url in served and url not in reported:
            found.append(Violation("served-refused", url, f"oracle: {fate}{note(url)}"))
    # 2. Nothing the oracle allows is refused: every allowed page whole is downloaded.
    for url, why in expect.before.items():
        if url not in plan.pages or url in either:
            continue
        if not why and url not in expect.failed_pages and url not in outcome.downloaded:
            got = outcome.failed.get(url, "not downloaded, no errback")
            found.append(Violation("allowed-not-fetched", url, f"{got[:300]}{note(url)}"))
    # 3. Items: kept exactly for the pages the oracle keeps.
    items = {item["url"] for item in outcome.items}
    for url, kept in expect.kept.items():
        if url in either:
            if url in items and url not in outcome.downloaded:
                found.append(Violation("item-kept", url, "an item of a page not downloaded"))
            continue
        if kept and url not in items:
            why = outcome.failed.get(url, "downloaded" if url in outcome.downloaded else "?")
            found.append(Violation("item-lost", url, f"{why[:300]}{note(url)}"))
        if not kept and url in items:
            found.append(
                Violation(
                    "item-kept",
                    url,
                    f"oracle: {expect.before.get(url) or 'page refuses'}{note(url)}",
                )
            )
    # 4. Files: stored exactly when the oracle stores them.
    results: dict[str, dict[str, Any]] = {}
    for item in outcome.items:
        for result in (*item.get("files", ()), *item.get("images", ())):
            results[result["url"]] = result
    for url, fate in expect.files.items():
        if url in either:
            continue
        result = results.get(url)
        stored = bool(result and result.get("path"))
        if fate == "stored" and not stored:
            got = "no result" if result is None else json.dumps(result, default=str)[:300]
            found.append(Violation("file-not-stored", url, f"{got}{note(url)}"))
        if fate != "stored" and stored:
            found.append(Violation("file-stored", url, f"oracle: {fate}{note(url)}"))
    # 4b. On disk (FILES_STORE / IMAGES_STORE keep a file under the SHA-1 of its URL):
    # every file the oracle stores is there, none it refuses.
    import hashlib

    on_disk: dict[str, set[str]] = {}
    for pipeline, key in (("files", "FILES_STORE"), ("images", "IMAGES_STORE")):
        store = Path(plan.settings.get(key, "-")) / "full"
        on_disk[pipeline] = {path.stem for path in store.iterdir()} if store.is_dir() else set()
    for url, fate in expect.files.items():
        if url in either:
            continue
        stored_in = on_disk[plan.files[url].pipeline]
        there = hashlib.sha1(url.encode()).hexdigest() in stored_in
        if fate == "stored" and not there:
            found.append(Violation("file-not-on-disk", url, f"oracle: stored{note(url)}"))
        if fate != "stored" and there:
            found.append(Violation("file-on-disk", url, f"oracle: {fate}{note(url)}"))
    # 5. The audit trail re-derives clean.
    trails = plan.trails()
    if trails and all(Path(trail).exists() for trail in trails):
        from rep_audit.across import across
        from rep_audit.verify import verify

        for trail in trails:
            result = verify(trail, also=trails)
            for finding in result.findings:
                found.append(
                    Violation("trail-verify", getattr(finding, "url", ""), str(finding)[:300])
                )
        if len(trails) > 1:  # several workers' trails read as one
            crossed: list[Any] = []
            across(trails, lambda path, finding: crossed.append(finding))
            for finding in crossed:
                if not finding.event:
                    found.append(Violation("trail-verify", finding.url, str(finding)[:300]))
        # One final record per page the spider asked for, and one more per callback
        # that fetched it itself (``download_async``), refused exactly when the oracle
        # refuses it (docs/audit-trail.md).
        from collections import Counter

        from tests.support.audittrail import url_records

        records = [
            r for trail in trails for r in url_records(Path(trail)) if r["url"] in plan.pages
        ]
        counts = Counter(r["url"] for r in records)
        asked = Counter(url for url in plan.pages)
        asked.update(q for p, q in plan.fetches.items() if p in outcome.downloaded)
        paused_fetches = Counter(
            fetched for _, fetched in (outcome.cut_fetches if plan.phases == 2 else ())
        )
        wrong = {v.url for v in found}
        for url, why in expect.before.items():
            if url not in plan.pages:
                continue
            if counts[url] != asked[url]:
                what = f"{counts[url]} url records, {asked[url]} asked"
                found.append(Violation("trail-records", url, what))
                continue
            if url in wrong or url in either:  # either: its trail still verifies (above)
                continue
            closed = paused_fetches[url]  # refused as the pause closed the spider
            for record in (r for r in records if r["url"] == url):
                if closed and record.get("refused_by") == "closed" and record.get("unscheduled"):
                    closed -= 1
                    continue
                if bool(why) != (record["fate"] == "refused"):
                    what = f"fate {record['fate']}: {str(record.get('why', ''))[:200]}"
                    found.append(
                        Violation("trail-records", url, f"{what}; oracle: {why or 'allowed'}")
                    )
    elif trails:
        found.append(Violation("trail-verify", "", "no trail written"))
    # 4c. The pure reader finds what the generator wrote in every intact file.
    for url, detail in expect.unread.items():
        found.append(Violation("reader-lost-statement", url, detail))
    # 6. No ERROR logged, but Scrapy's own about a download the plan cuts (its retry
    # middleware logs "Gave up retrying" at ERROR, its media pipeline the FileException)
    # and about an image ImagesPipeline cannot convert (the oracle's "failed").
    cut = [url for url, doc in plan.docs.items() if doc.is_cut]
    cut += [url for url, fate in expect.files.items() if fate == "failed"]
    errors = [line for line in outcome.error_lines if not any(url in line for url in cut)]
    if any(f.doc.is_cut for f in plan.files.values()) or "failed" in expect.files.values():
        # Scrapy's media pipeline logs a failed file download (or an image it cannot
        # convert, once more) at ERROR, without its URL
        errors = [line for line in errors if "FileException" not in line]
    if errors:
        lines = "; ".join(errors[:3])
        found.append(Violation("logged-error", "", f"{len(errors)} ERROR line(s): {lines}"))
    return _tag_files(plan, [_tag(plan, violation) for violation in found])


#: How long a request the crawl sent may take to reach the server's log (one reactor for
#: both, on a loaded machine): its send is taken to be this much before its arrival.
DELIVERY: Final = 0.5


def _in_force(plan: Plan, expect: Expect) -> list[Violation]:
    """The slot-delay dimension: each page that may go either way (:attr:`Expect.either`)
    reached the server only if allowed by the way in force when it was sent: its origin's
    robots.txt as changed once the server began to serve the new one, its override as
    expired once the crawl's clock passed it (the issue's crawls sent pages under an
    override up to 31 s after its expiry, and under a robots.txt up to 62 s after its
    new version was served)."""
    if not expect.refused_in:
        return []
    found = []
    for name, origin in plan.sites.origins.items():
        base = plan.sites.bases[name]
        served = [t for t, path in origin.times if path == "/robots.txt"]
        changed_at = served[1] if base in plan.robots_later and len(served) > 1 else float("inf")
        for arrived, path in origin.times:
            url = base + path
            if url not in expect.either or url not in plan.pages:
                continue
            # Sent at some instant from DELIVERY before its arrival to its arrival: every
            # way in force in that window must refuse it (the two ends give them all).
            ways = [_way_at(plan, arrived - late, changed_at) for late in (DELIVERY, 0.0)]
            if all(url in expect.refused_in.get(way, ()) for way in ways):
                changed, expired = ways[0]
                found.append(Violation(
                    "sent-out-of-force", url,
                    f"reached the server {'after its new robots.txt was served' if changed else ''}"
                    f"{' and ' if changed and expired else ''}"
                    f"{'after its override expired' if expired else ''}, which refuse it",
                    "slot-delay",
                ))  # fmt: skip
    return found


def _way_at(plan: Plan, sent: float, changed_at: float) -> tuple[bool, bool]:
    """Whether, at ``sent``, the origin's new robots.txt was served and its override had
    expired: the key of :attr:`Expect.refused_in`."""
    changed = bool(plan.robots_later) and sent >= changed_at
    if plan.expires_after:
        expired = bool(plan.expired_at) and sent >= plan.expired_at
    else:
        expired = bool(plan.clock_ahead)
    return changed, expired


# --------------------------------------------------------------------------- one seed


@dataclass
class SeedResult:
    seed: int
    settings: str
    violations: list[Violation]
    counts: dict[str, int]
    notes: list[str]


class RedisHolder:
    """One redis-server for a run of seeds (flushed before each seed: ports are reused)."""

    def __init__(self) -> None:
        self.server: Any = None
        self.directory: Path | None = None

    def url(self) -> str | None:
        if shutil.which("redis-server") is None:
            return None
        if self.server is None:
            from tests.support.redisserver import RedisServer

            self.directory = Path(tempfile.mkdtemp(prefix="wholecrawl-redis-"))
            self.server = RedisServer(self.directory)
            self.server.start()
        import redis

        redis.Redis.from_url(self.server.url).flushall()
        return str(self.server.url)

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None


async def run_seed(
    seed: int,
    workdir: Path,
    redis: RedisHolder | None,
    generation: int = 1,
    user_agents: bool = False,
    slots: bool = False,
    workers: bool = False,
    download_async: bool = False,
) -> SeedResult:
    sites = PropSites()
    try:
        redis_url = redis.url() if redis is not None else None
        plan = generate(
            seed, sites, workdir, redis_url, generation, user_agents, slots, workers,
            download_async,
        )  # fmt: skip
        expect = oracle(plan)
        outcome = await run_crawl(plan)
    finally:
        await sites.close()
    violations = check(plan, expect, outcome)
    counts = {
        "pages": len(plan.pages),
        "files": len(plan.files),
        "kept": sum(expect.kept.values()),
        "items": len(outcome.items),
        "stored": sum(1 for f in expect.files.values() if f == "stored"),
        "refused": sum(1 for why in expect.before.values() if why),
        "served": len(plan.sites.log),
        # the media files: downloaded and checked (stored or refused by what they say, or
        # their headers), refused so; through ImagesPipeline; in another form than a
        # plain packet
        "files_checked": sum(1 for f in expect.files.values() if f in ("stored", "refused")),
        "files_refused": sum(1 for f in expect.files.values() if f == "refused"),
        "images": sum(1 for f in plan.files.values() if f.pipeline == "images"),
        "forms": sum(1 for f in plan.files.values() if f.form != "element"),
        # requests robots.txt disallows that REP_OVERRIDES let through, and refused
        # because it had expired
        **{
            key: sum(stats.get(f"rep/requests/{key}", 0) for stats in outcome.stats)
            for key in ("overridden", "override_expired")
        },
        # pages whose request carries its own User-Agent (``user_agents``)
        "sent_as": len(plan.user_agents),
        # the slot-delay dimension: robots.txt files that changed, overrides that expired
        # during the crawl, pages that may go either way, requests decided again as
        # they left their slot, and held there for a refresh
        "changed": len(plan.robots_later),
        "expired_during": int(bool(plan.expires_after)),
        "either": len(expect.either & set(plan.pages)),
        **{
            key: sum(stats.get(f"rep/requests/{key}", 0) for stats in outcome.stats)
            for key in ("decided_at_send", "held_at_send")
        },
        # the scrapy-redis dimension: workers, the requests resumed from a worker's JOBDIR
        # and returned to the shared queue; the download_async dimension: the pages
        # callbacks fetched themselves, and the fetched pages that gated items
        "workers": plan.workers,
        **{
            key: sum(stats.get(f"rep/requests/{key}", 0) for stats in outcome.stats)
            for key in ("resumed", "returned_to_queue")
        },
        "fetched": sum(len(got) for got in outcome.fetched.values()),
        "gating": sum(
            stats.get("rep/directives/fetched_pages_gating", 0) for stats in outcome.stats
        ),
    }
    return SeedResult(seed, describe(plan), violations, counts, plan.notes)


def summarise(docs: Iterable[Doc]) -> str:
    return ", ".join(doc.describe() for doc in docs)
