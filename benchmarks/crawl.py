"""End-to-end crawl throughput: no robots.txt, Scrapy's middleware (Protego), scrapy_rep.

A child process serves a local site: ``--origins`` twisted.web ``Site``s on as many ports of
127.0.0.1, each with a ~30-line ``/robots.txt`` (no ``Crawl-delay``), ``--pages`` small HTML
pages ``/p/0`` … (those ending in ``9`` are disallowed by the wildcard rule ``/p/*9$``, 10%)
and a few ``/private/…`` pages (disallowed too). Serving from a child process keeps the
server's CPU time out of the crawler's, so the three modes are compared on crawler cost.

In this process (asyncio reactor, ``CrawlerRunner``), a plain spider requests every page of
every origin (interleaved, ``dont_filter=True``, one download slot per origin) three ways:

- ``none``: ``ROBOTSTXT_OBEY = False``;
- ``scrapy``: ``ROBOTSTXT_OBEY = True`` (Scrapy's ``RobotsTxtMiddleware``, Protego);
- ``rep_robotstxt``: ``scrapy_rep.RobotsTxtMiddleware`` in place of Scrapy's (the same
  job as ``scrapy``, done our way);
- ``scrapy_rep``: ``ADDONS = {"scrapy_rep.Addon": 0}``: the robots.txt middleware plus
  the page-directives spider middleware, which reads every page's meta tags and
  ``X-Robots-Tag`` (work the other modes do not do);
- ``rep_ai_train``: the add-on with ``REP_PURPOSE = "ai-train"``: each origin's
  tdmrep.json is fetched too (a 404 here), every request gets the purpose check before
  it is sent and every page after (its headers, meta and directives);
- ``rep_audit``: the add-on with ``REP_AUDIT_FILE`` (a temporary file): one chained JSON
  line per request, the robots.txt snapshots beside it; the table also gives the bytes
  per ``url`` record;
- ``rep_ai_train_audit``: ``rep_ai_train`` with the audit trail on (the "+5 % over search"
  target of docs/decisions.md, 'Cost targets: no dearer than Scrapy's own handling').

With ``--items`` the spider yields an item per page (its title and links, read by CSS),
as a real spider does; the page pass of the add-on then sees every item. With
``--real-pages`` the pages are a real site's: 10 links each, one in ten with a robots
meta tag (the rule ``/p/*9$`` disallows one ``/p/`` page in ten either way).

With ``--fresh`` every crawl runs in a fresh Python process (one warm-up crawl, then the
timed one), modes rotated within each round, so that no mode inherits another's heap or
caches; the ratios are then the median of the per-round ratios of CPU per page, with
their range.

With ``--fresh --cold`` there is no warm-up: each child process runs the one crawl, and
its CPU figure is the whole process's, from the interpreter's start (the imports of
Scrapy and of the add-on, the first use of every cache included: what a ``scrapy
crawl`` pays). The package's bytecode is compiled first, as an install leaves it. This
is the figure a target is read on; the warm figures leave first use out.

Modes run in ``--rounds`` rounds (order rotated each round) after an untimed warm-up crawl
per mode. Per mode the table gives the median pages/s (page responses, i.e. responses that
are not robots.txt, over the crawl's wall time), the median wall and CPU seconds, and the
page / robots.txt responses, ``robotstxt/forbidden``, disallowed pages that were downloaded
anyway and ERROR log lines of the last round, so one can check the modes did the same work
(``none`` downloads the disallowed pages on purpose).

Usage: ``python benchmarks/crawl.py [--origins 50] [--pages 100] [--rounds 3]
[--modes none,scrapy_rep,…]``.
About 1-2 minutes with the defaults on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quiet import LoadWindow

REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
MODES = (
    "none",
    "scrapy",
    "rep_robotstxt",
    "scrapy_rep",
    "rep_ai_train",
    "rep_audit",
    "rep_ai_train_audit",
)
#: Where ``rep_audit`` writes its trail (emptied before each crawl).
AUDIT_FILE = Path(tempfile.gettempdir()) / "scrapy_rep-bench-audit.jsonl"
ROBOTS_TXT = b"""\
# robots.txt for a benchmark site
# Last updated: 2024-01-01

User-agent: Googlebot
Disallow: /search
Disallow: /private/
Allow: /search/about

User-agent: Bingbot
Disallow: /search
Disallow: /private/
Disallow: /tmp/

User-agent: BadBot
Disallow: /

User-agent: *
Disallow: /private/
Disallow: /cgi-bin/
Disallow: /search
Disallow: /tmp/
Disallow: /*?sessionid=
Disallow: /*.pdf$
Disallow: /p/*9$
Allow: /search/about
Allow: /p/featured

# Feeds and sitemaps
Sitemap: https://www.example.com/sitemap.xml
Sitemap: https://www.example.com/sitemap-pages.xml
"""


def private_count(pages: int) -> int:
    """How many ``/private/…`` pages each origin has (disallowed by robots.txt)."""
    return max(1, pages // 20)


def page_paths(pages: int) -> list[str]:
    """Every page path of one origin, robots.txt excluded."""
    return [f"/p/{i}" for i in range(pages)] + [
        f"/private/{i}" for i in range(private_count(pages))
    ]


def disallowed(path: str) -> bool:
    """Whether the ``*`` group of :data:`ROBOTS_TXT` forbids ``path``."""
    return path.startswith("/private/") or (path.startswith("/p/") and path.endswith("9"))


#: ``--real-pages``: pages as a real site's: 10 links each, one in ten with a robots meta tag.
REAL_PAGES = False


def page_body(path: str, pages: int) -> bytes:
    """A small HTML page with a few links; every 7th has a ``noarchive`` robots meta tag.
    With ``--real-pages``: 10 links, and every 10th has the meta tag."""
    number = int(path.rsplit("/", 1)[1])
    every, steps = (10, (1, 2, 3, 5, 8, 13, 21, 34, 55, 89)) if REAL_PAGES else (7, (1, 2, 3, 5, 8))
    meta = '<meta name="robots" content="noarchive">' if number % every == 0 else ""
    links = "".join(
        f'<li><a href="/p/{(number + step) % pages}">page {(number + step) % pages}</a></li>'
        for step in steps
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset=utf-8><title>Page {number}</title>{meta}"
        f"</head><body><h1>Page {number}</h1><p>Some text about item {number}, enough to "
        f"look like a real page.</p><ul>{links}</ul></body></html>"
    ).encode()


# --- server (child process) -------------------------------------------------------------


def serve(origins: int, pages: int) -> None:
    """Serve ``origins`` sites on free ports; print the ports as JSON; stop when stdin closes."""
    from twisted.internet import reactor, stdio
    from twisted.internet.protocol import Protocol
    from twisted.web.resource import Resource
    from twisted.web.server import Request, Site

    bodies = {path.encode(): page_body(path, pages) for path in page_paths(pages)}

    class Pages(Resource):
        isLeaf = True

        def render_GET(self, request: Request) -> bytes:
            path = request.path
            if path == b"/robots.txt":
                request.setHeader(b"content-type", b"text/plain")
                return ROBOTS_TXT
            body = bodies.get(path)
            if body is None:
                request.setResponseCode(404)
                return b"not found"
            request.setHeader(b"content-type", b"text/html; charset=utf-8")
            return body

    class StopOnEOF(Protocol):
        def connectionLost(self, reason: object = None) -> None:
            reactor.stop()  # type: ignore[attr-defined]

    resource = Pages()
    ports = []
    for _ in range(origins):
        site = Site(resource)
        site.log = lambda request: None  # type: ignore[method-assign]  # no access log
        ports.append(reactor.listenTCP(0, site, interface="127.0.0.1").getHost().port)  # type: ignore[attr-defined]
    print(json.dumps(ports), flush=True)
    stdio.StandardIO(StopOnEOF())
    reactor.run()  # type: ignore[attr-defined]


# --- crawler (this process) -------------------------------------------------------------


@dataclass
class Result:
    """One crawl of one mode."""

    mode: str
    wall: float
    cpu: float
    pages: int
    robots_responses: int
    forbidden: int
    disallowed_received: int
    errors: int
    #: Bytes of audit trail written (``rep_audit``), and its records.
    audit_bytes: int = 0
    audit_records: int = 0
    #: The process's CPU seconds since it started, at the crawl's end (``--cold``).
    process_cpu: float = 0.0
    #: ``--calls``: Python function calls of the crawl (cProfile's counts) by package.
    calls: dict[str, int] | None = None
    #: ``--instructions``: the machine instructions the whole child process executed.
    instructions: int = 0
    #: The process's garbage collections (the three generations) and their CPU seconds,
    #: at the crawl's end.
    collections: tuple[int, int, int] = (0, 0, 0)
    collection_seconds: float = 0.0

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.wall


def settings_for(mode: str) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "TWISTED_REACTOR": REACTOR,
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "DOWNLOAD_DELAY": 0,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "COOKIES_ENABLED": False,
    }
    if mode == "none":
        settings["ROBOTSTXT_OBEY"] = False
    elif mode == "scrapy":
        settings["ROBOTSTXT_OBEY"] = True
    elif mode == "rep_robotstxt":  # our robots.txt middleware alone, in Scrapy's slot
        settings["ROBOTSTXT_OBEY"] = True
        settings["DOWNLOADER_MIDDLEWARES"] = {
            "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
            "scrapy_rep.RobotsTxtMiddleware": 100,
        }
    else:
        settings["ADDONS"] = {"scrapy_rep.Addon": 0}
    if mode == "rep_ai_train":
        settings["REP_PURPOSE"] = "ai-train"
    if mode == "rep_ai_train_audit":
        settings["REP_PURPOSE"] = "ai-train"
    if mode in ("rep_audit", "rep_ai_train_audit"):
        settings["REP_AUDIT_FILE"] = str(AUDIT_FILE)
    return settings


#: ``--allowed-only``: request only the pages robots.txt allows, so every mode downloads
#: the same pages and CPU per page compares like with like.
ALLOWED_ONLY = False
#: ``--items``: the spider yields an item per page (title and links read by CSS).
ITEMS = False
#: ``--cold`` (with ``--fresh``): no warm-up crawl, and the CPU figure is the whole child
#: process's (interpreter start, the imports of Scrapy and the add-on, first use included).
COLD = False
#: ``--calls`` (with ``--fresh``): each crawl profiled; its Python function calls counted by
#: package (deterministic: the machine's load cannot move them), reported per page.
CALLS = False
#: ``--instructions`` (with ``--fresh``): each crawl's process run under Valgrind's
#: callgrind, its machine instructions counted (deterministic; about 40 times slower).
INSTRUCTIONS = False
#: The packages calls are counted by (a file's path holding ``/<name>/``); the rest is
#: "other" (the standard library's asyncio, logging and the rest).
CALL_PACKAGES = ("scrapy_rep", "scrapy", "twisted", "parsel", "w3lib", "asyncio", "protego")


def calls_by_package(profile: Any) -> dict[str, int]:
    """A profile's call counts, by the package of each function's file."""
    import pstats

    counts = dict.fromkeys((*CALL_PACKAGES, "other"), 0)
    for (filename, _line, _name), (_, calls, *_rest) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        package = next((name for name in CALL_PACKAGES if f"/{name}/" in filename), "other")
        counts[package] += calls
    counts["total"] = sum(counts.values())
    return counts


async def crawl(mode: str, ports: list[int], pages: int) -> Result:
    import scrapy
    from scrapy.crawler import CrawlerRunner
    from scrapy.http import Response
    from scrapy.utils.httpobj import urlparse_cached

    paths = [path for path in page_paths(pages) if not (ALLOWED_ONLY and disallowed(path))]

    class BenchSpider(scrapy.Spider):
        name = "bench"
        received = 0
        disallowed_received = 0

        async def start(self) -> Any:
            for path in paths:
                for port in ports:
                    yield scrapy.Request(
                        f"http://127.0.0.1:{port}{path}",
                        dont_filter=True,
                        meta={"download_slot": f"127.0.0.1:{port}"},
                    )

        def parse(self, response: Response) -> Any:
            type(self).received += 1
            if disallowed(urlparse_cached(response).path):
                type(self).disallowed_received += 1
            if ITEMS:
                yield {
                    "title": response.css("title::text").get(),
                    "links": response.css("a::attr(href)").getall(),
                }

    _remove_audit()
    runner = CrawlerRunner(settings_for(mode))
    crawler = runner.create_crawler(BenchSpider)
    cpu, wall = time.process_time(), time.perf_counter()
    await runner.crawl(crawler)
    process_cpu = time.process_time()
    wall, cpu = time.perf_counter() - wall, process_cpu - cpu
    stats = crawler.stats.get_stats() if crawler.stats else {}
    robots = int(stats.get("robotstxt/response_count", 0))
    robots += int(stats.get("rep/tdmrep/response_count", 0))  # tdmrep.json answers too
    received = int(stats.get("response_received_count", 0))
    if received - robots != BenchSpider.received:
        print(
            f"{mode}: {received} responses - {robots} robots.txt != "
            f"{BenchSpider.received} callbacks",
            file=sys.stderr,
        )
    return Result(
        mode,
        wall,
        cpu,
        received - robots,
        robots,
        int(stats.get("robotstxt/forbidden", 0)),
        BenchSpider.disallowed_received,
        int(stats.get("log_count/ERROR", 0)),
        *_audit_size(mode),
        process_cpu,
    )


def _audit_size(mode: str) -> tuple[int, int]:
    if mode not in ("rep_audit", "rep_ai_train_audit") or not AUDIT_FILE.exists():
        return 0, 0
    records = [line for line in AUDIT_FILE.read_bytes().splitlines(True) if b'"type":"url"' in line]
    _remove_audit()
    return sum(map(len, records)), len(records)


def _remove_audit() -> None:
    """The trail and its snapshots: each crawl starts a new chain and stores them again."""
    AUDIT_FILE.unlink(missing_ok=True)
    shutil.rmtree(AUDIT_FILE.with_name(AUDIT_FILE.name + ".d"), ignore_errors=True)


async def run(
    ports: list[int], pages: int, rounds: int, modes: tuple[str, ...] = MODES
) -> dict[str, list[Result]]:
    for mode in modes:  # warm-up: imports, first connections, Protego / scrapy_rep loaded
        await crawl(mode, ports[:2], min(pages, 10))
    results: dict[str, list[Result]] = {mode: [] for mode in modes}
    for round_number in range(rounds):
        shift = round_number % len(modes)
        for mode in modes[shift:] + modes[:shift]:
            result = await crawl(mode, ports, pages)
            results[mode].append(result)
            print(
                f"round {round_number + 1}: {mode:<10} {result.pages_per_second:7.0f} pages/s "
                f"({result.pages} pages in {result.wall:.2f} s)",
                file=sys.stderr,
            )
    return results


def report(results: dict[str, list[Result]], origins: int, pages: int, rounds: int) -> None:
    median = {
        mode: statistics.median(r.pages_per_second for r in rs) for mode, rs in results.items()
    }
    site_pages = origins * len(page_paths(pages))
    allowed = origins * sum(not disallowed(path) for path in page_paths(pages))
    print(
        f"\n{origins} origins × {len(page_paths(pages))} pages = {site_pages} pages "
        f"({allowed} allowed by robots.txt); median of {rounds} rounds; "
        "pages/s = non-robots.txt responses / wall s; counts from the last round"
        + ("; --allowed-only: only the allowed pages requested" if ALLOWED_ONLY else "")
        + (
            "; --cold: no warm-up, CPU s of the whole crawler process (interpreter start, "
            "imports, first use)"
            if COLD
            else "; after a warm-up crawl in the same process (imports and first use not counted)"
        )
        + "\n"
    )
    print(
        "| mode | pages/s | wall s | CPU s | pages | robots.txt | forbidden "
        "| disallowed pages downloaded | errors |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for mode, rs in results.items():
        last = rs[-1]
        print(
            f"| {mode} | {median[mode]:.0f} "
            f"| {statistics.median(r.wall for r in rs):.2f} "
            f"| {statistics.median(r.cpu for r in rs):.2f} "
            f"| {last.pages} | {last.robots_responses} | {last.forbidden} "
            f"| {last.disallowed_received} | {last.errors} |"
        )
    print(
        "\n| mode | collections (gen 0 / 1 / 2) | CPU s in collections | of the crawl's CPU |\n"
        "|---|---|---|---|"
    )
    for mode, rs in results.items():
        middle = sorted(rs, key=lambda r: r.collection_seconds)[len(rs) // 2]
        print(
            f"| {mode} | {' / '.join(map(str, middle.collections))} "
            f"| {middle.collection_seconds:.2f} | {middle.collection_seconds / middle.cpu:.1%} |"
        )
    print()
    cpu = {
        mode: statistics.median(r.cpu / r.pages for r in rs) * 1000 for mode, rs in results.items()
    }
    for ours, other in (
        ("rep_robotstxt", "none"),
        ("rep_robotstxt", "scrapy"),
        ("scrapy_rep", "none"),
        ("scrapy_rep", "scrapy"),
        ("rep_ai_train", "scrapy_rep"),
        ("rep_audit", "scrapy_rep"),
        ("rep_ai_train_audit", "scrapy_rep"),
    ):
        if ours not in median or other not in median:
            continue
        ratio = median[ours] / median[other]
        # The median of the per-round ratios of CPU per page (rounds are aligned: each
        # round runs every mode once), with their range: noise that moves a whole round
        # cancels out.
        rounds_ = zip(results[ours], results[other], strict=False)
        per_round = sorted((a.cpu / a.pages) / (b.cpu / b.pages) for a, b in rounds_)
        print(
            f"{ours} / {other}: {ratio:.3f} × pages/s "
            f"(throughput {(ratio - 1) * 100:+.1f} %); CPU per page {cpu[ours]:.2f} ms vs "
            f"{cpu[other]:.2f} ms ({(cpu[ours] / cpu[other] - 1) * 100:+.1f} %); "
            f"median of per-round CPU-per-page ratios {statistics.median(per_round):.3f} "
            f"(range {per_round[0]:.3f}-{per_round[-1]:.3f}, {len(per_round)} rounds)"
        )
    if CALLS:
        report_calls(results)
    if INSTRUCTIONS:
        report_instructions(results)
    audit = results.get("rep_audit") or results.get("rep_ai_train_audit")
    if audit and audit[-1].audit_records:
        last = audit[-1]
        print(
            f"audit trail: {last.audit_records} records for {last.pages} pages + "
            f"{last.forbidden} forbidden, {last.audit_bytes / last.audit_records:.0f} bytes per "
            f"request ({last.audit_bytes / last.audit_records * 1e6 / 2**20:.0f} MiB per "
            "1M requests)"
        )


def report_calls(results: dict[str, list[Result]]) -> None:
    """``--calls``: function calls per page by package, each mode's median over its rounds
    (the counts are all but the same from round to round)."""
    print(
        "\nPython function calls per page (cProfile's counts, the whole crawl; median of the "
        "rounds; pages as above)\n"
    )
    columns = (*CALL_PACKAGES, "other", "total")
    print("| mode | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for mode, rs in results.items():
        counted = [r for r in rs if r.calls]
        cells = [
            f"{statistics.median(r.calls[column] / r.pages for r in counted):.0f}"  # type: ignore[index]
            for column in columns
        ]
        print(f"| {mode} | " + " | ".join(cells) + " |")


def _child_environment() -> dict[str, str]:
    """A cold child loads bytecode as an installed package does (pip compiles it at
    install); ``PYTHONDONTWRITEBYTECODE`` would make it compile the add-on's source."""
    environment = dict(os.environ)
    if COLD:
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
    return environment


def _compile_packages() -> None:
    """Bytecode for the four parts and this script, as an install leaves it (``--cold``)."""
    import compileall

    import rep_audit
    import rep_engine
    import rep_recheck
    import scrapy_rep

    parts = (rep_engine, rep_audit, rep_recheck, scrapy_rep)
    for directory in (*(Path(part.__file__).parent for part in parts), Path(__file__).parent):
        compileall.compile_dir(directory, quiet=1)


def run_fresh(
    ports: list[int], pages: int, rounds: int, modes: tuple[str, ...], items: bool
) -> dict[str, list[Result]]:
    """Each crawl in a fresh process (warm-up crawl, then the timed one; with ``--cold``
    the only crawl, timed from the process's start), modes rotated."""
    if COLD:
        _compile_packages()
    results: dict[str, list[Result]] = {mode: [] for mode in modes}
    for round_number in range(rounds):
        shift = round_number % len(modes)
        for mode in modes[shift:] + modes[:shift]:
            command = [
                sys.executable,
                __file__,
                f"--ports={json.dumps(ports)}",
                f"--pages={pages}",
                f"--modes={mode}",
                "--rounds=1",
            ]
            command += ["--items"] * items + ["--allowed-only"] * ALLOWED_ONLY + ["--cold"] * COLD
            command += ["--calls"] * CALLS
            with tempfile.TemporaryDirectory() as scratch:
                counts = Path(scratch) / "callgrind.out"
                if INSTRUCTIONS:
                    command = [*_callgrind(counts), *command]
                out = subprocess.run(
                    command, capture_output=True, text=True, check=True, env=_child_environment()
                ).stdout
                result = Result(**json.loads(out.strip().splitlines()[-1]))
                if INSTRUCTIONS:
                    result.instructions = _instructions_in(counts)
            results[mode].append(result)
            print(
                f"round {round_number + 1}: {mode:<18} {result.pages_per_second:7.0f} pages/s "
                f"CPU {result.cpu / result.pages * 1000:.3f} ms/page",
                file=sys.stderr,
            )
    return results


def _callgrind(out: Path) -> list[str]:
    """The command that runs a child under Valgrind's callgrind, counting the machine
    instructions the whole process executes (no cache or branch simulation)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    return [
        valgrind,
        "--tool=callgrind",
        "--cache-sim=no",
        "--branch-sim=no",
        f"--callgrind-out-file={out}",
    ]


def _instructions_in(out: Path) -> int:
    """The instructions a callgrind output file counted (its ``totals:`` line)."""
    for line in out.read_text().splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise ValueError(f"no totals in {out}")


def report_instructions(results: dict[str, list[Result]]) -> None:
    """``--instructions``: machine instructions per page, each mode's median, and the
    ratios the targets name (the load of the machine cannot move these)."""
    per_page = {
        mode: statistics.median(r.instructions / r.pages for r in rs if r.instructions)
        for mode, rs in results.items()
    }
    print("\nMachine instructions per page (callgrind; the whole process, cold)\n")
    print("| mode | instructions per page (millions) |\n|---|---|")
    for mode, count in per_page.items():
        print(f"| {mode} | {count / 1e6:.3f} |")
    for ours, other in (
        ("scrapy", "none"),
        ("scrapy_rep", "none"),
        ("scrapy_rep", "scrapy"),
        ("rep_ai_train_audit", "scrapy_rep"),
    ):
        if ours in per_page and other in per_page:
            ratio = per_page[ours] / per_page[other]
            print(f"{ours} / {other}: {ratio:.3f} × instructions per page")


def child(ports: list[int], pages: int, mode: str) -> int:
    """One warm-up crawl and one timed crawl of ``mode`` (``--cold``: the one crawl, its
    CPU counted from the process's start); prints the Result as JSON."""
    from scrapy.utils.reactor import install_reactor

    install_reactor(REACTOR)
    from scrapy.utils.log import configure_logging
    from twisted.internet import defer, task

    configure_logging({"LOG_LEVEL": "WARNING"})
    results: dict[str, list[Result]] = {}

    async def go(_reactor: object) -> None:
        if COLD:
            result = await crawl(mode, ports, pages)
            result.cpu = result.process_cpu  # the whole process, from its start
            results[mode] = [result]
        else:
            results.update(await run(ports, pages, 1, (mode,)))

    collection_time = _time_collections()
    profile = None
    if CALLS:
        import cProfile

        profile = cProfile.Profile()
        profile.enable()
    with contextlib.suppress(SystemExit):
        task.react(lambda reactor: defer.Deferred.fromCoroutine(go(reactor)))
    if profile is not None:
        profile.disable()
        results[mode][-1].calls = calls_by_package(profile)
        if os.environ.get("CRAWL_PROFILE_DIR"):  # the profiles, to compare by function
            profile.dump_stats(Path(os.environ["CRAWL_PROFILE_DIR"]) / f"{mode}.prof")
    last = results[mode][-1]
    last.collections = tuple(generation["collections"] for generation in gc.get_stats())  # type: ignore[assignment]
    last.collection_seconds = collection_time[0]
    print(json.dumps(vars(results[mode][0])))
    return 0


def _time_collections() -> list[float]:
    """The CPU seconds of this process's garbage collections from now on, in a list's
    first item (``gc.callbacks``)."""
    spent = [0.0]
    started = [0.0]

    def callback(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            spent[0] += time.process_time() - started[0]

    gc.callbacks.append(callback)
    return spent


def run_coroutine(coroutine: Any) -> Any:
    """Run a coroutine that never suspends (a warm cache) without an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the coroutine suspended")


def per_request_cost(origins: int, pages: int, repeat: int = 5) -> None:
    """The middlewares' own cost per request with robots.txt cached, in µs: stable where
    whole crawls on a shared machine are not."""
    from scrapy import Request, Spider
    from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyMiddleware
    from scrapy.exceptions import IgnoreRequest
    from scrapy.utils.misc import build_from_crawler, load_object
    from scrapy.utils.test import get_crawler

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.urls.origins import origin_of
    from scrapy_rep import RobotsTxtMiddleware, parse_robotstxt
    from scrapy_rep.crawl.requests.downloadermiddlewares import EarlyDecisions

    settings = {"ROBOTSTXT_OBEY": True, "USER_AGENT": "benchbot/1.0"}
    bases = [f"http://127.0.0.1:{8000 + n}" for n in range(origins)]
    requests = [Request(base + path) for path in page_paths(pages) for base in bases]
    scrapy_mw = ScrapyMiddleware(get_crawler(Spider, settings))
    parser_class = load_object(scrapy_mw.crawler.settings["ROBOTSTXT_PARSER"])
    ours = RobotsTxtMiddleware(get_crawler(Spider, settings))
    for base in bases:
        netloc = base.split("//")[1]
        scrapy_mw._parsers[netloc] = build_from_crawler(parser_class, scrapy_mw.crawler, ROBOTS_TXT)
        origin = origin_of(base)
        assert origin is not None
        rules = parse_robotstxt(ROBOTS_TXT)
        ours.cache.put(origin, CacheEntry(rules, "200", time.time(), 1e18, 1e18, 200))

    def one_pass(middleware: Any) -> float:
        start = time.perf_counter()
        for request in requests:
            with contextlib.suppress(IgnoreRequest):
                run_coroutine(middleware.process_request(request))
        return (time.perf_counter() - start) / len(requests) * 1e6

    allowed = [
        request.url for request in requests if not disallowed("/" + request.url.split("/", 3)[3])
    ]

    def both_passes(reuse: bool) -> float:
        """The spider middleware's early pass and the late check, for allowed requests
        (new ones each time: the early pass's verdict goes with the request)."""
        limit = EarlyDecisions.limit
        if not reuse:  # as before: the late check decides again
            EarlyDecisions.limit = 0
        fresh = [Request(url) for url in allowed]
        start = time.perf_counter()
        for request in fresh:
            ours.refusal_if_known(request)
            run_coroutine(ours.process_request(request))
        EarlyDecisions.limit = limit
        return (time.perf_counter() - start) / len(fresh) * 1e6

    timings: dict[str, list[float]] = {
        "scrapy": [],
        "rep_robotstxt": [],
        "rep_robotstxt, early pass + late check, allowed requests": [],
        "the same, decided twice (the early verdict not reused)": [],
    }
    for round_ in range(repeat):
        timings["scrapy"].append(one_pass(scrapy_mw))
        timings["rep_robotstxt"].append(one_pass(ours))
        both = list(timings)[2:]
        for reuse in (True, False) if round_ % 2 else (False, True):
            timings[both[0] if reuse else both[1]].append(both_passes(reuse))
    print(
        f"\nMiddleware cost per request, robots.txt cached ({len(requests)} requests, "
        f"best of {repeat}):\n"
    )
    print("| middleware | µs per request |")
    print("|---|---|")
    for name, values in timings.items():
        print(f"| {name} | {min(values):.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--origins", type=int, default=50)
    parser.add_argument("--pages", type=int, default=100, help="pages /p/N per origin")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}"
    )
    parser.add_argument(
        "--allowed-only",
        action="store_true",
        help="request only the pages robots.txt allows (the same pages in every mode)",
    )
    parser.add_argument(
        "--items", action="store_true", help="the spider yields an item per page (title, links)"
    )
    parser.add_argument(
        "--real-pages",
        action="store_true",
        help="pages as a real site's: 10 links each, one in ten with a robots meta tag",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="every crawl in a fresh process (modes rotated)"
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="with --fresh: no warm-up crawl; CPU counted from the child process's start "
        "(imports and first use included), bytecode compiled first as an install does",
    )
    parser.add_argument(
        "--calls",
        action="store_true",
        help="with --fresh: count each crawl's Python function calls by package (cProfile; "
        "slows the crawl, so its times are not figures); with CRAWL_PROFILE_DIR set, each "
        "mode's last profile is written there as MODE.prof",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="with --fresh: run each crawl's process under valgrind's callgrind and count "
        "its machine instructions (a figure the machine's load cannot move; about 40 times "
        "slower: use --rounds 1)",
    )
    parser.add_argument(
        "--no-unit", action="store_true", help="skip the middleware cost per request table"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ports", help=argparse.SUPPRESS)  # a --fresh child
    args = parser.parse_args()
    global ALLOWED_ONLY, ITEMS, COLD, REAL_PAGES, CALLS, INSTRUCTIONS
    CALLS = args.calls
    INSTRUCTIONS = args.instructions
    REAL_PAGES = args.real_pages
    ALLOWED_ONLY = args.allowed_only
    ITEMS = args.items
    COLD = args.cold
    if COLD and not (args.fresh or args.ports):
        parser.error("--cold needs --fresh (a cold crawl is one crawl in a fresh process)")
    if CALLS and not (args.fresh or args.ports):
        parser.error("--calls needs --fresh (each crawl profiled in its own process)")
    if INSTRUCTIONS and not args.fresh:
        parser.error("--instructions needs --fresh (each crawl counted in its own process)")
    modes = tuple(mode for mode in args.modes.split(",") if mode in MODES)
    if args.serve:
        serve(args.origins, args.pages)
        return 0
    if args.ports:
        return child(json.loads(args.ports), args.pages, modes[0])
    window = LoadWindow()
    print(f"start: {window.line()}", file=sys.stderr, flush=True)
    if not args.no_unit:
        per_request_cost(args.origins, args.pages)

    from scrapy.utils.reactor import install_reactor

    install_reactor(REACTOR)
    from scrapy.utils.log import configure_logging
    from twisted.internet import defer, task

    configure_logging({"LOG_LEVEL": "WARNING"})
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", f"--origins={args.origins}", f"--pages={args.pages}"]
        + ["--real-pages"] * REAL_PAGES,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        ports: list[int] = json.loads(server.stdout.readline())
        results: dict[str, list[Result]] = {}
        if args.fresh:
            results = run_fresh(ports, args.pages, args.rounds, modes, args.items)
            raise SystemExit(0)

        async def go(_reactor: object) -> None:
            results.update(await run(ports, args.pages, args.rounds, modes))

        task.react(lambda reactor: defer.Deferred.fromCoroutine(go(reactor)))
    except SystemExit as exit_:  # task.react always exits
        if exit_.code:
            raise
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)
    report(results, args.origins, args.pages, args.rounds)
    window.close()
    print(f"\n{window.line()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
